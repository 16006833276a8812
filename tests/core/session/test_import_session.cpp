// The one import path both front ends use: read, merge, validate, attach; progress, cancel.
#include <catch2/catch.hpp>

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
