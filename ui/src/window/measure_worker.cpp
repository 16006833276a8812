// The window's Measure action: a measurement backend on a worker thread.
#include <quantfront/ui/measure_worker.hpp>

#include <utility>

namespace qf::ui {

MeasureWorker::MeasureWorker(std::shared_ptr<MeasurementBackend> backend, MeasureRequest request)
    : m_backend(std::move(backend)), m_request(std::move(request)) {
  // Records and the finished session cross from the worker thread to the window's.
  qRegisterMetaType<qf::KernelMeasurement>();
  qRegisterMetaType<qf::Session>();
}

void MeasureWorker::run() {
  auto batch = m_backend->measure(
      m_request, [this](const KernelMeasurement* record, double done, const std::string& what) {
        if (record) emit recordMeasured(*record);
        emit progressed(done, QString::fromStdString(what));
        return !m_cancel.load();
      });
  Session added;
  if (!batch) {
    emit finished(added, QString::fromStdString(batch.error().message), false);
    return;
  }
  // After an error that stopped the run (a lost CUDA context), what was measured before it is
  // kept; the window shows the error beside it.
  addMeasurements(added, *batch);  // a cancelled batch adds nothing
  emit finished(added, QString::fromStdString(batch->error), batch->cancelled);
}

}  // namespace qf::ui
