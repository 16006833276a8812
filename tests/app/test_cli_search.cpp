// `qfront serving` and `qfront search`: JSON contracts, seed 001's Finding 5, bad input.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include <quantfront/core/base/version.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/session/session.hpp>

#include "support/cli_run.hpp"
#include "support/temp_dir.hpp"

namespace {

qf::testing::CliRun qfront(const std::vector<std::string>& args) {
  return qf::testing::runQfront(args);
}

/// `base` and `extra` run together, succeeding; their JSON.
nlohmann::json runJson(std::vector<std::string> base, const std::vector<std::string>& extra = {}) {
  base.insert(base.end(), extra.begin(), extra.end());
  const auto r = qfront(base);
  INFO(r.err);
  REQUIRE(r.rc == 0);
  return nlohmann::json::parse(r.out);
}

nlohmann::json searchJson(std::vector<std::string> args) {
  args.insert(args.begin(), "search");
  args.insert(args.end(), {"--format", "json"});
  const auto r = qfront(args);
  INFO(r.err);
  REQUIRE(r.rc == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("qfront serving: per-load fields, simulation beside the steady state", "[cli][serving]") {
  const auto r = qfront(
      {"serving",    "--model",       "llama-3.1-8b", "--gpu",         "h100-sxm", "--scheme",
       "w8a8-fp8",   "--input-len",   "1024",         "--output-len",  "128",      "--load",
       "sync,2,max", "--slo-ttft-ms", "500",          "--slo-tpot-ms", "50",       "--requests",
       "3000",       "--format",      "json"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["loads"].size() == 3);
  for (const auto& row : j["loads"]) {
    for (const char* k : {"load", "output_tok_s", "ttft_p50_ms", "ttft_p99_ms", "tpot_p50_ms",
                          "tpot_p99_ms", "goodput_req_s"}) {
      INFO(k);
      CHECK(row.contains(k));
    }
    CHECK(row["ttft_p99_ms"].get<double>() >= row["ttft_p50_ms"].get<double>());
  }
  const auto& sync = j["loads"][0];
  const auto& rate = j["loads"][1];
  const auto& max = j["loads"][2];
  // One request at a time: every request sees the same latency; the model agrees exactly.
  CHECK(sync["ttft_p50_ms"].get<double>() ==
        Approx(sync["analytic_ttft_ms"].get<double>()).epsilon(1e-6));
  CHECK(sync["tpot_p50_ms"].get<double>() ==
        Approx(sync["analytic_tpot_ms"].get<double>()).epsilon(0.01));
  // 2 req/s is served in full; saturation serves far more at a longer TPOT.
  CHECK(rate["requests_per_s"].get<double>() == Approx(2).epsilon(0.15));
  CHECK(max["output_tok_s"].get<double>() > 10 * rate["output_tok_s"].get<double>());
  CHECK(max["output_tok_s"].get<double>() ==
        Approx(max["analytic_output_tok_s"].get<double>()).epsilon(0.05));
  CHECK(max["tpot_p50_ms"].get<double>() > sync["tpot_p50_ms"].get<double>());
  // Reruns with the same seed print the same figures.
  const auto again = qfront(
      {"serving",    "--model",       "llama-3.1-8b", "--gpu",         "h100-sxm", "--scheme",
       "w8a8-fp8",   "--input-len",   "1024",         "--output-len",  "128",      "--load",
       "sync,2,max", "--slo-ttft-ms", "500",          "--slo-tpot-ms", "50",       "--requests",
       "3000",       "--format",      "json"});
  CHECK(again.out == r.out);
}

TEST_CASE("qfront search: JSON contract and a frontier that is Pareto", "[cli][search]") {
  const auto j =
      searchJson({"--model", "llama-3.1-8b", "--use-case", "rag", "--gpus", "h100-sxm,a100-80gb",
                  "--max-gpus", "2", "--schemes", "bf16,w8a8-fp8,w4a16-g128"});
  // 2 GPUs × (TP 1: counts 1, 2; TP 2: count 2) × 3 schemes × 2 KV dtypes × 17 caps.
  CHECK(j["space"] == 2 * 3 * 3 * 2 * 17);
  CHECK(j["evaluated"].get<long long>() > 0);
  CHECK(j["feasible"].get<long long>() <= j["evaluated"].get<long long>());
  REQUIRE(!j["frontier"].empty());
  double lastTpot = 0, lastCost = 1e300;
  for (const auto& c : j["frontier"]) {
    for (const char* k : {"gpu", "gpu_count", "tp", "replicas", "schemes", "kv_dtype", "max_batch",
                          "ttft_ms", "tpot_ms", "output_tok_s", "usd_per_million_output_tokens"}) {
      INFO(k);
      CHECK(c.contains(k));
    }
    CHECK(c["schemes"].contains("linear"));
    CHECK(c["schemes"].contains("lm_head"));
    CHECK(c["tpot_ms"].get<double>() > lastTpot);
    CHECK(c["usd_per_million_output_tokens"].get<double>() < lastCost);
    lastTpot = c["tpot_ms"].get<double>();
    lastCost = c["usd_per_million_output_tokens"].get<double>();
    // Cost per million tokens from the deployment's price and throughput.
    const double usdPerHour = c["usd_per_hour"].get<double>();
    CHECK(c["usd_per_million_output_tokens"].get<double>() ==
          Approx(usdPerHour / 3600.0 / c["output_tok_s"].get<double>() * 1e6));
  }
  CHECK(j["best"]["usd_per_million_output_tokens"] ==
        j["frontier"].back()["usd_per_million_output_tokens"]);
  // The best answer's launch lines carry its TP and batch cap into each engine's flags.
  const auto& b = j["best"];
  REQUIRE(b.contains("launch"));
  const std::string vllm = b["launch"]["vllm"]["command"];
  CHECK(vllm.find("--tensor-parallel-size " + std::to_string(b["tp"].get<int>())) !=
        std::string::npos);
  CHECK(vllm.find("--max-num-seqs " + std::to_string(b["max_batch"].get<int>())) !=
        std::string::npos);
  CHECK(b["launch"]["sglang"]["command"].get<std::string>().rfind("python3 -m sglang", 0) == 0);
  CHECK(b["launch"]["trtllm"]["command"].get<std::string>().rfind("trtllm-serve ", 0) == 0);
}

TEST_CASE("qfront search searches the schemes the Deploy tab ticks unless told", "[cli][search]") {
  // One default for both front ends: the catalog's "default_for": deploy.
  auto schemesOf = [](const nlohmann::json& j) {
    std::set<std::string> ids;
    for (const auto& c : j["frontier"]) ids.insert(c["schemes"]["linear"].get<std::string>());
    return ids;
  };
  const std::vector<std::string> base = {"--model", "llama-3.1-8b", "--use-case", "rag",
                                         "--gpus",  "h100-sxm",     "--max-gpus", "1"};
  const auto byDefault = searchJson(base);
  CHECK(byDefault["space"] == 1 * 4 * 2 * 17);  // 4 schemes x 2 KV dtypes x 17 caps
  for (const auto& id : schemesOf(byDefault)) {
    INFO(id);
    CHECK((id == "bf16" || id == "w8a8-fp8" || id == "w8a8-int8" || id == "w4a16-g128"));
  }
  auto all = base;
  all.insert(all.end(), {"--schemes", "all"});
  CHECK(searchJson(all)["space"] ==
        1 * static_cast<long long>(qf::Catalog::bundled().schemes().size()) * 2 * 17);
}

TEST_CASE("qfront search: seed 001 Finding 5 on one H100 and on an A100", "[cli][search]") {
  // Synchronous code completion on one GPU: W4A16 is cheapest (Table 5).
  for (const char* gpu : {"h100-sxm", "a100-80gb"}) {
    INFO(gpu);
    const auto sync =
        searchJson({"--model", "llama-3.1-8b", "--use-case", "code-completion", "--gpus", gpu,
                    "--max-gpus", "1", "--schemes", "bf16,w8a8-fp8,w8a8-int8,w4a16-g128",
                    "--kv-dtypes", "bf16", "--load", "sync"});
    CHECK(sync["best"]["schemes"]["linear"] == "w4a16-g128");
  }
  // Saturated RAG: W8A8-FP8 on the H100, W8A8-INT8 on the A100 (Table 6).
  const auto h100 = searchJson(
      {"--model", "llama-3.1-8b", "--use-case", "rag", "--gpus", "h100-sxm", "--max-gpus", "1",
       "--schemes", "bf16,w8a8-fp8,w8a8-int8,w4a16-g128", "--kv-dtypes", "bf16", "--load", "max"});
  CHECK(h100["best"]["schemes"]["linear"] == "w8a8-fp8");
  const auto a100 = searchJson(
      {"--model", "llama-3.1-8b", "--use-case", "rag", "--gpus", "a100-80gb", "--max-gpus", "1",
       "--schemes", "bf16,w8a8-int8,w4a16-g128", "--kv-dtypes", "bf16", "--load", "max"});
  CHECK(a100["best"]["schemes"]["linear"] == "w8a8-int8");
}

TEST_CASE("qfront search: nothing feasible names the binding constraint", "[cli][search]") {
  const auto j =
      searchJson({"--model", "llama-3.1-8b", "--input-len", "512", "--output-len", "128", "--gpus",
                  "a6000", "--max-gpus", "1", "--schemes", "bf16", "--slo-tpot-ms", "0.5"});
  CHECK(j["feasible"] == 0);
  CHECK(j["frontier"].empty());
  CHECK(j["best"].is_null());
  CHECK(j["message"].get<std::string>().find("TPOT SLO binds") != std::string::npos);
  const auto t =
      qfront({"search", "--model", "llama-3.1-8b", "--input-len", "512", "--output-len", "128",
              "--gpus", "a6000", "--max-gpus", "1", "--schemes", "bf16", "--load", "1000"});
  CHECK(t.rc == 0);
  CHECK(t.out.find("the load binds") != std::string::npos);
}

TEST_CASE("qfront serving gives ITL per gap: a prompt chunk in a decode step is a long gap",
          "[cli][serving]") {
  // 4,000-token prompts on an 8B: at 2 req/s most decode steps also prefill a chunk of someone's
  // prompt now and then. One request at a time, every gap is a decode step alone.
  const auto r = qfront({"serving", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--scheme",
                         "bf16", "--input-len", "4000", "--output-len", "200", "--load", "sync,2",
                         "--format", "json"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto& sync = j["loads"][0];
  const auto& rate = j["loads"][1];
  CHECK(sync["itl_p99_ms"].get<double>() == Approx(sync["itl_p50_ms"].get<double>()).epsilon(0.02));
  CHECK(sync["tpot_mean_ms"].get<double>() ==
        Approx(sync["itl_p50_ms"].get<double>()).epsilon(0.02));
  CHECK(rate["itl_p99_ms"].get<double>() > 5 * rate["itl_p50_ms"].get<double>());
  // TPOT is a request's mean gap: the spikes spread over its 199 gaps.
  CHECK(rate["tpot_p99_ms"].get<double>() < rate["itl_p99_ms"].get<double>());
  CHECK(rate["ttft_mean_ms"].get<double>() >= rate["ttft_p50_ms"].get<double>());
}

TEST_CASE("qfront serving and search: bad input exits 2 with one line", "[cli][search]") {
  struct Bad {
    std::vector<std::string> args;
    const char* field;
  };
  const std::vector<std::string> base = {"search", "--model", "llama-3.1-8b", "--use-case", "rag"};
  std::string manyLoads = "1";
  for (int i = 2; i <= 200; ++i) manyLoads += "," + std::to_string(i);
  auto with = [&](std::vector<std::string> extra) {
    auto a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const std::vector<Bad> cases = {
      {with({"--gpus", "no-such-gpu"}), "gpu"},
      {with({"--schemes", "w3a3"}), "schemes"},
      {{"search", "--model", "llama-3.1-8b", "--input-len", "0", "--output-len", "5"}, "input-len"},
      {{"search", "--model", "llama-3.1-8b", "--input-len", "5", "--output-len", "-3"},
       "output-len"},
      {with({"--load", "-2"}), "load"},
      {with({"--slo-tpot-ms", "0"}), "slo-tpot-ms"},
      {with({"--slo-ttft-ms", "nan"}), "slo-ttft-ms"},
      {with({"--price", "h100-sxm=-1"}), "price"},
      // A price no GPU file may hold, two prices for one GPU, a GPU or a scheme listed twice
      // (each used to be taken: the last price won, the twice-listed entry was searched twice).
      {with({"--gpus", "h100-sxm", "--price", "h100-sxm=1e308"}), "price"},
      {with({"--gpus", "h100-sxm", "--price", "h100-sxm=2,h100-sxm=3"}), "price"},
      {with({"--gpus", "h100-sxm,H100-SXM", "--price", "h100-sxm=2"}), "gpus"},
      {with({"--gpus", "h100-sxm", "--price", "h100-sxm=2", "--schemes", "bf16,bf16"}), "schemes"},
      // A TP degree the model's heads do not split over is refused, as the search skips it.
      {{"serving", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--scheme", "bf16", "--tp", "3",
        "--input-len", "100", "--output-len", "10", "--load", "1"},
       "tp"},
      {with({"--gpus", "h100-sxm", "--kv-dtypes", "int3"}), "kv-dtypes"},
      {{"serving", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--scheme", "bogus",
        "--use-case", "rag"},
       "scheme"},
      {{"serving", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--scheme", "bf16",
        "--input-len", "100", "--output-len", "10", "--load", "fast"},
       "load"},
      {{"serving", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--scheme", "bf16",
        "--input-len", "100", "--output-len", "10", "--load", "1", "--engine", "ollama"},
       "engine"},
      // A rate no deployment's figures mean anything at (5e-324 answered 6e-322 tok/s).
      {with({"--load", "5e-324"}), "load"},
      {{"serving", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--scheme", "bf16",
        "--input-len", "100", "--output-len", "10", "--load", "1e-300"},
       "load"},
      // One output token has no TPOT: a TPOT target was met by 0 ms.
      {{"search", "--model", "llama-3.1-8b", "--input-len", "100", "--output-len", "1",
        "--slo-tpot-ms", "0.001"},
       "slo-tpot-ms"},
      {{"serving", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--scheme", "bf16",
        "--input-len", "100", "--output-len", "1", "--load", "1", "--slo-tpot-ms", "5"},
       "slo-tpot-ms"},
      // Expert parallelism and DP attention: on a dense model, a degree that does not divide
      // the GPUs, a non-number imbalance.
      {{"serving", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--scheme", "bf16", "--tp", "2",
        "--ep", "2", "--use-case", "rag", "--load", "1"},
       "ep"},
      {{"serving", "--model", "qwen3-30b-a3b", "--gpu", "h100-sxm", "--scheme", "bf16", "--tp", "4",
        "--ep", "3", "--use-case", "rag", "--load", "1"},
       "ep"},
      {{"serving", "--model", "qwen3-30b-a3b", "--gpu", "h100-sxm", "--scheme", "bf16",
        "--dp-attention", "--use-case", "rag", "--load", "1"},
       "dp-attention"},
      {{"serving", "--model", "qwen3-30b-a3b", "--gpu", "h100-sxm", "--scheme", "bf16", "--tp", "2",
        "--ep", "2", "--expert-imbalance", "nan", "--use-case", "rag", "--load", "1"},
       "expert-imbalance"},
      // Two-batch overlap hides an all-to-all: none on a dense model, none without the MoE
      // layouts, none without DP attention at EP = TP.
      {{"search", "--model", "llama-3.1-8b", "--use-case", "rag", "--two-batch-overlap"},
       "two-batch-overlap"},
      {{"search", "--model", "qwen3-30b-a3b", "--use-case", "rag", "--no-moe-parallel",
        "--two-batch-overlap"},
       "two-batch-overlap"},
      {{"serving", "--model", "qwen3-30b-a3b", "--gpu", "h100-sxm", "--scheme", "bf16", "--tp", "4",
        "--ep", "2", "--dp-attention", "--two-batch-overlap", "--use-case", "rag", "--load", "1"},
       "two-batch-overlap"},
      // --moe beside --scheme was dropped; on a dense model it only changed the label.
      {{"serving", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--scheme", "bf16", "--moe",
        "w4a16-g128", "--use-case", "rag", "--load", "1"},
       "moe"},
      {{"serving", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--linear", "bf16", "--moe",
        "w4a16-g128", "--use-case", "rag", "--load", "1"},
       "moe"},
      // Simulated work is bounded before it starts (both ran past 65 s): 200 loads of 10^6
      // requests, and 10^4 prompts of 10^5 tokens fed one token a step.
      {{"serving", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--scheme", "bf16",
        "--input-len", "100", "--output-len", "10", "--load", manyLoads, "--requests", "1000000"},
       "requests"},
      {{"serving", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--scheme", "bf16",
        "--input-len", "100000", "--output-len", "10", "--token-budget", "1", "--max-batch", "1",
        "--load", "1", "--requests", "10000"},
       "requests"},
      // 70B FP8 with a bf16 head does not fit one H100 under vLLM's rule (TensorRT-LLM's:
      // tests/core/model/test_checkpoint_lm_head.cpp).
      {{"serving", "--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--scheme", "w8a8-fp8",
        "--kv-dtype", "fp8", "--input-len", "128", "--output-len", "128", "--load", "max"},
       "gpu"},
  };
  for (const auto& c : cases) {
    const auto r = qfront(c.args);
    INFO(r.err);
    CHECK(r.rc == 2);
    CHECK(r.err.find(std::string("field '") + c.field + "'") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.out.empty());
  }
}

TEST_CASE("qfront search: a GPU without a price is refused unless skipped or priced",
          "[cli][search]") {
  // A GPU file without a price.
  const std::string gpu = std::string(QF_TEST_DATA_DIR) + "/cli/gpu_no_price.json";
  const auto refused = qfront({"search", "--model", "llama-3.1-8b", "--use-case", "rag", "--gpus",
                               gpu + ",h100-sxm", "--max-gpus", "1"});
  CHECK(refused.rc == 2);
  CHECK(refused.err.find("field 'price'") != std::string::npos);
  const auto skipped =
      qfront({"search", "--model", "llama-3.1-8b", "--use-case", "rag", "--gpus", gpu + ",h100-sxm",
              "--max-gpus", "1", "--skip-unpriced", "--format", "json"});
  REQUIRE(skipped.rc == 0);
  // The parsed document outlives the loop (a range-for over a member of the temporary
  // parse() returns read freed memory: ASan's heap-use-after-free).
  const auto skippedJson = nlohmann::json::parse(skipped.out);
  for (const auto& c : skippedJson.at("frontier")) CHECK(c.at("gpu") == "h100-sxm");
  const auto priced =
      qfront({"search", "--model", "llama-3.1-8b", "--use-case", "rag", "--gpus", gpu, "--max-gpus",
              "1", "--price", "test-gpu-no-price=1.5", "--format", "json"});
  INFO(priced.err);
  REQUIRE(priced.rc == 0);
  const auto j = nlohmann::json::parse(priced.out);
  REQUIRE(!j["frontier"].empty());
  CHECK(j["best"]["usd_per_hour"] == 1.5);
}

TEST_CASE("qfront search --gate --session keeps the schemes whose candidate passes",
          "[cli][search]") {
  qf::testing::TempDir dir;
  qf::Session s;
  for (auto [id, scheme, score] :
       {std::tuple{"bf16", "bf16", 0.80}, {"fp8", "w8a8-fp8", 0.797}, {"w4", "w4a16-g128", 0.70}}) {
    qf::Candidate c;
    c.id = id;
    c.model = "llama-3-8b";
    c.schemeLinear = scheme;
    c.gpu = "h100-sxm";
    qf::MetricValue m;
    m.value = score;
    m.provenance.kind = qf::ProvenanceKind::Measured;
    m.provenance.sourceFile = "samples_gsm8k.jsonl";
    c.metrics["gsm8k_score"] = m;
    s.candidates.push_back(c);
  }
  const std::string session = dir.file("s.json");
  REQUIRE_FALSE(qf::saveSessionAtomic(s, session).has_value());
  const std::vector<std::string> base = {"search",
                                         "--model",
                                         "llama-3-8b",
                                         "--input-len",
                                         "1024",
                                         "--output-len",
                                         "128",
                                         "--gpus",
                                         "h100-sxm",
                                         "--max-gpus",
                                         "2",
                                         "--schemes",
                                         "bf16,w8a8-fp8,w4a16-g128",
                                         "--load",
                                         "sync"};
  auto args = base;
  args.insert(args.end(),
              {"--gate", "gsm8k_score>=baseline-0.01", "--session", session, "--format", "json"});
  const auto r = qf::testing::runQfront(args);
  INFO(r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("w4: gsm8k_score>=baseline-0.01") != std::string::npos);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["gate"]["passing_schemes"] == nlohmann::json::array({"bf16", "w8a8-fp8"}));
  CHECK(j["rejected"]["gate"].get<long long>() > 0);
  REQUIRE_FALSE(j["frontier"].empty());
  for (const auto& c : j["frontier"]) CHECK(c["schemes"]["linear"] != "w4a16-g128");
  // Ungated, synchronous serving's cheapest is W4A16 (seed 001, Finding 5).
  auto open = base;
  open.insert(open.end(), {"--format", "json"});
  const auto u = qf::testing::runQfront(open);
  REQUIRE(u.rc == 0);
  CHECK(nlohmann::json::parse(u.out)["best"]["schemes"]["linear"] == "w4a16-g128");
  // A gate without its session, a session without a gate, a bad gate: exit 2, one line.
  for (const auto& extra : std::vector<std::vector<std::string>>{
           {"--gate", "gsm8k_score>=0.7"},
           {"--session", session},
           {"--gate", "gsm8k_scor>=0.7", "--session", session},
           {"--gate", "gsm8k_score>=0.7", "--session", dir.file("missing.json")}}) {
    auto a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    const auto e = qf::testing::runQfront(a);
    INFO(e.err);
    CHECK(e.rc == 2);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
  }
}

TEST_CASE("serving and search figures carry 80% intervals, and a cost tie is said, not recommended",
          "[cli][serving][search][interval]") {
  // qfront serving: each analytic figure inside its interval, which the bundled fit widens.
  const auto r = qfront({"serving", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--scheme",
                         "w8a8-fp8", "--input-len", "1024", "--output-len", "128", "--load",
                         "sync,4,max", "--requests", "2000", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(r.out);
  for (const auto& row : j["loads"]) {
    for (const char* k : {"analytic_output_tok_s", "analytic_ttft_ms", "analytic_tpot_ms"}) {
      INFO(row["load"] << " " << k);
      const auto& iv = row[std::string(k) + "_interval"];
      REQUIRE(iv.is_array());
      if (row["load"] == "4" && std::string(k) == "analytic_output_tok_s") {
        // 4 req/s served in full: the offered load, known whatever the constants.
        CHECK(iv[0].get<double>() == row[k].get<double>());
        CHECK(iv[1].get<double>() == row[k].get<double>());
        continue;
      }
      CHECK(iv[0].get<double>() < row[k].get<double>());
      CHECK(iv[1].get<double>() > row[k].get<double>());
    }
  }
  // qfront search: every frontier deployment with its intervals; the cost interval is the
  // throughput's inverted; the best's ties are frontier deployments whose cost intervals overlap.
  const auto s = searchJson({"--model", "llama-3.1-8b", "--use-case", "rag", "--gpus",
                             "h100-sxm,a100-80gb", "--schemes", "bf16,w8a8-fp8,w4a16-g128"});
  REQUIRE(s["frontier"].size() > 1);
  for (const auto& c : s["frontier"]) {
    const double cost = c["usd_per_million_output_tokens"].get<double>();
    const auto& ci = c["usd_per_million_output_tokens_interval"];
    const auto& ti = c["output_tok_s_interval"];
    CHECK(ci[0].get<double>() <= cost);
    CHECK(ci[1].get<double>() >= cost);
    CHECK(ci[0].get<double>() * ti[1].get<double>() ==
          Approx(cost * c["output_tok_s"].get<double>()).epsilon(1e-9));
  }
  const auto& best = s["best"];
  const auto& bi = best["usd_per_million_output_tokens_interval"];
  for (const auto& t : s["best_ties"]) {
    const auto& other =
        s["frontier"][t.get<std::size_t>()]["usd_per_million_output_tokens_interval"];
    CHECK(other[0].get<double>() <= bi[1].get<double>());
    CHECK(bi[0].get<double>() <= other[1].get<double>());
  }
  CHECK(s["best_is_tie"].get<bool>() == !s["best_ties"].empty());
  // The ideal roofline carries no spread: no interval, no tie.
  const auto d =
      searchJson({"--model", "llama-3.1-8b", "--use-case", "rag", "--gpus", "h100-sxm,a100-80gb",
                  "--schemes", "bf16,w8a8-fp8,w4a16-g128", "--datasheet"});
  for (const auto& c : d["frontier"]) {
    CHECK(c["ttft_ms_interval"][0].get<double>() == c["ttft_ms"].get<double>());
    CHECK(c["ttft_ms_interval"][1].get<double>() == c["ttft_ms"].get<double>());
  }
  CHECK_FALSE(d["best_is_tie"].get<bool>());
}

TEST_CASE("qfront serving warns when too few requests make load max a ramp", "[cli][serving]") {
  const std::vector<std::string> base = {
      "serving",     "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--scheme", "bf16",
      "--input-len", "100",     "--output-len", "10",    "--load",   "max"};
  auto few = base;
  few.insert(few.end(), {"--requests", "19"});
  const auto r = qfront(few);
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("warning: --requests 19 is under 20 x the batch cap (20480)") !=
        std::string::npos);
  // Enough waves (the default), or a rate load, say nothing.
  CHECK(qfront(base).err.empty());
  auto rate = few;
  rate[12] = "4";
  CHECK(qfront(rate).err.empty());
}

TEST_CASE("qfront search and serving JSON carry the program and output format versions",
          "[cli][search]") {
  const auto search = searchJson({"--model", "llama-3.1-8b", "--use-case", "rag", "--load", "2"});
  CHECK(search["qfront_version"] == qf::qfrontVersion());
  CHECK(search["output_format_version"] == qf::kOutputFormatVersion);
  const auto r = qfront({"serving", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--scheme",
                         "bf16", "--use-case", "rag", "--load", "2", "--format", "json"});
  REQUIRE(r.rc == 0);
  const auto serving = nlohmann::json::parse(r.out);
  CHECK(serving["qfront_version"] == qf::qfrontVersion());
  CHECK(serving["output_format_version"] == qf::kOutputFormatVersion);
}

TEST_CASE("a request longer than the model's context is refused by search, serving and calibrate",
          "[cli][search]") {
  // Llama-3-8B: max_position_embeddings 8192.
  const auto search = qfront({"search", "--model", "llama-3-8b", "--input-len", "8000",
                              "--output-len", "200", "--load", "sync"});
  CHECK(search.rc == 2);
  CHECK(search.err.find("longer than") != std::string::npos);
  CHECK(search.err.find("context of 8192 tokens") != std::string::npos);
  const auto serving =
      qfront({"serving", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--scheme", "bf16",
              "--input-len", "10000000", "--output-len", "10000000", "--load", "1"});
  CHECK(serving.rc == 2);
  CHECK(serving.err.find("context of 8192 tokens") != std::string::npos);
  // Exactly the context is a request the engines take.
  CHECK(qfront({"search", "--model", "llama-3-8b", "--input-len", "8000", "--output-len", "192",
                "--load", "sync"})
            .rc == 0);
  qf::testing::TempDir dir;
  const std::string csv = dir.file("long.csv");
  std::ofstream(csv) << "model,gpu,tp,scheme,kv_dtype,batch,input_len,output_len,metric,value,"
                        "unit\nllama-3-8b,h100-sxm,1,bf16,bf16,1,10000000,10000000,"
                        "e2e_latency_s,1e7,s\n";
  const auto cal = qfront({"calibrate", csv, "--gpu", "h100-sxm"});
  CHECK(cal.rc == 2);
  CHECK(cal.err.find("row 2") != std::string::npos);
  CHECK(cal.err.find("context of 8192 tokens") != std::string::npos);
}

TEST_CASE("qfront serving --spec-k: speculative decoding per accepted token, options refused",
          "[cli][serving]") {
  const std::vector<std::string> base = {
      "serving", "--model",  "llama-3.1-70b", "--gpu",       "h100-sxm", "--tp",
      "4",       "--scheme", "w4a16-g128",    "--input-len", "512",      "--output-len",
      "128",     "--load",   "sync",          "--requests",  "50",       "--format",
      "json"};
  auto run = [&](std::vector<std::string> extra) {
    auto a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return qfront(a);
  };
  const auto plain = run({});
  REQUIRE(plain.rc == 0);
  const auto pj = nlohmann::json::parse(plain.out);
  CHECK(pj["speculation"].is_null());
  const auto mtp = run({"--spec-k", "3", "--spec-acceptance", "0.7", "--spec-draft", "mtp"});
  INFO(mtp.err);
  REQUIRE(mtp.rc == 0);
  const auto mj = nlohmann::json::parse(mtp.out);
  REQUIRE(mj["speculation"].is_object());
  CHECK(mj["speculation"]["draft_tokens"] == 3);
  CHECK(mj["speculation"]["draft"] == "mtp");
  CHECK(mj["speculation"]["tokens_per_step"].get<double>() ==
        Approx((1 - 0.7 * 0.7 * 0.7 * 0.7) / 0.3));
  // One request at a time: a 4-token verify costs little more than one token's step, so the
  // time per output token falls by nearly the 2.53 tokens a step yields, less the MTP layer.
  const double tpot = pj["loads"][0]["tpot_p50_ms"].get<double>();
  const double tpotSpec = mj["loads"][0]["tpot_p50_ms"].get<double>();
  CHECK(tpotSpec < tpot / 1.8);
  CHECK(tpotSpec > tpot / 2.53);
  // The MTP layer's weights and KV come out of the pool.
  CHECK(mj["kv_capacity_tokens"].get<double>() < pj["kv_capacity_tokens"].get<double>());
  // A draft model costs its own steps: slower than MTP's single layer.
  const auto draft =
      run({"--spec-k", "3", "--spec-acceptance", "0.7", "--spec-draft", "llama-3.1-8b"});
  INFO(draft.err);
  REQUIRE(draft.rc == 0);
  const auto dj = nlohmann::json::parse(draft.out);
  CHECK(dj["speculation"]["draft"] == "llama-3.1-8b");
  CHECK(dj["loads"][0]["tpot_p50_ms"].get<double>() > tpotSpec);
  // Under speculation each analytic figure carries its interval, around its own value.
  for (const auto* j : {&mj, &dj}) {
    const auto& row = (*j)["loads"][0];
    const double v = row["analytic_tpot_ms"].get<double>();
    REQUIRE(row["analytic_tpot_ms_interval"].is_array());
    CHECK(row["analytic_tpot_ms_interval"][0].get<double>() < v);
    CHECK(row["analytic_tpot_ms_interval"][1].get<double>() > v);
    REQUIRE(row["analytic_ttft_ms_interval"].is_array());
  }
  // On W4A16's 70B (a 3 ms step) three bf16 8B drafts cost what they save; on bf16's 70B
  // (four times the weight read) the same draft pays.
  auto bf16 = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), {"--scheme", "bf16"});
    auto a = base;
    a.erase(a.begin() + 7, a.begin() + 9);  // the w4a16 --scheme
    a.insert(a.end(), extra.begin(), extra.end());
    return qfront(a);
  };
  const auto plainBf16 = bf16({});
  const auto draftBf16 =
      bf16({"--spec-k", "3", "--spec-acceptance", "0.7", "--spec-draft", "llama-3.1-8b"});
  REQUIRE(plainBf16.rc == 0);
  REQUIRE(draftBf16.rc == 0);
  CHECK(nlohmann::json::parse(draftBf16.out)["loads"][0]["tpot_p50_ms"].get<double>() <
        nlohmann::json::parse(plainBf16.out)["loads"][0]["tpot_p50_ms"].get<double>() / 1.2);

  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"--spec-k", "16", "--spec-acceptance", "0.7", "--spec-draft", "mtp"}, "spec-k"},
      {{"--spec-k", "0", "--spec-acceptance", "0.7", "--spec-draft", "mtp"}, "spec-k"},
      {{"--spec-k", "3", "--spec-acceptance", "0", "--spec-draft", "mtp"}, "spec-acceptance"},
      {{"--spec-k", "3", "--spec-acceptance", "1.5", "--spec-draft", "mtp"}, "spec-acceptance"},
      {{"--spec-k", "3", "--spec-acceptance", "nan", "--spec-draft", "mtp"}, "spec-acceptance"},
      {{"--spec-k", "3", "--spec-acceptance", "0.7"}, "spec-draft"},
      {{"--spec-k", "3", "--spec-draft", "mtp"}, "spec-acceptance"},
      {{"--spec-k", "3", "--spec-acceptance", "0.7", "--spec-draft", "llama-3.1-70b"},
       "spec-draft"},
      {{"--spec-k", "3", "--spec-acceptance", "0.7", "--spec-draft", "no-such-model"}, "model"},
  };
  for (const auto& [extra, field] : bad) {
    const auto r = run(extra);
    INFO(r.err);
    CHECK(r.rc == 2);
    CHECK(r.err.find("field '" + field + "'") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("qfront search --spec-k prices every deployment with the model's MTP layer",
          "[cli][search][speculation]") {
  const std::vector<std::string> base = {
      "--model", "llama-3.1-8b", "--input-len", "512", "--output-len", "256", "--load", "sync",
      "--gpus",  "h100-sxm",     "--max-gpus",  "1",   "--schemes",    "bf16"};
  const auto plain = searchJson(base);
  CHECK(plain["speculation"].is_null());
  auto args = base;
  args.insert(args.end(), {"--spec-k", "3", "--spec-acceptance", "0.7", "--spec-draft", "mtp"});
  const auto spec = searchJson(args);
  REQUIRE(spec["speculation"].is_object());
  CHECK(spec["speculation"]["draft_tokens"] == 3);
  // One request at a time: 2.53 tokens a step for a 4-token verify and three 1/32-layer drafts.
  const double tpot = plain["best"]["tpot_ms"].get<double>();
  const double tpotSpec = spec["best"]["tpot_ms"].get<double>();
  CHECK(tpotSpec < tpot / 2.0);
  CHECK(tpotSpec > tpot / 2.53);
  // The launch says what was priced.
  bool said = false;
  for (const auto& n : spec["best"]["launch"]["vllm"]["notes"])
    said = said || n.get<std::string>().find("speculative decoding") != std::string::npos;
  CHECK(said);
  for (const auto& [extra, field] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--spec-k", "16", "--spec-acceptance", "0.7", "--spec-draft", "mtp"}, "spec-k"},
           {{"--spec-k", "3", "--spec-acceptance", "1.2", "--spec-draft", "mtp"},
            "spec-acceptance"},
           {{"--spec-k", "3", "--spec-acceptance", "0.7", "--spec-draft", "llama-3.1-70b"},
            "spec-draft"},
           {{"--spec-k", "3", "--spec-acceptance", "0.7", "--spec-draft", "llama-3.1-8b"},
            "spec-draft"},
           {{"--spec-k", "3", "--spec-acceptance", "0.7", "--spec-draft", "no-such-model"},
            "model"}}) {
    auto bad = base;
    bad.insert(bad.begin(), "search");
    bad.insert(bad.end(), extra.begin(), extra.end());
    const auto r = qfront(bad);
    CHECK(r.rc == 2);
    CHECK(r.err.find("field '" + field + "'") != std::string::npos);
  }
}

TEST_CASE("qfront serving --ep and --dp-attention: the layout is echoed and priced",
          "[cli][serving]") {
  const std::vector<std::string> base = {
      "serving",  "--model",    "qwen3-30b-a3b", "--gpu",    "h100-sxm",     "--tp", "4",
      "--scheme", "bf16",       "--input-len",   "512",      "--output-len", "128",  "--load",
      "4",        "--requests", "200",           "--format", "json"};
  auto run = [&](const std::vector<std::string>& extra) { return runJson(base, extra); };
  const auto tp = run({});
  const auto dp = run({"--ep", "4", "--dp-attention"});
  CHECK(tp["ep"] == 1);
  CHECK(tp["dp_attention"] == false);
  CHECK(dp["ep"] == 4);
  CHECK(dp["dp_attention"] == true);
  // Qwen3-30B-A3B's 4 KV heads split over TP 4 as its sequences do under DP attention, so
  // the pool differs only by the attention weights every GPU now holds whole: smaller.
  CHECK(dp["kv_capacity_tokens"].get<double>() < tp["kv_capacity_tokens"].get<double>());
  // An uneven router makes the busiest GPU's experts, and so each step, slower.
  const auto skew = run({"--ep", "4", "--dp-attention", "--expert-imbalance", "2"});
  CHECK(skew["loads"][0]["analytic_tpot_ms"].get<double>() >
        dp["loads"][0]["analytic_tpot_ms"].get<double>());
}

TEST_CASE("qfront serving --redundant-experts: EP 72 on DeepSeek-V3 as the engines run it",
          "[cli][serving]") {
  const std::vector<std::string> base = {
      "serving",      "--model", "deepseek-v3", "--gpu",    "h100-sxm",       "--tp",        "72",
      "--ep",         "72",      "--scheme",    "w8a8-fp8", "--dp-attention", "--input-len", "2000",
      "--output-len", "100",     "--load",      "max",      "--format",       "json"};
  // 72 does not divide 256 routed experts: one line, naming the option that helps.
  const auto refused = qfront(base);
  CHECK(refused.rc == 2);
  CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
  CHECK(refused.err.find("field 'ep'") != std::string::npos);
  CHECK(refused.err.find("--redundant-experts") != std::string::npos);
  auto with = base;
  with.insert(with.end(), {"--redundant-experts", "32"});
  const auto r = qfront(with);
  INFO(r.err);
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["redundant_experts"] == 32);
  CHECK(j["ep"] == 72);
  CHECK(j["loads"][0]["analytic_output_tok_s"].get<double>() > 0);
  // Out of range, and without EP.
  auto tooMany = base;
  tooMany.insert(tooMany.end(), {"--redundant-experts", "2000"});
  CHECK(qfront(tooMany).rc == 2);
  const auto noEp = qfront({"serving", "--model", "deepseek-v3", "--gpu", "h200-sxm", "--tp", "8",
                            "--scheme", "w8a8-fp8", "--redundant-experts", "32", "--input-len",
                            "100", "--output-len", "10", "--load", "max"});
  CHECK(noEp.rc == 2);
  CHECK(noEp.err.find("field 'redundant-experts'") != std::string::npos);
}

TEST_CASE("qfront serving --two-batch-overlap: echoed, and a saturated EP 16 serves more",
          "[cli][serving][moe]") {
  const std::vector<std::string> base = {
      "serving",    "--model", "deepseek-v3", "--gpu",    "h100-sxm",     "--tp",
      "16",         "--ep",    "16",          "--scheme", "w8a8-fp8",     "--dp-attention",
      "--kv-dtype", "fp8",     "--input-len", "2000",     "--output-len", "500",
      "--load",     "max",     "--format",    "json"};
  auto tboArgs = base;
  tboArgs.push_back("--two-batch-overlap");
  const auto plain = runJson(base);
  const auto tbo = runJson(tboArgs);
  CHECK(plain["two_batch_overlap"] == false);
  CHECK(tbo["two_batch_overlap"] == true);
  // Across two nodes the all-to-all runs over the NIC; at 16 x 1,024 sequences it hides
  // under the other micro-batch's work.
  CHECK(tbo["loads"][0]["analytic_output_tok_s"].get<double>() >
        1.2 * plain["loads"][0]["analytic_output_tok_s"].get<double>());
}

TEST_CASE("qfront serving --length-spread draws the simulated lengths around the same means",
          "[cli][serving]") {
  const std::vector<std::string> base = {"serving",
                                         "--model",
                                         "deepseek-v3",
                                         "--gpu",
                                         "h100-sxm",
                                         "--tp",
                                         "16",
                                         "--ep",
                                         "16",
                                         "--scheme",
                                         "w8a8-fp8",
                                         "--dp-attention",
                                         "--max-batch",
                                         "2048",
                                         "--input-len",
                                         "2000",
                                         "--output-len",
                                         "500",
                                         "--load",
                                         "max",
                                         "--requests",
                                         "41000",
                                         "--two-batch-overlap",
                                         "--format",
                                         "json"};
  const auto fixed = runJson(base);
  const auto spread = runJson(base, {"--length-spread", "0.2"});
  CHECK(fixed["length_spread"] == 0.0);
  CHECK(spread["length_spread"] == 0.2);
  const auto& f = fixed["loads"][0];
  const auto& v = spread["loads"][0];
  // The analytic steady state takes the means alone; the simulation draws around them.
  CHECK(v["analytic_output_tok_s"] == f["analytic_output_tok_s"]);
  const double analytic = f["analytic_output_tok_s"].get<double>();
  // Every request alike, admitted together, finishes together: the batch runs in waves of
  // prefill-only steps (all-to-all-bound) and decode-only ones (bound by their work), where
  // the steady state mixes a few prompts into every step. Lengths that vary break the waves.
  CHECK(f["output_tok_s"].get<double>() < 0.85 * analytic);
  CHECK(v["output_tok_s"].get<double>() == Approx(analytic).epsilon(0.05));
  auto table = base;
  table.resize(table.size() - 2);
  table.insert(table.end(), {"--length-spread", "0.2"});
  const auto t = qfront(table);
  REQUIRE(t.rc == 0);
  CHECK(t.out.find("lengths uniform within +-20% of the means") != std::string::npos);
  for (const char* bad : {"1", "-0.1", "nan", "x"}) {
    auto args = base;
    args.insert(args.end(), {"--length-spread", bad});
    const auto r = qfront(args);
    INFO(bad);
    CHECK(r.rc == 2);
    CHECK(r.err.find("length-spread") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("qfront search --two-batch-overlap says which pools run it, in CSV, table and JSON",
          "[cli][search][moe]") {
  const std::vector<std::string> base = {
      "search", "--model",       "deepseek-v3", "--gpus",         "h100-sxm,b200", "--max-gpus",
      "16",     "--schemes",     "w8a8-fp8",    "--input-len",    "2000",          "--output-len",
      "1000",   "--slo-tpot-ms", "100",         "--disaggregated"};
  auto with = [&](std::vector<std::string> more) {
    auto args = base;
    args.insert(args.end(), more.begin(), more.end());
    const auto r = qfront(args);
    INFO(r.err);
    REQUIRE(r.rc == 0);
    return r.out;
  };
  const std::string plainCsv = with({"--format", "csv"});
  CHECK(plainCsv.find("two_batch_overlap") == std::string::npos);
  const std::string csv = with({"--two-batch-overlap", "--format", "csv"});
  const std::string header = csv.substr(0, csv.find('\n'));
  const std::string tail = ",two_batch_overlap,prefill_two_batch_overlap";
  REQUIRE(header.size() > tail.size());
  CHECK(header.substr(header.size() - tail.size()) == tail);
  const auto j = nlohmann::json::parse(with({"--two-batch-overlap", "--format", "json"}));
  int decodeRows = 0, prefillRows = 0;
  for (const auto& c : j["frontier"]) {
    if (c["two_batch_overlap"].get<bool>()) ++decodeRows;
    if (c["prefill_two_batch_overlap"].is_boolean() && c["prefill_two_batch_overlap"].get<bool>())
      ++prefillRows;
  }
  // The pools take it somewhere on this frontier, and the table says where.
  CHECK(decodeRows + prefillRows > 0);
  const std::string table = with({"--two-batch-overlap"});
  if (decodeRows > 0) CHECK(table.find("yes+tbo") != std::string::npos);
  if (prefillRows > 0) CHECK(table.find("+tbo ") != std::string::npos);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == static_cast<long>(j["frontier"].size()) + 1);
}

TEST_CASE("qfront model says the MoE layout it priced, and none for plain TP", "[cli][moe]") {
  const auto wide = qfront({"model", "--model", "deepseek-v3", "--gpu", "h100-sxm", "--scheme",
                            "w8a8-fp8", "--tp", "72", "--ep", "72", "--redundant-experts", "32",
                            "--dp-attention", "--two-batch-overlap", "--batch", "18432"});
  INFO(wide.err);
  REQUIRE(wide.rc == 0);
  CHECK(
      wide.out.find("\nlayout EP 72 with 32 redundant slots, DP attention, two-batch overlap\n") !=
      std::string::npos);
  const auto plain = qfront({"model", "--model", "deepseek-v3", "--gpu", "h200-sxm", "--scheme",
                             "w8a8-fp8", "--tp", "8", "--batch", "64"});
  REQUIRE(plain.rc == 0);
  CHECK(plain.out.find("\nlayout ") == std::string::npos);
}

TEST_CASE("qfront serving under DP attention admits the engine's limits per rank",
          "[cli][serving][moe]") {
  const std::vector<std::string> base = {
      "serving", "--model", "deepseek-v3", "--gpu",    "h200-sxm",    "--tp", "8",
      "--ep",    "8",       "--scheme",    "w8a8-fp8", "--input-len", "1000", "--output-len",
      "100",     "--load",  "max",         "--format", "json"};
  const auto tp = runJson(base);
  auto dpArgs = base;
  dpArgs.push_back("--dp-attention");
  const auto dp = runJson(dpArgs);
  // vLLM's 1,024 sequences and 8,192 tokens are a rank's: 8 ranks admit 8 times them.
  CHECK(tp["max_batch"] == 1024);
  CHECK(dp["max_batch"] == 8 * 1024);
  CHECK(dp["token_budget"].get<double>() == 8 * 8192.0);
  CHECK(dp["limits_source"].get<std::string>().find("per DP rank") != std::string::npos);
  // SGLang's are the server's.
  auto sg = dpArgs;
  sg.insert(sg.end(), {"--engine", "sglang"});
  CHECK(runJson(sg)["limits_source"].get<std::string>().find("per DP rank") == std::string::npos);
  // Given limits are the replica's, as given.
  dpArgs.insert(dpArgs.end(), {"--max-batch", "512"});
  CHECK(runJson(dpArgs)["max_batch"] == 512);
}

TEST_CASE("qfront search tries EP and DP attention on a MoE model and prices them as serving does",
          "[cli][search][moe]") {
  const std::vector<std::string> space = {
      "--model",     "deepseek-v3", "--gpus",       "h200-sxm", "--max-gpus",  "8",
      "--input-len", "1000",        "--output-len", "1000",     "--load",      "max",
      "--max-batch", "64,256",      "--schemes",    "w8a8-fp8", "--kv-dtypes", "fp8"};
  auto withLayouts = searchJson(space);
  auto args = space;
  args.push_back("--no-moe-parallel");
  const auto tpOnly = searchJson(args);
  // The layouts multiply the space: at TP 8, EP 1/2/4/8 without and with DP attention (8
  // layouts, where plain TP is 1); TP 1 has only plain TP.
  CHECK(withLayouts["space"].get<double>() > 2 * tpOnly["space"].get<double>());
  for (const auto& c : tpOnly["frontier"]) {
    CHECK(c["ep"] == 1);
    CHECK(c["dp_attention"] == false);
  }
  // A superset of the TP-only space: its best is never dearer, and here a layout wins
  // (the MLA latent is whole on each TP rank; DP attention keeps one copy per sequence).
  const auto& best = withLayouts["best"];
  REQUIRE(best.is_object());
  CHECK(best["usd_per_million_output_tokens"].get<double>() <=
        tpOnly["best"]["usd_per_million_output_tokens"].get<double>() * (1 + 1e-12));
  CHECK(best["dp_attention"] == true);
  // The vLLM command says how: data parallel inside the replica, experts spread.
  const std::string vllm = best["launch"]["vllm"]["command"].get<std::string>();
  CHECK(vllm.find("--tensor-parallel-size 1 --data-parallel-size " +
                  std::to_string(best["tp"].get<int>())) != std::string::npos);
  if (best["ep"].get<int>() > 1) CHECK(vllm.find("--enable-expert-parallel") != std::string::npos);
  // The search's steady state is qfront serving's for the same layout.
  std::vector<std::string> serve = {"serving",
                                    "--model",
                                    "deepseek-v3",
                                    "--gpu",
                                    "h200-sxm",
                                    "--tp",
                                    std::to_string(best["tp"].get<int>()),
                                    "--scheme",
                                    "w8a8-fp8",
                                    "--kv-dtype",
                                    "fp8",
                                    "--input-len",
                                    "1000",
                                    "--output-len",
                                    "1000",
                                    "--load",
                                    "max",
                                    "--max-batch",
                                    std::to_string(best["max_batch"].get<int>()),
                                    "--requests",
                                    "20000",
                                    "--ep",
                                    std::to_string(best["ep"].get<int>()),
                                    "--format",
                                    "json"};
  if (best["dp_attention"].get<bool>()) serve.push_back("--dp-attention");
  const auto r = qfront(serve);
  INFO(r.err);
  REQUIRE(r.rc == 0);
  const auto s = nlohmann::json::parse(r.out);
  const auto& row = s["loads"][0];
  CHECK(row["analytic_tpot_ms"].get<double>() ==
        Approx(best["tpot_ms"].get<double>()).epsilon(1e-6));
  CHECK(row["analytic_output_tok_s"].get<double>() * best["replicas"].get<double>() ==
        Approx(best["output_tok_s"].get<double>()).epsilon(1e-6));
  // A dense model has no layouts to try.
  const auto dense = searchJson({"--model", "llama-3.1-8b", "--gpus", "h100-sxm", "--max-gpus", "4",
                                 "--use-case", "rag", "--schemes", "bf16"});
  auto denseOff = searchJson({"--model", "llama-3.1-8b", "--gpus", "h100-sxm", "--max-gpus", "4",
                              "--use-case", "rag", "--schemes", "bf16", "--no-moe-parallel"});
  CHECK(dense["space"] == denseOff["space"]);
  // The imbalance is checked.
  for (const char* bad : {"0.5", "65", "x"}) {
    const auto e = qfront({"search", "--model", "deepseek-v3", "--gpus", "h200-sxm", "--use-case",
                           "rag", "--expert-imbalance", bad});
    CHECK(e.rc == 2);
    CHECK(e.err.find("expert-imbalance") != std::string::npos);
  }
}

TEST_CASE("qfront search --disaggregated sets prefill and decode pools beside aggregated ones",
          "[cli][search][disaggregated]") {
  const std::vector<std::string> space = {
      "--model",     "llama-3.1-70b", "--gpus",       "h100-sxm", "--max-gpus",    "8",
      "--input-len", "4096",          "--output-len", "256",      "--load",        "2",
      "--schemes",   "w8a8-fp8",      "--kv-dtypes",  "fp8",      "--slo-tpot-ms", "60"};
  const auto agg = searchJson(space);
  auto args = space;
  args.push_back("--disaggregated");
  const auto both = searchJson(args);
  CHECK(both["space"].get<double>() > agg["space"].get<double>());
  for (const auto& c : agg["frontier"]) CHECK(c["prefill_tp"].is_null());
  // Long prompts, short outputs: a split deployment reaches the frontier, and every split one
  // adds up its pools and moves its KV in under a millisecond per request over NVLink.
  int split = 0;
  for (const auto& c : both["frontier"]) {
    if (c["prefill_tp"].is_null()) continue;
    ++split;
    CHECK(c["gpu_count"].get<int>() ==
          c["tp"].get<int>() * c["replicas"].get<int>() +
              c["prefill_tp"].get<int>() * c["prefill_replicas"].get<int>());
    CHECK(c["gpu_count"].get<int>() <= 8);
    CHECK(c["kv_transfer_ms"].get<double>() > 0);
    CHECK(c["kv_transfer_ms"].get<double>() < 1.0);
    // Its figures carry an 80% interval around them (both pools under the constants' spread);
    // at a rate the throughput is the offered load and carries none.
    for (const char* f : {"ttft_ms", "tpot_ms"}) {
      const auto& iv = c[std::string(f) + "_interval"];
      CHECK(iv[0].get<double>() < c[f].get<double>());
      CHECK(iv[1].get<double>() > c[f].get<double>());
    }
    CHECK(c["output_tok_s_interval"][0] == c["output_tok_s_interval"][1]);
  }
  CHECK(split > 0);
  // Never dearer than aggregated alone (a superset).
  CHECK(both["best"]["usd_per_million_output_tokens"].get<double>() <=
        agg["best"]["usd_per_million_output_tokens"].get<double>() * (1 + 1e-12));
  // Each split row names its prefill pool's GPU and schemes.
  for (const auto& c : both["frontier"]) {
    if (c["prefill_tp"].is_null()) {
      CHECK(c["prefill_gpu"].is_null());
      CHECK(c["prefill_schemes"].is_null());
      continue;
    }
    CHECK(c["prefill_gpu"] == "h100-sxm");
    CHECK(c["prefill_schemes"]["linear"] == "w8a8-fp8");
    CHECK(c["prefill_scheme_id"] == "w8a8-fp8");
  }
  // A split best says how to join its pools.
  if (!both["best"]["prefill_tp"].is_null()) {
    bool joined = false;
    for (const auto& n : both["best"]["launch"]["sglang"]["notes"])
      joined = joined || n.get<std::string>().find("--disaggregation-mode") != std::string::npos;
    CHECK(joined);
  }
}

TEST_CASE("qfront search --disaggregated gives a prefill pool of other schemes its own command",
          "[cli][search][disaggregated]") {
  const auto j = searchJson({"--model", "llama-3.1-70b", "--gpus", "h200-sxm", "--max-gpus", "8",
                             "--input-len", "4096", "--output-len", "512", "--load", "2",
                             "--schemes", "w8a8-fp8,w4a16-g128", "--kv-dtypes", "fp8",
                             "--slo-tpot-ms", "50", "--disaggregated"});
  const auto& b = j["best"];
  REQUIRE_FALSE(b["prefill_tp"].is_null());
  REQUIRE(b["prefill_scheme_id"] != b["scheme_id"]);
  // The decode pool's line, and a note carrying the prefill pool's own vllm serve line.
  const std::string cmd = b["launch"]["vllm"]["command"];
  CHECK(cmd.find("vllm serve") == 0);
  bool prefillLine = false;
  for (const auto& n : b["launch"]["vllm"]["notes"]) {
    const std::string note = n;
    if (note.find("run a prefill pool") == std::string::npos) continue;
    prefillLine = note.find(" in " + b["prefill_scheme_id"].get<std::string>() + ": vllm serve") !=
                  std::string::npos;
  }
  CHECK(prefillLine);
  // The CSV quotes a cell that holds commas and keeps one column per header.
  const auto csv = qfront({"search",
                           "--model",
                           "llama-3.1-70b",
                           "--gpus",
                           "h200-sxm",
                           "--max-gpus",
                           "4",
                           "--input-len",
                           "4096",
                           "--output-len",
                           "512",
                           "--load",
                           "2",
                           "--schemes",
                           "w8a8-fp8,w4a16-g128",
                           "--per-kind",
                           "--kv-dtypes",
                           "fp8",
                           "--slo-tpot-ms",
                           "50",
                           "--format",
                           "csv"});
  REQUIRE(csv.rc == 0);
  std::istringstream lines(csv.out);
  std::string header, row;
  std::getline(lines, header);
  const auto columns = std::count(header.begin(), header.end(), ',');
  while (std::getline(lines, row)) {
    // Commas inside quotes are not separators.
    int separators = 0;
    bool quoted = false;
    for (char ch : row) {
      if (ch == '"') quoted = !quoted;
      if (ch == ',' && !quoted) ++separators;
    }
    CHECK(separators == columns);
  }
}

TEST_CASE("qfront search --spec-draft prices a draft model on every replica",
          "[cli][search][speculation]") {
  // Llama-3.1-70B in bf16 on H100s with Llama-3.1-8B drafting, one request at a time.
  const std::vector<std::string> base = {"--model",      "llama-3.1-70b", "--input-len", "512",
                                         "--output-len", "256",           "--load",      "sync",
                                         "--gpus",       "h100-sxm",      "--max-gpus",  "8",
                                         "--schemes",    "bf16",          "--kv-dtypes", "bf16"};
  const auto plain = searchJson(base);
  auto withDraft = [&](const char* draft) {
    auto args = base;
    args.insert(args.end(), {"--spec-k", "3", "--spec-acceptance", "0.8", "--spec-draft", draft});
    return searchJson(args);
  };
  const auto mtp = withDraft("mtp");
  const auto draft = withDraft("llama-3.1-8b");
  CHECK(draft["speculation"]["draft"] == "llama-3.1-8b");
  CHECK(mtp["speculation"]["draft"] == "mtp");
  // Every frontier point of one TP: the draft's three 8B steps cost more than the MTP layer's
  // one 70B layer each, and still beat plain decoding on a bf16 70B.
  auto tpotAt = [](const nlohmann::json& j, int gpus) {
    double best = 1e300;
    for (const auto& c : j["frontier"])
      if (c["gpu_count"] == gpus && c["tp"] == gpus)
        best = std::min(best, c["tpot_ms"].get<double>());
    return best;
  };
  // (Two H100s do not hold a bf16 70B with its KV: TP 4 and TP 8.)
  for (int gpus : {4, 8}) {
    INFO(gpus);
    const double p = tpotAt(plain, gpus), m = tpotAt(mtp, gpus), d = tpotAt(draft, gpus);
    REQUIRE(p < 1e300);
    REQUIRE(d < 1e300);
    CHECK(d > m);
    CHECK(d < p);
  }
  // The launch lines name the draft model in each engine's own flags.
  const auto& launch = draft["best"]["launch"];
  auto said = [&](const char* engine, const std::string& what) {
    for (const auto& n : launch[engine]["notes"])
      if (n.get<std::string>().find(what) != std::string::npos) return true;
    return false;
  };
  CHECK(said("vllm", "--speculative-config '{\"model\": \"meta-llama/Llama-3.1-8B"));
  CHECK(said("vllm", "\"num_speculative_tokens\": 3"));
  CHECK(said("sglang", "--speculative-algorithm STANDALONE --speculative-draft-model-path"));
  CHECK(said("sglang", "--speculative-num-draft-tokens 4"));
  CHECK(said("trtllm", "max_draft_len 3"));
}

TEST_CASE("qfront search --spec-acceptance from:FILE reads the acceptance off an accept length",
          "[cli][search][speculation]") {
  const std::string file = std::string(QF_TEST_DATA_DIR) + "/import/sglang_serving_spec.jsonl";
  const std::vector<std::string> base = {
      "--model",   "llama-3.1-8b", "--input-len", "512",      "--output-len", "256",
      "--load",    "sync",         "--gpus",      "h100-sxm", "--max-gpus",   "1",
      "--schemes", "bf16",         "--spec-k",    "3",        "--spec-draft", "mtp"};
  auto args = base;
  args.insert(args.end(), {"--spec-acceptance", "from:" + file});
  const auto j = searchJson(args);
  // Its two runs accept 2.5 and 2.7 tokens a step: the mean, 2.6, is what alpha yields at k 3.
  const double alpha = j["speculation"]["acceptance"].get<double>();
  CHECK(1 + alpha + alpha * alpha + alpha * alpha * alpha == Approx(2.6).margin(1e-9));
  CHECK(j["speculation"]["tokens_per_step"].get<double>() == Approx(2.6).margin(1e-9));
  const std::string source = j["speculation"]["acceptance_source"];
  CHECK(source.find("sglang_serving_spec.jsonl: accept length 2.6 tokens a step") !=
        std::string::npos);
  CHECK(source.find("mean of 2 runs") != std::string::npos);
  // The same as giving that alpha.
  auto given = base;
  given.insert(given.end(), {"--spec-acceptance", std::to_string(alpha)});
  CHECK(searchJson(given)["best"]["tpot_ms"].get<double>() ==
        Approx(j["best"]["tpot_ms"].get<double>()).epsilon(1e-5));
  // A file without an accept length, and a k too small for it, are refused naming the field.
  auto plainRuns = base;
  plainRuns.insert(plainRuns.begin(), "search");
  plainRuns.insert(plainRuns.end(), {"--spec-acceptance", "from:" + std::string(QF_TEST_DATA_DIR) +
                                                              "/import/sglang_serving.jsonl"});
  const auto none = qfront(plainRuns);
  CHECK(none.rc == 2);
  CHECK(none.err.find("accept_length") != std::string::npos);
  auto small = base;
  small.insert(small.begin(), "search");
  small[small.size() - 3] = "1";  // --spec-k 1 yields at most 2 tokens a step
  small.insert(small.end(), {"--spec-acceptance", "from:" + file});
  const auto r = qfront(small);
  CHECK(r.rc == 2);
  CHECK(r.err.find("outside (1, 2]") != std::string::npos);
}

TEST_CASE("qfront serving takes the engine's own batch cap and budget on the GPU",
          "[cli][serving][admission]") {
  auto run = [](std::vector<std::string> extra) {
    std::vector<std::string> args = {
        "serving",     "--model",    "llama-3.1-8b", "--scheme", "bf16",
        "--input-len", "512",        "--output-len", "64",       "--load",
        "2",           "--requests", "200",          "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = qfront(args);
    REQUIRE(r.rc == 0);
    return nlohmann::json::parse(r.out);
  };
  const auto h100 = run({"--gpu", "h100-sxm"});
  CHECK(h100["max_batch"] == 1024);
  CHECK(h100["token_budget"] == 8192);
  CHECK(h100["limits_source"].get<std::string>().find(">= 70 GiB") != std::string::npos);
  const auto a100 = run({"--gpu", "a100-80gb"});
  CHECK(a100["max_batch"] == 256);
  CHECK(a100["token_budget"] == 2048);
  CHECK(a100["limits_source"].get<std::string>().find("A100") != std::string::npos);
  const auto trt = run({"--gpu", "a100-80gb", "--engine", "trtllm"});
  CHECK(trt["max_batch"] == 2048);
  CHECK(trt["token_budget"] == 8192);
  // A cap above the default budget takes a budget that holds its decodes; both given: given.
  const auto cap = run({"--gpu", "a100-80gb", "--max-batch", "4096"});
  CHECK(cap["max_batch"] == 4096);
  CHECK(cap["token_budget"] == 4096);
  const auto both = run({"--gpu", "a100-80gb", "--max-batch", "64", "--token-budget", "512"});
  CHECK(both["token_budget"] == 512);
  CHECK(both["limits_source"] == "given");
}
