#include <nlohmann/json.hpp>
#include <quantfront/ui/example_session.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/measured_view.hpp>

#include <QApplication>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QProgressBar>
#include <QProgressDialog>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QThread>
#include <QToolBar>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QMimeData>
#include <QSettings>
#include <QStandardPaths>

#include <quantfront/core/analysis/frontier_analysis.hpp>
#include <quantfront/core/base/resources.hpp>
#include <quantfront/core/model/model_config.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/model/speculation.hpp>
#include <quantfront/core/session/attach_runs.hpp>
#include <quantfront/core/session/deploy_gate.hpp>
#include <quantfront/core/session/evidence_edit.hpp>
#include <quantfront/core/session/file_lock.hpp>
#include <quantfront/core/session/import_session.hpp>
#include <quantfront/core/session/serving.hpp>
#include <quantfront/ui/autosave.hpp>
#include <quantfront/ui/deploy_view.hpp>
#include <quantfront/ui/document.hpp>
#include <quantfront/ui/evidence_view.hpp>
#include <quantfront/ui/pareto_view.hpp>
#include <quantfront/ui/plot_export.hpp>
#include <quantfront/ui/plot_style.hpp>
#include <quantfront/ui/plots.hpp>
#include <quantfront/ui/review_report.hpp>
#include <quantfront/ui/scenario_panel.hpp>
#include <quantfront/ui/serving_plot.hpp>
#include <quantfront/ui/table_fit.hpp>

#include <quantfront/core/base/kernels.hpp>
#include <quantfront/core/session/measurement.hpp>
#include <quantfront/ui/measure_worker.hpp>
#include <quantfront/ui/tabs.hpp>

#include "window_internal.hpp"

namespace qf::ui {

Session bundledExampleSession() {
  if (const auto text = bundledFile("sessions/llama-3.1-8b-70b.json")) {
    if (auto s = parseSessionText(*text, "sessions/llama-3.1-8b-70b.json")) return std::move(*s);
  }
  return {};
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("QuantFront — should I quantize, how, and for which workload?");
  m_doc = new Document(this);
  auto* splitter = new QSplitter(this);
  m_panel = new ScenarioPanel(splitter);
  auto* scroll = new QScrollArea(splitter);
  scroll->setWidget(m_panel);
  scroll->setWidgetResizable(true);
  scroll->setMinimumWidth(330);
  m_tabs = new QTabWidget(splitter);
  m_stepPlot = new StepTimePlot(m_tabs);
  m_throughputPlot = new ThroughputPlot(m_tabs);
  buildSchemesTab();
  m_pareto = new ParetoView(m_tabs);
  m_evidence = new EvidenceView(m_tabs);
  m_measured = new MeasuredView(m_tabs);
  m_deploy = new DeployView(m_tabs);
  buildServingTab();
  addTabs();
  connectTabs();
  setAcceptDrops(true);
  m_autosave.setSingleShot(true);
  m_autosave.setInterval(2000);
  connect(&m_autosave, &QTimer::timeout, this, [this] { autosaveNow(); });
  // Real edits mark the session modified; viewing another tab does not.
  connect(m_pareto, &ParetoView::selectionChanged, this, [this] {
    if (!m_showingDocument) markChanged();
  });
  splitter->addWidget(scroll);
  splitter->addWidget(buildCentre(splitter));
  splitter->setStretchFactor(1, 1);
  setCentralWidget(splitter);
  buildStatusBar();
  detectGpu();
  buildMenus();
  buildToolBar();
  installCandidateMenu();
  installKeys(m_tabs);
  // The views edit the document; the document says what changed and the views redraw.
  connect(m_doc, &Document::changed, this, &MainWindow::showDocument);
  connect(m_doc, &Document::edited, this, &MainWindow::markChanged);
  connect(m_panel, &ScenarioPanel::scenarioChanged, this, [this] {
    if (m_showingDocument) return;
    m_doc->editScenario(m_panel->spec());
    markChanged();
  });
  connect(m_pareto, &ParetoView::selectionChanged, this, [this] {
    if (m_showingDocument) return;
    m_doc->editSelection(m_pareto->objectives(), m_pareto->gates());
  });
  resize(1500, 920);
  // Start on the bundled example session (its scenario is the seed's Figure 1).
  setSession(bundledExampleSession(), QString());
  m_example = true;
  updateTitle();
  // The window opens on the step-time view, whatever tab the example was saved on.
  showTab("step");
}

void MainWindow::buildSchemesTab() {
  m_schemesTab = new QWidget(m_tabs);
  auto* schemesLayout = new QVBoxLayout(m_schemesTab);
  m_schemesTable = new QTableWidget(m_schemesTab);
  m_schemesTable->setObjectName("schemesTable");
  m_schemesTable->setSortingEnabled(true);
  m_schemesTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_crossoversTable = new QTableWidget(m_schemesTab);
  m_crossoversTable->setObjectName("crossoversTable");
  m_crossoversTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
  schemesLayout->addWidget(m_schemesTable, 3);
  schemesLayout->addWidget(
      new QLabel("Crossovers: where one scheme's step time overtakes "
                 "another's",
                 m_schemesTab));
  schemesLayout->addWidget(m_crossoversTable, 1);
}

void MainWindow::buildServingTab() {
  m_servingTab = new QWidget(m_tabs);
  auto* servingLayout = new QVBoxLayout(m_servingTab);
  servingLayout->setContentsMargins(0, 0, 0, 0);
  m_serving = new ServingPlot(m_servingTab);
  m_serving->setToolTip(QString());
  m_servingNotes = new QLabel(m_servingTab);
  m_servingNotes->setObjectName("servingNotes");
  m_servingNotes->setWordWrap(true);
  m_servingNotes->setStyleSheet("QLabel { color: #8a5a00; padding: 2px 6px; }");
  m_servingNotes->setVisible(false);
  auto* sloRow = new QHBoxLayout;
  sloRow->setContentsMargins(6, 4, 6, 0);
  sloRow->addWidget(new QLabel("Goodput SLO:", m_servingTab));
  auto sloBox = [&](const char* name, const QString& prefix, const QString& tip) {
    auto* box = new QDoubleSpinBox(m_servingTab);
    box->setObjectName(name);
    box->setRange(0, 600000);
    box->setDecimals(0);
    box->setSingleStep(10);
    box->setSuffix(" ms");
    box->setPrefix(prefix);
    box->setSpecialValueText(prefix + "off");
    box->setToolTip(tip);
    // Typing "250" is one change, not three recomputations of every run's bootstraps.
    box->setKeyboardTracking(false);
    sloRow->addWidget(box);
    connect(box, &QDoubleSpinBox::valueChanged, this, [this] {
      if (m_tabs->currentWidget() == m_servingTab) updateServing();
    });
    return box;
  };
  m_sloTtft = sloBox("sloTtft", "TTFT ≤ ",
                     "Goodput counts the requests whose time to first token is within this "
                     "(computed from each run's per-request records; off: the file's own "
                     "goodput, if it has one)");
  m_sloTpot = sloBox("sloTpot", "TPOT ≤ ",
                     "Goodput counts the requests whose time per output token is within this "
                     "(computed from each run's per-request records; off: the file's own "
                     "goodput, if it has one)");
  sloRow->addStretch(1);
  servingLayout->addLayout(sloRow);
  servingLayout->addWidget(m_serving, 1);
  servingLayout->addWidget(m_servingNotes);
}

MainWindow::TabParts MainWindow::tabParts(Tab tab) const {
  switch (tab) {
    case Tab::Step:
      return {m_stepPlot, m_stepPlot, nullptr};
    case Tab::Throughput:
      refreshThroughputPlot();
      return {m_throughputPlot, m_throughputPlot, nullptr};
    case Tab::Serving:
      return {m_servingTab, m_serving, nullptr};
    case Tab::Schemes:
      return {m_schemesTab, nullptr, m_schemesTable};
    case Tab::Pareto:
      return {m_pareto, m_pareto->plot(), nullptr};
    case Tab::Candidates:
      return {m_pareto->table(), nullptr, m_pareto->table()};
    case Tab::Evidence:
      return {m_evidence, nullptr, nullptr};
    case Tab::Measured:
      return {m_measured, m_measured->exportPlot(), m_measured->table()};
    case Tab::Deploy:
      return {m_deploy, m_deploy->plot(), nullptr};
  }
  return {};
}

const TabSpec* MainWindow::currentTabSpec() const {
  return tabByKey(currentTabKey());
}

void MainWindow::addTabs() {
  for (const TabSpec& spec : tabSpecs()) {
    const int i = m_tabs->addTab(tabParts(spec.id).page, spec.title);
    m_tabs->tabBar()->setTabData(i, spec.key);
    if (spec.toolTip) m_tabs->setTabToolTip(i, spec.toolTip);
  }
}

void MainWindow::connectTabs() {
  // The serving sweeps (bootstraps over per-request records) are computed when the tab is
  // shown or exported, not on every scenario tick.
  connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
    if (m_tabs->currentWidget() == m_throughputPlot) refreshThroughputPlot();
    if (m_tabs->currentWidget() == m_servingTab) updateServing();
    if (m_tabs->currentWidget() == m_measured) updateEndToEnd();
    updateFitBanner();
  });
  connect(m_deploy, &DeployView::addCandidateRequested, this,
          [this](const Candidate& c) { addDeploymentCandidate(c); });
  // The Deploy search applies the Pareto tab's gates to the session's candidates, as
  // qfront search --gate --session does.
  m_deploy->setGateSource([this](const std::string& modelId) -> Result<DeployGate> {
    const Session s = session();
    if (s.view.gates.empty())
      return Error{"", "", "gates", "no quality gates are set (Pareto tab)"};
    auto gates = parseGateTexts(s.view.gates);
    if (!gates) return gates.error();
    return deployGateFromSession(s, modelId, *gates, std::nullopt);
  });
  connect(m_evidence, &EvidenceView::attachRequested, this, [this](const AttachRequest& req) {
    statusBar()->showMessage(attachRuns(req).join("; "), 15000);
  });
  // Runs dragged from the Evidence tab onto a candidate row attach to that candidate.
  m_pareto->table()->setAcceptDrops(true);
  m_pareto->table()->viewport()->setAcceptDrops(true);
  m_pareto->table()->viewport()->installEventFilter(this);
  // The Evidence tab lists the metrics of the candidate selected in the Candidates tab.
  connect(m_pareto->table(), &QTableWidget::itemSelectionChanged, this, [this] {
    const auto rows = m_pareto->table()->selectionModel()->selectedRows();
    if (rows.size() != 1) return;
    if (const auto* it = m_pareto->table()->item(rows.front().row(), 0)) {
      m_evidence->showCandidate(it->text());
    }
  });
}

QWidget* MainWindow::buildCentre(QWidget* parent) {
  // A model that does not fit says so over every tab.
  auto* centre = new QWidget(parent);
  auto* centreLayout = new QVBoxLayout(centre);
  centreLayout->setContentsMargins(0, 0, 0, 0);
  centreLayout->setSpacing(2);
  m_fitBanner = new QLabel(centre);
  m_fitBanner->setObjectName("fitBanner");
  m_fitBanner->setWordWrap(true);
  m_fitBanner->setStyleSheet(
      "QLabel { background: #b00000; color: white; font-weight: bold; padding: 5px 8px; }");
  m_fitBanner->setVisible(false);
  centreLayout->addWidget(m_fitBanner);
  centreLayout->addWidget(m_tabs, 1);
  return centre;
}

void MainWindow::buildStatusBar() {
  m_gpuStatus = new QLabel(this);
  m_gpuStatus->setObjectName("gpuStatus");
  statusBar()->addWidget(m_gpuStatus, 1);
  m_measure = new QPushButton("Measure", this);
  m_measure->setObjectName("measure");
  m_measureProgress = new QProgressBar(this);
  m_measureProgress->setRange(0, 1000);
  m_measureProgress->setMaximumWidth(220);
  m_measureProgress->setVisible(false);
  statusBar()->addPermanentWidget(m_measureProgress);
  statusBar()->addPermanentWidget(m_measure);
  connect(m_measure, &QPushButton::clicked, this, &MainWindow::toggleMeasure);
}

MainWindow::~MainWindow() {
  // A file still being read: stop it and wait, so the thread never outlives the window.
  if (m_importThread) {
    if (m_importCancel) m_importCancel->store(true);
    m_importThread->wait();
  }
}

void MainWindow::setSession(const Session& session, const QString& path) {
  // The session being left was saved or given up by the user: its autosave goes.
  dropAutosave();
  m_recovered = false;
  m_example = false;
  m_sessionPath = path;
  m_baseStamp = sessionFileStamp(path);
  m_doc->load(session);
  showTab(tabOfSavedView(session.view.tab));
  m_dirty = false;
  updateTitle();
  if (!session.loadNotes.empty()) {
    QString notes;
    for (const auto& n : session.loadNotes) notes += qs(n) + "; ";
    statusBar()->showMessage(notes, 10000);
  }
}

Session MainWindow::session() const {
  Session s = m_doc->session();
  if (const TabSpec* tab = currentTabSpec()) s.view.tab = tab->savedAs;
  return s;
}

void MainWindow::markChanged() {
  m_dirty = true;
  updateTitle();
  // At most one interval after the first unsaved edit, however busy the user is.
  if (!m_autosaveDir.isEmpty() && !m_autosave.isActive()) m_autosave.start();
}

QString MainWindow::sessionName() const {
  if (m_sessionPath.isEmpty()) {
    return m_recovered ? "recovered session" : m_example ? "example session" : "untitled session";
  }
  return QFileInfo(m_sessionPath).fileName() + (m_recovered ? " (recovered)" : "");
}

void MainWindow::updateTitle() {
  // Which constants the figures are computed with, always in sight.
  // Which constants the figures are computed with, and where they come from, always in sight.
  const auto& report = m_doc->report();
  const QString constants =
      !report ? QString()
              : " — " + QString::fromStdString(constantsProvenance(report->scenario.efficiency));
  setWindowTitle(QString("QuantFront — %1%2%3").arg(sessionName(), constants, m_dirty ? " *" : ""));
}

void MainWindow::editScenario(const ScenarioSpec& spec) {
  m_panel->setSpec(spec);
  m_doc->editScenario(m_panel->spec());
  markChanged();
}

void MainWindow::setCurvePoints(int points) {
  m_doc->setCurvePoints(points);
}

int MainWindow::curvePoints() const {
  return m_doc->curvePoints();
}

QUndoStack* MainWindow::undoStack() const {
  return m_doc->undoStack();
}

const std::optional<EngineReport>& MainWindow::report() const {
  return m_doc->report();
}

void MainWindow::setScenario(const ScenarioSpec& spec) {
  m_panel->setSpec(spec);
  m_doc->setScenario(m_panel->spec());
}

ScenarioSpec MainWindow::scenario() const {
  return m_doc->scenario();
}

void MainWindow::showDocument(unsigned parts) {
  const bool was = m_showingDocument;
  m_showingDocument = true;
  const Session& s = m_doc->session();
  // A view shows what it can of what it is given (a spin box's range): the document takes
  // that as the truth, before the scenario is evaluated.
  if ((parts & kScenarioPart) && m_panel->spec() != s.scenario) {
    m_panel->setSpec(s.scenario);
    if (m_panel->spec() != s.scenario) m_doc->adoptShownScenario(m_panel->spec());
  }
  if (parts & kEvidencePart) {
    showEvidence((parts & kSelectionPart) != 0);
  } else if (parts & kRunsPart) {
    m_evidence->setContents(s.importedRuns, s.candidates);
  }
  if (parts & kEvidencePart) {
  } else if ((parts & kSelectionPart) &&
             (m_pareto->objectives() != s.view.objectives || m_pareto->gates() != s.view.gates)) {
    m_pareto->setSelection(s.view.objectives, s.view.gates);
  }
  if ((parts & kSelectionPart) &&
      (m_pareto->objectives() != s.view.objectives || m_pareto->gates() != s.view.gates)) {
    m_doc->adoptShownSelection(m_pareto->objectives(), m_pareto->gates());
  }
  if (parts & kReportPart) showReport();
  m_showingDocument = was;
}

QString MainWindow::currentTabKey() const {
  return m_tabs->tabBar()->tabData(m_tabs->currentIndex()).toString();
}

QTableWidget* MainWindow::currentTable() const {
  const TabSpec* tab = currentTabSpec();
  return tab ? tabParts(tab->id).table : nullptr;
}

QString MainWindow::fitBanner() const {
  return m_fitBanner->text();
}

bool MainWindow::fitBannerShown() const {
  return m_fitBanner->isVisibleTo(this);
}

void MainWindow::updateFitBanner() {
  // Once in sight: the step-time and throughput plots carry it in their own warning row (so
  // their exports do too); every other view gets the banner.
  const QWidget* tab = m_tabs->currentWidget();
  const bool plotSaysIt = tab == m_stepPlot || tab == m_throughputPlot;
  m_fitBanner->setVisible(!m_fitBanner->text().isEmpty() && !plotSaysIt);
}

QCustomPlot* MainWindow::currentPlot() const {
  const TabSpec* tab = currentTabSpec();
  return tab ? tabParts(tab->id).plot : nullptr;
}

void MainWindow::showTab(const QString& key) {
  if (key == "candidates") m_pareto->setFocus();
  for (int i = 0; i < m_tabs->count(); ++i) {
    if (m_tabs->tabBar()->tabData(i).toString() == key) m_tabs->setCurrentIndex(i);
  }
}

void MainWindow::recompute() {
  m_doc->recompute();
}

void MainWindow::showReport() {
  if (!m_doc->lastError().isEmpty()) {
    m_lastError = m_doc->lastError();
    m_panel->setFeedback(m_lastError, true);
    return;  // keep the last good plots on screen
  }
  m_lastError.clear();
  const EngineReport& report = *m_doc->report();
  const ScenarioSpec& spec = m_doc->scenario();
  m_deploy->setModel(report.scenario.model);
  updateTitle();
  const auto& p = report.params;
  QString facts = QString("%1: %2 B parameters stored, %3 B streamed per token")
                      .arg(qs(report.scenario.model.name))
                      .arg(p.total() / 1e9, 0, 'f', 2)
                      .arg(p.streamed() / 1e9, 0, 'f', 2);
  if (report.scenario.model.isMoe()) {
    facts += QString(", %1 B active (%2 of %3 experts per token)")
                 .arg(p.active / 1e9, 0, 'f', 2)
                 .arg(report.scenario.model.expertsPerToken)
                 .arg(report.scenario.model.experts);
  }
  if (report.scenario.model.checkpointQuant) {
    const auto& q = *report.scenario.model.checkpointQuant;
    facts +=
        QString("\nCheckpoint quantized: %1 → %2")
            .arg(qs(q.quantMethod), q.schemeId.empty() ? "no built-in scheme" : qs(q.schemeId));
  }
  if (report.schemes.empty()) facts += "\nNo scheme selected: tick at least one.";
  m_panel->setFeedback(facts, false);
  m_panel->setGpu(report.scenario.gpu);
  m_panel->setModelName(qs(report.scenario.model.name));
  const QString fit = fitWarning(report);
  m_fitBanner->setText(fit);
  updateFitBanner();
  const auto batchAt = static_cast<double>(spec.batchAt);
  m_stepPlot->setReport(report, spec.batchMin, spec.batchMax, batchAt, m_doc->intervals());
  updateSpeculation(spec);
  m_reportBatchMin = spec.batchMin;
  m_reportBatchMax = spec.batchMax;
  m_reportBatchAt = batchAt;
  m_throughputStale = true;
  if (m_tabs->currentWidget() == m_throughputPlot) refreshThroughputPlot();
  updateMeasurementOverlay(m_doc->resolvedScenario(), m_doc->assignments(), m_doc->batches());
  if (m_tabs->currentWidget() == m_measured) updateEndToEnd();
  updateSchemesTable(batchAt);
  emit reportUpdated();
}

void MainWindow::refreshThroughputPlot() const {
  if (!m_throughputStale || !m_doc->report()) return;
  m_throughputStale = false;
  m_throughputPlot->setReport(*m_doc->report(), m_reportBatchMin, m_reportBatchMax,
                              m_reportBatchAt);
}

void MainWindow::updateSpeculation(const ScenarioSpec& spec) {
  if (!m_doc->report()) return;
  if (spec.specDraftTokens <= 0) {
    m_stepPlot->setSpeculation(*m_doc->report(), nullptr, {});
    return;
  }
  Speculation sp;
  sp.draftTokens = spec.specDraftTokens;
  sp.acceptance = spec.specAcceptance;
  QString why;
  std::optional<SpeculativeDraft> draft;
  if (auto e = validateSpeculation(sp)) {
    why = qs(e->message);
  } else if (spec.specDraft != "mtp") {
    // A draft model: its bf16 engine on the scenario's GPUs and TP.
    ScenarioSpec ds = spec;
    ds.model = spec.specDraft;
    auto dscen = resolveScenario(ds);
    auto bf16 = makeCandidates({"bf16"}, "", "", "");
    if (!dscen) {
      why = qs(dscen.error().str());
    } else if (!bf16) {
      why = qs(bf16.error().str());
    } else if (dscen->model.id == m_doc->report()->scenario.model.id) {
      why = "the draft is the target model itself";
    } else {
      dscen->contextTokens = m_doc->report()->scenario.contextTokens;
      dscen->efficiency = m_doc->report()->scenario.efficiency;
      auto eng = engineServing(*dscen, bf16->front());
      if (eng)
        draft = modelDraft(*eng, dscen->model.id, spec.tp);
      else
        why = qs(eng.error().str());
    }
  }
  if (!why.isEmpty()) {
    m_panel->setFeedback("Speculation not drawn: " + why, true);
    m_stepPlot->setSpeculation(*m_doc->report(), nullptr, {});
    return;
  }
  const SpeculativeCurves curves = speculativeCurves(
      *m_doc->report(), sp,
      draftPerScheme(draft, static_cast<double>(m_doc->report()->scenario.model.layers)));
  const QString label = QString("k %1, α %2, %3; %4 tokens a step")
                            .arg(sp.draftTokens)
                            .arg(sp.acceptance, 0, 'f', 2)
                            .arg(qs(draft ? draft->label : std::string("mtp")))
                            .arg(curves.tokensPerStep, 0, 'f', 2);
  m_stepPlot->setSpeculation(*m_doc->report(), &curves, label);
}

void MainWindow::updateSchemesTable(double batchAt) {
  // With the panel's batch, its answer first (step time, throughput and whether it fits there),
  // right after the scheme: it used to sit past a horizontal scroll.
  QStringList headers = {"scheme"};
  const bool atB = batchAt >= 1;
  if (atB) {
    const QString b = QString::number(batchAt, 'f', 0);
    headers << QString("step ms at B=%1").arg(b) << QString("tok/s at B=%1").arg(b)
            << QString("fits at B=%1?").arg(b);
  }
  const int off = atB ? 3 : 0;  // the columns after the scheme's own figures move right
  // "memory ms (B=1, no t0)": the weights' stream alone; the plot's floor line adds t0.
  headers << "bits/weight"
          << "path"
          << "memory ms (B=1, no t0)"
          << "mma µs/seq"
          << "dequant ms"
          << "ridge B"
          << "weights GiB"
          << "max seqs"
          << "tok/s at capacity";
  // With the panel's prompt and output tokens: one request's end-to-end figures (batch 1).
  const double inLen = static_cast<double>(m_doc->report()->scenario.inputLen);
  const double outLen = static_cast<double>(m_doc->report()->scenario.outputLen);
  const bool e2e = inLen > 0 && outLen > 0;
  if (e2e)
    headers << "TTFT ms (B=1)"
            << "TPOT ms (B=1)"
            << "latency s (B=1)";
  m_schemesTable->setSortingEnabled(false);
  m_schemesTable->clear();
  m_schemesTable->setColumnCount(static_cast<int>(headers.size()));
  m_schemesTable->setHorizontalHeaderLabels(headers);
  m_schemesTable->horizontalHeaderItem(3 + off)->setToolTip(
      "The weights' stream at batch 1 at the calibrated bandwidth, without the "
      "per-step overhead t0: the step-time plot's floor line is this plus t0.");
  m_schemesTable->setRowCount(static_cast<int>(m_doc->report()->schemes.size()));
  int row = 0;
  auto num = [](double v, int prec) {
    auto* item = new QTableWidgetItem;
    item->setData(Qt::DisplayRole, std::round(v * std::pow(10, prec)) / std::pow(10, prec));
    return item;
  };
  for (const auto& s : m_doc->report()->schemes) {
    m_schemesTable->setItem(row, 0, new QTableWidgetItem(qs(s.assignment.id)));
    m_schemesTable->setItem(row, 1 + off, num(s.bitsPerWeight, 3));
    auto* path = new QTableWidgetItem(qs(s.pathName));
    if (s.fallback) {
      path->setForeground(QColor(176, 0, 0));
      path->setToolTip(QString("%1 has no %2 tensor path: %3 runs on the bf16 fallback")
                           .arg(qs(m_doc->report()->scenario.gpu.name),
                                tensorPathName(s.assignment.linear.path), qs(s.assignment.id)));
    }
    m_schemesTable->setItem(row, 2 + off, path);
    m_schemesTable->setItem(row, 3 + off, num(s.memoryFloorMs, 3));
    m_schemesTable->setItem(row, 4 + off, num(s.mmaUsPerSeq, 3));
    m_schemesTable->setItem(row, 5 + off, num(s.dequantMs, 3));
    m_schemesTable->setItem(row, 6 + off,
                            s.ridgeBatch ? num(*s.ridgeBatch, 1) : new QTableWidgetItem("none"));
    m_schemesTable->setItem(row, 7 + off, num(s.capacity.weightsGib, 2));
    m_schemesTable->setItem(row, 8 + off, num(static_cast<double>(s.capacity.maxSeqs), 0));
    m_schemesTable->setItem(row, 9 + off, num(s.capacity.tokensPerSAtCapacity, 0));
    if (e2e) {
      const StaticBatchPrediction p = predictStaticBatch(s.curve, 1.0, inLen, outLen);
      m_schemesTable->setItem(row, 10 + off, num(p.ttftMs, 2));
      m_schemesTable->setItem(row, 11 + off, num(p.tpotMs, 3));
      m_schemesTable->setItem(row, 12 + off, num(p.e2eLatencyS, 3));
    }
    if (atB) {
      const int atColumn = 1;
      const SchemeAtBatch at = schemeAtBatch(m_doc->report()->scenario, s, batchAt);
      m_schemesTable->setItem(row, atColumn, num(at.stepMs, 3));
      m_schemesTable->setItem(row, atColumn + 1, num(at.tokensPerS, 0));
      auto* fits = new QTableWidgetItem(at.fits ? "yes" : "no");
      fits->setToolTip(QString("weights %1 GiB + KV %2 GiB (%3 sequences × %4 tokens) = %5 GiB "
                               "per GPU; budget %6 GiB")
                           .arg(s.capacity.weightsGib, 0, 'f', 1)
                           .arg(at.kvGib, 0, 'f', 1)
                           .arg(batchAt, 0, 'f', 0)
                           .arg(at.kvTokens)
                           .arg(at.neededGib, 0, 'f', 1)
                           .arg(at.budgetGib, 0, 'f', 1));
      if (!at.fits) fits->setForeground(QColor(176, 0, 0));
      m_schemesTable->setItem(row, atColumn + 2, fits);
    }
    ++row;
  }
  m_schemesTable->setSortingEnabled(true);
  fitColumnsWhenShown(m_schemesTable);

  m_crossoversTable->clear();
  m_crossoversTable->setColumnCount(4);
  m_crossoversTable->setHorizontalHeaderLabels(
      {"faster up to B", "faster there", "faster above", "in words"});
  m_crossoversTable->setRowCount(static_cast<int>(m_doc->report()->crossovers.size()));
  row = 0;
  for (std::size_t i = 0; i < m_doc->report()->crossovers.size(); ++i) {
    const CrossoverReport& c = m_doc->report()->crossovers[i];
    const std::string& other = c.schemes[0] == c.fasterBelow ? c.schemes[1] : c.schemes[0];
    m_crossoversTable->setItem(row, 0, num(lastBatchFaster(c), 0));
    m_crossoversTable->setItem(row, 1, new QTableWidgetItem(qs(c.fasterBelow)));
    m_crossoversTable->setItem(row, 2, new QTableWidgetItem(qs(other)));
    m_crossoversTable->setItem(
        row, 3, new QTableWidgetItem(crossoverText(c, tieOf(m_doc->intervals().get(), i))));
    ++row;
  }
  fitColumnsWhenShown(m_crossoversTable);
}

void MainWindow::updateServing() {
  const Session s = withoutHidden(session());
  ServingOptions opts;
  if (m_sloTtft->value() > 0) opts.slo.ttftS = m_sloTtft->value() / 1e3;
  if (m_sloTpot->value() > 0) opts.slo.tpotS = m_sloTpot->value() / 1e3;
  auto sweeps = guarded("serving runs",
                        [&]() -> Result<ServingSweeps> { return qf::servingSweeps(s, opts); });
  m_servingSweeps = sweeps ? std::move(*sweeps) : ServingSweeps{};
  m_serving->setData(m_servingSweeps);
  QStringList notes;
  if (!sweeps) notes << qs(sweeps.error().str());
  if (opts.slo.ttftS || opts.slo.tpotS) {
    QStringList parts;
    if (opts.slo.ttftS) parts << QString("TTFT ≤ %1 ms").arg(m_sloTtft->value());
    if (opts.slo.tpotS) parts << QString("TPOT ≤ %1 ms").arg(m_sloTpot->value());
    notes << "goodput: requests per second that produced output within " + parts.join(" and ") +
                 " (from each run's per-request records)";
  }
  for (const auto& w : m_servingSweeps.warnings) notes << qs(w);
  for (const auto& g : m_servingSweeps.groups) {
    for (const auto& w : g.warnings) notes << qs(g.key) + ": " + qs(w);
  }
  m_servingNotes->setText(notes.join("\n"));
  m_servingNotes->setVisible(!notes.isEmpty());
}

}  // namespace qf::ui