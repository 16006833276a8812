// The window's document (document.hpp): the session, the report of its scenario and one undo
// stack for every edit.
#include <quantfront/ui/document.hpp>

#include <QUndoCommand>
#include <QUndoStack>
#include <algorithm>
#include <utility>

#include <quantfront/core/session/evidence_edit.hpp>

#include "window_internal.hpp"

namespace qf::ui {

namespace {

/// One undoable step: the parts it changed, before and after.
class DocumentCommand : public QUndoCommand {
 public:
  DocumentCommand(Document* doc, Document::State before, Document::State after, unsigned parts,
                  const QString& text)
      : QUndoCommand(text),
        m_doc(doc),
        m_before(std::move(before)),
        m_after(std::move(after)),
        m_parts(parts) {}
  void undo() override { m_doc->apply(m_before, m_parts); }
  void redo() override { m_doc->apply(m_after, m_parts); }

 private:
  Document* m_doc;
  Document::State m_before, m_after;
  unsigned m_parts;
};

}  // namespace

QString describeEdit(const Document::State& a, const Document::State& b) {
  const ScenarioSpec &x = a.spec, &y = b.spec;
  if (x.model != y.model) return "change of model";
  if (x.gpu != y.gpu || x.gpuSpec != y.gpuSpec) return "change of GPU";
  if (x.tp != y.tp) return "change of GPU count";
  if (x.schemes != y.schemes || x.mixedLinear != y.mixedLinear || x.mixedMoe != y.mixedMoe ||
      x.mixedLmHead != y.mixedLmHead) {
    return "change of schemes";
  }
  if (a.gates != b.gates) return "change of gates";
  if (x != y) return "change of serving settings";
  return "change of objectives";
}

Document::Document(QObject* parent)
    : QObject(parent), m_session(std::make_shared<Session>()), m_undo(new QUndoStack(this)) {}

Document::~Document() = default;

Session& Document::ownWith(std::vector<Candidate> candidates) {
  // A view holding the candidates (an analysis on a worker) keeps the session it was given;
  // the edit goes to a copy, made without the candidates it replaces (a 10^5-candidate
  // session's list was copied, then overwritten). Edits of other parts while shared are safe
  // in place: a view reads nothing of the session but its candidates.
  if (m_session.use_count() > 1) {
    const Session& s = *m_session;
    m_session = std::make_shared<Session>(
        Session{s.title, s.notes, s.scenario, std::move(candidates), s.importedRuns,
                s.kernelMeasurements, s.view, s.loadNotes, s.loadedVersion});
  } else {
    m_session->candidates = std::move(candidates);
  }
  return *m_session;
}

std::shared_ptr<const std::vector<Candidate>> Document::visibleCandidates() {
  if (m_session->view.hidden.empty()) {
    return {m_session, &m_session->candidates};  // the session's own list, shared
  }
  if (!m_visible) {
    m_visible = std::make_shared<const std::vector<Candidate>>(
        qf::visibleCandidates(m_session->candidates, m_session->view.hidden));
  }
  return m_visible;
}

void Document::setCurvePoints(int points) {
  m_curvePoints = std::clamp(points, 16, 65536);
  recompute();
}

Document::State Document::state(unsigned parts) const {
  State st;
  if (parts & kScenarioPart) st.spec = m_session->scenario;
  if (parts & kSelectionPart) {
    st.objectives = m_session->view.objectives;
    st.gates = m_session->view.gates;
  }
  // Candidates are copied only for an evidence step: a scenario edit's step stays small
  // however many candidates the session holds.
  if (parts & kEvidencePart) {
    st.candidates = m_session->candidates;
    for (const auto& r : m_session->importedRuns) st.runSetups[r.sha256] = r.setup;
    st.hidden = m_session->view.hidden;
  }
  return st;
}

void Document::apply(const State& st, unsigned parts) {
  if (parts & kScenarioPart) m_session->scenario = st.spec;
  if (parts & kSelectionPart) {
    m_session->view.objectives = st.objectives;
    m_session->view.gates = st.gates;
  }
  if (parts & kEvidencePart) {
    Session& s = ownWith(st.candidates);
    for (auto& r : s.importedRuns) {
      if (const auto it = st.runSetups.find(r.sha256); it != st.runSetups.end()) {
        r.setup = it->second;
      }
    }
    s.view.hidden = st.hidden;
    m_visible.reset();
  }
  emit changed(parts);
  if (parts & kScenarioPart) recompute();
  emit edited();
}

void Document::push(State after, unsigned parts, const QString& text) {
  // The command's first redo puts `after` in place.
  m_undo->push(new DocumentCommand(this, state(parts), std::move(after), parts, text));
}

void Document::load(Session session) {
  m_session = std::make_shared<Session>(std::move(session));
  m_visible.reset();
  m_undo->clear();
  emit changed(kWholeSession & ~kReportPart);
  recompute();
}

void Document::setScenario(const ScenarioSpec& spec) {
  m_session->scenario = spec;
  emit changed(kScenarioPart);
  recompute();
}

void Document::editScenario(const ScenarioSpec& spec) {
  if (spec == m_session->scenario) {
    recompute();
    return;
  }
  constexpr unsigned kParts = kScenarioPart | kSelectionPart;
  State after = state(kParts);
  after.spec = spec;
  const QString text = describeEdit(state(kParts), after);
  push(std::move(after), kParts, text);
}

void Document::editSelection(const std::vector<Objective>& objectives,
                             const std::vector<std::string>& gates) {
  if (objectives == m_session->view.objectives && gates == m_session->view.gates) return;
  constexpr unsigned kParts = kScenarioPart | kSelectionPart;
  State after = state(kParts);
  after.objectives = objectives;
  after.gates = gates;
  const QString text = describeEdit(state(kParts), after);
  push(std::move(after), kParts, text);
}

void Document::commitEvidence(Session next, const QString& text) {
  State after;
  after.candidates = std::move(next.candidates);
  for (const auto& r : next.importedRuns) after.runSetups[r.sha256] = r.setup;
  after.objectives = std::move(next.view.objectives);
  after.gates = std::move(next.view.gates);
  after.hidden = std::move(next.view.hidden);
  push(std::move(after), kEvidencePart | kSelectionPart, text);
}

void Document::adoptShownScenario(const ScenarioSpec& spec) {
  m_session->scenario = spec;
}

void Document::adoptShownSelection(const std::vector<Objective>& objectives,
                                   const std::vector<std::string>& gates) {
  m_session->view.objectives = objectives;
  m_session->view.gates = gates;
}

void Document::replace(Session next, unsigned parts) {
  m_session = std::make_shared<Session>(std::move(next));
  m_visible.reset();
  emit changed(parts);
  if (parts & kScenarioPart) recompute();
  emit edited();
}

void Document::recompute() {
  const ScenarioSpec& spec = m_session->scenario;
  auto fail = [this](const Error& e) {
    m_lastError = qs(e.str());
    emit changed(kReportPart);  // the last good report stays
  };
  auto scen = guarded("scenario", [&] { return resolveScenario(spec); });
  if (!scen) return fail(scen.error());
  auto c = makeCandidates(spec.schemes, spec.mixedLinear, spec.mixedMoe, spec.mixedLmHead);
  if (!c) return fail(c.error());
  std::vector<double> batches = logBatches(spec.batchMin, spec.batchMax, m_curvePoints);
  auto rep = guarded("scenario", [&] { return runEngine(*scen, *c, batches); });
  if (!rep) return fail(rep.error());
  m_lastError.clear();
  m_report = std::move(*rep);
  m_reportSpec = spec;
  m_resolved = std::move(*scen);
  m_assignments = std::move(*c);
  m_batches = std::move(batches);
  m_intervals = std::make_shared<const ReportIntervals>(
      reportIntervals(*m_report, spec.batchMin, spec.batchMax));
  emit changed(kReportPart);
}

}  // namespace qf::ui
