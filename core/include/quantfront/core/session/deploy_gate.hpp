#pragma once
/// Quality gates for the deployment search: a configuration passes when the session holds a
/// candidate of the searched model with the same scheme per layer kind that passes every gate
/// (qfront search --gate ... --session S).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/analysis/deploy_search.hpp>
#include <quantfront/core/analysis/frontier.hpp>
#include <quantfront/core/session/session.hpp>

namespace qf {

struct DeployGate {
  /// True for a configuration whose scheme assignment a passing candidate has.
  std::function<bool(const DeployConfig&)> passes;
  std::vector<std::string> passingSchemes;  ///< DeployConfig::schemeId() of each
  /// Per candidate of the model that does not pass: "id: gate: reason"; and schemes the
  /// session has no candidate for are not searched (they cannot be gated).
  std::vector<std::string> notes;
};

/// The gate for `modelId` from the session's candidates of that model (catalog ids compared).
/// A candidate passes when every gate passes on its whole interval; an undecided one is evidence
/// against its scheme, as a failing one is. A candidate that lacks a gated metric is no evidence
/// either way: its scheme passes on its other candidates, and a scheme with only such
/// candidates is not passing (named in notes). Baseline-relative gates use `baselineId`, else
/// the model's bf16 candidate. Errors: no candidate of the model, a gated metric none of them
/// carries, a baseline of another model, or what computeFrontier refuses (a baseline gate
/// without a baseline, a baseline lacking the metric).
Result<DeployGate> deployGateFromSession(const Session& s, const std::string& modelId,
                                         const std::vector<Gate>& gates,
                                         const std::optional<std::string>& baselineId,
                                         const Catalog& cat = Catalog::bundled());

}  // namespace qf
