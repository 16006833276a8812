// The window's Measure action: cuda/'s measure() on a worker thread.
#include <quantfront/ui/measure_worker.hpp>

#include <algorithm>

#include <quantfront/core/base/text.hpp>
#include <quantfront/cuda/measure_session.hpp>

namespace qf::ui {

MeasureWorker::MeasureWorker(ModelArch model, std::vector<std::string> schemes, int device)
    : m_model(std::move(model)), m_schemes(std::move(schemes)), m_device(device) {
  // Records and the finished session cross from the worker thread to the window's.
  qRegisterMetaType<qf::KernelMeasurement>();
  qRegisterMetaType<qf::Session>();
}

void MeasureWorker::run() {
  std::vector<std::string> schemes;
  const auto& known = qf::cuda::measurableSchemes();
  for (const auto& s : m_schemes) {
    if (std::find(known.begin(), known.end(), s) != known.end()) schemes.push_back(s);
  }
  if (schemes.empty()) schemes = {"bf16", "w8a8-fp8", "w4a16-g128"};
  const auto plan =
      qf::cuda::planForModel(m_model, schemes, qf::cuda::defaultMList(true), true, m_device);
  const auto result =
      qf::cuda::measure(plan, [this](const qf::cuda::MeasureRecord& r, double done) {
        if (r.valid)
          emit recordMeasured(qf::cuda::toKernelMeasurement(r, r.device, "quantfront Measure"));
        emit progressed(
            done, QString::fromStdString(r.kernel + " " + r.scheme + " m=" + std::to_string(r.m)));
        return !m_cancel.load();
      });
  Session added;
  // After an error that stopped the run (a lost CUDA context), what was measured before it is
  // kept; the window shows the error beside it.
  if (!result.cancelled && !result.records.empty()) {
    qf::cuda::addMeasurements(added, result, plan, m_model.name, utcTimestamp());
  }
  emit finished(added, QString::fromStdString(result.error), result.cancelled);
}

}  // namespace qf::ui
