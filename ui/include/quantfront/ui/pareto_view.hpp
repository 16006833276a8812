#pragma once
/// The Pareto tab (objectives and gates edited as rows; frontier line, dominated points faded,
/// gated-out struck, interval bars, uncertain band) and the Candidates tab (sortable table with
/// gate status and provenance). Both draw a FrontierResult computed by core.
#include <qcustomplot.h>
#include <QHash>
#include <QWidget>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>

#include <quantfront/core/analysis/frontier.hpp>
#include <quantfront/core/analysis/frontier_analysis.hpp>
#include <quantfront/core/base/records.hpp>
#include <quantfront/ui/candidates_model.hpp>
#include <quantfront/ui/label_layout.hpp>
#include <quantfront/ui/pareto_plot.hpp>

class QComboBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QTableWidget;

namespace qf::ui {

class Background;

/// Controls + ParetoPlot + candidates table over one candidate list. Objectives and gates are
/// edited as rows; each edit recomputes the frontier at once. A row that cannot be applied
/// (unknown metric, a threshold that is not a number, a baseline-relative gate without a
/// baseline) is marked red, its tooltip gives the reason, and the other rows still apply.
class ParetoView : public QWidget {
  Q_OBJECT
 public:
  /// Columns of the objective rows and of the gate rows (their cell widgets: QComboBox for the
  /// metric, direction, comparison and reference, QLineEdit for the value, QToolButton remove).
  enum ObjectiveColumn { ObjectiveMetricColumn, ObjectiveDirectionColumn, ObjectiveRemoveColumn };
  enum GateColumn {
    GateMetricColumn,
    GateOpColumn,
    GateReferenceColumn,
    GateValueColumn,
    GateRemoveColumn
  };

  explicit ParetoView(QWidget* parent = nullptr);
  /// Silences the rows' editors first: closing a shown view takes the focus from a metric
  /// picker, whose "editing finished" would otherwise reach this view's members destroyed.
  ~ParetoView() override;
  /// Candidates as the view holds them: shared and never changed (an analysis on a worker
  /// reads them), so a caller that keeps them hands them over without a copy.
  using SharedCandidates = std::shared_ptr<const std::vector<Candidate>>;
  /// Shows `cands`; keeps the objective and gate rows (metrics no candidate carries are marked).
  void setCandidates(SharedCandidates cands);
  void setCandidates(std::vector<Candidate> cands);
  /// Objective rows (x, y, then further objectives) and gate rows, one per gate; a text holding
  /// several gates separated by commas gives one row each. Empty objectives keep the rows.
  void setSelection(const std::vector<Objective>& objectives,
                    const std::vector<std::string>& gates);
  /// setCandidates + setSelection with one frontier computation (what opening a session does).
  void setContents(SharedCandidates cands, const std::vector<Objective>& objectives,
                   const std::vector<std::string>& gates);
  void setContents(std::vector<Candidate> cands, const std::vector<Objective>& objectives,
                   const std::vector<std::string>& gates);
  /// The objectives the frontier is computed over: the valid rows in order (x, y, ...).
  [[nodiscard]] std::vector<Objective> objectives() const;
  /// Every gate row core parses, in its syntax ("recovery_pct>=99", "score>=baseline-0.5"):
  /// what a session saves, including a row that cannot be applied yet (its metric unknown to
  /// the candidates and the dictionary, or its baseline not chosen).
  [[nodiscard]] std::vector<std::string> gates() const;
  /// The gates the frontier applies: the rows gates() lists that can be applied.
  [[nodiscard]] std::vector<std::string> appliedGates() const;
  /// The objective rows and the gate rows.
  [[nodiscard]] QTableWidget* objectiveEditor() const { return m_objectiveRows; }
  [[nodiscard]] QTableWidget* gateEditor() const { return m_gateRows; }
  /// Why objective row `row` / gate row `row` is not applied (for a gate: core's error); empty
  /// when it is.
  [[nodiscard]] QString objectiveRowProblem(int row) const;
  [[nodiscard]] QString gateRowProblem(int row) const;
  /// Adds an objective row (the first metric not chosen yet) or a gate row (on the x metric,
  /// at the worst value a candidate has, so that it changes nothing until tightened).
  void addObjective();
  void addGate();
  [[nodiscard]] ParetoPlot* plot() const { return m_plot; }
  /// The Candidates tab's table: a view of the candidates' item model, sorted by a proxy.
  [[nodiscard]] QTableView* table() const { return m_table; }
  /// The candidate id on `row` of the table as shown (sorted); empty out of range.
  [[nodiscard]] QString candidateAt(int row) const;
  /// The row of the table as shown that holds candidate `id`, or -1.
  [[nodiscard]] int rowOfCandidate(const QString& id) const;
  /// Above this many candidates the frontier is computed without dominator lists, and a
  /// candidate's list is read when its tooltip or hover text is shown.
  static constexpr std::size_t kEagerDominatorsUpTo = 5000;
  /// Above it too, the frontier is analysed off the GUI thread (Background's Pareto lane): the
  /// view says "Analysing N candidates…" until the result is shown (analysed()); an edit
  /// meanwhile supersedes it. Every accessor of the result below waits for it first.
  [[nodiscard]] const std::optional<FrontierResult>& result() const {
    settle();
    return m_result;
  }
  /// Waits for an analysis still running and shows it (tests, exports).
  void settle() const;
  /// Selects candidate `id` in the table and rings it on the plot (what a click on either does).
  void selectCandidate(const QString& id);
  /// Each candidate's verdict from the last computation (empty when it failed).
  [[nodiscard]] const std::map<std::string, CandidateVerdict>& verdicts() const;
  /// The summary line under the controls (counts and warnings, or the error).
  [[nodiscard]] QString statusText() const;

 signals:
  /// The objectives or the gates changed (an edit of a row, a row added or removed), or the
  /// colour or baseline picked.
  void selectionChanged();
  /// A frontier analysed off the GUI thread is shown.
  void analysed();

 private:
  struct ObjectiveRow {
    Objective objective;
    QString problem;
  };
  struct GateRow {
    std::string text;
    std::optional<Gate> gate;  ///< when core parses the text
    QString problem;
  };
  [[nodiscard]] std::vector<ObjectiveRow> objectiveRows() const;
  [[nodiscard]] std::vector<GateRow> gateRows() const;
  /// One analysis: the candidates it read, and what it found (made on the worker).
  struct Analysed {
    std::uint64_t computation = 0;  ///< the recompute() it answers
    std::shared_ptr<const std::vector<Candidate>> cands;
    QString error;  ///< core's refusal; empty when it ran
    QString notes;  ///< rows not applied, said after the counts
    std::optional<FrontierResult> result;
    std::shared_ptr<const FrontierAnalysis> analysis;
    std::unique_ptr<DominatorLookup> lookup;  ///< without dominator lists only
    std::vector<UncertainBand> bands;
    /// What the plot and the table draw from (made beside the analysis, off the GUI thread
    /// for a large set): the plot's points for the first two objectives and `colourMetric`,
    /// and the table's row texts.
    ParetoPlot::SharedPrepared plot;
    CandidatesModel::SharedRows rows;
  };
  static Analysed analyse(std::uint64_t computation,
                          std::shared_ptr<const std::vector<Candidate>> cands, FrontierQuery query,
                          QString notes, const std::string& colourMetric);
  void showAnalysed(Analysed&& a);  ///< an analysis's result, on the GUI thread
  void recompute();
  void rowEdited();
  void fillTable(CandidatesModel::SharedRows rows = {});
  [[nodiscard]] CandidatesModel::DetailSource detailSource() const;
  void loadCandidates(SharedCandidates cands);
  void applySelection(const std::vector<Objective>& objectives,
                      const std::vector<std::string>& gates);
  void appendObjectiveRow(const Objective& objective);
  void appendGateRow(const std::string& text);
  void fillMetricBox(QComboBox* box, const std::string& metric) const;
  void removeRowOf(QTableWidget* rows, QWidget* cell);
  void ensureObjectives();
  QTableWidget* m_objectiveRows = nullptr;
  QTableWidget* m_gateRows = nullptr;
  QPushButton* m_addObjective = nullptr;
  QPushButton* m_addGate = nullptr;
  QComboBox* m_colour = nullptr;                  ///< third objective as colour, "(none)" allowed
  std::map<std::string, Direction> m_directions;  ///< chosen orientation per metric
  QComboBox* m_baseline = nullptr;
  QLabel* m_status = nullptr;
  QLabel* m_selection = nullptr;  ///< the clicked candidate, explained
  ParetoPlot* m_plot = nullptr;
  CandidatesModel* m_model = nullptr;
  QSortFilterProxyModel* m_sorted = nullptr;
  QTableView* m_table = nullptr;
  /// Shared with the plot (and, while it runs, an analysis on the worker): never changed in
  /// place, replaced whole.
  std::shared_ptr<const std::vector<Candidate>> m_cands =
      std::make_shared<const std::vector<Candidate>>();
  std::vector<std::string> m_metrics;  ///< metric names the candidates carry, sorted
  std::optional<FrontierResult> m_result;
  /// The last analysis (its result moved to m_result): verdicts, groups, options.
  std::shared_ptr<const FrontierAnalysis> m_analysis;
  std::unique_ptr<DominatorLookup> m_lookup;  ///< over m_cands and m_analysis, when lazy
  std::vector<Objective> m_shownObjectives;   ///< objectives() at the last computation
  std::vector<std::string> m_shownGates;      ///< gates() at the last computation
  bool m_updating = false;
  Background* m_background = nullptr;
  std::uint64_t m_computation = 0;  ///< recompute() calls so far: an older result is dropped
};

}  // namespace qf::ui
