// A Deploy answer as the commands that launch it (vLLM, SGLang, TensorRT-LLM): each engine's
// flags for the TP degree, replicas, batch cap, token budget, KV dtype and memory fraction the
// model priced, and a checkpoint that exists or is named as one to make.
#include <catch2/catch.hpp>

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
