// Serving under load, discrete-event simulation of one replica (docs/model.md,
// "Serving under load"). Events are engine steps; arrivals join at step boundaries.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
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
  return Error{"", "", "requests",
               "the simulation would take about " + sigFigs(work, 3) +
                   " sequence-steps (requests x (output tokens + prompt chunks)), past the " +
                   sigFigs(kMaxSimulatedSequenceSteps, 6) +
                   " one run may take; use fewer {--requests}, fewer loads or a larger "
                   "{--token-budget}"};
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

namespace {

/// Why the requests drawn cannot be simulated: more work than one run may take, or a request
/// the cache can never hold.
std::optional<Error> checkRequests(const ServingLimits& lim, const std::vector<Request>& reqs) {
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
  return std::nullopt;
}

/// One replica's engine, step by step: the queue, the running batch in admission order, the
/// KV cache's use and the clock, and what the summary needs of them.
class Simulator {
 public:
  Simulator(const StepTimeModel& m, const ServingLimits& lim, const SimOptions& o,
            std::vector<Request> reqs)
      : m_(m),
        lim_(lim),
        o_(o),
        reqs_(std::move(reqs)),
        n_(reqs_.size()),
        closed_(o.closedLoopConcurrency.has_value()),
        kvCap_(lim.kvCapacityTokens),
        K_(static_cast<std::int64_t>(lim.tokenBudget)) {
    for (const auto& r : reqs_) meanOutput_ += static_cast<double>(r.output);
    meanOutput_ /= static_cast<double>(n_);
    closedReleased_ =
        closed_ ? std::min<std::size_t>(n_, static_cast<std::size_t>(*o.closedLoopConcurrency))
                : n_;
    finishOrder_.reserve(n_);
  }

  /// Runs every request to its end.
  Result<SimResult> run() {
    while (done_ < n_) {
      enqueueArrived();
      if (running_.empty() && waiting_.empty()) {
        if (nextArrival_ >= n_) break;  // cannot happen: every request arrives
        now_ = std::max(now_, reqs_[nextArrival_].arrival);
        continue;
      }
      if (auto e = step()) return *e;
    }
    summarise(reqs_, std::move(finishOrder_), now_, meanOutput_, busyConcurrency_,
              m_.requestOverheadS, o_, res_);
    res_.itlP50S = weightedPercentile(gaps_, 50);
    res_.itlP99S = weightedPercentile(gaps_, 99);
    return res_;
  }

 private:
  /// What one step runs: its decodes and the prompt tokens scheduled beside them.
  struct Plan {
    std::int64_t decoding = 0;
    std::int64_t budget = 0;  ///< tokens the step may still take
    std::int64_t prefillTokens = 0;
    double prefillCtx = 0;
    std::int64_t chunks = 0;
  };

  void enqueueArrived() {
    while (nextArrival_ < n_ && reqs_[nextArrival_].arrival <= now_)
      waiting_.push_back(nextArrival_++);
  }

  void finish(std::size_t id) {
    auto& r = reqs_[id];
    r.doneT = now_;
    kvUsed_ -= static_cast<double>(r.kv);
    ++done_;
    finishOrder_.push_back(now_);
    if (closed_ && closedReleased_ < n_) {
      reqs_[closedReleased_].arrival = now_;
      ++closedReleased_;
    }
  }

  /// Schedules a chunk of request `id`'s prompt within the step's budget and the free cache.
  bool schedule(std::size_t id, Plan& p) {
    auto& r = reqs_[id];
    const double kvFree = kvCap_ - kvUsed_;
    const std::int64_t c =
        std::min<std::int64_t>({r.target - r.computed, p.budget,
                                static_cast<std::int64_t>(std::max(0.0, std::floor(kvFree)))});
    if (c <= 0) return false;
    r.chunk = c;
    p.budget -= c;
    kvUsed_ += static_cast<double>(c);
    p.prefillCtx += static_cast<double>(c) * static_cast<double>(r.computed);
    p.prefillTokens += c;
    ++p.chunks;
    return true;
  }

  /// Admission reserves each sequence's prompt and the mean output (or what it has already
  /// generated, when more).
  double reservation(const Request& r) const {
    return static_cast<double>(r.input) +
           std::max(meanOutput_, static_cast<double>(r.generated + 1));
  }

  /// 1. Decodes (preempting until they fit); 2. prompt chunks of running sequences, then
  /// newly admitted ones.
  Plan plan() {
    Plan p;
    // Every running sequence past its prompt needs one more KV token.
    p.decoding = makeRoomForDecodes(reqs_, running_, waiting_, kvUsed_, kvCap_, res_);
    kvUsed_ += static_cast<double>(p.decoding);
    // Each decoding sequence puts decodeTokensPerSeq tokens through the step (k + 1 verify
    // tokens under speculation), all counted against the budget.
    p.budget = K_ - static_cast<std::int64_t>(
                        std::ceil(static_cast<double>(p.decoding) * m_.decodeTokensPerSeq));
    for (auto id : running_) {
      if (p.budget <= 0) break;
      if (reqs_[id].computed < reqs_[id].target) schedule(id, p);
    }
    double reserved = 0;
    for (auto id : running_) reserved += reservation(reqs_[id]);
    while (p.budget > 0 && !waiting_.empty() &&
           running_.size() < static_cast<std::size_t>(lim_.maxBatch)) {
      const std::size_t id = waiting_.front();
      const double need = reservation(reqs_[id]);
      if (!running_.empty() && reserved + need > kvCap_) break;
      if (!schedule(id, p)) break;
      reserved += need;
      waiting_.pop_front();
      running_.push_back(id);
    }
    return p;
  }

  /// Plans, times and applies one step (or several pure decode steps taken together).
  std::optional<Error> step() {
    const Plan p = plan();
    if (p.decoding == 0 && p.prefillTokens == 0) {
      // Nothing fits (cannot happen with the capacity check); wait for the next arrival.
      if (nextArrival_ >= n_) return Error{"", "", "kv-capacity", "the simulation stalled"};
      now_ = std::max(now_, reqs_[nextArrival_].arrival);
      return std::nullopt;
    }
    double decodeCtx = 0;
    std::int64_t minLeft = std::numeric_limits<std::int64_t>::max();
    for (auto id : running_) {
      const auto& r = reqs_[id];
      if (r.chunk == 0 && r.computed == r.target) {
        decodeCtx += static_cast<double>(r.kv);
        minLeft = std::min(minLeft, r.output - r.generated);
      }
    }
    const double dc = p.decoding > 0 ? decodeCtx / static_cast<double>(p.decoding) : 0.0;
    const double pc =
        p.prefillTokens > 0 ? p.prefillCtx / static_cast<double>(p.prefillTokens) : 0.0;
    // Pure decode steps with nothing to admit repeat until a sequence finishes or a request
    // could join: they are taken together, at the mean context over the run (attention is
    // linear in context, so the total time is that of the steps one by one).
    std::int64_t repeat = 1;
    if (p.prefillTokens == 0 && p.decoding > 0 && minLeft > 1) {
      const bool canAdmit = running_.size() < static_cast<std::size_t>(lim_.maxBatch);
      const double nextArrivalT =
          nextArrival_ < n_ ? reqs_[nextArrival_].arrival : std::numeric_limits<double>::infinity();
      repeat = decodeRepeat(m_, p.decoding, dc, minLeft, kvCap_ - kvUsed_, canAdmit, nextArrivalT,
                            now_, !waiting_.empty());
    }
    double tau = 0;
    if (repeat > 1) {
      const double midCtx = dc + 0.5 * static_cast<double>(repeat - 1);
      tau = static_cast<double>(repeat) * m_.decodeStepS(static_cast<double>(p.decoding), midCtx);
      kvUsed_ += static_cast<double>(p.decoding) * static_cast<double>(repeat - 1);
    } else {
      tau = mixedStepS(m_, static_cast<double>(p.decoding), dc,
                       static_cast<double>(p.prefillTokens), pc, static_cast<double>(p.chunks));
    }
    // Inter-token gaps as vllm bench serve counts them (ITL): one per decoded token, the
    // length of the step that produced it; kept as (gap, tokens) per step.
    if (p.decoding > 0) {
      gaps_.emplace_back(tau / static_cast<double>(repeat),
                         static_cast<double>(p.decoding) * static_cast<double>(repeat));
    }
    busyConcurrency_ += tau * static_cast<double>(running_.size());
    now_ += tau;
    res_.steps += repeat;
    // Apply the step: decodes produce a token each; finished prompts produce their next token.
    std::vector<std::size_t> still =
        applyStep(reqs_, running_, repeat, now_, [this](std::size_t id) { finish(id); });
    running_.swap(still);
    return std::nullopt;
  }

  const StepTimeModel& m_;
  const ServingLimits& lim_;
  const SimOptions& o_;
  std::vector<Request> reqs_;
  std::size_t n_;
  bool closed_;
  double kvCap_;
  std::int64_t K_;
  double meanOutput_ = 0;
  std::size_t nextArrival_ = 0;  ///< next request index not yet queued (arrival order)
  std::size_t closedReleased_ = 0;
  std::deque<std::size_t> waiting_;
  std::vector<std::size_t> running_;  ///< admission order
  double kvUsed_ = 0;
  double now_ = 0;
  double busyConcurrency_ = 0;
  std::size_t done_ = 0;
  std::vector<double> finishOrder_;
  std::vector<std::pair<double, double>> gaps_;
  SimResult res_;
};

}  // namespace

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
  if (auto e = checkRequests(lim, reqs)) return *e;
  return Simulator(m, lim, o, std::move(reqs)).run();
}

}  // namespace qf
