// The vLLM bench latency reader (core/src/import/vllm_latency.cpp).
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
