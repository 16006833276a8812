// The window's measurements: the device the backend reports, Measure / Cancel on a worker
// thread, and the measured points drawn over the modelled curves.
#include <quantfront/ui/background.hpp>
#include <quantfront/ui/document.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/measured_view.hpp>

#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>

#include <quantfront/core/analysis/calibration.hpp>
#include <quantfront/core/base/kernels.hpp>
#include <quantfront/core/session/evidence_edit.hpp>
#include <quantfront/core/session/measurement.hpp>
#include <quantfront/ui/plots.hpp>

#include "window_internal.hpp"

namespace qf::ui {

void MainWindow::detectGpu() {
  QString text = "no CUDA device: analytic and saved measurements only";
  m_haveDevice = false;
  if (m_backend) {
    std::string why;
    const auto devices = m_backend->devices(why);
    if (!devices.empty()) {
      const auto& d = devices.front();
      m_haveDevice = true;
      text = QString("CUDA device: %1 (sm_%2%3, %4 SMs, %5 GiB)")
                 .arg(qs(d.name))
                 .arg(d.smMajor)
                 .arg(d.smMinor)
                 .arg(d.smCount)
                 .arg(fixedDecimals(d.memoryGib, 1));
    } else if (!why.empty()) {
      text += QString(" (%1)").arg(qs(why));
    }
    m_measure->setToolTip(m_haveDevice
                              ? "Time the dequant and GEMM kernels of the scenario's model on this "
                                "GPU (quick sweep, about a minute); the records go into the session"
                              : "Needs a CUDA device: none was found");
  } else {
    m_measure->setToolTip(
        "This build has no measurement kernels (cuda/ needs the CUDA toolkit at build time); "
        "open a session measured with qfront-measure to see measured points");
  }
  m_gpuStatus->setText(text);
  m_measure->setEnabled(m_haveDevice);
}

void MainWindow::updateMeasurementOverlay(const Scenario& scenario,
                                          const std::vector<SchemeAssignment>& assignments,
                                          const std::vector<double>& batches) {
  // The session's records, plus (only while a measurement runs) those delivered so far:
  // no copy on an ordinary recompute.
  std::vector<KernelMeasurement> withLive;
  if (!m_liveRecords.empty()) {
    withLive = m_doc->session().kernelMeasurements;
    withLive.insert(withLive.end(), m_liveRecords.begin(), m_liveRecords.end());
  }
  const auto& records = m_liveRecords.empty() ? m_doc->session().kernelMeasurements : withLive;
  auto overlay =
      measurementOverlay(records, scenario, assignments, batches,
                         m_sessionPath.isEmpty() ? "session" : m_sessionPath.toStdString());
  if (!overlay) {
    statusBar()->showMessage("Measurements not shown: " + qs(overlay.error().str()), 10000);
    overlay = MeasurementOverlay{};
  }
  m_stepPlot->setOverlay(*overlay);
  m_measured->setKernelOverlay(*overlay, reportTitle(*m_doc->report()));
  for (const auto& n : overlay->notes) statusBar()->showMessage(qs(n), 8000);
}

ResidualPlot* MainWindow::residualPlot() const {
  return m_measured->kernelPlot();
}

void MainWindow::updateEndToEnd() {
  const Session s = withoutHidden(session());
  std::vector<std::string> notes;
  const std::string file = m_sessionPath.isEmpty() ? "session" : m_sessionPath.toStdString();
  auto rows = guarded("end-to-end runs", [&]() -> Result<std::vector<E2eComparison>> {
    return compareEndToEnd(s, file, notes);
  });
  if (!rows) notes.push_back(rows.error().str());
  m_measured->setEndToEnd(rows ? *rows : std::vector<E2eComparison>{}, notes, sessionName());
}

void MainWindow::setMeasurementBackend(std::shared_ptr<MeasurementBackend> backend) {
  // Never swapped under a running measurement.
  if (m_background->busy(Background::Lane::Measure)) return;
  m_backend = std::move(backend);
  detectGpu();
}

/// What a measurement run leaves: the records and the environment run to add, why it stopped.
struct MeasureOutcome {
  Session added;
  QString error;
  bool cancelled = false;
};

void MainWindow::toggleMeasure() {
  if (m_background->busy(Background::Lane::Measure)) {
    m_background->cancel(Background::Lane::Measure);
    m_measure->setText("Cancelling…");
    m_measure->setEnabled(false);
    return;
  }
  if (!m_doc->report() || !m_backend) return;
  MeasureRequest request;
  request.model = m_doc->report()->scenario.model;
  for (const auto& s : m_doc->report()->schemes) {
    const std::string& id = s.assignment.linear.id;
    if (!s.assignment.mixed() && measurableScheme(id) != nullptr) request.schemes.push_back(id);
  }
  if (request.schemes.empty()) request.schemes = Catalog::bundled().schemesDefaultFor("measure");
  m_liveRecords.clear();
  // Records and progress cross to this thread as they come (the window outlives the job: its
  // destructor stops and waits for it), so measured points appear as they land.
  auto work = [this, backend = m_backend, request](const std::atomic<bool>& cancelled) {
    MeasureOutcome out;
    auto batch = backend->measure(
        request,
        [this, &cancelled](const KernelMeasurement* record, double done, const std::string& what) {
          std::optional<KernelMeasurement> rec;
          if (record) rec = *record;
          QMetaObject::invokeMethod(
              this, [this, rec, done, text = qs(what)] { measureProgressed(rec, done, text); },
              Qt::QueuedConnection);
          return !cancelled.load();
        });
    if (!batch) {
      out.error = qs(batch.error().message);
      return out;
    }
    // After an error that stopped the run (a lost CUDA context), what was measured before it
    // is kept; the window shows the error beside it.
    addMeasurements(out.added, *batch);  // a cancelled batch adds nothing
    out.error = qs(batch->error);
    out.cancelled = batch->cancelled;
    return out;
  };
  m_background->run<MeasureOutcome>(Background::Lane::Measure, std::move(work),
                                    [this](MeasureOutcome&& out) { measureFinished(out); });
  m_measure->setText("Cancel");
  m_measureProgress->setValue(0);
  m_measureProgress->setVisible(true);
}

void MainWindow::measureProgressed(const std::optional<KernelMeasurement>& record, double done,
                                   const QString& what) {
  if (!m_background->busy(Background::Lane::Measure)) return;  // after it ended
  m_measureProgress->setValue(static_cast<int>(done * 1000));
  m_measureProgress->setToolTip(what);
  if (record) {
    m_liveRecords.push_back(*record);
    if (record->kind == KernelKind::Gemm) recompute();  // points appear as they land
  }
}

void MainWindow::measureFinished(const MeasureOutcome& out) {
  m_liveRecords.clear();
  m_measureProgress->setVisible(false);
  m_measure->setText("Measure");
  m_measure->setEnabled(m_haveDevice);
  const std::size_t got = out.added.kernelMeasurements.size();
  const bool keep = !out.cancelled && (out.error.isEmpty() || got > 0);
  if (!out.error.isEmpty()) {
    // A run stopped part way keeps what it measured before the error.
    QMessageBox::warning(
        this, "Measurement failed",
        keep
            ? out.error + QString("\n\nThe %1 records measured before it are added to the session.")
                              .arg(got)
            : out.error);
  } else if (out.cancelled) {
    statusBar()->showMessage("Measurement cancelled: the session is as it was", 8000);
  }
  if (keep) {
    Session next = m_doc->session();
    addMeasurements(
        next, MeasurementBatch{out.added.kernelMeasurements, out.added.importedRuns, false, {}});
    m_doc->replace(std::move(next), kMeasurementsPart | kRunsPart);
    statusBar()->showMessage(
        QString("Measured %1 kernel configurations; added to the session").arg(got), 8000);
  }
  recompute();
}

}  // namespace qf::ui
