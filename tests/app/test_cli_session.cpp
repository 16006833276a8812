// qfront import's model-mismatch refusal and qfront session: detach, remove, rename, hide.
#include <catch2/catch.hpp>

#include <algorithm>

#include <quantfront/core/session/attach_runs.hpp>
#include <quantfront/core/session/session.hpp>

#include "support/cli_run.hpp"
#include "support/temp_dir.hpp"

using namespace qf;

namespace {

const std::string kImport = std::string(QF_TEST_DATA_DIR) + "/import";
const std::string kServe8b = kImport + "/e2e/vllm_serve_bf16.json";
const std::string kEval8b = kImport + "/e2e/lm_eval_results_bf16.json";
const std::string kServeQwen = kImport + "/vllm_serve_summary.json";
const std::string kLlama = "meta-llama/Llama-3.1-8B-Instruct";

using Run = qf::testing::CliRun;
using qf::testing::fileBytes;
using qf::testing::runQfront;

Session load(const std::string& path) {
  auto s = loadSession(path);
  REQUIRE(s.ok());
  return std::move(*s);
}

std::size_t figuresFrom(const Session& s, const std::string& file) {
  std::size_t n = 0;
  for (const auto& c : s.candidates) {
    for (const auto& [name, m] : c.metrics) n += m.provenance.sourceFile == file ? 1 : 0;
  }
  return n;
}

}  // namespace

TEST_CASE("qfront import refuses a run of another model unless forced", "[session][cli]") {
  qf::testing::TempDir dir;
  const std::string path = dir.file("s.json");
  REQUIRE(runQfront({"import", kServe8b, kEval8b, "-o", path}).rc == cli::kExitOk);
  const std::string before = fileBytes(path);

  // A Qwen2.5-7B run onto the Llama-3.1-8B candidate: one line naming both, nothing written.
  const Run refused = runQfront({"import", kServeQwen, "--candidate", kLlama, "-o", path});
  CHECK(refused.rc == cli::kExitBadInput);
  CHECK(refused.out.empty());
  CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
  CHECK(refused.err.find("vllm_serve_summary.json") != std::string::npos);
  CHECK(refused.err.find("Qwen/Qwen2.5-7B-Instruct") != std::string::npos);
  CHECK(refused.err.find("'" + kLlama + "'") != std::string::npos);
  CHECK(refused.err.find("--allow-model-mismatch") != std::string::npos);
  CHECK(fileBytes(path) == before);

  // --model naming another model than the candidate's is refused the same way.
  const Run byModel = runQfront({"import", kImport + "/gsm8k_eval.json", "--candidate", kLlama,
                                 "--model", "llama-3.1-70b", "-o", path});
  CHECK(byModel.rc == cli::kExitBadInput);
  CHECK(byModel.err.find("llama-3.1-70b") != std::string::npos);
  CHECK(fileBytes(path) == before);

  const Run forced = runQfront(
      {"import", kServeQwen, "--candidate", kLlama, "--allow-model-mismatch", "-o", path});
  INFO(forced.err);
  REQUIRE(forced.rc == cli::kExitOk);
  CHECK(figuresFrom(load(path), kServeQwen) > 0);
}

TEST_CASE("qfront session: list, detach, rename, hide, remove", "[session][cli]") {
  qf::testing::TempDir dir;
  const std::string path = dir.file("s.json");
  REQUIRE(runQfront({"import", kServe8b, kEval8b, "-o", path}).rc == cli::kExitOk);
  REQUIRE(figuresFrom(load(path), kEval8b) > 0);

  const Run list = runQfront({"session", "list", path});
  REQUIRE(list.rc == cli::kExitOk);
  CHECK(list.out.find("-> " + kLlama) != std::string::npos);
  CHECK(list.out.find("lm_eval_results_bf16.json") != std::string::npos);

  // Bad input: one line, exit 2, the session untouched.
  const std::string before = fileBytes(path);
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"session", "detach", path, "nothing.json"},
           {"session", "explode", path},
           {"session", "rename", path, kLlama},
           {"session", "rename", path, kLlama, "new\nline"},
           {"session", "rename", path, kLlama, "red\x1b[31m"},
           {"session", "remove", path, "no-such-candidate"},
           {"session", "detach", dir.file("missing.json"), kEval8b}}) {
    const Run r = runQfront(args);
    INFO(args[1] << " " << r.err);
    CHECK(r.rc == cli::kExitBadInput);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(fileBytes(path) == before);
  }

  // Detach by the 12-digit SHA-256 prefix `session list` prints for the eval file (refused
  // before: only the whole digest or the file name matched).
  std::string prefix;
  for (const auto& r : load(path).importedRuns) {
    if (r.sourceFile.find("lm_eval_results_bf16.json") != std::string::npos)
      prefix = r.sha256.substr(0, 12);
  }
  REQUIRE(prefix.size() == 12);
  CHECK(list.out.find(prefix) != std::string::npos);
  // Detach by that prefix: the eval file's figures leave the candidate; the serving ones stay.
  const Run detach = runQfront({"session", "detach", path, prefix});
  INFO(detach.err);
  REQUIRE(detach.rc == cli::kExitOk);
  CHECK(detach.out.find("1 run(s) detached") != std::string::npos);
  Session s = load(path);
  CHECK(figuresFrom(s, kEval8b) == 0);
  CHECK(figuresFrom(s, kServe8b) > 0);
  CHECK(s.importedRuns.size() == 2);
  CHECK(s.candidates.front().metrics.count("gsm8k_exact_match") == 0);

  REQUIRE(runQfront({"session", "rename", path, kLlama, "llama-8b"}).rc == cli::kExitOk);
  s = load(path);
  CHECK(s.candidates.front().id == "llama-8b");
  CHECK(s.importedRuns.front().setup.at(kCandidateSetupKey) == "llama-8b");

  REQUIRE(runQfront({"session", "hide", path, "llama-8b"}).rc == cli::kExitOk);
  CHECK(load(path).view.hidden == std::vector<std::string>{"llama-8b"});
  const Run frontier = runQfront({"frontier", path});
  CHECK(frontier.err.find("1 hidden candidate(s) left out: llama-8b") != std::string::npos);
  REQUIRE(runQfront({"session", "show", path, "llama-8b"}).rc == cli::kExitOk);
  CHECK(load(path).view.hidden.empty());

  REQUIRE(runQfront({"session", "remove", path, "llama-8b"}).rc == cli::kExitOk);
  s = load(path);
  CHECK(s.candidates.empty());
  CHECK(s.importedRuns.size() == 2);
  CHECK(s.importedRuns.front().setup.count(kCandidateSetupKey) == 0);
}

TEST_CASE("qfront session refresh recomputes modelled figures and keeps the others",
          "[cli][session]") {
  qf::testing::TempDir dir;
  const std::string example = std::string(QF_RESOURCE_DIR) + "/sessions/llama-3.1-8b-70b.json";
  Session s = load(example);
  REQUIRE_FALSE(s.candidates.empty());
  // One modelled figure gone stale, one published figure that must stay as it is.
  Candidate& c = s.candidates.front();
  std::string modelledName, publishedName;
  for (auto& [name, m] : c.metrics) {
    if (m.provenance.kind == ProvenanceKind::Modelled && modelledName.empty()) modelledName = name;
    if (m.provenance.kind == ProvenanceKind::Published && publishedName.empty())
      publishedName = name;
  }
  REQUIRE_FALSE(modelledName.empty());
  REQUIRE_FALSE(publishedName.empty());
  const double fresh = c.metrics.at(modelledName).value;
  const double published = c.metrics.at(publishedName).value;
  c.metrics.at(modelledName).value = 12345;
  const std::string path = dir.file("stale.json");
  REQUIRE_FALSE(saveSessionAtomic(s, path));
  const Run r = runQfront({"session", "refresh", path});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("recomputed") != std::string::npos);
  const Session back = load(path);
  CHECK(back.candidates.front().metrics.at(modelledName).value == Approx(fresh).epsilon(1e-9));
  CHECK(back.candidates.front().metrics.at(publishedName).value == published);
  // It takes no argument after SESSION.
  CHECK(runQfront({"session", "refresh", path, "extra"}).rc == 2);
}
