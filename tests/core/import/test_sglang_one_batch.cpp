// The SGLang bench_one_batch reader (core/src/import/sglang_one_batch.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>
#include <quantfront/core/import/importers.hpp>
#include "import/formats.hpp"
#include "support/import_fixtures.hpp"

using namespace qf;
using namespace qf::test;

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
