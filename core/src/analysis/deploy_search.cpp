// The deployment search (docs/model.md, "Deployment search").
#include <quantfront/core/analysis/deploy_search.hpp>

#include <quantfront/core/analysis/disaggregated.hpp>
#include <quantfront/core/analysis/e2e_calibration.hpp>

#include "deploy_frontier.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/model/scenario_spec.hpp>

namespace qf {

namespace {

struct Assignment {
  SchemeAssignment a;
  std::string linear, moe, lmHead;
};

std::vector<Assignment> assignments(const DeploySpace& sp) {
  std::vector<Assignment> out;
  const bool moe = sp.model.isMoe();
  for (const auto& l : sp.schemes) {
    if (!sp.perKind) {
      Assignment x;
      x.a.id = l.id;
      x.a.linear = l;
      x.linear = x.lmHead = l.id;
      if (moe) x.moe = l.id;
      out.push_back(std::move(x));
      continue;
    }
    const std::size_t nm = moe ? sp.schemes.size() : 1;
    for (std::size_t mi = 0; mi < nm; ++mi) {
      for (const auto& h : sp.schemes) {
        Assignment x;
        x.a.linear = l;
        x.linear = l.id;
        if (moe) {
          x.a.moe = sp.schemes[mi];
          x.moe = sp.schemes[mi].id;
        }
        x.a.lmHead = h;
        x.lmHead = h.id;
        DeployConfig tmp;
        tmp.linear = x.linear;
        tmp.moe = x.moe;
        tmp.lmHead = x.lmHead;
        x.a.id = tmp.schemeId();
        out.push_back(std::move(x));
      }
    }
  }
  return out;
}

/// The search space and options checked; `kvBytes` gets the bytes per element of each KV dtype.
std::optional<Error> checkSearch(const DeploySpace& sp, const DeployOptions& o,
                                 std::vector<double>& kvBytes) {
  if (sp.gpus.empty()) return Error{"", "", "gpus", "no GPU to search"};
  if (sp.schemes.empty()) return Error{"", "", "schemes", "no scheme to search"};
  if (sp.kvDtypes.empty()) return Error{"", "", "kv-dtypes", "no KV dtype to search"};
  if (sp.batchCaps.empty()) return Error{"", "", "max-batch", "no batch cap to search"};
  if (sp.maxGpus < 1 || sp.maxGpus > 4096)
    return Error{"", "", "max-gpus", "must be between 1 and 4096"};
  if (sp.speculation) {
    if (auto e = validateSpeculation(*sp.speculation)) return e;
  }
  if (sp.draftModel && !sp.speculation)
    return Error{"", "", "spec-draft",
                 "a draft model needs speculation (a number of draft tokens)"};
  if (sp.draftModel && sp.draftModel->id == sp.model.id)
    return Error{"", "", "spec-draft",
                 "the draft '" + sp.draftModel->id + "' is the target model itself"};
  if (sp.draftModel) {
    // A draft reading as many weights a token as the target can never pay for itself.
    const double draft = countParams(*sp.draftModel).streamed();
    const double target = countParams(sp.model).streamed();
    if (draft >= target) {
      return Error{"", "", "spec-draft",
                   "the draft '" + sp.draftModel->id + "' reads " + sigFigs(draft / 1e9, 3) +
                       " billion weights a token, the target '" + sp.model.id + "' " +
                       sigFigs(target / 1e9, 3) + ": a draft must be smaller than its target"};
    }
  }
  if (!(sp.expertImbalance >= 1.0 && sp.expertImbalance <= 64.0))
    return Error{"", "", "expert-imbalance",
                 "must be in [1, 64] (the busiest GPU's expert work over the mean)"};
  if (sp.twoBatchOverlap && !(sp.model.isMoe() && sp.moeParallel)) {
    return Error{"", "", "two-batch-overlap",
                 sp.model.isMoe() ? std::string("needs the MoE layouts the search tries (it hides "
                                                "their all-to-all): drop {--no-moe-parallel}")
                                  : "'" + sp.model.id +
                                        "' has no routed experts: two-batch overlap hides the "
                                        "all-to-all of expert parallelism"};
  }
  if (o.sloTtftMs < 0 || !std::isfinite(o.sloTtftMs))
    return Error{"", "", "slo-ttft-ms", "must be positive"};
  if (o.sloTpotMs < 0 || !std::isfinite(o.sloTpotMs))
    return Error{"", "", "slo-tpot-ms", "must be positive"};
  if (o.load.kind == DeployLoad::Kind::Rate &&
      (!(o.load.requestsPerS >= kMinRequestRate) || !(o.load.requestsPerS <= kMaxRequestRate)))
    return Error{"", "", "load",
                 "the request rate must be from 0.0001 to 1000000 req/s (5e-324 answered with a "
                 "deployment of 6e-322 tok/s)"};
  if (auto e = checkRequestLength(sp.model, o.workload.inputTokens, o.workload.outputTokens))
    return e;
  if (o.sloTpotMs > 0 && o.workload.outputTokens < 2)
    return Error{"", "", "slo-tpot-ms",
                 "a TPOT needs at least 2 output tokens (TPOT is the time between them); this "
                 "workload has 1"};
  for (int cap : sp.batchCaps) {
    ServingLimits lim;
    lim.maxBatch = cap;
    lim.tokenBudget = std::max(sp.tokenBudget, static_cast<double>(cap));
    if (auto e = validateServing(lim, o.workload)) return e;
  }
  for (const auto& d : sp.kvDtypes) {
    const double b = kvBytesForDtype(d);
    if (b == 0) return Error{"", "", "kv-dtypes", "expected bf16 or fp8, found '" + d + "'"};
    kvBytes.push_back(b);
  }
  for (const auto& g : sp.gpus) {
    if (!g.pricePerGpuHourUsd || !(*g.pricePerGpuHourUsd > 0))
      return Error{"", "", "price",
                   "GPU '" + g.id + "' has no price per GPU-hour; give it one ({--price}, as " +
                       g.id + "=USD) or leave it out ({--skip-unpriced})"};
  }
  return std::nullopt;
}

/// Which constraint binds when nothing is feasible, in words.
std::string nothingFeasibleReason(const DeployResult& res, const DeployOptions& o,
                                  double bestCapacity, double bestTtft, double bestTpot) {
  if (res.evaluated == 0) {
    return "no configuration fits in memory (the weights and one request's KV cache exceed "
           "every GPU count searched; raise {--max-gpus} or choose smaller schemes)";
  }
  if (res.rejectedLoad == res.evaluated) {
    return "the load binds: no configuration sustains " + deployLoadText(o.load) +
           " (the most any sustains is " + sigFigs(bestCapacity, 4) + " req/s)";
  }
  if (res.rejectedGate > 0 && res.rejectedTtft == 0 && res.rejectedTpot == 0) {
    return "the quality gates bind: every configuration meeting the SLOs uses a scheme "
           "whose candidate fails them";
  }
  if (res.rejectedTpot >= res.rejectedTtft) {
    return "the TPOT SLO binds: the lowest TPOT reached is " + sigFigs(bestTpot, 4) +
           " ms against " + sigFigs(o.sloTpotMs, 4) + " ms";
  }
  return "the TTFT SLO binds: the lowest TTFT reached is " + sigFigs(bestTtft, 4) + " ms against " +
         sigFigs(o.sloTtftMs, 4) + " ms";
}

/// What the search has found so far: its counts, its frontier, and the best figures reached
/// (for the reason nothing is feasible).
struct Tally {
  DeployResult res;
  DeployFrontier front;
  double bestTtft = std::numeric_limits<double>::infinity();
  double bestTpot = std::numeric_limits<double>::infinity();
  double bestCapacity = 0;
};

/// A stable deployment (`proto` at `replicas` and `gpuCount`) at these figures, judged against
/// the SLOs and the gates; the feasible reach the frontier.
void judge(const DeployOptions& o, const DeployConfig& proto, int replicas, int gpuCount,
           double ttftS, double tpotS, double outputTokS, double pricePerGpu,
           const std::string& bindingLimit, Tally& t) {
  const double ttftMs = ttftS * 1e3, tpotMs = tpotS * 1e3;
  t.bestTtft = std::min(t.bestTtft, ttftMs);
  t.bestTpot = std::min(t.bestTpot, tpotMs);
  if (o.sloTtftMs > 0 && ttftMs > o.sloTtftMs) {
    ++t.res.rejectedTtft;
    return;
  }
  if (o.sloTpotMs > 0 && tpotMs > o.sloTpotMs) {
    ++t.res.rejectedTpot;
    return;
  }
  const double pricePerHour = pricePerGpu * static_cast<double>(gpuCount);
  const double cost = pricePerHour / 3600.0 / outputTokS * 1e6;
  // The gates read the schemes alone, which the prototype carries.
  if (o.gate && !o.gate(proto)) {
    ++t.res.rejectedGate;
    return;
  }
  ++t.res.feasible;
  const double latency = o.axis == LatencyAxis::Tpot ? tpotMs : ttftMs;
  // Copied only when it would join the frontier (most feasible configurations would not).
  if (t.front.beats(latency, cost)) return;
  DeployConfig c = proto;
  c.replicas = replicas;
  c.gpuCount = gpuCount;
  c.ttftMs = ttftMs;
  c.tpotMs = tpotMs;
  c.outputTokS = outputTokS;
  c.pricePerHourUsd = pricePerHour;
  c.usdPerMillionOutputTokens = cost;
  c.bindingLimit = bindingLimit;
  t.front.offer(c, latency);
}

/// One replica's engine at one batch cap (`proto` names it), offered at every replica count:
/// each is judged against the load, the SLOs and the gates, and the feasible ones reach the
/// frontier.
void offerReplicas(const DeployOptions& o, const StepTimeModel& steps, const ServingLimits& lim,
                   const DeployConfig& proto, double pricePerGpu,
                   const std::vector<int>& replicaOptions, Tally& t) {
  DeployResult& res = t.res;
  // One replica's state serves every replica count (sync and max); at a rate each replica
  // takes its share.
  std::optional<SteadyState> shared;
  if (o.load.kind == DeployLoad::Kind::Sync)
    shared = stateAtConcurrency(steps, lim, o.workload, 1.0);
  else if (o.load.kind == DeployLoad::Kind::Max)
    shared = saturatedState(steps, lim, o.workload);
  for (int rep : replicaOptions) {
    ++res.evaluated;
    const SteadyState st = shared ? *shared
                                  : stateAtRate(steps, lim, o.workload,
                                                o.load.requestsPerS / static_cast<double>(rep));
    if (!st.stable || !(st.outputTokPerS > 0)) {
      ++res.rejectedLoad;
      // An unstable state is the saturated one: its throughput is the replica's capacity.
      const double capacity =
          st.stable ? saturatedState(steps, lim, o.workload).requestsPerS : st.requestsPerS;
      t.bestCapacity = std::max(t.bestCapacity, capacity * static_cast<double>(rep));
      continue;
    }
    judge(o, proto, rep, proto.tp * rep, st.ttftS, st.tpotS,
          st.outputTokPerS * static_cast<double>(rep), pricePerGpu, st.bindingLimit, t);
  }
}

/// The pools of a disaggregated deployment: `pGpus` GPUs of prefill replicas of `pe` (TP
/// `prefillTp`, on `prefillGpu`) and `dGpus` of decode replicas of `de` (TP `decodeTp`, on
/// `decodeGpu`), the KV moved between them. The decode pool's batch cap is left for the caller.
DisaggPools makePools(const DeploySpace& sp, const GpuSpec& prefillGpu, const GpuSpec& decodeGpu,
                      double inputTokens, const EngineServing& pe, int prefillTp, int pGpus,
                      const EngineServing& de, int decodeTp, int dGpus, int prefillRanks) {
  DisaggPools pools;
  pools.prefill = &pe.steps;
  pools.prefillReplicas = pGpus / prefillTp;
  pools.prefillBudget = std::max(sp.tokenBudget, 1.0) * prefillRanks;
  pools.decode = &de.steps;
  pools.decodeReplicas = dGpus / decodeTp;
  pools.decodeLimits.kvCapacityTokens = de.kvCapacityTokens;
  pools.kvTransferS = kvTransferS(prefillGpu, pe.kvGroupBytesPerToken, inputTokens, prefillTp,
                                  decodeTp, pGpus + dGpus, prefillGpu.id == decodeGpu.id);
  return pools;
}

/// Both pools' steady state at the options' load.
DisaggState disaggAtLoad(const DeployOptions& o, const DisaggPools& pools) {
  return o.load.kind == DeployLoad::Kind::Sync ? disaggSynchronous(pools, o.workload)
         : o.load.kind == DeployLoad::Kind::Max
             ? disaggSaturated(pools, o.workload)
             : disaggAtRate(pools, o.workload, o.load.requestsPerS);
}

/// The drafts a search speculates with, one per GPU, TP and KV dtype (a draft model's engine
/// is the same for every scheme of the target).
class Drafts {
 public:
  explicit Drafts(const DeploySpace& sp) : m_sp(sp) {}
  /// `eng` (the target on `gpu` at `tp`) as the space prices it under speculation: its draft
  /// model's cost and memory, else its own MTP layer's; nullopt when the draft does not fit
  /// or cannot run at `tp`.
  std::optional<EngineServing> speculated(const EngineServing& eng, const GpuSpec& gpu, int tp,
                                          double kvBytes, const ServingWorkload& w) {
    SpeculativeDraft draft;
    if (m_sp.draftModel) {
      const auto key = std::make_tuple(gpu.id, tp, kvBytes);
      auto it = m_cache.find(key);
      if (it == m_cache.end()) it = m_cache.emplace(key, build(gpu, tp, kvBytes, w)).first;
      if (!it->second) return std::nullopt;
      draft = *it->second;
    } else {
      draft = mtpDraft(eng, static_cast<int>(m_sp.model.layers), tp);
    }
    auto se = speculativeServing(eng, draft, *m_sp.speculation);
    if (!se) return std::nullopt;
    return std::move(*se);
  }

 private:
  std::optional<SpeculativeDraft> build(const GpuSpec& gpu, int tp, double kvBytes,
                                        const ServingWorkload& w) const {
    if (checkTensorParallel(*m_sp.draftModel, tp)) return std::nullopt;
    const PointSpeculation ps = deploySpeculation(m_sp, gpu, tp, kvBytes, w);
    if (ps.draftCandidate.id.empty()) return std::nullopt;  // no baseline scheme to run it in
    auto eng = engineServing(*ps.draftScenario, ps.draftCandidate);
    if (!eng) return std::nullopt;
    return modelDraft(*eng, m_sp.draftModel->id, tp);
  }
  const DeploySpace& m_sp;
  std::map<std::tuple<std::string, int, double>, std::optional<SpeculativeDraft>> m_cache;
};

/// One engine a pool may run: a GPU, a scheme assignment and a TP, built once.
struct PoolEngine {
  const GpuSpec* gpu = nullptr;
  const Assignment* as = nullptr;
  int tp = 1;
  MoeLayout layout;
  EngineServing eng;
};

/// A prefill pool: an engine on a number of GPUs, and what one of its replicas does.
struct PrefillOption {
  const PoolEngine* e = nullptr;
  int gpus = 0;
  PrefillRates rates;
};

/// What a decode side (a decode pool at one batch cap) lets the search skip before it builds a
/// pairing: on the TPOT axis, at saturation or at a rate, a pairing's bounds in
/// offerDisaggregated are a cost of at least (both pools' USD an hour) over the most requests
/// the decode side completes (or the rate), and a TPOT of at least the decode side's kept step
/// (when it is the one asked) or its one-sequence step. So where the frontier beats those,
/// every pairing whose prefill pool costs as much an hour or more is one offerDisaggregated
/// would skip: the same pairs skipped, the same counts, without a bound evaluated. The costs
/// to beat are read again whenever a point joins the frontier (until then they only fall).
class SideCut {
 public:
  SideCut(const DeployOptions& o, const DecodeSide& side, double decodeUsdPerHour)
      : m_side(side), m_decodeUsdPerHour(decodeUsdPerHour) {
    const bool max = o.load.kind == DeployLoad::Kind::Max;
    m_rate = max ? side.rateMax : o.load.requestsPerS;
    m_usable = o.axis == LatencyAxis::Tpot && o.load.kind != DeployLoad::Kind::Sync &&
               side.nMax >= 1 && side.rateMax > 0 && m_rate > 0 && side.keeps(m_rate);
    m_rateBound = !max;
    if (m_usable) m_costPerUsdHour = 1e6 / (3600.0 * m_rate * o.workload.outputTokens);
  }
  /// Whether the pairing with a prefill pool of `prefillUsdPerHour` completing `prefillRate`
  /// requests a second is skipped by `front` as it stands.
  [[nodiscard]] bool skips(const DeployFrontier& front, double prefillUsdPerHour,
                           double prefillRate) {
    if (!m_usable || !(prefillRate > 0)) return false;
    // At a rate the pairing must sustain it to be skipped (else it is judged and refused).
    if (m_rateBound && !(m_rate < std::min(prefillRate, m_side.rateMax))) return false;
    if (front.version() != m_version || !m_read) {
      // A margin far above rounding: a pairing this skips, the exact bounds skip too.
      constexpr double kMargin = 1.0 + 1e-9;
      m_keptCut = front.costBeatenAt(m_side.stepAtBoundRate * 1e3) * kMargin;
      m_aloneCut = front.costBeatenAt(m_side.stepAtOne * 1e3) * kMargin;
      m_version = front.version();
      m_read = true;
    }
    const double leastCost = (prefillUsdPerHour + m_decodeUsdPerHour) * m_costPerUsdHour;
    // At saturation the kept step is the bound when the prefill pool outpaces the decode side
    // (at a rate it always is); offerDisaggregated then tests it alone, else the one-sequence
    // step: the same test here, so no ordering of the two steps is assumed.
    const bool kept = m_rateBound || prefillRate >= m_side.rateMax;
    return kept ? leastCost >= m_keptCut : leastCost >= m_aloneCut;
  }

 private:
  const DecodeSide& m_side;
  double m_decodeUsdPerHour = 0;
  double m_rate = 0;
  bool m_usable = false, m_rateBound = false, m_read = false;
  double m_costPerUsdHour = 0;
  double m_keptCut = 0, m_aloneCut = 0;
  std::uint64_t m_version = 0;
};

/// The deployment `as` names as a config (for the gates).
DeployConfig schemesOf(const Assignment& as) {
  DeployConfig c;
  c.linear = as.linear;
  c.moe = as.moe;
  c.lmHead = as.lmHead;
  return c;
}

/// One pairing of pools, the same at every batch cap of the decode pool: its pools, its GPUs
/// and their mean price, the parts of its bounds, and its configuration, made only when a cap
/// is judged (most pairings are skipped at every cap: 4.4 million of them in a per-kind search
/// of DeepSeek-V3 on three GPUs, each configuration a dozen strings).
struct Pairing {
  const DeploySpace* sp = nullptr;
  const PoolEngine* decode = nullptr;
  const PrefillOption* prefill = nullptr;
  std::size_t kvIndex = 0;
  DisaggPools pools;
  PairBoundsParts parts;
  int gpuCount = 0;
  double pricePerGpu = 0;
  /// price × GPUs / 3600: USD per second of the whole deployment.
  double usdPerS = 0;
  /// Where config() writes (one per decode pool, its strings' storage reused), and whether it
  /// has for this pairing.
  DeployConfig* proto = nullptr;
  bool made = false;

  DeployConfig& config() {
    if (made) return *proto;
    made = true;
    DeployConfig& c = *proto;
    const PoolEngine& d = *decode;
    const PoolEngine& pe = *prefill->e;
    c.gpu = d.gpu->id;
    c.tp = d.tp;
    c.setLayout(d.layout);
    c.replicas = pools.decodeReplicas;
    c.linear = d.as->linear;
    c.moe = d.as->moe;
    c.lmHead = d.as->lmHead;
    c.prefillGpu = pe.gpu->id;
    c.prefillTp = pe.tp;
    c.setPrefillLayout(pe.layout);
    c.prefillReplicas = pools.prefillReplicas;
    c.prefillLinear = pe.as->linear;
    c.prefillMoe = pe.as->moe;
    c.prefillLmHead = pe.as->lmHead;
    c.gpuCount = gpuCount;
    c.kvTransferMs = pools.kvTransferS * 1e3;
    c.kvDtype = sp->kvDtypes[kvIndex];
    return c;
  }
};

/// Judges one disaggregated deployment (`pair` at decode batch cap `maxBatch`, `side` its
/// decode side there) against the load, the SLOs and the gates. A pair the frontier already
/// beats at its bounds (its cost at its most throughput, its latency with one request in
/// flight) is skipped unsolved: it could not join the frontier.
void offerDisaggregated(const DeployOptions& o, Pairing& pair, const DecodeSide& side, int maxBatch,
                        Tally& t) {
  DeployResult& res = t.res;
  const DisaggBounds b = disaggBounds(pair.parts, side);
  double mostRequestsPerS = b.maxRequestsPerS;
  if (o.load.kind == DeployLoad::Kind::Rate) mostRequestsPerS = o.load.requestsPerS;
  if (o.load.kind == DeployLoad::Kind::Sync) {
    mostRequestsPerS = 1.0 / (b.minTtftS + std::max(o.workload.outputTokens - 1, 0.0) * b.minTpotS);
  }
  // A rate beyond the saturated one is rejected below, where the load's tally is kept.
  const bool stableAtBest =
      o.load.kind != DeployLoad::Kind::Rate || o.load.requestsPerS < b.maxRequestsPerS;
  if (stableAtBest && mostRequestsPerS > 0) {
    const double leastCost = pair.usdPerS / (mostRequestsPerS * o.workload.outputTokens) * 1e6;
    const double leastLatencyMs = (o.axis == LatencyAxis::Tpot ? b.minTpotS : b.minTtftS) * 1e3;
    // A pool completing many requests runs many sequences: its TPOT at the least concurrency
    // that rate needs is a tighter bound (never below the one-request TPOT), for one step
    // evaluation, none where the decode side kept it. Kept, it is the only test: what the
    // looser bound would skip, it skips too.
    const bool tighter = o.axis == LatencyAxis::Tpot && o.load.kind != DeployLoad::Kind::Sync;
    const bool kept = tighter && side.keeps(mostRequestsPerS);
    if (!kept && t.front.beats(leastLatencyMs, leastCost)) {
      ++res.skippedDominated;
      return;
    }
    if (tighter &&
        t.front.beats(disaggTpotAtLeast(pair.pools, o.workload, mostRequestsPerS, side) * 1e3,
                      leastCost)) {
      ++res.skippedDominated;
      return;
    }
  }
  ++res.evaluated;
  pair.pools.decodeLimits.maxBatch = maxBatch;
  const PrefillRates& pr = pair.prefill->rates;
  const DisaggState st = o.load.kind == DeployLoad::Kind::Sync
                             ? disaggSynchronous(pair.pools, o.workload, pr, side)
                         : o.load.kind == DeployLoad::Kind::Max
                             ? disaggSaturated(pair.pools, o.workload, pr, side)
                             : disaggAtRate(pair.pools, o.workload, o.load.requestsPerS, pr, side);
  if (!st.stable || !(st.outputTokPerS > 0)) {
    ++res.rejectedLoad;
    t.bestCapacity = std::max(t.bestCapacity, b.maxRequestsPerS);
    return;
  }
  DeployConfig& proto = pair.config();
  proto.maxBatch = maxBatch;
  judge(o, proto, proto.replicas, proto.gpuCount, st.ttftS, st.tpotS, st.outputTokPerS,
        pair.pricePerGpu, st.bindingLimit, t);
}

/// The prefill pools worth pairing: those whose schemes pass the gates, and of those of one
/// GPU, TP and GPU count (the same price, KV layout and transfer), the ones no other beats on
/// both the rate a replica completes and one prompt's prefill time. Exact at a rate and one
/// request at a time, where a faster prefill pool is never worse; at saturation it leaves
/// out a pool that is slower than another of its price (it would hold the deployment's
/// throughput down, which a lower decode batch cap also does).
std::vector<PrefillOption> prefillOptions(const DeploySpace& sp, const DeployOptions& o,
                                          const std::vector<PoolEngine>& engines,
                                          const std::vector<int>& counts) {
  std::vector<PrefillOption> all;
  for (const auto& e : engines) {
    if (o.gate && !o.gate(schemesOf(*e.as))) continue;
    const PrefillRates r = prefillRates(
        e.eng.steps, std::max(sp.tokenBudget, 1.0) * schedulerRanks(e.tp, e.layout.dpAttention),
        o.workload);
    for (int g : counts) {
      if (g % e.tp == 0 && g < sp.maxGpus) all.push_back(PrefillOption{&e, g, r});
    }
  }
  // Comparable: one price and one KV layout (the KV moved to decode; DP attention lays MLA's
  // KV out otherwise than TP). Each group is compared within itself (comparing every pair of
  // options took 6% of a per-kind search's time).
  std::map<std::tuple<const GpuSpec*, int, int, double>, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const PrefillOption& a = all[i];
    groups[{a.e->gpu, a.e->tp, a.gpus, a.e->eng.kvGroupBytesPerToken}].push_back(i);
  }
  std::vector<char> beaten(all.size(), 0);
  for (const auto& [key, members] : groups) {
    for (const std::size_t i : members) {
      const PrefillOption& a = all[i];
      beaten[i] = std::any_of(members.begin(), members.end(), [&](std::size_t j) {
        const PrefillOption& b = all[j];
        const bool noWorse =
            b.rates.perReplica >= a.rates.perReplica && b.rates.aloneS <= a.rates.aloneS;
        const bool better =
            b.rates.perReplica > a.rates.perReplica || b.rates.aloneS < a.rates.aloneS;
        // Equal on both: the first in order stays.
        return j != i && noWorse && (better || j < i);
      });
    }
  }
  std::vector<PrefillOption> kept;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!beaten[i]) kept.push_back(all[i]);
  }
  return kept;
}

/// Every disaggregated deployment: a prefill pool and a decode pool, each of any GPU of the
/// space, scheme assignment and TP (one engine each, built once per KV dtype), each pool's
/// GPUs one of deployGpuCounts, both together at most maxGpus, at every batch cap of the decode
/// pool. Prefill pools are paired as prefillOptions keeps them.
std::optional<Error> searchDisaggregated(const DeploySpace& sp, const DeployOptions& o,
                                         const std::vector<double>& kvBytes,
                                         const std::vector<Assignment>& assigns,
                                         const std::vector<int>& counts, Drafts& drafts, Tally& t) {
  const double I = o.workload.inputTokens, O = o.workload.outputTokens;
  const auto nCaps = static_cast<std::int64_t>(sp.batchCaps.size());
  // Configurations enumerated: every pool engine (built or not) at every GPU count it divides.
  std::vector<std::int64_t> perCount(counts.size(), 0);
  for (std::size_t ci = 0; ci < counts.size(); ++ci) {
    for (int tp : counts) {
      if (counts[ci] % tp == 0)
        perCount[ci] +=
            static_cast<std::int64_t>(sp.gpus.size() * assigns.size() * moeLayouts(sp, tp).size());
    }
  }
  std::int64_t spaceOfKv = 0;
  for (std::size_t pi = 0; pi < counts.size(); ++pi) {
    for (std::size_t di = 0; di < counts.size(); ++di) {
      if (counts[pi] + counts[di] <= sp.maxGpus) spaceOfKv += perCount[pi] * perCount[di] * nCaps;
    }
  }
  for (std::size_t ki = 0; ki < sp.kvDtypes.size(); ++ki) {
    t.res.space += spaceOfKv;
    std::vector<PoolEngine> engines;  // those that hold one prompt's KV
    for (const auto& gpu : sp.gpus) {
      for (const auto& as : assigns) {
        for (int tp : counts) {
          if (tp > 1 && !gpu.nvlinkGBps) continue;
          // Each pool takes any MoE layout at its TP, as an aggregated replica does.
          for (const MoeLayout& lay : moeLayouts(sp, tp)) {
            if (checkTensorParallel(sp.model, tp, lay.dpAttention, lay.ep)) continue;
            auto eng =
                engineServing(deployScenario(sp, gpu, tp, kvBytes[ki], o.workload, lay), as.a);
            if (!eng) return eng.error();
            if (sp.speculation) {
              // Both pools carry the draft: the prefill pool prefills it, the decode pool
              // drafts.
              auto se = drafts.speculated(*eng, gpu, tp, kvBytes[ki], o.workload);
              if (!se) continue;
              *eng = std::move(*se);
            }
            if (eng->kvCapacityTokens >= I) {
              engines.push_back(PoolEngine{&gpu, &as, tp, lay, std::move(*eng)});
            }
          }
        }
      }
    }
    const auto prefill = prefillOptions(sp, o, engines, counts);
    for (const auto& d : engines) {
      if (d.eng.kvCapacityTokens < I + O) continue;
      const double decodePrice = *d.gpu->pricePerGpuHourUsd;
      for (int dGpus : counts) {
        if (dGpus % d.tp != 0) continue;
        // The decode pool's side at each cap, shared by every prefill pool it pairs with.
        std::vector<DecodeSide> sides;
        {
          DisaggPools dp;
          dp.decode = &d.eng.steps;
          dp.decodeReplicas = dGpus / d.tp;
          dp.decodeLimits.kvCapacityTokens = d.eng.kvCapacityTokens;
          for (int cap : sp.batchCaps) {
            dp.decodeLimits.maxBatch = cap * schedulerRanks(d.tp, d.layout.dpAttention);
            DecodeSide side = decodeSide(dp, o.workload);
            // The rate the TPOT bound of offerDisaggregated is asked at for every prefill pool
            // this decode pool outpaces (at saturation) or for all (at a rate): its step once.
            if (o.load.kind == DeployLoad::Kind::Max && side.rateMax > 0) {
              keepTpotBoundAt(side, dp, o.workload, side.rateMax);
            } else if (o.load.kind == DeployLoad::Kind::Rate) {
              keepTpotBoundAt(side, dp, o.workload, o.load.requestsPerS);
              // A stable pairing's decode concurrency at the rate: its root search once.
              if (side.nMax >= 1 && o.load.requestsPerS < side.rateMax)
                keepStateAt(side, dp, o.workload, o.load.requestsPerS);
            }
            sides.push_back(side);
          }
        }
        const int decodeRanks = schedulerRanks(d.tp, d.layout.dpAttention);
        std::vector<SideCut> cuts;
        cuts.reserve(sides.size());
        for (const DecodeSide& side : sides) cuts.emplace_back(o, side, decodePrice * dGpus);
        std::vector<char> skip(sides.size());
        DeployConfig proto;  // reused: its strings keep their storage from one pairing to the next
        for (const auto& p : prefill) {
          if (p.gpus + dGpus > sp.maxGpus) continue;
          const PoolEngine& pe = *p.e;
          const double prefillUsdPerHour = *pe.gpu->pricePerGpuHourUsd * p.gpus;
          const double prefillRate = p.rates.perReplica * (p.gpus / pe.tp);
          std::size_t skipped = 0;
          for (std::size_t ci = 0; ci < cuts.size(); ++ci) {
            skip[ci] = cuts[ci].skips(t.front, prefillUsdPerHour, prefillRate);
            skipped += skip[ci];
          }
          t.res.skippedDominated += static_cast<std::int64_t>(skipped);
          if (skipped == cuts.size()) continue;
          Pairing pair;
          pair.sp = &sp;
          pair.decode = &d;
          pair.prefill = &p;
          pair.kvIndex = ki;
          pair.pools = makePools(sp, *pe.gpu, *d.gpu, I, pe.eng, pe.tp, p.gpus, d.eng, d.tp, dGpus,
                                 schedulerRanks(pe.tp, pe.layout.dpAttention));
          pair.parts = pairBoundsParts(pair.pools, o.workload, p.rates);
          pair.gpuCount = p.gpus + dGpus;
          // judge prices GPUs at one rate: the pools' mean.
          pair.pricePerGpu =
              (*pe.gpu->pricePerGpuHourUsd * p.gpus + decodePrice * dGpus) / pair.gpuCount;
          pair.usdPerS = pair.pricePerGpu * static_cast<double>(pair.gpuCount) / 3600.0;
          pair.proto = &proto;
          for (std::size_t ci = 0; ci < sp.batchCaps.size(); ++ci) {
            if (!skip[ci])
              offerDisaggregated(o, pair, sides[ci], sp.batchCaps[ci] * decodeRanks, t);
          }
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace

int schedulerRanks(int tp, bool dpAttention) {
  return dpAttention ? std::max(1, tp) : 1;
}

std::vector<int> deployGpuCounts(int maxGpus) {
  std::vector<int> counts;
  for (int c = 1; c <= std::min(maxGpus, kDefaultNvlinkDomainGpus); c *= 2) counts.push_back(c);
  // Whole nodes up to 16 of them (the widest expert-parallel replicas run: EP 72 to 144),
  // then powers of two, so the space stays in proportion to the largest count's log.
  constexpr int kWholeNodesUpTo = 16 * kDefaultNvlinkDomainGpus;
  for (int c = 2 * kDefaultNvlinkDomainGpus; c <= std::min(maxGpus, kWholeNodesUpTo);
       c += kDefaultNvlinkDomainGpus)
    counts.push_back(c);
  for (int c = 2 * kWholeNodesUpTo; c <= maxGpus; c *= 2) counts.push_back(c);
  return counts;
}

std::vector<MoeLayout> moeLayouts(const DeploySpace& sp, int tp) {
  std::vector<MoeLayout> out{{1, false}};
  if (!sp.moeParallel || !sp.model.isMoe()) return out;
  const int experts = static_cast<int>(sp.model.experts);
  std::vector<int> degrees;
  for (int ep = 1; ep <= tp; ep *= 2) {
    if (tp % ep == 0) degrees.push_back(ep);
  }
  // A replica of whole nodes (24, 72 GPUs) also spreads the experts over every GPU.
  if (degrees.back() != tp) degrees.push_back(tp);
  for (int ep : degrees) {
    // An EP degree that does not divide the experts takes the fewest redundant slots that
    // make it divide experts + slots, as the engines' load balancer places them.
    MoeLayout lay{ep, false};
    lay.redundantExperts = ep > 1 ? (ep - experts % ep) % ep : 0;
    if (ep > 1) out.push_back(lay);
    lay.dpAttention = true;
    if (tp >= 2) out.push_back(lay);
    // Two-batch overlap hides the all-to-all of DP attention at EP = tp.
    lay.twoBatchOverlap = true;
    if (sp.twoBatchOverlap && tp >= 2 && ep == tp) out.push_back(lay);
  }
  return out;
}

Scenario deployScenario(const DeploySpace& sp, const GpuSpec& gpu, int tp, double kvBytesPerElement,
                        const ServingWorkload& w, MoeLayout layout) {
  Scenario s;
  s.model = sp.model;
  s.gpu = gpu;
  s.tp = tp;
  s.ep = layout.ep;
  s.dpAttention = layout.dpAttention;
  s.redundantExperts = layout.redundantExperts;
  s.twoBatchOverlap = layout.twoBatchOverlap;
  if (layout.ep > 1) s.expertImbalance = sp.expertImbalance;
  s.maxModelLen = static_cast<std::int64_t>(std::ceil(w.inputTokens + w.outputTokens));
  s.kvBytesPerElement = kvBytesPerElement;
  s.memUtil = sp.memUtil;
  s.reserveGib = sp.reserveGib;
  sp.catalog->setFallbacks(s);
  if (!sp.datasheet) s.checkpointLmHead = sp.catalog->checkpointLmHead();
  // The constants the rest of the tool predicts with: the GPU file's calibration, else the
  // catalog's bundled defaults; the ideal roofline only when asked for.
  s.efficiency = scenarioEfficiency(gpu, sp.datasheet, *sp.catalog);
  return s;
}

Result<SchemeAssignment> deployAssignment(const DeploySpace& sp, const DeployConfig& c) {
  for (auto& x : assignments(sp)) {
    if (x.linear == c.linear && x.moe == c.moe && x.lmHead == c.lmHead) return std::move(x.a);
  }
  return Error{"", "", "schemes", "'" + c.schemeId() + "' is not an assignment of the search"};
}

PointSpeculation deploySpeculation(const DeploySpace& sp, const GpuSpec& gpu, int tp,
                                   double kvBytes, const ServingWorkload& w) {
  PointSpeculation ps;
  ps.speculation = *sp.speculation;
  if (sp.draftModel) {
    DeploySpace ds = sp;
    ds.model = *sp.draftModel;
    ps.draftScenario = deployScenario(ds, gpu, tp, kvBytes, w);
    if (auto base = sp.catalog->scheme(sp.catalog->baselineSchemeId())) {
      ps.draftCandidate.id = base->id;
      ps.draftCandidate.linear = *base;
    }
  }
  return ps;
}

Result<DisaggState> disaggregatedState(const DeploySpace& sp, const DeployOptions& o,
                                       const DeployConfig& c, const std::string& constant,
                                       double delta) {
  if (!c.disaggregated()) return Error{"", "", "prefill_tp", "the deployment is not disaggregated"};
  auto gpuOf = [&](const std::string& id) -> const GpuSpec* {
    const auto g =
        std::find_if(sp.gpus.begin(), sp.gpus.end(), [&](const GpuSpec& x) { return x.id == id; });
    return g == sp.gpus.end() ? nullptr : &*g;
  };
  const GpuSpec* pg = gpuOf(c.prefillGpu);
  const GpuSpec* dg = gpuOf(c.gpu);
  if (!pg || !dg) {
    return Error{"", "", "gpu", "'" + (pg ? c.gpu : c.prefillGpu) + "' is not in the search"};
  }
  const double kv = kvBytesForDtype(c.kvDtype);
  auto build = [&](const GpuSpec& gpu, const DeployConfig& pool) -> Result<EngineServing> {
    auto as = deployAssignment(sp, pool);
    if (!as) return as.error();
    Scenario s = deployScenario(sp, gpu, pool.tp, kv, o.workload, pool.layout());
    if (!constant.empty()) s.efficiency = perturbed(s.efficiency, constant, delta);
    auto eng = engineServing(s, *as);
    // Both pools carry the draft, as the search priced them, at the same constants.
    if (eng && sp.speculation) {
      eng = speculativeEngineServing(*eng, s, deploySpeculation(sp, gpu, pool.tp, kv, o.workload),
                                     s.efficiency);
    }
    return eng;
  };
  auto pe = build(*pg, c.prefillPool());
  if (!pe) return pe.error();
  auto de = build(*dg, c);
  if (!de) return de.error();
  if (pe->kvCapacityTokens < o.workload.inputTokens ||
      de->kvCapacityTokens < o.workload.inputTokens + o.workload.outputTokens) {
    return Error{"", "", "gpu_count", "a pool of the deployment does not fit in memory"};
  }
  DisaggPools pools = makePools(sp, *pg, *dg, o.workload.inputTokens, *pe, c.prefillTp,
                                c.prefillTp * c.prefillReplicas, *de, c.tp, c.tp * c.replicas,
                                schedulerRanks(c.prefillTp, c.prefillDpAttention));
  pools.decodeLimits.maxBatch = c.maxBatch;
  return disaggAtLoad(o, pools);
}

Result<DeployResult> searchDeployments(const DeploySpace& sp, const DeployOptions& o) {
  std::vector<double> kvBytes;
  if (auto e = checkSearch(sp, o, kvBytes)) return *e;

  const auto assigns = assignments(sp);
  const std::vector<int> counts = deployGpuCounts(sp.maxGpus);

  Tally t;
  DeployResult& res = t.res;
  const double I = o.workload.inputTokens, O = o.workload.outputTokens;
  Drafts drafts(sp);

  for (const auto& gpu : sp.gpus) {
    const double price = *gpu.pricePerGpuHourUsd;
    for (int tp : counts) {
      // Replica options at this TP: every count that is a multiple of it.
      std::vector<int> replicaOptions;
      for (int c : counts)
        if (c % tp == 0) replicaOptions.push_back(c / tp);
      const auto perCurve = static_cast<std::int64_t>(replicaOptions.size() * sp.batchCaps.size());
      const bool linked = tp == 1 || gpu.nvlinkGBps.has_value();
      for (const MoeLayout& lay : moeLayouts(sp, tp)) {
        // DP attention leaves the heads whole: TP 72 runs DeepSeek-V3's 128 heads so.
        const bool tpPossible =
            linked && !checkTensorParallel(sp.model, tp, lay.dpAttention, lay.ep).has_value();
        for (std::size_t ki = 0; ki < sp.kvDtypes.size(); ++ki) {
          for (const auto& as : assigns) {
            res.space += perCurve;
            if (!tpPossible) {
              res.rejectedMemory += perCurve;
              continue;
            }
            const Scenario s = deployScenario(sp, gpu, tp, kvBytes[ki], o.workload, lay);
            auto eng = engineServing(s, as.a);
            if (!eng) return eng.error();
            if (eng->kvCapacityTokens < I + O) {
              res.rejectedMemory += perCurve;
              continue;
            }
            if (sp.speculation) {
              auto se = drafts.speculated(*eng, gpu, tp, kvBytes[ki], o.workload);
              if (!se || se->kvCapacityTokens < I + O) {
                res.rejectedMemory += perCurve;
                continue;
              }
              *eng = std::move(*se);
            }
            // Under DP attention each GPU schedules its own: caps and budget are a rank's.
            const int ranks = schedulerRanks(tp, lay.dpAttention);
            for (int rankCap : sp.batchCaps) {
              const int cap = rankCap * ranks;
              ServingLimits lim;
              lim.maxBatch = cap;
              // Every running sequence's decode (k + 1 verify tokens under speculation) fits.
              lim.tokenBudget = std::max(sp.tokenBudget * ranks,
                                         static_cast<double>(cap) * eng->steps.decodeTokensPerSeq);
              lim.kvCapacityTokens = eng->kvCapacityTokens;
              DeployConfig proto;
              proto.gpu = gpu.id;
              proto.tp = tp;
              proto.setLayout(lay);
              proto.linear = as.linear;
              proto.moe = as.moe;
              proto.lmHead = as.lmHead;
              proto.kvDtype = sp.kvDtypes[ki];
              proto.maxBatch = cap;
              offerReplicas(o, eng->steps, lim, proto, price, replicaOptions, t);
            }
          }
        }
      }
    }
  }
  if (sp.disaggregated) {
    if (auto e = searchDisaggregated(sp, o, kvBytes, assigns, counts, drafts, t)) return *e;
  }
  res.frontier = t.front.take();
  if (!res.frontier.empty()) {
    res.best = res.frontier.back();
  } else {
    res.nothingFeasible = nothingFeasibleReason(res, o, t.bestCapacity, t.bestTtft, t.bestTpot);
  }
  return res;
}

}  // namespace qf
