// The vLLM bench throughput reader (core/src/import/vllm_throughput.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>
#include <quantfront/core/import/importers.hpp>
#include "import/formats.hpp"
#include "support/import_fixtures.hpp"

using namespace qf;
using namespace qf::test;

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
