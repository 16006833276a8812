// Quality gates of the deployment search from a session's candidates (deploy_gate.hpp).
#include <quantfront/core/base/text.hpp>
#include <quantfront/core/session/attach_runs.hpp>
#include <quantfront/core/session/deploy_gate.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

namespace qf {

namespace {

/// The schemes a candidate runs per kind (an empty one inherits the linear scheme).
struct Assignment {
  std::string linear, moe, lmHead;
  bool operator==(const Assignment&) const = default;
};

Assignment assignmentOf(const Candidate& c) {
  const std::string& base = Catalog::bundled().baselineSchemeId();
  Assignment a{asciiLower(c.schemeLinear.empty() ? base : c.schemeLinear), asciiLower(c.schemeMoe),
               asciiLower(c.schemeLmHead)};
  if (a.moe.empty()) a.moe = a.linear;
  if (a.lmHead.empty()) a.lmHead = a.linear;
  return a;
}

Assignment assignmentOf(const DeployConfig& c) {
  Assignment a{asciiLower(c.linear), asciiLower(c.moe), asciiLower(c.lmHead)};
  if (a.moe.empty()) a.moe = a.linear;
  if (a.lmHead.empty()) a.lmHead = a.linear;
  return a;
}

/// DeployConfig::schemeId()'s spelling of an assignment.
std::string label(const Assignment& a) {
  return a.moe == a.linear && a.lmHead == a.linear
             ? a.linear
             : "linear=" + a.linear + ",moe=" + a.moe + ",lm_head=" + a.lmHead;
}

}  // namespace

Result<DeployGate> deployGateFromSession(const Session& s, const std::string& modelId,
                                         const std::vector<Gate>& gates,
                                         const std::optional<std::string>& baselineId,
                                         const Catalog& cat) {
  const std::string want = asciiLower(modelId);
  std::vector<Candidate> ofModel;
  for (const auto& c : s.candidates) {
    const std::string id = catalogModelFromName(c.model, cat);
    if (asciiLower(id.empty() ? c.model : id) == want) ofModel.push_back(c);
  }
  if (ofModel.empty()) {
    return Error{"", "", "session",
                 "no candidate of model '" + modelId + "' in the session to gate the search on"};
  }
  // A gate on a metric no candidate of the model carries is a typo or the wrong session, not
  // a search with nothing to keep.
  for (const auto& g : gates) {
    const bool carried = std::any_of(ofModel.begin(), ofModel.end(), [&](const Candidate& c) {
      const auto it = c.metrics.find(g.metric);
      return it != c.metrics.end() && std::isfinite(it->second.value);
    });
    if (!carried) {
      std::string known;
      for (const auto& [name, v] : ofModel.front().metrics)
        known += (known.empty() ? "" : ", ") + name;
      return Error{"", "", "gate",
                   "no candidate of model '" + modelId + "' carries metric '" + g.metric +
                       "' (candidate '" + ofModel.front().id + "' has: " + known + ")"};
    }
  }
  FrontierOptions fo;
  // The gates' metrics as objectives: gating comes first and needs them anyway.
  for (const auto& g : gates) {
    const Objective o{g.metric, knownDirection(g.metric).value_or(Direction::Max)};
    if (std::find(fo.objectives.begin(), fo.objectives.end(), o) == fo.objectives.end()) {
      fo.objectives.push_back(o);
    }
  }
  if (fo.objectives.empty()) return Error{"", "", "gate", "give at least one gate"};
  // A relative gate measured against another model's candidate compares two models' scores.
  if (baselineId) {
    const auto it = std::find_if(s.candidates.begin(), s.candidates.end(),
                                 [&](const Candidate& c) { return c.id == *baselineId; });
    if (it != s.candidates.end() &&
        std::none_of(ofModel.begin(), ofModel.end(),
                     [&](const Candidate& c) { return c.id == *baselineId; })) {
      return Error{"", "", "baseline",
                   "baseline '" + *baselineId + "' is a candidate of another model (" + it->model +
                       "), not of '" + modelId + "': relative gates compare one model's schemes"};
    }
  }
  fo.withDominators = false;
  fo.gates = gates;
  fo.baselinePool = &s.candidates;
  fo.baselineId = baselineId;
  if (!fo.baselineId) {
    for (const auto& c : ofModel) {
      const std::string base = asciiLower(Catalog::bundled().baselineSchemeId());
      if (assignmentOf(c) == Assignment{base, base, base}) fo.baselineId = c.id;
    }
  }
  auto fr = computeFrontier(ofModel, fo);
  if (!fr) return fr.error();
  // Gated out or undecided is evidence against a scheme; a candidate that lacks a gated
  // metric (a modelled deployment added as a candidate, say) is no evidence either way.
  std::set<std::string> failing, unscored;
  DeployGate out;
  for (const auto* list : {&fr->gatedOut, &fr->undecided, &fr->notScored}) {
    for (const auto& g : *list) {
      (list == &fr->notScored ? unscored : failing).insert(g.id);
      out.notes.push_back(g.id + ": " + g.gate + ": " + g.reason);
    }
  }
  // An assignment passes when a candidate with it passes and none with it fails: evidence
  // against a scheme is not outvoted by evidence for it.
  std::vector<Assignment> failed;
  for (const auto& c : ofModel) {
    if (failing.count(c.id)) failed.push_back(assignmentOf(c));
  }
  std::vector<Assignment> passing;
  for (const auto& c : ofModel) {
    if (failing.count(c.id) || unscored.count(c.id)) continue;
    const Assignment a = assignmentOf(c);
    if (std::find(failed.begin(), failed.end(), a) != failed.end()) continue;
    if (std::find(passing.begin(), passing.end(), a) != passing.end()) continue;
    passing.push_back(a);
    out.passingSchemes.push_back(label(a));
  }
  // A scheme whose every candidate lacks a gated metric is not passing: say so once.
  std::vector<Assignment> named;
  for (const auto& c : ofModel) {
    const Assignment a = assignmentOf(c);
    if (!unscored.count(c.id) || std::find(passing.begin(), passing.end(), a) != passing.end() ||
        std::find(failed.begin(), failed.end(), a) != failed.end() ||
        std::find(named.begin(), named.end(), a) != named.end()) {
      continue;
    }
    named.push_back(a);
    std::string metrics;
    for (const auto& g : gates) {
      if (metrics.find(g.metric) == std::string::npos)
        metrics += (metrics.empty() ? "" : ", ") + g.metric;
    }
    out.notes.push_back(label(a) + ": no candidate of this scheme carries " + metrics +
                        ": not passing (no evidence)");
  }
  out.passes = [passing](const DeployConfig& c) {
    return std::find(passing.begin(), passing.end(), assignmentOf(c)) != passing.end();
  };
  return out;
}

}  // namespace qf
