#pragma once
/// The main window: scenario on the left, plots and tables in tabs, status line at the bottom.
#include <QMainWindow>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <QStringList>
#include <QTimer>

#include <quantfront/core/analysis/curve_intervals.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/session/e2e_evidence.hpp>
#include <quantfront/core/session/serving.hpp>
#include <quantfront/core/session/session.hpp>

class QDoubleSpinBox;
class QTabWidget;
class QTableView;
class QTableWidget;
class QLabel;
class QPushButton;
class QCustomPlot;

class QProgressBar;
class QThread;
class QUndoStack;
class QDialog;

namespace qf {
struct AttachOptions;
struct FileImport;
class MeasurementBackend;
}  // namespace qf

namespace qf::ui {

class Background;
struct MeasureOutcome;
class Document;
class DeployView;
class EvidenceView;
class ServingPlot;
struct AttachRequest;

class ScenarioPanel;
class StepTimePlot;
class ResidualPlot;
class MeasuredView;
class ThroughputPlot;
class ParetoView;
class AutosaveSlot;
struct TabSpec;
enum class Tab;
struct AutosaveInfo;

/// What to do with an orphaned autosave (its program crashed or was killed).
enum class RecoveryChoice { Recover, Discard, Later };
/// What to do with unsaved changes before a close, quit, new or open.
enum class UnsavedChoice { Save, Discard, Cancel };

/// An import summary's lines with each warning line that recurs (the same words, in several
/// files) kept once, at its first place, saying how many more times it came; the rest as given.
QStringList collapseRepeatedWarnings(const QStringList& lines);

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Replaces the scenario and recomputes.
  void setScenario(const ScenarioSpec& spec);
  [[nodiscard]] ScenarioSpec scenario() const;
  /// Recomputes the engine report and redraws every view (synchronously).
  void recompute();
  /// Log-spaced batches per curve (plus every power of two in range); default 400, clamped to
  /// 16..65536. Recomputes.
  void setCurvePoints(int points);
  [[nodiscard]] int curvePoints() const;
  /// The document every view shows: the session, the report of its scenario, the undo stack.
  [[nodiscard]] Document* document() const { return m_doc; }

  [[nodiscard]] ScenarioPanel* scenarioPanel() const { return m_panel; }
  [[nodiscard]] StepTimePlot* stepTimePlot() const { return m_stepPlot; }
  /// The throughput plot, brought up to date with the report first (it is drawn when shown).
  [[nodiscard]] ThroughputPlot* throughputPlot() const;
  /// The plot on the current tab (nullptr when the tab is not a plot).
  [[nodiscard]] QCustomPlot* currentPlot() const;
  /// Selects the tab by its key (tabs.hpp): "step", "throughput", "serving", "schemes",
  /// "pareto", "candidates", "evidence", "measured".
  void showTab(const QString& key);
  /// The current tab's key.
  [[nodiscard]] QString currentTabKey() const;
  /// The table on the current tab (Schemes, Candidates); nullptr on a plot tab.
  [[nodiscard]] QTableView* currentTable() const;
  [[nodiscard]] QTableWidget* schemesTable() const { return m_schemesTable; }
  /// The crossovers under the Schemes table: faster below, than, at B, faster above.
  [[nodiscard]] QTableWidget* crossoversTable() const { return m_crossoversTable; }
  [[nodiscard]] ResidualPlot* residualPlot() const;
  /// The "Measured vs model" tab (its end-to-end part up to date after updateEndToEnd,
  /// showing the tab, or exporting it).
  [[nodiscard]] MeasuredView* measuredView() const { return m_measured; }
  /// Compares the session's imported end-to-end runs with the model (the Measured tab).
  void updateEndToEnd();
  /// The red banner naming the schemes that do not fit and the smallest TP that does (empty:
  /// everything fits). Shown over every view but the step-time and throughput plots, whose
  /// own warning row says it (fitBannerShown).
  [[nodiscard]] QString fitBanner() const;
  [[nodiscard]] bool fitBannerShown() const;

  /// Views `exportView` knows: step-time, throughput, serving, pareto, measured, schemes,
  /// candidates, report (tabs.hpp).
  static QStringList exportViews();
  /// Exports one view headless: a plot view as PNG, PDF or SVG (by `path`'s extension, at
  /// `widthPx` × `heightPx`, see writePlot), a table view as CSV, "report" as the review
  /// report PDF. Returns an error message naming `path` or the view, empty on success.
  QString exportView(const QString& view, const QString& path, int widthPx, int heightPx);
  /// Writes the review report (review_report.hpp) of the session as it stands to `path`;
  /// `pageText` (when given) receives what each page says, `brokenHeaders` the table header
  /// words a column was too narrow for.
  QString exportReviewReport(const QString& path, int* pages = nullptr,
                             QStringList* pageText = nullptr, QStringList* brokenHeaders = nullptr);
  /// Loads a Hugging Face config.json as the scenario's model (an undoable edit). On error
  /// shows it (a message box unless `quiet`) and keeps the current model. True on success.
  bool openModelConfig(const QString& path, bool quiet = false);
  /// Scenario and gate edits, undoable (Edit › Undo, Ctrl+Z; Redo, Ctrl+Shift+Z).
  [[nodiscard]] QUndoStack* undoStack() const;
  /// The last successful report, if any.
  [[nodiscard]] const std::optional<EngineReport>& report() const;
  /// Last error shown (empty when the scenario evaluated).
  [[nodiscard]] QString lastError() const { return m_lastError; }

  /// Shows a session (scenario, candidates, view). The bundled example when none is given.
  void setSession(Session session, const QString& path);
  /// The session as it stands now (scenario and view taken from the widgets).
  [[nodiscard]] Session session() const;
  /// The file the session saves to; empty for an untitled session.
  [[nodiscard]] const QString& sessionPath() const { return m_sessionPath; }
  /// Opens a session file; on error shows it and keeps the current session. True on success.
  bool openSession(const QString& path);
  /// Opens a session file once the event loop runs (the window painted first, the file read
  /// behind openSession's progress dialog), then shows `tab` when one is given (the session's
  /// saved tab otherwise). Returns at once: the command line's SESSION opens this way.
  void openSessionWhenShown(const QString& path, const QString& tab = {});
  /// Saves atomically to `path`; on error returns the message (empty on success).
  QString saveSessionTo(const QString& path);
  /// Imports result files into the session (core importIntoSession) and returns one summary
  /// line per file. Synchronous; File › Import and dropped files read on a worker thread.
  QStringList importFiles(const QStringList& paths);
  /// What the Measure action measures with (cuda/'s backend in the app, a fake in tests);
  /// none: Measure is disabled. The status line shows the backend's first device.
  void setMeasurementBackend(std::shared_ptr<MeasurementBackend> backend);
  /// True while files are being read on the worker thread (importAndShow).
  [[nodiscard]] bool importRunning() const;
  /// Attaches imported runs to candidates (core attachRunsToCandidates): their figures become
  /// measured metrics, recovery is derived and modelled figures filled. Returns what was done
  /// (candidates created / updated, notes, warnings); on an error the session is unchanged.
  QStringList attachRuns(const AttachRequest& request);

  // Evidence edits (evidence_edits.cpp), each one undoable step (Edit › Undo), each
  // returning an error message (empty on success) and leaving the session as it was on error.
  /// Detaches runs (SHA-256) from the candidates they feed (core detachRuns).
  QString detachRuns(const QStringList& digests);
  QString removeCandidate(const QString& id);
  QString renameCandidate(const QString& id, const QString& newId);
  QString setCandidateHidden(const QString& id, bool hidden);
  /// Replaces the "attach to a candidate of another model?" question (tests): gets the
  /// mismatches, one per line; true attaches anyway.
  void setMismatchPrompt(std::function<bool(const QString&)> prompt);
  /// File › Calibrate from the session's runs…: fits the session's end-to-end runs (core
  /// calibrateSession: the runs' GPU, the scenario's when they are on several), shows the
  /// constants with their spreads, what was held or kept at the prior, and the held-out check,
  /// and applies the calibration to the scenario's GPU when accepted (undoable, saved with the
  /// session). The fits run off the GUI thread behind a progress dialog whose Cancel gives up
  /// on them. Returns what happened in one line (also on the status bar).
  QString calibrateInteractive();
  /// Replaces the dialog calibrateInteractive shows (tests): return true to apply. An empty
  /// function restores the dialog.
  void setCalibrationPrompt(std::function<bool(const SessionCalibration&)> prompt);
  /// Help › Documentation: the project's docs (built into the program) in a window, one list
  /// entry per document, rendered from their Markdown; returns it (shown, not modal).
  QDialog* showDocumentation();
  [[nodiscard]] EvidenceView* evidenceView() const { return m_evidence; }
  [[nodiscard]] DeployView* deployView() const { return m_deploy; }
  /// The Serving tab's plot (up to date after updateServing, showing it, or exporting it;
  /// waits for statistics being computed off the GUI thread).
  [[nodiscard]] ServingPlot* servingPlot() const;
  /// The serving sweeps of the session as it stands (runs by candidate against offered load).
  [[nodiscard]] const ServingSweeps& servingSweeps() const;
  /// Recomputes the serving sweeps and redraws the Serving tab.
  void updateServing();
  /// The window's work off the GUI thread (serving statistics, imports, measurements).
  [[nodiscard]] Background* background() const { return m_background; }
  [[nodiscard]] ParetoView* paretoView() const { return m_pareto; }
  /// True when the session has edits (scenario, gates, objectives, imports) not yet saved.
  [[nodiscard]] bool isModified() const { return m_dirty; }
  /// Starts autosaving: `intervalMs` after an edit, the session goes to this window's own
  /// file in `dir` (empty: defaultAutosaveDir()), and only while there are unsaved changes.
  /// Without this call the window never autosaves (headless exports, tests).
  void startAutosave(const QString& dir = QString(), int intervalMs = 2000);
  /// The folder autosaves go to (empty until startAutosave).
  [[nodiscard]] QString autosaveDir() const { return m_autosaveDir; }
  /// This window's autosave file (empty until it first autosaves).
  [[nodiscard]] QString autosaveFile() const;
  /// Writes the autosave now when there are unsaved changes. Returns an error, empty otherwise.
  QString autosaveNow();
  /// Offers each orphaned autosave in the autosave folder, newest first, through the recovery
  /// prompt (Recover / Discard / Later) before anything overwrites it. True when one was
  /// recovered into this window (it is then modified, and its autosave is this window's).
  bool offerRecovery();
  /// Replaces the recovery dialog (tests, quantfront --recover).
  void setRecoveryPrompt(std::function<RecoveryChoice(const AutosaveInfo&)> prompt);
  /// Replaces the Save / Discard / Cancel dialog (tests).
  void setUnsavedPrompt(std::function<UnsavedChoice()> prompt);
  /// When there are unsaved changes asks Save / Discard / Cancel (Save saves, asking for a
  /// file name when the session has none). True when the caller may go on.
  bool maybeSaveChanges();
  /// The Help menu's keyboard map (HTML): every menu shortcut and the tab keys.
  [[nodiscard]] QString keyboardMapText() const;
  /// File > New: asks about unsaved changes, then shows a blank session (the scenario kept;
  /// no candidates, runs, objectives or gates). True when done.
  bool newSession();
  /// File > Open example: asks about unsaved changes, then shows the bundled example session
  /// (the Llama-3.1 8B/70B candidates with the paper's figures). True when done.
  bool openExample();
  /// Replaces the scenario as a user's edit does: the session becomes modified.
  void editScenario(const ScenarioSpec& spec);

 signals:
  void reportUpdated();

 private:
  /// One tab of the window (tab_views.cpp): its widgets, the document parts it is drawn
  /// from, and how it is drawn.
  struct TabView {
    QWidget* page = nullptr;      ///< its page in the tab bar
    QCustomPlot* plot = nullptr;  ///< the plot it exports (nullptr: none)
    QTableView* table = nullptr;  ///< the table it exports (nullptr: none)
    unsigned feeds = 0;           ///< the DocumentParts it is drawn from
    /// A costly view is drawn while it is the current tab, and when shown or exported; the
    /// others on every change of what they feed on.
    bool whenShown = false;
    /// Draws it from the document; `parts`: what changed since it was last drawn.
    std::function<void(unsigned parts)> draw;
    unsigned pending = 0;  ///< what changed while it was not drawn (whenShown views)
  };
  /// Every tab's widgets and how each is fed, in one place (tab_views.cpp): constructs each
  /// tab's widgets and registers its view for its row of tabSpecs().
  void buildTabViews();
  /// `tab`'s view, drawn first when it lags the document.
  const TabView& tabView(Tab tab) const;
  /// Draws the views that feed on `parts`, or marks them to be drawn when shown.
  void feedTabViews(unsigned parts);
  /// Marks `tab` as lagging (`parts` changed) and draws it if it is in sight.
  void refeed(Tab tab, unsigned parts);
  /// The size the window opens at: 1,500 × 920, or what the screen has room for.
  [[nodiscard]] QSize initialSize() const;
  [[nodiscard]] const TabSpec* currentTabSpec() const;
  void buildSchemesTab();
  void buildServingTab();
  /// One tab per row of tabSpecs(), in its order, with its title, key and tooltip.
  void addTabs();
  void connectTabs();
  /// The fit banner over the tabs.
  QWidget* buildCentre(QWidget* parent);
  void buildStatusBar();
  void buildMenus();
  void buildToolBar();
  /// Puts what changed in the document on screen (`parts`: DocumentPart).
  void showDocument(unsigned parts);
  /// The report's frame (title, the panel's facts, the fit banner), or the scenario's error.
  /// False on the error: the views keep the last good report.
  bool showReportFrame();
  void exportPlotInteractive();
  void exportReportInteractive();
  void openModelInteractive();
  void exportDataInteractive();
  /// The step-time plot from the report, with the measured points over it.
  void drawStepPlot();
  /// Speculative decoding on the step-time plot, as the scenario asks (off: removed).
  void updateSpeculation(const ScenarioSpec& spec);
  /// The Schemes and Crossovers tables from the report; with `batchAt` ≥ 1 (the spec the
  /// report was made from) each scheme at that batch too.
  void updateSchemesTable(double batchAt);
  /// The Pareto and Candidates tabs from the document's candidates and selection.
  void drawPareto(unsigned parts);
  /// Starts the serving statistics off the GUI thread; showServing draws them when they come.
  void startServing();
  void showServing(Result<ServingSweeps>& sweeps, const QString& sloNote);
  /// What the goodput SLO boxes ask, in words (empty: none).
  [[nodiscard]] QString sloNote() const;
  /// Shows the does-not-fit banner unless the current view's plot already says it.
  void updateFitBanner();
  void detectGpu();
  /// Measured points, calibrated curves and residuals for the current scenario, from the
  /// session's kernel records plus those a running measurement has delivered so far.
  void updateMeasurementOverlay(const Scenario& scenario,
                                const std::vector<SchemeAssignment>& assignments,
                                const std::vector<double>& batches);
  /// Measure / Cancel: runs the quick measurement plan of the scenario's model on a worker
  /// thread; the records are added to the session when it finishes.
  void toggleMeasure();
  /// A running measurement's progress and its records one by one (on this thread).
  void measureProgressed(const std::optional<KernelMeasurement>& record, double done,
                         const QString& what);
  /// A measurement ended: what it measured goes into the session (one change, not undone).
  void measureFinished(const MeasureOutcome& out);
  void markChanged();
  void openInteractive();
  bool saveInteractive(bool saveAs);
  void dropAutosave();
  [[nodiscard]] RecoveryChoice askRecovery(const AutosaveInfo& info);
  [[nodiscard]] UnsavedChoice askUnsaved();
  [[nodiscard]] QString sessionName() const;
  void importInteractive();
  /// Reads the files on a worker thread (progress and Cancel in a dialog), then merges them
  /// on this one, shows the Evidence tab with the new runs selected and says what to do next.
  void importAndShow(const QStringList& paths);
  /// Merges files read by core readImports into the session; one summary line per file.
  QStringList mergeReadFiles(std::vector<FileImport> read);
  /// The import's summary lines in a message box; with new runs, the Evidence tab showing them.
  void showImportOutcome(std::size_t runsBefore, QStringList lines);
  void updateTitle();
  /// Adds a deployment the Deploy tab found as a candidate (one undoable step; an id already
  /// taken gets " (2)", " (3)", ...), with the engine's modelled figures.
  void addDeploymentCandidate(const Candidate& c);
  /// Window shortcuts that work in text fields, Ctrl+Tab / Ctrl+Shift+Tab over `tabs`, the
  /// Help menu (window_keys.cpp).
  void installKeys(QTabWidget* tabs);
  /// The Candidates tab's menu (rename, hide, show hidden, remove) and the Evidence tab's
  /// Detach.
  void installCandidateMenu();
  /// When runs would go to a candidate of another model: asks (m_mismatchPrompt or a box);
  /// true and opts.allowModelMismatch set to attach, false with `refusal` set otherwise.
  bool confirmModelMismatch(const Session& s, AttachOptions& opts, QString& refusal);

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  void closeEvent(QCloseEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  ScenarioPanel* m_panel = nullptr;
  QTabWidget* m_tabs = nullptr;
  StepTimePlot* m_stepPlot = nullptr;
  ThroughputPlot* m_throughputPlot = nullptr;
  /// Every tab's view (buildTabViews); mutable: a lagging view is drawn when asked for.
  mutable std::map<Tab, TabView> m_tabViews;
  QTableWidget* m_schemesTable = nullptr;
  QTableWidget* m_crossoversTable = nullptr;
  QWidget* m_schemesTab = nullptr;
  QLabel* m_fitBanner = nullptr;
  Document* m_doc = nullptr;
  Background* m_background = nullptr;
  /// Set while the document's state is put into the views: what they signal then is not an
  /// edit.
  bool m_showingDocument = false;
  QLabel* m_gpuStatus = nullptr;
  QPushButton* m_measure = nullptr;
  MeasuredView* m_measured = nullptr;
  QProgressBar* m_measureProgress = nullptr;
  std::shared_ptr<MeasurementBackend> m_backend;  ///< null: no measurements in this build
  std::vector<KernelMeasurement> m_liveRecords;   ///< a running measurement's records so far
  bool m_haveDevice = false;
  ParetoView* m_pareto = nullptr;
  EvidenceView* m_evidence = nullptr;
  DeployView* m_deploy = nullptr;
  QWidget* m_servingTab = nullptr;
  ServingPlot* m_serving = nullptr;
  QLabel* m_servingNotes = nullptr;
  bool m_servingComputingShown = false;  ///< the status bar says the statistics are computing
  QDoubleSpinBox* m_sloTtft = nullptr;   ///< goodput objectives on the Serving tab (0: none)
  QDoubleSpinBox* m_sloTpot = nullptr;
  ServingSweeps m_servingSweeps;  ///< what the Serving tab shows (updateServing)
  QString m_lastError;
  QString m_sessionPath;
  /// sessionFileStamp() of m_sessionPath when this window last read or wrote it: autosaves
  /// carry it, so recovery can tell the file changed since (autosave.hpp).
  QString m_baseStamp;
  bool m_dirty = false;
  /// Counts edits (markChanged): an opening compares it across its read, so edits made while
  /// a file is read are never replaced unasked.
  std::uint64_t m_edits = 0;
  bool m_recovered = false;  ///< the session came from an autosave and is not saved yet
  bool m_example = false;    ///< the session shown is the bundled example, unsaved
  QTimer m_autosave;
  QString m_autosaveDir;
  std::unique_ptr<AutosaveSlot> m_autosaveSlot;
  std::function<RecoveryChoice(const AutosaveInfo&)> m_recoveryPrompt;
  std::function<UnsavedChoice()> m_unsavedPrompt;
  std::function<bool(const QString&)> m_mismatchPrompt;
  std::function<bool(const SessionCalibration&)> m_calibrationPrompt;
  QDialog* m_docs = nullptr;
};

}  // namespace qf::ui
