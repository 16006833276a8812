// The import registry: every format declares what its runs are, and every run carries it.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include <quantfront/core/base/kernels.hpp>
#include <quantfront/core/import/importers.hpp>

using namespace qf;

namespace {

std::string fixture(const std::string& name) {
  return std::string(QF_TEST_DATA_DIR) + "/import/" + name;
}

}  // namespace

TEST_CASE("every import format declares a run kind and the tool that writes it",
          "[import][registry]") {
  const auto formats = importFormats();
  REQUIRE(formats.size() == 9);  // formats.def's lines
  std::set<std::string> names;
  for (const auto& f : formats) {
    INFO(f.name);
    CHECK(names.insert(f.name).second);  // one reader per name
    CHECK(f.kind != RunKind::Unknown);
    CHECK_FALSE(f.tool.empty());
    CHECK(runKindOfFormat(f.name) == f.kind);
  }
  CHECK(runKindOfFormat("no-such-format") == RunKind::Unknown);
  CHECK(runKindOfFormat(kMeasureRunFormat) == RunKind::Kernels);
  CHECK(toolOfFormat("lm-eval-results") == "lm-evaluation-harness");
  CHECK(toolOfFormat("no-such-format") == "no-such-format");
}

TEST_CASE("imported runs carry their format's kind", "[import][registry]") {
  struct Case {
    const char* file;
    const char* format;
    RunKind kind;
  };
  // What each tool's file is (docs/architecture.md, "Run kinds").
  const Case cases[] = {
      {"vllm_serve_2024.json", "vllm-serve", RunKind::Serving},
      {"sglang_serving.jsonl", "sglang-serving", RunKind::Serving},
      {"vllm_latency.json", "vllm-latency", RunKind::Latency},
      {"sglang_one_batch.jsonl", "sglang-one-batch", RunKind::DecodeSweep},
      {"lm_eval_results.json", "lm-eval-results", RunKind::EvalResults},
      {"gsm8k_eval.json", "gsm8k-eval", RunKind::EvalResults},
      {"nvbench_axes.json", "nvbench", RunKind::Kernels},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    auto rep = importFile(fixture(c.file));
    REQUIRE(rep.ok());
    CHECK(rep->format == c.format);
    REQUIRE_FALSE(rep->runs.empty());
    for (const auto& run : rep->runs) {
      CHECK(run.kind == c.kind);
      CHECK(run.format == c.format);
    }
  }
  CHECK(std::string(runKindName(RunKind::DecodeSweep)) == "decode-sweep");
  CHECK(givesCandidateMetrics(RunKind::Latency));
  CHECK(givesCandidateMetrics(RunKind::EvalResults));
  CHECK_FALSE(givesCandidateMetrics(RunKind::DecodeSweep));
  CHECK_FALSE(givesCandidateMetrics(RunKind::Kernels));
  CHECK_FALSE(isTimedRun(RunKind::EvalResults));
}
