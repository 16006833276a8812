// The window's measurements: the device the backend reports, Measure / Cancel on a worker
// thread, and the measured points drawn over the modelled curves.
#include <quantfront/ui/document.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/measured_view.hpp>

#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QThread>

#include <quantfront/core/analysis/calibration.hpp>
#include <quantfront/core/base/kernels.hpp>
#include <quantfront/core/session/evidence_edit.hpp>
#include <quantfront/core/session/measurement.hpp>
#include <quantfront/ui/measure_worker.hpp>
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
                 .arg(d.memoryGib, 0, 'f', 1);
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
  if (m_measureWorker) return;  // never swapped under a running measurement
  m_backend = std::move(backend);
  detectGpu();
}

void MainWindow::toggleMeasure() {
  if (m_measureWorker) {
    m_measureWorker->cancel();
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
  m_measureThread = new QThread(this);
  m_measureWorker = new MeasureWorker(m_backend, request);
  m_measureWorker->moveToThread(m_measureThread);
  connect(m_measureThread, &QThread::started, m_measureWorker, &MeasureWorker::run);
  connect(m_measureWorker, &MeasureWorker::recordMeasured, this,
          [this](const KernelMeasurement& r) {
            m_liveRecords.push_back(r);
            if (r.kind == KernelKind::Gemm) recompute();  // points appear as they land
          });
  connect(m_measureWorker, &MeasureWorker::progressed, this,
          [this](double done, const QString& what) {
            m_measureProgress->setValue(static_cast<int>(done * 1000));
            m_measureProgress->setToolTip(what);
          });
  connect(m_measureWorker, &MeasureWorker::finished, this,
          [this](const Session& added, const QString& error, bool cancelled) {
            m_measureThread->quit();
            m_measureThread->wait();
            // The worker lives in a thread that has finished: a deleteLater() would wait for
            // an event loop that never runs again (LeakSanitizer found it leaked). Nothing
            // runs in that thread any more, so it is deleted here.
            delete m_measureWorker;
            m_measureThread->deleteLater();
            m_measureWorker = nullptr;
            m_measureThread = nullptr;
            m_liveRecords.clear();
            m_measureProgress->setVisible(false);
            m_measure->setText("Measure");
            m_measure->setEnabled(m_haveDevice);
            const bool keep = !cancelled && (error.isEmpty() || !added.kernelMeasurements.empty());
            if (!error.isEmpty()) {
              // A run stopped part way keeps what it measured before the error.
              QMessageBox::warning(this, "Measurement failed",
                                   keep ? error + QString("\n\nThe %1 records measured before it "
                                                          "are added to the session.")
                                                      .arg(added.kernelMeasurements.size())
                                        : error);
            } else if (cancelled) {
              statusBar()->showMessage("Measurement cancelled: the session is as it was", 8000);
            }
            if (keep) {
              Session next = m_doc->session();
              addMeasurements(
                  next, MeasurementBatch{added.kernelMeasurements, added.importedRuns, false, {}});
              m_doc->replace(next, kMeasurementsPart | kRunsPart);
              statusBar()->showMessage(
                  QString("Measured %1 kernel configurations; added to the session")
                      .arg(added.kernelMeasurements.size()),
                  8000);
            }
            recompute();
          });
  m_measure->setText("Cancel");
  m_measureProgress->setValue(0);
  m_measureProgress->setVisible(true);
  m_measureThread->start();
}

}  // namespace qf::ui
