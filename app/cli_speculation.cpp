// --spec-k / --spec-acceptance / --spec-draft for qfront serving and qfront model
// (docs/model.md, "Speculative decoding").
#include "cli_speculation.hpp"

#include "cli.hpp"

namespace qf::cli {

std::optional<Speculation> speculationOption(const SpeculationArgs& a, std::ostream& err, int& rc) {
  if (!a.any()) return std::nullopt;
  if (!a.k || !a.acceptance || !a.draft) {
    rc = badArg(err,
                !a.k            ? "spec-k"
                : !a.acceptance ? "spec-acceptance"
                                : "spec-draft",
                "--spec-k, --spec-acceptance and --spec-draft go together");
    return std::nullopt;
  }
  Speculation sp;
  const auto k = parseInt(*a.k);
  if (!k || *k < 1 || *k > kMaxDraftTokens) {
    rc = badArg(err, "spec-k",
                "expected an integer from 1 to " + std::to_string(kMaxDraftTokens) +
                    " draft tokens, found '" + *a.k + "'");
    return std::nullopt;
  }
  sp.draftTokens = static_cast<int>(*k);
  const auto alpha = parseNumber(*a.acceptance);
  if (!alpha || !(*alpha > 0 && *alpha <= 1)) {
    rc = badArg(err, "spec-acceptance",
                "expected an acceptance rate in (0, 1], found '" + *a.acceptance + "'");
    return std::nullopt;
  }
  sp.acceptance = *alpha;
  return sp;
}

std::optional<SpeculativeDraft> draftModel(const ScenarioSpec& spec, const Scenario& target,
                                           const std::string& draftId, std::ostream& err, int& rc) {
  ScenarioSpec ds = spec;
  ds.model = draftId;
  auto scen = resolveScenario(ds);
  if (!scen) {
    rc = badInput(err, scen.error());
    return std::nullopt;
  }
  if (scen->model.id == target.model.id) {
    rc = badArg(err, "spec-draft", "the draft '" + draftId + "' is the target model itself");
    return std::nullopt;
  }
  // The draft runs on the target's GPUs with the target's constants (any --overhead-ms and
  // friends the command took) and memory rule.
  scen->contextTokens = target.contextTokens;
  scen->efficiency = target.efficiency;
  scen->kvFreeFraction = target.kvFreeFraction;
  auto cands = makeCandidates({"bf16"}, "", "", "");
  if (!cands) {
    rc = badInput(err, cands.error());
    return std::nullopt;
  }
  auto eng = engineServing(*scen, cands->front());
  if (!eng) {
    rc = badInput(err, eng.error());
    return std::nullopt;
  }
  return modelDraft(*eng, scen->model.id, spec.tp);
}

}  // namespace qf::cli
