// A Deploy answer as the commands that launch it (vLLM, SGLang, TensorRT-LLM): each engine's
// flags for the TP degree, replicas, batch cap, token budget, KV dtype and memory fraction the
// model priced, and a checkpoint that exists or is named as one to make.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/launch_command.hpp>
#include <quantfront/core/model/catalog.hpp>

using namespace qf;

namespace {

DeployConfig config(const std::string& scheme, const std::string& kv) {
  DeployConfig c;
  c.gpu = "h100-sxm";
  c.gpuCount = 4;
  c.tp = 2;
  c.replicas = 2;
  c.linear = scheme;
  c.lmHead = scheme;  // as the search gives a uniform configuration
  c.kvDtype = kv;
  c.maxBatch = 128;
  return c;
}

LaunchSettings settings() {
  LaunchSettings s;
  s.memUtil = 0.92;
  s.tokenBudget = 8192;
  s.maxModelLen = 1536;
  return s;
}

}  // namespace

TEST_CASE("launch lines carry the priced deployment's limits into each engine's flags",
          "[deploy][launch]") {
  const ModelArch m = *Catalog::bundled().resolveModel("llama-3.1-8b");
  REQUIRE(m.name == "meta-llama/Llama-3.1-8B-Instruct");
  const auto fp8 = launchCommands(config("w8a8-fp8", "fp8"), m, settings());
  REQUIRE(fp8.size() == 3);
  CHECK(fp8[0].engine == "vllm");
  // vLLM quantizes the bf16 checkpoint to FP8 as it loads it (the catalog's online_quantization).
  CHECK(
      fp8[0].command ==
      "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2 "
      "--data-parallel-size 2 --max-num-seqs 128 --max-num-batched-tokens 8192 "
      "--gpu-memory-utilization 0.92 --max-model-len 1536 --kv-cache-dtype fp8 --quantization fp8");
  CHECK_FALSE(fp8[0].checkpointToMake);
  CHECK(fp8[1].engine == "sglang");
  CHECK(fp8[1].command ==
        "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
        "--tp-size 2 --dp-size 2 --max-running-requests 128 --chunked-prefill-size 8192 "
        "--mem-fraction-static 0.92 --context-length 1536 --kv-cache-dtype fp8_e4m3 "
        "--quantization fp8");
  // TensorRT-LLM needs an FP8 checkpoint: named as one to make, with what to make.
  CHECK(fp8[2].engine == "trtllm");
  CHECK(fp8[2].checkpointToMake);
  CHECK(fp8[2].checkpoint == "<w8a8-fp8 checkpoint of meta-llama/Llama-3.1-8B-Instruct>");
  CHECK(fp8[2].command.find("--tp_size 2 --max_batch_size 128 --max_num_tokens 8192") !=
        std::string::npos);
  CHECK(fp8[2].command.find("--extra_llm_api_options kv_fp8.yml") != std::string::npos);
  CHECK(fp8[2].notes.size() == 4);  // checkpoint, KV file, two replicas, its KV rule

  // bf16 runs the model's own checkpoint everywhere; W4A16 needs one made everywhere.
  auto c = config("bf16", "bf16");
  c.replicas = 1;
  for (const auto& lc : launchCommands(c, m, settings())) {
    INFO(lc.engine);
    CHECK_FALSE(lc.checkpointToMake);
    CHECK(lc.command.find("meta-llama/Llama-3.1-8B-Instruct") != std::string::npos);
    CHECK(lc.command.find("fp8") == std::string::npos);
    CHECK(lc.command.find("data-parallel") == std::string::npos);
    CHECK(lc.command.find("--dp-size") == std::string::npos);
  }
  for (const auto& lc : launchCommands(config("w4a16-g128", "bf16"), m, settings())) {
    INFO(lc.engine);
    CHECK(lc.checkpointToMake);
    CHECK(lc.notes.front().find("GPTQ") != std::string::npos);
    CHECK(lc.command.find("--quantization") == std::string::npos);
  }
  const auto j = launchCommandsToJson(fp8);
  CHECK(j["vllm"]["command"] == fp8[0].command);
  CHECK(j["trtllm"]["checkpoint_to_make"] == true);
}

TEST_CASE("a checkpoint that already is the configuration is launched as it is",
          "[deploy][launch]") {
  ModelArch m = *Catalog::bundled().resolveModel("llama-3.1-8b");
  m.name = "org/Llama-3.1-8B-Instruct-quantized.w4a16";
  CheckpointQuant q;
  q.quantMethod = "gptq";
  q.schemeId = "w4a16-g128";
  m.checkpointQuant = q;
  for (const auto& lc : launchCommands(config("w4a16-g128", "bf16"), m, settings())) {
    INFO(lc.engine);
    CHECK_FALSE(lc.checkpointToMake);
    CHECK(lc.checkpoint == m.name);
  }
  // Another scheme than the checkpoint holds: one to make (never an engine's online pass over
  // an already quantized checkpoint).
  for (const auto& lc : launchCommands(config("w8a8-fp8", "bf16"), m, settings()))
    CHECK(lc.checkpointToMake);
}

TEST_CASE("launch lines for expert parallelism and DP attention use each engine's own flags",
          "[deploy][launch][moe]") {
  const ModelArch m = *Catalog::bundled().resolveModel("deepseek-v3");
  DeployConfig c;
  c.gpu = "h200-sxm";
  c.gpuCount = 8;
  c.tp = 8;
  c.replicas = 1;
  c.ep = 8;
  c.dpAttention = true;
  c.linear = "w8a8-fp8";
  c.moe = "w8a8-fp8";
  c.lmHead = "w8a8-fp8";
  c.kvDtype = "fp8";
  c.maxBatch = 256;
  const auto lc = launchCommands(c, m, settings());
  REQUIRE(lc.size() == 3);
  // vLLM: attention data-parallel over the 8 GPUs (TP 1 inside), experts spread over them.
  CHECK(lc[0].command.find("--tensor-parallel-size 1 --data-parallel-size 8 "
                           "--enable-expert-parallel") != std::string::npos);
  // SGLang: --dp-size equal to the TP size with --enable-dp-attention, and --ep-size.
  CHECK(lc[1].command.find("--tp-size 8 --dp-size 8 --enable-dp-attention --ep-size 8") !=
        std::string::npos);
  // ... and the dense MLP and shared experts data-parallel, as the model prices DP attention.
  CHECK(lc[1].command.find("--ep-size 8 --moe-dense-tp-size 1") != std::string::npos);
  // TensorRT-LLM: --ep_size, and attention DP in the extra options file with the FP8 KV.
  CHECK(lc[2].command.find("--tp_size 8 --ep_size 8") != std::string::npos);
  CHECK(lc[2].command.find("--extra_llm_api_options extra_options.yml") != std::string::npos);
  const bool named = std::any_of(lc[2].notes.begin(), lc[2].notes.end(), [](const auto& n) {
    return n.find("enable_attention_dp: true") != std::string::npos &&
           n.find("kv_cache_config: {dtype: fp8}") != std::string::npos;
  });
  CHECK(named);
  // The replica's cap of 256 is its 8 ranks' together: vLLM and TensorRT-LLM take a rank's
  // (32) and its token budget; SGLang the total and a budget it divides by --dp-size.
  CHECK(lc[0].command.find("--max-num-seqs 32 --max-num-batched-tokens 8192") != std::string::npos);
  CHECK(lc[1].command.find("--max-running-requests 256 --chunked-prefill-size 65536") !=
        std::string::npos);
  CHECK(lc[2].command.find("--max_batch_size 32 --max_num_tokens 8192") != std::string::npos);
  // EP 4 of 8 GPUs: vLLM cannot split experts in groups, and says so; SGLang can.
  c.ep = 4;
  c.dpAttention = false;
  const auto partial = launchCommands(c, m, settings());
  CHECK(partial[0].command.find("--tensor-parallel-size 8 --enable-expert-parallel") !=
        std::string::npos);
  const bool said = std::any_of(
      partial[0].notes.begin(), partial[0].notes.end(),
      [](const auto& n) { return n.find("the model priced EP 4") != std::string::npos; });
  CHECK(said);
  CHECK(partial[1].command.find("--tp-size 8 --ep-size 4") != std::string::npos);
  CHECK(partial[1].command.find("dp-attention") == std::string::npos);
  CHECK(partial[1].command.find("moe-dense-tp-size") == std::string::npos);
  // Plain TP carries none of these flags.
  c.ep = 1;
  for (const auto& l : launchCommands(c, m, settings())) {
    INFO(l.engine);
    CHECK(l.command.find("expert") == std::string::npos);
    CHECK(l.command.find("ep-size") == std::string::npos);
    CHECK(l.command.find("ep_size") == std::string::npos);
  }
}

TEST_CASE("launch lines carry the redundant expert slots the model priced to each balancer",
          "[deploy][launch][moe]") {
  const ModelArch m = *Catalog::bundled().resolveModel("mixtral-8x7b");  // 8 routed experts
  DeployConfig c;
  c.gpu = "h100-sxm";
  c.gpuCount = 16;
  c.tp = 16;
  c.ep = 16;
  c.redundantExperts = 8;  // 16 slots, one a GPU
  c.linear = "bf16";
  c.moe = "bf16";
  c.lmHead = "bf16";
  c.kvDtype = "bf16";
  c.maxBatch = 64;
  const auto lc = launchCommands(c, m, settings());
  REQUIRE(lc.size() == 3);
  CHECK(lc[0].command.find("--enable-expert-parallel --enable-eplb --eplb-config "
                           "'{\"num_redundant_experts\": 8}'") != std::string::npos);
  CHECK(lc[1].command.find("--ep-size 16 --enable-eplb --ep-num-redundant-experts 8") !=
        std::string::npos);
  // TensorRT-LLM's load balancer counts slots: the 8 experts and the 8 copies.
  CHECK(lc[2].command.find("--extra_llm_api_options moe_load_balancer.yml") != std::string::npos);
  const bool slots = std::any_of(lc[2].notes.begin(), lc[2].notes.end(), [](const auto& n) {
    return n.find("moe_config: {load_balancer: {num_slots: 16}}") != std::string::npos;
  });
  CHECK(slots);
  // Without slots, none of the balancers' flags.
  c.redundantExperts = 0;
  c.ep = 8;
  for (const auto& l : launchCommands(c, m, settings())) {
    INFO(l.engine);
    CHECK(l.command.find("eplb") == std::string::npos);
    CHECK(l.command.find("redundant") == std::string::npos);
    CHECK(l.command.find("moe_load_balancer") == std::string::npos);
  }
}
