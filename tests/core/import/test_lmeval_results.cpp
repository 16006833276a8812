// The lm-evaluation-harness results reader (core/src/import/lmeval_results.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/import/importers.hpp>
#include "support/import_fixtures.hpp"

using namespace qf;
using namespace qf::test;

TEST_CASE("lm-eval results: task/metric,filter with stderr and n", "[import]") {
  const ImportReport rep = importOk("lm_eval_results.json");
  CHECK(rep.format == "lm-eval-results");
  REQUIRE(rep.runs.size() == 1);
  const ImportedRun& run = rep.runs[0];
  CHECK(run.label == "meta-llama/Llama-3.1-8B-Instruct");
  const auto& m = run.metrics;
  CHECK(m.at("gsm8k/exact_match,strict-match") == 0.7604245640636846);
  CHECK(m.at("gsm8k/exact_match_stderr,strict-match") == 0.011755138614227447);
  CHECK(m.at("gsm8k/exact_match,flexible-extract") == 0.7695223654283548);
  CHECK(m.at("gsm8k/exact_match_stderr,flexible-extract") == 0.011600249020595822);
  CHECK(m.at("arc_easy/acc,none") == 0.8169191919191919);
  CHECK(m.at("arc_easy/acc_norm_stderr,none") == 0.008283270541463464);
  CHECK(m.at("mmlu/acc,none") == 0.6823529411764706);
  // "N/A" stderr: no figure, and a warning that names it.
  CHECK(m.count("mmlu/acc_stderr,none") == 0);
  CHECK(hasWarning(run.warnings, "no standard error (\"N/A\") for mmlu/acc_stderr,none"));
  // n-samples: effective is the n behind the score (limit 500 on arc_easy).
  CHECK(m.at("gsm8k/n_samples") == 1319);
  CHECK(m.at("arc_easy/n_samples") == 500);
  CHECK(m.at("arc_easy/n_samples_original") == 2376);
  CHECK(m.count("mmlu/n_samples") == 0);
  CHECK(hasWarning(run.warnings, "no n-samples for mmlu"));
  // Orientation, shots, versions and the configuration as setup.
  CHECK(run.setup.at("higher_is_better/gsm8k/exact_match") == "true");
  CHECK(run.setup.at("n-shot/gsm8k") == "5");
  CHECK(run.setup.at("version/gsm8k") == "3");
  CHECK(run.setup.at("config/model") == "vllm");
  CHECK(run.setup.at("config/limit") == "500");
  CHECK(
      run.setup.at("config/model_args").rfind("pretrained=meta-llama/Llama-3.1-8B-Instruct,", 0) ==
      0);
  CHECK(run.setup.at("lm_eval_version") == "0.4.3");
  CHECK(run.setup.at("git_hash") == "8d1a6e3");
  // Structures the import does not use are named.
  CHECK(hasWarning(run.warnings, "configs"));
  CHECK(hasWarning(run.warnings, "group_subtasks"));
}

TEST_CASE("lm-eval results without model_name: label from model_args", "[import]") {
  auto r = importBytes(R"({"results": {"hellaswag": {"acc,none": 0.6, "acc_stderr,none": 0.005}},
      "versions": {"hellaswag": 1.0},
      "config": {"model": "hf", "model_args": "dtype=bfloat16,pretrained=org/model-x"}})",
                       "r.json");
  REQUIRE(r.ok());
  CHECK(r->runs[0].label == "org/model-x");
  CHECK(r->runs[0].metrics.at("hellaswag/acc,none") == 0.6);
  CHECK(r->runs[0].metrics.at("hellaswag/acc_stderr,none") == 0.005);
}
