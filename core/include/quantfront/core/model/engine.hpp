#pragma once
/// The analytic decode model (spec: shared/spec/model.md, "Decode step time", "KV capacity").
/// Step time per layer kind is max(memory, compute); kinds add; TP adds an all-reduce term.
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/model/hardware.hpp>
#include <quantfront/core/model/model_config.hpp>

namespace qf {

/// Layer kinds that can carry different schemes (vLLM's QuantSpec split).
enum class LayerKind { Linear = 0, Moe = 1, LmHead = 2 };
inline constexpr std::array<LayerKind, 3> kAllLayerKinds = {LayerKind::Linear, LayerKind::Moe,
                                                            LayerKind::LmHead};
const char* layerKindName(LayerKind k);

/// The schemes of one modelled curve, per layer kind (the vLLM QuantSpec split). Unset kinds
/// inherit `linear`. (Not a Candidate: that is a deployable artifact with its results.)
struct SchemeAssignment {
  std::string id;  ///< display id: the scheme id, or "linear=..,moe=..,lm_head=.."
  Scheme linear;
  std::optional<Scheme> moe;
  std::optional<Scheme> lmHead;
  [[nodiscard]] const Scheme& forKind(LayerKind k) const;
  [[nodiscard]] bool mixed() const;
};

/// What real kernels reach, as fractions of the datasheet, and what a step pays besides the
/// GEMMs (spec model.md, "Efficiency and overhead"). The defaults are the datasheet model and
/// reproduce the seed's figures. Efficiencies scale slopes and intercepts only, so crossovers
/// stay exact.
struct Efficiency {
  double overheadMs = 0;    ///< t0, added to every step
  double bandwidthEff = 1;  ///< η_β: achieved fraction of HBM bandwidth
  /// t_seq: host time per sequence per step (sampling, scheduling, output processing), µs;
  /// adds t_seq·B to a step of B sequences.
  double seqOverheadUs = 0;
  /// α: fixed time of one all-reduce call (launch and synchronisation, whatever its size), µs;
  /// at TP > 1 a forward pass makes two per layer.
  double allreduceLatencyUs = 0;
  /// M½: GEMM rows at which a prefill GEMM reaches half its tensor rate. A prefill GEMM of M
  /// rows pays for M + M½ (its tiles are padded and its waves quantised), so its compute side
  /// stays affine: 2·A·(M + M½)/P'; per routed expert touched for MoE layers. Decode steps are
  /// not charged (small-M kernels hide their math under the weight read).
  double gemmMHalf = 0;
  /// w½: per-GPU hidden width (d/TP) at which the tensor rate halves; GEMMs split over TP
  /// GPUs run at (d + w½)/(d + w½·TP) of their TP-1 rate (narrower tiles, fewer waves).
  double tpWidthHalf = 0;
  /// t_req: a served request's fixed cost (tokenising, scheduling, the HTTP round trip and
  /// streaming), ms, added to its TTFT under load; a static batch has none.
  double requestOverheadMs = 0;
  /// η_P by tensor path name ("bf16") or scheme id ("w4a16-g128"); a scheme's entry wins over
  /// its path's; absent: 1.
  std::map<std::string, double> computeEff;
  /// Measured dequant cost by scheme id, seconds per weight; replaces c/D for that scheme.
  std::map<std::string, double> dequantSPerWeight;
  /// η_k: the fraction of η_β·HBM bandwidth a scheme's decode kernel reaches when it streams
  /// its weights, by scheme id (a weight-only kernel that cannot saturate HBM at small M, such
  /// as Marlin on Hopper); absent: 1. Scales the weight read only, never the tensor math.
  std::map<std::string, double> kernelBandwidthEff;
  /// η_a: the fraction of η_β·HBM bandwidth the attention kernel reaches reading the KV cache,
  /// by KV dtype ("fp8", "bf16"); absent: 1. An FP8 cache read by a kernel that converts
  /// each element to bf16 before its math runs at bf16's element rate: η_a(fp8) = 0.5.
  std::map<std::string, double> attentionBandwidthEff;
  std::string source = "datasheet";  ///< where the values came from (calibration source, flags)
  /// The calibration block's other keys as read (its `e2e_fit` record gives intervals).
  std::string calibrationExtra = "{}";
  /// True for the ideal roofline (every constant at its datasheet default).
  [[nodiscard]] bool isDatasheet() const {
    return overheadMs == 0 && bandwidthEff == 1 && seqOverheadUs == 0 && allreduceLatencyUs == 0 &&
           gemmMHalf == 0 && tpWidthHalf == 0 && requestOverheadMs == 0 && computeEff.empty() &&
           dequantSPerWeight.empty() && kernelBandwidthEff.empty() && attentionBandwidthEff.empty();
  }
  /// η_P of `schemeId` issuing on `path`.
  [[nodiscard]] double computeFor(const std::string& schemeId, TensorPath path) const;
  /// η_P of a path without an entry: bf16's when the calibration states it, else 1.
  [[nodiscard]] double computeUnstated() const;
  /// Measured dequant seconds per weight of `schemeId`, if any.
  [[nodiscard]] std::optional<double> dequantFor(const std::string& schemeId) const;
  /// η_k of `schemeId`'s kernel, if it has one.
  [[nodiscard]] std::optional<double> kernelBandwidthFor(const std::string& schemeId) const;
  /// η_a of an attention kernel reading a KV cache of `kvBytesPerElement` bytes (1: "fp8",
  /// 2: "bf16"); 1 without an entry.
  [[nodiscard]] double attentionBandwidthFor(double kvBytesPerElement) const;
};

/// The GPU's calibration block as an Efficiency (the datasheet defaults without one).
Efficiency efficiencyFromGpu(const GpuSpec& gpu);

/// Everything besides the scheme that fixes a prediction.
struct Scenario {
  ModelArch model;
  GpuSpec gpu;
  int tp = 1;  ///< tensor-parallel degree
  /// MoE parallelism within the replica's `tp` GPUs (docs/model.md, "Expert parallelism and
  /// DP attention"): the routed experts are spread whole over `ep` groups, each expert split
  /// over tp/ep GPUs (ep = 1: every expert split over all tp, plain TP). ep divides tp and the
  /// expert count.
  int ep = 1;
  /// Data-parallel attention: each GPU runs the dense part (attention, dense MLP, shared
  /// experts, router) for its own 1/tp of the sequences with its whole weights (stored and
  /// read on every GPU), keeps those sequences' whole KV and schedules them itself; only MoE
  /// layers exchange tokens (all-to-all dispatch and combine when ep = tp, else gathered and
  /// scattered like an all-reduce).
  bool dpAttention = false;
  /// Expert load imbalance under EP: the busiest GPU's routed-expert work over the mean (1:
  /// uniform routing). Multiplies the MoE kind's time when ep > 1.
  double expertImbalance = 1.0;
  /// Redundant expert slots under EP (the engines' load balancer: vLLM --num-redundant-experts,
  /// SGLang --ep-num-redundant-experts): experts + redundant slots are spread over the ep
  /// groups, so ep must divide their sum (DeepSeek-V3's 256 + 32 over EP 72). Every slot is
  /// stored, and a step that touches every expert reads every slot.
  int redundantExperts = 0;
  /// Two-batch overlap (SGLang --enable-two-batch-overlap, vLLM --enable-dbo): the batch runs
  /// as two micro-batches, one's all-to-all dispatch and combine under the other's GEMMs and
  /// attention. Needs DP attention and ep = tp. Each micro-batch reads the layers' weights and
  /// makes its own collective calls (docs/model.md, "Two-batch overlap").
  bool twoBatchOverlap = false;
  std::int64_t maxModelLen = 8192;  ///< tokens of KV reserved per sequence
  double kvBytesPerElement = 2.0;   ///< bytes per KV element (bf16 2, fp8 1)
  double memUtil = 0.92;            ///< vLLM gpu_memory_utilization u
  double reserveGib = 6.0;          ///< activations, CUDA graphs, non-torch memory
  /// How the engine sizes its KV pool (docs/model.md, "Engines' memory rules"): 0, vLLM's and
  /// SGLang's rule, memory·u − reserve − weights; f > 0, TensorRT-LLM's, the fraction f of the
  /// memory left after the weights and the reserve (its kv_cache_free_gpu_mem_fraction).
  double kvFreeFraction = 0;
  std::int64_t contextTokens = 0;  ///< 0: the attention term is off
  /// A scheme without a native tensor path is priced as the kernel the serving engines run
  /// instead (docs/model.md, "Fallbacks"): weights of more than 4 bits as FP8/INT8
  /// weight-only (`fallbackId`, c = `fallbackC`), 4-bit weights as W4A16 (`fallback4BitId`,
  /// c = `fallback4BitC`). Its efficiency and measured dequant cost are that kernel's unless
  /// the scheme has its own.
  double fallbackC = 1.0;
  std::string fallbackId = "w8a16";
  double fallback4BitC = 2.0;
  std::string fallback4BitId = "w4a16-g128";
  /// The precision real checkpoints keep the LM head and embeddings in when they quantize the
  /// rest (bf16: GPTQ, AWQ, FP8 and INT8 checkpoints leave lm_head unquantized; docs/model.md,
  /// "Checkpoints as they are"). An assignment that leaves lm_head to its linear scheme is
  /// priced with it wherever it has fewer bits per weight, unless the scheme quantizes the
  /// head itself. Unset (a scenario built by hand, or under --datasheet): every streamed
  /// weight takes the linear scheme, the seeds' convention. resolveScenario sets it.
  std::optional<Scheme> checkpointLmHead;
  Efficiency efficiency;  ///< η_β, η_P, t0, measured dequant (defaults: datasheet)
  /// A static batch of requests as `vllm bench latency` runs it: every request has
  /// `inputLen` prompt tokens and `outputLen` output tokens. 0: no end-to-end prediction.
  std::int64_t inputLen = 0;
  std::int64_t outputLen = 0;
};

/// Longest max-model-len or context a scenario may state (2^40 tokens, as sessions allow).
inline constexpr std::int64_t kMaxScenarioTokens = std::int64_t{1} << 40;
/// max_seqs is reported up to this many sequences (the double → int64 conversion is bounded).
inline constexpr double kMaxSeqsReported = 1e15;

/// Why `model` cannot run at tensor-parallel degree `tp` as vLLM, SGLang and TensorRT-LLM
/// shard it, or nullopt: the attention heads split evenly (tp | heads), the KV heads split
/// evenly or are replicated whole (tp | kv_heads, or kv_heads | tp), and the dense MLP and
/// each routed expert's width split evenly (tp | intermediate, tp | expert width). The
/// message names the model's figure and the degrees up to 64 that work. Field "tp".
std::optional<Error> checkTensorParallel(const ModelArch& model, int tp);
/// The same under an MoE layout: DP attention leaves the heads whole on each GPU, and EP
/// splits each routed expert over tp/ep GPUs instead of tp (the layout itself is checked with
/// the scenario).
std::optional<Error> checkTensorParallel(const ModelArch& model, int tp, bool dpAttention, int ep);

/// How many ways one sequence's KV splits over the replica's GPUs: ModelArch::kvShards under
/// TP attention, every GPU (each holding its own sequences' whole KV) under DP attention.
double kvShardsOf(const Scenario& s);

/// A request of `inputTokens` + `outputTokens` longer than the model's context
/// (max_position_embeddings), which every engine refuses, or nullopt (also when the config
/// does not record its context). Field "input-len".
std::optional<Error> checkRequestLength(const ModelArch& model, double inputTokens,
                                        double outputTokens);

/// Checks ranges (tp ≥ 1 and one the model's heads and widths split over, 0 < u ≤ 1,
/// reserve ≥ 0, memory·u − reserve > 0, ...). Field names are the CLI's.
std::optional<Error> validateScenario(const Scenario& s);

/// f(B) = c0 + c1·B + cE·Et(B): every term of the model has this shape, where
/// Et(B) = E·(1 − (1 − k/E)^B) is the expected number of distinct experts a batch touches.
struct Affine {
  double c0 = 0, c1 = 0, cE = 0;
  [[nodiscard]] double at(double batch, double distinctExperts) const {
    return c0 + c1 * batch + cE * distinctExperts;
  }
  Affine& operator+=(const Affine& o) {
    c0 += o.c0;
    c1 += o.c1;
    cE += o.cE;
    return *this;
  }
  friend Affine operator-(Affine a, const Affine& b) {
    a.c0 -= b.c0;
    a.c1 -= b.c1;
    a.cE -= b.cE;
    return a;
  }
};

/// Uniform routing: E experts, k per token. experts == 0 for dense models.
struct Routing {
  double experts = 0;
  double perToken = 0;
  double lnMiss = 0;  ///< ln(1 − k/E), cached by setRouting (0 for dense models)
  /// Sets E and k and caches ln(1 − k/E).
  void set(double e, double k);
  /// Et(B), the expected distinct experts touched by a batch of B sequences.
  [[nodiscard]] double distinct(double batch) const;
};

/// One layer kind's memory and compute sides, in seconds, for one candidate.
struct KindTerm {
  LayerKind kind = LayerKind::Linear;
  bool present = false;
  Scheme scheme;          ///< as configured
  bool fallback = false;  ///< the GPU lacks the scheme's tensor path
  std::string runsAs;     ///< the kernel it is priced as: the scheme's id, or the fallback's
  /// The id a calibration's per-scheme constants of this kernel are kept under: the scheme
  /// whose kernel runs it (`constants_of`), else runsAs. A fit writes its kernel constants
  /// under it; the engine reads the scheme's own first, then these.
  std::string constantsId;
  TensorPath effectivePath = TensorPath::Bf16;
  double effectiveC = 0;
  double weightsStored =
      0;  ///< parameters of this kind held in memory (per model, not per TP rank)
  /// Of weightsStored, the parameters every GPU holds whole (attention under DP attention).
  double weightsReplicated = 0;
  Affine memS;
  Affine compS;
  double peakFlopsPerS = 0;       ///< P of the effective path × η_P
  double computeEff = 1;          ///< η_P applied
  double dequantSPerWeight = 0;   ///< c/D, or the measured cost when the efficiency has one
  bool dequantMeasured = false;   ///< dequantSPerWeight is a measurement, not c/D
  double kernelBandwidthEff = 1;  ///< η_k applied to the weight read
  double mmaSPerSeq = 0;          ///< 2·A/P/TP: the tensor-math slope, seconds per sequence
  double dequantS = 0;            ///< W·c/D/TP with every expert touched, seconds
  Affine tileS;                   ///< 2·W·M½/P'/TP: the compute side's tile padding (M½)
  double bytesPerWeight = 0;
};

/// The step-time curve t(B) of one candidate on one scenario, in seconds.
class StepCurve {
 public:
  /// The present kinds' two sides, packed for fast evaluation (built by finalize()).
  struct Packed {
    Affine mem, comp;
  };

 private:
  std::array<Packed, 3> m_packed{};
  int m_packedCount = 0;
  Affine m_additive;
  /// Under two-batch overlap: what no micro-batch hides (t0, t_seq, the collectives' calls)
  /// and what the all-to-all hides under (attention), apart.
  Affine m_host, m_work;
  /// `start` plus each kind's active side at the batch (whether any is compute-bound).
  [[nodiscard]] double addKindsAt(double start, double batch, double et, bool& computeBound) const;

 public:
  [[nodiscard]] const std::array<Packed, 3>& packed() const { return m_packed; }
  [[nodiscard]] int packedCount() const { return m_packedCount; }
  std::array<KindTerm, 3> kinds;
  Affine allReduceS;  ///< TP all-reduce term (0 when TP = 1)
  /// Under two-batch overlap, the all-to-all's bytes, hidden under the other micro-batch's
  /// work: a step pays the longer of the two (0 otherwise; docs/model.md, "Two-batch overlap").
  Affine overlapS;
  bool twoBatchOverlap = false;
  /// Attention at --context N, its own kernel after the projections: c1 = max(KV read,
  /// attention math) per sequence; 0 when the context is 0.
  Affine attentionS;
  double attentionKvReadSPerSeq = 0;  ///< B·N·kv_bytes/(TP·β) per sequence
  double attentionMathSPerSeq = 0;    ///< 4·N·nh·hd·L/(TP·P_bf16) per sequence
  double overheadS = 0;               ///< t0, added to every step
  double seqOverheadS = 0;            ///< t_seq, added per sequence of a step
  double tpRate = 1;  ///< (d + w½)/(d + w½·TP): the tensor rate of GEMMs split over TP GPUs
  Routing routing;
  /// What prefill and a decode step at any context need besides the GEMM kinds (filled by
  /// buildStepCurve; docs/model.md, "Prefill and end-to-end latency").
  struct TokenTerms {
    /// Attention per sequence per layer-token of context: KV read (s) and math (s).
    double attnKvReadS = 0, attnMathS = 0;
    double kvWriteSPerToken = 0;  ///< KV bytes one prompt token writes / (TP·β')
    double allReduceSPerToken = 0;
    /// Prefill GEMMs: each kind's memory and compute sides with the batch counted in tokens;
    /// the compute side runs at the path's efficiency (a W4A16 prefill is dequant + bf16 GEMM).
    std::array<Affine, 3> prefillMem{}, prefillComp{};
    double fullLayers = 0, windowedLayers = 0, window = 0;
    /// Σ over layers of the tokens a query at position n attends to (= min(window, n) on a
    /// windowed layer, n elsewhere).
    [[nodiscard]] double keptLayerTokens(double n) const;
    /// Σ_{n=a}^{b} keptLayerTokens(n) over integers, in closed form (0 when b < a).
    [[nodiscard]] double keptLayerTokensSum(double a, double b) const;
  } token;
  /// One decode step of `batch` sequences, each with `context` tokens of KV, seconds (the
  /// scenario's --context attention replaced by this context's).
  [[nodiscard]] double decodeStepSeconds(double batch, double context) const;
  /// Σ of the decode steps of `batch` sequences at contexts a, a + 1, ..., b under two-batch
  /// overlap: each step pays the longer of its work (its attention grows with the context) and
  /// the all-to-all, in closed form around the first context whose work is the longer.
  [[nodiscard]] double overlappedDecodeSeconds(double batch, double a, double b) const;
  /// Prefill of `batch` prompts of `inputLen` tokens each, as one step: GEMMs at
  /// M = batch·inputLen (the LM head only for the last token of each), causal attention, the KV
  /// write, the all-reduce and t0. Seconds.
  [[nodiscard]] double prefillSeconds(double batch, double inputLen) const;
  /// The terms that add outside every kind's max(): all-reduce, attention, t0 and t_seq.
  [[nodiscard]] const Affine& additiveS() const { return m_additive; }

  [[nodiscard]] double stepSeconds(double batch) const {
    return stepSecondsAt(batch, routing.distinct(batch));
  }
  /// t(B) given Et(B) already computed (the same for every candidate of one model).
  [[nodiscard]] double stepSecondsAt(double batch, double distinctExperts) const;
  /// t(B) and whether any kind is compute-bound there, in one pass.
  [[nodiscard]] double evaluateAt(double batch, double distinctExperts, bool& computeBound) const;
  /// t(B) as one Affine valid around `batch` (each kind's active side there).
  [[nodiscard]] Affine activeAt(double batch) const;
  /// Packs the present kinds' coefficients for evaluateAt (call after editing `kinds`).
  void finalize();
  /// Every B > 1 where some kind switches between memory- and compute-bound, or (under
  /// two-batch overlap) the all-to-all and the work it hides under change places, sorted.
  [[nodiscard]] std::vector<double> knots() const;
  /// The memory-bound floor: every present kind's weight stream at batch 1 (no t0, no
  /// attention or all-reduce), seconds; SchemeReport::memoryFloorMs is this × 1e3.
  [[nodiscard]] double memoryFloorSeconds() const;
};

/// Builds the curve. Errors: TP > 1 without an interconnect bandwidth.
Result<StepCurve> buildStepCurve(const Scenario& s, const ParamCounts& params,
                                 const SchemeAssignment& cand);

/// All B ≥ 1 where two curves' difference changes sign (exact on linear pieces,
/// bisection to 1e-12 relative where the MoE term bends them). Identical curves: none.
struct Crossing {
  double batch = 0;
  bool firstFasterBelow = false;  ///< curve `a` is faster just below `batch`
};
std::vector<Crossing> findCrossings(const StepCurve& a, const StepCurve& b);
/// Same, with each curve's knots() computed once by the caller.
std::vector<Crossing> findCrossings(const StepCurve& a, const std::vector<double>& knotsA,
                                    const StepCurve& b, const std::vector<double>& knotsB);

/// Roots (sign changes) of h on (lo, ∞) — exposed for tests.
std::vector<double> signChanges(const Affine& h, const Routing& r, double lo);

/// What a static batch of `batch` requests of `inputLen` prompt and `outputLen` output
/// tokens takes, as `vllm bench latency` measures it: one prefill of batch·inputLen tokens
/// (which emits the first token), then outputLen − 1 decode steps with the context growing
/// from inputLen + 1 to inputLen + outputLen − 1.
struct StaticBatchPrediction {
  double batch = 0, inputLen = 0, outputLen = 0;
  double ttftMs = 0;  ///< the prefill step
  double tpotMs = 0;  ///< mean decode step; 0 when outputLen == 1 (no decode step)
  double e2eLatencyS = 0;
  double outputTokensPerS = 0;  ///< batch·outputLen / latency, the whole replica
  double totalTokensPerS = 0;   ///< batch·(inputLen + outputLen) / latency
};
StaticBatchPrediction predictStaticBatch(const StepCurve& curve, double batch, double inputLen,
                                         double outputLen);

struct CapacityReport {
  double budgetGib = 0;
  double weightsGib = 0;
  double kvGibPerSeq = 0;
  double kvBytesPerToken = 0;  ///< per sequence, whole model (before TP split)
  std::int64_t maxSeqs = 0;
  bool fits = false;  ///< weights fit in the budget
  double tokensPerSAtCapacity = 0;
};

/// Which term of a kind's max() sets the step time at a batch.
enum class Bound { Memory, Compute };
/// "memory" or "compute".
const char* boundName(Bound b);

struct PointReport {
  double batch = 0;
  double stepMs = 0;
  double tokensPerS = 0;
  Bound bound = Bound::Memory;
};

struct SchemeReport {
  SchemeAssignment assignment;
  StepCurve curve;
  double bitsPerWeight = 0;             ///< storage-weighted over kinds
  bool fallback = false;                ///< the linear kind runs on the fallback path
  std::string pathName;                 ///< effective path of the linear kind, or "fallback"
  double memoryFloorMs = 0;             ///< mem(1)
  double mmaUsPerSeq = 0;               ///< Σ 2A/P per sequence
  double dequantMs = 0;                 ///< Σ W·c/D with every expert touched
  std::optional<double> ridgeBatch;     ///< (b/β − c/D)·P/2 of the linear kind; none when ≤ 0
  std::optional<double> moeRidgeBatch;  ///< where the expert kind turns compute-bound
  double allReduceUsPerSeq = 0;
  CapacityReport capacity;
  std::vector<PointReport> points;
  /// One per point when the scenario states inputLen and outputLen, else empty.
  std::vector<StaticBatchPrediction> e2e;
};

struct CrossoverReport {
  std::array<std::string, 2> schemes;
  double batch = 0;
  std::string fasterBelow;
};

struct EngineReport {
  Scenario scenario;
  ParamCounts params;
  std::vector<SchemeReport> schemes;
  std::vector<CrossoverReport> crossovers;
};

/// Runs the model for every candidate at every batch, with capacity and crossovers.
Result<EngineReport> runEngine(const Scenario& s, const std::vector<SchemeAssignment>& cands,
                               const std::vector<double>& batches);

/// KV capacity of one candidate (weights at each kind's storage width).
CapacityReport computeCapacity(const Scenario& s, const StepCurve& curve);

/// One scheme at the batch a deployment runs at (ScenarioSpec::batchAt): the engine's step
/// time and throughput there, and whether the weights plus the KV cache of `batch` sequences
/// of `kvTokens` each fit the memory budget, per GPU (the capacity's budget and weights).
struct SchemeAtBatch {
  double stepMs = 0;
  double tokensPerS = 0;
  std::int64_t kvTokens = 0;  ///< tokens per sequence: the scenario's context, else its max
  double kvGib = 0;           ///< KV of `batch` sequences, GiB per GPU
  double neededGib = 0;       ///< weights + kvGib
  double budgetGib = 0;
  bool fits = false;
};
SchemeAtBatch schemeAtBatch(const Scenario& sc, const SchemeReport& s, double batch);

/// The smallest tensor-parallel degree, a power of two above `s.tp` and at most `maxTp`, at
/// which candidate `a` fits with room for one sequence at the max model length; nullopt when
/// none does.
std::optional<int> smallestFittingTp(const Scenario& s, const SchemeAssignment& a, int maxTp = 64);

}  // namespace qf
