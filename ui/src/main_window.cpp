#include <nlohmann/json.hpp>
#include <quantfront/ui/example_session.hpp>
#include <quantfront/ui/main_window.hpp>

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

#include <quantfront/core/base/resources.hpp>
#include <quantfront/core/model/model_config.hpp>
#include <quantfront/core/session/attach_runs.hpp>
#include <quantfront/core/session/evidence_edit.hpp>
#include <quantfront/core/session/file_lock.hpp>
#include <quantfront/core/session/import_session.hpp>
#include <quantfront/core/session/serving.hpp>
#include <quantfront/ui/autosave.hpp>
#include <quantfront/ui/evidence_view.hpp>
#include <quantfront/ui/pareto_view.hpp>
#include <quantfront/ui/plot_export.hpp>
#include <quantfront/ui/plot_style.hpp>
#include <quantfront/ui/plots.hpp>
#include <quantfront/ui/review_report.hpp>
#include <quantfront/ui/scenario_panel.hpp>
#include <quantfront/ui/serving_plot.hpp>

#include <quantfront/core/base/kernels.hpp>
#include <quantfront/core/session/measurement.hpp>
#include <quantfront/ui/measure_worker.hpp>

namespace qf::ui {

namespace {
QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

/// Runs a core call, turning an exception that escaped it into an Error naming `source`: a bad
/// file gives a message, never ends the program.
template <class F>
auto guarded(const std::string& source, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    return Error{source, "", "", std::string("cannot read: ") + e.what()};
  }
}

/// The window imports file by file: a file it cannot read or the session cannot hold is
/// reported and the others are kept; attaching is a separate step (the Evidence tab).
ImportPlan windowImportPlan() {
  ImportPlan plan;
  plan.allOrNothing = false;
  plan.validateEach = true;
  return plan;
}

/// One line per file: what was imported, or why not.
QStringList importLines(const ImportOutcome& outcome) {
  QStringList lines;
  for (const FileImport& f : outcome.files) {
    const QString p = qs(f.file);
    if (!f.report) {
      lines << qs(f.error ? f.error->str() : f.file + ": not read");
    } else if (f.error) {
      // What the session cannot hold (a number out of range, say) is refused here, naming
      // the input file, rather than later when the session is saved.
      lines << QString("%1: not imported: %2%3")
                   .arg(p,
                        f.error->field.empty() ? QString() : "field '" + qs(f.error->field) + "': ",
                        qs(f.error->message));
    } else if (f.merge.duplicate && f.merge.runsAdded == 0) {
      lines << QString("%1: already imported (same SHA-256 as %2)").arg(p, qs(f.merge.duplicateOf));
    } else {
      lines << QString("%1: %2, %3 run(s), %4 warning(s)")
                   .arg(p, qs(f.report->format))
                   .arg(f.merge.runsAdded)
                   .arg(f.report->warnings.size());
    }
  }
  return lines;
}

/// One scenario or gate edit: the states before and after it.
class EditCommand : public QUndoCommand {
 public:
  EditCommand(MainWindow* window, MainWindow::EditState before, MainWindow::EditState after,
              const QString& text)
      : QUndoCommand(text),
        m_window(window),
        m_before(std::move(before)),
        m_after(std::move(after)) {}
  void undo() override { m_window->applyEditState(m_before); }
  void redo() override {
    // The first redo is the edit itself, already on screen.
    if (m_done) m_window->applyEditState(m_after);
    m_done = true;
  }

 private:
  MainWindow* m_window;
  MainWindow::EditState m_before, m_after;
  bool m_done = false;
};

/// What changed between two states, for the Edit menu ("Undo change of GPU").
QString describeEdit(const MainWindow::EditState& a, const MainWindow::EditState& b) {
  const ScenarioSpec &x = a.spec, &y = b.spec;
  if (x.model != y.model) return "change of model";
  if (x.gpu != y.gpu || x.gpuJson != y.gpuJson) return "change of GPU";
  if (x.tp != y.tp) return "change of GPU count";
  if (x.schemes != y.schemes || x.mixedLinear != y.mixedLinear || x.mixedMoe != y.mixedMoe ||
      x.mixedLmHead != y.mixedLmHead) {
    return "change of schemes";
  }
  if (a.gates != b.gates) return "change of gates";
  if (x != y) return "change of serving settings";
  return "change of objectives";
}
}  // namespace

Session bundledExampleSession() {
  if (const auto text = bundledFile("sessions/llama-3.1-8b-70b.json")) {
    if (auto s = parseSessionText(*text, "sessions/llama-3.1-8b-70b.json")) return std::move(*s);
  }
  return {};
}

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
  m_pareto = new ParetoView(m_tabs);
  m_evidence = new EvidenceView(m_tabs);
  m_residualPlot = new ResidualPlot(m_tabs);
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
  const std::pair<QWidget*, std::pair<const char*, const char*>> tabs[] = {
      {m_stepPlot, {"Step time vs batch", "step"}},
      {m_throughputPlot, {"Throughput && capacity", "throughput"}},
      {m_servingTab, {"Serving", "serving"}},
      {m_schemesTab, {"Schemes", "schemes"}},
      {m_pareto, {"Pareto", "pareto"}},
      {m_pareto->table(), {"Candidates", "candidates"}},
      {m_evidence, {"Evidence", "evidence"}},
      {m_residualPlot, {"Measured vs model", "measured"}},
  };
  for (const auto& [widget, names] : tabs) {
    const int i = m_tabs->addTab(widget, names.first);
    m_tabs->tabBar()->setTabData(i, names.second);
  }
  m_tabs->setTabToolTip(
      2,
      "Imported vLLM / SGLang serving runs per candidate against offered load: throughput, "
      "goodput, TTFT and TPOT percentiles with intervals, generated length, modelled capacity");
  m_tabs->setTabToolTip(6,
                        "Imported runs, attaching them to candidates, and the provenance of "
                        "every metric of a candidate");
  // The serving sweeps (bootstraps over per-request records) are computed when the tab is
  // shown or exported, not on every scenario tick.
  connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
    if (m_tabs->currentWidget() == m_servingTab) updateServing();
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
  setAcceptDrops(true);
  m_autosave.setSingleShot(true);
  m_autosave.setInterval(2000);
  connect(&m_autosave, &QTimer::timeout, this, [this] { autosaveNow(); });
  // Real edits mark the session modified; viewing another tab does not.
  connect(m_pareto, &ParetoView::selectionChanged, this, &MainWindow::markChanged);
  // A model that does not fit says so over every tab.
  auto* centre = new QWidget(splitter);
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
  splitter->addWidget(scroll);
  splitter->addWidget(centre);
  splitter->setStretchFactor(1, 1);
  setCentralWidget(splitter);

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
  m_undo = new QUndoStack(this);
  detectGpu();
  buildMenus();
  buildToolBar();
  installCandidateMenu();
  installKeys(m_tabs);
  connect(m_panel, &ScenarioPanel::scenarioChanged, this, &MainWindow::recompute);
  connect(m_panel, &ScenarioPanel::scenarioChanged, this, &MainWindow::markChanged);
  connect(m_panel, &ScenarioPanel::scenarioChanged, this, &MainWindow::recordEdit);
  connect(m_pareto, &ParetoView::selectionChanged, this, &MainWindow::recordEdit);
  resize(1500, 920);
  // Start on the bundled example session (its scenario is the seed's Figure 1).
  setSession(bundledExampleSession(), QString());
  m_example = true;
  updateTitle();
  // The window opens on the step-time view, whatever tab the example was saved on.
  showTab("step");
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
  m_session = session;
  m_sessionPath = path;
  m_panel->setSpec(session.scenario);
  showEvidence(true);
  recompute();
  const std::map<std::string, QString> tabs = {{"step-time", "step"},  {"throughput", "throughput"},
                                               {"pareto", "pareto"},   {"candidates", "candidates"},
                                               {"serving", "serving"}, {"evidence", "evidence"}};
  const auto it = tabs.find(session.view.tab);
  showTab(it != tabs.end() ? it->second : "step");
  m_undo->clear();
  m_editState = editState();
  m_dirty = false;
  updateTitle();
  if (!session.loadNotes.empty()) {
    QString notes;
    for (const auto& n : session.loadNotes) notes += qs(n) + "; ";
    statusBar()->showMessage(notes, 10000);
  }
}

Session MainWindow::session() const {
  Session s = m_session;
  s.scenario = m_panel->spec();
  s.view.objectives = m_pareto->objectives();
  s.view.gates = m_pareto->gates();
  const QString key = m_tabs->tabBar()->tabData(m_tabs->currentIndex()).toString();
  s.view.tab = key == "step" ? "step-time" : key == "schemes" ? "step-time" : key.toStdString();
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
  setWindowTitle(QString("QuantFront — %1%2").arg(sessionName(), m_dirty ? " *" : ""));
}

void MainWindow::startAutosave(const QString& dir, int intervalMs) {
  m_autosaveDir = dir.isEmpty() ? defaultAutosaveDir() : dir;
  m_autosave.setInterval(std::max(1, intervalMs));
  if (m_dirty) m_autosave.start();
}

QString MainWindow::autosaveFile() const {
  return m_autosaveSlot ? m_autosaveSlot->file() : QString();
}

QString MainWindow::autosaveNow() {
  if (m_autosaveDir.isEmpty() || !m_dirty) return {};
  if (!m_autosaveSlot) {
    auto slot = std::make_unique<AutosaveSlot>(m_autosaveDir, m_sessionPath);
    if (!slot->ok()) {
      const QString err = slot->file() + ": cannot lock the autosave file";
      statusBar()->showMessage("Autosave failed: " + err, 10000);
      return err;
    }
    m_autosaveSlot = std::move(slot);
  }
  const QString err = m_autosaveSlot->write(session(), m_sessionPath);
  if (!err.isEmpty()) statusBar()->showMessage("Autosave failed: " + err, 10000);
  return err;
}

void MainWindow::dropAutosave() {
  m_autosave.stop();
  if (m_autosaveSlot) {
    m_autosaveSlot->remove();
    m_autosaveSlot.reset();
  }
}

void MainWindow::setRecoveryPrompt(std::function<RecoveryChoice(const AutosaveInfo&)> prompt) {
  m_recoveryPrompt = std::move(prompt);
}

void MainWindow::setUnsavedPrompt(std::function<UnsavedChoice()> prompt) {
  m_unsavedPrompt = std::move(prompt);
}

RecoveryChoice MainWindow::askRecovery(const AutosaveInfo& info) {
  QMessageBox box(this);
  box.setIcon(QMessageBox::Warning);
  box.setWindowTitle("Recover unsaved work?");
  const QString what = info.sessionPath.isEmpty()
                           ? QString("an untitled session")
                           : QString("<b>%1</b>").arg(info.sessionPath.toHtmlEscaped());
  const QString when = info.savedAt.isValid()
                           ? info.savedAt.toLocalTime().toString("yyyy-MM-dd HH:mm:ss")
                           : QString("an unknown time");
  box.setText(
      QString("QuantFront did not close normally. Unsaved changes to %1 were autosaved at %2.")
          .arg(what, when));
  QString more =
      "Recover opens them (save to keep them); Discard deletes the autosave; Later "
      "keeps it for the next start or File › Open recent › Recover autosave.";
  if (!info.newerThanSession) more.prepend("The session file was saved after this autosave. ");
  if (!info.note.isEmpty()) more += "\nNote: " + info.note + ".";
  box.setInformativeText(more);
  QPushButton* recover = box.addButton("Recover", QMessageBox::AcceptRole);
  QPushButton* discard = box.addButton("Discard", QMessageBox::DestructiveRole);
  QPushButton* later = box.addButton("Later", QMessageBox::RejectRole);
  box.setDefaultButton(recover);
  box.setEscapeButton(later);
  box.exec();
  if (box.clickedButton() == recover) return RecoveryChoice::Recover;
  if (box.clickedButton() == discard) return RecoveryChoice::Discard;
  return RecoveryChoice::Later;
}

bool MainWindow::offerRecovery() {
  if (m_autosaveDir.isEmpty()) return false;
  for (const AutosaveInfo& info : findOrphanedAutosaves(m_autosaveDir)) {
    if (m_autosaveSlot && info.file == m_autosaveSlot->file()) continue;
    // Held while the user decides: no other starting window offers the same file.
    auto slot = AutosaveSlot::claim(info.file);
    if (!slot) continue;
    const RecoveryChoice choice = m_recoveryPrompt ? m_recoveryPrompt(info) : askRecovery(info);
    if (choice == RecoveryChoice::Later) continue;
    if (choice == RecoveryChoice::Discard) {
      slot->remove();
      continue;
    }
    auto recovered = readAutosave(info.file);
    if (!recovered) {
      const QString err = qs(recovered.error().str());
      if (m_recoveryPrompt) {
        qWarning("quantfront: cannot recover: %s", qPrintable(err));
      } else {
        QMessageBox::warning(this, "Cannot recover", err + "\nThe autosave file is kept.");
      }
      continue;
    }
    if (!maybeSaveChanges()) return false;
    setSession(*recovered, info.sessionPath);
    m_autosaveSlot = std::move(slot);
    m_recovered = true;
    markChanged();
    statusBar()->showMessage("Recovered unsaved changes from " + info.file, 10000);
    return true;
  }
  return false;
}

UnsavedChoice MainWindow::askUnsaved() {
  const auto button = QMessageBox::warning(
      this, "Unsaved changes",
      QString("The %1 has changes that are not saved. Save them?").arg(sessionName()),
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (button == QMessageBox::Save) return UnsavedChoice::Save;
  if (button == QMessageBox::Discard) return UnsavedChoice::Discard;
  return UnsavedChoice::Cancel;
}

bool MainWindow::maybeSaveChanges() {
  if (!m_dirty) return true;
  switch (m_unsavedPrompt ? m_unsavedPrompt() : askUnsaved()) {
    case UnsavedChoice::Save:
      return saveInteractive(false);
    case UnsavedChoice::Discard:
      return true;
    case UnsavedChoice::Cancel:
      return false;
  }
  return false;
}

bool MainWindow::newSession() {
  if (!maybeSaveChanges()) return false;
  Session blank;
  blank.scenario = m_panel->spec();
  setSession(blank, QString());
  showTab("step");
  return true;
}

bool MainWindow::openExample() {
  if (!maybeSaveChanges()) return false;
  setSession(bundledExampleSession(), QString());
  m_example = true;
  updateTitle();
  showTab("step");
  return true;
}

void MainWindow::editScenario(const ScenarioSpec& spec) {
  setScenario(spec);
  markChanged();
  recordEdit();
}

MainWindow::EditState MainWindow::editState() const {
  return {m_panel->spec(), m_pareto->objectives(), m_pareto->gates()};
}

void MainWindow::recordEdit() {
  if (m_applyingUndo) return;
  EditState now = editState();
  if (now == m_editState) return;
  const QString text = describeEdit(m_editState, now);
  m_undo->push(new EditCommand(this, m_editState, now, text));
  m_editState = std::move(now);
}

void MainWindow::applyEditState(const EditState& state) {
  m_applyingUndo = true;
  m_panel->setSpec(state.spec);
  m_pareto->setSelection(state.objectives, state.gates);
  recompute();
  m_editState = state;
  m_applyingUndo = false;
  markChanged();
}

bool MainWindow::openSession(const QString& path) {
  auto s = guarded(path.toStdString(), [&] { return loadSession(path.toStdString()); });
  if (!s) {
    QMessageBox::warning(this, "Cannot open session", qs(s.error().str()));
    return false;
  }
  setSession(*s, path);
  QSettings settings;
  QStringList recent = settings.value("recent").toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  settings.setValue("recent", recent.mid(0, 8));
  return true;
}

QString MainWindow::saveSessionTo(const QString& path) {
  Session s = session();
  // The command-line importers lock the file while they change it: the save waits for them
  // (bounded) instead of interleaving with one, and says who holds it when it gives up.
  auto lock = FileLock::acquire(path.toStdString(), "quantfront save");
  if (!lock) return qs(lock.error().str());
  if (auto e = saveSessionAtomic(s, path.toStdString())) return qs(e->str());
  m_session = s;
  // Saved: nothing is left to recover. A new path gets its own autosave on the next edit.
  dropAutosave();
  m_sessionPath = path;
  m_dirty = false;
  m_recovered = false;
  m_example = false;
  updateTitle();
  return {};
}

QStringList MainWindow::importFiles(const QStringList& paths) {
  std::vector<std::string> files;
  for (const QString& p : paths) files.push_back(p.toStdString());
  auto read = guarded("import", [&] { return readImports(files, windowImportPlan()); });
  if (!read) return {qs(read.error().str())};
  return mergeReadFiles(std::move(*read));
}

QStringList MainWindow::mergeReadFiles(std::vector<FileImport> read) {
  Session s = session();
  auto outcome =
      guarded("import", [&] { return mergeImports(s, std::move(read), windowImportPlan()); });
  if (!outcome) return {qs(outcome.error().str())};
  if (outcome->runsAdded() > 0) {
    m_session = s;
    m_evidence->setContents(m_session.importedRuns, m_session.candidates);
    markChanged();
  }
  return importLines(*outcome);
}

void MainWindow::importAndShow(const QStringList& paths) {
  if (m_importThread) {
    statusBar()->showMessage("An import is running: wait for it or cancel it first", 8000);
    return;
  }
  std::vector<std::string> files;
  for (const QString& p : paths) files.push_back(p.toStdString());
  auto* progress = new QProgressDialog("Reading " + QString::number(paths.size()) + " file(s)…",
                                       "Cancel", 0, 1000, this);
  progress->setObjectName("importProgress");
  progress->setWindowTitle("Import");
  progress->setWindowModality(Qt::WindowModal);
  progress->setMinimumDuration(400);  // a quick import shows no dialog
  progress->setAutoClose(false);
  progress->setAutoReset(false);
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  m_importCancel = cancel;
  connect(progress, &QProgressDialog::canceled, this, [cancel] { cancel->store(true); });
  ImportPlan plan = windowImportPlan();
  QPointer<QProgressDialog> dialog(progress);
  plan.progress = [dialog, cancel](double done, const std::string& file) {
    QMetaObject::invokeMethod(
        dialog,
        [dialog, done, file] {
          if (!dialog) return;
          dialog->setValue(static_cast<int>(done * 1000));
          if (!file.empty()) dialog->setLabelText("Reading " + QFileInfo(qs(file)).fileName());
        },
        Qt::QueuedConnection);
    return !cancel->load();
  };
  auto result = std::make_shared<std::optional<Result<std::vector<FileImport>>>>();
  m_importThread = QThread::create([files, plan, result] {
    *result = guarded("import", [&] { return readImports(files, plan); });
  });
  m_importThread->setParent(this);
  connect(m_importThread, &QThread::finished, this, [this, progress, result] {
    progress->deleteLater();
    m_importThread->deleteLater();
    m_importThread = nullptr;
    m_importCancel.reset();
    if (!*result) return;
    auto& read = **result;
    if (!read) {
      if (read.error().isCancelled()) {
        statusBar()->showMessage("Import cancelled: the session is unchanged", 8000);
      } else {
        QMessageBox::warning(this, "Import", qs(read.error().str()));
      }
      return;
    }
    const std::size_t before = m_session.importedRuns.size();
    showImportOutcome(before, mergeReadFiles(std::move(*read)));
  });
  m_importThread->start();
}

void MainWindow::showImportOutcome(std::size_t runsBefore, QStringList lines) {
  if (m_session.importedRuns.size() > runsBefore) {
    // The next step is attaching: the Evidence tab with the new runs selected.
    QStringList files;
    for (std::size_t i = runsBefore; i < m_session.importedRuns.size(); ++i) {
      files << QFileInfo(qs(m_session.importedRuns[i].sourceFile)).fileName();
    }
    showTab("evidence");
    m_evidence->selectRuns(files);
    lines << ""
          << "The new runs are selected on the Evidence tab: attach them to a candidate "
             "(\"Attach to candidate…\") or let each model become one (\"One candidate per "
             "model\"); their figures then reach the Pareto and Serving tabs.";
  }
  QMessageBox::information(this, "Import", lines.join("\n"));
}

QStringList MainWindow::attachRuns(const AttachRequest& req) {
  Session s = session();
  AttachOptions opts;
  if (req.candidateId) opts.candidateId = req.candidateId->toStdString();
  opts.scheme = req.scheme.toStdString();
  for (const QString& d : req.digests) opts.runDigests.push_back(d.toStdString());
  opts.setViewObjectives = s.view.objectives.empty();
  opts.allowModelMismatch = req.allowModelMismatch;
  if (QString refused; !confirmModelMismatch(s, opts, refused)) return {"not attached: " + refused};
  auto rep = guarded("attach", [&] { return attachRunsToCandidates(s, opts); });
  if (!rep) {
    const QString err = qs(rep.error().str());
    statusBar()->showMessage("Not attached: " + err, 15000);
    return {"not attached: " + err};
  }
  QStringList lines;
  for (const auto& id : rep->created) lines << "created candidate " + qs(id);
  for (const auto& id : rep->updated) lines << "updated candidate " + qs(id);
  lines << QString("%1 measured metric(s) attached, %2 recovery figure(s) derived")
               .arg(rep->metricsAttached)
               .arg(rep->recoveryDerived);
  for (const auto& n : rep->notes) lines << qs(n);
  for (const auto& w : rep->warnings) lines << "warning: " + qs(w);
  if (rep->created.empty() && rep->updated.empty()) return lines;
  // One undoable step; a session without objectives takes the ones attaching chose.
  commitEvidence(s, req.candidateId ? "attach to " + *req.candidateId : QString("attach runs"));
  if (req.candidateId) m_evidence->showCandidate(*req.candidateId);
  return lines;
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  if (watched != m_pareto->table()->viewport()) return QMainWindow::eventFilter(watched, event);
  const auto type = event->type();
  if (type != QEvent::DragEnter && type != QEvent::DragMove && type != QEvent::Drop) {
    return QMainWindow::eventFilter(watched, event);
  }
  auto* drop = static_cast<QDropEvent*>(event);
  if (!drop->mimeData()->hasFormat(EvidenceView::kRunsMime)) {
    return QMainWindow::eventFilter(watched, event);
  }
  const QTableWidgetItem* row = m_pareto->table()->itemAt(drop->position().toPoint());
  const QTableWidgetItem* id = row ? m_pareto->table()->item(row->row(), 0) : nullptr;
  if (!id) {
    drop->ignore();
    return true;
  }
  drop->acceptProposedAction();
  if (type == QEvent::Drop) {
    const QStringList digests = QString::fromUtf8(drop->mimeData()->data(EvidenceView::kRunsMime))
                                    .split('\n', Qt::SkipEmptyParts);
    statusBar()->showMessage(attachRuns(AttachRequest{digests, id->text(), {}}).join("; "), 15000);
  }
  return true;
}

void MainWindow::openInteractive() {
  if (!maybeSaveChanges()) return;
  const QString path =
      QFileDialog::getOpenFileName(this, "Open session", QString(), "QuantFront session (*.json)");
  if (!path.isEmpty()) openSession(path);
}

bool MainWindow::saveInteractive(bool saveAs) {
  QString path = m_sessionPath;
  if (saveAs || path.isEmpty()) {
    path = QFileDialog::getSaveFileName(this, "Save session", "session.quantfront.json",
                                        "QuantFront session (*.json)");
    if (path.isEmpty()) return false;
  }
  const QString err = saveSessionTo(path);
  if (!err.isEmpty()) {
    if (!m_autosaveDir.isEmpty()) autosaveNow();
    QMessageBox::warning(
        this, "Save failed",
        err + (m_autosaveDir.isEmpty() ? QString("\nYour work is still open.")
                                       : QString("\nYour work is still open and autosaved.")));
    return false;
  }
  statusBar()->showMessage("Saved " + path, 5000);
  return true;
}

void MainWindow::importInteractive() {
  const QStringList paths =
      QFileDialog::getOpenFileNames(this, "Import benchmark or eval results", QString(),
                                    "Results (*.json *.jsonl);;All files (*)");
  if (paths.isEmpty()) return;
  importAndShow(paths);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  QStringList paths;
  for (const QUrl& u : event->mimeData()->urls()) {
    if (u.isLocalFile()) paths << u.toLocalFile();
  }
  if (paths.isEmpty()) return;
  // A session opens, a model's config.json becomes the scenario's model; anything else is
  // imported into the current session.
  if (paths.size() == 1) {
    auto bytes = readFileBytes(paths.front().toStdString(), 64ull * 1024 * 1024);
    if (bytes && bytes->find("\"quantfront-session\"") != std::string::npos) {
      if (maybeSaveChanges()) openSession(paths.front());
      return;
    }
    if (QFileInfo(paths.front()).fileName() == "config.json") {
      openModelConfig(paths.front());
      return;
    }
  }
  importAndShow(paths);
}

bool MainWindow::openModelConfig(const QString& path, bool quiet) {
  auto model = guarded(path.toStdString(), [&] { return loadModelConfigFile(path.toStdString()); });
  if (!model) {
    const QString err = qs(model.error().str());
    if (quiet) {
      m_lastError = err;
    } else {
      QMessageBox::warning(this, "Cannot open model config", err + "\nThe model is unchanged.");
    }
    return false;
  }
  ScenarioSpec spec = m_panel->spec();
  spec.model = path.toStdString();
  m_panel->setSpec(spec);
  recompute();
  markChanged();
  recordEdit();
  statusBar()->showMessage("Model: " + qs(model->name) + " from " + path, 8000);
  return true;
}

void MainWindow::openModelInteractive() {
  const QString path = QFileDialog::getOpenFileName(this, "Open a Hugging Face config.json",
                                                    QString(), "Model config (*.json)");
  // Cancelled: the current model stays.
  if (!path.isEmpty()) openModelConfig(path);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybeSaveChanges()) {
    event->ignore();
    return;
  }
  // A clean close: this window's autosave (and only it) goes.
  dropAutosave();
  event->accept();
}

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
    withLive = m_session.kernelMeasurements;
    withLive.insert(withLive.end(), m_liveRecords.begin(), m_liveRecords.end());
  }
  const auto& records = m_liveRecords.empty() ? m_session.kernelMeasurements : withLive;
  auto overlay =
      measurementOverlay(records, scenario, assignments, batches,
                         m_sessionPath.isEmpty() ? "session" : m_sessionPath.toStdString());
  if (!overlay) {
    statusBar()->showMessage("Measurements not shown: " + qs(overlay.error().str()), 10000);
    overlay = MeasurementOverlay{};
  }
  m_stepPlot->setOverlay(*overlay);
  m_residualPlot->setOverlay(*overlay, reportTitle(*m_report));
  for (const auto& n : overlay->notes) statusBar()->showMessage(qs(n), 8000);
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
  if (!m_report || !m_backend) return;
  MeasureRequest request;
  request.model = m_report->scenario.model;
  for (const auto& s : m_report->schemes) {
    const std::string& id = s.assignment.linear.id;
    if (!s.assignment.mixed() && measurableScheme(id) != nullptr) request.schemes.push_back(id);
  }
  if (request.schemes.empty()) request.schemes = {"bf16", "w8a8-fp8", "w4a16-g128"};
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
            m_measureWorker->deleteLater();
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
              addMeasurements(
                  m_session,
                  MeasurementBatch{added.kernelMeasurements, added.importedRuns, false, {}});
              markChanged();
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

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("New session", this, &MainWindow::newSession)->setShortcut(QKeySequence::New);
  file->addAction("Open session…", this, &MainWindow::openInteractive)
      ->setShortcut(QKeySequence::Open);
  file->addAction("Open example (Llama-3.1 8B/70B, arXiv:2411.02355)", this,
                  &MainWindow::openExample);
  QMenu* recent = file->addMenu("Open recent");
  connect(recent, &QMenu::aboutToShow, this, [this, recent] {
    recent->clear();
    for (const QString& p : QSettings().value("recent").toStringList()) {
      recent->addAction(p, this, [this, p] {
        if (maybeSaveChanges()) openSession(p);
      });
    }
    recent
        ->addAction("Recover autosave…", this,
                    [this] {
                      if (!offerRecovery()) statusBar()->showMessage("No autosave recovered", 5000);
                    })
        ->setEnabled(!m_autosaveDir.isEmpty());
  });
  file->addAction("Save", this, [this] { saveInteractive(false); })
      ->setShortcut(QKeySequence::Save);
  file->addAction("Save as…", this, [this] { saveInteractive(true); })
      ->setShortcut(QKeySequence("Ctrl+Shift+S"));
  file->addAction("Import results…", this, &MainWindow::importInteractive)
      ->setShortcut(QKeySequence("Ctrl+I"));
  file->addAction("Open model config…", this, &MainWindow::openModelInteractive)
      ->setShortcut(QKeySequence("Ctrl+M"));
  file->addSeparator();
  QAction* exportPlot =
      file->addAction("Export plot or table…", this, &MainWindow::exportPlotInteractive);
  exportPlot->setShortcut(QKeySequence("Ctrl+E"));
  file->addAction("Export data (CSV/JSON)…", this, &MainWindow::exportDataInteractive);
  file->addAction("Export review report (PDF)…", this, &MainWindow::exportReportInteractive)
      ->setShortcut(QKeySequence("Ctrl+R"));
  file->addSeparator();
  // Quit closes the window, which asks about unsaved changes first.
  QAction* quit = file->addAction("Quit", this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* edit = menuBar()->addMenu("&Edit");
  QAction* undo = m_undo->createUndoAction(this, "Undo");
  undo->setObjectName("undo");
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = m_undo->createRedoAction(this, "Redo");
  redo->setObjectName("redo");
  redo->setShortcuts({QKeySequence("Ctrl+Shift+Z"), QKeySequence::Redo});
  edit->addAction(undo);
  edit->addAction(redo);
}

void MainWindow::buildToolBar() {
  QToolBar* bar = addToolBar("Main");
  bar->setObjectName("mainToolBar");
  bar->setMovable(false);
  bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
  auto add = [&](const QString& text, const QString& tip, auto slot) {
    QAction* a = bar->addAction(text, this, slot);
    a->setToolTip(tip);
    a->setStatusTip(tip);
    return a;
  };
  add("Open", "Open a session file (Ctrl+O)", &MainWindow::openInteractive);
  add("Save", "Save the session (Ctrl+S); autosaved while unsaved",
      [this] { saveInteractive(false); });
  add("Import", "Import vLLM, SGLang, lm-eval or nvbench results into the session (Ctrl+I)",
      &MainWindow::importInteractive);
  add("Model config", "Use a Hugging Face config.json as the model (Ctrl+M)",
      &MainWindow::openModelInteractive);
  bar->addSeparator();
  for (QAction* a : menuBar()->findChildren<QAction*>()) {
    if (a->objectName() == "undo" || a->objectName() == "redo") {
      a->setToolTip(a->objectName() == "undo" ? "Undo the last scenario or gate edit (Ctrl+Z)"
                                              : "Redo the edit undone last (Ctrl+Shift+Z)");
      bar->addAction(a);
    }
  }
  bar->addSeparator();
  add("Export",
      "Export the current plot (PNG, PDF, SVG; 180 mm at 300 dpi) or table (CSV) (Ctrl+E)",
      &MainWindow::exportPlotInteractive);
  add("Report",
      "Export the review report: one PDF with every view, the candidates and the "
      "provenance of every number (Ctrl+R)",
      &MainWindow::exportReportInteractive);
}

void MainWindow::setCurvePoints(int points) {
  m_curvePoints = std::clamp(points, 16, 65536);
  recompute();
}

void MainWindow::setScenario(const ScenarioSpec& spec) {
  m_panel->setSpec(spec);
  recompute();
}

ScenarioSpec MainWindow::scenario() const {
  return m_panel->spec();
}

QString MainWindow::currentTabKey() const {
  return m_tabs->tabBar()->tabData(m_tabs->currentIndex()).toString();
}

QTableWidget* MainWindow::currentTable() const {
  if (m_tabs->currentWidget() == m_schemesTab) return m_schemesTable;
  if (m_tabs->currentWidget() == m_pareto->table()) return m_pareto->table();
  return nullptr;
}

QString MainWindow::fitBanner() const {
  return m_fitBanner->isVisibleTo(this) ? m_fitBanner->text() : QString();
}

QCustomPlot* MainWindow::currentPlot() const {
  if (m_tabs->currentWidget() == m_pareto) return m_pareto->plot();
  if (m_tabs->currentWidget() == m_servingTab) return m_serving;
  return qobject_cast<QCustomPlot*>(m_tabs->currentWidget());
}

void MainWindow::showTab(const QString& key) {
  if (key == "candidates") m_pareto->setFocus();
  for (int i = 0; i < m_tabs->count(); ++i) {
    if (m_tabs->tabBar()->tabData(i).toString() == key) m_tabs->setCurrentIndex(i);
  }
}

void MainWindow::recompute() {
  const ScenarioSpec spec = m_panel->spec();
  auto scen = guarded("scenario", [&] { return resolveScenario(spec); });
  if (!scen) {
    m_lastError = qs(scen.error().str());
    m_panel->setFeedback(m_lastError, true);
    return;  // keep the last good plots on screen
  }
  std::vector<SchemeAssignment> cands;
  auto c = makeCandidates(spec.schemes, spec.mixedLinear, spec.mixedMoe, spec.mixedLmHead);
  if (!c) {
    m_lastError = qs(c.error().str());
    m_panel->setFeedback(m_lastError, true);
    return;
  }
  auto rep = guarded("scenario", [&] {
    return runEngine(*scen, *c, logBatches(spec.batchMin, spec.batchMax, m_curvePoints));
  });
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
    facts +=
        QString("\nCheckpoint quantized: %1 → %2")
            .arg(qs(q.quantMethod), q.schemeId.empty() ? "no built-in scheme" : qs(q.schemeId));
  }
  if (m_report->schemes.empty()) facts += "\nNo scheme selected: tick at least one.";
  m_panel->setFeedback(facts, false);
  m_panel->setGpu(m_report->scenario.gpu);
  const QString fit = fitWarning(*m_report);
  m_fitBanner->setText(fit);
  m_fitBanner->setVisible(!fit.isEmpty());
  m_stepPlot->setReport(*m_report, spec.batchMin, spec.batchMax);
  m_throughputPlot->setReport(*m_report, spec.batchMin, spec.batchMax);
  updateMeasurementOverlay(*scen, *c, logBatches(spec.batchMin, spec.batchMax, m_curvePoints));
  updateSchemesTable();
  emit reportUpdated();
}

void MainWindow::updateSchemesTable() {
  const QStringList headers = {"scheme",     "bits/weight",      "path",    "floor ms",
                               "mma µs/seq", "dequant ms",       "ridge B", "weights GiB",
                               "max seqs",   "tok/s at capacity"};
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
    m_schemesTable->setItem(row, 0, new QTableWidgetItem(qs(s.assignment.id)));
    m_schemesTable->setItem(row, 1, num(s.bitsPerWeight, 3));
    auto* path = new QTableWidgetItem(qs(s.pathName));
    if (s.fallback) {
      path->setForeground(QColor(176, 0, 0));
      path->setToolTip(QString("%1 has no %2 tensor path: %3 runs on the bf16 fallback")
                           .arg(qs(m_report->scenario.gpu.name),
                                tensorPathName(s.assignment.linear.path), qs(s.assignment.id)));
    }
    m_schemesTable->setItem(row, 2, path);
    m_schemesTable->setItem(row, 3, num(s.memoryFloorMs, 3));
    m_schemesTable->setItem(row, 4, num(s.mmaUsPerSeq, 3));
    m_schemesTable->setItem(row, 5, num(s.dequantMs, 3));
    m_schemesTable->setItem(row, 6,
                            s.ridgeBatch ? num(*s.ridgeBatch, 1) : new QTableWidgetItem("none"));
    m_schemesTable->setItem(row, 7, num(s.capacity.weightsGib, 2));
    m_schemesTable->setItem(row, 8, num(static_cast<double>(s.capacity.maxSeqs), 0));
    m_schemesTable->setItem(row, 9, num(s.capacity.tokensPerSAtCapacity, 0));
    ++row;
  }
  m_schemesTable->setSortingEnabled(true);
  m_schemesTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);

  m_crossoversTable->clear();
  m_crossoversTable->setColumnCount(4);
  m_crossoversTable->setHorizontalHeaderLabels(
      {"crossover B", "faster below", "faster above", "in words"});
  m_crossoversTable->setRowCount(static_cast<int>(m_report->crossovers.size()));
  row = 0;
  for (const auto& c : m_report->crossovers) {
    const std::string& other = c.schemes[0] == c.fasterBelow ? c.schemes[1] : c.schemes[0];
    m_crossoversTable->setItem(row, 0, num(c.batch, 1));
    m_crossoversTable->setItem(row, 1, new QTableWidgetItem(qs(c.fasterBelow)));
    m_crossoversTable->setItem(row, 2, new QTableWidgetItem(qs(other)));
    m_crossoversTable->setItem(row, 3, new QTableWidgetItem(crossoverText(c)));
    ++row;
  }
  m_crossoversTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

void MainWindow::exportPlotInteractive() {
  // A table view exports its table, never silently another view's plot.
  if (QTableWidget* table = currentTable()) {
    const QString path = QFileDialog::getSaveFileName(
        this, "Export table", QString("quantfront-%1.csv").arg(currentTabKey()), "CSV (*.csv)");
    if (path.isEmpty()) return;
    if (const QString err = exportTableFile(table, path); !err.isEmpty()) {
      QMessageBox::warning(this, "Export failed", err);
    } else {
      statusBar()->showMessage("Exported " + path, 5000);
    }
    return;
  }
  QCustomPlot* plot = currentPlot();
  if (!plot) return;
  const QString path =
      QFileDialog::getSaveFileName(this, "Export plot (180 mm wide; PNG at 300 dpi)",
                                   QString("quantfront-%1.png").arg(currentTabKey()),
                                   "PNG image (*.png);;PDF (*.pdf);;SVG (*.svg)");
  if (path.isEmpty()) return;
  const QString err = exportPlotFile(plot, path, kExportWidthPx, kExportHeightPx);
  if (!err.isEmpty()) {
    QMessageBox::warning(this, "Export failed", err);
  } else {
    statusBar()->showMessage("Exported " + path, 5000);
  }
}

void MainWindow::exportReportInteractive() {
  const QString path = QFileDialog::getSaveFileName(this, "Export review report",
                                                    "quantfront-review.pdf", "PDF (*.pdf)");
  if (path.isEmpty()) return;
  int pages = 0;
  if (const QString err = exportReviewReport(path, &pages); !err.isEmpty()) {
    QMessageBox::warning(this, "Export failed", err);
    return;
  }
  statusBar()->showMessage(QString("Exported %1 (%2 pages)").arg(path).arg(pages), 8000);
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

QStringList MainWindow::exportViews() {
  return {"step-time", "throughput", "serving",    "pareto",
          "measured",  "schemes",    "candidates", "report"};
}

QString MainWindow::exportView(const QString& view, const QString& path, int widthPx,
                               int heightPx) {
  if (view == "report") return exportReviewReport(path);
  if (view == "schemes" || view == "candidates") {
    return exportTableFile(view == "schemes" ? m_schemesTable : m_pareto->table(), path);
  }
  if (view == "serving") updateServing();
  QCustomPlot* plot = view == "step-time"    ? static_cast<QCustomPlot*>(m_stepPlot)
                      : view == "throughput" ? static_cast<QCustomPlot*>(m_throughputPlot)
                      : view == "serving"    ? static_cast<QCustomPlot*>(m_serving)
                      : view == "pareto"     ? m_pareto->plot()
                      : view == "measured"   ? static_cast<QCustomPlot*>(m_residualPlot)
                                             : nullptr;
  if (!plot) {
    return QString("unknown view '%1' (expected one of %2)").arg(view, exportViews().join(", "));
  }
  return exportPlotFile(plot, path, widthPx, heightPx);
}

QString MainWindow::exportReviewReport(const QString& path, int* pages, QStringList* pageText) {
  if (!m_report) return path + ": no engine report to write (" + m_lastError + ")";
  const Session s = withoutHidden(session());  // a hidden candidate is not reported
  ReviewReportInputs in;
  in.report = &*m_report;
  in.session = &s;
  in.sessionName = m_sessionPath.isEmpty() ? sessionName() : m_sessionPath;
  in.stepPlot = m_stepPlot;
  in.throughputPlot = m_throughputPlot;
  updateServing();
  in.servingPlot = m_serving;
  in.serving = &m_servingSweeps;
  in.paretoPlot = m_pareto->plot();
  in.residualPlot = m_residualPlot;
  in.paretoStatus = m_pareto->statusText();
  in.objectives = m_pareto->objectives();
  in.gates = m_pareto->appliedGates();
  in.verdicts = m_pareto->verdicts();
  return qf::ui::exportReviewReport(in, path, pages, pageText);
}

void MainWindow::exportDataInteractive() {
  if (!m_report) return;
  const QString path = QFileDialog::getSaveFileName(this, "Export data", "quantfront-model.json",
                                                    "JSON (*.json);;CSV (*.csv)");
  if (path.isEmpty()) return;
  if (const QString err = exportDataFile(*m_report, path); !err.isEmpty()) {
    QMessageBox::warning(this, "Export failed", err);
    return;
  }
  statusBar()->showMessage("Exported " + path, 5000);
}

}  // namespace qf::ui
