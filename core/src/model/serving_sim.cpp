// Serving under load, discrete-event simulation of one replica (docs/model.md,
// "Serving under load"). Events are engine steps; arrivals join at step boundaries.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <iomanip>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/base/percentile.hpp>
#include <quantfront/core/model/serving_model.hpp>

namespace qf {

namespace {

/// splitmix64: a small, portable generator, so a seed gives the same run everywhere.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double exponential(double rate) { return -std::log1p(-uniform()) / rate; }
};

std::int64_t drawLength(const LengthDistribution& d, Rng& rng) {
  double v = d.mean;
  switch (d.kind) {
    case LengthDistribution::Kind::Fixed:
      break;
    case LengthDistribution::Kind::Uniform:
      v = d.mean * (1.0 + d.spread * (2.0 * rng.uniform() - 1.0));
      break;
    case LengthDistribution::Kind::Empirical:
      v = d.samples[static_cast<std::size_t>(rng.uniform() *
                                             static_cast<double>(d.samples.size()))];
      break;
  }
  return std::max<std::int64_t>(1, std::llround(v));
}

struct Request {
  double arrival = 0;
  std::int64_t input = 0, output = 0;
  std::int64_t target = 0;     ///< tokens to prefill (prompt, plus output after a preemption)
  std::int64_t computed = 0;   ///< of target
  std::int64_t generated = 0;  ///< output tokens produced (kept across preemptions)
  std::int64_t kv = 0;         ///< KV tokens held
  std::int64_t chunk = 0;      ///< prompt tokens scheduled in the current step
  double firstTokenT = -1;
  double doneT = -1;
};

std::optional<Error> validateLength(const LengthDistribution& d, const char* field) {
  auto bad = [&](const std::string& msg) {
    return std::optional<Error>(Error{"", "", field, msg});
  };
  if (d.kind == LengthDistribution::Kind::Empirical) {
    if (d.samples.empty()) return bad("has no lengths to draw from");
    for (double v : d.samples)
      if (!(v >= 1) || !std::isfinite(v)) return bad("every length must be at least 1 token");
    return std::nullopt;
  }
  if (!(d.mean >= 1) || !std::isfinite(d.mean) || d.mean > 1e9)
    return bad("must be at least 1 token (at most 1e9)");
  if (!(d.spread >= 0 && d.spread < 1)) return bad("spread must be in [0, 1)");
  return std::nullopt;
}

std::optional<Error> validateSim(const ServingLimits& lim, const SimOptions& o) {
  if (auto e = validateLength(o.input, "input-len")) return e;
  if (auto e = validateLength(o.output, "output-len")) return e;
  ServingWorkload w{std::max(1.0, o.input.mean), std::max(1.0, o.output.mean)};
  if (auto e = validateServing(lim, w)) return e;
  if (o.requests < 1 || o.requests > 10'000'000)
    return Error{"", "", "requests", "must be between 1 and 10000000"};
  if (!(o.requestsPerS > 0) || std::isnan(o.requestsPerS))
    return Error{"", "", "load", "the request rate must be positive"};
  if (o.closedLoopConcurrency && *o.closedLoopConcurrency < 1)
    return Error{"", "", "load", "the concurrency must be at least 1"};
  return std::nullopt;
}

/// The requests with their lengths and arrival times (Poisson, or the closed loop's first
/// wave at 0 and the rest released as requests finish).
std::vector<Request> drawRequests(const SimOptions& o) {
  Rng rng{o.seed * 0x2545F4914F6CDD1DULL + 1};
  const std::size_t n = static_cast<std::size_t>(o.requests);
  std::vector<Request> reqs(n);
  double t = 0;
  const bool closed = o.closedLoopConcurrency.has_value();
  for (std::size_t i = 0; i < n; ++i) {
    auto& r = reqs[i];
    r.input = drawLength(o.input, rng);
    r.output = drawLength(o.output, rng);
    r.target = r.input;
    if (!closed && std::isfinite(o.requestsPerS)) t += rng.exponential(o.requestsPerS);
    r.arrival = closed ? std::numeric_limits<double>::infinity() : t;
  }
  if (closed) {
    const std::size_t first =
        std::min<std::size_t>(n, static_cast<std::size_t>(*o.closedLoopConcurrency));
    for (std::size_t i = 0; i < first; ++i) reqs[i].arrival = 0;
  }
  return reqs;
}

/// Every running sequence past its prompt needs one more KV token: the latest admitted are
/// preempted (by recompute) until the decodes fit. Returns how many decode.
std::int64_t makeRoomForDecodes(std::vector<Request>& reqs, std::vector<std::size_t>& running,
                                std::deque<std::size_t>& waiting, double& kvUsed, double kvCap,
                                SimResult& res) {
  std::int64_t decoding = 0;
  for (auto id : running)
    if (reqs[id].computed == reqs[id].target) ++decoding;
  while (kvUsed + static_cast<double>(decoding) > kvCap && !running.empty()) {
    const std::size_t victim = running.back();
    running.pop_back();
    auto& v = reqs[victim];
    if (v.computed == v.target) --decoding;
    kvUsed -= static_cast<double>(v.kv);
    v.kv = 0;
    v.computed = 0;
    v.target = v.input + v.generated;
    waiting.push_front(victim);
    ++res.preemptions;
  }
  return decoding;
}

/// How many pure decode steps (nothing to admit) run together: until a sequence finishes, the
/// cache fills or a request could join (at `nextArrivalT`, infinite when none).
std::int64_t decodeRepeat(const StepTimeModel& m, std::int64_t decoding, double dc,
                          std::int64_t minLeft, double kvRoom, bool canAdmit, double nextArrivalT,
                          double now, bool anyWaiting) {
  const double tau = m.decodeStepS(static_cast<double>(decoding), dc);
  std::int64_t k = minLeft - 1;
  k = std::min<std::int64_t>(k,
                             1 + static_cast<std::int64_t>(kvRoom / static_cast<double>(decoding)));
  if (canAdmit && std::isfinite(nextArrivalT)) {
    const double gap = nextArrivalT - now;
    k = std::min<std::int64_t>(k, std::max<std::int64_t>(1, static_cast<std::int64_t>(gap / tau)));
  }
  if (anyWaiting && canAdmit) k = 1;
  return std::max<std::int64_t>(1, k);
}

/// Applies a step ending at `now`: decodes produce `repeat` tokens each, finished prompts their
/// first (or next) token; `finish` is called for each request done. Returns those still
/// running, in order.
template <class Finish>
std::vector<std::size_t> applyStep(std::vector<Request>& reqs,
                                   const std::vector<std::size_t>& running, std::int64_t repeat,
                                   double now, Finish&& finish) {
  std::vector<std::size_t> still;
  still.reserve(running.size());
  for (auto id : running) {
    auto& r = reqs[id];
    if (r.chunk > 0) {
      r.computed += r.chunk;
      r.kv += r.chunk;
      r.chunk = 0;
      if (r.computed == r.target) {
        ++r.generated;
        if (r.firstTokenT < 0) r.firstTokenT = now;
      }
    } else if (r.computed == r.target) {
      r.kv += repeat;
      r.generated += repeat;
    }
    if (r.generated >= r.output) {
      finish(id);
    } else {
      still.push_back(id);
    }
  }
  return still;
}

/// The q-th percentile of values weighted by counts (the value below which q% of the weight
/// lies); 0 when there is none.
double weightedPercentile(std::vector<std::pair<double, double>> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  double total = 0;
  for (const auto& [x, w] : v) total += w;
  const double target = q / 100.0 * total;
  double acc = 0;
  for (const auto& [x, w] : v) {
    acc += w;
    if (acc >= target) return x;
  }
  return v.back().first;
}

/// Latencies of every request; throughput over the middle 80% of completions (ramp-up and
/// drain left out).
void summarise(const std::vector<Request>& reqs, std::vector<double> finishOrder, double now,
               double meanOutput, double busyConcurrency, double requestOverheadS,
               const SimOptions& o, SimResult& res) {
  const std::size_t n = reqs.size();
  std::vector<double> ttft, tpot;
  ttft.reserve(n);
  tpot.reserve(n);
  double first = std::numeric_limits<double>::infinity();
  std::int64_t good = 0;
  double ttftSum = 0, tpotSum = 0;
  for (const auto& r : reqs) {
    first = std::min(first, r.arrival);
    const double tt = r.firstTokenT - r.arrival + requestOverheadS;
    ttft.push_back(tt);
    ttftSum += tt;
    const double tp =
        r.output > 1 ? (r.doneT - r.firstTokenT) / static_cast<double>(r.output - 1) : 0.0;
    if (r.output > 1) {
      tpot.push_back(tp);
      tpotSum += tp;
    }
    const bool ok = (o.sloTtftS <= 0 || tt <= o.sloTtftS) && (o.sloTpotS <= 0 || tp <= o.sloTpotS);
    if (ok) ++good;
  }
  res.completed = static_cast<int>(n);
  res.durationS = now - first;
  std::sort(finishOrder.begin(), finishOrder.end());
  double outTokensWindow = 0;
  double window = 0;
  double reqWindow = 0;
  if (n >= 10) {
    // Completions in (t_lo, t_hi]: counted by time, since several may finish in one step.
    const double tLo = finishOrder[n / 10], tHi = finishOrder[n - n / 10 - 1];
    window = tHi - tLo;
    const auto upTo = [&](double at) {
      return std::upper_bound(finishOrder.begin(), finishOrder.end(), at) - finishOrder.begin();
    };
    reqWindow = static_cast<double>(upTo(tHi) - upTo(tLo));
  }
  if (!(window > 0)) {
    window = res.durationS;
    reqWindow = static_cast<double>(n);
  }
  outTokensWindow = reqWindow * meanOutput;
  res.requestsPerS = window > 0 ? reqWindow / window : 0.0;
  res.outputTokPerS = window > 0 ? outTokensWindow / window : 0.0;
  res.goodputReqPerS = res.requestsPerS * static_cast<double>(good) / static_cast<double>(n);
  res.ttftMeanS = ttftSum / static_cast<double>(n);
  res.ttftP50S = percentileLinear(ttft, 50);
  res.ttftP99S = percentileLinear(ttft, 99);
  if (!tpot.empty()) {
    res.tpotMeanS = tpotSum / static_cast<double>(tpot.size());
    res.tpotP50S = percentileLinear(tpot, 50);
    res.tpotP99S = percentileLinear(tpot, 99);
  }
  res.meanConcurrency = res.durationS > 0 ? busyConcurrency / res.durationS : 0.0;
}

// A sequence's steps in the simulation: one per output token, one per prompt chunk.
double simulatedSteps(double input, double output, double tokenBudget) {
  return output + std::ceil(input / std::max(1.0, tokenBudget));
}

Error simulationTooLarge(double work) {
  std::ostringstream o;
  o << "the simulation would take about " << sigFigs(work, 3)
    << " sequence-steps (requests x (output tokens + prompt chunks)), past the "
    << kMaxSimulatedSequenceSteps
    << " one run may take; use fewer {--requests}, fewer loads or a larger {--token-budget}";
  return Error{"", "", "requests", o.str()};
}

}  // namespace

double simulationWork(const ServingLimits& lim, const SimOptions& o) {
  auto meanLength = [](const LengthDistribution& d) {
    if (d.kind == LengthDistribution::Kind::Empirical && !d.samples.empty()) {
      double sum = 0;
      for (double v : d.samples) sum += v;
      return sum / static_cast<double>(d.samples.size());
    }
    return std::max(1.0, d.mean);
  };
  return static_cast<double>(o.requests) *
         simulatedSteps(meanLength(o.input), meanLength(o.output), lim.tokenBudget);
}

std::optional<Error> checkSimulationWork(double work) {
  if (work > kMaxSimulatedSequenceSteps) return simulationTooLarge(work);
  return std::nullopt;
}

Result<SimResult> simulateServing(const StepTimeModel& m, const ServingLimits& lim,
                                  const SimOptions& o) {
  if (auto e = validateSim(lim, o)) return *e;
  // A full batch's decodes (k + 1 tokens each under speculation) must leave the budget room.
  if (lim.tokenBudget < static_cast<double>(lim.maxBatch) * m.decodeTokensPerSeq) {
    return Error{"", "", "token-budget",
                 "must be at least the batch cap x " + sigFigs(m.decodeTokensPerSeq, 6) +
                     " tokens (each running sequence's decode and verify tokens every step), "
                     "found " +
                     sigFigs(lim.tokenBudget, 6)};
  }
  std::vector<Request> reqs = drawRequests(o);
  const std::size_t n = reqs.size();
  const bool closed = o.closedLoopConcurrency.has_value();
  // The work is bounded before it starts: every request's decode steps and prompt chunks.
  double work = 0;
  for (const auto& r : reqs)
    work += simulatedSteps(static_cast<double>(r.input), static_cast<double>(r.output),
                           lim.tokenBudget);
  if (work > kMaxSimulatedSequenceSteps) return simulationTooLarge(work);
  // A request that can never fit the cache would wait forever.
  const double kvCap = lim.kvCapacityTokens;
  for (const auto& r : reqs) {
    if (static_cast<double>(r.input + r.output) > kvCap)
      return Error{"", "", "kv-capacity",
                   "a request of " + std::to_string(r.input + r.output) +
                       " tokens does not fit the KV cache (" +
                       std::to_string(static_cast<long long>(kvCap)) + " tokens)"};
  }

  SimResult res;
  double meanOutput = 0;
  for (const auto& r : reqs) meanOutput += static_cast<double>(r.output);
  meanOutput /= static_cast<double>(n);
  std::size_t nextArrival = 0;  // next request index not yet queued (arrival order)
  std::size_t closedReleased =
      closed ? std::min<std::size_t>(n, static_cast<std::size_t>(*o.closedLoopConcurrency)) : n;
  std::deque<std::size_t> waiting;
  std::vector<std::size_t> running;  // admission order
  double kvUsed = 0;
  double now = 0;
  double busyConcurrency = 0;
  std::size_t done = 0;
  const auto K = static_cast<std::int64_t>(lim.tokenBudget);
  std::vector<double> finishOrder;
  finishOrder.reserve(n);
  // Inter-token gaps as vllm bench serve counts them (ITL): one per decoded token, the length
  // of the step that produced it; kept as (gap, tokens) per step.
  std::vector<std::pair<double, double>> gaps;

  auto enqueueArrived = [&] {
    while (nextArrival < n && reqs[nextArrival].arrival <= now) waiting.push_back(nextArrival++);
  };
  auto finish = [&](std::size_t id) {
    auto& r = reqs[id];
    r.doneT = now;
    kvUsed -= static_cast<double>(r.kv);
    ++done;
    finishOrder.push_back(now);
    if (closed && closedReleased < n) {
      reqs[closedReleased].arrival = now;
      ++closedReleased;
    }
  };

  while (done < n) {
    enqueueArrived();
    if (running.empty() && waiting.empty()) {
      if (nextArrival >= n) break;  // cannot happen: every request arrives
      now = std::max(now, reqs[nextArrival].arrival);
      continue;
    }
    // 1. Decodes: every running sequence past its prompt needs one more KV token.
    std::int64_t decoding = makeRoomForDecodes(reqs, running, waiting, kvUsed, kvCap, res);
    kvUsed += static_cast<double>(decoding);
    // Each decoding sequence puts decodeTokensPerSeq tokens through the step (k + 1 verify
    // tokens under speculation), all counted against the budget.
    std::int64_t budget = K - static_cast<std::int64_t>(
                                  std::ceil(static_cast<double>(decoding) * m.decodeTokensPerSeq));
    // 2. Prompt chunks of running sequences, then newly admitted ones.
    std::int64_t prefillTokens = 0;
    double prefillCtx = 0;
    std::int64_t chunks = 0;
    auto schedule = [&](std::size_t id) -> bool {
      auto& r = reqs[id];
      const double kvFree = kvCap - kvUsed;
      const std::int64_t c =
          std::min<std::int64_t>({r.target - r.computed, budget,
                                  static_cast<std::int64_t>(std::max(0.0, std::floor(kvFree)))});
      if (c <= 0) return false;
      r.chunk = c;
      budget -= c;
      kvUsed += static_cast<double>(c);
      prefillCtx += static_cast<double>(c) * static_cast<double>(r.computed);
      prefillTokens += c;
      ++chunks;
      return true;
    };
    for (auto id : running) {
      if (budget <= 0) break;
      if (reqs[id].computed < reqs[id].target) schedule(id);
    }
    // Admission reserves each sequence's prompt and the mean output (or what it has already
    // generated, when more).
    auto reservation = [&](const Request& r) {
      return static_cast<double>(r.input) +
             std::max(meanOutput, static_cast<double>(r.generated + 1));
    };
    double reserved = 0;
    for (auto id : running) reserved += reservation(reqs[id]);
    while (budget > 0 && !waiting.empty() &&
           running.size() < static_cast<std::size_t>(lim.maxBatch)) {
      const std::size_t id = waiting.front();
      const double need = reservation(reqs[id]);
      if (!running.empty() && reserved + need > kvCap) break;
      if (!schedule(id)) break;
      reserved += need;
      waiting.pop_front();
      running.push_back(id);
    }
    if (decoding == 0 && prefillTokens == 0) {
      // Nothing fits (cannot happen with the capacity check); wait for the next arrival.
      if (nextArrival >= n) return Error{"", "", "kv-capacity", "the simulation stalled"};
      now = std::max(now, reqs[nextArrival].arrival);
      continue;
    }
    double decodeCtx = 0;
    std::int64_t minLeft = std::numeric_limits<std::int64_t>::max();
    for (auto id : running) {
      const auto& r = reqs[id];
      if (r.chunk == 0 && r.computed == r.target) {
        decodeCtx += static_cast<double>(r.kv);
        minLeft = std::min(minLeft, r.output - r.generated);
      }
    }
    const double dc = decoding > 0 ? decodeCtx / static_cast<double>(decoding) : 0.0;
    const double pc = prefillTokens > 0 ? prefillCtx / static_cast<double>(prefillTokens) : 0.0;
    // Pure decode steps with nothing to admit repeat until a sequence finishes or a request
    // could join: they are taken together, at the mean context over the run (attention is
    // linear in context, so the total time is that of the steps one by one).
    std::int64_t repeat = 1;
    if (prefillTokens == 0 && decoding > 0 && minLeft > 1) {
      const bool canAdmit = running.size() < static_cast<std::size_t>(lim.maxBatch);
      const double nextArrivalT =
          nextArrival < n ? reqs[nextArrival].arrival : std::numeric_limits<double>::infinity();
      repeat = decodeRepeat(m, decoding, dc, minLeft, kvCap - kvUsed, canAdmit, nextArrivalT, now,
                            !waiting.empty());
    }
    double tau = 0;
    if (repeat > 1) {
      const double midCtx = dc + 0.5 * static_cast<double>(repeat - 1);
      tau = static_cast<double>(repeat) * m.decodeStepS(static_cast<double>(decoding), midCtx);
      kvUsed += static_cast<double>(decoding) * static_cast<double>(repeat - 1);
    } else {
      tau = mixedStepS(m, static_cast<double>(decoding), dc, static_cast<double>(prefillTokens), pc,
                       static_cast<double>(chunks));
    }
    if (decoding > 0) {
      gaps.emplace_back(tau / static_cast<double>(repeat),
                        static_cast<double>(decoding) * static_cast<double>(repeat));
    }
    busyConcurrency += tau * static_cast<double>(running.size());
    now += tau;
    res.steps += repeat;
    // Apply the step: decodes produce a token each; finished prompts produce their next token.
    std::vector<std::size_t> still = applyStep(reqs, running, repeat, now, finish);
    running.swap(still);
  }

  summarise(reqs, std::move(finishOrder), now, meanOutput, busyConcurrency, m.requestOverheadS, o,
            res);
  res.itlP50S = weightedPercentile(gaps, 50);
  res.itlP99S = weightedPercentile(gaps, 99);
  return res;
}

}  // namespace qf
