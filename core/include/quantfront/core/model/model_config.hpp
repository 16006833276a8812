#pragma once
/// Model architecture read from a Hugging Face config.json, and parameter accounting
/// (spec: shared/spec/model.md, "Inputs").
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/base/json_io.hpp>

namespace qf {

/// Multi-head latent attention dimensions (DeepSeek-V2/V3).
struct MlaDims {
  std::int64_t qLoraRank = 0;  ///< 0 when q_lora_rank is null (q projected directly)
  std::int64_t kvLoraRank = 0;
  std::int64_t qkNopeHeadDim = 0;
  std::int64_t qkRopeHeadDim = 0;
  std::int64_t vHeadDim = 0;
};

/// Quantization already applied to a checkpoint (config.json's quantization_config).
/// What a checkpoint's quantization_config says, in one vocabulary across the methods: the
/// catalog's "hf_quantization" rules (schemes.json) match these facts to a scheme.
struct CheckpointFacts {
  std::string method;      ///< quant_method, lower-cased as written ("gptq_marlin")
  double weightBits = 0;   ///< 0: not stated
  std::string weightType;  ///< "int" or "float"; empty: not stated
  std::optional<bool> symmetric;
  double activationBits = 0;   ///< 0: activations unquantized
  std::string activationType;  ///< "int" or "float" when quantized
  std::string algo;            ///< ModelOpt's quant_algo ("FP8", "NVFP4")
  double groupSize = 0;        ///< weights per scale group; 0: not stated, -1: per channel
};

struct CheckpointQuant {
  std::string quantMethod;  ///< gptq, awq, fp8, compressed-tensors, ...
  CheckpointFacts facts;    ///< what the mapping read
  std::string
      schemeId;      ///< built-in scheme it maps to (a mixed candidate's id), empty when unmapped
  std::string note;  ///< how the mapping was made, or why it could not be
  /// Per layer kind when the checkpoint quantizes some modules and not others (gpt-oss:
  /// linear bf16, moe mxfp4, lm_head bf16); all empty for a uniform checkpoint.
  std::string linearSchemeId, moeSchemeId, lmHeadSchemeId;
  [[nodiscard]] bool perKind() const { return !linearSchemeId.empty(); }
};

/// The architecture facts the engine needs. Sizes are counts, not bytes.
struct ModelArch {
  std::string id;    ///< catalog id or file stem
  std::string name;  ///< human name (e.g. "meta-llama/Meta-Llama-3-8B")
  std::string sourceFile;
  std::string modelType;          ///< model_type of the text model (the outer one when nested)
  std::int64_t layers = 0;        ///< num_hidden_layers L
  std::int64_t hidden = 0;        ///< hidden_size d
  std::int64_t intermediate = 0;  ///< f, the dense MLP width (Llama-4: intermediate_size_mlp)
  std::int64_t heads = 0;         ///< num_attention_heads nh
  std::int64_t kvHeads = 0;       ///< num_key_value_heads nkv
  std::int64_t headDim = 0;       ///< head_dim hd
  std::int64_t vocab = 0;         ///< vocab_size V
  bool tiedEmbeddings = false;    ///< tie_word_embeddings, or the model type's default
  // Mixture of experts (experts == 0: dense model).
  std::int64_t experts = 0;                 ///< routed experts E
  std::int64_t expertsPerToken = 0;         ///< k
  std::int64_t expertWidth = 0;             ///< fe
  std::int64_t sharedExpertWidthTotal = 0;  ///< sum of shared-expert widths per MoE layer
  std::vector<bool> moeLayer;               ///< per layer: true when the layer is MoE
  /// Sliding-window attention: tokens a windowed layer keeps (0: no windowed layer).
  std::int64_t slidingWindow = 0;
  /// max_position_embeddings: the longest sequence (prompt + output) the model takes, as the
  /// engines enforce it (0: the config does not say).
  std::int64_t maxPositions = 0;
  std::vector<bool> slidingLayer;  ///< per layer: true when its attention is windowed
  std::optional<MlaDims> mla;
  std::optional<CheckpointQuant> checkpointQuant;

  [[nodiscard]] bool isMoe() const { return experts > 0; }
  [[nodiscard]] std::int64_t moeLayerCount() const;
  /// KV-cache bytes per token per sequence at `kvBytesPerElement` bytes per element (all
  /// layers, as if none were windowed).
  [[nodiscard]] double kvBytesPerToken(double kvBytesPerElement) const;
  /// Layers whose attention is windowed.
  [[nodiscard]] std::int64_t slidingLayerCount() const;
  /// Σ over layers of the tokens a sequence of `tokens` keeps in KV: min(window, tokens) on a
  /// windowed layer, `tokens` on the others.
  [[nodiscard]] double keptLayerTokens(double tokens) const;
  /// KV-cache bytes one sequence of `tokens` tokens holds (windowed layers hold their window).
  [[nodiscard]] double kvBytesPerSequence(double kvBytesPerElement, double tokens) const;
  /// How many ways one sequence's KV cache splits over `tp` tensor-parallel ranks, as the
  /// engines lay it out (docs/model.md, "KV per rank"): the KV heads split (tp | kv_heads:
  /// tp ways) or are replicated whole (kv_heads | tp: kv_heads ways, each rank holding one
  /// head); MLA's latent is one head every rank keeps whole (1 way). Each rank stores
  /// kvBytesPerToken / kvShards(tp) per token.
  [[nodiscard]] double kvShards(int tp) const;
};

/// Parameter counts (norms and biases ignored, < 0.1%).
struct ParamCounts {
  double attention = 0;             ///< all layers' attention projections
  double denseMlp = 0;              ///< dense MLP layers
  double router = 0;                ///< MoE routers
  double sharedExperts = 0;         ///< shared experts
  double routedExperts = 0;         ///< all routed experts (E per MoE layer)
  double routedPerExpertLayer = 0;  ///< one expert of one layer: 3·d·fe
  double lmHead = 0;                ///< V·d
  double embedding = 0;             ///< V·d, 0 when tied to the LM head
  /// Weights of the `linear` layer kind: attention + dense MLP + shared experts + router.
  [[nodiscard]] double linear() const { return attention + denseMlp + router + sharedExperts; }
  /// Streamed per token for a dense model (all layer weights + LM head, not the embedding).
  [[nodiscard]] double streamed() const { return linear() + routedExperts + lmHead; }
  /// Every stored weight, counted once.
  [[nodiscard]] double total() const { return streamed() + embedding; }
  /// Weights each token multiplies: routed experts only k per MoE layer.
  double active = 0;
  /// Routed-expert parameters (the MoE kind's storage).
  [[nodiscard]] double expert() const { return routedExperts; }
};

/// Bounds on the counts a config.json may give (larger values are refused, naming the key).
inline constexpr std::int64_t kMaxConfigLayers = 100'000;
inline constexpr std::int64_t kMaxConfigHidden = 10'000'000;
inline constexpr std::int64_t kMaxConfigVocab = 100'000'000;
inline constexpr std::int64_t kMaxConfigExperts = 100'000;
/// Parameter totals at or above this are refused (1e15: a thousand times the largest models).
inline constexpr double kMaxParamTotal = 1e15;

/// Parses a Hugging Face config.json object. `file` names the source in errors.
/// Every count is bounded (kMaxConfig*) and the parameter total must stay below kMaxParamTotal.
Result<ModelArch> parseModelConfig(const Json& config, const std::string& file,
                                   const std::string& id);
/// Reads and parses a config.json file.
Result<ModelArch> loadModelConfigFile(const std::string& path);
/// Parameter accounting as model.md specifies.
ParamCounts countParams(const ModelArch& model);
/// An error naming the key of the largest parameter group when the total is ≥ kMaxParamTotal.
std::optional<Error> checkParamTotal(const ModelArch& model);

}  // namespace qf
