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
#include <QScreen>
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
#include <quantfront/ui/background.hpp>
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
  m_background = new Background(this);
  auto* splitter = new QSplitter(this);
  m_panel = new ScenarioPanel(splitter);
  auto* scroll = new QScrollArea(splitter);
  scroll->setWidget(m_panel);
  scroll->setWidgetResizable(true);
  scroll->setMinimumWidth(310);  // with the widest tab, within a 1280-pixel screen
  m_tabs = new QTabWidget(splitter);
  buildTabViews();
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
  resize(initialSize());
  // Start on the bundled example session (its scenario is the seed's Figure 1).
  setSession(bundledExampleSession(), QString());
  m_example = true;
  updateTitle();
  // The window opens on the step-time view, whatever tab the example was saved on.
  showTab("step");
}

QSize MainWindow::initialSize() const {
  // 1,500 × 920 where the screen has room; on a smaller one (1,280 × 720) the window opens
  // inside it, its frame (title bar and borders, about 40 and 10 pixels) included, never below
  // what its layout needs.
  QSize want(1500, 920);
  if (const QScreen* sc = screen()) {
    const QSize room = sc->availableGeometry().size() - QSize(10, 40);
    want = want.boundedTo(room).expandedTo(minimumSizeHint());
  }
  return want;
}

const TabSpec* MainWindow::currentTabSpec() const {
  return tabByKey(currentTabKey());
}

void MainWindow::addTabs() {
  for (const TabSpec& spec : tabSpecs()) {
    const int i = m_tabs->addTab(tabView(spec.id).page, spec.title);
    m_tabs->tabBar()->setTabData(i, spec.key);
    if (spec.toolTip) m_tabs->setTabToolTip(i, spec.toolTip);
  }
}

void MainWindow::connectTabs() {
  // A costly view that lagged the document is drawn when it is shown.
  connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
    if (const TabSpec* tab = currentTabSpec()) tabView(tab->id);
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
  connect(m_pareto->table()->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          [this] {
            const auto rows = m_pareto->table()->selectionModel()->selectedRows();
            if (rows.size() != 1) return;
            const QString id = m_pareto->candidateAt(rows.front().row());
            if (!id.isEmpty()) m_evidence->showCandidate(id);
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
  // One line per scheme, unwrapped: a word-wrapped label asks the layout for its height at
  // its narrowest, which held the window 1,900 pixels tall with three schemes that do not fit.
  m_fitBanner->setWordWrap(false);
  m_fitBanner->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
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
  // Work off the GUI thread stops first: nothing is applied to a window being destroyed.
  m_background->stopAll();
}

void MainWindow::setSession(Session session, const QString& path) {
  // The session being left was saved or given up by the user: its autosave goes.
  dropAutosave();
  m_recovered = false;
  m_example = false;
  m_sessionPath = path;
  m_baseStamp = sessionFileStamp(path);
  const std::string tab = session.view.tab;
  QString notes;
  for (const auto& n : session.loadNotes) notes += qs(n) + "; ";
  m_doc->load(std::move(session));  // moved: 10^5 candidates are not copied
  showTab(tabOfSavedView(tab));
  m_dirty = false;
  updateTitle();
  if (!notes.isEmpty()) statusBar()->showMessage(notes, 10000);
}

Session MainWindow::session() const {
  Session s = m_doc->session();
  if (const TabSpec* tab = currentTabSpec()) s.view.tab = tab->savedAs;
  return s;
}

void MainWindow::markChanged() {
  m_dirty = true;
  ++m_edits;
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
  const ScenarioSpec& spec = m_doc->scenario();
  // A view shows what it can of what it is given (a spin box's range): the document takes
  // that as the truth, before the scenario is evaluated.
  if ((parts & kScenarioPart) && m_panel->spec() != spec) {
    m_panel->setSpec(spec);
    if (m_panel->spec() != spec) m_doc->adoptShownScenario(m_panel->spec());
  }
  // A scenario that does not evaluate keeps the last good report on every view.
  if ((parts & kReportPart) && !showReportFrame()) parts &= ~kReportPart;
  feedTabViews(parts);
  m_showingDocument = was;
  if (parts & kReportPart) emit reportUpdated();
}

QString MainWindow::currentTabKey() const {
  return m_tabs->tabBar()->tabData(m_tabs->currentIndex()).toString();
}

QTableView* MainWindow::currentTable() const {
  const TabSpec* tab = currentTabSpec();
  return tab ? tabView(tab->id).table : nullptr;
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
  return tab ? tabView(tab->id).plot : nullptr;
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

bool MainWindow::showReportFrame() {
  if (!m_doc->lastError().isEmpty()) {
    m_lastError = m_doc->lastError();
    m_panel->setFeedback(m_lastError, true);
    return false;
  }
  m_lastError.clear();
  const EngineReport& report = *m_doc->report();
  updateTitle();
  const auto& p = report.params;
  QString facts = QString("%1: %2 B parameters stored, %3 B streamed per token")
                      .arg(qs(report.scenario.model.name))
                      .arg(fixedDecimals(p.total() / 1e9, 2))
                      .arg(fixedDecimals(p.streamed() / 1e9, 2));
  if (report.scenario.model.isMoe()) {
    facts += QString(", %1 B active (%2 of %3 experts per token)")
                 .arg(fixedDecimals(p.active / 1e9, 2))
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
  m_fitBanner->setText(fitWarning(report));
  updateFitBanner();
  return true;
}

}  // namespace qf::ui
