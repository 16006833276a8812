// What the serving readers share (core/src/import/serving_common.cpp): telling vLLM and
// SGLang objects apart, the figures every serving run needs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>
#include <quantfront/core/import/importers.hpp>
#include "import/formats.hpp"
#include "support/import_fixtures.hpp"

using namespace qf;
using namespace qf::test;

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
