#pragma once
/// Candidates from whatever file a user points at: a QuantFront session (its candidates and
/// saved view) or a CSV table. `qfront frontier` and the window read candidates through here.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/base/records.hpp>
#include <quantfront/core/session/session.hpp>

namespace qf {

/// Candidates, their metric names in order, and a session's saved view when there is one.
struct CandidateSource {
  std::vector<Candidate> candidates;     ///< a session's hidden candidates left out
  std::vector<std::string> hidden;       ///< ids of the session's hidden candidates
  std::vector<std::string> metricNames;  ///< CSV: column order; session: first-seen order
  std::optional<ViewState> view;         ///< a session's objectives, gates and axes
  std::string scenarioModel;             ///< a session's scenario model ("" for a CSV)
};

/// Reads `bytes` (named `label` in errors): a JSON object must be a session ("format":
/// "quantfront-session"), read exactly as opening a session reads it; anything else is a
/// CSV table with header `id,<metric>,...`. A JSON array is refused with a message.
Result<CandidateSource> parseCandidateSource(std::string_view bytes, const std::string& label);

/// readFileBytes (the session size limit) + parseCandidateSource.
Result<CandidateSource> readCandidateSource(const std::string& path);

}  // namespace qf
