// Serving benchmark importers against hand-written fixtures (tests/data/import/) whose
// statistics were computed by hand. Percentiles follow numpy's default ("linear", as
// np.percentile in vLLM and SGLang): sorted x, h = (n − 1)·p/100,
// value = x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>
#include <quantfront/core/import/importers.hpp>
#include "import/formats.hpp"

using namespace qf;

namespace {

std::string fixture(const std::string& name) {
  return std::string(QF_TEST_DATA_DIR) + "/import/" + name;
}

ImportReport importOk(const std::string& name) {
  auto r = importFile(fixture(name));
  INFO((r.ok() ? std::string() : r.error().str()));
  REQUIRE(r.ok());
  return std::move(r).value();
}

double metric(const ImportedRun& run, const std::string& name) {
  const auto it = run.metrics.find(name);
  INFO("metric " << name);
  REQUIRE(it != run.metrics.end());
  return it->second;
}

bool hasWarning(const std::vector<std::string>& warnings, const std::string& part) {
  return std::any_of(warnings.begin(), warnings.end(),
                     [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

bool listed(const std::string& commaList, const std::string& name) {
  const std::string padded = ", " + commaList + ",";
  return padded.find(", " + name + ",") != std::string::npos;
}

}  // namespace

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

TEST_CASE("vLLM bench latency: percentiles read and recomputed from latencies", "[import]") {
  const ImportReport rep = importOk("vllm_latency.json");
  CHECK(rep.format == "vllm-latency");
  REQUIRE(rep.runs.size() == 1);
  const ImportedRun& run = rep.runs[0];
  // latencies {0.49, 0.50, 0.51, 0.52, 0.55}: mean 0.514; p99 h = 3.96 → 0.52 + 0.96·0.03.
  CHECK(metric(run, "iterations") == 5);
  CHECK(metric(run, "latency_mean_s") == Approx(0.514).epsilon(1e-12));
  CHECK(metric(run, "latency_p50_s") == Approx(0.51).epsilon(1e-12));
  CHECK(metric(run, "latency_p99_s") == Approx(0.5488).epsilon(1e-12));
  CHECK(metric(run, "latency_p10_s") == Approx(0.494).epsilon(1e-12));  // h = 0.4
  CHECK(metric(run, "latency_p25_s") == Approx(0.50).epsilon(1e-12));   // h = 1
  CHECK(metric(run, "latency_p75_s") == Approx(0.52).epsilon(1e-12));   // h = 3
  CHECK(metric(run, "latency_p90_s") == Approx(0.538).epsilon(1e-12));  // h = 3.6
  CHECK_FALSE(hasWarning(run.warnings, "the file says"));
  CHECK(listed(run.setup.at("metrics_checked"), "latency_p25_s"));
  CHECK(hasWarning(run.warnings, "batch size"));
}

TEST_CASE("vLLM bench throughput", "[import]") {
  const ImportReport rep = importOk("vllm_throughput.json");
  CHECK(rep.format == "vllm-throughput");
  REQUIRE(rep.runs.size() == 1);
  const ImportedRun& run = rep.runs[0];
  CHECK(metric(run, "duration_s") == 52.3);
  CHECK(metric(run, "num_requests") == 1000);
  CHECK(metric(run, "total_num_tokens") == 1250000);
  CHECK(metric(run, "request_throughput_req_s") == Approx(19.120458891013385));
  CHECK(metric(run, "total_token_throughput_tok_s") == Approx(23900.573613766733));
  CHECK(run.warnings.empty());
}

TEST_CASE("SGLang bench_one_batch: decode step by batch, output_len 1 warned", "[import]") {
  const ImportReport rep = importOk("sglang_one_batch.jsonl");
  CHECK(rep.format == "sglang-one-batch");
  // (w4a16, 1024, 16) with batches 8, 1, 32; (w4a16, 1024, 1) on its own.
  REQUIRE(rep.runs.size() == 2);
  const ImportedRun& run = rep.runs[0];
  CHECK(run.label == "w4a16");
  CHECK(run.setup.at("input_len") == "1024");
  CHECK(run.setup.at("output_len") == "16");
  CHECK(run.setup.at("batch_sizes") == "1, 8, 32");
  using Pair = std::pair<double, double>;
  CHECK(run.decodeStepByBatch ==
        std::vector<Pair>{Pair{1.0, 0.007}, Pair{8.0, 0.0085}, Pair{32.0, 0.012}});
  CHECK(metric(run, "bs8/decode_step_ms") == Approx(8.5).epsilon(1e-12));
  CHECK(metric(run, "bs1/prefill_latency_ms") == Approx(50.0).epsilon(1e-12));
  CHECK(metric(run, "bs32/decode_throughput_tok_s") == Approx(2666.6666666666665));
  CHECK(metric(run, "bs32/total_latency_s") == 0.98);
  CHECK(metric(run, "bs1/overall_throughput_tok_s") == Approx(6709.677419354839));

  const ImportedRun& single = rep.runs[1];
  CHECK(single.setup.at("output_len") == "1");
  CHECK(single.decodeStepByBatch.empty());
  CHECK(single.metrics.count("bs1/decode_step_ms") == 0);
  CHECK(metric(single, "bs1/prefill_latency_ms") == Approx(50.0).epsilon(1e-12));
  CHECK(hasWarning(single.warnings, "line 4: batch 1 has output_len 1"));
}

TEST_CASE("SGLang bench_serving: Infinity, NaN, old lines, details, a bad line", "[import]") {
  const ImportReport rep = importOk("sglang_serving.jsonl");
  CHECK(rep.format == "sglang-serving");
  REQUIRE(rep.runs.size() == 3);

  // Line 1: an older line with a subset of keys and a bare Infinity request rate.
  const ImportedRun& old = rep.runs[0];
  CHECK(old.setup.at("request_rate") == "inf");
  CHECK(old.setup.at("dataset_name") == "random");
  CHECK(old.label == "sglang");
  CHECK(metric(old, "e2el_mean_ms") == 3000.0);
  CHECK(metric(old, "e2el_median_ms") == 2900.0);
  CHECK(metric(old, "ttft_p99_ms") == 900.0);
  CHECK(metric(old, "request_throughput_req_s") == 16.0);
  CHECK(metric(old, "input_throughput_tok_s") == 16384.0);
  CHECK(old.requests.empty());

  // Line 2: NaN values are not imported, and said so.
  const ImportedRun& newer = rep.runs[1];
  CHECK(newer.metrics.count("tpot_std_ms") == 0);
  CHECK(newer.metrics.count("accept_length_tokens") == 0);
  CHECK(hasWarning(newer.warnings, "'std_tpot_ms' is nan"));
  CHECK(metric(newer, "itl_p95_ms") == 38.0);
  CHECK(metric(newer, "concurrency") == 40.7);
  CHECK(metric(newer, "total_output_tokens_retokenized") == 94870);
  CHECK(metric(newer, "e2el_p99_ms") == 9800.0);

  // Line 3: per-request details under "details": recomputed.
  // ttft {50, 100, 150} ms: p99 h = 1.98 → 149; e2el = ttft + sum(itls) = {200, 200, 300} ms.
  const ImportedRun& detailed = rep.runs[2];
  REQUIRE(detailed.requests.size() == 3);
  CHECK(metric(detailed, "ttft_p99_ms") == Approx(149.0).epsilon(1e-12));
  CHECK(metric(detailed, "e2el_p99_ms") == Approx(298.0).epsilon(1e-12));
  CHECK(metric(detailed, "e2el_mean_ms") == Approx(700.0 / 3.0).epsilon(1e-12));
  CHECK(metric(detailed, "tpot_mean_ms") == Approx(50.0).epsilon(1e-12));
  CHECK(metric(detailed, "itl_p95_ms") == Approx(50.0).epsilon(1e-12));
  CHECK(listed(detailed.setup.at("metrics_checked"), "itl_p95_ms"));     // stated, confirmed
  CHECK(listed(detailed.setup.at("metrics_recomputed"), "itl_p90_ms"));  // not stated: filled
  CHECK_FALSE(hasWarning(detailed.warnings, "the file says"));

  // Line 4 is not valid JSON: skipped, with its line and column.
  REQUIRE(rep.warnings.size() == 1);
  CHECK(rep.warnings[0].rfind("line 4, column 61:", 0) == 0);
}

TEST_CASE("vLLM and SGLang serving objects are told apart by content", "[import]") {
  // Same shape, different telling keys; the file name says nothing.
  auto vllm = importBytes(
      R"({"date": "20250101-000000", "model_id": "m", "num_prompts": 10, "duration": 1.0,
          "completed": 10, "request_throughput": 10.0, "mean_ttft_ms": 5.0})",
      "a.txt");
  REQUIRE(vllm.ok());
  CHECK(vllm->format == "vllm-serve");
  CHECK(vllm->runs[0].metrics.at("ttft_mean_ms") == 5.0);
  auto sglang = importBytes(
      R"({"backend": "sglang", "dataset_name": "random", "duration": 1.0, "completed": 10,
          "request_throughput": 10.0, "mean_ttft_ms": 5.0, "mean_e2e_latency_ms": 9.0})",
      "b.txt");
  REQUIRE(sglang.ok());
  CHECK(sglang->format == "sglang-serving");
  CHECK(sglang->runs[0].metrics.at("e2el_mean_ms") == 9.0);
}

TEST_CASE("SGLang bench_serving with per-request details at the top level", "[import]") {
  // ttfts {0.2, 0.4} s; e2el = ttft + sum(itls) = {0.5, 0.7} s; TPOT (3 and 2 output tokens):
  // (0.5 − 0.2)/2 = 0.15 s and (0.7 − 0.4)/1 = 0.3 s; one failed request left out.
  auto r = importBytes(
      R"({"backend": "sglang", "dataset_name": "random", "request_rate": 1.0, "duration": 3.0,
          "completed": 2, "mean_ttft_ms": 300.0, "input_lens": [10, 20, 30],
          "output_lens": [3, 2, 0], "ttfts": [0.2, 0.4, 0.0],
          "itls": [[0.1, 0.2], [0.3], []], "errors": ["", "", "timeout"]})",
      "s.jsonl");
  REQUIRE(r.ok());
  CHECK(r->format == "sglang-serving");
  const ImportedRun& run = r->runs.at(0);
  REQUIRE(run.requests.size() == 3);
  CHECK_FALSE(run.requests[2].success);
  CHECK(metric(run, "ttft_mean_ms") == Approx(300.0).epsilon(1e-12));
  CHECK(metric(run, "e2el_p50_ms") == Approx(600.0).epsilon(1e-12));
  CHECK(metric(run, "tpot_mean_ms") == Approx(225.0).epsilon(1e-12));
  // ITL pooled {100, 200, 300} ms: p90 h = 1.8 → 200 + 0.8·100 = 280.
  CHECK(metric(run, "itl_p90_ms") == Approx(280.0).epsilon(1e-12));
  CHECK(metric(run, "failed") == 1);
  CHECK(hasWarning(run.warnings, "1 of 3 requests failed; most common error (1x): \"timeout\""));
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

TEST_CASE("serving file missing throughput, duration or completed says so", "[import]") {
  auto r = importBytes(
      R"({"date": "20250101-000000", "model_id": "m", "num_prompts": 10, "mean_ttft_ms": 5.0,
          "p99_ttft_ms": 9.0, "failed": 0, "burstiness": 1.0})",
      "partial.json");
  REQUIRE(r.ok());
  const ImportedRun& run = r->runs.at(0);
  CHECK(hasWarning(run.warnings, "no 'duration'"));
  CHECK(hasWarning(run.warnings, "no 'completed'"));
  CHECK(hasWarning(run.warnings, "no 'request_throughput'"));
  CHECK(metric(run, "ttft_p99_ms") == 9.0);
  // A complete file has none of these warnings.
  const ImportReport full = importOk("vllm_serve_detailed.json");
  CHECK_FALSE(hasWarning(full.runs.at(0).warnings, "the file has no"));
}
