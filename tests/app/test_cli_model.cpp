// `qfront model` and `qfront catalog` as a user runs them: JSON contract, exit codes, errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include <quantfront/core/base/version.hpp>

#include "cli.hpp"
#include "support/cli_run.hpp"

namespace {
using Run = qf::testing::CliRun;
Run qfront(const std::vector<std::string>& args) {
  return qf::testing::runQfront(args);
}
std::string data(const std::string& name) {
  return std::string(QF_TEST_DATA_DIR) + "/cli/" + name;
}
}  // namespace

TEST_CASE("qfront model --format json carries the contract", "[cli]") {
  // The seed's figures are the ideal roofline's: --datasheet.
  const auto r = qfront({"model", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--scheme",
                         "bf16,w8a8-fp8,w4a16-g128", "--batch", "1,480,1024", "--format", "json",
                         "--datasheet"});
  REQUIRE(r.rc == 0);
  CHECK(r.err.empty());
  CHECK(nlohmann::json::parse(r.out)["efficiency"]["roofline"] == "datasheet");
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["model"]["streamed_params"].get<double>() == Approx(7.5047e9).epsilon(1e-4));
  CHECK(j["model"]["total_params"].get<double>() == Approx(8.0303e9).epsilon(1e-4));
  CHECK(j["model"].contains("active_params"));
  CHECK(j["model"]["expert_params"].get<double>() == 0);
  CHECK(j["gpu"]["name"] == "H100 SXM 80GB");
  REQUIRE(j["schemes"].size() == 3);
  const auto& w4 = j["schemes"][2];
  CHECK(w4["id"] == "w4a16-g128");
  CHECK(w4["bits_per_weight"].get<double>() == Approx(4.125));
  CHECK(w4["path"] == "bf16");
  CHECK(w4["memory_floor_ms"].get<double>() == Approx(1.155).epsilon(1e-3));
  CHECK(w4["dequant_ms"].get<double>() == Approx(0.448).epsilon(1e-3));
  CHECK(std::round(w4["ridge_batch"].get<double>()) == 47);
  CHECK(w4["capacity"]["max_seqs"] == 63);
  CHECK(w4["capacity"]["budget_gib"].get<double>() == Approx(67.278).epsilon(1e-4));
  CHECK(w4["capacity"].contains("kv_gib_per_seq"));
  CHECK(w4["capacity"].contains("weights_gib"));
  CHECK(w4["capacity"].contains("tokens_per_s_at_capacity"));
  REQUIRE(w4["points"].size() == 3);
  CHECK(w4["points"][1]["batch"] == 480);
  CHECK(w4["points"][1]["step_ms"].get<double>() == Approx(7.73).epsilon(2e-3));
  CHECK(w4["points"][1]["bound"] == "compute");
  CHECK(w4["points"][0]["bound"] == "memory");
  CHECK(w4["points"][1]["tokens_per_s"].get<double>() ==
        Approx(480 / (w4["points"][1]["step_ms"].get<double>() / 1e3)));
  // bf16 has a ridge; crossovers list both seed crossings with the faster scheme below.
  REQUIRE(j["crossovers"].size() == 2);
  CHECK(std::round(j["crossovers"][0]["batch"].get<double>()) == 118);
  CHECK(j["crossovers"][0]["faster_below"] == "w4a16-g128");
  CHECK(std::round(j["crossovers"][1]["batch"].get<double>()) == 266);
  CHECK(j["crossovers"][1]["schemes"].size() == 2);
}

TEST_CASE("qfront model: batch forms, fallback path, null ridge, mixed candidates", "[cli]") {
  {
    const auto r = qfront({"model", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--scheme",
                           "bf16", "--batch", "1:1024", "--format", "json"});
    REQUIRE(r.rc == 0);
    const auto j = nlohmann::json::parse(r.out);
    REQUIRE(j["schemes"][0]["points"].size() == 11);  // 1, 2, 4, ..., 1024
    CHECK(j["schemes"][0]["points"][10]["batch"] == 1024);
  }
  {
    const auto r = qfront({"model", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--scheme",
                           "bf16", "--batch", "10:40:10", "--format", "json"});
    REQUIRE(r.rc == 0);
    const auto j = nlohmann::json::parse(r.out);
    REQUIRE(j["schemes"][0]["points"].size() == 4);
    CHECK(j["schemes"][0]["points"][3]["batch"] == 40);
  }
  {
    // FP8 on an A100 runs on the fallback path.
    const auto r = qfront({"model", "--model", "llama-3-8b", "--gpu", "a100-80gb", "--scheme",
                           "w8a8-fp8", "--batch", "1", "--format", "json"});
    REQUIRE(r.rc == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["schemes"][0]["path"] == "fallback");
  }
  {
    // A scheme whose conversion outruns its bandwidth saving has no ridge: a GPU file with a
    // very slow vector unit makes W4A16's c/D exceed b/β.
    const auto r =
        qfront({"model", "--model", "qwen3-30b-a3b", "--gpu", "h100-sxm", "--linear", "w8a8-fp8",
                "--moe", "w4a16-g128", "--batch", "1,512", "--format", "json"});
    REQUIRE(r.rc == 0);
    const auto j = nlohmann::json::parse(r.out);
    REQUIRE(j["schemes"].size() == 1);
    CHECK(j["schemes"][0]["id"] == "linear=w8a8-fp8,moe=w4a16-g128");
    CHECK(j["model"]["expert_params"].get<double>() == Approx(28.99e9).epsilon(1e-3));
    CHECK(j["schemes"][0]["moe_ridge_batch"].is_number());
  }
  {
    const auto r = qfront({"model", "--model", data("gpu_custom.json"), "--gpu", "h100-sxm"});
    CHECK(r.rc == 2);  // a GPU file is not a model config
    CHECK(r.err.find("gpu_custom.json") != std::string::npos);
  }
  {
    // Half the bandwidth doubles the memory floor.
    const auto r = qfront({"model", "--model", "llama-3-8b", "--gpu", data("gpu_custom.json"),
                           "--scheme", "bf16", "--batch", "1", "--format", "json"});
    REQUIRE(r.rc == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["schemes"][0]["memory_floor_ms"].get<double>() == Approx(8.96).epsilon(1e-3));
  }
  {
    // A quantized checkpoint's own scheme is reported.
    const auto r = qfront({"model", "--model", data("model_gptq.json"), "--gpu", "h100-sxm",
                           "--batch", "1", "--format", "json"});
    REQUIRE(r.rc == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["model"]["checkpoint_quantization"]["scheme"] == "w4a16-g128");
    CHECK(j["model"]["checkpoint_quantization"]["quant_method"] == "gptq");
  }
}

TEST_CASE("qfront model: bad input exits 2 with one line naming file and field", "[cli]") {
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> mustMention;
  };
  const std::vector<Case> cases = {
      {{"model", "--model", "no-such-model", "--gpu", "h100-sxm"}, {"model", "no-such-model"}},
      {{"model", "--model", "llama-3-8b", "--gpu", "no-such-gpu"}, {"gpu", "no-such-gpu"}},
      {{"model", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--scheme", "int3"},
       {"scheme", "int3"}},
      {{"model", "--model", data("model_missing_layers.json"), "--gpu", "h100-sxm"},
       {"model_missing_layers.json", "num_hidden_layers"}},
      {{"model", "--model", data("model_wrong_type.json"), "--gpu", "h100-sxm"},
       {"model_wrong_type.json", "hidden_size", "/hidden_size"}},
      {{"model", "--model", data("model_truncated.json"), "--gpu", "h100-sxm"},
       {"model_truncated.json", "line 2"}},
      {{"model", "--model", data("not_json.txt"), "--gpu", "h100-sxm"}, {"not_json.txt", "line 1"}},
      {{"model", "--model", "llama-3-8b", "--gpu", data("gpu_negative_bw.json")},
       {"gpu_negative_bw.json", "hbm_bandwidth_tbs", "positive"}},
      {{"model", "--model", "llama-3-8b", "--gpu", data("gpu_nan.json")},
       {"gpu_nan.json", "hbm_bandwidth_tbs", "NaN"}},
      {{"model", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--batch", "0,8"}, {"batch"}},
      {{"model", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--batch", "nan"}, {"batch"}},
      {{"model", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--tp", "-2"}, {"tp"}},
      {{"model", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--mem-util", "1.5"}, {"mem-util"}},
      {{"model", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--kv-dtype", "int4"}, {"kv-dtype"}},
      {{"model", "--model", "llama-3-8b", "--gpu", "l40s", "--tp", "2"}, {"nvlink_gbs"}},
      {{"model", "--model", "llama-3-8b"}, {"gpu"}},
      {{"model", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--bogus"}, {"--bogus"}},
      {{"nonsense"}, {"command"}},
  };
  for (const auto& c : cases) {
    const auto r = qfront(c.args);
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    INFO(joined << "-> " << r.err);
    CHECK(r.rc == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    for (const auto& m : c.mustMention) CHECK(r.err.find(m) != std::string::npos);
  }
}

TEST_CASE("qfront model: hostile sizes are refused with exit 2 naming the field", "[cli][bounds]") {
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> mustMention;
  };
  const std::string m = "--model", g = "--gpu";
  const std::vector<Case> cases = {
      // 2^62 layers: refused before a per-layer table is allocated.
      {{"model", m, data("model_huge_layers.json"), g, "h100-sxm"},
       {"model_huge_layers.json", "num_hidden_layers", "100000"}},
      // Each count in bounds, their product not: the total must stay below 1e15.
      {{"model", m, data("model_huge_product.json"), g, "h100-sxm"},
       {"model_huge_product.json", "vocab_size"}},
      {{"model", m, data("model_huge_experts.json"), g, "h100-sxm"},
       {"model_huge_experts.json", "num_local_experts"}},
      {{"model", m, "llama-3-8b", g, data("gpu_huge_memory.json")},
       {"gpu_huge_memory.json", "memory_gib"}},
      {{"model", m, "llama-3-8b", g, data("gpu_tiny_bandwidth.json")},
       {"gpu_tiny_bandwidth.json", "hbm_bandwidth_tbs"}},
      // Batches: integers in [1, 1e7], at most 100000 points (1e17:1e17:1 looped forever).
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--batch", "1e17:1e17:1"}, {"batch", "10000000"}},
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--batch", "1.5"}, {"batch", "integer"}},
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--batch", "1e23"}, {"batch", "1e23"}},
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--batch", "1:10000000:1"}, {"batch", "100000"}},
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--batch", "1:64:0"}, {"batch", "STEP"}},
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--batch", "8:4"}, {"batch"}},
      // Single-valued options given twice.
      {{"model", m, "llama-3-8b", g, "h100-sxm", g, "a100-80gb"}, {"'gpu'", "more than once"}},
      {{"model", m, "llama-3-8b", m, "llama-3-8b", g, "h100-sxm"}, {"'model'", "more than once"}},
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--format=json", "--format", "csv"},
       {"'format'", "more than once"}},
      {{"catalog", "--format", "json", "--format", "table"}, {"'format'", "more than once"}},
      // A reserve beyond memory·u: no KV budget (was reported as −426 GiB).
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--reserve-gib", "500"}, {"reserve-gib", "500"}},
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--context", "2000000000000"}, {"context"}},
  };
  for (const auto& c : cases) {
    const auto r = qfront(c.args);
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    INFO(joined << "-> " << r.err);
    CHECK(r.rc == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    for (const auto& w : c.mustMention) CHECK(r.err.find(w) != std::string::npos);
  }
  // "1e3" is the integer 1000; the largest batch is accepted.
  const auto ok = qfront({"model", m, "llama-3-8b", g, "h100-sxm", "--scheme", "bf16", "--batch",
                          "1e3,10000000", "--format", "json"});
  REQUIRE(ok.rc == 0);
  const auto j = nlohmann::json::parse(ok.out);
  CHECK(j["schemes"][0]["points"][0]["batch"] == 1000);
  CHECK(j["schemes"][0]["points"][1]["batch"] == 10000000);
}

TEST_CASE("qfront model: a tiny model on a large GPU reports a finite, bounded max_seqs",
          "[cli][bounds]") {
  const auto r =
      qfront({"model", "--model", data("model_tiny.json"), "--gpu", "h200-sxm", "--scheme", "bf16",
              "--batch", "1", "--max-model-len", "1", "--kv-dtype", "fp8", "--format", "json"});
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto& cap = j["schemes"][0]["capacity"];
  // KV per sequence: 2·1·1·1 bytes; budget 139.8·0.92 − 6 GiB; weights 3 + 4 + 2 = 9 params.
  const double budgetBytes = (139.8 * 0.92 - 6) * 1073741824.0 - 9 * 2;
  REQUIRE(cap["max_seqs"].is_number_integer());
  CHECK(cap["max_seqs"].get<double>() == Approx(std::floor(budgetBytes / 2)).epsilon(1e-9));
  CHECK(cap["tokens_per_s_at_capacity"].is_number());
  CHECK(std::isfinite(cap["tokens_per_s_at_capacity"].get<double>()));
}

TEST_CASE("qfront model: gpt-oss as it ships, windowed layers reported", "[cli][gptoss]") {
  const auto r = qfront({"model", "--model", "gpt-oss-20b", "--gpu", "h100-sxm", "--batch", "1,64",
                         "--format", "json"});
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto& q = j["model"]["checkpoint_quantization"];
  CHECK(q["quant_method"] == "mxfp4");
  CHECK(q["scheme"] == "linear=bf16,moe=mxfp4,lm_head=bf16");
  CHECK(q["kinds"]["moe"] == "mxfp4");
  CHECK(q["kinds"]["linear"] == "bf16");
  CHECK(j["model"]["windowed_layers"] == 12);
  CHECK(j["model"]["sliding_window"] == 128);
  // The shipped mixed candidate is among the defaults; its experts fall back on an H100.
  bool found = false;
  for (const auto& s : j["schemes"]) {
    if (s["id"] != "linear=bf16,moe=mxfp4,lm_head=bf16") continue;
    found = true;
    for (const auto& k : s["kinds"]) {
      if (k["kind"] == "moe") CHECK(k["path"] == "fallback");
      if (k["kind"] == "linear") CHECK(k["path"] == "bf16");
    }
  }
  CHECK(found);
  const auto t = qfront(
      {"model", "--model", "gpt-oss-20b", "--gpu", "h100-sxm", "--scheme", "bf16", "--batch", "1"});
  REQUIRE(t.rc == 0);
  CHECK(t.out.find("12 of 24 layers windowed to 128 tokens") != std::string::npos);
}

TEST_CASE("qfront model: efficiencies from the GPU file and from flags, reported",
          "[cli][efficiency]") {
  const std::string m = "--model", g = "--gpu";
  const auto model = data("llama-2-7b.json");
  const double w = 32.0 * (4.0 * 4096 * 4096 + 3.0 * 4096 * 11008) + 32000.0 * 4096;
  {
    // Defaults: the catalog's bundled constants, said so; --datasheet: the ideal roofline.
    const auto r = qfront({"model", m, model, g, "a100-80gb", "--scheme", "bf16", "--batch", "1",
                           "--format", "json"});
    REQUIRE(r.rc == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["efficiency"]["source"].get<std::string>().rfind("bundled defaults: fitted", 0) == 0);
    CHECK(j["efficiency"]["roofline"] == "calibrated");
    CHECK(j["efficiency"]["bandwidth_efficiency"].get<double>() < 1.0);
    CHECK(j["efficiency"]["overhead_ms"].get<double>() > 0.0);
    const auto d = qfront({"model", m, model, g, "a100-80gb", "--scheme", "bf16", "--batch", "1",
                           "--format", "json", "--datasheet"});
    REQUIRE(d.rc == 0);
    const auto jd = nlohmann::json::parse(d.out);
    CHECK(jd["efficiency"]["source"] == "datasheet");
    CHECK(jd["efficiency"]["roofline"] == "datasheet");
    CHECK(jd["efficiency"]["bandwidth_efficiency"] == 1.0);
    CHECK(jd["efficiency"]["overhead_ms"] == 0.0);
    CHECK(jd["schemes"][0]["points"][0]["step_ms"].get<double>() ==
          Approx(2 * w / 2.039e12 * 1e3).epsilon(1e-9));
  }
  {
    // The calibration block: η_β 0.9, t0 0.02 ms, η_P(bf16) 0.74.
    const auto r = qfront({"model", m, model, g, data("gpu_calibrated.json"), "--scheme",
                           "bf16,w4a16-g128", "--batch", "1", "--format", "json"});
    REQUIRE(r.rc == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["efficiency"]["source"].get<std::string>().find("calibration (test fixture") == 0);
    CHECK(j["efficiency"]["compute_efficiency"]["w4a16-g128"] == 0.45);
    CHECK(j["schemes"][0]["points"][0]["step_ms"].get<double>() ==
          Approx((2 * w / (0.9 * 2.039e12) + 0.02e-3) * 1e3).epsilon(1e-9));
    CHECK(j["schemes"][1]["kinds"][0]["dequant_source"] == "measured");
    CHECK(j["schemes"][1]["kinds"][0]["compute_efficiency"] == 0.45);
    CHECK(j["gpu"]["calibration"]["device"] == "NVIDIA A100-SXM4-80GB");
  }
  {
    // Flags override the file value by value, and the source says so.
    const auto r =
        qfront({"model", m, model, g, data("gpu_calibrated.json"), "--scheme", "bf16", "--batch",
                "1", "--bw-eff", "0.5", "--overhead-ms", "1", "--format", "json"});
    REQUIRE(r.rc == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["efficiency"]["source"].get<std::string>().find("; flags --overhead-ms --bw-eff") !=
          std::string::npos);
    CHECK(j["efficiency"]["compute_efficiency"]["bf16"] == 0.74);  // kept from the file
    CHECK(j["schemes"][0]["points"][0]["step_ms"].get<double>() ==
          Approx((2 * w / (0.5 * 2.039e12) + 1e-3) * 1e3).epsilon(1e-9));
  }
  {
    const auto r =
        qfront({"model", m, model, g, "a100-80gb", "--scheme", "bf16,w4a16-g128", "--batch", "16",
                "--compute-eff", "bf16=0.74,W4A16-G128=0.45", "--format", "csv", "--datasheet"});
    REQUIRE(r.rc == 0);
    CHECK(r.out.rfind("scheme,batch,step_ms,tokens_per_s,bound,compute_eff,bw_eff,overhead_ms,"
                      "efficiency_source\n",
                      0) == 0);
    CHECK(r.out.find("\nbf16,16,") != std::string::npos);
    CHECK(r.out.find(",0.74,1,0,flags --compute-eff\n") != std::string::npos);
    CHECK(r.out.find(",0.45,1,0,flags --compute-eff\n") != std::string::npos);
    const auto t = qfront({"model", m, model, g, "a100-80gb", "--scheme", "bf16", "--batch", "1",
                           "--compute-eff", "bf16=0.74", "--datasheet"});
    REQUIRE(t.rc == 0);
    CHECK(t.out.find("efficiency  flags --compute-eff: overhead 0 ms, bandwidth x1, compute bf16 "
                     "x0.74, dequant c/D") != std::string::npos);
  }
  {
    // --kernel-bw-eff: W4A16's kernel reads its weights at half the bandwidth; bf16 keeps it.
    const auto r =
        qfront({"model", m, model, g, "a100-80gb", "--scheme", "bf16,w4a16-g128", "--batch", "1",
                "--kernel-bw-eff", "w4a16-g128=0.5", "--datasheet", "--format", "json"});
    REQUIRE(r.rc == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["efficiency"]["kernel_bandwidth_efficiency"]["w4a16-g128"] == 0.5);
    CHECK(j["efficiency"]["source"] == "flags --kernel-bw-eff");
    CHECK(j["schemes"][1]["kinds"][0]["kernel_bandwidth_efficiency"] == 0.5);
    CHECK(j["schemes"][0]["points"][0]["step_ms"].get<double>() ==
          Approx(2 * w / 2.039e12 * 1e3).epsilon(1e-9));
    CHECK(j["schemes"][1]["points"][0]["step_ms"].get<double>() ==
          Approx(w * 4.125 / 8 / (0.5 * 2.039e12) * 1e3).epsilon(1e-9));
    const auto t = qfront({"model", m, model, g, "a100-80gb", "--scheme", "w4a16-g128", "--batch",
                           "1", "--kernel-bw-eff", "w4a16-g128=0.5", "--datasheet"});
    REQUIRE(t.rc == 0);
    CHECK(t.out.find("kernel bandwidth w4a16-g128 x0.5") != std::string::npos);
  }
  {
    // --attention-bw-eff: an FP8 cache read at half the bandwidth costs what a bf16 cache read
    // whole does (half the bytes at half the rate); at 1 it is the faster one.
    const auto stepMs = [&](std::vector<std::string> more) {
      std::vector<std::string> args{
          "model",   m,    "llama-3-8b", g,      "h100-sxm",    "--scheme", "bf16",
          "--batch", "32", "--context",  "4096", "--datasheet", "--format", "json"};
      args.insert(args.end(), more.begin(), more.end());
      const auto r = qfront(args);
      INFO(r.err);
      REQUIRE(r.rc == 0);
      return nlohmann::json::parse(r.out)["schemes"][0]["points"][0]["step_ms"].get<double>();
    };
    const double bf16Cache = stepMs({"--kv-dtype", "bf16"});
    const double fp8Whole = stepMs({"--kv-dtype", "fp8"});
    const double fp8Half = stepMs({"--kv-dtype", "fp8", "--attention-bw-eff", "fp8=0.5"});
    CHECK(fp8Whole < 0.9 * bf16Cache);
    CHECK(fp8Half == Approx(bf16Cache).epsilon(1e-9));
    // A bf16 entry leaves an FP8 cache alone.
    CHECK(stepMs({"--kv-dtype", "fp8", "--attention-bw-eff", "bf16=0.5"}) ==
          Approx(fp8Whole).epsilon(1e-12));
  }
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> mustMention;
  };
  const std::vector<Case> bad = {
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--kernel-bw-eff", "w4a16-g128=0"},
       {"kernel-bw-eff"}},
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--kernel-bw-eff", "fp8=0.5"},
       {"kernel-bw-eff", "fp8"}},
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--attention-bw-eff", "fp4=0.5"},
       {"attention-bw-eff", "fp4"}},
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--attention-bw-eff", "fp8=0"},
       {"attention-bw-eff"}},
      {{"model", m, "llama-3-8b", g, data("gpu_bad_calibration.json")},
       {"gpu_bad_calibration.json", "calibration.bandwidth_efficiency"}},
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--bw-eff", "0"}, {"bw-eff"}},
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--bw-eff", "2"}, {"bw-eff"}},
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--overhead-ms", "-1"}, {"overhead-ms"}},
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--compute-eff", "tf32=0.5"},
       {"compute-eff", "tf32"}},
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--compute-eff", "bf16"}, {"compute-eff"}},
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--compute-eff", "bf16=7"}, {"compute-eff"}},
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--dequant-s-per-weight", "bf16=1"},
       {"dequant-s-per-weight"}},
      {{"model", m, "llama-3-8b", g, "h100-sxm", "--dequant-s-per-weight", "fp8=1e-14"},
       {"dequant-s-per-weight", "fp8"}},
  };
  for (const auto& c : bad) {
    const auto r = qfront(c.args);
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    INFO(joined << "-> " << r.err);
    CHECK(r.rc == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    for (const auto& w2 : c.mustMention) CHECK(r.err.find(w2) != std::string::npos);
  }
}

TEST_CASE("Args::takeOne: one value, a missing value, a repeat", "[cli]") {
  {
    qf::cli::Args a({"--gpu", "x", "--tp", "2"});
    bool missing = false, repeated = false;
    CHECK(a.takeOne("--gpu", missing, repeated) == std::optional<std::string>("x"));
    CHECK_FALSE(missing);
    CHECK_FALSE(repeated);
    CHECK(a.rest() == std::vector<std::string>{"--tp", "2"});
  }
  {
    qf::cli::Args a({"--gpu=x", "--gpu", "x"});
    bool missing = false, repeated = false;
    a.takeOne("--gpu", missing, repeated);
    CHECK(repeated);  // even with the same value
  }
  {
    qf::cli::Args a({"--gpu"});
    bool missing = false, repeated = false;
    CHECK_FALSE(a.takeOne("--gpu", missing, repeated));
    CHECK(missing);
    CHECK_FALSE(repeated);
  }
}

TEST_CASE("every command the help lists runs, and knows every option its help lists", "[cli]") {
  const auto top = qfront({"--help"});
  REQUIRE(top.rc == 0);
  // Commands: the first word of each line of the "commands:" block.
  std::vector<std::string> commands;
  std::istringstream lines(top.out.substr(top.out.find("commands:")));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line) && !line.empty()) {
    std::istringstream words(line);
    std::string cmd;
    words >> cmd;
    commands.push_back(cmd);
  }
  REQUIRE(commands.size() >= 7);
  for (const auto& cmd : commands) {
    INFO(cmd);
    const auto help = qfront({cmd, "--help"});
    CHECK(help.rc == 0);
    // Every --option the command's help names is parsed by the command: given a junk value
    // it is refused for its value (or for what follows), never as an unknown option.
    std::size_t at = 0;
    int options = 0;
    while ((at = help.out.find("--", at)) != std::string::npos) {
      std::size_t end = at + 2;
      while (end < help.out.size() &&
             (std::isalnum(static_cast<unsigned char>(help.out[end])) || help.out[end] == '-')) {
        ++end;
      }
      const std::string opt = help.out.substr(at, end - at);
      at = end;
      if (opt.size() < 4 || opt == "--help" || opt.back() == '-') continue;
      ++options;
      const auto r = qfront({cmd, opt, "@@junk@@"});
      INFO(opt << ": " << r.err);
      CHECK(r.err.find("unknown option '" + opt + "'") == std::string::npos);
    }
    if (cmd == "model") CHECK(options >= 15);
  }
  // An option no help lists is refused by name.
  const auto bogus =
      qfront({"model", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--frobnicate"});
  CHECK(bogus.rc == 2);
  CHECK(bogus.err.find("--frobnicate") != std::string::npos);
  const auto cat = qfront({"catalog", "--format", "json"});
  REQUIRE(cat.rc == 0);
  const auto j = nlohmann::json::parse(cat.out);
  CHECK(j["models"].size() >= 8);
  CHECK(j["gpus"].size() >= 7);
  CHECK(j["schemes"].size() >= 8);
  for (const auto& g : j["gpus"]) CHECK(!g["source"].get<std::string>().empty());
  for (const auto& s : j["schemes"]) {
    if (s["id"] == "w4a16-g128-asym") CHECK(s["bits_per_weight"].get<double>() == Approx(4.15625));
    if (s["id"] == "nvfp4") CHECK(s["bits_per_weight"].get<double>() == Approx(4.5));
  }
}

TEST_CASE("every JSON output names the program version that wrote it", "[cli]") {
  const auto version = qfront({"--version"});
  REQUIRE(version.rc == 0);
  const std::string v = version.out.substr(std::string("qfront ").size(),
                                           version.out.size() - std::string("qfront \n").size());
  CHECK(v == qf::qfrontVersion());
  const std::string session = std::string(QF_RESOURCE_DIR) + "/sessions/llama-3.1-8b-70b.json";
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"model", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--format", "json"},
           {"catalog", "--format", "json"},
           {"frontier", session, "--format", "json"},
           {"stats", "binomial", "--p", "0.8", "--n", "1319", "--format", "json"}}) {
    const auto r = qfront(args);
    INFO(args[0]);
    REQUIRE(r.rc == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j.at("qfront_version") == v);
    CHECK(j.at("output_format_version") == qf::kOutputFormatVersion);
  }
}

TEST_CASE("every JSON output carries one envelope naming commit and command line and machine",
          "[cli]") {
  const std::string session = std::string(QF_RESOURCE_DIR) + "/sessions/llama-3.1-8b-70b.json";
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"model", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--format", "json"},
           {"frontier", session, "--format", "json"},
           {"serving", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--scheme", "bf16",
            "--use-case", "rag", "--load", "2", "--format", "json"},
           {"search", "--model", "llama-3.1-8b", "--use-case", "rag", "--load", "2", "--format",
            "json"},
           {"stats", "binomial", "--p", "0.8", "--n", "1319", "--format", "json"}}) {
    const auto r = qfront(args);
    INFO(args[0]);
    REQUIRE(r.rc == 0);
    const auto j = nlohmann::json::parse(r.out);
    REQUIRE(j.contains("producer"));
    const auto& p = j.at("producer");
    CHECK(p.at("program") == "qfront");
    CHECK(p.at("version") == qf::qfrontVersion());
    // The command line it answers, word for word.
    CHECK(p.at("argv").get<std::vector<std::string>>() == args);
    // A 40-digit commit in a checkout ("unknown" in a source package), and its dirty state.
    const std::string commit = p.at("git_commit");
    CHECK((commit == "unknown" || commit.size() == 40));
    CHECK(commit == qf::gitCommit());
    CHECK(p.at("git_dirty").is_boolean());
    CHECK(p.at("machine").at("cores").get<int>() >= 1);
    CHECK_FALSE(p.at("machine").at("os").get<std::string>().empty());
  }
}

TEST_CASE(
    "qfront model gives step times and capacity their interval, and says which "
    "crossovers are ties",
    "[cli][intervals]") {
  const auto r = qfront({"model", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--scheme",
                         "bf16,w4a16-g128", "--batch", "1:1024", "--format", "json"});
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(r.out);
  for (const auto& s : j["schemes"]) {
    INFO(s["id"]);
    for (const auto& p : s["points"]) {
      const double ms = p["step_ms"].get<double>();
      const auto iv = p["step_ms_interval"];
      CHECK(iv[0].get<double>() < ms);
      CHECK(ms < iv[1].get<double>());
      // Tokens/s is batch / step: its interval is the step's, inverted.
      const double b = p["batch"].get<double>();
      CHECK(p["tokens_per_s_interval"][0].get<double>() ==
            Approx(b / iv[1].get<double>() * 1e3).epsilon(1e-9));
    }
    const auto cap = s["capacity"]["tokens_per_s_at_capacity_interval"];
    const double tok = s["capacity"]["tokens_per_s_at_capacity"].get<double>();
    CHECK(cap[0].get<double>() < tok);
    CHECK(tok < cap[1].get<double>());
  }
  REQUIRE(j["crossovers"].size() == 1);
  const auto& x = j["crossovers"][0];
  REQUIRE(x.contains("tie_batches"));
  CHECK(x["tie_batches"][0].get<double>() <= x["batch"].get<double>());
  CHECK(x["batch"].get<double>() <= x["tie_batches"][1].get<double>());
  // The table says so in words.
  const auto t = qfront({"model", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--scheme",
                         "bf16,w4a16-g128", "--batch", "1:1024"});
  REQUIRE(t.rc == 0);
  CHECK(t.out.find("crossovers that are ties") != std::string::npos);
  CHECK(t.out.find("bf16 / w4a16-g128: a tie for B = ") != std::string::npos);
  // The datasheet roofline has no spread: no interval, no tie.
  const auto d =
      qfront({"model", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--scheme", "bf16,w4a16-g128",
              "--batch", "1:1024", "--format", "json", "--datasheet"});
  REQUIRE(d.rc == 0);
  const auto dj = nlohmann::json::parse(d.out);
  CHECK_FALSE(dj["schemes"][0]["points"][0].contains("step_ms_interval"));
  for (const auto& c : dj["crossovers"]) CHECK_FALSE(c.contains("tie_batches"));
}

TEST_CASE("qfront model --spec-k: time per accepted token and the crossovers speculation moves",
          "[cli][speculation]") {
  const std::vector<std::string> base = {"model",
                                         "--model",
                                         "llama-3.1-8b",
                                         "--gpu",
                                         "h100-sxm",
                                         "--scheme",
                                         "bf16,w4a16-g128,w8a8-fp8",
                                         "--batch",
                                         "1:256",
                                         "--format",
                                         "json"};
  const auto plain = qfront(base);
  REQUIRE(plain.rc == 0);
  const auto pj = nlohmann::json::parse(plain.out);
  CHECK(pj["speculation"].is_null());
  auto args = base;
  args.insert(args.end(), {"--spec-k", "3", "--spec-acceptance", "0.7", "--spec-draft", "mtp"});
  const auto r = qfront(args);
  INFO(r.err);
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto& sp = j["speculation"];
  REQUIRE(sp.is_object());
  CHECK(sp["tokens_per_step"].get<double>() == Approx((1 - std::pow(0.7, 4)) / 0.3));
  // At B = 1 a 4-token verify costs about one step: the time per token falls by about the
  // 2.53 tokens a step yields (less the MTP layer's 1/32 of a step per draft token).
  const double step1 = j["schemes"][0]["points"][0]["step_ms"].get<double>();
  const double spec1 = sp["schemes"][0]["points"][0]["ms_per_token"].get<double>();
  CHECK(spec1 < step1 / 2.2);
  CHECK(spec1 > step1 / 2.53);
  // Every crossover of two schemes moves to a lower batch: the verify pass is B(k + 1) rows.
  auto crossing = [](const nlohmann::json& xs, const std::string& a, const std::string& b) {
    for (const auto& x : xs)
      if (x["schemes"][0] == a && x["schemes"][1] == b) return x["batch"].get<double>();
    return -1.0;
  };
  const double before = crossing(pj["crossovers"], "w4a16-g128", "w8a8-fp8");
  const double after = crossing(sp["crossovers"], "w4a16-g128", "w8a8-fp8");
  REQUIRE(before > 0);
  REQUIRE(after > 0);
  CHECK(after < before / 3);
  CHECK(after > before / 5);
  // CSV has no place for it; bad values are refused with one line.
  auto csv = args;
  csv[csv.size() - 7] = "csv";
  const auto c = qfront(csv);
  CHECK(c.rc == 2);
  CHECK(c.err.find("field 'spec-k'") != std::string::npos);
  auto bad = base;
  bad.insert(bad.end(), {"--spec-k", "16", "--spec-acceptance", "0.7", "--spec-draft", "mtp"});
  const auto b = qfront(bad);
  CHECK(b.rc == 2);
  CHECK(b.err.find("field 'spec-k'") != std::string::npos);
}
