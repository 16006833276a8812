// Disaggregated prefill and decode (disaggregated.hpp; docs/model.md).
#include <quantfront/core/analysis/disaggregated.hpp>

#include <quantfront/core/base/root_bracket.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace qf {

namespace {

PrefillRates prefillRates(const DisaggPools& p, const ServingWorkload& w) {
  return prefillRates(*p.prefill, p.prefillBudget, w);
}

/// A decode replica's step at `n` running sequences (mean context: the prompt and half the
/// output).
double decodeStep(const DisaggPools& p, const ServingWorkload& w, double n) {
  return p.decode->decodeStepS(n, w.inputTokens + w.outputTokens / 2);
}

/// The most sequences a decode replica runs: its batch cap, or what its KV holds.
double decodeMax(const DisaggPools& p, const ServingWorkload& w, bool* kvBound) {
  const double byKv =
      std::floor(p.decodeLimits.kvCapacityTokens / (w.inputTokens + w.outputTokens));
  const double cap = static_cast<double>(p.decodeLimits.maxBatch);
  if (kvBound) *kvBound = byKv < cap;
  return std::max(0.0, std::min(cap, byKv));
}

/// Requests per second a decode replica completes at `n` sequences (O − 1 steps each; the
/// first token came from the prefill pool).
double decodeRate(const DisaggPools& p, const ServingWorkload& w, double n) {
  const double steps = std::max(w.outputTokens - 1, 0.0);
  if (steps == 0) return std::numeric_limits<double>::infinity();
  return n / (steps * decodeStep(p, w, n));
}

/// The concurrency at which a decode replica completes `rate` requests per second, to 1e-12
/// of it: the completion rate rises with the sequences run, so the root stays bracketed;
/// false position with the Illinois step (the end that stays has its value halved) takes a
/// handful of step evaluations where bisection took 60. The bracket's upper end is returned
/// (a concurrency that completes at least `rate`).
double decodeConcurrencyAt(const DisaggPools& p, const ServingWorkload& w, double rate,
                           double nMax) {
  const double fHi = decodeRate(p, w, nMax) - rate;
  if (!(fHi > 0)) return nMax;
  return illinoisBracket([&](double n) { return decodeRate(p, w, n) - rate; }, 0.0, nMax, -rate,
                         fHi, 1e-12, 200)
      .hi;
}

/// A TPOT from a decode replica's step: the step plus one request's KV transfer spread over
/// its later tokens.
double tpotFromStep(const DisaggPools& p, const ServingWorkload& w, double step) {
  return step + p.kvTransferS / std::max(w.outputTokens - 1, 1.0);
}

double tpotWith(const DisaggPools& p, const ServingWorkload& w, double n) {
  return tpotFromStep(p, w, decodeStep(p, w, std::max(n, 1.0)));
}

/// decodeStep at one sequence is the decode side's stepAtOne: the same sum.
double tpotAtOne(const DisaggPools& p, const ServingWorkload& w, const DecodeSide& d) {
  return tpotFromStep(p, w, d.stepAtOne);
}

}  // namespace

PrefillRates prefillRates(const StepTimeModel& m, double budget, const ServingWorkload& w) {
  const double I = w.inputTokens;
  PrefillRates r;
  r.aloneS = m.prefillS(I, 0);
  if (budget >= I) {
    // Whole prompts share a step: as many as the budget holds.
    const double k = std::floor(budget / I);
    r.perReplica = k / mixedStepS(m, 0, 0, k * I, 0, k);
  } else {
    // A prompt in chunks of the budget, each over the half-prompt already cached on average.
    const double chunks = std::ceil(I / budget);
    r.perReplica = 1.0 / (chunks * mixedStepS(m, 0, 0, budget, I / 2, 1));
  }
  return r;
}

double kvTransferS(const GpuSpec& gpu, double groupBytesPerToken, double tokens, int prefillTp,
                   int decodeTp, int totalGpus, bool sameGpu) {
  const double bytes = groupBytesPerToken * tokens;
  const int lanes = std::max(1, std::min(prefillTp, decodeTp));
  const bool oneNode =
      sameGpu && totalGpus <= gpu.nvlinkDomainGpus && gpu.nvlinkGBps && *gpu.nvlinkGBps > 0;
  const double perLane = oneNode ? *gpu.nvlinkGBps * 1e9 / 2 : gpu.networkGBps * 1e9;
  return bytes / (perLane * lanes);
}

DecodeSide decodeSide(const DisaggPools& p, const ServingWorkload& w) {
  DecodeSide d;
  d.nMax = decodeMax(p, w, &d.kvBound);
  if (d.nMax >= 1) d.rateMax = decodeRate(p, w, d.nMax) * p.decodeReplicas;
  d.stepAtOne = decodeStep(p, w, 1.0);
  return d;
}

PairBoundsParts pairBoundsParts(const DisaggPools& p, const ServingWorkload& w,
                                const PrefillRates& pr) {
  const double gaps = std::max(w.outputTokens - 1, 1.0);
  return {pr.perReplica * p.prefillReplicas, p.prefill->requestOverheadS + pr.aloneS,
          p.kvTransferS / gaps};
}

DisaggBounds disaggBounds(const PairBoundsParts& pp, const DecodeSide& d) {
  DisaggBounds b;
  if (d.nMax >= 1) b.maxRequestsPerS = std::min(pp.prefillRate, d.rateMax);
  b.minTtftS = pp.minTtftS;
  b.minTpotS = d.stepAtOne + pp.kvPerGapS;  // tpotAtOne
  return b;
}

DisaggBounds disaggBounds(const DisaggPools& p, const ServingWorkload& w, const PrefillRates& pr,
                          const DecodeSide& d) {
  return disaggBounds(pairBoundsParts(p, w, pr), d);
}

namespace {

/// disaggTpotAtLeast's decode step: at the least concurrency that completes `requestsPerS`
/// over the pool's replicas, n = r·(O − 1)·t(1), at most nMax (one sequence's below 1).
double leastStepAt(const DisaggPools& p, const ServingWorkload& w, double requestsPerS,
                   const DecodeSide& d) {
  const double steps = std::max(w.outputTokens - 1, 0.0);
  const double n = requestsPerS / p.decodeReplicas * steps * d.stepAtOne;
  return n > 1 ? decodeStep(p, w, std::max(std::min(n, d.nMax), 1.0)) : d.stepAtOne;
}

}  // namespace

void keepTpotBoundAt(DecodeSide& d, const DisaggPools& p, const ServingWorkload& w,
                     double requestsPerS) {
  d.boundRate = requestsPerS;
  d.stepAtBoundRate = leastStepAt(p, w, requestsPerS, d);
}

void keepStateAt(DecodeSide& d, const DisaggPools& p, const ServingWorkload& w,
                 double requestsPerS) {
  d.stateRate = requestsPerS;
  d.concurrencyAtRate = decodeConcurrencyAt(p, w, requestsPerS / p.decodeReplicas, d.nMax);
  d.stepAtRate = decodeStep(p, w, std::max(d.concurrencyAtRate, 1.0));
}

double disaggTpotAtLeast(const DisaggPools& p, const ServingWorkload& w, double requestsPerS,
                         const DecodeSide& d) {
  return tpotFromStep(
      p, w, d.keeps(requestsPerS) ? d.stepAtBoundRate : leastStepAt(p, w, requestsPerS, d));
}

namespace {

/// disaggSaturated's rate and binding limit (stable false, and the limit, where the decode
/// pool holds no sequence), without the concurrency: what disaggAtRate needs of it.
DisaggState saturatedRate(const DisaggPools& p, const PrefillRates& pr, const DecodeSide& d) {
  DisaggState s;
  if (!(d.nMax >= 1)) {
    s.stable = false;
    s.bindingLimit = "KV cache";
    return s;
  }
  const double prefillRate = pr.perReplica * p.prefillReplicas;
  s.requestsPerS = std::min(prefillRate, d.rateMax);
  s.bindingLimit =
      prefillRate < d.rateMax ? "prefill pool" : (d.kvBound ? "KV cache" : "batch cap");
  return s;
}

}  // namespace

DisaggState disaggSaturated(const DisaggPools& p, const ServingWorkload& w, const PrefillRates& pr,
                            const DecodeSide& d) {
  DisaggState s = saturatedRate(p, pr, d);
  if (!s.stable) return s;
  const double nMax = d.nMax;
  const double prefillRate = pr.perReplica * p.prefillReplicas;
  const double decodeRateMax = d.rateMax;
  s.decodeConcurrency = prefillRate < decodeRateMax
                            ? decodeConcurrencyAt(p, w, s.requestsPerS / p.decodeReplicas, nMax)
                            : nMax;
  s.outputTokPerS = s.requestsPerS * w.outputTokens;
  // At saturation the queue is unbounded: TTFT is the prefill from admission, as the
  // aggregated model gives it.
  s.ttftS = p.prefill->requestOverheadS + pr.aloneS;
  s.tpotS = s.decodeConcurrency > 1 ? tpotWith(p, w, s.decodeConcurrency) : tpotAtOne(p, w, d);
  return s;
}

DisaggState disaggSaturated(const DisaggPools& p, const ServingWorkload& w) {
  return disaggSaturated(p, w, prefillRates(p, w), decodeSide(p, w));
}

DisaggState disaggAtRate(const DisaggPools& p, const ServingWorkload& w, double requestsPerS,
                         const PrefillRates& pr, const DecodeSide& d) {
  const DisaggState sat = saturatedRate(p, pr, d);
  DisaggState s;
  if (!sat.stable || !(requestsPerS < sat.requestsPerS)) {
    s.stable = false;
    s.bindingLimit = sat.bindingLimit;
    s.ttftS = std::numeric_limits<double>::infinity();
    return s;
  }
  // The prefill pool as an M/D/1 queue per replica (service: a full budget's share).
  const double mu = pr.perReplica;
  const double rho = requestsPerS / p.prefillReplicas / mu;
  const double waitS = rho / (2 * mu * (1 - rho));
  s.requestsPerS = requestsPerS;
  s.outputTokPerS = requestsPerS * w.outputTokens;
  s.ttftS = p.prefill->requestOverheadS + waitS + pr.aloneS;
  const bool kept = d.keepsStateAt(requestsPerS);
  s.decodeConcurrency = kept ? d.concurrencyAtRate
                             : decodeConcurrencyAt(p, w, requestsPerS / p.decodeReplicas, d.nMax);
  s.tpotS = s.decodeConcurrency <= 1 ? tpotAtOne(p, w, d)
            : kept                   ? tpotFromStep(p, w, d.stepAtRate)
                                     : tpotWith(p, w, s.decodeConcurrency);
  s.bindingLimit = sat.bindingLimit;
  return s;
}

DisaggState disaggAtRate(const DisaggPools& p, const ServingWorkload& w, double requestsPerS) {
  return disaggAtRate(p, w, requestsPerS, prefillRates(p, w), decodeSide(p, w));
}

DisaggState disaggSynchronous(const DisaggPools& p, const ServingWorkload& w,
                              const PrefillRates& pr, const DecodeSide& d) {
  DisaggState s;
  if (!(d.nMax >= 1)) {
    s.stable = false;
    s.bindingLimit = "KV cache";
    return s;
  }
  s.ttftS = p.prefill->requestOverheadS + pr.aloneS;
  s.decodeConcurrency = 1;
  s.tpotS = tpotAtOne(p, w, d);
  const double e2e = s.ttftS + std::max(w.outputTokens - 1, 0.0) * s.tpotS;
  s.requestsPerS = 1 / e2e;
  s.outputTokPerS = s.requestsPerS * w.outputTokens;
  s.bindingLimit = "one request at a time";
  return s;
}

DisaggState disaggSynchronous(const DisaggPools& p, const ServingWorkload& w) {
  return disaggSynchronous(p, w, prefillRates(p, w), decodeSide(p, w));
}

}  // namespace qf
