// The gsm8k_eval.py results reader (core/src/import/gsm8k_eval.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/import/importers.hpp>
#include "support/import_fixtures.hpp"

using namespace qf;
using namespace qf::test;

TEST_CASE("gsm8k_eval.py results: score with n, unpaired only", "[import]") {
  const ImportReport rep = importOk("gsm8k_eval.json");
  CHECK(rep.format == "gsm8k-eval");
  REQUIRE(rep.runs.size() == 1);
  const ImportedRun& run = rep.runs[0];
  CHECK(run.metrics.at("gsm8k/accuracy") == 0.772);
  CHECK(run.metrics.at("gsm8k/invalid_rate") == 0.003);
  CHECK(run.metrics.at("gsm8k/n_samples") == 1319);
  CHECK(run.metrics.at("latency_s") == 45.2);
  CHECK(run.metrics.at("questions_per_s") == 29.18);
  CHECK(run.metrics.at("output_throughput_tok_s") == 4137.2);
  CHECK(run.setup.at("num_shots") == "5");
  CHECK(run.setup.at("max_tokens") == "256");
  CHECK(
      hasWarning(run.warnings, "score without per-question predictions: unpaired statistics only"));
}

TEST_CASE("gsm8k_eval.py accuracy outside [0, 1] is refused with the field", "[import]") {
  auto r =
      importBytes(R"({"accuracy": 77.2, "invalid_rate": 0.0, "num_questions": 1319})", "g.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().file == "g.json");
  CHECK(r.error().field == "accuracy");
  CHECK(r.error().position == "/accuracy");
}
