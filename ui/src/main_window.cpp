#include <quantfront/ui/main_window.hpp>

#include <QApplication>
#include <QFile>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <cmath>

#include <quantfront/ui/plot_style.hpp>
#include <quantfront/ui/plots.hpp>
#include <quantfront/ui/scenario_panel.hpp>

#ifdef QF_HAVE_CUDA
#include <quantfront/cuda/device.hpp>
#endif

namespace qf::ui {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("QuantFront — should I quantize, how, and for which workload?");
  auto* splitter = new QSplitter(this);
  m_panel = new ScenarioPanel(splitter);
  auto* scroll = new QScrollArea(splitter);
  scroll->setWidget(m_panel);
  scroll->setWidgetResizable(true);
  scroll->setMinimumWidth(330);
  m_tabs = new QTabWidget(splitter);
  m_stepPlot = new StepTimePlot(m_tabs);
  m_throughputPlot = new ThroughputPlot(m_tabs);
  m_schemesTable = new QTableWidget(m_tabs);
  m_schemesTable->setObjectName("schemesTable");
  m_schemesTable->setSortingEnabled(true);
  m_schemesTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_tabs->addTab(m_stepPlot, "Step time vs batch");
  m_tabs->addTab(m_throughputPlot, "Throughput && capacity");
  m_tabs->addTab(m_schemesTable, "Schemes");
  m_tabs->tabBar()->setTabData(0, "step");
  m_tabs->tabBar()->setTabData(1, "throughput");
  m_tabs->tabBar()->setTabData(2, "schemes");
  splitter->addWidget(scroll);
  splitter->addWidget(m_tabs);
  splitter->setStretchFactor(1, 1);
  setCentralWidget(splitter);

  m_gpuStatus = new QLabel(this);
  m_gpuStatus->setObjectName("gpuStatus");
  statusBar()->addWidget(m_gpuStatus, 1);
  m_measure = new QPushButton("Measure", this);
  m_measure->setObjectName("measure");
  statusBar()->addPermanentWidget(m_measure);
  detectGpu();
  buildMenus();
  connect(m_panel, &ScenarioPanel::scenarioChanged, this, &MainWindow::recompute);
  resize(1500, 920);
  recompute();
}

void MainWindow::detectGpu() {
  QString text = "no CUDA device: analytic and saved measurements only";
#ifdef QF_HAVE_CUDA
  std::string why;
  const auto devices = qf::cuda::queryDevices(why);
  if (!devices.empty()) {
    const auto& d = devices.front();
    text = QString("CUDA device: %1 (sm_%2%3, %4 SMs, %5 GiB)")
               .arg(qs(d.name))
               .arg(d.smMajor)
               .arg(d.smMinor)
               .arg(d.smCount)
               .arg(d.memoryGib, 0, 'f', 1);
  }
#endif
  m_gpuStatus->setText(text);
  m_measure->setEnabled(false);
  m_measure->setToolTip("Kernel measurements need the measurement kernels (cuda/), "
                        "which this build does not include yet");
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu("&File");
  QAction* exportPlot = file->addAction("Export plot…", this, &MainWindow::exportPlotInteractive);
  exportPlot->setShortcut(QKeySequence("Ctrl+E"));
  file->addAction("Export data (CSV/JSON)…", this, &MainWindow::exportDataInteractive);
  file->addSeparator();
  QAction* quit = file->addAction("Quit", qApp, &QApplication::quit);
  quit->setShortcut(QKeySequence::Quit);
}

void MainWindow::setScenario(const ScenarioSpec& spec) {
  m_panel->setSpec(spec);
  recompute();
}

ScenarioSpec MainWindow::scenario() const { return m_panel->spec(); }

QCustomPlot* MainWindow::currentPlot() const {
  return qobject_cast<QCustomPlot*>(m_tabs->currentWidget());
}

void MainWindow::showTab(const QString& key) {
  for (int i = 0; i < m_tabs->count(); ++i) {
    if (m_tabs->tabBar()->tabData(i).toString() == key) m_tabs->setCurrentIndex(i);
  }
}

void MainWindow::recompute() {
  const ScenarioSpec spec = m_panel->spec();
  auto scen = resolveScenario(spec);
  if (!scen) {
    m_lastError = qs(scen.error().str());
    m_panel->setFeedback(m_lastError, true);
    return;  // keep the last good plots on screen
  }
  std::vector<CandidateSchemes> cands;
  auto c = makeCandidates(spec.schemes, spec.mixedLinear, spec.mixedMoe, spec.mixedLmHead);
  if (!c) {
    m_lastError = qs(c.error().str());
    m_panel->setFeedback(m_lastError, true);
    return;
  }
  auto rep = runEngine(*scen, *c, logBatches(spec.batchMin, spec.batchMax));
  if (!rep) {
    m_lastError = qs(rep.error().str());
    m_panel->setFeedback(m_lastError, true);
    return;
  }
  m_lastError.clear();
  m_report = std::move(*rep);
  const auto& p = m_report->params;
  QString facts = QString("%1: %2 B parameters stored, %3 B streamed per token")
                      .arg(qs(m_report->scenario.model.name))
                      .arg(p.total() / 1e9, 0, 'f', 2)
                      .arg(p.streamed() / 1e9, 0, 'f', 2);
  if (m_report->scenario.model.isMoe()) {
    facts += QString(", %1 B active (%2 of %3 experts per token)")
                 .arg(p.active / 1e9, 0, 'f', 2)
                 .arg(m_report->scenario.model.expertsPerToken)
                 .arg(m_report->scenario.model.experts);
  }
  if (m_report->scenario.model.checkpointQuant) {
    const auto& q = *m_report->scenario.model.checkpointQuant;
    facts += QString("\nCheckpoint quantized: %1 → %2").arg(qs(q.quantMethod), q.schemeId.empty() ? "no built-in scheme" : qs(q.schemeId));
  }
  if (m_report->schemes.empty()) facts += "\nNo scheme selected: tick at least one.";
  m_panel->setFeedback(facts, false);
  m_stepPlot->setReport(*m_report, spec.batchMin, spec.batchMax);
  m_throughputPlot->setReport(*m_report, spec.batchMin, spec.batchMax);
  updateSchemesTable();
  emit reportUpdated();
}

void MainWindow::updateSchemesTable() {
  const QStringList headers = {"scheme", "bits/weight", "path", "floor ms", "mma µs/seq",
                               "dequant ms", "ridge B", "weights GiB", "max seqs",
                               "tok/s at capacity"};
  m_schemesTable->setSortingEnabled(false);
  m_schemesTable->clear();
  m_schemesTable->setColumnCount(static_cast<int>(headers.size()));
  m_schemesTable->setHorizontalHeaderLabels(headers);
  m_schemesTable->setRowCount(static_cast<int>(m_report->schemes.size()));
  int row = 0;
  auto num = [](double v, int prec) {
    auto* item = new QTableWidgetItem;
    item->setData(Qt::DisplayRole, std::round(v * std::pow(10, prec)) / std::pow(10, prec));
    return item;
  };
  for (const auto& s : m_report->schemes) {
    m_schemesTable->setItem(row, 0, new QTableWidgetItem(qs(s.cand.id)));
    m_schemesTable->setItem(row, 1, num(s.bitsPerWeight, 3));
    m_schemesTable->setItem(row, 2, new QTableWidgetItem(qs(s.pathName)));
    m_schemesTable->setItem(row, 3, num(s.memoryFloorMs, 3));
    m_schemesTable->setItem(row, 4, num(s.mmaUsPerSeq, 3));
    m_schemesTable->setItem(row, 5, num(s.dequantMs, 3));
    m_schemesTable->setItem(row, 6, s.ridgeBatch ? num(*s.ridgeBatch, 1) : new QTableWidgetItem("none"));
    m_schemesTable->setItem(row, 7, num(s.capacity.weightsGib, 2));
    m_schemesTable->setItem(row, 8, num(static_cast<double>(s.capacity.maxSeqs), 0));
    m_schemesTable->setItem(row, 9, num(s.capacity.tokensPerSAtCapacity, 0));
    ++row;
  }
  m_schemesTable->setSortingEnabled(true);
  m_schemesTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

void MainWindow::exportPlotInteractive() {
  QCustomPlot* plot = currentPlot();
  if (!plot) plot = m_stepPlot;
  QString selected;
  const QString path = QFileDialog::getSaveFileName(
      this, "Export plot", "quantfront-plot.png", "PNG image (*.png);;PDF (*.pdf);;SVG (*.svg)",
      &selected);
  if (path.isEmpty()) return;
  const QString err = qf::ui::exportPlot(plot, path, kExportWidthPx, kExportHeightPx);
  if (!err.isEmpty()) {
    QMessageBox::warning(this, "Export failed", err);
  } else {
    statusBar()->showMessage("Exported " + path, 5000);
  }
}

void MainWindow::exportDataInteractive() {
  if (!m_report) return;
  const QString path = QFileDialog::getSaveFileName(this, "Export data", "quantfront-model.json",
                                                    "JSON (*.json);;CSV (*.csv)");
  if (path.isEmpty()) return;
  QByteArray bytes;
  if (path.endsWith(".csv", Qt::CaseInsensitive)) {
    bytes += "scheme,batch,step_ms,tokens_per_s,bound\n";
    for (const auto& s : m_report->schemes) {
      for (const auto& p : s.points) {
        bytes += QString("%1,%2,%3,%4,%5\n")
                     .arg(qs(s.cand.id))
                     .arg(p.batch, 0, 'g', 10)
                     .arg(p.stepMs, 0, 'g', 10)
                     .arg(p.tokensPerS, 0, 'g', 10)
                     .arg(p.bound)
                     .toUtf8();
      }
    }
  } else {
    bytes = QByteArray::fromStdString(reportToJson(*m_report).dump(2));
  }
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit()) {
    QMessageBox::warning(this, "Export failed", path + ": " + f.errorString());
    return;
  }
  statusBar()->showMessage("Exported " + path, 5000);
}

}  // namespace qf::ui
