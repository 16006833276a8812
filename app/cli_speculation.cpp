// --spec-k / --spec-acceptance / --spec-draft for qfront serving and qfront model
// (docs/model.md, "Speculative decoding").
#include "cli_speculation.hpp"

#include <cmath>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/import/importers.hpp>

#include "cli.hpp"

namespace qf::cli {

namespace {

/// --spec-acceptance from:FILE: α from the mean accept length of the serving runs FILE holds
/// (SGLang bench_serving's accept_length), at the k asked for. False after printing an error.
bool acceptanceFromRun(const std::string& file, Speculation& sp, std::string* source,
                       std::ostream& err, int& rc) {
  auto rep = importFile(file);
  if (!rep) {
    rc = badInput(err, rep.error());
    return false;
  }
  double sum = 0;
  int runs = 0;
  for (const auto& run : rep->runs) {
    const auto it = run.metrics.find("accept_length_tokens");
    if (it == run.metrics.end() || !std::isfinite(it->second)) continue;
    sum += it->second;
    ++runs;
  }
  if (runs == 0) {
    rc = badInput(err, Error{file, "", "accept_length",
                             "no run of the file carries an accept length (SGLang bench_serving's "
                             "accept_length, written when the server speculates)"});
    return false;
  }
  const double tau = sum / runs;
  const auto alpha = acceptanceForTokensPerStep(tau, sp.draftTokens);
  if (!alpha) {
    rc = badInput(err, Error{file, "", "accept_length",
                             words("the mean accept length ", tau, " tokens a step is outside (1, ",
                                   sp.draftTokens + 1, "], what ", sp.draftTokens,
                                   " draft tokens can yield: give the --spec-k the runs were "
                                   "made with")});
    return false;
  }
  sp.acceptance = *alpha;
  if (source) {
    *source = words(file, ": accept length ", tau, " tokens a step (mean of ", runs, " run",
                    runs == 1 ? "" : "s", ")");
  }
  return true;
}

}  // namespace

Json acceptanceSourceJson(const std::string& source) {
  return source.empty() ? Json("given") : Json(source);
}

std::optional<Speculation> speculationOption(const SpeculationArgs& a, std::ostream& err, int& rc,
                                             std::string* acceptanceSource) {
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
  if (a.acceptance->rfind("from:", 0) == 0) {
    if (!acceptanceFromRun(a.acceptance->substr(5), sp, acceptanceSource, err, rc))
      return std::nullopt;
    return sp;
  }
  const auto alpha = parseNumber(*a.acceptance);
  if (!alpha || !(*alpha > 0 && *alpha <= 1)) {
    rc = badArg(err, "spec-acceptance",
                "expected an acceptance rate in (0, 1], found '" + *a.acceptance + "'");
    return std::nullopt;
  }
  sp.acceptance = *alpha;
  return sp;
}

std::optional<std::pair<Scenario, SchemeAssignment>> draftScenario(const ScenarioSpec& spec,
                                                                   const Scenario& target,
                                                                   const std::string& draftId,
                                                                   std::ostream& err, int& rc) {
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
  return std::pair{std::move(*scen), cands->front()};
}

std::optional<SpeculativeDraft> draftModel(const ScenarioSpec& spec, const Scenario& target,
                                           const std::string& draftId, std::ostream& err, int& rc) {
  const auto d = draftScenario(spec, target, draftId, err, rc);
  if (!d) return std::nullopt;
  auto eng = engineServing(d->first, d->second);
  if (!eng) {
    rc = badInput(err, eng.error());
    return std::nullopt;
  }
  return modelDraft(*eng, d->first.model.id, spec.tp);
}

}  // namespace qf::cli
