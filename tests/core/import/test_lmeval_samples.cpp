// The lm-evaluation-harness per-sample reader (core/src/import/lmeval_samples.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/import/importers.hpp>
#include "support/import_fixtures.hpp"

using namespace qf;
using namespace qf::test;

TEST_CASE("lm-eval per-sample file is recognised and sent to stats paired", "[import]") {
  auto r = importFile(fixture("lm_eval_samples_gsm8k.jsonl"));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().file == fixture("lm_eval_samples_gsm8k.jsonl"));
  CHECK(r.error().field == "format");
  CHECK(r.error().position == "line 1, column 1");
  CHECK(r.error().message == "per-sample lm-eval file: use `qfront stats paired`");
}
