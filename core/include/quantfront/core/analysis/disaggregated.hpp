#pragma once
/// Disaggregated prefill and decode (docs/model.md, "Disaggregated prefill and decode"): a
/// prefill pool of replicas that only prefill, a decode pool of replicas that only decode, and
/// each request's KV moved from one to the other. The analytic steady state of both pools at a
/// load, from the same step times the aggregated serving model reads.
#include <string>

#include <quantfront/core/model/hardware.hpp>
#include <quantfront/core/model/serving_model.hpp>

namespace qf {

/// The two pools as the steady state needs them.
struct DisaggPools {
  const StepTimeModel* prefill = nullptr;  ///< a prefill replica's step times
  int prefillReplicas = 1;
  double prefillBudget = 8192;            ///< tokens a prefill step takes (chunked prefill)
  const StepTimeModel* decode = nullptr;  ///< a decode replica's step times
  int decodeReplicas = 1;
  ServingLimits decodeLimits;  ///< batch cap and KV capacity of a decode replica
  double kvTransferS = 0;      ///< one request's KV from prefill to decode
};

/// The deployment's steady state (both pools together).
struct DisaggState {
  bool stable = true;
  double requestsPerS = 0;       ///< the whole deployment
  double outputTokPerS = 0;      ///< the whole deployment
  double ttftS = 0;              ///< t_req, the prefill queue and the prefill (the first token)
  double tpotS = 0;              ///< decode step, plus the KV transfer spread over the later tokens
  double decodeConcurrency = 0;  ///< running sequences per decode replica
  std::string bindingLimit;      ///< "prefill pool", "batch cap" or "KV cache"
};

/// A prefill replica on its own: requests per second it completes at a full budget of
/// `budget` tokens a step (whole prompts while the budget holds them, else chunks), and one
/// prompt's prefill with nothing else in the step.
struct PrefillRates {
  double perReplica = 0;
  double aloneS = 0;
};
PrefillRates prefillRates(const StepTimeModel& m, double budget, const ServingWorkload& w);

/// Seconds to move `tokens` tokens of KV (`groupBytesPerToken` over the prefill replica's GPUs
/// together) from a prefill replica of `prefillTp` GPUs to a decode replica of `decodeTp`:
/// each GPU pair in parallel, over NVLink (half its two-way figure) when both pools fit one
/// NVLink domain (`totalGpus` ≤ the GPU's nvlinkDomainGpus, 8 by default; one GPU type —
/// `sameGpu` — and the GPU has NVLink), else over the GPU's network (networkGBps, one 50 GB/s
/// NIC per GPU by default; pools of two GPU types are two kinds of node).
double kvTransferS(const GpuSpec& gpu, double groupBytesPerToken, double tokens, int prefillTp,
                   int decodeTp, int totalGpus, bool sameGpu = true);

/// A decode pool's figures that every pairing with a prefill pool shares: the most sequences
/// a replica runs (its batch cap, or what its KV holds), the pool's completion rate there, and
/// a replica's step with one sequence. The search computes them once per decode pool and cap.
struct DecodeSide {
  double nMax = 0;
  bool kvBound = false;
  double rateMax = 0;    ///< requests per second over the pool's replicas at nMax
  double stepAtOne = 0;  ///< one sequence's decode step, without the KV transfer
  /// disaggTpotAtLeast's step at boundRate requests per second, kept by keepTpotBoundAt (0:
  /// none kept): the search asks it of every prefill pool the decode pool outpaces.
  double boundRate = 0;
  double stepAtBoundRate = 0;
  /// Whether disaggTpotAtLeast at `requestsPerS` takes the kept step (no step evaluation).
  [[nodiscard]] bool keeps(double requestsPerS) const {
    return boundRate > 0 && requestsPerS == boundRate;
  }
  /// The decode concurrency disaggAtRate solves at stateRate requests per second over the
  /// pool's replicas, and a replica's step there, kept by keepStateAt (stateRate 0: none): the
  /// same for every prefill pool the search pairs with this decode pool at a rate.
  double stateRate = 0;
  double concurrencyAtRate = 0;
  double stepAtRate = 0;
  [[nodiscard]] bool keepsStateAt(double requestsPerS) const {
    return stateRate > 0 && requestsPerS == stateRate;
  }
};
DecodeSide decodeSide(const DisaggPools& p, const ServingWorkload& w);
/// Keeps in `d` the decode step disaggTpotAtLeast(p, w, requestsPerS, d) needs, so that asking
/// it at that rate again takes no step evaluation (the same figure, not an approximation).
void keepTpotBoundAt(DecodeSide& d, const DisaggPools& p, const ServingWorkload& w,
                     double requestsPerS);

/// Keeps in `d` the decode concurrency and step disaggAtRate(p, w, requestsPerS, pr, d) solves
/// for (the same figures: its root search is done once instead of once per prefill pool).
void keepStateAt(DecodeSide& d, const DisaggPools& p, const ServingWorkload& w,
                 double requestsPerS);

/// What a deployment cannot beat at any load, known before its steady state is solved: the
/// most requests per second it completes (its saturated rate) and its TTFT and TPOT with one
/// request in flight (both only grow with the load).
struct DisaggBounds {
  double maxRequestsPerS = 0;
  double minTtftS = 0;
  double minTpotS = 0;
};
DisaggBounds disaggBounds(const DisaggPools& p, const ServingWorkload& w, const PrefillRates& pr,
                          const DecodeSide& d);
/// What disaggBounds takes from one pairing of pools, the same at every batch cap of the decode
/// pool: the prefill pool's rate, one prompt's TTFT, and the KV transfer per decode gap.
struct PairBoundsParts {
  double prefillRate = 0;
  double minTtftS = 0;
  double kvPerGapS = 0;
};
PairBoundsParts pairBoundsParts(const DisaggPools& p, const ServingWorkload& w,
                                const PrefillRates& pr);
/// disaggBounds from the pairing's shared parts and the decode side at one cap (the same
/// figures, for a search that asks them at every cap).
DisaggBounds disaggBounds(const PairBoundsParts& pp, const DecodeSide& d);
/// A TPOT the deployment cannot beat while completing `requestsPerS` over its decode replicas:
/// a replica completing r requests a second runs n = r·(O − 1)·t(n) sequences, and t(n) ≥ t(1),
/// so n ≥ r·(O − 1)·t(1) and the TPOT is at least the step there (one step evaluation where
/// the exact concurrency takes a root search).
double disaggTpotAtLeast(const DisaggPools& p, const ServingWorkload& w, double requestsPerS,
                         const DecodeSide& d);

/// Saturated: the smaller of what the prefill pool admits and what the decode pool completes.
DisaggState disaggSaturated(const DisaggPools& p, const ServingWorkload& w);
/// At a Poisson rate over the whole deployment (split evenly over each pool's replicas):
/// unstable at or above the saturated rate.
DisaggState disaggAtRate(const DisaggPools& p, const ServingWorkload& w, double requestsPerS);
/// One request at a time through both pools.
DisaggState disaggSynchronous(const DisaggPools& p, const ServingWorkload& w);
/// The same three from the pools' shared parts, computed once: `pr` the prefill replica's rates
/// at p.prefillBudget, `d` decodeSide(p, w). Equal to the above.
DisaggState disaggSaturated(const DisaggPools& p, const ServingWorkload& w, const PrefillRates& pr,
                            const DecodeSide& d);
DisaggState disaggAtRate(const DisaggPools& p, const ServingWorkload& w, double requestsPerS,
                         const PrefillRates& pr, const DecodeSide& d);
DisaggState disaggSynchronous(const DisaggPools& p, const ServingWorkload& w,
                              const PrefillRates& pr, const DecodeSide& d);

}  // namespace qf
