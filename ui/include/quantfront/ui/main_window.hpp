#pragma once
/// The main window: scenario on the left, plots and tables in tabs, status line at the bottom.
#include <QMainWindow>
#include <optional>

#include <QTimer>

#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/session/session.hpp>

class QTabWidget;
class QTableWidget;
class QLabel;
class QPushButton;
class QCustomPlot;

namespace qf::ui {

class ScenarioPanel;
class StepTimePlot;
class ThroughputPlot;
class ParetoView;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  /// Replaces the scenario and recomputes.
  void setScenario(const ScenarioSpec& spec);
  [[nodiscard]] ScenarioSpec scenario() const;
  /// Recomputes the engine report and redraws every view (synchronously).
  void recompute();

  [[nodiscard]] ScenarioPanel* scenarioPanel() const { return m_panel; }
  [[nodiscard]] StepTimePlot* stepTimePlot() const { return m_stepPlot; }
  [[nodiscard]] ThroughputPlot* throughputPlot() const { return m_throughputPlot; }
  /// The plot on the current tab (nullptr when the tab is not a plot).
  [[nodiscard]] QCustomPlot* currentPlot() const;
  /// Selects the tab by its key: "step", "throughput", "schemes".
  void showTab(const QString& key);
  /// The last successful report, if any.
  [[nodiscard]] const std::optional<EngineReport>& report() const { return m_report; }
  /// Last error shown (empty when the scenario evaluated).
  [[nodiscard]] QString lastError() const { return m_lastError; }

  /// Shows a session (scenario, candidates, view). The bundled example when none is given.
  void setSession(const Session& session, const QString& path);
  /// The session as it stands now (scenario and view taken from the widgets).
  [[nodiscard]] Session session() const;
  /// Opens a session file; on error shows it and keeps the current session. True on success.
  bool openSession(const QString& path);
  /// Saves atomically to `path`; on error returns the message (empty on success).
  QString saveSessionTo(const QString& path);
  /// Imports result files into the session; returns one summary line per file.
  QStringList importFiles(const QStringList& paths);
  [[nodiscard]] ParetoView* paretoView() const { return m_pareto; }
  /// True when the session has edits (scenario, gates, objectives, imports) not yet saved.
  [[nodiscard]] bool isModified() const { return m_dirty; }
  /// Where the autosave goes (QStandardPaths::AppDataLocation/autosave.quantfront.json).
  [[nodiscard]] static QString autosavePath();
  /// Writes the autosave now (also done 2 s after every change).
  QString autosaveNow();

 signals:
  void reportUpdated();

 private:
  void buildMenus();
  void exportPlotInteractive();
  void exportDataInteractive();
  void updateSchemesTable();
  void detectGpu();
  void markChanged();
  void openInteractive();
  void saveInteractive(bool saveAs);
  void importInteractive();
  void updateTitle();

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  void closeEvent(QCloseEvent* event) override;

 private:

  ScenarioPanel* m_panel = nullptr;
  QTabWidget* m_tabs = nullptr;
  StepTimePlot* m_stepPlot = nullptr;
  ThroughputPlot* m_throughputPlot = nullptr;
  QTableWidget* m_schemesTable = nullptr;
  QLabel* m_gpuStatus = nullptr;
  QPushButton* m_measure = nullptr;
  ParetoView* m_pareto = nullptr;
  std::optional<EngineReport> m_report;
  QString m_lastError;
  Session m_session;
  QString m_sessionPath;
  bool m_dirty = false;
  QTimer m_autosave;
};

}  // namespace qf::ui
