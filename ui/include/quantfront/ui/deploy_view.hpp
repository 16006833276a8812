#pragma once
/// The Deploy tab: what to deploy for a workload under latency targets. The user sets the
/// workload (a use case or prompt and output lengths), the SLOs, the load and the space (GPUs,
/// most GPUs, schemes, per-kind schemes, KV dtypes); core's searchDeployments does the rest.
/// The cost/latency frontier is drawn with each point coloured by GPU and marked by scheme,
/// split prefill/decode pools hollow (hover: the whole configuration), listed in a table, and a
/// chosen row can be added to the session as a candidate (candidateFromDeployment). Thin: computes
/// nothing itself. The search runs off the GUI thread (Background's Deploy lane): the window stays
/// responsive while it runs, and a result is shown only if no newer search started since.
#include <QWidget>
#include <functional>
#include <optional>
#include <vector>

#include <quantfront/core/analysis/deploy_intervals.hpp>
#include <quantfront/core/analysis/deploy_search.hpp>
#include <quantfront/core/analysis/launch_command.hpp>
#include <quantfront/core/base/records.hpp>
#include <quantfront/core/model/model_config.hpp>
#include <quantfront/core/session/deploy_gate.hpp>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QLayout;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace qf::ui {

class Background;

class DeployView : public QWidget {
  Q_OBJECT
 public:
  explicit DeployView(QWidget* parent = nullptr);

  /// The model searched for (the scenario's); a new model clears the last result.
  void setModel(const ModelArch& model);
  /// Where the session's quality gates come from (the window's session and Pareto gates):
  /// called at each search while "apply the session's quality gates" is ticked; an error
  /// (no gates, no candidate of the model) searches without them and says why.
  using GateSource = std::function<Result<DeployGate>(const std::string& modelId)>;
  void setGateSource(GateSource source) { m_gateSource = std::move(source); }
  /// Starts the search with the inputs shown on a worker thread (what Search does); the view
  /// shows its result, and emits searched(), when it ends unless a newer search started.
  void startSearch();
  /// Runs the search with the inputs shown and waits for it (tests, scripted use); false (and
  /// the reason in status()) when the inputs are refused or nothing is feasible.
  bool search();
  /// True while a search started by startSearch() has not been shown yet.
  [[nodiscard]] bool searching() const;

  [[nodiscard]] const std::optional<DeployResult>& result() const { return m_result; }
  /// The last result's 80% intervals and the best deployment's ties (core's
  /// frontierIntervals); nullopt without a result or when they could not be computed.
  [[nodiscard]] const std::optional<FrontierIntervals>& intervals() const { return m_intervals; }
  [[nodiscard]] DeployOptions options() const;
  [[nodiscard]] QString status() const;
  [[nodiscard]] QCustomPlot* plot() const { return m_plot; }
  [[nodiscard]] QTableWidget* table() const { return m_table; }
  /// Selects frontier row `row` of the table (tests).
  void selectRow(int row);
  /// The candidate the selected row stands for; nullopt without a selection.
  [[nodiscard]] std::optional<Candidate> selectedCandidate() const;
  /// The hover text of frontier point `i` (what the tooltip shows).
  [[nodiscard]] QString hoverText(int i) const;
  /// The summary's sentence on the cheapest deployment's cost interval and its ties.
  [[nodiscard]] QString tieText() const;
  /// The launch line shown: the selected row's (else the cheapest's) for the engine chosen,
  /// with its notes; empty without a result.
  [[nodiscard]] QString launchText() const;
  [[nodiscard]] QComboBox* launchEngineBox() const { return m_engine; }

  // Inputs, for tests and the window's keyboard map.
  [[nodiscard]] QComboBox* useCaseBox() const { return m_useCase; }
  [[nodiscard]] QSpinBox* inputLenBox() const { return m_inputLen; }
  [[nodiscard]] QSpinBox* outputLenBox() const { return m_outputLen; }
  [[nodiscard]] QDoubleSpinBox* sloTtftBox() const { return m_sloTtft; }
  [[nodiscard]] QDoubleSpinBox* sloTpotBox() const { return m_sloTpot; }
  [[nodiscard]] QComboBox* loadBox() const { return m_load; }
  [[nodiscard]] QDoubleSpinBox* rateBox() const { return m_rate; }
  [[nodiscard]] QListWidget* gpuList() const { return m_gpus; }
  [[nodiscard]] QListWidget* schemeList() const { return m_schemes; }
  [[nodiscard]] QSpinBox* maxGpusBox() const { return m_maxGpus; }
  [[nodiscard]] QCheckBox* dataCentreOnlyBox() const { return m_dataCentre; }
  [[nodiscard]] QCheckBox* applyGatesBox() const { return m_applyGates; }
  /// Speculative decoding on every deployment: draft tokens per step (0: off), the
  /// acceptance rate and the draft (the model's MTP layer or a catalog model).
  [[nodiscard]] QSpinBox* specTokensBox() const { return m_specK; }
  [[nodiscard]] QDoubleSpinBox* specAcceptanceBox() const { return m_specAcceptance; }
  /// The draft: "MTP layer" (data empty) or a catalog model (data its id).
  [[nodiscard]] QComboBox* specDraftBox() const { return m_specDraft; }
  /// Also search split prefill and decode pools (qfront search --disaggregated).
  [[nodiscard]] QCheckBox* disaggregatedBox() const { return m_disaggregated; }
  /// MoE: also two-batch overlap at EP = TP under DP attention (qfront search
  /// --two-batch-overlap).
  [[nodiscard]] QCheckBox* twoBatchOverlapBox() const { return m_twoBatchOverlap; }

 signals:
  /// The user asked to add the selected deployment to the session.
  void addCandidateRequested(const qf::Candidate& c);
  /// A search's result is shown; false when it was refused or nothing was feasible.
  void searched(bool ok);

 private:
  struct Request;          ///< what a search reads off the inputs (on the GUI thread)
  struct Outcome;          ///< what it found (on the worker thread)
  QWidget* buildInputs();  ///< the workload, SLO, load and space inputs and Search
  QLayout* buildSpeculation(QWidget* inputs);  ///< draft tokens, acceptance and draft
  void buildGpuList(QWidget* inputs);          ///< priced GPUs and the data-centre filter
  void buildSchemeList(QWidget* inputs);       ///< the schemes, the catalog's "deploy" ticked
  [[nodiscard]] Request request() const;
  static Outcome run(const Request& req);
  void showOutcome(Outcome&& o);  ///< a search's result, on the GUI thread
  void draw();
  void fillTable();
  [[nodiscard]] const DeployIntervals* intervalsAt(int i) const;
  void onUseCase(int index);
  void onHover(QMouseEvent* event);
  void showLaunch();  ///< refreshes the launch line (search, selection, engine)

  ModelArch m_model;
  std::optional<DeployResult> m_result;
  std::optional<FrontierIntervals> m_intervals;
  DeployOptions m_lastOptions;
  LaunchSettings m_lastLaunch;  ///< what the last search priced with, for its launch lines
  std::string m_lastDraftId;    ///< the draft model it speculated with ("": MTP or none)
  QString m_status;
  bool m_lastOk = false;  ///< the last shown search found something feasible
  Background* m_background = nullptr;

  QComboBox* m_useCase = nullptr;
  QSpinBox* m_inputLen = nullptr;
  QSpinBox* m_outputLen = nullptr;
  QDoubleSpinBox* m_sloTtft = nullptr;
  QDoubleSpinBox* m_sloTpot = nullptr;
  QComboBox* m_load = nullptr;
  QDoubleSpinBox* m_rate = nullptr;
  QComboBox* m_axis = nullptr;
  QListWidget* m_gpus = nullptr;
  QListWidget* m_schemes = nullptr;
  QSpinBox* m_maxGpus = nullptr;
  QCheckBox* m_perKind = nullptr;
  QCheckBox* m_disaggregated = nullptr;
  QCheckBox* m_twoBatchOverlap = nullptr;
  QCheckBox* m_kvBf16 = nullptr;
  QCheckBox* m_kvFp8 = nullptr;
  QCheckBox* m_dataCentre = nullptr;
  QCheckBox* m_applyGates = nullptr;
  QSpinBox* m_specK = nullptr;
  QDoubleSpinBox* m_specAcceptance = nullptr;
  QComboBox* m_specDraft = nullptr;  ///< "" (the MTP layer) or a catalog model id
  GateSource m_gateSource;
  QPushButton* m_run = nullptr;
  QPushButton* m_add = nullptr;
  QLabel* m_summary = nullptr;
  QComboBox* m_engine = nullptr;
  QLineEdit* m_launch = nullptr;  ///< the command: one line, selectable, never broken at a '-'
  QLabel* m_launchNotes = nullptr;
  QPushButton* m_copyLaunch = nullptr;
  QCustomPlot* m_plot = nullptr;
  QTableWidget* m_table = nullptr;
};

}  // namespace qf::ui
