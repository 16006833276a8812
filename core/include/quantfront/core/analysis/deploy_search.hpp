#pragma once
/// The deployment search (docs/model.md, "Deployment search"): every GPU × GPU count ×
/// TP/replica split × scheme per layer kind × KV dtype × batch cap that fits in memory is
/// evaluated at the analytic steady state of serving_model.hpp; those meeting the SLOs (and the
/// quality gates, when given) form a frontier of USD per million output tokens against TPOT
/// (or TTFT). Memory is bounded by the frontier, not the space.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/analysis/disaggregated.hpp>
#include <quantfront/core/analysis/e2e_calibration.hpp>
#include <quantfront/core/base/error.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/model/serving_model.hpp>
#include <quantfront/core/model/speculation.hpp>

namespace qf {

/// The offered load every configuration is judged at.
struct DeployLoad {
  enum class Kind { Sync, Max, Rate } kind = Kind::Max;
  double requestsPerS = 0;  ///< Rate: the whole deployment's request rate
};
/// "sync", "max" or "R req/s".
std::string deployLoadText(const DeployLoad& l);

/// The latency the frontier is drawn against.
enum class LatencyAxis { Tpot, Ttft };

/// What to search.
struct DeploySpace {
  ModelArch model;
  std::vector<GpuSpec> gpus;    ///< each with a price (the caller refuses unpriced ones)
  int maxGpus = 8;              ///< GPU counts up to this (deployGpuCounts)
  std::vector<Scheme> schemes;  ///< the schemes each layer kind may take
  bool perKind = false;         ///< every kind its own scheme (else one per candidate)
  std::vector<std::string> kvDtypes{"bf16", "fp8"};
  /// Per scheduler: a replica's under DP attention are these times its GPUs (schedulerRanks).
  std::vector<int> batchCaps{1,  2,   4,   8,   16,  24,  32,  48,  64,
                             96, 128, 192, 256, 384, 512, 768, 1024};
  double tokenBudget = 8192;  ///< per step, per scheduler (a replica, or a DP rank)
  double memUtil = 0.92;
  /// The ideal roofline (no per-step overhead, datasheet bandwidth and peaks) instead of the
  /// GPU's calibration or the catalog's bundled defaults (qfront search --datasheet).
  bool datasheet = false;
  double reserveGib = 6.0;
  const Catalog* catalog = &Catalog::bundled();  ///< its fallback kernels price missing paths
  /// Speculative decoding with the target's MTP layer on every deployment (docs/model.md,
  /// "Speculative decoding"): the layer's weights and KV leave the pool, a step verifies
  /// B·(k + 1) tokens and the token budget is at least the batch cap's verify tokens.
  std::optional<Speculation> speculation;
  /// Under speculation, a draft model in place of the MTP layer: run in the catalog's
  /// baseline scheme on each replica's GPUs at its TP, with the GPU's constants (docs/model.md,
  /// "Speculative decoding"); a TP that does not divide its heads leaves the replica out.
  std::optional<ModelArch> draftModel;
  /// MoE models: every expert-parallel degree (powers of two dividing the replica's GPUs and
  /// the replica's GPUs themselves; one
  /// that does not divide the experts with the fewest redundant slots that make it) with and
  /// without DP attention, beside plain TP (docs/model.md, "Expert parallelism and DP
  /// attention"); off: plain TP only. No effect on a dense model.
  bool moeParallel = true;
  /// The busiest GPU's routed-expert work over the mean under EP (1: uniform routing).
  double expertImbalance = 1.0;
  /// MoE layouts whose all-to-all two-batch overlap can hide (DP attention, EP over every GPU
  /// of the replica) are also tried with it (docs/model.md, "Two-batch overlap").
  bool twoBatchOverlap = false;
  /// Also search disaggregated deployments (docs/model.md, "Disaggregated prefill and
  /// decode"): a prefill pool and a decode pool, each with its own GPU (of `gpus`), scheme
  /// assignment, TP and replicas, one KV dtype for both, their GPUs together at most maxGpus.
  bool disaggregated = false;
};

/// The layouts the search tries at `tp`: plain TP, then for a MoE model with moeParallel each
/// EP degree (a power of two dividing tp, and tp itself: EP 24 or 72 over whole nodes; where
/// it does not divide the experts, with the fewest redundant slots that make it divide
/// experts + slots) without and with DP attention (tp at least 2); with twoBatchOverlap, DP
/// attention at EP = tp also with two-batch overlap.
std::vector<MoeLayout> moeLayouts(const DeploySpace& space, int tp);

/// The schedulers that admit a replica's sequences side by side: its GPUs under DP attention
/// (each rank its own batch cap and token budget, as vLLM's --max-num-seqs and
/// --max-num-batched-tokens are per data-parallel rank), else one. The search's batch caps
/// and token budget are a rank's; a replica's are theirs times this.
int schedulerRanks(int tp, bool dpAttention);

/// The GPU counts the search tries, for deployments and for TP: 1, 2, 4 and 8 (the splits
/// of one HGX node), then whole 8-GPU nodes (16, 24, 32, ..., 128), then powers of two (256,
/// 512, ...), up to maxGpus.
std::vector<int> deployGpuCounts(int maxGpus);

/// The request rates a load may offer, req/s: below, a deployment's figures are noise (one
/// request every 2.8 hours); above, no deployment the catalog can build serves it.
inline constexpr double kMinRequestRate = 1e-4;
inline constexpr double kMaxRequestRate = 1e6;

/// One configuration and its steady state.
struct DeployConfig {
  std::string gpu;
  int gpuCount = 1;
  int tp = 1;
  int replicas = 1;
  int ep = 1;  ///< expert-parallel degree within a replica (MoE)
  /// Redundant expert slots the EP degree needs to divide experts + slots (0 when it divides
  /// the experts alone; docs/model.md, "Redundant expert slots").
  int redundantExperts = 0;
  bool dpAttention = false;         ///< attention data-parallel over the replica's GPUs (MoE)
  bool twoBatchOverlap = false;     ///< two micro-batches, one's all-to-all under the other
  std::string linear, moe, lmHead;  ///< scheme ids per kind (moe empty for a dense model)
  std::string kvDtype;
  /// The replica's batch cap: under DP attention its GPUs' together (each GPU a scheduler
  /// with maxBatch / tp of them; schedulerRanks).
  int maxBatch = 1;
  double ttftMs = 0;
  double tpotMs = 0;
  double outputTokS = 0;  ///< the whole deployment
  double usdPerMillionOutputTokens = 0;
  double pricePerHourUsd = 0;  ///< the whole deployment
  std::string bindingLimit;    ///< what caps a replica's concurrency
  /// Disaggregated: the prefill pool's TP, replicas, GPU and schemes per kind (gpu, tp,
  /// replicas and the schemes above are the decode pool's; gpuCount and the price both
  /// pools'); prefillTp 0 for an aggregated deployment.
  int prefillTp = 0;
  int prefillReplicas = 0;
  std::string prefillGpu;
  std::string prefillLinear, prefillMoe, prefillLmHead;
  /// Disaggregated, MoE: the prefill pool's layout (ep, dpAttention and redundantExperts
  /// above are the decode pool's).
  int prefillEp = 1;
  bool prefillDpAttention = false;
  int prefillRedundantExperts = 0;
  bool prefillTwoBatchOverlap = false;
  double kvTransferMs = 0;  ///< one request's KV from prefill to decode (disaggregated)
  /// ep, dpAttention and redundantExperts as the layout a scenario takes (the decode pool's
  /// when disaggregated; prefillPool().layout() is the prefill pool's).
  [[nodiscard]] MoeLayout layout() const;
  /// Sets ep, dpAttention and redundantExperts from `l` (the decode pool's when split).
  void setLayout(const MoeLayout& l);
  /// The prefill pool's layout (disaggregated).
  [[nodiscard]] MoeLayout prefillLayout() const;
  /// Sets the prefill pool's layout from `l`.
  void setPrefillLayout(const MoeLayout& l);
  [[nodiscard]] bool disaggregated() const { return prefillTp > 0; }
  [[nodiscard]] std::string schemeId() const;  ///< "w4a16-g128" or "linear=..,moe=..,lm_head=.."
  /// The prefill pool's schemes as schemeId() words them; empty when aggregated.
  [[nodiscard]] std::string prefillSchemeId() const;
  /// The prefill pool as a deployment of its own (its GPU, TP, replicas and schemes), for the
  /// gates and the launch lines.
  [[nodiscard]] DeployConfig prefillPool() const;
  /// "EP 8, DP attention", "EP 4", "DP attention", "prefill pool 2 × 1" (disaggregated; with
  /// "on GPU" and "in scheme" where they differ from the decode pool's), or "" for plain TP.
  [[nodiscard]] std::string layoutText() const;
};

struct DeployOptions {
  DeployLoad load;
  ServingWorkload workload;
  double sloTtftMs = 0;  ///< 0: none
  double sloTpotMs = 0;
  LatencyAxis axis = LatencyAxis::Tpot;
  /// Quality gate per scheme assignment (from a session's candidates); empty: all pass.
  std::function<bool(const DeployConfig&)> gate;
};

struct DeployResult {
  std::int64_t space = 0;              ///< configurations enumerated (fitting or not)
  std::int64_t evaluated = 0;          ///< distinct configurations computed (those that fit)
  std::int64_t feasible = 0;           ///< meeting the SLOs, the load and the gates
  std::vector<DeployConfig> frontier;  ///< by latency ascending, cost descending
  std::optional<DeployConfig> best;    ///< the cheapest feasible (lowest latency on a tie)
  /// Why nothing is feasible (which constraint binds); empty when something is.
  std::string nothingFeasible;
  std::int64_t rejectedMemory = 0, rejectedLoad = 0, rejectedTtft = 0, rejectedTpot = 0,
               rejectedGate = 0;
  /// Disaggregated pairs not solved: a frontier point already beat both their cost at their
  /// most throughput and their latency with one request in flight, so they could not join it
  /// (neither evaluated nor counted feasible or rejected).
  std::int64_t skippedDominated = 0;
};

/// One replica's scenario as the search prices it: `gpu` at `tp` in `layout` (with the space's
/// expert imbalance), KV of `kvBytesPerElement`,
/// room for one request of `w`, the space's memory settings and fallbacks, and the constants
/// the rest of the tool predicts with (the GPU's calibration, else the bundled defaults; the
/// datasheet when the space asks).
Scenario deployScenario(const DeploySpace& space, const GpuSpec& gpu, int tp,
                        double kvBytesPerElement, const ServingWorkload& w, MoeLayout layout = {});

/// The scheme assignment the search priced `c` with (a uniform scheme leaves the LM head and
/// embeddings to the checkpoint's precision, as the search does). Errors: an assignment the
/// space does not hold.
Result<SchemeAssignment> deployAssignment(const DeploySpace& space, const DeployConfig& c);

/// The space's speculation on `gpu` at `tp` as a serving figure's intervals rebuild it
/// (speculativeEngineServing): the draft model's scenario there in the catalog's baseline
/// scheme, as the search builds it, or the target's MTP layer. Precondition: space.speculation.
PointSpeculation deploySpeculation(const DeploySpace& space, const GpuSpec& gpu, int tp,
                                   double kvBytes, const ServingWorkload& w);

/// A disaggregated deployment's steady state rebuilt from `c` (its pools' GPUs, which must be
/// in the space, TPs, replicas, schemes, KV dtype and batch cap) exactly as the search priced
/// it; with `constant`, each pool's constants have that one multiplied by exp(`delta`) (the
/// fit's coordinates, as `perturbed`; the intervals move them). Errors: an aggregated `c`, a
/// GPU or scheme the space lacks, a pool that does not fit.
Result<DisaggState> disaggregatedState(const DeploySpace& space, const DeployOptions& opts,
                                       const DeployConfig& c, const std::string& constant = "",
                                       double delta = 0);

/// Runs the search. Errors: an empty space, a GPU without a price, bad workload or SLOs.
Result<DeployResult> searchDeployments(const DeploySpace& space, const DeployOptions& opts);

/// The whole result as the CLI's JSON (`evaluated`, `feasible`, `frontier[]`, `best`, ...).
Json deployResultToJson(const DeployResult& r, const DeployOptions& opts);

}  // namespace qf
