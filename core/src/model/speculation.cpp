// Speculative decoding over the serving model's step times (docs/model.md, "Speculative
// decoding").
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/model/speculation.hpp>

#include <algorithm>
#include <cmath>
#include <memory>

namespace qf {

std::optional<Error> validateSpeculation(const Speculation& s) {
  if (s.draftTokens < 1 || s.draftTokens > kMaxDraftTokens) {
    return Error{"", "", "spec-k",
                 "draft tokens per step must be from 1 to " + std::to_string(kMaxDraftTokens) +
                     ", found " + std::to_string(s.draftTokens) +
                     " (at 16 or more the verify pass is a prefill)"};
  }
  if (!(s.acceptance > 0.0 && s.acceptance <= 1.0)) {
    return Error{"", "", "spec-acceptance",
                 "the acceptance rate must be in (0, 1], found " + sigFigs(s.acceptance, 6)};
  }
  return std::nullopt;
}

double expectedTokensPerStep(const Speculation& s) {
  const double k1 = static_cast<double>(s.draftTokens) + 1.0;
  if (s.acceptance >= 1.0) return k1;
  return (1.0 - std::pow(s.acceptance, k1)) / (1.0 - s.acceptance);
}

std::optional<double> acceptanceForTokensPerStep(double tau, int k) {
  if (k < 1 || !(tau > 1.0) || !(tau <= k + 1.0)) return std::nullopt;
  double lo = 0.0, hi = 1.0;  // τ rises with α, from 1 at α = 0 to k + 1 at α = 1
  for (int i = 0; i < 200 && hi - lo > 1e-12; ++i) {
    const double mid = 0.5 * (lo + hi);
    (expectedTokensPerStep(Speculation{k, mid}) < tau ? lo : hi) = mid;
  }
  return hi;
}

namespace {

double passOf(const StepTimeModel& m, double tokens) {
  if (tokens <= 0) return 0.0;
  return m.passS ? m.passS(tokens) : m.decodeStepS(tokens, 0.0);
}

}  // namespace

double speculativeStepS(const StepTimeModel& target, const SpeculativeDraft& draft,
                        const Speculation& s, double batch, double context) {
  if (batch <= 0) return 0.0;
  const double k = static_cast<double>(s.draftTokens);
  // The verify pass: GEMMs over every proposed position, attention once per sequence.
  const double verify = passOf(target, batch * (k + 1.0)) +
                        (target.decodeStepS(batch, context) - target.decodeStepS(batch, 0.0));
  // The draft proposes its k tokens one step at a time.
  const double drafting = draft.scale * k * draft.steps.decodeStepS(batch, context);
  return verify + drafting;
}

StepTimeModel speculativeSteps(const StepTimeModel& target, const SpeculativeDraft& draft,
                               const Speculation& s) {
  const double tau = expectedTokensPerStep(s);
  StepTimeModel out;
  out.requestOverheadS = target.requestOverheadS;
  out.decodeTokensPerSeq = target.decodeTokensPerSeq * (static_cast<double>(s.draftTokens) + 1);
  out.decodeStepS = [target, draft, s, tau](double batch, double context) {
    return speculativeStepS(target, draft, s, batch, context) / tau;
  };
  out.passS = [target](double tokens) { return passOf(target, tokens); };
  out.prefillS = [target, draft](double tokens, double context) {
    return target.prefillS(tokens, context) + draft.scale * draft.steps.prefillS(tokens, context);
  };
  return out;
}

Result<EngineServing> speculativeServing(const EngineServing& target, const SpeculativeDraft& draft,
                                         const Speculation& s) {
  if (auto e = validateSpeculation(s)) return *e;
  if (!(target.kvCapacityTokens > 0))
    return Error{"", "", "gpu",
                 "the target's weights leave no room for the KV cache, before any draft"};
  EngineServing out = target;
  out.steps = speculativeSteps(target.steps, draft, s);
  const double gib = 1024.0 * 1024.0 * 1024.0;
  const double targetBytes = target.kvCapacityTokens * target.kvGroupBytesPerToken;
  const double freeBytes = targetBytes - draft.weightsGib * gib;
  const double perToken = target.kvGroupBytesPerToken + draft.kvBytesPerToken;
  if (!(freeBytes > 0) || !(perToken > 0)) {
    return Error{"", "", "spec-draft",
                 "the draft (" + draft.label + ", " + sigFigs(draft.weightsGib, 6) +
                     " GiB of weights) leaves no room for the KV cache beside the target's "
                     "weights"};
  }
  out.kvCapacityTokens = freeBytes / perToken;
  return out;
}

SpeculativeDraft mtpDraft(const EngineServing& target, int layers, int tp) {
  SpeculativeDraft d;
  const double l = layers > 0 ? static_cast<double>(layers) : 1.0;
  d.steps = target.steps;
  d.scale = 1.0 / l;
  d.weightsGib = target.capacity.weightsGib * static_cast<double>(tp) / l;
  d.kvBytesPerToken = target.kvGroupBytesPerToken / l;
  d.label = "mtp";
  return d;
}

SpeculativeDraft modelDraft(const EngineServing& draft, const std::string& id, int tp) {
  SpeculativeDraft d;
  d.steps = draft.steps;
  d.weightsGib = draft.capacity.weightsGib * static_cast<double>(tp);
  d.kvBytesPerToken = draft.kvGroupBytesPerToken;
  d.label = id;
  return d;
}

DraftForScheme draftPerScheme(const std::optional<SpeculativeDraft>& model, double layers) {
  const double l = std::max(1.0, layers);
  return [model, l](std::size_t, const StepTimeModel& target) {
    if (model) return *model;
    SpeculativeDraft d;
    d.steps = target;
    d.scale = 1.0 / l;
    d.label = "mtp";
    return d;
  };
}

StepTimeModel curveSteps(const StepCurve& curve) {
  auto c = std::make_shared<const StepCurve>(curve);
  StepTimeModel m;
  m.decodeStepS = [c](double batch, double context) {
    return batch > 0 ? c->decodeStepSeconds(batch, context) : 0.0;
  };
  m.prefillS = [](double, double) { return 0.0; };
  return m;
}

SpeculativeCurves speculativeCurves(const EngineReport& rep, const Speculation& s,
                                    const DraftForScheme& draftFor) {
  SpeculativeCurves out;
  out.tokensPerStep = expectedTokensPerStep(s);
  const double tau = out.tokensPerStep;
  const double context = static_cast<double>(rep.scenario.contextTokens);
  std::vector<StepTimeModel> targets;
  std::vector<SpeculativeDraft> drafts;
  double bMin = 0, bMax = 0;
  for (std::size_t i = 0; i < rep.schemes.size(); ++i) {
    targets.push_back(curveSteps(rep.schemes[i].curve));
    drafts.push_back(draftFor(i, targets.back()));
    std::vector<double> perToken;
    for (const auto& p : rep.schemes[i].points) {
      perToken.push_back(speculativeStepS(targets[i], drafts[i], s, p.batch, context) / tau);
      bMin = bMin > 0 ? std::min(bMin, p.batch) : p.batch;
      bMax = std::max(bMax, p.batch);
    }
    out.perTokenS.push_back(std::move(perToken));
  }
  if (!(bMax > bMin)) return out;
  // Sign changes of the difference on a log grid, each placed by bisection.
  auto at = [&](std::size_t i, double b) {
    return speculativeStepS(targets[i], drafts[i], s, b, context);
  };
  constexpr int kGrid = 512;
  const double ratio = std::log(bMax / bMin) / kGrid;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    for (std::size_t j = i + 1; j < targets.size(); ++j) {
      double lo = bMin;
      double dLo = at(i, lo) - at(j, lo);
      for (int g = 1; g <= kGrid; ++g) {
        const double hi = bMin * std::exp(ratio * g);
        const double dHi = at(i, hi) - at(j, hi);
        if (dLo != 0 && dHi != 0 && (dLo < 0) != (dHi < 0)) {
          double a = lo, b = hi;
          for (int it = 0; it < 60; ++it) {
            const double m = 0.5 * (a + b);
            const double dm = at(i, m) - at(j, m);
            ((dm < 0) == (dLo < 0) ? a : b) = m;
          }
          CrossoverReport cr;
          cr.schemes = {rep.schemes[i].assignment.id, rep.schemes[j].assignment.id};
          cr.batch = 0.5 * (a + b);
          cr.fasterBelow = dLo < 0 ? cr.schemes[0] : cr.schemes[1];
          out.crossovers.push_back(std::move(cr));
        }
        lo = hi;
        dLo = dHi;
      }
    }
  }
  std::sort(out.crossovers.begin(), out.crossovers.end(),
            [](const CrossoverReport& x, const CrossoverReport& y) { return x.batch < y.batch; });
  return out;
}

}  // namespace qf
