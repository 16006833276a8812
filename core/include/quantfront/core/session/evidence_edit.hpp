#pragma once
/// Taking evidence back: runs detached from the candidates they feed, candidates removed,
/// renamed and hidden. A candidate's measured figures are those of the runs attached to it
/// (attach_runs.hpp), so detaching a run removes every figure it gave — and every recovery
/// figure derived from it — and the report, the frontier and the Evidence tab list only what
/// is still attached. `qfront session` and the window's Evidence and Candidates tabs call these.
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/session/session.hpp>

namespace qf {

/// Removes from every candidate but `keepOn` the measured figures the runs with these SHA-256
/// digests gave, and the recovery figures derived against a baseline that lost a score.
/// Says which candidates lost figures (in session order) and how many.
struct DroppedFigures {
  std::vector<std::string> candidates;
  std::size_t figures = 0;
};
DroppedFigures dropFiguresOf(Session& s, const std::set<std::string>& digests,
                             const std::string& keepOn = {});

/// What detachRuns did.
struct DetachReport {
  std::size_t runsDetached = 0;         ///< runs that were attached to a candidate
  std::size_t figuresRemoved = 0;       ///< measured and derived figures removed
  std::vector<std::string> candidates;  ///< candidates that lost figures
  std::vector<std::string> warnings;    ///< from re-attaching what those candidates keep
};

/// Detaches the runs with these digests (or source file names) from their candidates: their
/// figures leave every candidate and the runs stay in the session, attached to none. A
/// candidate that keeps other runs gets their figures back (a sweep's next-lowest load, say).
/// Errors: a digest or file that names no run of the session (the session is then unchanged).
Result<DetachReport> detachRuns(Session& s, const std::vector<std::string>& runs,
                                const Catalog& cat = Catalog::bundled());

/// Removes candidate `id`; its runs stay in the session, attached to none, and recovery
/// figures derived against it go (and it leaves the hidden list). Errors: no such candidate.
std::optional<Error> removeCandidate(Session& s, const std::string& id);

/// Renames a candidate: its runs and its place in the hidden list follow it, and recovery
/// notes naming it as their baseline are updated. Errors: no such candidate; a new id that is
/// empty, has surrounding spaces or is taken.
std::optional<Error> renameCandidate(Session& s, const std::string& id, const std::string& newId);

/// Hides or shows a candidate (its id in or out of the view's `hidden` list): a hidden one
/// keeps its figures and runs but takes no part in the frontier, the plots or the report.
/// Errors: no such candidate.
std::optional<Error> setCandidateHidden(Session& s, const std::string& id, bool hidden);
/// True when the session's view hides candidate `id`.
bool isHidden(const Session& s, const std::string& id);

/// The session as the plots and the report show it: hidden candidates and the runs attached
/// to them left out.
Session withoutHidden(const Session& s);

/// The candidates whose ids are not in `hidden`, in session order.
std::vector<Candidate> visibleCandidates(const std::vector<Candidate>& all,
                                         const std::vector<std::string>& hidden);

}  // namespace qf
