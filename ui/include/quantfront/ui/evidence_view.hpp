#pragma once
/// The Evidence tab: the runs imported into the session (vLLM / SGLang serving results,
/// lm-eval scores, ...) with the candidate each feeds, attachable to a candidate from a menu
/// or by dragging runs onto a candidate; and one candidate's metrics with the provenance of
/// every number (measured: file and SHA-256; published: citation; modelled: the inputs).
/// Thin: attaching is core's attachRunsToCandidates, called by the main window.
#include <QWidget>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/base/records.hpp>
#include <quantfront/ui/candidate_id_list.hpp>

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace qf::ui {

/// How the user asked to attach runs: to one candidate, or one candidate per model named.
struct AttachRequest {
  QStringList digests;  ///< SHA-256 of the runs
  /// Candidate to attach to (created when missing); unset: one candidate per model.
  std::optional<QString> candidateId;
  QString scheme;  ///< scheme for a new candidate whose name gives none; empty: from the name
  /// Attach even to an existing candidate of another model (the user confirmed it).
  bool allowModelMismatch = false;
  /// The GPU the runs were measured on, for a candidate this creates (catalog id; empty: the
  /// scenario's): vLLM and SGLang result files do not record it.
  QString gpu{};
  /// GPUs per replica of a candidate this creates (0: one).
  int gpuCount = 0;
};

class EvidenceView : public QWidget {
  Q_OBJECT
 public:
  explicit EvidenceView(QWidget* parent = nullptr);

  /// Shows the session's runs and candidates; keeps the candidate shown below when it still
  /// exists.
  void setContents(const std::vector<ImportedRun>& runs,
                   std::shared_ptr<const std::vector<Candidate>> cands);
  void setContents(const std::vector<ImportedRun>& runs, const std::vector<Candidate>& cands);
  /// Shows `id`'s metrics in the lower table (nothing when it does not exist).
  void showCandidate(const QString& id);
  [[nodiscard]] QString shownCandidate() const;
  /// The one candidate the runs with these digests name by model and scheme (core's
  /// matchingCandidate), "" when none does or they name different ones: the Attach dialog's
  /// first offer.
  [[nodiscard]] QString namedCandidate(const QStringList& digests) const;

  [[nodiscard]] QTableWidget* runsTable() const { return m_runs; }
  [[nodiscard]] QTableWidget* metricsTable() const { return m_metrics; }
  /// SHA-256 digests of the selected runs, in table order.
  [[nodiscard]] QStringList selectedDigests() const;
  /// Selects the runs whose source file name is in `files` (tests, drag sources).
  void selectRuns(const QStringList& files);
  /// The candidates a run may be attached to (ids, in session order).
  [[nodiscard]] QStringList candidateIds() const;

  /// Asks for the target of the selected runs (existing or new candidate, scheme) and emits
  /// attachRequested. Replaceable for tests: the chooser returns nullopt for Cancel.
  void attachSelectedInteractive();
  void setAttachChooser(std::function<std::optional<AttachRequest>(const QStringList& digests)> f);

  /// MIME type of dragged runs: newline-separated SHA-256 digests.
  static constexpr const char* kRunsMime = "application/x-quantfront-runs";

 signals:
  void attachRequested(const qf::ui::AttachRequest& request);
  /// The user asked to detach these runs (SHA-256) from the candidates they feed.
  void detachRequested(const QStringList& digests);

 private:
  [[nodiscard]] std::optional<AttachRequest> chooseTarget(const QStringList& digests);
  void fillRuns();
  void fillMetrics();
  /// Attach needs a selection; Detach a selected run that feeds a candidate.
  void updateButtons();

  QTableWidget* m_runs = nullptr;
  QTableWidget* m_metrics = nullptr;
  QComboBox* m_candidate = nullptr;
  QPushButton* m_attach = nullptr;
  QPushButton* m_perModel = nullptr;
  QPushButton* m_detach = nullptr;
  QLabel* m_summary = nullptr;
  std::vector<ImportedRun> m_runData;
  /// Shared with the document (never changed: the document edits a new list).
  std::shared_ptr<const std::vector<Candidate>> m_cands =
      std::make_shared<const std::vector<Candidate>>();
  CandidateIdList* m_candidateIds = nullptr;  ///< m_candidate's items
  std::function<std::optional<AttachRequest>(const QStringList&)> m_chooser;
};

}  // namespace qf::ui
