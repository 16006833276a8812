#pragma once
/// The main window: scenario on the left, plots and tables in tabs, status line at the bottom.
#include <QMainWindow>
#include <optional>

#include <quantfront/core/engine.hpp>
#include <quantfront/core/scenario_spec.hpp>

class QTabWidget;
class QTableWidget;
class QLabel;
class QPushButton;
class QCustomPlot;

namespace qf::ui {

class ScenarioPanel;
class StepTimePlot;
class ThroughputPlot;

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

 signals:
  void reportUpdated();

 private:
  void buildMenus();
  void exportPlotInteractive();
  void exportDataInteractive();
  void updateSchemesTable();
  void detectGpu();

  ScenarioPanel* m_panel = nullptr;
  QTabWidget* m_tabs = nullptr;
  StepTimePlot* m_stepPlot = nullptr;
  ThroughputPlot* m_throughputPlot = nullptr;
  QTableWidget* m_schemesTable = nullptr;
  QLabel* m_gpuStatus = nullptr;
  QPushButton* m_measure = nullptr;
  std::optional<EngineReport> m_report;
  QString m_lastError;
};

}  // namespace qf::ui
