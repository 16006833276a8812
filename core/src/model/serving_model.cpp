// Serving under load, analytic steady state (docs/model.md, "Serving under load").
#include <quantfront/core/model/serving_model.hpp>

#include <quantfront/core/base/root_bracket.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/core/model/catalog.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

namespace qf {

double mixedStepS(const StepTimeModel& m, double decodeSeqs, double decodeContext,
                  double prefillTokens, double prefillContext, double prefillChunks) {
  if (prefillTokens <= 0) return decodeSeqs > 0 ? m.decodeStepS(decodeSeqs, decodeContext) : 0.0;
  const double k = std::max(1.0, prefillChunks);
  const double chunk = prefillTokens / k;
  auto pass = [&m](double tokens) {
    return m.passS ? m.passS(tokens) : m.decodeStepS(tokens, 0.0);
  };
  const double decodeTokens = decodeSeqs * m.decodeTokensPerSeq;
  double t = pass(decodeTokens + prefillTokens);
  if (decodeSeqs > 0) t += m.decodeStepS(decodeSeqs, decodeContext) - pass(decodeTokens);
  return t + k * (m.prefillS(chunk, prefillContext) - pass(chunk));
}

Result<EngineServing> engineServing(const Scenario& s, const SchemeAssignment& cand) {
  Scenario base = s;
  base.contextTokens = 0;
  auto curve = buildStepCurve(base, countParams(s.model), cand);
  if (!curve) return curve.error();
  EngineServing out;
  out.capacity = computeCapacity(base, *curve);
  if (out.capacity.fits && out.capacity.kvBytesPerToken > 0) {
    const double freeBytes =
        (out.capacity.budgetGib - out.capacity.weightsGib) * 1024.0 * 1024.0 * 1024.0;
    // Every rank has freeBytes and holds 1/kvShards of each token's KV.
    out.kvCapacityTokens = freeBytes * kvShardsOf(s) / out.capacity.kvBytesPerToken;
  }
  out.kvGroupBytesPerToken =
      out.capacity.kvBytesPerToken * static_cast<double>(std::max(1, s.tp)) / kvShardsOf(s);
  auto c = std::make_shared<const StepCurve>(std::move(*curve));
  // A chunk of n prompt tokens after `context` cached ones: the engine's prefill of n tokens
  // plus each token's attention over the cached context (the causal part is in prefillSeconds).
  out.steps.prefillS = [c](double tokens, double context) {
    if (tokens <= 0) return 0.0;
    double t = c->prefillSeconds(1.0, tokens);
    if (context > 0) {
      const auto& k = c->token;
      t += k.attnMathS * (k.keptLayerTokensSum(context + 1.0, context + tokens) -
                          k.keptLayerTokensSum(1.0, tokens));
    }
    return t;
  };
  out.steps.decodeStepS = [c](double batch, double context) {
    return batch > 0 ? c->decodeStepSeconds(batch, context) : 0.0;
  };
  out.steps.requestOverheadS = s.efficiency.requestOverheadMs * 1e-3;
  return out;
}

std::optional<Error> validateServing(const ServingLimits& lim, const ServingWorkload& w) {
  auto bad = [](const char* field, const std::string& msg) {
    return std::optional<Error>(Error{"", "", field, msg});
  };
  if (!(w.inputTokens >= 1) || !std::isfinite(w.inputTokens))
    return bad("input-len", "must be at least 1 token");
  if (!(w.outputTokens >= 1) || !std::isfinite(w.outputTokens))
    return bad("output-len", "must be at least 1 token");
  if (lim.maxBatch < 1) return bad("max-batch", "must be at least 1");
  if (!(lim.tokenBudget >= 1) || !std::isfinite(lim.tokenBudget))
    return bad("token-budget", "must be at least 1 token");
  if (lim.tokenBudget < lim.maxBatch)
    return bad("token-budget",
               "must be at least the batch cap (every running sequence decodes "
               "one token per step)");
  if (!(lim.kvCapacityTokens > 0)) return bad("kv-capacity", "must be positive");
  return std::nullopt;
}

namespace {

/// One scheduler's defaults (the table in engineAdmissionDefaults' comment).
AdmissionDefaults schedulerDefaults(const std::string& engine, const GpuSpec& gpu, double kvTokens,
                                    double contextTokens) {
  const std::string e = asciiLower(engine);
  AdmissionDefaults d;
  if (engineConstantsKey(engine) == "trtllm") {
    d.maxBatch = 2048;
    d.tokenBudget = 8192;
    d.rule = "TensorRT-LLM's defaults (trtllm-serve max_batch_size, max_num_tokens)";
    return d;
  }
  const double gib = gpu.memoryGib;
  if (e == "sglang") {
    int slots = 2048;
    if (kvTokens > 0 && contextTokens > 0)
      slots =
          static_cast<int>(std::clamp(std::floor(kvTokens / contextTokens * 512), 2048.0, 4096.0));
    const double chunk = gib < 35 ? 2048 : gib < 60 ? 4096 : gib < 160 ? 8192 : 16384;
    d.maxBatch = slots;
    d.tokenBudget = slots + chunk;
    d.rule = "SGLang's defaults (request slots from its KV pool; a " +
             std::to_string(static_cast<int>(chunk)) + "-token prefill chunk on a GPU of " +
             (gib < 35    ? "< 35 GiB)"
              : gib < 60  ? "35-60 GiB)"
              : gib < 160 ? "60-160 GiB)"
                          : ">= 160 GiB)");
    return d;
  }
  const std::string id = asciiLower(gpu.id + " " + gpu.name);
  if (gib >= 70 && id.find("a100") == std::string::npos) {
    d.maxBatch = 1024;
    d.tokenBudget = 8192;
    d.rule = "vLLM's defaults on a GPU of >= 70 GiB other than the A100";
  } else {
    d.maxBatch = 256;
    d.tokenBudget = 2048;
    d.rule = gib >= 70 ? "vLLM's defaults on an A100" : "vLLM's defaults on a GPU of < 70 GiB";
  }
  return d;
}

}  // namespace

AdmissionDefaults engineAdmissionDefaults(const std::string& engine, const GpuSpec& gpu,
                                          double kvTokens, double contextTokens, int dpRanks) {
  AdmissionDefaults d = schedulerDefaults(engine, gpu, kvTokens, contextTokens);
  // Under DP attention each GPU is a scheduler: vLLM's and TensorRT-LLM's limits are a
  // rank's, so the replica's are theirs times its ranks; SGLang's are the server's (it
  // divides them over --dp-size).
  if (dpRanks > 1 && asciiLower(engine) != "sglang") {
    d.maxBatch *= dpRanks;
    d.tokenBudget *= dpRanks;
    d.rule += ", per DP rank, times " + std::to_string(dpRanks) + " ranks";
  }
  return d;
}

namespace {

/// The shape of a steady state at concurrency C, before it is turned into rates.
struct Cycle {
  double stepS = 0;  ///< mean step time
  double requestsPerStep = 0;
  double prefillS = 0;  ///< time from admission to the first token
  /// The time the prefill is busy with one prompt, as a queue's server: the steps it spans
  /// when one prompt fills what a step leaves, what one more prompt adds to a step when two
  /// fit, none when three do; when every step is full, the budget's share a prompt takes.
  double prefillServiceS = 0;
  bool budgetBound = false;
};

Cycle cycleAt(const StepTimeModel& m, const ServingLimits& lim, const ServingWorkload& w,
              double C) {
  const double I = w.inputTokens;
  const double O = w.outputTokens;
  const double K = lim.tokenBudget;
  const double t = m.decodeTokensPerSeq;  // budget tokens a decoding sequence takes (k + 1)
  const double cd = I + O / 2.0;          // mean context of a decoding sequence
  Cycle cy;
  // Prompt tokens a step can take beside the other sequences' decodes.
  const double avail = std::max(1.0, K - t * std::max(0.0, C - 1.0));
  const double sp = I <= avail ? 1.0 : std::ceil(I / avail);  // steps a prompt spans
  const double chunk = I / sp;
  const double cp = (I - chunk) / 2.0;  // mean context of a chunk
  const double life = sp + (O - 1.0);   // steps a request holds its slot
  const double r = C / life;            // requests admitted (and completed) per step
  auto step = [&](double d, double p, double chunks = 1.0) {
    return mixedStepS(m, std::max(0.0, d), cd, p, p > 0 ? cp : 0.0, chunks);
  };
  const double u = r * sp;  // prompts in prefill per step
  if (sp == 1.0) {
    // k or k + 1 whole prompts per step; the others decode.
    const double k = std::floor(r);
    const double frac = r - k;
    if (t * (C - k - (frac > 0 ? 1 : 0)) + (k + (frac > 0 ? 1 : 0)) * I <= K) {
      cy.stepS =
          (1.0 - frac) * step(C - k, k * I, k) + frac * step(C - k - 1.0, (k + 1.0) * I, k + 1.0);
      cy.requestsPerStep = r;
      const double kk = std::max(1.0, k);
      cy.prefillS = step(C - kk, kk * I, kk);
      // Prompts queue for the prefill when a step holds at most two: one prompt a step, or two
      // in a step that then takes about twice as long (the prompts' work dominates). With room
      // for three or more, an arriving prompt joins the next step: its wait is what is left of
      // the step under way (the half step at a rate).
      const double fits = std::floor(avail / I);
      cy.prefillServiceS = fits < 2.0   ? cy.prefillS
                           : fits < 3.0 ? cy.prefillS - step(C - kk + 1.0, (kk - 1.0) * I, kk - 1.0)
                                        : 0.0;
      return cy;
    }
  } else if (u <= 1.0) {
    // At most one prompt in prefill at a time, in sp chunks.
    cy.stepS = u * step(C - 1.0, chunk) + (1.0 - u) * step(C, 0.0);
    cy.requestsPerStep = r;
    cy.prefillS = sp * step(C - 1.0, chunk);
    cy.prefillServiceS = cy.prefillS;
    return cy;
  }
  // Every step full: decodes and prompt tokens in the ratio (O − 1) : I.
  cy.budgetBound = true;
  double d = O > 1.0 ? K * (O - 1.0) / (I + t * (O - 1.0)) : 0.0;
  d = std::min(d, std::max(0.0, C - 1.0));
  const double p = O > 1.0 ? std::min(K - t * d, d * I / (O - 1.0)) : K;
  cy.stepS = step(d, p, std::max(1.0, p / I));
  cy.requestsPerStep = p / I;
  cy.prefillS = std::max(1.0, I / std::max(p, 1e-300)) * cy.stepS;
  // The prompts queue for the budget's prompt tokens, I/p of a step each.
  cy.prefillServiceS = I / std::max(p, 1e-300) * cy.stepS;
  return cy;
}

/// Concurrency the limits allow: the batch cap, and the sequences whose prompt and output the
/// KV cache holds (the scheduler reserves both at admission).
double concurrencyCap(const ServingLimits& lim, const ServingWorkload& w, std::string& binding) {
  const double kvSeqs = lim.kvCapacityTokens / (w.inputTokens + w.outputTokens);
  if (kvSeqs < static_cast<double>(lim.maxBatch)) {
    binding = "KV cache";
    return kvSeqs;
  }
  binding = "batch cap";
  return static_cast<double>(lim.maxBatch);
}

SteadyState fromCycle(const Cycle& cy, const ServingWorkload& w, double C, double requestS) {
  SteadyState s;
  s.concurrency = C;
  s.stepS = cy.stepS;
  s.requestsPerS = cy.stepS > 0 ? cy.requestsPerStep / cy.stepS : 0.0;
  s.outputTokPerS = s.requestsPerS * w.outputTokens;
  // A request holds its slot for C / r steps of mean length; after its own prefill, the rest
  // is its O − 1 inter-token gaps (a budget-bound server: every step alike).
  if (w.outputTokens > 1) {
    const double lifeS = cy.requestsPerStep > 0 ? C / cy.requestsPerStep * cy.stepS : 0.0;
    s.tpotS =
        cy.budgetBound ? cy.stepS : std::max(0.0, lifeS - cy.prefillS) / (w.outputTokens - 1.0);
  }
  s.ttftS = cy.prefillS + requestS;
  if (cy.budgetBound) s.bindingLimit = "token budget";
  return s;
}

/// Allen–Cunneen's M/D/c wait: half the M/M/c wait (Sakasegawa's form), `c` servers that
/// together complete `capacityPerS` a second, at utilisation `rho` < 1.
double mdcWaitS(double rho, double c, double capacityPerS) {
  return 0.5 * std::pow(rho, std::sqrt(2.0 * (c + 1.0)) - 1.0) / (capacityPerS * (1.0 - rho));
}

/// The wait of a Poisson arrival's prompt for the prefill ahead of it (docs/model.md,
/// "Serving under load"): prompts arrive `arrivalsPerS` a second and the prefill serves them
/// one at a time for `prefillServiceS` each, an M/D/1 queue. Its utilisation is held at 0.9
/// (a wait of at most 4.5 services): nearer 1 the cycle is about to fill every step, where the
/// prompts share the budget and the wait for a slot takes over. Under a full budget, none.
double prefillWaitS(const Cycle& cy, double arrivalsPerS) {
  if (cy.budgetBound || !(cy.prefillServiceS > 0) || !(arrivalsPerS > 0)) return 0.0;
  const double rho = arrivalsPerS * cy.prefillServiceS;
  return mdcWaitS(std::min(rho, 0.9), 1.0, 1.0 / cy.prefillServiceS);
}

/// A closed loop's wait for the prefill (docs/model.md, "Serving under load"): C clients each
/// cycling through the prefill (one server, `serviceS` a prompt) and `awayS` elsewhere (its
/// decode and the client's turn-around), by mean value analysis with deterministic service (an
/// arrival finds the server busy as the loop of n − 1 has it, and waits half a service for the
/// prompt in hand and a whole one for each queued). At most the C − 1 others' services, and
/// continuous in C (interpolated between whole clients).
double closedLoopWaitS(double C, double serviceS, double awayS) {
  if (!(serviceS > 0) || C <= 1.0) return 0.0;
  const int whole = static_cast<int>(std::floor(C));
  double queue = 0, busy = 0, wait = 0, previous = 0;
  for (int n = 1; n <= whole + 1; ++n) {
    previous = wait;
    wait = serviceS * std::max(0.0, queue - busy) + 0.5 * serviceS * busy;
    const double x = n / (awayS + serviceS + wait);
    queue = x * (serviceS + wait);
    busy = std::min(1.0, x * serviceS);
  }
  return previous + (C - whole) * (wait - previous);
}

/// s's TTFT with the closed loop's wait for the prefill: C sequences each away from it for
/// the rest of its life and, in a loop of clients, the turn-around `requestS`.
void addClosedLoopWait(SteadyState& s, const Cycle& cy, double C, double requestS) {
  if (!(cy.prefillServiceS > 0) || !(s.requestsPerS > 0)) return;
  const double lifeS = C / s.requestsPerS;  // admission to completion
  s.ttftS += closedLoopWaitS(C, cy.prefillServiceS, std::max(0.0, lifeS - cy.prefillS) + requestS);
}

}  // namespace

SteadyState stateAtConcurrency(const StepTimeModel& m, const ServingLimits& lim,
                               const ServingWorkload& w, double concurrency) {
  const double C = std::max(1.0, concurrency);
  const Cycle cy = cycleAt(m, lim, w, C);
  SteadyState s = fromCycle(cy, w, C, m.requestOverheadS);
  addClosedLoopWait(s, cy, C, m.requestOverheadS);
  if (s.bindingLimit.empty()) s.bindingLimit = "concurrency";
  return s;
}

namespace {

/// The saturated state without the wait for the prefills admitted ahead (its cycle in `cy`):
/// what stateAtRate needs of it, its throughput and concurrency.
SteadyState saturatedCycle(const StepTimeModel& m, const ServingLimits& lim,
                           const ServingWorkload& w, Cycle& cy) {
  std::string binding;
  const double C = concurrencyCap(lim, w, binding);
  if (C < 1.0) {
    SteadyState s;
    s.stable = false;
    s.bindingLimit = "KV cache";
    s.ttftS = std::numeric_limits<double>::infinity();
    return s;
  }
  cy = cycleAt(m, lim, w, C);
  SteadyState s = fromCycle(cy, w, C, m.requestOverheadS);
  if (s.bindingLimit.empty()) s.bindingLimit = binding;
  return s;
}

}  // namespace

SteadyState saturatedState(const StepTimeModel& m, const ServingLimits& lim,
                           const ServingWorkload& w) {
  Cycle cy;
  SteadyState s = saturatedCycle(m, lim, w, cy);
  // Admitted as slots free, the sequences meet the prefill as a closed loop of C does.
  if (s.concurrency >= 1.0) addClosedLoopWait(s, cy, s.concurrency, 0.0);
  return s;
}

namespace {

/// The concurrency in [1, cMax] whose throughput is `rate` (rate1 at 1, rateMax at cMax, rate
/// between them): the midpoint of the bracket that 60 bisections, to 1e-9 of cMax, leave.
/// False position with the Illinois step first brackets the root to 1e-13, then the bisection
/// is replayed, a midpoint outside that bracket decided by its side of it and one inside by a
/// step evaluation: where throughput rises with concurrency, the bisection's own figure in a
/// dozen evaluations instead of 60. Where it dips (a prompt chunked over one more step) the
/// rate may cross it more than once, and the two can settle on different crossings.
double concurrencyForRate(const StepTimeModel& m, const ServingLimits& lim,
                          const ServingWorkload& w, double rate, double cMax, double rate1,
                          double rateMax) {
  // Below the rate where negative, as the bisection's test had it.
  auto excess = [&](double c) {
    return fromCycle(cycleAt(m, lim, w, c), w, c, 0.0).requestsPerS - rate;
  };
  const RootBracket br =
      illinoisBracket(excess, 1.0, cMax, rate1 - rate, rateMax - rate, 1e-13, 100);
  double lo = 1.0, hi = cMax;
  for (int i = 0; i < 60 && hi - lo > 1e-9 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    const bool below = mid <= br.lo ? true : mid >= br.hi ? false : excess(mid) < 0;
    (below ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

SteadyState stateAtRate(const StepTimeModel& m, const ServingLimits& lim, const ServingWorkload& w,
                        double requestsPerS) {
  Cycle satCycle;
  const SteadyState sat = saturatedCycle(m, lim, w, satCycle);
  if (!(requestsPerS < sat.requestsPerS)) {
    SteadyState s = sat;
    s.stable = false;
    s.ttftS = std::numeric_limits<double>::infinity();
    return s;
  }
  const double rate1 = fromCycle(cycleAt(m, lim, w, 1.0), w, 1.0, 0.0).requestsPerS;
  // Below one request in flight the server idles between requests.
  const double C =
      requestsPerS <= rate1
          ? 1.0
          : concurrencyForRate(m, lim, w, requestsPerS, sat.concurrency, rate1, sat.requestsPerS);
  const Cycle cy = cycleAt(m, lim, w, C);
  SteadyState s = fromCycle(cy, w, C, m.requestOverheadS);
  if (requestsPerS <= rate1) s.concurrency = requestsPerS / rate1;
  s.requestsPerS = requestsPerS;
  s.outputTokPerS = requestsPerS * w.outputTokens;
  // Queueing: M/D/c with c the slots the saturated state runs, Allen–Cunneen's approximation
  // (deterministic service halves the M/M/c wait), or the wait for the prefill ahead, whichever
  // is longer (a queue for slots feeds the prefill as slots free, one at a time); plus half a
  // step before the next one starts.
  const double rho = requestsPerS / sat.requestsPerS;
  const double c = std::max(1.0, sat.concurrency);
  const double wq = mdcWaitS(rho, c, sat.requestsPerS);
  s.ttftS +=
      std::max(wq, prefillWaitS(cy, requestsPerS)) + 0.5 * std::min(1.0, s.concurrency) * s.stepS;
  s.stable = true;
  s.bindingLimit = sat.bindingLimit;
  return s;
}

}  // namespace qf
