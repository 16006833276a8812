#include <nlohmann/json.hpp>
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/model_config.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

namespace qf {

std::int64_t ModelArch::moeLayerCount() const {
  return static_cast<std::int64_t>(std::count(moeLayer.begin(), moeLayer.end(), true));
}

double ModelArch::kvBytesPerToken(double kvBytesPerElement) const {
  if (mla) {
    return static_cast<double>(layers) * static_cast<double>(mla->kvLoraRank + mla->qkRopeHeadDim) *
           kvBytesPerElement;
  }
  return 2.0 * static_cast<double>(layers) * static_cast<double>(kvHeads) *
         static_cast<double>(headDim) * kvBytesPerElement;
}

std::int64_t ModelArch::slidingLayerCount() const {
  return static_cast<std::int64_t>(std::count(slidingLayer.begin(), slidingLayer.end(), true));
}

double ModelArch::keptLayerTokens(double tokens) const {
  const double windowed = static_cast<double>(slidingLayerCount());
  const double full = static_cast<double>(layers) - windowed;
  return full * tokens + windowed * std::min(tokens, static_cast<double>(slidingWindow));
}

double ModelArch::kvBytesPerSequence(double kvBytesPerElement, double tokens) const {
  if (layers <= 0) return 0.0;
  const double perLayerToken = kvBytesPerToken(kvBytesPerElement) / static_cast<double>(layers);
  return perLayerToken * keptLayerTokens(tokens);
}

double ModelArch::kvShards(int tp) const {
  if (tp <= 1 || mla) return 1.0;
  if (kvHeads <= 0) return static_cast<double>(tp);
  return static_cast<double>(std::min<std::int64_t>(tp, kvHeads));
}

namespace {

/// Largest value a config count may take. Real models are orders of magnitude below these;
/// the bounds keep every product the engine forms finite and every allocation small (a
/// per-layer table is allocated from num_hidden_layers).
std::int64_t maxCount(const std::string& key) {
  if (key == "num_hidden_layers") return kMaxConfigLayers;
  if (key == "hidden_size") return kMaxConfigHidden;
  if (key == "vocab_size") return kMaxConfigVocab;
  if (key == "num_local_experts" || key == "num_experts" || key == "n_routed_experts" ||
      key == "num_experts_per_tok" || key == "n_shared_experts") {
    return kMaxConfigExperts;
  }
  if (key == "num_attention_heads" || key == "num_key_value_heads" || key == "head_dim")
    return 100'000;
  if (key == "sliding_window" || key == "max_position_embeddings") return 1'000'000'000;
  return 100'000'000;  // MLP widths, LoRA ranks, layer steps
}

/// Reads a positive integer key; `required` false returns 0 when absent or null.
Result<std::int64_t> positiveInt(const JsonReader& rd, const Json& obj, const std::string& ptr,
                                 const std::string& key, bool required) {
  auto v = rd.optInteger(obj, ptr, key);
  if (!v) return v.error();
  if (!v->has_value()) {
    if (required) return rd.error(ptr + "/" + key, key, "required key is missing from config.json");
    return std::int64_t{0};
  }
  if (**v <= 0) return rd.error(ptr + "/" + key, key, "must be a positive integer, found 0");
  if (**v > maxCount(key)) {
    return rd.error(
        ptr + "/" + key, key,
        "must be at most " + std::to_string(maxCount(key)) + ", found " + std::to_string(**v));
  }
  return **v;
}

/// transformers' default for tie_word_embeddings when a config omits it: the model classes
/// of these types tie the LM head to the input embedding (their configs default to true);
/// every other type (llama, qwen2, mistral, phi3, ...) defaults to false.
bool tiesByDefault(const std::string& modelType) {
  static const std::set<std::string> kTying = {"gemma", "gemma2", "gemma3", "gemma3_text", "gpt2"};
  return kTying.contains(modelType);
}

/// A quantization_config's group size as a fact: weights per group (at least 1), -1 for one
/// scale per channel (GPTQ's group_size -1), else 0, not stated (a group of 0, another
/// negative one or one past any tensor is no group a kernel runs).
double statedGroup(double v) {
  return v == -1 || (v >= 1 && v <= 1e9) ? v : 0;
}

/// The catalog's scheme for the checkpoint's facts. Where no scheme has its group, the scheme
/// of the nearest group its other facts meet, priced at that scheme's storage width, and the
/// note says so.
void mapToScheme(const Catalog& cat, CheckpointQuant& cq) {
  const CheckpointFacts& f = cq.facts;
  cq.schemeId = cat.schemeForCheckpoint(f);
  if (!cq.schemeId.empty() || f.groupSize == 0) return;
  cq.schemeId = cat.schemeOfNearestGroup(f);
  if (cq.schemeId.empty()) return;
  cq.note += (f.groupSize < 0 ? std::string("; scales per channel or tensor")
                              : words("; group size ", f.groupSize)) +
             " modelled with " + cq.schemeId + "'s storage width (no scheme of that group)";
}

/// The facts of a quantization_config (CheckpointFacts), read the way each method writes them
/// (its own keys and defaults), and how the mapping was made in words. Which scheme the facts
/// are is the catalog's to say (schemes.json "hf_quantization").
CheckpointQuant mapQuantizationConfig(const Json& q) {
  CheckpointQuant cq;
  cq.quantMethod = JsonReader::stringOr(q, "quant_method");
  std::string m = cq.quantMethod;
  std::transform(m.begin(), m.end(), m.begin(), [](unsigned char c) { return std::tolower(c); });
  CheckpointFacts& f = cq.facts;
  f.method = m;
  const Catalog& cat = Catalog::bundled();
  if (m == "gptq" || m == "gptq_marlin" || m == "auto_gptq") {
    const double bits = JsonReader::numberOr(q, "bits", 4);
    const bool sym = JsonReader::booleanOr(q, "sym", true);
    f.groupSize = statedGroup(JsonReader::numberOr(q, "group_size", 128));
    f.weightBits = bits;
    f.weightType = "int";
    f.symmetric = sym;
    if (bits == 4) {
      cq.note = std::string("GPTQ 4-bit ") + (sym ? "symmetric" : "asymmetric");
    } else if (bits == 8) {
      cq.note = "GPTQ 8-bit weight-only";
    } else {
      cq.note =
          "GPTQ with " + std::to_string(static_cast<int>(bits)) + " bits has no built-in scheme";
    }
  } else if (m == "awq" || m == "awq_marlin") {
    f.groupSize = statedGroup(
        JsonReader::numberOr(q, "group_size", JsonReader::numberOr(q, "q_group_size", 128)));
    f.weightBits = 4;
    f.weightType = "int";
    f.symmetric = !JsonReader::booleanOr(q, "zero_point", true);
    cq.note = "AWQ 4-bit";
  } else if (m == "fp8" || m == "fbgemm_fp8") {
    f.weightBits = 8;
    f.weightType = "float";
    f.activationBits = 8;
    f.activationType = "float";
    cq.note = "FP8 checkpoint (activation_scheme " +
              (JsonReader::stringOr(q, "activation_scheme").empty()
                   ? std::string("dynamic")
                   : JsonReader::stringOr(q, "activation_scheme")) +
              ")";
  } else if (m == "modelopt" || m == "modelopt_fp4") {
    std::string algo = JsonReader::stringOr(q, "quant_algo");
    if (algo.empty() && q.contains("quantization") && q["quantization"].is_object()) {
      algo = JsonReader::stringOr(q["quantization"], "quant_algo");
    }
    f.algo = algo;
    cq.note = "ModelOpt " + (algo.empty() ? std::string("(unknown algorithm)") : algo);
  } else if (m == "compressed-tensors" || m == "compressed_tensors") {
    const auto groups = q.find("config_groups");
    if (groups != q.end() && groups->is_object() && !groups->empty()) {
      const Json& g = groups->begin().value();
      const Json w = g.value("weights", Json::object());
      const Json a = g.contains("input_activations") ? g["input_activations"] : Json();
      const double wb = w.is_object() ? JsonReader::numberOr(w, "num_bits", 0) : 0;
      const std::string wt = w.is_object() ? JsonReader::stringOr(w, "type") : "";
      const bool wsym = w.is_object() ? JsonReader::booleanOr(w, "symmetric", true) : true;
      const double ab = a.is_object() ? JsonReader::numberOr(a, "num_bits", 0) : 0;
      const std::string at = a.is_object() ? JsonReader::stringOr(a, "type") : "";
      f.weightBits = wb;
      f.weightType = wt == "float" ? "float" : "int";
      f.symmetric = wsym;
      f.activationBits = ab;
      if (ab > 0) f.activationType = at == "float" ? "float" : "int";
      // A group strategy states its group; a channel or tensor strategy has none (null): one
      // scale per row or per tensor.
      if (w.is_object()) {
        if (const std::string strategy = JsonReader::stringOr(w, "strategy");
            strategy == "channel" || strategy == "tensor") {
          f.groupSize = -1;
        } else if (const auto gs = w.find("group_size"); gs != w.end() && gs->is_number()) {
          f.groupSize = statedGroup(gs->get<double>());
        }
      }
      cq.note = "compressed-tensors: weights " + std::to_string(static_cast<int>(wb)) + "-bit " +
                wt +
                (ab > 0 ? ", activations " + std::to_string(static_cast<int>(ab)) + "-bit " + at
                        : ", activations unquantized");
    } else {
      cq.note = "compressed-tensors without config_groups";
    }
  } else if (const std::string scheme = cat.schemeForCheckpoint(f); !scheme.empty()) {
    // A method the catalog names by quant_method alone (gpt-oss's mxfp4): its
    // modules_to_not_convert keep attention, router, embeddings or the LM head unquantized.
    std::vector<std::string> keep;
    if (const auto it = q.find("modules_to_not_convert"); it != q.end() && it->is_array()) {
      for (const auto& v : *it) {
        if (v.is_string()) keep.push_back(v.get<std::string>());
      }
    }
    if (keep.empty()) {
      cq.schemeId = scheme;
      cq.note = "quant_method '" + cq.quantMethod + "' (the catalog's " + scheme + ")";
      return cq;
    }
    auto kept = [&](std::initializer_list<const char*> parts) {
      return std::any_of(keep.begin(), keep.end(), [&](const std::string& k) {
        return std::any_of(parts.begin(), parts.end(),
                           [&](const char* p) { return k.find(p) != std::string::npos; });
      });
    };
    const std::string& base = cat.baselineSchemeId();
    cq.linearSchemeId = kept({"self_attn", "attn", "router", "gate"}) ? base : scheme;
    cq.moeSchemeId = kept({"experts"}) ? base : scheme;
    cq.lmHeadSchemeId = kept({"lm_head"}) ? base : scheme;
    cq.schemeId =
        "linear=" + cq.linearSchemeId + ",moe=" + cq.moeSchemeId + ",lm_head=" + cq.lmHeadSchemeId;
    cq.note = cq.quantMethod + " experts; modules_to_not_convert (" + std::to_string(keep.size()) +
              " patterns) stay " + base + ": modelled as the mixed candidate " + cq.schemeId;
    return cq;
  } else {
    cq.note = "quant_method '" + cq.quantMethod + "' has no built-in scheme";
  }
  mapToScheme(cat, cq);
  if (cq.schemeId.empty() && cq.note.find("no built-in") == std::string::npos) {
    cq.note += " (no built-in scheme matches)";
  }
  return cq;
}

/// The fields of one config object (`c`, at pointer `base`, inside the document `root`).
struct ConfigFields {
  const JsonReader& rd;
  const Json& root;
  const Json& c;
  std::string base;

  /// A positive integer field into `var` (0 when optional and absent); the error, if any.
  std::optional<Error> positive(std::int64_t& var, const char* key, bool required) const {
    auto r = positiveInt(rd, c, base, key, required);
    if (!r) return r.error();
    var = *r;
    return std::nullopt;
  }
  /// A list of layer indices (mlp_only_layers, Llama-4's moe_layers); `present` says whether
  /// the config has it.
  std::optional<Error> indexList(const char* key, std::set<std::int64_t>& out,
                                 bool& present) const {
    const Json* v = JsonReader::find(c, key);
    present = v != nullptr;
    if (!present) return std::nullopt;
    if (!v->is_array())
      return rd.error(base + "/" + key, key, "expected an array of layer indices");
    for (std::size_t i = 0; i < v->size(); ++i) {
      const Json& e = (*v)[i];
      if (!e.is_number_integer() || e.get<std::int64_t>() < 0) {
        return rd.error(base + "/" + key + "/" + std::to_string(i), key,
                        "expected a non-negative layer index, found " + e.dump());
      }
      out.insert(e.get<std::int64_t>());
    }
    return std::nullopt;
  }
};

/// Layers, widths, heads, vocabulary and tied embeddings.
std::optional<Error> readDims(const ConfigFields& f, ModelArch& m, const std::string& outerType) {
  const JsonReader& rd = f.rd;
  const std::string& base = f.base;
  if (auto err = f.positive(m.layers, "num_hidden_layers", true)) return err;
  if (auto err = f.positive(m.hidden, "hidden_size", true)) return err;
  if (auto err = f.positive(m.heads, "num_attention_heads", true)) return err;
  if (auto err = f.positive(m.vocab, "vocab_size", true)) return err;
  if (auto err = f.positive(m.maxPositions, "max_position_embeddings", false)) return err;
  if (auto err = f.positive(m.kvHeads, "num_key_value_heads", false)) return err;
  if (m.kvHeads == 0) m.kvHeads = m.heads;
  if (auto err = f.positive(m.headDim, "head_dim", false)) return err;
  if (m.headDim == 0) {
    if (m.hidden % m.heads != 0) {
      return rd.error(base + "/num_attention_heads", "num_attention_heads",
                      "hidden_size is not divisible by num_attention_heads and head_dim is absent");
    }
    m.headDim = m.hidden / m.heads;
  }
  if (m.kvHeads > m.heads) {
    return rd.error(base + "/num_key_value_heads", "num_key_value_heads",
                    "exceeds num_attention_heads (" + std::to_string(m.heads) + ")");
  }
  // The text model's key, else the outer config's (multimodal configs keep it outside),
  // else the model type's default.
  m.tiedEmbeddings = tiesByDefault(m.modelType) || tiesByDefault(outerType);
  for (const auto& [obj, ptr] : {std::pair<const Json*, std::string>{&f.c, base},
                                 std::pair<const Json*, std::string>{&f.root, ""}}) {
    auto tied = rd.optBoolean(*obj, ptr, "tie_word_embeddings");
    if (!tied) return tied.error();
    if (!tied->has_value()) continue;
    m.tiedEmbeddings = **tied;
    break;
  }
  return std::nullopt;
}

/// Which layers are MoE layers, from the first-dense, step, frequency and list keys.
std::optional<Error> readMoeLayers(const ConfigFields& f, ModelArch& m) {
  std::int64_t firstDense = 0, sparseStep = 0, layerFreq = 0, interleave = 0;
  if (auto err = f.positive(interleave, "interleave_moe_layer_step", false)) return err;
  if (auto err = f.positive(firstDense, "first_k_dense_replace", false)) return err;
  if (auto err = f.positive(sparseStep, "decoder_sparse_step", false)) return err;
  if (auto err = f.positive(layerFreq, "moe_layer_freq", false)) return err;
  std::set<std::int64_t> mlpOnly, moeLayers;
  bool hasMlpOnly = false, hasMoeLayers = false;
  if (auto err = f.indexList("mlp_only_layers", mlpOnly, hasMlpOnly)) return err;
  if (auto err = f.indexList("moe_layers", moeLayers, hasMoeLayers)) return err;
  m.moeLayer.assign(static_cast<std::size_t>(m.layers), true);
  for (std::int64_t i = 0; i < m.layers; ++i) {
    bool moe = i >= firstDense && !mlpOnly.contains(i);
    if (sparseStep > 1) moe = moe && ((i + 1) % sparseStep == 0);
    if (layerFreq > 1) moe = moe && (i % layerFreq == 0);
    // transformers' Llama4TextConfig: moe_layers, else every interleave-th layer
    // (indices step−1, 2·step−1, ...).
    if (hasMoeLayers)
      moe = moe && moeLayers.contains(i);
    else if (interleave > 1)
      moe = moe && ((i + 1) % interleave == 0);
    m.moeLayer[static_cast<std::size_t>(i)] = moe;
  }
  return std::nullopt;
}

/// Routed and shared experts, their widths and the MLP width; `expertsKey` names the key
/// the expert count came from.
std::optional<Error> readExperts(const ConfigFields& f, ModelArch& m, bool llama4,
                                 std::string& expertsKey) {
  const JsonReader& rd = f.rd;
  const std::string& base = f.base;
  for (const char* key : {"num_local_experts", "num_experts", "n_routed_experts"}) {
    std::int64_t e = 0;
    if (auto err = f.positive(e, key, false)) return err;
    if (e > 0) {
      m.experts = e;
      expertsKey = key;
      break;
    }
  }
  if (auto err = f.positive(m.intermediate, "intermediate_size", false)) return err;
  if (m.experts == 0) {
    m.moeLayer.assign(static_cast<std::size_t>(m.layers), false);
    if (m.intermediate == 0) {
      return rd.error(base + "/intermediate_size", "intermediate_size",
                      "required key is missing from config.json");
    }
    return std::nullopt;
  }
  if (auto err = f.positive(m.expertsPerToken, "num_experts_per_tok", true)) return err;
  if (m.expertsPerToken > m.experts) {
    return rd.error(base + "/num_experts_per_tok", "num_experts_per_tok",
                    "exceeds the number of routed experts (" + std::to_string(m.experts) + ")");
  }
  if (auto err = f.positive(m.expertWidth, "moe_intermediate_size", false)) return err;
  if (m.expertWidth == 0) m.expertWidth = m.intermediate;
  if (llama4) {
    // Routed experts and the one shared expert have width intermediate_size; the dense
    // layers between MoE layers have width intermediate_size_mlp.
    m.sharedExpertWidthTotal = m.expertWidth;
    std::int64_t denseWidth = 0;
    if (auto err = f.positive(denseWidth, "intermediate_size_mlp", false)) return err;
    m.intermediate = denseWidth;
  }
  if (m.expertWidth == 0) {
    return rd.error(base + "/moe_intermediate_size", "moe_intermediate_size",
                    "an MoE model needs moe_intermediate_size or intermediate_size");
  }
  std::int64_t nShared = 0, sharedWidth = 0;
  if (auto err = f.positive(nShared, "n_shared_experts", false)) return err;
  if (auto err = f.positive(sharedWidth, "shared_expert_intermediate_size", false)) return err;
  if (nShared > 0 || sharedWidth > 0) {
    m.sharedExpertWidthTotal = nShared > 0 ? nShared * m.expertWidth : sharedWidth;
  }
  if (auto err = readMoeLayers(f, m)) return err;
  if (m.intermediate == 0 && m.moeLayerCount() < m.layers) {
    const char* key = llama4 ? "intermediate_size_mlp" : "intermediate_size";
    return rd.error(base + "/" + key, key, "required for the dense layers of this MoE model");
  }
  return std::nullopt;
}

/// Sliding-window attention: which layers keep only the last `sliding_window` tokens of KV.
std::optional<Error> readSlidingWindow(const ConfigFields& f, ModelArch& m) {
  const JsonReader& rd = f.rd;
  const std::string& base = f.base;
  const Json& c = f.c;
  if (auto err = f.positive(m.slidingWindow, "sliding_window", false)) return err;
  m.slidingLayer.assign(static_cast<std::size_t>(m.layers), false);
  if (const Json* types = JsonReader::find(c, "layer_types")) {
    // transformers' layer_types (gpt-oss, Gemma-2/3 in recent configs, Qwen, ...).
    const std::string ptr = base + "/layer_types";
    if (!types->is_array() || static_cast<std::int64_t>(types->size()) != m.layers) {
      return rd.error(
          ptr, "layer_types",
          "expected an array of num_hidden_layers (" + std::to_string(m.layers) + ") layer types");
    }
    for (std::size_t i = 0; i < types->size(); ++i) {
      const Json& v = (*types)[i];
      if (!v.is_string()) {
        return rd.error(ptr + "/" + std::to_string(i), "layer_types",
                        "expected a layer type string, found " + v.dump());
      }
      m.slidingLayer[i] = v.get<std::string>() == "sliding_attention";
    }
    if (m.slidingWindow == 0 &&
        std::count(m.slidingLayer.begin(), m.slidingLayer.end(), true) > 0) {
      return rd.error(base + "/sliding_window", "sliding_window",
                      "layer_types has sliding_attention layers but sliding_window is not set");
    }
  } else if (m.slidingWindow > 0) {
    const auto use = c.find("use_sliding_window");
    const bool useGiven = use != c.end() && use->is_boolean();
    const bool isQwen = m.modelType.rfind("qwen", 0) == 0;
    std::int64_t pattern = 0, maxWindowLayers = 0;
    if (auto err = f.positive(pattern, "sliding_window_pattern", false)) return err;
    if (auto err = f.positive(maxWindowLayers, "max_window_layers", false)) return err;
    for (std::int64_t i = 0; i < m.layers; ++i) {
      bool windowed = true;  // Mistral and others: every layer
      if (useGiven && !use->get<bool>())
        windowed = false;
      else if (isQwen)
        windowed = useGiven && i >= maxWindowLayers;  // Qwen2: off unless use_sliding_window
      else if (m.modelType == "gemma2")
        windowed = i % 2 == 0;  // local, global, local, ...
      else if (pattern > 0 || m.modelType.rfind("gemma3", 0) == 0) {
        windowed = (i + 1) % (pattern > 0 ? pattern : 6) != 0;  // Gemma-3: 5 local, 1 global
      }
      m.slidingLayer[static_cast<std::size_t>(i)] = windowed;
    }
  }
  if (m.slidingLayerCount() == 0) m.slidingWindow = 0;
  return std::nullopt;
}

/// Multi-head latent attention (kv_lora_rank and its companions), when the config has it.
std::optional<Error> readMla(const ConfigFields& f, ModelArch& m) {
  if (!JsonReader::find(f.c, "kv_lora_rank")) return std::nullopt;
  MlaDims mla;
  if (auto err = f.positive(mla.kvLoraRank, "kv_lora_rank", true)) return err;
  if (auto err = f.positive(mla.qLoraRank, "q_lora_rank", false)) return err;
  if (auto err = f.positive(mla.qkNopeHeadDim, "qk_nope_head_dim", true)) return err;
  if (auto err = f.positive(mla.qkRopeHeadDim, "qk_rope_head_dim", true)) return err;
  if (auto err = f.positive(mla.vHeadDim, "v_head_dim", true)) return err;
  m.mla = mla;
  m.headDim = mla.qkNopeHeadDim + mla.qkRopeHeadDim;
  return std::nullopt;
}

}  // namespace

Result<ModelArch> parseModelConfig(const Json& rootIn, const std::string& file,
                                   const std::string& id) {
  if (!rootIn.is_object()) {
    return Error{file, "/", "",
                 std::string("config.json must be a JSON object, found ") + rootIn.type_name()};
  }
  // Multimodal configs keep the language model under text_config.
  const Json* cfg = &rootIn;
  std::string base;
  if (!rootIn.contains("hidden_size") && rootIn.contains("text_config") &&
      rootIn["text_config"].is_object()) {
    cfg = &rootIn["text_config"];
    base = "/text_config";
  }
  const Json& c = *cfg;
  const JsonReader rd(file);
  const ConfigFields f{rd, rootIn, c, base};
  ModelArch m;
  m.id = id;
  m.sourceFile = file;
  m.name = JsonReader::stringOr(c, "_name_or_path");
  if (m.name.empty()) m.name = JsonReader::stringOr(rootIn, "_name_or_path");
  if (m.name.empty()) m.name = id;
  const std::string outerType = JsonReader::stringOr(rootIn, "model_type");
  m.modelType = JsonReader::stringOr(c, "model_type");
  if (m.modelType.empty()) m.modelType = outerType;
  // Llama-4 (text model llama4_text): MoE every interleave_moe_layer_step-th layer, dense
  // layers of width intermediate_size_mlp, experts and the shared expert of intermediate_size.
  const bool llama4 =
      m.modelType == "llama4_text" || m.modelType == "llama4" || outerType == "llama4";
  if (auto err = readDims(f, m, outerType)) return *err;
  std::string expertsKey = "num_local_experts";
  if (auto err = readExperts(f, m, llama4, expertsKey)) return *err;
  if (auto err = readSlidingWindow(f, m)) return *err;
  if (auto err = readMla(f, m)) return *err;
  if (const Json* q = JsonReader::find(rootIn, "quantization_config")) {
    if (!q->is_object()) {
      return rd.error("/quantization_config", "quantization_config",
                      "expected an object, found " + JsonReader::describe(*q));
    }
    m.checkpointQuant = mapQuantizationConfig(*q);
  }
  if (auto e = checkParamTotal(m)) {
    const std::string key = e->field == "experts" ? expertsKey : e->field;
    return rd.error(base + "/" + key, key, e->message);
  }
  return m;
}

namespace {
/// The config key behind the largest parameter group (named when the total is too large).
std::string largestGroupKey(const ModelArch& m, const ParamCounts& p) {
  const std::pair<double, std::string> groups[] = {
      {p.attention, m.mla ? "kv_lora_rank" : "num_attention_heads"},
      {p.denseMlp, "intermediate_size"},
      {p.routedExperts + p.sharedExperts + p.router, "experts"},
      {p.lmHead + p.embedding, "vocab_size"}};
  const auto* best = &groups[0];
  for (const auto& g : groups) {
    if (g.first > best->first) best = &g;
  }
  return best->second;
}
}  // namespace

std::optional<Error> checkParamTotal(const ModelArch& m) {
  const ParamCounts p = countParams(m);
  if (p.total() < kMaxParamTotal && std::isfinite(p.total())) return std::nullopt;
  return Error{m.sourceFile, "", largestGroupKey(m, p),
               "the configuration's parameter total (" + sigFigs(p.total(), 6) + ") is not below " +
                   sigFigs(kMaxParamTotal, 6) + "; num_hidden_layers " + std::to_string(m.layers) +
                   ", hidden_size " + std::to_string(m.hidden)};
}

Result<ModelArch> loadModelConfigFile(const std::string& path) {
  auto j = readJsonFile(path, false, 64ull * 1024 * 1024);
  if (!j) return j.error();
  std::string stem = std::filesystem::path(path).stem().string();
  if (stem == "config") stem = std::filesystem::path(path).parent_path().filename().string();
  if (stem.empty()) stem = "model";
  return parseModelConfig(*j, path, stem);
}

ParamCounts countParams(const ModelArch& m) {
  ParamCounts p;
  const double d = static_cast<double>(m.hidden);
  const double nh = static_cast<double>(m.heads);
  const double nkv = static_cast<double>(m.kvHeads);
  const double hd = static_cast<double>(m.headDim);
  const double L = static_cast<double>(m.layers);
  double attnPerLayer = 0;
  if (m.mla) {
    const double qr = static_cast<double>(m.mla->qLoraRank);
    const double nope = static_cast<double>(m.mla->qkNopeHeadDim);
    const double rope = static_cast<double>(m.mla->qkRopeHeadDim);
    const double kvr = static_cast<double>(m.mla->kvLoraRank);
    const double v = static_cast<double>(m.mla->vHeadDim);
    const double q = qr > 0 ? d * qr + qr * nh * (nope + rope) : d * nh * (nope + rope);
    const double kv = d * (kvr + rope) + kvr * nh * (nope + v);
    const double o = nh * v * d;
    attnPerLayer = q + kv + o;
  } else {
    attnPerLayer = d * nh * hd + 2.0 * d * nkv * hd + nh * hd * d;
  }
  p.attention = attnPerLayer * L;
  const double moeLayers = static_cast<double>(m.moeLayerCount());
  const double denseLayers = L - moeLayers;
  p.denseMlp = denseLayers * 3.0 * d * static_cast<double>(m.intermediate);
  if (m.isMoe()) {
    const double E = static_cast<double>(m.experts);
    const double fe = static_cast<double>(m.expertWidth);
    p.router = moeLayers * d * E;
    p.sharedExperts = moeLayers * 3.0 * d * static_cast<double>(m.sharedExpertWidthTotal);
    p.routedPerExpertLayer = 3.0 * d * fe;
    p.routedExperts = moeLayers * E * p.routedPerExpertLayer;
  }
  p.lmHead = static_cast<double>(m.vocab) * d;
  p.embedding = m.tiedEmbeddings ? 0.0 : static_cast<double>(m.vocab) * d;
  p.active = p.linear() + p.lmHead +
             moeLayers * static_cast<double>(m.expertsPerToken) * p.routedPerExpertLayer;
  return p;
}

}  // namespace qf
