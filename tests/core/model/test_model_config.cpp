// config.json reading and parameter accounting against hand computation and model cards.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/model_config.hpp>

using namespace qf;

namespace {

std::string fixture(const std::string& name) {
  return std::string(QF_TEST_DATA_DIR) + "/cli/" + name;
}

ModelArch load(const std::string& path) {
  auto m = loadModelConfigFile(path);
  INFO(path << ": " << (m ? std::string() : m.error().str()));
  REQUIRE(m.ok());
  return *m;
}

ModelArch parse(const std::string& text) {
  auto m = parseModelConfig(nlohmann::json::parse(text), "inline.json", "inline");
  INFO((m ? std::string() : m.error().str()));
  REQUIRE(m.ok());
  return *m;
}

Error parseError(const std::string& text) {
  auto m = parseModelConfig(nlohmann::json::parse(text), "inline.json", "inline");
  REQUIRE_FALSE(m.ok());
  return m.error();
}

// Llama-4 text model: d 5120, 48 layers, 40 heads, 8 kv heads, head_dim 128, vocab 202048.
constexpr double kL4Attention = 48.0 * (5120.0 * 40 * 128 * 2 + 5120.0 * 8 * 128 * 2);
constexpr double kL4Expert = 3.0 * 5120 * 8192;     // one expert (and the shared expert)
constexpr double kL4DenseMlp = 3.0 * 5120 * 16384;  // intermediate_size_mlp
constexpr double kL4Vocab = 202048.0 * 5120;
// The vision tower the model cards' totals include (vision_config: 34 layers of width 1408,
// MLP 5632, patch 14, biases on every projection; pixel-shuffle adapter 1408·4 → 4096 → 4096;
// projector 4096 → 5120). Not served by the text model, so not in the engine's count.
constexpr double kL4Vision = 34.0 * (4 * (1408.0 * 1408 + 1408) + 2 * 1408.0 * 5632 + 5632 + 1408) +
                             3.0 * 14 * 14 * 1408 + 1408.0 * 4 * 4096 + 4096.0 * 4096 +
                             4096.0 * 5120;

}  // namespace

TEST_CASE("Llama-4 Scout: MoE every layer, shared expert, 107.8 B text + vision = 109 B",
          "[model][params][llama4]") {
  auto m = Catalog::bundled().resolveModel("llama-4-scout");
  REQUIRE(m.ok());
  CHECK(m->modelType == "llama4_text");
  CHECK(m->moeLayerCount() == 48);
  CHECK(m->experts == 16);
  CHECK(m->expertsPerToken == 1);
  CHECK(m->expertWidth == 8192);
  CHECK(m->sharedExpertWidthTotal == 8192);
  CHECK_FALSE(m->tiedEmbeddings);
  const auto p = countParams(*m);
  CHECK(p.attention == Approx(kL4Attention).epsilon(1e-12));
  CHECK(p.routedExperts == Approx(48 * 16 * kL4Expert).epsilon(1e-12));
  CHECK(p.sharedExperts == Approx(48 * kL4Expert).epsilon(1e-12));
  CHECK(p.router == Approx(48.0 * 5120 * 16).epsilon(1e-12));
  CHECK(p.denseMlp == 0);
  const double total = kL4Attention + 48 * 17 * kL4Expert + 48.0 * 5120 * 16 + 2 * kL4Vocab;
  CHECK(total / 1e9 == Approx(107.769).epsilon(1e-5));
  CHECK(p.total() == Approx(total).epsilon(1e-12));
  // Model card: 109 B total (text + vision), 17 B active.
  CHECK(std::abs((p.total() + kL4Vision) / 109e9 - 1) < 0.01);
  const double active = kL4Attention + 48.0 * 5120 * 16 + 48 * 2 * kL4Expert + kL4Vocab;
  CHECK(p.active == Approx(active).epsilon(1e-12));
  // The card's "17 B active" is rounded and counts the input embedding (17.17 B).
  CHECK(std::abs((p.active + p.embedding) / 17e9 - 1) < 0.02);
}

TEST_CASE("Llama-4 Maverick: MoE every 2nd layer, dense layers of intermediate_size_mlp",
          "[model][params][llama4]") {
  const ModelArch m = load(fixture("llama-4-maverick.json"));
  CHECK(m.moeLayerCount() == 24);
  // transformers' Llama4TextConfig: MoE layers are 1, 3, 5, ... (step − 1, 2·step − 1, ...).
  CHECK_FALSE(m.moeLayer[0]);
  CHECK(m.moeLayer[1]);
  CHECK(m.moeLayer[47]);
  CHECK(m.intermediate == 16384);
  const auto p = countParams(m);
  CHECK(p.denseMlp == Approx(24 * kL4DenseMlp).epsilon(1e-12));
  CHECK(p.routedExperts == Approx(24 * 128 * kL4Expert).epsilon(1e-12));
  CHECK(p.sharedExperts == Approx(24 * kL4Expert).epsilon(1e-12));
  const double total =
      kL4Attention + 24 * kL4DenseMlp + 24 * 129 * kL4Expert + 24.0 * 5120 * 128 + 2 * kL4Vocab;
  CHECK(p.total() == Approx(total).epsilon(1e-12));
  // Published 400.7 B (text model; was 778 B when every layer counted 128 experts).
  CHECK(std::abs(p.total() / 400.7e9 - 1) < 0.001);
  const double active =
      kL4Attention + 24 * kL4DenseMlp + 24 * 2 * kL4Expert + 24.0 * 5120 * 128 + kL4Vocab;
  CHECK(p.active == Approx(active).epsilon(1e-12));
  CHECK(std::abs((p.active + p.embedding) / 17e9 - 1) < 0.02);
}

TEST_CASE("Llama-4 with an explicit moe_layers list", "[model][llama4]") {
  const ModelArch m = parse(R"({"model_type": "llama4", "text_config": {"model_type": "llama4_text",
      "num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100,
      "intermediate_size": 32, "intermediate_size_mlp": 128, "num_local_experts": 4,
      "num_experts_per_tok": 1, "interleave_moe_layer_step": 1, "moe_layers": [0, 3]}})");
  CHECK(m.moeLayerCount() == 2);
  CHECK(m.moeLayer[0]);
  CHECK_FALSE(m.moeLayer[1]);
  CHECK(countParams(m).denseMlp == Approx(2 * 3.0 * 64 * 128));
  // Dense layers without intermediate_size_mlp: the error names that key.
  const Error e = parseError(R"({"model_type": "llama4_text", "num_hidden_layers": 4,
      "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 32,
      "num_local_experts": 4, "num_experts_per_tok": 1, "interleave_moe_layer_step": 2})");
  CHECK(e.field == "intermediate_size_mlp");
}

TEST_CASE("tied embeddings follow the model type's default when the key is absent",
          "[model][params][tie]") {
  // Gemma-2-2B's config.json has no tie_word_embeddings; Gemma ties.
  const ModelArch g = load(fixture("gemma-2-2b.json"));
  CHECK(g.tiedEmbeddings);
  const auto p = countParams(g);
  const double attention = 26.0 * (2304.0 * 8 * 256 * 2 + 2304.0 * 4 * 256 * 2);
  const double mlp = 26.0 * 3 * 2304 * 9216;
  const double vocab = 256000.0 * 2304;
  CHECK(p.total() == Approx(attention + mlp + vocab).epsilon(1e-12));
  CHECK(p.total() / 1e9 == Approx(2.614).epsilon(1e-3));  // published 2.61 B (not 3.20 B)
  CHECK(p.embedding == 0);
  CHECK(p.lmHead == Approx(vocab));
  const std::string dims = R"("num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
      "vocab_size": 1000, "intermediate_size": 128)";
  for (const char* type : {"gemma", "gemma2", "gemma3", "gemma3_text", "gpt2"}) {
    INFO(type);
    CHECK(parse(std::string("{\"model_type\": \"") + type + "\", " + dims + "}").tiedEmbeddings);
  }
  for (const char* type : {"llama", "qwen2", "mistral", "phi3", "mixtral", ""}) {
    INFO(type);
    CHECK_FALSE(
        parse(std::string("{\"model_type\": \"") + type + "\", " + dims + "}").tiedEmbeddings);
  }
  // An explicit key wins over the default, in either direction.
  CHECK_FALSE(
      parse(std::string(R"({"model_type": "gemma2", "tie_word_embeddings": false, )") + dims + "}")
          .tiedEmbeddings);
  CHECK(parse(std::string(R"({"model_type": "llama", "tie_word_embeddings": true, )") + dims + "}")
            .tiedEmbeddings);
  // Multimodal: the text model's type decides (gemma3 outer, gemma3_text inner), and an outer
  // tie_word_embeddings applies to the nested text model.
  CHECK(parse(std::string(
                  R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text", )") +
              dims + "}}")
            .tiedEmbeddings);
  CHECK_FALSE(
      parse(std::string(
                R"({"model_type": "gemma3", "tie_word_embeddings": false, "text_config": {)") +
            dims + "}}")
          .tiedEmbeddings);
  CHECK(parseError(std::string(R"({"tie_word_embeddings": "yes", )") + dims + "}").field ==
        "tie_word_embeddings");
}

TEST_CASE("Gemma-2-9B: 9.24 B by hand", "[model][params]") {
  auto m = Catalog::bundled().resolveModel("gemma-2-9b");
  REQUIRE(m.ok());
  CHECK(m->tiedEmbeddings);
  const double total = 42.0 * (3584.0 * 16 * 256 * 2 + 3584.0 * 8 * 256 * 2) +
                       42.0 * 3 * 3584 * 14336 + 256000.0 * 3584;
  CHECK(countParams(*m).total() == Approx(total).epsilon(1e-12));
  CHECK(total / 1e9 == Approx(9.241).epsilon(1e-3));
}

TEST_CASE("hostile config sizes are refused naming the key", "[model][bounds]") {
  const std::string dims =
      R"("hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128)";
  // 2^62 layers (allocating a per-layer table would abort), and each bound's first value past it.
  CHECK(parseError(R"({"num_hidden_layers": 4611686018427387904, "vocab_size": 10, )" + dims + "}")
            .field == "num_hidden_layers");
  CHECK(parseError(R"({"num_hidden_layers": 100001, "vocab_size": 10, )" + dims + "}").field ==
        "num_hidden_layers");
  CHECK(parse(R"({"num_hidden_layers": 100000, "vocab_size": 10, )" + dims + "}").layers == 100000);
  CHECK(parseError(R"({"num_hidden_layers": 2, "vocab_size": 100000001, )" + dims + "}").field ==
        "vocab_size");
  CHECK(parseError(R"({"num_hidden_layers": 2, "vocab_size": 10, "hidden_size": 10000001,
      "num_attention_heads": 1, "head_dim": 1, "intermediate_size": 1})")
            .field == "hidden_size");
  CHECK(parseError(R"({"num_hidden_layers": 2, "vocab_size": 10, "num_local_experts": 100001,
      "num_experts_per_tok": 1, )" +
                   dims + "}")
            .field == "num_local_experts");
  // Counts in bounds whose product is not: hidden 1e7 × vocab 1e8 twice is 2e15 parameters.
  const Error e =
      parseError(R"({"num_hidden_layers": 1, "vocab_size": 100000000, "hidden_size": 10000000,
      "num_attention_heads": 1, "head_dim": 1, "intermediate_size": 8})");
  CHECK(e.field == "vocab_size");
  CHECK(e.position == "/vocab_size");
  // Experts dominating: the error names the experts key this config uses.
  CHECK(parseError(R"({"num_hidden_layers": 10, "vocab_size": 10, "hidden_size": 10000,
      "num_attention_heads": 8, "num_experts": 100000, "num_experts_per_tok": 2,
      "moe_intermediate_size": 100000000})")
            .field == "num_experts");
  // A text_config nests the pointer.
  CHECK(parseError(R"({"text_config": {"num_hidden_layers": 1000000, "vocab_size": 10, )" + dims +
                   "}}")
            .position == "/text_config/num_hidden_layers");
}

namespace {
// gpt-oss: d 2880, 64 heads of 64 (q width 4096 ≠ d), 8 kv heads, experts of width 2880.
constexpr double kOssAttentionPerLayer = 2880.0 * 64 * 64 * 2 + 2880.0 * 8 * 64 * 2;
constexpr double kOssExpert = 3.0 * 2880 * 2880;
constexpr double kOssVocab = 201088.0 * 2880;
}  // namespace

TEST_CASE("gpt-oss: totals, active, MXFP4 experts, alternating windows",
          "[model][params][gptoss]") {
  struct Row {
    const char* id;
    double layers, experts, publishedTotalB, cardTotalB, cardActiveB;
  };
  // Published 20.9 B / 116.8 B; model card 21B / 117B total, 3.6B / 5.1B active.
  for (const Row& r :
       {Row{"gpt-oss-20b", 24, 32, 20.9, 21, 3.6}, Row{"gpt-oss-120b", 36, 128, 116.8, 117, 5.1}}) {
    INFO(r.id);
    auto m = Catalog::bundled().resolveModel(r.id);
    REQUIRE(m.ok());
    const auto p = countParams(*m);
    const double total =
        r.layers * (kOssAttentionPerLayer + r.experts * kOssExpert + 2880 * r.experts) +
        2 * kOssVocab;
    CHECK(p.total() == Approx(total).epsilon(1e-12));
    CHECK(std::abs(p.total() / (r.publishedTotalB * 1e9) - 1) < 0.01);
    CHECK(std::abs(p.total() / (r.cardTotalB * 1e9) - 1) < 0.01);
    // Active as OpenAI counts it: attention, router, 4 experts per layer, unembedding (no
    // input embedding) — the definition active_params uses.
    const double active =
        r.layers * (kOssAttentionPerLayer + 4 * kOssExpert + 2880 * r.experts) + kOssVocab;
    CHECK(p.active == Approx(active).epsilon(1e-12));
    CHECK(std::abs(p.active / (r.cardActiveB * 1e9) - 1) < 0.01);
    // Windows: layer_types alternates sliding (128 tokens) and full, starting sliding.
    CHECK(m->slidingWindow == 128);
    CHECK(m->slidingLayerCount() == static_cast<std::int64_t>(r.layers / 2));
    CHECK(m->slidingLayer[0]);
    CHECK_FALSE(m->slidingLayer[1]);
    // quantization_config: mxfp4 experts, modules_to_not_convert stay bf16.
    REQUIRE(m->checkpointQuant);
    CHECK(m->checkpointQuant->quantMethod == "mxfp4");
    CHECK(m->checkpointQuant->perKind());
    CHECK(m->checkpointQuant->linearSchemeId == "bf16");
    CHECK(m->checkpointQuant->moeSchemeId == "mxfp4");
    CHECK(m->checkpointQuant->lmHeadSchemeId == "bf16");
    CHECK(m->checkpointQuant->schemeId == "linear=bf16,moe=mxfp4,lm_head=bf16");
  }
  // KV per sequence at 8192 tokens: 2·8·64·2 = 2048 bytes per layer-token, 12 full layers of
  // 8192 and 12 windowed layers of 128.
  auto m = Catalog::bundled().resolveModel("gpt-oss-20b");
  REQUIRE(m.ok());
  CHECK(m->kvBytesPerSequence(2, 8192) == Approx(2048.0 * (12 * 8192 + 12 * 128)));
  CHECK(m->kvBytesPerSequence(2, 100) == Approx(2048.0 * 24 * 100));  // shorter than the window
  CHECK(m->kvBytesPerToken(2) == Approx(2048.0 * 24));
}

TEST_CASE("sliding-window layers per model type", "[model][window]") {
  const std::string dims = R"("hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128,
      "vocab_size": 100, "num_hidden_layers": 12)";
  // Gemma-2: local, global, local, ... (layer 0 windowed).
  auto g2 = Catalog::bundled().resolveModel("gemma-2-9b");
  REQUIRE(g2.ok());
  CHECK(g2->slidingWindow == 4096);
  CHECK(g2->slidingLayerCount() == 21);
  CHECK(g2->slidingLayer[0]);
  CHECK_FALSE(g2->slidingLayer[41]);
  // Gemma-3: sliding_window_pattern 6 → layers 5 and 11 global.
  const ModelArch g3 = parse(R"({"model_type": "gemma3_text", "sliding_window": 1024,
      "sliding_window_pattern": 6, )" +
                             dims + "}");
  CHECK(g3.slidingLayerCount() == 10);
  CHECK_FALSE(g3.slidingLayer[5]);
  CHECK_FALSE(g3.slidingLayer[11]);
  CHECK(g3.slidingLayer[6]);
  // Mistral-7B-v0.1: sliding_window on every layer.
  CHECK(parse(R"({"model_type": "mistral", "sliding_window": 4096, )" + dims + "}")
            .slidingLayerCount() == 12);
  // Mistral v0.3 (null) and Qwen2.5 (use_sliding_window false) have none.
  CHECK(Catalog::bundled().resolveModel("mistral-7b")->slidingLayerCount() == 0);
  CHECK(Catalog::bundled().resolveModel("qwen2.5-7b")->slidingLayerCount() == 0);
  CHECK(Catalog::bundled().resolveModel("qwen2.5-7b")->slidingWindow == 0);
  // Qwen2 with use_sliding_window: layers from max_window_layers on.
  CHECK(parse(R"({"model_type": "qwen2", "sliding_window": 4096, "use_sliding_window": true,
      "max_window_layers": 8, )" +
              dims + "}")
            .slidingLayerCount() == 4);
  // Window longer than the sequence: the sequence length bounds each layer.
  const ModelArch all = parse(R"({"model_type": "mistral", "sliding_window": 4096, )" + dims + "}");
  CHECK(all.keptLayerTokens(8192) == Approx(12 * 4096.0));
  CHECK(all.keptLayerTokens(1000) == Approx(12 * 1000.0));
  // layer_types must match num_hidden_layers and needs a window.
  CHECK(parseError(R"({"layer_types": ["sliding_attention"], "sliding_window": 128, )" + dims + "}")
            .field == "layer_types");
  CHECK(parseError(R"({"layer_types": ["sliding_attention","full_attention","full_attention",
      "full_attention","full_attention","full_attention","full_attention","full_attention",
      "full_attention","full_attention","full_attention","full_attention"], )" +
                   dims + "}")
            .field == "sliding_window");
}

TEST_CASE("active_params: what each token multiplies, without the input embedding",
          "[model][params][active]") {
  for (const auto& cm : Catalog::bundled().models()) {
    auto m = Catalog::bundled().resolveModel(cm.id);
    REQUIRE(m.ok());
    INFO(cm.id);
    const auto p = countParams(*m);
    const double d = static_cast<double>(m->hidden);
    const double v = static_cast<double>(m->vocab);
    const double kExperts = static_cast<double>(m->moeLayerCount()) *
                            static_cast<double>(m->expertsPerToken) * 3.0 * d *
                            static_cast<double>(m->expertWidth);
    // attention + dense MLP + router + shared experts + k routed experts + LM head.
    CHECK(p.active ==
          Approx(p.attention + p.denseMlp + p.router + p.sharedExperts + kExperts + v * d)
              .epsilon(1e-12));
    if (!m->isMoe()) {
      // Dense: everything streamed is multiplied; the only stored weight left out is the
      // input embedding (none when tied).
      CHECK(p.active == Approx(p.streamed()).epsilon(1e-12));
      CHECK(p.total() - p.active == Approx(m->tiedEmbeddings ? 0.0 : v * d).epsilon(1e-9));
    }
  }
}

TEST_CASE("a config whose _name_or_path is not a string still reads (fuzz finding)", "[model]") {
  const std::string path =
      std::string(QF_SOURCE_DIR) + "/fuzz/regressions/model-name-not-a-string.json";
  qf::Result<qf::ModelArch> m = qf::Error{};
  REQUIRE_NOTHROW(m = qf::loadModelConfigFile(path));
  if (m.ok()) {
    CHECK_FALSE(m->name.empty());  // falls back to the id, never a number as a name
  } else {
    CHECK(m.error().file == path);
  }
}

namespace {

/// What a Llama-3-8B config.json with this quantization_config is read as.
CheckpointQuant checkpointOf(const char* quantizationConfig) {
  nlohmann::json c = nlohmann::json::parse(R"({
    "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
    "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
    "vocab_size": 128256})");
  c["quantization_config"] = nlohmann::json::parse(quantizationConfig);
  auto m = parseModelConfig(c, "inline.json", "inline");
  INFO(quantizationConfig);
  REQUIRE(m.ok());
  REQUIRE(m->checkpointQuant.has_value());
  return *m->checkpointQuant;
}

}  // namespace

TEST_CASE("a checkpoint's quantization_config maps to the catalog's scheme by its rules",
          "[model][checkpoint]") {
  auto schemeOf = [](const char* quantizationConfig) {
    return checkpointOf(quantizationConfig).schemeId;
  };
  const char* ct = R"("quant_method": "compressed-tensors", "config_groups": {"group_0": )";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"quant_method": "gptq", "bits": 4, "sym": true, "group_size": 128})", "w4a16-g128"},
      {R"({"quant_method": "gptq_marlin", "bits": 4, "sym": false})", "w4a16-g128-asym"},
      {R"({"quant_method": "gptq", "bits": 8})", "w8a16"},
      {R"({"quant_method": "gptq", "bits": 3})", ""},
      {R"({"quant_method": "awq", "zero_point": true})", "w4a16-g128-asym"},
      {R"({"quant_method": "AWQ", "zero_point": false})", "w4a16-g128"},
      {R"({"quant_method": "fp8", "activation_scheme": "dynamic"})", "w8a8-fp8"},
      {R"({"quant_method": "fbgemm_fp8"})", "w8a8-fp8"},
      {R"({"quant_method": "modelopt", "quant_algo": "FP8"})", "w8a8-fp8"},
      {R"({"quant_method": "modelopt", "quantization": {"quant_algo": "NVFP4"}})", "nvfp4"},
      {std::string("{") + ct +
           R"({"weights": {"num_bits": 4, "type": "float"}, "input_activations": {"num_bits": 4, "type": "float"}}}})",
       "nvfp4"},
      {std::string("{") + ct +
           R"({"weights": {"num_bits": 4, "type": "int", "symmetric": true}}}})",
       "w4a16-g128"},
      {std::string("{") + ct +
           R"({"weights": {"num_bits": 4, "type": "int", "symmetric": false}}}})",
       "w4a16-g128-asym"},
      {std::string("{") + ct +
           R"({"weights": {"num_bits": 4, "type": "int"}, "input_activations": {"num_bits": 8, "type": "float"}}}})",
       "w4a8-fp8-g128"},
      {std::string("{") + ct +
           R"({"weights": {"num_bits": 8, "type": "float"}, "input_activations": {"num_bits": 8, "type": "float"}}}})",
       "w8a8-fp8"},
      {std::string("{") + ct +
           R"({"weights": {"num_bits": 8, "type": "int"}, "input_activations": {"num_bits": 8, "type": "int"}}}})",
       "w8a8-int8"},
      {std::string("{") + ct + R"({"weights": {"num_bits": 8, "type": "int"}}}})", "w8a16"},
      {std::string("{") + ct +
           R"({"weights": {"num_bits": 4, "type": "int"}, "input_activations": {"num_bits": 8, "type": "int"}}}})",
       ""},
      {R"({"quant_method": "bitsandbytes", "load_in_4bit": true})", ""},
      {R"({"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn", "lm_head"]})",
       "linear=bf16,moe=mxfp4,lm_head=bf16"},
      {R"({"quant_method": "mxfp4"})", "mxfp4"},
  };
  for (const auto& [config, scheme] : cases) {
    INFO(config);
    CHECK(schemeOf(config.c_str()) == scheme);
  }
  // The scheme comes from the catalog's rules: a catalog whose rules differ maps differently.
  CheckpointFacts f;
  f.method = "gptq";
  f.weightBits = 4;
  f.weightType = "int";
  f.symmetric = true;
  CHECK(Catalog::bundled().schemeForCheckpoint(f) == "w4a16-g128");
  f.method = "exl2";
  CHECK(Catalog::bundled().schemeForCheckpoint(f).empty());
}

TEST_CASE("a checkpoint's group size picks the scheme of that group, else the nearest with a note",
          "[model][checkpoint]") {
  // A GPTQ group-32 checkpoint was priced as g128 (4.125 bits where it stores 4.5).
  const auto quantOf = checkpointOf;
  const CheckpointQuant g32 =
      quantOf(R"({"quant_method": "gptq", "bits": 4, "sym": true, "group_size": 32})");
  CHECK(g32.schemeId == "w4a16-g32");
  CHECK(g32.facts.groupSize == 32);
  CHECK(g32.note.find("storage width") == std::string::npos);
  CHECK(quantOf(R"({"quant_method": "awq", "zero_point": false, "group_size": 32})").schemeId ==
        "w4a16-g32");
  CHECK(quantOf(R"({"quant_method": "compressed-tensors", "config_groups": {"group_0":
      {"weights": {"num_bits": 4, "type": "int", "symmetric": true, "strategy": "group",
                   "group_size": 32}}}})")
            .schemeId == "w4a16-g32");
  // No scheme of group 64: the g128 scheme, and the note says what is priced as what.
  const CheckpointQuant g64 =
      quantOf(R"({"quant_method": "gptq", "bits": 4, "sym": true, "group_size": 64})");
  CHECK(g64.schemeId == "w4a16-g128");
  CHECK(g64.note.find("group size 64 modelled with w4a16-g128's storage width") !=
        std::string::npos);
  // The nearest group, not the first scheme: GPTQ group 16 (5 bits) is nearer group 32's 4.5
  // than group 128's 4.125; per-channel INT4 scales (none per group) are nearest group 128.
  CHECK(quantOf(R"({"quant_method": "gptq", "bits": 4, "sym": true, "group_size": 16})").schemeId ==
        "w4a16-g32");
  const CheckpointQuant channel = quantOf(R"({"quant_method": "compressed-tensors",
      "config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "int", "symmetric": true,
                                                 "strategy": "channel"}}}})");
  CHECK(channel.schemeId == "w4a16-g128");
  CHECK(channel.note.find("scales per channel or tensor modelled with w4a16-g128's storage "
                          "width") != std::string::npos);
  // Asymmetric at group 32 has no scheme of its own either: the asymmetric g128.
  CHECK(
      quantOf(R"({"quant_method": "gptq", "bits": 4, "sym": false, "group_size": 32})").schemeId ==
      "w4a16-g128-asym");
  // A group no kernel runs (0, negative, past any tensor) is taken as not stated: g128.
  for (const char* group : {"0", "-5", "1e300"}) {
    const std::string config =
        std::string(R"({"quant_method": "gptq", "bits": 4, "sym": true, "group_size": )") + group +
        "}";
    const CheckpointQuant q = quantOf(config.c_str());
    CHECK(q.schemeId == "w4a16-g128");
    CHECK(q.facts.groupSize == 0);
  }
  // GPTQ's group_size -1 is one scale per channel.
  const CheckpointQuant gptqChannel =
      quantOf(R"({"quant_method": "gptq", "bits": 4, "sym": true, "group_size": -1})");
  CHECK(gptqChannel.schemeId == "w4a16-g128");
  CHECK(gptqChannel.note.find("scales per channel or tensor") != std::string::npos);
  // Group 128, or none stated, stays g128.
  CHECK(
      quantOf(R"({"quant_method": "gptq", "bits": 4, "sym": true, "group_size": 128})").schemeId ==
      "w4a16-g128");
  CHECK(quantOf(R"({"quant_method": "compressed-tensors", "config_groups": {"group_0":
      {"weights": {"num_bits": 4, "type": "int", "symmetric": true}}}})")
            .schemeId == "w4a16-g128");
}
