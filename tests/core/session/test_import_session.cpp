// The one import path both front ends use: read, merge, validate, attach; progress, cancel.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <quantfront/core/session/import_session.hpp>

using namespace qf;

namespace {

std::string fixture(const std::string& name) {
  return std::string(QF_TEST_DATA_DIR) + "/import/" + name;
}

}  // namespace

TEST_CASE("all or nothing: one bad file refuses every file and leaves the session",
          "[session][import]") {
  Session s;
  ImportPlan plan;  // qfront import's
  auto r =
      importIntoSession(s, {fixture("vllm_latency.json"), fixture("bad_type_serve.json")}, plan);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().file == fixture("bad_type_serve.json"));
  CHECK_FALSE(r.error().isCancelled());
  CHECK(s.importedRuns.empty());
}

TEST_CASE("file by file: a bad file is reported, the good ones are merged", "[session][import]") {
  Session s;
  ImportPlan plan;  // the window's
  plan.allOrNothing = false;
  plan.validateEach = true;
  auto r = importIntoSession(
      s,
      {fixture("vllm_latency.json"), fixture("bad_type_serve.json"), fixture("vllm_latency.json")},
      plan);
  REQUIRE(r.ok());
  REQUIRE(r->files.size() == 3);
  CHECK(r->files[0].report.has_value());
  CHECK(r->files[0].merge.runsAdded == 1);
  CHECK_FALSE(r->files[1].report.has_value());
  REQUIRE(r->files[1].error.has_value());
  CHECK(r->files[1].error->file == fixture("bad_type_serve.json"));
  // The same content again adds nothing.
  CHECK(r->files[2].merge.duplicate);
  CHECK(r->files[2].merge.runsAdded == 0);
  CHECK(r->runsAdded() == 1);
  REQUIRE(s.importedRuns.size() == 1);
  CHECK(s.importedRuns[0].kind == RunKind::Latency);
  CHECK_FALSE(r->attach.has_value());
}

TEST_CASE("progress rises to 1 over the files and cancelling leaves the session",
          "[session][import]") {
  const std::vector<std::string> files = {fixture("vllm_latency.json"), fixture("gsm8k_eval.json")};
  Session s;
  ImportPlan plan;
  std::vector<double> seen;
  plan.progress = [&](double f, const std::string&) {
    seen.push_back(f);
    return true;
  };
  auto r = importIntoSession(s, files, plan);
  REQUIRE(r.ok());
  REQUIRE(seen.size() >= 3);
  CHECK(seen.front() == 0.0);
  CHECK(seen.back() == 1.0);
  for (std::size_t i = 1; i < seen.size(); ++i) CHECK(seen[i] >= seen[i - 1]);
  CHECK(s.importedRuns.size() == 2);

  Session t;
  int calls = 0;
  plan.progress = [&](double, const std::string&) { return ++calls < 3; };  // stop mid-way
  auto cancelled = importIntoSession(t, files, plan);
  REQUIRE_FALSE(cancelled.ok());
  CHECK(cancelled.error().isCancelled());
  CHECK(t.importedRuns.empty());
}

TEST_CASE("a plan that attaches makes candidates of the files' runs", "[session][import]") {
  Session s;
  ImportPlan plan;
  plan.attach = AttachOptions{};
  plan.attach->gpu = "h100-sxm";
  auto r = importIntoSession(
      s, {fixture("e2e/vllm_serve_bf16.json"), fixture("e2e/lm_eval_results_bf16.json")}, plan);
  REQUIRE(r.ok());
  REQUIRE(r->attach.has_value());
  CHECK(r->attach->metricsAttached > 0);
  REQUIRE_FALSE(s.candidates.empty());
  // Every run the files gave now names the candidate it feeds.
  for (const auto& run : s.importedRuns) CHECK(run.setup.count(kCandidateSetupKey) == 1);
}

TEST_CASE("one list of warnings per file, kept with its runs, and failed runs counted",
          "[session][import]") {
  Session s;
  ImportPlan plan;  // the window's
  plan.allOrNothing = false;
  plan.validateEach = true;
  auto r = importIntoSession(
      s, {fixture("vllm_serve_append.json"), fixture("vllm_serve_all_failed_8.json")}, plan);
  REQUIRE(r.ok());
  REQUIRE(r->files.size() == 2);
  REQUIRE(s.importedRuns.size() == 3);

  // Two runs and a line skipped: the file's warning once, then each run's own, prefixed.
  const FileImport& append = r->files[0];
  REQUIRE(append.report->warnings.size() == 1);
  const std::string skipped = append.report->warnings[0];
  CHECK(skipped.find("line 3") != std::string::npos);
  REQUIRE_FALSE(append.warnings.empty());
  CHECK(append.warnings.front() == skipped);
  CHECK(std::count(append.warnings.begin(), append.warnings.end(), skipped) == 1);
  std::size_t own = 0;
  for (std::size_t i = 0; i < 2; ++i) {
    const ImportedRun& run = s.importedRuns[i];
    // The session keeps the file's warning with each of its runs, first.
    REQUIRE_FALSE(run.warnings.empty());
    CHECK(run.warnings.front() == skipped);
    own += run.warnings.size() - 1;
    for (std::size_t k = 1; k < run.warnings.size(); ++k) {
      const std::string prefixed =
          "run " + std::to_string(i + 1) + " (" + run.label + "): " + run.warnings[k];
      CHECK(std::count(append.warnings.begin(), append.warnings.end(), prefixed) == 1);
    }
  }
  CHECK(append.warnings.size() == 1 + own);
  CHECK(append.failedRuns == 0);

  // One run: the file's list is the run's, word for word, and the run is counted as failed.
  const FileImport& failed = r->files[1];
  CHECK(failed.failedRuns == 1);
  CHECK(failed.warnings == s.importedRuns[2].warnings);
  REQUIRE(failed.warnings.size() == 1);
  CHECK(failed.warnings[0].rfind("all 8 requests failed", 0) == 0);
  CHECK(allRequestsFailed(s.importedRuns[2]));
  CHECK_FALSE(allRequestsFailed(s.importedRuns[0]));
}
