#pragma once
/// The window's document: the one source of truth under every view. It owns the session (the
/// scenario, candidates, runs, objectives and gates), the engine report of its scenario, and
/// one undo stack for scenario, selection and evidence edits. Views read it and edit it
/// through its methods; it says what changed with changed(parts), and they redraw from it.
/// Nothing here knows a widget.
#include <QObject>
#include <QString>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/analysis/curve_intervals.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/session/session.hpp>

class QUndoStack;

namespace qf::ui {

/// What a Document change touched; changed() carries an OR of these.
enum DocumentPart : unsigned {
  kScenarioPart = 1u << 0,      ///< session().scenario
  kSelectionPart = 1u << 1,     ///< session().view.objectives and .gates
  kEvidencePart = 1u << 2,      ///< candidates, hidden candidates, the candidate each run feeds
  kRunsPart = 1u << 3,          ///< imported runs added
  kMeasurementsPart = 1u << 4,  ///< kernel measurements added
  kReportPart = 1u << 5,        ///< report(), or lastError() when the scenario did not evaluate
  kWholeSession = (1u << 6) - 1,
};

class Document : public QObject {
  Q_OBJECT
 public:
  /// What an undo step restores. A step holds the parts it changed (kScenarioPart and
  /// kSelectionPart for a scenario or gate edit, kEvidencePart and kSelectionPart for an
  /// evidence edit) and restores only those.
  struct State {
    ScenarioSpec spec;
    std::vector<Objective> objectives;
    std::vector<std::string> gates;
    std::vector<Candidate> candidates;
    std::map<std::string, std::map<std::string, std::string>> runSetups;  ///< by SHA-256
    std::vector<std::string> hidden;
  };

  explicit Document(QObject* parent = nullptr);
  ~Document() override;

  [[nodiscard]] const Session& session() const { return *m_session; }
  [[nodiscard]] const ScenarioSpec& scenario() const { return m_session->scenario; }
  /// The candidates a view shows (the session's, less the hidden ones), shared and immutable:
  /// a view may read them on a worker while the document changes. With none hidden it is
  /// the session's own list, not a copy; the document edits the candidates of a new session
  /// while a view holds the old one.
  [[nodiscard]] std::shared_ptr<const std::vector<Candidate>> visibleCandidates();
  /// Every candidate, hidden ones too: the session's own list, shared, not copied.
  [[nodiscard]] std::shared_ptr<const std::vector<Candidate>> allCandidates() const {
    return {m_session, &m_session->candidates};
  }
  /// The last report the scenario evaluated to (kept while a later edit fails to evaluate).
  [[nodiscard]] const std::optional<EngineReport>& report() const { return m_report; }
  /// The report's intervals (the bands, the crossovers' ties), shared, not copied.
  [[nodiscard]] const std::shared_ptr<const ReportIntervals>& intervals() const {
    return m_intervals;
  }
  /// Why the scenario as it stands does not evaluate; empty when report() is of it.
  [[nodiscard]] const QString& lastError() const { return m_lastError; }
  /// The scenario the report was computed from (the scenario as it stands once it evaluates;
  /// the last one that did while lastError() is set).
  [[nodiscard]] const ScenarioSpec& reportSpec() const { return m_reportSpec; }
  /// What the report was computed from: the resolved scenario, its scheme assignments and the
  /// batches of its curves (meaningful while report() is set).
  [[nodiscard]] const Scenario& resolvedScenario() const { return m_resolved; }
  [[nodiscard]] const std::vector<SchemeAssignment>& assignments() const { return m_assignments; }
  [[nodiscard]] const std::vector<double>& batches() const { return m_batches; }
  /// Log-spaced batches per curve (plus every power of two in range); clamped to 16..65536.
  [[nodiscard]] int curvePoints() const { return m_curvePoints; }
  void setCurvePoints(int points);
  [[nodiscard]] QUndoStack* undoStack() const { return m_undo; }

  /// Replaces the whole session (open, new, example): no undo history, not an edit.
  void load(Session session);
  /// Replaces the scenario without an undo step and without it counting as an edit.
  void setScenario(const ScenarioSpec& spec);
  /// The user's scenario edit: one undo step ("change of GPU", ...) when it changes anything.
  /// The scenario is evaluated again in any case.
  void editScenario(const ScenarioSpec& spec);
  /// The user's choice of objectives and gates: one undo step when it changes them.
  void editSelection(const std::vector<Objective>& objectives,
                     const std::vector<std::string>& gates);
  /// An evidence edit (attach, detach, rename, hide, remove, add a deployment): `next` is the
  /// session after it; its candidates, run setups, hidden candidates, objectives and gates
  /// become one undo step named `text`.
  void commitEvidence(Session next, const QString& text);
  /// Changes that are not undone (runs imported, kernel records measured): `next` replaces the
  /// session; `parts` says what it changed. Counts as an edit.
  void replace(Session next, unsigned parts);
  /// What a view made of what it was given to show (a spin box's range, a list without the
  /// item): taken in place without an undo step and without counting as an edit. Called
  /// from a changed() handler, before the scenario is evaluated.
  void adoptShownScenario(const ScenarioSpec& spec);
  void adoptShownSelection(const std::vector<Objective>& objectives,
                           const std::vector<std::string>& gates);
  /// Evaluates the scenario again (changed(kReportPart) either way).
  void recompute();

  /// The `parts` (DocumentPart) of the state as it stands: what an undo step records.
  [[nodiscard]] State state(unsigned parts) const;
  /// Puts `parts` of `state` in place (undo and redo).
  void apply(const State& state, unsigned parts);

 signals:
  /// Something changed: `parts` is an OR of DocumentPart.
  void changed(unsigned parts);
  /// The user changed the session (an edit, an undo or redo, runs or records added): it now
  /// differs from what was saved.
  void edited();

 private:
  void push(State after, unsigned parts, const QString& text);
  /// The session, alone in its ownership (copied if a view still shares its candidates), with
  /// `candidates` in place of its own.
  Session& ownWith(std::vector<Candidate> candidates);

  std::shared_ptr<Session> m_session;
  std::shared_ptr<const std::vector<Candidate>> m_visible;  ///< with some hidden; null: not made
  std::optional<EngineReport> m_report;
  std::shared_ptr<const ReportIntervals> m_intervals;
  QString m_lastError;
  ScenarioSpec m_reportSpec;
  Scenario m_resolved;
  std::vector<SchemeAssignment> m_assignments;
  std::vector<double> m_batches;
  int m_curvePoints = 400;
  QUndoStack* m_undo = nullptr;
};

/// What changed between two states, for the Edit menu ("change of GPU").
QString describeEdit(const Document::State& before, const Document::State& after);

}  // namespace qf::ui
