// The vLLM bench serve reader (core/src/import/vllm_serve.cpp).
// Fixtures are hand-written (tests/data/import/) with statistics computed by hand.
// Percentiles follow numpy's default ("linear", as np.percentile in vLLM and SGLang): sorted x,
// h = (n − 1)·p/100, value = x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>
#include <quantfront/core/import/importers.hpp>
#include "import/formats.hpp"
#include "support/import_fixtures.hpp"

using namespace qf;
using namespace qf::test;

TEST_CASE("vLLM bench serve 2024 file: arrays read, percentiles recomputed", "[import]") {
  const ImportReport rep = importOk("vllm_serve_2024.json");
  CHECK(rep.format == "vllm-serve");
  CHECK(rep.sha256.size() == 64);
  REQUIRE(rep.runs.size() == 1);
  const ImportedRun& run = rep.runs[0];
  CHECK(run.format == "vllm-serve");
  CHECK(run.sha256 == rep.sha256);
  CHECK(run.sourceFile == fixture("vllm_serve_2024.json"));
  CHECK(run.label == "meta-llama/Meta-Llama-3-8B-Instruct");
  CHECK(run.setup.at("request_rate") == "inf");
  CHECK(run.setup.at("best_of") == "1");
  CHECK(run.setup.at("use_beam_search") == "false");
  CHECK(run.setup.at("date") == "20240612-103000");
  CHECK(run.setup.at("e2el_source") == "ttft + sum(itls)");

  // Five requests; the fifth failed (non-empty error string).
  REQUIRE(run.requests.size() == 5);
  CHECK(run.requests[0].ttftS == 0.10);
  CHECK(run.requests[0].itlsS == std::vector<double>{0.01, 0.02, 0.03});
  CHECK(run.requests[0].inputLen == 512);
  CHECK(run.requests[0].outputLen == 4);
  CHECK(run.requests[0].latencyS == Approx(0.16).epsilon(1e-12));
  CHECK(run.requests[0].success);
  CHECK_FALSE(run.requests[4].success);

  // TTFT of the 4 successful requests: {100, 200, 300, 400} ms.
  CHECK(metric(run, "ttft_mean_ms") == Approx(250.0).epsilon(1e-12));
  CHECK(metric(run, "ttft_median_ms") == Approx(250.0).epsilon(1e-12));
  CHECK(metric(run, "ttft_std_ms") == Approx(111.80339887498948).epsilon(1e-12));
  CHECK(metric(run, "ttft_p50_ms") == Approx(250.0).epsilon(1e-12));  // h = 1.5
  CHECK(metric(run, "ttft_p90_ms") == Approx(370.0).epsilon(1e-12));  // h = 2.7
  CHECK(metric(run, "ttft_p99_ms") == Approx(397.0).epsilon(1e-12));  // h = 2.97
  // TPOT = (latency − ttft)/(output_len − 1), output_len > 1 only: {20, 20, 25} ms.
  CHECK(metric(run, "tpot_mean_ms") == Approx(65.0 / 3.0).epsilon(1e-12));
  CHECK(metric(run, "tpot_median_ms") == Approx(20.0).epsilon(1e-12));
  CHECK(metric(run, "tpot_p99_ms") == Approx(24.9).epsilon(1e-12));  // h = 1.98
  CHECK(metric(run, "tpot_p90_ms") == Approx(24.0).epsilon(1e-12));  // h = 1.8
  // ITL pooled over successful requests: {10,10,10,20,20,20,30,30,50} ms.
  CHECK(metric(run, "itl_mean_ms") == Approx(200.0 / 9.0).epsilon(1e-12));
  CHECK(metric(run, "itl_median_ms") == Approx(20.0).epsilon(1e-12));
  CHECK(metric(run, "itl_p99_ms") == Approx(48.4).epsilon(1e-12));
  CHECK(metric(run, "itl_p90_ms") == Approx(34.0).epsilon(1e-12));
  // E2E = ttft + sum(itls): {160, 240, 300, 500} ms; not in the 2024 file, recomputed only.
  CHECK(metric(run, "e2el_mean_ms") == Approx(300.0).epsilon(1e-12));
  CHECK(metric(run, "e2el_median_ms") == Approx(270.0).epsilon(1e-12));
  CHECK(metric(run, "e2el_p99_ms") == Approx(494.0).epsilon(1e-12));  // 300 + 0.97·200

  // Summary figures read as they are, with units in the names.
  CHECK(metric(run, "duration_s") == 1.25);
  CHECK(metric(run, "completed") == 4);
  CHECK(metric(run, "request_throughput_req_s") == 3.2);
  CHECK(metric(run, "input_throughput_tok_s") == 1536.0);
  CHECK(metric(run, "output_throughput_tok_s") == 10.4);
  CHECK(metric(run, "total_token_throughput_tok_s") == 1546.4);
  // "request_goodput:" (stray colon) is null here: no goodput configured, nothing imported.
  CHECK(run.metrics.count("request_goodput_req_s") == 0);
  // "failed" is absent in 2024 files: counted from the errors array.
  CHECK(metric(run, "failed") == 1);

  // Which figures were recomputed and which read.
  // The file states p99 TTFT (397): kept as read, and confirmed by the arrays. p90 and the
  // E2E figures are not in the file: filled from the arrays.
  CHECK(listed(run.setup.at("metrics_read"), "ttft_p99_ms"));
  CHECK(listed(run.setup.at("metrics_checked"), "ttft_p99_ms"));
  CHECK_FALSE(listed(run.setup.at("metrics_recomputed"), "ttft_p99_ms"));
  CHECK(listed(run.setup.at("metrics_recomputed"), "ttft_p90_ms"));
  CHECK(listed(run.setup.at("metrics_recomputed"), "e2el_p90_ms"));
  CHECK(listed(run.setup.at("metrics_recomputed"), "failed"));
  CHECK(listed(run.setup.at("metrics_read"), "duration_s"));
  CHECK(run.metrics.count("ttft_p99_ms_recomputed") == 0);
  // The file's own figures agree with the arrays: no disagreement warning.
  CHECK_FALSE(hasWarning(run.warnings, "the file says"));
  CHECK(hasWarning(run.warnings, "1 of 5 requests failed"));
  CHECK(hasWarning(run.warnings, "Connection reset by peer"));
  CHECK(hasWarning(run.warnings, "generated_texts"));
}

TEST_CASE("vLLM bench serve current file: latencies, p99.9, disagreement reported", "[import]") {
  const ImportReport rep = importOk("vllm_serve_detailed.json");
  REQUIRE(rep.runs.size() == 1);
  const ImportedRun& run = rep.runs[0];
  CHECK(run.label == "llama8b-w4a16");
  CHECK(run.setup.at("max_concurrency") == "none");
  CHECK(run.setup.at("request_rate") == "4");
  CHECK(run.setup.at("endpoint_type") == "openai-chat");
  CHECK(run.setup.at("e2el_source") == "latencies");
  // Metadata key written by --metadata: kept as setup text, and said so.
  CHECK(run.setup.at("tp") == "1");
  CHECK(hasWarning(run.warnings, "unknown keys kept as setup text: tp"));
  REQUIRE(run.requests.size() == 10);
  CHECK(run.requests[9].latencyS == Approx(2.0).epsilon(1e-12));

  // TTFT {100, ..., 1000} ms: p50 h = 4.5 → 550; p90 h = 8.1 → 910; p99 h = 8.91 → 991;
  // p99.9 h = 8.991 → 999.1.
  CHECK(metric(run, "ttft_p50_ms") == Approx(550.0).epsilon(1e-12));
  CHECK(metric(run, "ttft_p90_ms") == Approx(910.0).epsilon(1e-12));
  CHECK(metric(run, "ttft_p99.9_ms") == Approx(999.1).epsilon(1e-12));
  // The file states p99 TTFT as 990: that is the tool's own figure and is kept; the arrays'
  // 991 goes beside it, and a warning names both.
  CHECK(metric(run, "ttft_p99_ms") == 990.0);
  CHECK(metric(run, "ttft_p99_ms_recomputed") == Approx(991.0).epsilon(1e-12));
  CHECK(
      hasWarning(run.warnings, "ttft_p99_ms: the file says 990, the per-request arrays give 991"));
  CHECK(hasWarning(run.warnings, "stored as ttft_p99_ms_recomputed"));
  CHECK(listed(run.setup.at("metrics_read"), "ttft_p99_ms"));
  CHECK(listed(run.setup.at("metrics_recomputed"), "ttft_p99_ms_recomputed"));
  CHECK_FALSE(listed(run.setup.at("metrics_checked"), "ttft_p99_ms"));
  CHECK(listed(run.setup.at("metrics_checked"), "ttft_p90_ms"));
  // Only the one figure that differs gets a recomputed twin.
  CHECK(run.metrics.count("ttft_p90_ms_recomputed") == 0);
  CHECK(run.metrics.count("e2el_p99_ms_recomputed") == 0);
  // E2E from the latencies array: ttft + 1 s.
  CHECK(metric(run, "e2el_p99.9_ms") == Approx(1999.1).epsilon(1e-12));
  CHECK(metric(run, "e2el_mean_ms") == Approx(1550.0).epsilon(1e-12));
  // TPOT = (latency − ttft)/(11 − 1) = 100 ms for every request; ITL gaps all 100 ms.
  CHECK(metric(run, "tpot_p99_ms") == Approx(100.0).epsilon(1e-12));
  CHECK(metric(run, "itl_p99.9_ms") == Approx(100.0).epsilon(1e-12));
  CHECK(metric(run, "failed") == 0);
  CHECK(metric(run, "request_goodput_req_s") == 1.5);
  CHECK(metric(run, "max_output_throughput_tok_s") == 40.0);
  CHECK(metric(run, "max_concurrent_requests") == 10);
  CHECK(listed(run.setup.at("metrics_read"), "failed"));
  CHECK(hasWarning(run.warnings, "start_times"));
}

TEST_CASE("vLLM bench serve summary file: figures read, nothing recomputed", "[import]") {
  const ImportReport rep = importOk("vllm_serve_summary.json");
  REQUIRE(rep.runs.size() == 1);
  const ImportedRun& run = rep.runs[0];
  CHECK(run.requests.empty());
  CHECK(run.label == "qwen7b-fp8");
  CHECK(run.setup.at("max_concurrency") == "64");
  CHECK(run.setup.at("metrics_recomputed").empty());
  CHECK(metric(run, "ttft_p99_ms") == 150.3);
  CHECK(metric(run, "ttft_p99.9_ms") == 210.0);
  CHECK(metric(run, "tpot_median_ms") == 30.9);
  CHECK(metric(run, "itl_p99.9_ms") == 120.5);
  CHECK(metric(run, "e2el_mean_ms") == 4123.0);
  CHECK(metric(run, "e2el_std_ms") == 512.0);
  CHECK(metric(run, "failed") == 2);
  CHECK(metric(run, "request_goodput_req_s") == 7.9);
  CHECK(listed(run.setup.at("metrics_read"), "ttft_p99.9_ms"));
}

TEST_CASE("vLLM --append-result file: one run per object, a cut-off object skipped", "[import]") {
  const ImportReport rep = importOk("vllm_serve_append.json");
  CHECK(rep.format == "vllm-serve");
  REQUIRE(rep.runs.size() == 2);
  CHECK(rep.runs[0].label == "qwen7b-fp8-rate4");
  CHECK(rep.runs[0].setup.at("request_rate") == "4");
  CHECK(metric(rep.runs[0], "ttft_p99_ms") == 120.0);
  CHECK(rep.runs[1].label == "qwen7b-fp8-rate16");
  CHECK(rep.runs[1].setup.at("request_rate") == "inf");
  CHECK(metric(rep.runs[1], "ttft_p99_ms") == 310.0);
  // The third object was cut off after 200 bytes: skipped with a warning naming line 3.
  REQUIRE(rep.warnings.size() == 1);
  CHECK(rep.warnings[0].rfind("line 3, column 201:", 0) == 0);
  CHECK(hasWarning(rep.warnings, "line skipped"));
}

TEST_CASE("vLLM run whose every request failed: no 0 ms latencies, failures named", "[import]") {
  // vLLM writes mean/median/std/p99 of every latency as 0.0 when nothing completed.
  const ImportReport rep = importOk("vllm_serve_all_failed.json");
  REQUIRE(rep.runs.size() == 1);
  const ImportedRun& run = rep.runs[0];
  for (const char* name : {"ttft_mean_ms", "ttft_p99_ms", "tpot_median_ms", "itl_p99_ms",
                           "e2el_mean_ms", "e2el_std_ms"}) {
    INFO(name);
    CHECK(run.metrics.count(name) == 0);
  }
  CHECK(metric(run, "completed") == 0);
  CHECK(metric(run, "failed") == 200);
  CHECK(metric(run, "duration_s") == 3.5);
  CHECK(hasWarning(run.warnings, "all 200 requests failed"));
  CHECK_FALSE(listed(run.setup.at("metrics_read"), "ttft_mean_ms"));
  CHECK(run.setup.at("all_requests_failed") == "true");
}

TEST_CASE("vLLM run with arrays whose every request failed", "[import]") {
  auto r = importBytes(
      R"({"date": "20250101-000000", "model_id": "m", "num_prompts": 3, "duration": 2.0,
          "completed": 0, "request_throughput": 0.0, "mean_ttft_ms": 0.0, "p99_ttft_ms": 0.0,
          "ttfts": [0.0, 0.0, 0.0], "itls": [[], [], []], "input_lens": [10, 10, 10],
          "output_lens": [0, 0, 0], "errors": ["timeout", "timeout", "refused"]})",
      "all_failed_arrays.json");
  REQUIRE(r.ok());
  const ImportedRun& run = r->runs.at(0);
  CHECK(run.metrics.count("ttft_mean_ms") == 0);
  CHECK(run.metrics.count("ttft_p99_ms") == 0);
  CHECK(metric(run, "failed") == 3);
  CHECK(hasWarning(run.warnings, "all 3 requests failed"));
  CHECK(hasWarning(run.warnings, "3 of 3 requests failed; most common error (2x): \"timeout\""));
}
