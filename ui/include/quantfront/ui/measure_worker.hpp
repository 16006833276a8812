#pragma once
/// Runs a measurement backend (core's MeasurementBackend; cuda/'s in the app, a fake in the
/// tests) on a worker thread for the window: records arrive one by one (so measured points
/// appear as they land), progress and cancel.
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <vector>

#include <quantfront/core/base/records.hpp>
#include <quantfront/core/session/measurement.hpp>
#include <quantfront/core/session/session.hpp>

namespace qf::ui {

class MeasureWorker : public QObject {
  Q_OBJECT
 public:
  MeasureWorker(std::shared_ptr<MeasurementBackend> backend, MeasureRequest request);
  /// Asks the running measurement to stop after the current record (thread-safe).
  void cancel() { m_cancel = true; }

 public slots:
  /// Runs the measurement (call on the worker thread). Emits recordMeasured for every valid
  /// record, progressed after each, then finished.
  void run();

 signals:
  void recordMeasured(const qf::KernelMeasurement& record);
  void progressed(double fractionDone, const QString& what);
  /// `session` holds the valid records and the environment run to add to the window's
  /// session; `error` is empty on success; `cancelled` when cancel() stopped it (then nothing
  /// is to be added).
  void finished(const qf::Session& session, const QString& error, bool cancelled);

 private:
  std::shared_ptr<MeasurementBackend> m_backend;
  MeasureRequest m_request;
  std::atomic<bool> m_cancel{false};
};

}  // namespace qf::ui
