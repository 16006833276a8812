// Imported runs become measured metrics of candidates; recovery is derived per task.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/frontier_analysis.hpp>
#include <quantfront/core/import/importers.hpp>
#include <quantfront/core/session/attach_runs.hpp>
#include <quantfront/core/session/session.hpp>

#include "support/find_by_key.hpp"
#include "support/serving_runs.hpp"

using namespace qf;

namespace {

const std::string kE2e = std::string(QF_TEST_DATA_DIR) + "/import/e2e";
constexpr double kZ = 1.959963984540054;

nlohmann::json readJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

/// Imports the files into a new session and returns it with the reports' digests.
Session importAll(const std::vector<std::string>& files, std::vector<std::string>& digests) {
  Session s;
  for (const auto& f : files) {
    auto rep = importFile(f);
    REQUIRE(rep.ok());
    digests.push_back(rep->sha256);
    mergeImport(s, *rep);
  }
  return s;
}

std::vector<std::string> e2eFiles() {
  std::vector<std::string> files;
  for (const char* tag : {"bf16", "fp8", "w4a16"}) {
    files.push_back(kE2e + "/vllm_serve_" + tag + ".json");
    files.push_back(kE2e + "/lm_eval_results_" + tag + ".json");
  }
  return files;
}

const Candidate& byId(const Session& s, const std::string& id) {
  return qf::testing::byKey(s.candidates, &Candidate::id, id, "candidate");
}

}  // namespace

TEST_CASE("scheme hints and catalog models from checkpoint names", "[session][attach]") {
  CHECK(schemeFromName("neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8").scheme == "w8a8-fp8");
  CHECK(schemeFromName("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16").scheme ==
        "w4a16-g128");
  CHECK(schemeFromName("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8").scheme == "w8a8-int8");
  CHECK(schemeFromName("TheBloke/Llama-2-7B-GPTQ").scheme == "w4a16-g128");
  CHECK(schemeFromName("x/model-w8a8-FP8").scheme == "w8a8-fp8");
  const SchemeHint none = schemeFromName("meta-llama/Llama-3.1-8B-Instruct");
  CHECK(none.scheme.empty());
  CHECK_FALSE(none.ambiguous);
  const SchemeHint both = schemeFromName("org/model-FP8-w4a16");
  CHECK(both.scheme.empty());
  CHECK(both.ambiguous);
  CHECK(both.matched.size() == 2);
  // "fp8" inside a word is not a hint.
  CHECK(schemeFromName("org/fp8ish-model").scheme.empty());

  CHECK(catalogModelFromName("neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8") == "llama-3.1-8b");
  CHECK(catalogModelFromName("meta-llama/Llama-3.1-70B-Instruct") == "llama-3.1-70b");
  CHECK(catalogModelFromName("meta-llama/Meta-Llama-3-8B") == "llama-3-8b");
  CHECK(catalogModelFromName("Qwen/Qwen2.5-7B-Instruct") == "qwen2.5-7b");
  CHECK(catalogModelFromName("org/llama-3.1-8bx").empty());
  CHECK(catalogModelFromName("someone/unknown-model").empty());
}

TEST_CASE("vLLM and lm-eval files for three checkpoints become three candidates",
          "[session][attach]") {
  std::vector<std::string> digests;
  Session s = importAll(e2eFiles(), digests);
  REQUIRE(s.importedRuns.size() == 6);
  AttachOptions opts;
  opts.runDigests = digests;
  opts.gpu = "h100-sxm";
  auto rep = attachRunsToCandidates(s, opts);
  REQUIRE(rep.ok());
  REQUIRE(rep->created.size() == 3);
  CHECK(rep->updated.empty());
  REQUIRE(s.candidates.size() == 3);

  const std::map<std::string, std::string> expectScheme = {
      {"bf16", "bf16"}, {"fp8", "w8a8-fp8"}, {"w4a16", "w4a16-g128"}};
  std::map<std::string, std::string> idOf;  // tag → candidate id (the model name in the files)
  for (const auto& [tag, scheme] : expectScheme) {
    const auto lm = readJson(kE2e + "/lm_eval_results_" + tag + ".json");
    const std::string model = lm.at("model_name");
    idOf[tag] = model;
    const Candidate& c = byId(s, model);
    INFO(model);
    CHECK(c.model == "llama-3.1-8b");
    CHECK(c.schemeLinear == scheme);
    CHECK(c.gpu == "h100-sxm");
    CHECK(c.gpuCount == 1);

    // The lm-eval score: the strict-match filter, with a 95% interval from its stderr.
    const auto& g = lm.at("results").at("gsm8k");
    const double score = g.at("exact_match,strict-match");
    const double se = g.at("exact_match_stderr,strict-match");
    const MetricValue& em = c.metrics.at("gsm8k_exact_match");
    CHECK(em.value == score);
    REQUIRE(em.lo.has_value());
    CHECK(*em.lo == Approx(score - kZ * se));
    CHECK(*em.hi == Approx(score + kZ * se));
    CHECK(em.n == 1319);
    CHECK(em.provenance.kind == ProvenanceKind::Measured);
    CHECK(em.provenance.sourceFile == kE2e + "/lm_eval_results_" + tag + ".json");
    CHECK(em.provenance.sha256.size() == 64);
    CHECK(em.provenance.note.find("strict-match") != std::string::npos);

    // The serving summary, with bootstrap intervals on the percentiles.
    const auto serve = readJson(kE2e + "/vllm_serve_" + tag + ".json");
    const MetricValue& p99 = c.metrics.at("tpot_p99_ms");
    CHECK(p99.value == Approx(serve.at("p99_tpot_ms").get<double>()));
    REQUIRE(p99.lo.has_value());
    CHECK(*p99.lo <= p99.value);
    CHECK(*p99.hi >= p99.value);
    CHECK(*p99.lo < *p99.hi);
    CHECK(p99.n == 24);
    CHECK(p99.provenance.note.find("bootstrap") != std::string::npos);
    CHECK(c.metrics.at("output_throughput_tok_s").value ==
          Approx(serve.at("output_throughput").get<double>()));
    CHECK(c.metrics.count("completed") == 0);  // bookkeeping is not a candidate metric
    CHECK(c.metrics.count("duration_s") == 0);

    // Modelled figures filled as for any candidate.
    REQUIRE(c.metrics.count("step_ms_b1") == 1);
    CHECK(c.metrics.at("step_ms_b1").provenance.kind == ProvenanceKind::Modelled);
  }

  // Recovery against the bf16 candidate of the same model, with the delta-method interval.
  const Candidate& base = byId(s, idOf["bf16"]);
  const Candidate& fp8 = byId(s, idOf["fp8"]);
  const MetricValue& b = base.metrics.at("gsm8k_exact_match");
  const MetricValue& a = fp8.metrics.at("gsm8k_exact_match");
  const MetricValue& r = fp8.metrics.at("gsm8k_recovery_pct");
  CHECK(r.value == Approx(100 * a.value / b.value));
  const double seA = (*a.hi - a.value) / kZ, seB = (*b.hi - b.value) / kZ;
  const double seR = r.value * std::sqrt(std::pow(seA / a.value, 2) + std::pow(seB / b.value, 2));
  REQUIRE(r.lo.has_value());
  CHECK(*r.lo == Approx(r.value - kZ * seR));
  CHECK(*r.hi == Approx(r.value + kZ * seR));
  CHECK(isDerivedFigure(r.provenance));
  CHECK(r.provenance.kind == ProvenanceKind::Measured);
  CHECK(base.metrics.at("gsm8k_recovery_pct").value == 100);
  CHECK_FALSE(base.metrics.at("gsm8k_recovery_pct").lo.has_value());
  CHECK(rep->recoveryDerived == 3);

  // Objectives saved for the session: measured quality and serving latency.
  REQUIRE(s.view.objectives.size() == 2);
  CHECK(s.view.objectives[0].metric == "gsm8k_exact_match");
  CHECK(s.view.objectives[0].direction == Direction::Max);
  CHECK(s.view.objectives[1].metric == "tpot_p99_ms");
  CHECK(s.view.objectives[1].direction == Direction::Min);

  // The session saves and loads back.
  auto back = parseSessionText(sessionToText(s), "attached.json");
  REQUIRE(back.ok());
  CHECK(back->candidates.size() == 3);

  // Attaching again is idempotent.
  Session again = s;
  auto rep2 = attachRunsToCandidates(again, opts);
  REQUIRE(rep2.ok());
  CHECK(rep2->created.empty());
  CHECK(rep2->updated.size() == 3);
  CHECK(sessionToJson(again) == sessionToJson(s));
}

TEST_CASE("a named candidate takes every run of the files", "[session][attach]") {
  std::vector<std::string> digests;
  Session s = importAll({std::string(QF_TEST_DATA_DIR) + "/import/gsm8k_eval.json"}, digests);
  // A file that names no model: skipped with a warning without --candidate or --model.
  AttachOptions plain;
  plain.runDigests = digests;
  auto skipped = attachRunsToCandidates(s, plain);
  REQUIRE(skipped.ok());
  CHECK(s.candidates.empty());
  REQUIRE(skipped->warnings.size() == 1);
  CHECK(skipped->warnings[0].find("names no model") != std::string::npos);

  AttachOptions opts;
  opts.runDigests = digests;
  opts.candidateId = "mine";
  opts.model = "llama-3.1-8b";
  opts.scheme = "w4a16-g128";
  opts.gpu = "a100-80gb";
  opts.gpuCount = 2;
  auto rep = attachRunsToCandidates(s, opts);
  REQUIRE(rep.ok());
  REQUIRE(s.candidates.size() == 1);
  const Candidate& c = s.candidates.front();
  CHECK(c.id == "mine");
  CHECK(c.model == "llama-3.1-8b");
  CHECK(c.schemeLinear == "w4a16-g128");
  CHECK(c.gpu == "a100-80gb");
  CHECK(c.gpuCount == 2);
  const auto file = readJson(std::string(QF_TEST_DATA_DIR) + "/import/gsm8k_eval.json");
  REQUIRE(c.metrics.count("gsm8k_accuracy") == 1);
  CHECK(c.metrics.at("gsm8k_accuracy").value == file.at("accuracy").get<double>());
  CHECK(c.metrics.count("step_ms_b1") == 1);
}

TEST_CASE("a model name hinting at two schemes needs --scheme", "[session][attach]") {
  Session s;
  ImportedRun run = qf::testing::servingRun("vllm-serve", "serve.json", 'a');
  run.setup["model_id"] = "org/Llama-3.1-8B-FP8-w4a16";
  run.metrics["tpot_p99_ms"] = 9;
  s.importedRuns.push_back(run);
  auto r = attachRunsToCandidates(s, {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().field == "scheme");
  CHECK(r.error().message.find("fp8, w4a16") != std::string::npos);
  AttachOptions opts;
  opts.scheme = "w8a8-fp8";
  auto ok = attachRunsToCandidates(s, opts);
  REQUIRE(ok.ok());
  REQUIRE(s.candidates.size() == 1);
  CHECK(s.candidates[0].schemeLinear == "w8a8-fp8");
  CHECK(s.candidates[0].metrics.at("tpot_p99_ms").value == 9);
}

TEST_CASE("a request-rate sweep gives its candidate the lowest load's serving figures",
          "[session][attach]") {
  const std::string dir = std::string(QF_TEST_DATA_DIR) + "/import/sweep";
  std::vector<std::string> files;
  // Highest load first on purpose: the order of the files does not decide.
  for (const char* rate : {"inf", "16", "8", "4", "2", "1"}) {
    files.push_back(dir + "/vllm_serve_fp8_rate" + rate + ".json");
  }
  std::vector<std::string> digests;
  Session s = importAll(files, digests);
  AttachOptions opts;
  opts.candidateId = "fp8";
  opts.gpu = "h100-sxm";
  auto rep = attachRunsToCandidates(s, opts);
  REQUIRE(rep.ok());
  const Candidate& c = byId(s, "fp8");
  // The rate-1 file's own figures, read independently.
  const auto doc = readJson(dir + "/vllm_serve_fp8_rate1.json");
  CHECK(c.metrics.at("tpot_p99_ms").value == Approx(doc["p99_tpot_ms"].get<double>()));
  CHECK(c.metrics.at("ttft_median_ms").value == Approx(doc["median_ttft_ms"].get<double>()));
  CHECK(c.metrics.at("output_throughput_tok_s").value ==
        Approx(doc["output_throughput"].get<double>()));
  CHECK(c.metrics.at("tpot_p99_ms").provenance.sourceFile == files.back());
  // One note for the sweep, no per-metric overwrite warnings.
  const auto note = std::find_if(rep->notes.begin(), rep->notes.end(), [](const std::string& n) {
    return n.find("a sweep of 6 serving runs") != std::string::npos;
  });
  REQUIRE(note != rep->notes.end());
  CHECK(note->find("vllm_serve_fp8_rate1.json, 1 req/s") != std::string::npos);
  for (const auto& w : rep->warnings) CHECK(w.find("given by both") == std::string::npos);
  // Every run records the candidate.
  for (const auto& r : s.importedRuns) CHECK(r.setup.at(kCandidateSetupKey) == "fp8");
}

TEST_CASE("attach follows a run's kind, not its format's name", "[session][attach]") {
  // A serving run of a format this code has never heard of reaches its candidate...
  Session s;
  ImportedRun run = qf::testing::servingRun("some-new-serving-tool", "new.json", 'b');
  run.label = "meta-llama/Llama-3.1-8B-Instruct";
  run.metrics["tpot_p99_ms"] = 11;
  s.importedRuns.push_back(run);
  // ...and a run named like a serving format but holding kernel timings does not.
  ImportedRun kernels = run;
  kernels.format = "vllm-serve";
  kernels.kind = qf::RunKind::Kernels;
  kernels.sha256 = std::string(64, 'c');
  kernels.metrics["tpot_p99_ms"] = 99;
  s.importedRuns.push_back(kernels);
  auto rep = attachRunsToCandidates(s, {});
  REQUIRE(rep.ok());
  REQUIRE(s.candidates.size() == 1);
  const auto& m = s.candidates[0].metrics;
  REQUIRE(m.count("tpot_p99_ms") == 1);
  CHECK(m.at("tpot_p99_ms").value == 11);
  CHECK(m.at("tpot_p99_ms").provenance.sourceFile == "new.json");
}

TEST_CASE("a run whose requests all failed gives its candidate no figure, not a 0 tok/s",
          "[session][attach]") {
  const std::string sweep = std::string(QF_TEST_DATA_DIR) + "/import/sweep";
  const std::string failed = std::string(QF_TEST_DATA_DIR) + "/import/vllm_serve_all_failed_8.json";
  // Alone: the candidate is made (the user asked for the run) but measures nothing.
  {
    std::vector<std::string> digests;
    Session s = importAll({failed}, digests);
    REQUIRE(allRequestsFailed(s.importedRuns.at(0)));
    CHECK(failedRunText(s.importedRuns.at(0)) == "all 8 requests failed");
    auto rep = attachRunsToCandidates(s, {});
    REQUIRE(rep.ok());
    REQUIRE(s.candidates.size() == 1);
    for (const auto& [name, m] : s.candidates[0].metrics) {
      INFO(name);
      CHECK(m.provenance.kind != ProvenanceKind::Measured);
    }
    CHECK(rep->metricsAttached == 0);
    const bool warned = std::any_of(rep->warnings.begin(), rep->warnings.end(), [](const auto& w) {
      return w.find("all 8 requests failed: no figures attached") != std::string::npos;
    });
    CHECK(warned);
    CHECK(s.importedRuns[0].setup.at(kCandidateSetupKey) == s.candidates[0].id);
  }
  // At the lowest load of a sweep (4 req/s, below the file's 8): the 8 req/s run's figures
  // stay, the sweep's note names that run.
  {
    std::vector<std::string> digests;
    Session s = importAll({sweep + "/vllm_serve_fp8_rate8.json", failed}, digests);
    AttachOptions opts;
    opts.candidateId = "fp8";
    opts.allowModelMismatch = true;
    auto rep = attachRunsToCandidates(s, opts);
    REQUIRE(rep.ok());
    const Candidate& c = byId(s, "fp8");
    const auto doc = readJson(sweep + "/vllm_serve_fp8_rate8.json");
    CHECK(c.metrics.at("output_throughput_tok_s").value ==
          Approx(doc["output_throughput"].get<double>()));
    CHECK(c.metrics.at("output_throughput_tok_s").value > 0);
    CHECK(c.metrics.at("request_throughput_req_s").provenance.sourceFile ==
          sweep + "/vllm_serve_fp8_rate8.json");
    for (const auto& n : rep->notes) CHECK(n.find("a sweep of") == std::string::npos);
  }
}

TEST_CASE("the candidate a run names: its model and scheme, and only when one matches",
          "[session][attach]") {
  auto cand = [](const std::string& id, const std::string& model, const std::string& scheme) {
    Candidate c;
    c.id = id;
    c.model = model;
    c.schemeLinear = scheme;
    return c;
  };
  std::vector<Candidate> cands = {cand("8b-bf16", "llama-3.1-8b", "bf16"),
                                  cand("8b-fp8", "llama-3.1-8b", "w8a8-fp8"),
                                  cand("70b-fp8", "llama-3.1-70b", "w8a8-fp8")};
  auto run = [](const std::string& model) {
    ImportedRun r;
    r.kind = RunKind::Serving;
    r.setup["model_id"] = model;
    return r;
  };
  CHECK(matchingCandidate(run("neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8"), cands) == "8b-fp8");
  CHECK(matchingCandidate(run("meta-llama/Llama-3.1-70B-Instruct-FP8"), cands) == "70b-fp8");
  // No hint in the name: the bf16 candidate of that model.
  CHECK(matchingCandidate(run("meta-llama/Meta-Llama-3.1-8B-Instruct"), cands) == "8b-bf16");
  // No candidate of that model or scheme, an unknown model, no name: no guess.
  CHECK(matchingCandidate(run("neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w4a16"), cands)
            .empty());
  CHECK(matchingCandidate(run("someone/unknown-model-7b"), cands).empty());
  CHECK(matchingCandidate(ImportedRun{}, cands).empty());
  // Two candidates of that model and scheme: no guess either.
  cands.push_back(cand("8b-fp8-b", "llama-3.1-8b", "w8a8-fp8"));
  CHECK(matchingCandidate(run("neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8"), cands).empty());
}
