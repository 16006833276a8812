#pragma once
/// Serving under load: a continuous-batching server with chunked prefill (a token budget per
/// step), a batch cap and a KV-cache capacity, modelled two ways (docs/model.md, "Serving under
/// load"):
///   - steadyState: analytic, for the deployment search (saturated throughput, and TTFT/TPOT
///     at a request rate);
///   - simulateServing: a seeded discrete-event simulation of one replica (Poisson arrivals,
///     per-request TTFT/TPOT, preemption by recompute when the KV cache runs out), for curves.
/// Both read step times only through StepTimeModel: "prefill time for n tokens at context c"
/// and "decode step time at batch b and context c".
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/model/engine.hpp>

namespace qf {

/// The two step times a serving model needs, in seconds. Contexts are tokens already in the
/// sequence's KV cache.
struct StepTimeModel {
  /// One prefill pass over `tokens` new prompt tokens of a sequence holding `context` tokens.
  std::function<double(double tokens, double context)> prefillS;
  /// One decode step of `batch` sequences whose mean context is `context`.
  std::function<double(double batch, double context)> decodeStepS;
  /// t_req: what a served request pays besides the engine's steps (tokenising, scheduling,
  /// the HTTP round trip, streaming the first token), seconds, added to its TTFT.
  double requestOverheadS = 0;
  /// A decode-shaped pass of the GEMMs over `tokens` tokens at no context, for pricing prompt
  /// chunks in a mixed step; unset: decodeStepS(tokens, 0). Set under speculation, where
  /// decodeStepS is the time per accepted token, not one pass.
  std::function<double(double tokens)> passS;
  /// Tokens each decoding sequence puts through the GEMMs per step (k + 1 under speculation).
  double decodeTokensPerSeq = 1;
};

/// One engine step that decodes `decodeSeqs` sequences (mean context `decodeContext`) and
/// prefills `prefillTokens` prompt tokens in `prefillChunks` chunks (one per sequence, mean
/// context `prefillContext`). Tokens are tokens to the GEMMs: the step costs a decode-shaped
/// pass over all its tokens at no context (decodeStepS(d + p, 0)), plus the decodes' attention
/// (decodeStepS(d, c) − decodeStepS(d, 0)), plus what each chunk's prefill costs beyond a
/// decode-shaped pass of its tokens (prefillS(n, c) − decodeStepS(n, 0): its attention). With
/// no prefill it is decodeStepS; with one chunk and no decode it is prefillS. Under
/// speculation (passS set) the chunks cost the pass's margin above the decodes' verify tokens.
double mixedStepS(const StepTimeModel& m, double decodeSeqs, double decodeContext,
                  double prefillTokens, double prefillContext, double prefillChunks = 1);

/// What a serving model needs of the analytic engine for one candidate on one scenario.
struct EngineServing {
  /// Decode: the engine's decode step at the given context (StepCurve::decodeStepSeconds).
  /// Prefill of n tokens after c cached ones: the engine's prefill of n tokens
  /// (StepCurve::prefillSeconds) plus their attention over the c cached tokens.
  StepTimeModel steps;
  CapacityReport capacity;  ///< weights, KV per token (at the scenario's max model length)
  /// KV-cache tokens one replica holds (budget − weights over the KV bytes of a token of every
  /// layer; a windowed layer counted in full); 0 when the weights do not fit.
  double kvCapacityTokens = 0;
  /// One token's KV on all the replica's GPUs together: the model's KV bytes per token times
  /// TP over ModelArch::kvShards (replicated KV heads and MLA's latent count on every rank).
  double kvGroupBytesPerToken = 0;
};
/// Builds the step times and the capacity. Errors: as buildStepCurve.
Result<EngineServing> engineServing(const Scenario& s, const SchemeAssignment& cand);

/// What a replica can hold and schedule.
struct ServingLimits {
  int maxBatch = 256;              ///< running sequences at most (vLLM max_num_seqs)
  double tokenBudget = 8192;       ///< tokens per step (max_num_batched_tokens)
  double kvCapacityTokens = 1e18;  ///< KV-cache tokens the replica holds
};

/// The batch cap and token budget a serving engine runs with when its launch sets neither
/// (docs/model.md, "Engines' admission defaults"), read off each engine's own argument code:
///   - vLLM (and an unnamed engine), the API server: 1024 sequences and 8,192 tokens a step on
///     a GPU of at least 70 GiB that is not an A100, else 256 and 2,048;
///   - SGLang: request slots from its KV pool, ⌊KV tokens / context × 512⌋ held to 2,048–4,096
///     (2,048 when `kvTokens` or `contextTokens` is 0), and a prefill chunk of 2,048 tokens
///     below 35 GiB, 4,096 below 60 GiB, 8,192 below 160 GiB, else 16,384; its decode batch
///     and prefill chunk run as separate passes, so the model's one mixed step takes both
///     (budget = slots + chunk);
///   - TensorRT-LLM (trtllm-serve): 2,048 sequences and 8,192 tokens.
/// Under DP attention (`dpRanks` schedulers a replica, its GPUs) vLLM's and TensorRT-LLM's are
/// a rank's, so the replica's are theirs times dpRanks; SGLang's stay the server's.
struct AdmissionDefaults {
  int maxBatch = 256;
  double tokenBudget = 8192;
  std::string rule;  ///< where the figures come from, e.g. "vLLM's default on a GPU of >= 70 GiB"
};
AdmissionDefaults engineAdmissionDefaults(const std::string& engine, const GpuSpec& gpu,
                                          double kvTokens = 0, double contextTokens = 0,
                                          int dpRanks = 1);

/// A request shape: prompt and output tokens (means, for the analytic model).
struct ServingWorkload {
  double inputTokens = 1024;
  double outputTokens = 128;
};

/// Analytic steady state of one replica.
struct SteadyState {
  bool stable = true;        ///< the offered rate is below the saturated throughput
  double concurrency = 0;    ///< mean running sequences
  double requestsPerS = 0;   ///< completed requests per second (the rate, or saturated)
  double outputTokPerS = 0;  ///< requestsPerS · output tokens
  double ttftS = 0;          ///< mean time to first token (queueing + prefill)
  double tpotS = 0;          ///< mean time per output token after the first
  double stepS = 0;          ///< mean step time
  std::string bindingLimit;  ///< what caps concurrency: "batch cap", "KV cache", "token budget"
};

/// Saturated steady state: the queue never empties and concurrency is at its cap (the smaller of
/// the batch cap and the sequences whose prompt and output the KV cache holds). TTFT is from
/// admission: the wait for the prefills of those admitted ahead (a closed loop of the C
/// sequences) and the prefill (the wait for admission is unbounded at saturation).
SteadyState saturatedState(const StepTimeModel& m, const ServingLimits& lim,
                           const ServingWorkload& w);
/// Steady state at `concurrency` running sequences (1 = synchronous serving).
SteadyState stateAtConcurrency(const StepTimeModel& m, const ServingLimits& lim,
                               const ServingWorkload& w, double concurrency);
/// Steady state at a Poisson request rate (requests per second, one replica): the concurrency
/// whose throughput equals the rate, and TTFT with an M/D/c queueing wait (Allen–Cunneen).
/// Unstable (stable = false, ttft infinite) at or above the saturated throughput.
SteadyState stateAtRate(const StepTimeModel& m, const ServingLimits& lim, const ServingWorkload& w,
                        double requestsPerS);

/// Request lengths for the simulation: fixed, or drawn per request.
struct LengthDistribution {
  enum class Kind { Fixed, Uniform, Empirical } kind = Kind::Fixed;
  double mean = 0;              ///< Fixed: the length; Uniform: the mean
  double spread = 0;            ///< Uniform: lengths in [mean·(1−spread), mean·(1+spread)]
  std::vector<double> samples;  ///< Empirical: drawn uniformly with replacement
};

/// What to simulate.
struct SimOptions {
  double requestsPerS = 1;                   ///< Poisson rate; +inf: every request arrives at t = 0
  std::optional<int> closedLoopConcurrency;  ///< set: a closed loop (1 = synchronous serving)
  int requests = 10000;
  std::uint64_t seed = 1;
  LengthDistribution input, output;
  double sloTtftS = 0;  ///< goodput counts requests meeting every SLO set (> 0)
  double sloTpotS = 0;
};

struct SimResult {
  int completed = 0;
  int preemptions = 0;
  double durationS = 0;  ///< first arrival to last completion
  double requestsPerS = 0;
  double outputTokPerS = 0;
  double goodputReqPerS = 0;  ///< requests meeting the SLOs per second (all when none is set)
  double ttftP50S = 0, ttftP99S = 0, tpotP50S = 0, tpotP99S = 0;
  double ttftMeanS = 0, tpotMeanS = 0;
  /// Inter-token latency percentiles: every decoded token's gap (the step that produced it).
  double itlP50S = 0, itlP99S = 0;
  double meanConcurrency = 0;  ///< running sequences, time-weighted
  std::int64_t steps = 0;
};

/// Simulates one replica. Scheduling as vLLM's: each step decodes every running sequence,
/// then spends what is left of the token budget on prompt chunks (first-come first-served),
/// admitting waiting requests while a slot is free and the KV cache can hold their prompt and
/// the mean output length (a reservation, as TensorRT-LLM's no-evict policy makes with
/// max_tokens: the server does not know a request's length, only the workload's mean). A
/// decode that finds the cache full (a request longer than the mean) preempts the most
/// recently admitted sequence, which returns to the head of the queue and recomputes its
/// prompt and the tokens it had generated.
/// Deterministic for a seed. Errors: bad options (named field).
Result<SimResult> simulateServing(const StepTimeModel& m, const ServingLimits& lim,
                                  const SimOptions& o);

/// The most work one simulation (or one command's simulations together) may take, in
/// sequence-steps: each request's output tokens plus its prompt chunks. About 10 s of one
/// core at the simulation's slowest (one sequence a step: 52 ns a sequence-step measured),
/// 2 s when the batch fills (11 ns); 10^4 requests of 1,024 output tokens are 5% of it.
inline constexpr double kMaxSimulatedSequenceSteps = 2e8;

/// The expected work of simulateServing(lim, o) in sequence-steps (mean lengths).
double simulationWork(const ServingLimits& lim, const SimOptions& o);

/// An error naming the work and the limit when `work` (a sum of simulationWork) is past
/// kMaxSimulatedSequenceSteps.
std::optional<Error> checkSimulationWork(double work);

/// Checks limits and workload (positive lengths, budget ≥ 1, batch cap ≥ 1).
std::optional<Error> validateServing(const ServingLimits& lim, const ServingWorkload& w);

}  // namespace qf
