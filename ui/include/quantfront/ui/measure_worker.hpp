#pragma once
/// Runs qfront-measure's plan on a worker thread for the window: records arrive one by one
/// (so measured points appear as they land), progress and cancel. Exists only in builds with
/// cuda/ (QF_HAVE_CUDA); the window disables Measure otherwise.
#include <QObject>
#include <QString>
#include <atomic>
#include <vector>

#include <quantfront/core/base/records.hpp>
#include <quantfront/core/model/model_config.hpp>
#include <quantfront/core/session/session.hpp>

namespace qf::ui {

class MeasureWorker : public QObject {
  Q_OBJECT
 public:
  /// Plans the measurement of `model` for `schemes` (ids qfront-measure knows; others are
  /// left out) with the quick M list.
  MeasureWorker(ModelArch model, std::vector<std::string> schemes, int device);
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
  ModelArch m_model;
  std::vector<std::string> m_schemes;
  int m_device = 0;
  std::atomic<bool> m_cancel{false};
};

}  // namespace qf::ui
