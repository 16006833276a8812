// The SGLang bench_serving reader (core/src/import/sglang_serving.cpp).
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
