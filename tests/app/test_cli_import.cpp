// qfront import, in-process: summaries, deduplication, all-or-nothing on bad files.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>
#include <quantfront/core/session/import_session.hpp>
#include <quantfront/core/session/session.hpp>

#include "cli.hpp"
#include "support/temp_dir.hpp"

using namespace qf;
namespace fs = std::filesystem;

namespace {

const std::string kDir = std::string(QF_TEST_DATA_DIR) + "/session";
const std::string kBf16 = kDir + "/vllm_serve_bf16.json";
const std::string kW4 = kDir + "/vllm_serve_w4a16.json";
const std::string kBroken = kDir + "/broken_serve.json";

using qf::testing::readAll;
using qf::testing::TempDir;

struct Run {
  int rc = -1;
  std::string out;
  std::string err;
};

Run qfront(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  Run r;
  r.rc = cli::run(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace

TEST_CASE("qfront import: creates a session and summarises each file", "[session][cli]") {
  TempDir dir;
  const std::string out = dir.file("s.json");
  const Run r = qfront({"import", kBf16, kW4, "-o", out});
  INFO(r.err);
  REQUIRE(r.rc == cli::kExitOk);
  CHECK(r.err.empty());
  CHECK(r.out.find("(new)") != std::string::npos);
  CHECK(r.out.find("vllm_serve_bf16.json") != std::string::npos);
  CHECK(r.out.find("vllm-serve") != std::string::npos);
  CHECK(r.out.find("added") != std::string::npos);
  CHECK(r.out.find("saved " + out + ": 2 imported runs") != std::string::npos);

  auto s = loadSession(out);
  REQUIRE(s.ok());
  REQUIRE(s->importedRuns.size() == 2);
  for (const auto& run : s->importedRuns) {
    CHECK(run.format == "vllm-serve");
    CHECK(run.sha256.size() == 64);
    CHECK_FALSE(run.metrics.empty());
  }
  CHECK(s->importedRuns[0].sourceFile.find("vllm_serve_bf16.json") != std::string::npos);
  CHECK(s->importedRuns[0].sha256 != s->importedRuns[1].sha256);
  CHECK(dir.count() == 1);  // the session and nothing else
}

TEST_CASE("qfront import: the same file twice adds nothing", "[session][cli]") {
  TempDir dir;
  const std::string out = dir.file("s.json");
  REQUIRE(qfront({"import", kBf16, "-o", out}).rc == cli::kExitOk);
  const Run again = qfront({"import", kBf16, "--output", out, "--format", "json"});
  INFO(again.err);
  REQUIRE(again.rc == cli::kExitOk);
  const Json j = Json::parse(again.out);
  CHECK_FALSE(j.at("created").get<bool>());
  REQUIRE(j.at("files").size() == 1);
  CHECK(j["files"][0]["runs_added"] == 0);
  CHECK_FALSE(j["files"][0]["duplicate_of"].is_null());
  CHECK(j.at("imported_runs") == 1);
  auto s = loadSession(out);
  REQUIRE(s.ok());
  CHECK(s->importedRuns.size() == 1);

  // One command naming a file twice: the second is recognised too.
  const std::string out2 = dir.file("t.json");
  REQUIRE(qfront({"import", kW4, kW4, "-o", out2}).rc == cli::kExitOk);
  CHECK(loadSession(out2)->importedRuns.size() == 1);
}

TEST_CASE("qfront import: JSON summary carries format, runs, metrics and warnings",
          "[session][cli]") {
  TempDir dir;
  const Run r = qfront({"import", kW4, "-o", dir.file("s.json"), "--format=json"});
  INFO(r.err);
  REQUIRE(r.rc == cli::kExitOk);
  const Json j = Json::parse(r.out);
  CHECK(j.at("created").get<bool>());
  const Json& f = j.at("files").at(0);
  CHECK(f.at("format") == "vllm-serve");
  CHECK(f.at("runs") == 1);
  CHECK(f.at("runs_added") == 1);
  CHECK(f.at("metrics").get<int>() > 5);
  CHECK(f.at("sha256").get<std::string>().size() == 64);
  CHECK(f.at("warnings").is_array());
}

TEST_CASE("qfront import: a bad file fails the whole import and leaves the session",
          "[session][cli]") {
  TempDir dir;
  const std::string out = dir.file("s.json");
  REQUIRE(qfront({"import", kBf16, "-o", out}).rc == cli::kExitOk);
  const std::string before = readAll(out);

  const Run r = qfront({"import", kW4, kBroken, "-o", out});
  CHECK(r.rc == cli::kExitBadInput);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("qfront: ", 0) == 0);
  CHECK(r.err.find("broken_serve.json") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(readAll(out) == before);
  CHECK(dir.count() == 1);

  // A missing file, and a session that is not a session, are refused the same way.
  const Run missing = qfront({"import", dir.file("nope.json"), "-o", out});
  CHECK(missing.rc == cli::kExitBadInput);
  CHECK(missing.err.find("nope.json") != std::string::npos);
  CHECK(readAll(out) == before);

  const std::string notSession = dir.file("gpus.json");
  { std::ofstream(notSession) << R"({"format": "quantfront-gpus", "version": 1, "gpus": []})"; }
  const std::string notBefore = readAll(notSession);
  const Run wrong = qfront({"import", kW4, "-o", notSession});
  CHECK(wrong.rc == cli::kExitBadInput);
  CHECK(wrong.err.find("field 'format'") != std::string::npos);
  CHECK(readAll(notSession) == notBefore);
}

TEST_CASE("qfront import: a version-1 session is migrated and noted", "[session][cli]") {
  TempDir dir;
  const std::string out = dir.file("old.json");
  fs::copy_file(kDir + "/v1_session.json", out);
  const Run r = qfront({"import", kBf16, "-o", out});
  INFO(r.err);
  REQUIRE(r.rc == cli::kExitOk);
  CHECK(r.out.find("note: migrated from session version 1 to 2") != std::string::npos);
  auto s = loadSession(out);
  REQUIRE(s.ok());
  CHECK(s->loadedVersion == 2);
  CHECK(s->importedRuns.size() == 2);
  // The session's three candidates, plus one for the model the imported file names.
  REQUIRE(s->candidates.size() == 4);
  CHECK(s->candidates.back().id == "meta-llama/Llama-3.1-8B-Instruct");
  CHECK(s->candidates.back().metrics.count("tpot_p99_ms") == 1);
}

TEST_CASE("qfront import: a newer session is refused, untouched", "[session][cli]") {
  TempDir dir;
  const std::string out = dir.file("new.json");
  fs::copy_file(kDir + "/newer_version.json", out);
  const std::string before = readAll(out);
  const Run r = qfront({"import", kBf16, "-o", out});
  CHECK(r.rc == cli::kExitBadInput);
  CHECK(r.err.find("written by a newer QuantFront (version 3)") != std::string::npos);
  CHECK(readAll(out) == before);
}

TEST_CASE("qfront import: arguments", "[session][cli]") {
  const Run help = qfront({"import", "--help"});
  CHECK(help.rc == cli::kExitOk);

  const Run noOut = qfront({"import", kBf16});
  CHECK(noOut.rc == cli::kExitBadInput);
  CHECK(noOut.err.find("field 'output'") != std::string::npos);

  TempDir dir;
  const Run noFiles = qfront({"import", "-o", dir.file("s.json")});
  CHECK(noFiles.rc == cli::kExitBadInput);
  CHECK(noFiles.err.find("FILE") != std::string::npos);

  const Run badFormat = qfront({"import", kBf16, "-o", dir.file("s.json"), "--format", "xml"});
  CHECK(badFormat.rc == cli::kExitBadInput);
  CHECK(badFormat.err.find("field 'format'") != std::string::npos);

  const Run unknown = qfront({"import", kBf16, "-o", dir.file("s.json"), "--frobnicate"});
  CHECK(unknown.rc == cli::kExitBadInput);
  CHECK(unknown.err.find("--frobnicate") != std::string::npos);

  const Run dangling = qfront({"import", kBf16, "-o"});
  CHECK(dangling.rc == cli::kExitBadInput);
  CHECK(dir.count() == 0);  // none of the refused commands wrote anything
}

TEST_CASE("qfront import then frontier: measured quality and latency of three checkpoints",
          "[session][cli][frontier]") {
  TempDir dir;
  const std::string out = dir.file("e2e.json");
  const std::string e2e = std::string(QF_TEST_DATA_DIR) + "/import/e2e";
  std::vector<std::string> args = {"import"};
  for (const char* tag : {"bf16", "fp8", "w4a16"}) {
    args.push_back(e2e + "/vllm_serve_" + tag + ".json");
    args.push_back(e2e + "/lm_eval_results_" + tag + ".json");
  }
  args.insert(args.end(), {"-o", out, "--gpu", "h100-sxm", "--format", "json"});
  const Run r = qfront(args);
  INFO(r.err);
  REQUIRE(r.rc == cli::kExitOk);
  const auto summary = nlohmann::json::parse(r.out);
  CHECK(summary.at("candidates_created").size() == 3);
  CHECK(summary.at("recovery_derived") == 3);

  const std::string bf16 = "meta-llama/Llama-3.1-8B-Instruct";
  const std::string fp8 = "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8";
  const std::string w4 = "neuralmagic/Meta-Llama-3.1-8B-Instruct-quantized.w4a16";
  auto s = loadSession(out);
  REQUIRE(s.ok());
  REQUIRE(s->candidates.size() == 3);
  std::map<std::string, const Candidate*> c;
  for (const auto& x : s->candidates) c[x.id] = &x;
  REQUIRE(c.count(bf16) + c.count(fp8) + c.count(w4) == 3);
  // The fixtures' premises: FP8 scores above BF16 by less than the two intervals' half-widths
  // together, and is faster; W4A16 scores lowest and is fastest.
  const auto& em = [&](const std::string& id) { return c.at(id)->metrics.at("gsm8k_exact_match"); };
  const auto& tp = [&](const std::string& id) { return c.at(id)->metrics.at("tpot_p99_ms"); };
  REQUIRE(em(fp8).value > em(bf16).value);
  REQUIRE(*em(fp8).lo < *em(bf16).hi);
  REQUIRE(*tp(fp8).hi < *tp(bf16).lo);
  REQUIRE(em(w4).value < em(fp8).value);
  REQUIRE(*tp(w4).hi < *tp(fp8).lo);

  const Run f = qfront({"frontier", out, "--format", "json"});
  INFO(f.err);
  REQUIRE(f.rc == cli::kExitOk);
  const auto j = nlohmann::json::parse(f.out);
  REQUIRE(j.at("objectives").size() == 2);
  CHECK(j.at("objectives")[0].at("metric") == "gsm8k_exact_match");
  CHECK(j.at("objectives")[0].at("readable") == "gsm8k: exact match");
  CHECK(j.at("objectives")[1].at("metric") == "tpot_p99_ms");
  CHECK(j.at("objectives")[1].at("readable") == "TPOT p99 (ms)");
  // FP8 beats BF16 on both point estimates, but the quality intervals overlap: BF16 is in the
  // uncertain band, not dominated. W4A16 trades quality for latency: on the frontier.
  CHECK(j.at("frontier") == nlohmann::json({fp8, w4}));
  CHECK(j.at("uncertain") == nlohmann::json({bf16}));
  CHECK(j.at("gated_out").empty());

  // The table names the objectives readably.
  const Run t = qfront({"frontier", out});
  REQUIRE(t.rc == cli::kExitOk);
  CHECK(t.out.find("objectives: gsm8k: exact match [gsm8k_exact_match] (max), TPOT p99 (ms) "
                   "[tpot_p99_ms] (min)") != std::string::npos);

  // A recovery gate works on the derived figures (each model against its own bf16).
  const Run g = qfront({"frontier", out, "--gate", "gsm8k_recovery_pct>=99", "--format", "json"});
  REQUIRE(g.rc == cli::kExitOk);
  const auto gj = nlohmann::json::parse(g.out);
  // W4A16's recovery interval crosses 99 (so does FP8's): undecided, not failed — the
  // 1319-question intervals cannot say yet.
  CHECK(gj.at("gated_out").empty());
  bool w4Undecided = false;
  for (const auto& u : gj.at("undecided")) w4Undecided = w4Undecided || u.at("id") == w4;
  CHECK(w4Undecided);
}

TEST_CASE("qfront import: an option name is never taken as a value", "[session][cli]") {
  TempDir dir;
  const fs::path cwd = fs::current_path();
  fs::current_path(dir.path());
  const Run r = qfront({"import", kBf16, "--candidate", "-o", "-o", "s.json"});
  fs::current_path(cwd);
  CHECK(r.rc == cli::kExitBadInput);
  CHECK(r.err.find("needs a value") != std::string::npos);
  CHECK(dir.count() == 0);  // neither s.json nor a file named "-o"
  // A value that starts with '-' is given with '='.
  CHECK(qfront({"import", kBf16, "--candidate=-c", "-o", dir.file("t.json")}).rc == 0);
  CHECK(loadSession(dir.file("t.json"))->candidates.front().id == "-c");
}

TEST_CASE("qfront import: contradictory options exit 2 naming both values", "[session][cli]") {
  TempDir dir;
  const std::string s = dir.file("s.json");
  Run r = qfront({"import", kBf16, "--no-candidates", "--candidate", "c", "-o", s});
  CHECK(r.rc == cli::kExitBadInput);
  CHECK(r.err.find("--no-candidates") != std::string::npos);
  CHECK(r.err.find("'c'") != std::string::npos);
  CHECK_FALSE(fs::exists(s));

  REQUIRE(qfront({"import", kBf16, "--candidate", "c", "--model", "llama-3.1-8b", "--gpu",
                  "h100-sxm", "-o", s})
              .rc == 0);
  const std::string before = readAll(s);
  const std::vector<std::vector<std::string>> clashes = {{"--model", "llama-3.1-70b"},
                                                         {"--gpu", "a100-80gb"},
                                                         {"--gpu-count", "4"},
                                                         {"--scheme", "w8a8-fp8"}};
  for (const auto& opt : clashes) {
    r = qfront({"import", kW4, "--candidate", "c", opt[0], opt[1], "-o", s});
    INFO(opt[0] << ": " << r.err);
    CHECK(r.rc == cli::kExitBadInput);
    CHECK(r.err.find("'" + opt[1] + "'") != std::string::npos);
    CHECK(r.err.find("candidate 'c'") != std::string::npos);
    CHECK(readAll(s) == before);
  }
  // The same values are no contradiction.
  r = qfront({"import", kW4, "--candidate", "c", "--model", "llama-3.1-8b", "--gpu", "h100-sxm",
              "--gpu-count", "1", "-o", s});
  INFO(r.err);
  CHECK(r.rc == 0);
}

TEST_CASE("qfront import: candidate ids are printable and trimmed", "[session][cli]") {
  TempDir dir;
  const std::string s = dir.file("s.json");
  for (const std::string bad : {"   ", "\n", "a\nb", "\x1b[31mred\x1b[0m", "tab\there"}) {
    const Run r = qfront({"import", kBf16, "--candidate", bad, "-o", s});
    CHECK(r.rc == cli::kExitBadInput);
    CHECK(r.err.find("field 'candidate'") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  CHECK_FALSE(fs::exists(s));
  REQUIRE(qfront({"import", kBf16, "--candidate", "  mine ", "-o", s}).rc == 0);
  CHECK(loadSession(s)->candidates.front().id == "mine");
}

TEST_CASE("qfront import: a read-only session is left as it is", "[session][cli]") {
  TempDir dir;
  const std::string s = dir.file("s.json");
  REQUIRE(qfront({"import", kBf16, "-o", s}).rc == 0);
  const std::string before = readAll(s);
  fs::permissions(s, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const Run r = qfront({"import", kW4, "-o", s});
  CHECK(r.rc == cli::kExitBadInput);
  CHECK(r.err.find("read-only") != std::string::npos);
  CHECK(readAll(s) == before);
  CHECK(dir.count() == 1);
}

TEST_CASE("qfront import: warnings as core lists them, a failed run named and never a 0 figure",
          "[session][cli]") {
  TempDir dir;
  const std::string data = std::string(QF_TEST_DATA_DIR) + "/import/";
  const std::string failed = data + "vllm_serve_all_failed_8.json";
  const std::string tput = data + "vllm_throughput.json";
  const std::string out = dir.file("s.json");
  const Run r = qfront({"import", failed, tput, "-o", out});
  INFO(r.out << r.err);
  REQUIRE(r.rc == cli::kExitOk);
  // The same list the window shows: core's FileImport::warnings, word for word.
  ImportPlan plan;
  auto read = readImports({failed, tput}, plan);
  REQUIRE(read.ok());
  REQUIRE(read->at(0).warnings.size() == 1);
  for (const auto& f : *read) {
    for (const auto& w : f.warnings)
      CHECK(r.out.find("    warning: " + w + "\n") != std::string::npos);
  }
  CHECK(r.out.find("added; 1 failed run(s): every request failed, no figures; 1 warning(s)") !=
        std::string::npos);
  CHECK(r.out.find("all 8 requests failed: no figures attached") != std::string::npos);
  // No candidate carries the failed run's 0.0 throughputs as measured figures.
  auto s = loadSession(out);
  REQUIRE(s.ok());
  for (const auto& c : s->candidates) {
    for (const auto& [name, m] : c.metrics) {
      INFO(name);
      CHECK(m.provenance.sourceFile != failed);
    }
  }
  // The JSON summary counts the failed run.
  const Run j = qfront({"import", failed, "-o", dir.file("t.json"), "--format=json"});
  REQUIRE(j.rc == cli::kExitOk);
  const Json doc = Json::parse(j.out);
  CHECK(doc["files"][0]["failed_runs"] == 1);
  CHECK(doc["files"][0]["warnings"].size() == 1);
}

TEST_CASE(
    "qfront import refuses a latency run no benchmark measured, a --tp the model cannot "
    "split, and one --batch on two static-batch files",
    "[session][cli]") {
  TempDir dir;
  const std::string latency = std::string(QF_TEST_DATA_DIR) + "/import/vllm_latency.json";
  const std::vector<std::string> batch = {"--model",     "llama-3-8b", "--scheme",     "bf16",
                                          "--gpu",       "h100-sxm",   "--batch",      "8",
                                          "--input-len", "1024",       "--output-len", "128"};
  auto withArgs = [&](std::vector<std::string> args) {
    args.insert(args.end(), batch.begin(), batch.end());
    return qfront(args);
  };
  const std::string text = readAll(latency);
  for (const char* bad : {"0", "-1", "1e308", "1e-300"}) {
    CAPTURE(bad);
    auto j = nlohmann::json::parse(text);
    j["avg_latency"] = nlohmann::json::parse(bad);
    const std::string f = dir.file(std::string("lat_") + bad + ".json");
    std::ofstream(f) << j.dump();
    const std::string out = dir.file("s.json");
    const Run r = withArgs({"import", f, "-o", out, "--candidate", "c"});
    CHECK(r.rc == cli::kExitBadInput);
    CHECK(r.err.find("field 'avg_latency'") != std::string::npos);
    CHECK_FALSE(fs::exists(out));
  }
  {
    const std::string out = dir.file("tp.json");
    std::vector<std::string> args = {"import", latency, "-o", out, "--candidate", "c", "--tp", "3"};
    const Run r = withArgs(args);
    CHECK(r.rc == cli::kExitBadInput);
    CHECK(r.err.find("tensor-parallel degree 3 does not split") != std::string::npos);
    CHECK_FALSE(fs::exists(out));
  }
  {
    const std::string copy = dir.file("second_latency.json");
    std::ofstream(copy) << text;
    const std::string out = dir.file("two.json");
    const Run r = withArgs({"import", latency, copy, "-o", out, "--candidate", "c"});
    CHECK(r.rc == cli::kExitBadInput);
    CHECK(r.err.find("describe one static batch") != std::string::npos);
    CHECK_FALSE(fs::exists(out));
  }
}
