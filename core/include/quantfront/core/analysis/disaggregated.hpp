#pragma once
/// Disaggregated prefill and decode (docs/model.md, "Disaggregated prefill and decode"): a
/// prefill pool of replicas that only prefill, a decode pool of replicas that only decode, and
/// each request's KV moved from one to the other. The analytic steady state of both pools at a
/// load, from the same step times the aggregated serving model reads.
#include <string>

#include <quantfront/core/model/hardware.hpp>
#include <quantfront/core/model/serving_model.hpp>

namespace qf {

/// One NIC per GPU at 400 Gb/s (50 GB/s), what an InfiniBand or RoCE H100/H200 node carries:
/// the KV of pools on different nodes moves at this rate per sending GPU.
inline constexpr double kNetworkBytesPerSPerGpu = 50e9;
/// Within one node (both pools on at most 8 GPUs) the KV moves over NVLink.
inline constexpr int kGpusPerNode = 8;

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
/// node (`totalGpus` ≤ 8, one GPU type — `sameGpu` — and the GPU has NVLink), else over one
/// 50 GB/s NIC per GPU (pools of two GPU types are two kinds of node).
double kvTransferS(const GpuSpec& gpu, double groupBytesPerToken, double tokens, int prefillTp,
                   int decodeTp, int totalGpus, bool sameGpu = true);

/// Saturated: the smaller of what the prefill pool admits and what the decode pool completes.
DisaggState disaggSaturated(const DisaggPools& p, const ServingWorkload& w);
/// At a Poisson rate over the whole deployment (split evenly over each pool's replicas):
/// unstable at or above the saturated rate.
DisaggState disaggAtRate(const DisaggPools& p, const ServingWorkload& w, double requestsPerS);
/// One request at a time through both pools.
DisaggState disaggSynchronous(const DisaggPools& p, const ServingWorkload& w);

}  // namespace qf
