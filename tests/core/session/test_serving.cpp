// Serving sweeps: runs grouped by the candidate the attach recorded, ordered by offered load,
// with percentiles, intervals and generated length checked against hand-computed figures.
#include <catch2/catch.hpp>

#include <algorithm>

#include <cmath>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>
#include <quantfront/core/import/importers.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/model/serving_model.hpp>
#include <quantfront/core/session/attach_runs.hpp>
#include <quantfront/core/session/serving.hpp>
#include <quantfront/core/session/session.hpp>

#include "support/find_by_key.hpp"
#include "support/serving_runs.hpp"

using namespace qf;

namespace {

const std::string kE2e = std::string(QF_TEST_DATA_DIR) + "/import/e2e";

RequestRecord request(double ttft, double latency, std::int64_t outputLen, bool success = true) {
  RequestRecord r;
  r.ttftS = ttft;
  r.latencyS = latency;
  r.inputLen = 100;
  r.outputLen = outputLen;
  r.success = success;
  return r;
}

/// Seven successful requests and one failure. TTFT 0.1..0.7 s; TPOT (latency − ttft)/(len − 1)
/// of 10, 20, 15, 30, 25, 12 and 50 ms; output lengths 11, 21, 5, 41, 11, 101, 3.
ImportedRun handRun() {
  ImportedRun run = qf::testing::servingRun("vllm-serve", "hand.json", '1');
  run.setup["model_id"] = "org/hand-model";
  run.setup["request_rate"] = "2";
  run.setup["max_concurrency"] = "none";
  run.metrics["request_throughput_req_s"] = 1.9;
  run.metrics["output_throughput_tok_s"] = 250;
  run.metrics["max_concurrent_requests"] = 3;
  run.requests = {
      request(0.10, 0.10 + 0.010 * 10, 11), request(0.30, 0.30 + 0.020 * 20, 21),
      request(0.20, 0.20 + 0.015 * 4, 5),   request(0.50, 0.50 + 0.030 * 40, 41),
      request(0.40, 0.40 + 0.025 * 10, 11), request(0.70, 0.70 + 0.012 * 100, 101),
      request(0.60, 0.60 + 0.050 * 2, 3),   request(0.0, 0.0, 0, false),
  };
  return run;
}

/// A summary-only run (no per-request records) at the given load.
ImportedRun sweepRun(const std::string& file, const std::string& candidate, const std::string& rate,
                     double outTokS, const std::string& concurrency = "none") {
  ImportedRun run = qf::testing::servingRun("vllm-serve", file, 'f');
  if (!candidate.empty()) run.setup[kCandidateSetupKey] = candidate;
  run.setup["request_rate"] = rate;
  run.setup["max_concurrency"] = concurrency;
  run.metrics["output_throughput_tok_s"] = outTokS;
  run.metrics["request_throughput_req_s"] = outTokS / 100;
  run.metrics["ttft_p99_ms"] = 50;
  run.metrics["tpot_p99_ms"] = 10;
  run.metrics["total_output_tokens"] = 1000;
  run.metrics["completed"] = 10;
  return run;
}

const ServingGroup& groupOf(const ServingSweeps& sw, const std::string& key) {
  return qf::testing::byKey(sw.groups, &ServingGroup::key, key, "group");
}

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines) {
    if (l.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a serving point: numpy-linear percentiles, intervals, generated length",
          "[session][serving]") {
  std::vector<std::string> warnings;
  auto p = servingPoint(handRun(), {}, warnings);
  REQUIRE(p.ok());
  CHECK(p->load.kind == LoadKind::RequestRate);
  CHECK(p->load.value == 2);
  CHECK_FALSE(p->load.maxConcurrency.has_value());
  CHECK(offeredLoadText(p->load) == "2 req/s");
  CHECK(*p->outputThroughputTokS == 250);
  CHECK(*p->requestThroughputReqS == 1.9);
  CHECK_FALSE(p->goodputReqS.has_value());
  // TTFT sorted 100..700 ms, n = 7: p50 at h = 3 → 400; p99 at h = 5.94 → 600 + 0.94·100.
  REQUIRE(p->ttftP50Ms.has_value());
  CHECK(p->ttftP50Ms->value == Approx(400));
  CHECK(p->ttftP99Ms->value == Approx(694));
  // TPOT sorted 10, 12, 15, 20, 25, 30, 50 ms: p50 = 20; p99 = 30 + 0.94·20 = 48.8.
  CHECK(p->tpotP50Ms->value == Approx(20));
  CHECK(p->tpotP99Ms->value == Approx(48.8));
  // Bootstrap intervals: around the value, inside the data's range, over the 7 good requests.
  for (const auto* m : {&*p->ttftP50Ms, &*p->ttftP99Ms}) {
    REQUIRE(m->lo.has_value());
    CHECK(*m->lo <= m->value);
    CHECK(*m->hi >= m->value);
    CHECK(*m->lo >= 100 - 1e-9);
    CHECK(*m->hi <= 700 + 1e-9);
    CHECK(m->n == 7);
    CHECK(m->provenance.note.find("95% bootstrap") != std::string::npos);
    CHECK(m->provenance.kind == ProvenanceKind::Measured);
    CHECK(m->provenance.sourceFile == "hand.json");
  }
  CHECK(*p->tpotP50Ms->lo >= 10 - 1e-9);
  CHECK(*p->tpotP50Ms->hi <= 50 + 1e-9);
  CHECK(*p->ttftP50Ms->lo < *p->ttftP50Ms->hi);
  // Lengths of the successful requests: 193 / 7 tokens on average, median 11.
  CHECK(*p->meanOutputTokens == Approx(193.0 / 7));
  CHECK(*p->medianOutputTokens == 11);
  CHECK(*p->completed == 7);
  CHECK(*p->failed == 1);
  CHECK(p->requestRecords == 8);
  CHECK(*p->peakConcurrentRequests == 3);

  // The same seed gives the same interval; another seed another one.
  std::vector<std::string> w2;
  auto again = servingPoint(handRun(), {}, w2);
  CHECK(*again->ttftP99Ms->lo == *p->ttftP99Ms->lo);
  stats::BootstrapOptions other;
  other.seed = 99;
  auto reseeded = servingPoint(handRun(), other, w2);
  CHECK(reseeded->ttftP99Ms->provenance.note.find("seed 0x63") != std::string::npos);
}

TEST_CASE("a serving point from a summary: the file's figures, no interval", "[session][serving]") {
  ImportedRun run;
  run.format = "sglang-serving";
  run.kind = qf::RunKind::Serving;
  run.sourceFile = "sg.jsonl";
  run.setup["request_rate"] = "inf";
  run.setup["max_concurrency"] = "64";
  run.metrics["ttft_median_ms"] = 200;
  run.metrics["ttft_p99_ms"] = 900;
  run.metrics["total_output_tokens"] = 25600;
  run.metrics["completed"] = 200;
  run.metrics["output_throughput_tok_s"] = 2048;
  std::vector<std::string> warnings;
  auto p = servingPoint(run, {}, warnings);
  REQUIRE(p.ok());
  CHECK(p->load.kind == LoadKind::Concurrency);
  CHECK(p->load.value == 64);
  CHECK(offeredLoadText(p->load) == "concurrency 64");
  CHECK(p->ttftP50Ms->value == 200);  // the median stands for p50
  CHECK(p->ttftP50Ms->provenance.note.find("median") != std::string::npos);
  CHECK(p->ttftP99Ms->value == 900);
  CHECK_FALSE(p->ttftP99Ms->lo.has_value());
  CHECK_FALSE(p->tpotP99Ms.has_value());
  CHECK(*p->meanOutputTokens == 128);  // 25600 / 200
  CHECK_FALSE(p->medianOutputTokens.has_value());
  CHECK_FALSE(p->failed.has_value());
  CHECK(p->requestRecords == 0);
  CHECK(warnings.empty());

  // A finite rate wins over a concurrency cap, which is kept.
  run.setup["request_rate"] = "16";
  auto capped = servingPoint(run, {}, warnings);
  REQUIRE(capped.ok());
  CHECK(capped->load.kind == LoadKind::RequestRate);
  CHECK(capped->load.value == 16);
  CHECK(*capped->load.maxConcurrency == 64);
  CHECK(offeredLoadText(capped->load) == "16 req/s (max concurrency 64)");
  // Neither a cap nor a rate: every request at once.
  run.setup["max_concurrency"] = "none";
  run.setup["request_rate"] = "inf";
  auto burst = servingPoint(run, {}, warnings);
  CHECK(burst->load.kind == LoadKind::RequestRate);
  CHECK(std::isinf(burst->load.value));
  CHECK(offeredLoadText(burst->load) == "inf req/s");
  // A trace replay and a run with no load at all are refused, naming the field.
  run.setup["request_rate"] = "trace";
  auto trace = servingPoint(run, {}, warnings);
  REQUIRE_FALSE(trace.ok());
  CHECK(trace.error().field == "request_rate");
  CHECK(trace.error().message.find("'trace'") != std::string::npos);
  run.setup.erase("request_rate");
  auto none = servingPoint(run, {}, warnings);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().message.find("neither a request rate nor a max concurrency") !=
        std::string::npos);
  run.format = "vllm-latency";
  run.kind = qf::RunKind::Latency;
  CHECK_FALSE(servingPoint(run, {}, warnings).ok());
}

TEST_CASE("serving sweeps: grouped by the recorded candidate, ordered by load",
          "[session][serving]") {
  Session s;
  s.scenario.gpu = "h100-sxm";
  Candidate a;
  a.id = "cand-a";
  a.model = "llama-3.1-8b";
  a.schemeLinear = "bf16";
  a.gpu = "h100-sxm";
  s.candidates.push_back(a);
  s.importedRuns.push_back(sweepRun("a4.json", "cand-a", "4", 400));
  s.importedRuns.push_back(sweepRun("a1.json", "cand-a", "1", 120));
  s.importedRuns.push_back(sweepRun("ainf.json", "cand-a", "inf", 650));
  s.importedRuns.push_back(sweepRun("a8.json", "cand-a", "8", 700));
  s.importedRuns.push_back(sweepRun("a-c16.json", "cand-a", "inf", 690, "16"));
  ImportedRun b = sweepRun("b2.json", "", "2", 300);
  b.setup["model_id"] = "org/model-b";
  s.importedRuns.push_back(b);
  s.importedRuns.push_back(sweepRun("anon.json", "", "2", 100));
  s.importedRuns.push_back(sweepRun("trace.json", "cand-a", "trace", 100));
  s.importedRuns.push_back(sweepRun("gone.json", "deleted-cand", "3", 100));
  ImportedRun lat;
  lat.format = "vllm-latency";
  lat.kind = qf::RunKind::Latency;
  lat.sourceFile = "latency.json";
  s.importedRuns.push_back(lat);

  const ServingSweeps sw = servingSweeps(s);
  REQUIRE(sw.groups.size() == 4);
  CHECK(sw.runsUsed == 8);
  CHECK(mentions(sw.warnings, "trace.json: left out"));
  CHECK(mentions(sw.warnings, "latency.json"));
  CHECK(mentions(sw.warnings, "'deleted-cand', which the session no longer has"));

  const ServingGroup& ga = sw.groups[0];  // first run in the session
  CHECK(ga.key == "cand-a");
  CHECK(ga.groupedBy == "candidate");
  CHECK(ga.candidateId == "cand-a");
  CHECK(ga.scheme == "bf16");
  CHECK(ga.loadKind == LoadKind::RequestRate);
  CHECK(ga.mixedLoad);
  CHECK(mentions(ga.warnings, "two sweeps"));
  REQUIRE(ga.points.size() == 5);
  CHECK(ga.points[0].sourceFile == "a1.json");
  CHECK(ga.points[1].sourceFile == "a4.json");
  CHECK(ga.points[2].sourceFile == "a8.json");
  CHECK(ga.points[3].sourceFile == "ainf.json");
  CHECK(std::isinf(ga.points[3].load.value));
  CHECK(ga.points[4].sourceFile == "a-c16.json");  // the other sweep, after this one
  CHECK(ga.points[4].load.kind == LoadKind::Concurrency);
  CHECK(ga.batch1 == 0);
  CHECK(ga.saturated == 2);                      // 700 tok/s at 8 req/s beats 690 and 650
  CHECK(*ga.points[0].meanOutputTokens == 100);  // 1000 tokens / 10 requests
  // The modelled capacity is the engine's for the candidate.
  auto m = modelledMetrics(a, s.scenario);
  REQUIRE(m.ok());
  REQUIRE(ga.capacity.has_value());
  CHECK(ga.capacity->tokensPerS == m->at("tokens_per_s_at_capacity").value);
  CHECK(ga.capacity->maxConcurrency == m->at("max_concurrency").value);
  CHECK(ga.capacity->tokensPerS > 0);

  const ServingGroup& gb = groupOf(sw, "org/model-b");
  CHECK(gb.groupedBy == "model");
  CHECK_FALSE(gb.candidateId.has_value());
  CHECK_FALSE(gb.capacity.has_value());
  CHECK(mentions(gb.warnings, "no modelled capacity"));
  const ServingGroup& gf = groupOf(sw, "anon.json");
  CHECK(gf.groupedBy == "file");
  REQUIRE(gf.points.size() == 1);
  CHECK(gf.batch1 == 0);
  CHECK(gf.saturated == 0);
  const ServingGroup& gone = groupOf(sw, "deleted-cand");
  CHECK_FALSE(gone.candidateId.has_value());

  // Without the engine: no capacity, no warning about it.
  ServingOptions noEngine;
  noEngine.modelledCapacity = false;
  const ServingSweeps plain = servingSweeps(s, noEngine);
  CHECK_FALSE(plain.groups[0].capacity.has_value());
  CHECK(plain.groups[0].scheme == "bf16");
  CHECK_FALSE(mentions(plain.groups[1].warnings, "modelled capacity"));
}

TEST_CASE("serving sweeps: the batch-1 point and repeated loads are named", "[session][serving]") {
  Session s;
  ImportedRun first = handRun();  // max 3 requests in flight at its 2 req/s
  s.importedRuns.push_back(first);
  ImportedRun repeat = handRun();
  repeat.sourceFile = "hand-again.json";
  repeat.sha256 = std::string(64, '2');
  s.importedRuns.push_back(repeat);
  const ServingSweeps sw = servingSweeps(s);
  REQUIRE(sw.groups.size() == 1);
  const ServingGroup& g = sw.groups[0];
  CHECK(g.key == "org/hand-model");
  CHECK(g.groupedBy == "model");
  CHECK(mentions(g.warnings, "up to 3 requests were in flight at once: not a batch-1"));
  CHECK(mentions(g.warnings, "hand.json and hand-again.json were both run at 2 req/s"));
}

TEST_CASE("attaching records each run's candidate, sweeps follow it", "[session][attach]") {
  Session s;
  std::vector<std::string> tags = {"bf16", "fp8", "w4a16"};
  for (const auto& tag : tags) {
    auto rep = importFile(kE2e + "/vllm_serve_" + tag + ".json");
    REQUIRE(rep.ok());
    mergeImport(s, *rep);
  }
  REQUIRE(s.importedRuns.size() == 3);
  AttachOptions byModel;
  byModel.gpu = "h100-sxm";
  REQUIRE(attachRunsToCandidates(s, byModel).ok());
  for (std::size_t i = 0; i < 3; ++i) {
    const auto file =
        nlohmann::json::parse(std::ifstream(kE2e + "/vllm_serve_" + tags[i] + ".json"));
    CHECK(s.importedRuns[i].setup.at(kCandidateSetupKey) == file.at("model_id").get<std::string>());
  }

  // Attached again under ids of our own: each run now names its new candidate.
  for (std::size_t i = 0; i < 3; ++i) {
    AttachOptions opts;
    opts.candidateId = "llama-" + tags[i];
    opts.runDigests = {s.importedRuns[i].sha256};
    opts.gpu = "h100-sxm";
    REQUIRE(attachRunsToCandidates(s, opts).ok());
    CHECK(s.importedRuns[i].setup.at(kCandidateSetupKey) == "llama-" + tags[i]);
  }
  // Saved and loaded back, the record stays.
  auto back = parseSessionText(sessionToText(s), "attached.json");
  REQUIRE(back.ok());
  CHECK(back->importedRuns[1].setup.at(kCandidateSetupKey) == "llama-fp8");

  const ServingSweeps sw = servingSweeps(*back);
  REQUIRE(sw.groups.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const ServingGroup& g = sw.groups[i];
    const auto file =
        nlohmann::json::parse(std::ifstream(kE2e + "/vllm_serve_" + tags[i] + ".json"));
    INFO(tags[i]);
    CHECK(g.key == "llama-" + tags[i]);
    CHECK(g.groupedBy == "candidate");
    REQUIRE(g.points.size() == 1);
    const ServingPoint& p = g.points[0];
    // request_rate "inf" with max_concurrency 8: a concurrency point.
    CHECK(p.load.kind == LoadKind::Concurrency);
    CHECK(p.load.value == 8);
    CHECK(*p.outputThroughputTokS == file.at("output_throughput").get<double>());
    CHECK(*p.requestThroughputReqS == file.at("request_throughput").get<double>());
    CHECK_FALSE(p.goodputReqS.has_value());  // null in the files
    CHECK(p.ttftP99Ms->value == Approx(file.at("p99_ttft_ms").get<double>()));
    CHECK(p.tpotP99Ms->value == Approx(file.at("p99_tpot_ms").get<double>()));
    CHECK(p.ttftP50Ms->value == Approx(file.at("median_ttft_ms").get<double>()));
    REQUIRE(p.tpotP99Ms->lo.has_value());
    CHECK(p.tpotP99Ms->n == 24);
    CHECK(*p.meanOutputTokens == 64);  // every request generated 64 tokens
    CHECK(*p.medianOutputTokens == 64);
    CHECK(*p.completed == 24);
    CHECK(*p.failed == 0);
    CHECK(g.batch1 == 0);
    CHECK(g.saturated == 0);
    REQUIRE(g.capacity.has_value());
    CHECK(g.capacity->tokensPerS > 0);
  }
  // The old, model-named candidates hold no runs any more: no groups for them.
  CHECK(sw.groups.size() == 3);
}

TEST_CASE("goodput under an SLO counts the requests that meet it", "[session][serving]") {
  ImportedRun run = handRun();
  run.metrics["duration_s"] = 4.0;
  std::vector<std::string> warnings;
  // TTFT ≤ 0.45 s: requests with TTFT 0.1, 0.3, 0.2, 0.4 → 4 of the 7 that produced output.
  stats::Slo ttft;
  ttft.ttftS = 0.45;
  auto p = servingPoint(run, {}, warnings, ttft);
  REQUIRE(p.ok());
  REQUIRE(p->goodputReqS.has_value());
  CHECK(p->goodputFromSlo);
  CHECK(*p->goodputReqS == Approx(4.0 / 4.0));
  // And TPOT ≤ 20 ms: of those, TPOT 10, 20, 15 ms (the 25 ms one fails) → 3.
  stats::Slo both = ttft;
  both.tpotS = 0.020;
  p = servingPoint(run, {}, warnings, both);
  REQUIRE(p.ok());
  CHECK(*p->goodputReqS == Approx(3.0 / 4.0));
  // Without records the SLO cannot be applied: the file's own figure, and a warning.
  ImportedRun summary = handRun();
  summary.requests.clear();
  summary.metrics["duration_s"] = 4.0;
  summary.metrics["request_goodput_req_s"] = 1.25;
  warnings.clear();
  p = servingPoint(summary, {}, warnings, both);
  REQUIRE(p.ok());
  CHECK(*p->goodputReqS == 1.25);
  CHECK_FALSE(p->goodputFromSlo);
  CHECK(std::count_if(warnings.begin(), warnings.end(), [](const std::string& w) {
          return w.find("no goodput under the SLO (the file's own goodput is shown)") !=
                 std::string::npos;
        }) == 1);
}

namespace {

/// A sweep run of `candidate` at `rate` whose requests all had 1,024 prompt and 128 output
/// tokens.
ImportedRun modelledSweepRun(const std::string& file, const std::string& candidate,
                             const std::string& rate) {
  ImportedRun run = sweepRun(file, candidate, rate, 1000);
  run.sha256 = std::string(64, file[0]);
  for (int i = 0; i < 4; ++i) {
    RequestRecord r = request(0.1, 1.0, 128);
    r.inputLen = 1024;
    run.requests.push_back(r);
  }
  return run;
}

Candidate servingCandidate(const std::string& id, const std::string& scheme) {
  Candidate c;
  c.id = id;
  c.model = "llama-3-8b";
  c.schemeLinear = scheme;
  c.gpu = "h100-sxm";
  return c;
}

}  // namespace

TEST_CASE("modelled serving curves: calibrated and datasheet beside each candidate's sweep",
          "[session][serving][modelled]") {
  Session s;
  s.candidates = {servingCandidate("bf16", "bf16"), servingCandidate("w4", "w4a16-g128")};
  for (const char* rate : {"1", "4", "16", "inf"}) {
    s.importedRuns.push_back(modelledSweepRun(std::string("a-") + rate, "bf16", rate));
    s.importedRuns.push_back(modelledSweepRun(std::string("b-") + rate, "w4", rate));
  }
  const ServingSweeps sw = servingSweeps(s);
  REQUIRE(sw.groups.size() == 2);
  for (const auto& g : sw.groups) {
    INFO(g.key);
    REQUIRE(g.modelled.size() == 2);
    const ModelledServingCurve& cal = g.modelled[0];
    const ModelledServingCurve& ds = g.modelled[1];
    CHECK_FALSE(cal.datasheet);
    CHECK(ds.datasheet);
    CHECK(cal.inputTokens == 1024);
    CHECK(cal.outputTokens == 128);
    CHECK_THAT(cal.constants, Catch::Contains("bundled defaults"));
    // The grid: half the lowest rate to 1.5 × the highest finite one, then ∞.
    REQUIRE(cal.points.size() == ds.points.size());
    CHECK(cal.points.front().load.value == Approx(0.5));
    CHECK(cal.points[cal.points.size() - 2].load.value == Approx(24));
    CHECK(std::isinf(cal.points.back().load.value));
    // Below saturation a server delivers what is offered: rate × output tokens.
    const ModelledServingPoint& low = cal.points.front();
    CHECK_FALSE(low.saturated);
    CHECK(low.outputTokS == Approx(0.5 * 128).epsilon(1e-6));
    REQUIRE(low.ttftMs.has_value());
    // At ∞ the saturated throughput, no finite TTFT, and the calibrated server is slower
    // than the ideal roofline.
    const ModelledServingPoint& inf = cal.points.back();
    CHECK(inf.saturated);
    CHECK_FALSE(inf.ttftMs.has_value());
    CHECK(inf.outputTokS < ds.points.back().outputTokS);
    CHECK(low.tpotMs > ds.points.front().tpotMs);
    // Throughput never falls as the offered load grows.
    for (std::size_t i = 1; i < cal.points.size(); ++i) {
      CHECK(cal.points[i].outputTokS >= cal.points[i - 1].outputTokS * (1 - 1e-9));
    }
  }
  // At the lowest load W4A16 streams a quarter of the weight bytes: lower TPOT than bf16.
  const auto& bf16 = groupOf(sw, "bf16").modelled[0].points;
  const auto& w4 = groupOf(sw, "w4").modelled[0].points;
  CHECK(w4.front().tpotMs < bf16.front().tpotMs);
  // Each overtake is a real change of order on the curves around its load.
  for (const auto& o : sw.overtakes) {
    INFO(o.ahead << " overtakes " << o.behind << " at " << o.load);
    const auto& ahead = groupOf(sw, o.ahead).modelled[0].points;
    const auto& behind = groupOf(sw, o.behind).modelled[0].points;
    std::size_t k = 0;
    while (k + 1 < ahead.size() && ahead[k + 1].load.value < o.load) ++k;
    REQUIRE(k + 1 < ahead.size());
    CHECK(ahead[k].tpotMs > behind[k].tpotMs);
    CHECK(ahead[k + 1].tpotMs < behind[k + 1].tpotMs);
  }
  // Without the option, no curves.
  ServingOptions off;
  off.modelledCurves = false;
  const ServingSweeps plain = servingSweeps(s, off);
  CHECK(plain.groups[0].modelled.empty());
  CHECK(plain.overtakes.empty());
}

TEST_CASE("modelled serving curves: a run without request lengths says why it has none",
          "[session][serving][modelled]") {
  Session s;
  s.candidates = {servingCandidate("bf16", "bf16")};
  s.importedRuns = {sweepRun("a.json", "bf16", "1", 100), sweepRun("b.json", "bf16", "4", 400)};
  const ServingSweeps sw = servingSweeps(s);
  REQUIRE(sw.groups.size() == 1);
  CHECK(sw.groups[0].modelled.empty());
  CHECK(mentions(sw.groups[0].warnings, "no per-request lengths"));
}

TEST_CASE("serving sweeps: a run whose requests all failed is no 0 tok/s point",
          "[session][serving]") {
  Session s;
  s.importedRuns.push_back(sweepRun("ok.json", "c", "8", 700));
  ImportedRun failed = sweepRun("failed.json", "c", "4", 0);
  failed.sha256 = std::string(64, 'e');
  failed.metrics = {{"completed", 0},
                    {"failed", 8},
                    {"request_throughput_req_s", 0},
                    {"output_throughput_tok_s", 0}};
  s.importedRuns.push_back(failed);
  // A session saved before the importer recorded all_requests_failed: 'completed' 0 says it.
  ImportedRun older = failed;
  older.sourceFile = "older.json";
  older.sha256 = std::string(64, 'd');
  older.setup["request_rate"] = "2";
  s.importedRuns.push_back(older);
  s.importedRuns[1].setup["all_requests_failed"] = "true";
  ServingOptions opts;
  opts.modelledCapacity = false;
  const ServingSweeps sw = servingSweeps(s, opts);
  REQUIRE(sw.groups.size() == 1);
  const ServingGroup& g = groupOf(sw, "c");
  REQUIRE(g.points.size() == 1);
  CHECK(g.points[0].sourceFile == "ok.json");
  CHECK(*g.points[0].outputThroughputTokS == 700);
  // The batch-1 point is the lowest load that measured something.
  REQUIRE(g.batch1.has_value());
  CHECK(g.points[*g.batch1].load.value == 8);
  CHECK(sw.runsUsed == 1);
  CHECK(sw.failedRuns == std::vector<std::string>{"failed.json", "older.json"});
  CHECK(mentions(sw.warnings, "failed.json: all 8 requests failed: not drawn"));
  CHECK(mentions(sw.warnings, "older.json: all 8 requests failed: not drawn"));
}

TEST_CASE("without serving runs the scenario's schemes get the serving model's curves",
          "[serving][modelled]") {
  qf::Session s;
  s.scenario.model = "llama-3.1-8b";
  s.scenario.gpu = "h100-sxm";
  s.scenario.schemes = {"bf16", "w8a8-fp8", "w4a16-g128"};
  std::string workload;
  const qf::ServingSweeps sw = qf::scenarioServing(s, &workload);
  CHECK(workload ==
        "1024 → 128 tokens (vLLM bench serve's random dataset); batch cap 1024, 8192 tokens a "
        "step (vLLM's defaults on a GPU of >= 70 GiB other than the A100)");
  REQUIRE(sw.groups.size() == 3);
  const auto cat = &qf::Catalog::bundled();
  double fastest = 0;
  for (const auto& g : sw.groups) {
    INFO(g.key);
    CHECK(g.key == g.scheme + " (modelled)");
    CHECK(g.groupedBy == "scenario");
    CHECK(g.points.empty());
    REQUIRE(g.modelled.size() == 2);  // calibrated, then the datasheet roofline
    CHECK_FALSE(g.modelled[0].datasheet);
    CHECK(g.modelled[1].datasheet);
    const auto& pts = g.modelled[0].points;
    REQUIRE(pts.size() == 40);
    // The grid reaches past every scheme's saturation: the last point is saturated, the first
    // is not, and below saturation the throughput is the offered load.
    CHECK(pts.back().saturated);
    CHECK_FALSE(pts.front().saturated);
    CHECK(pts.front().outputTokS == Approx(pts.front().load.value * 128).epsilon(1e-6));
    CHECK(pts.front().tpotMsInterval.has_value());  // the H100's fit record gives intervals
    fastest = std::max(fastest, pts.back().outputTokS);
    // The same steady state as the serving model gives one replica of that scheme.
    qf::ScenarioSpec spec = s.scenario;
    auto scen = qf::resolveScenario(spec, *cat);
    REQUIRE(scen.ok());
    auto cands = qf::makeCandidates({}, g.scheme, "", "", *cat);
    REQUIRE(cands.ok());
    auto eng = qf::engineServing(*scen, cands->front());
    REQUIRE(eng.ok());
    // vLLM's own admission defaults on an H100, as a server launched without them runs.
    CHECK(g.modelled[0].maxBatch == 1024);
    CHECK(g.modelled[0].tokenBudget == 8192);
    CHECK_FALSE(g.modelled[0].limitsRule.empty());
    qf::ServingLimits lim;
    lim.maxBatch = 1024;
    lim.tokenBudget = 8192;
    lim.kvCapacityTokens = eng->kvCapacityTokens;
    CHECK(pts.back().outputTokS ==
          Approx(qf::saturatedState(eng->steps, lim, {1024, 128}).outputTokPerS).epsilon(1e-9));
    const auto& mid = pts[20];
    const auto st = qf::stateAtRate(eng->steps, lim, {1024, 128}, mid.load.value);
    if (!mid.saturated) CHECK(mid.tpotMs == Approx(st.tpotS * 1e3).epsilon(1e-9));
  }
  // The grid spans a fiftieth of the slowest saturated rate to 1.5 times the fastest.
  const auto& grid = sw.groups.front().modelled.front().points;
  CHECK(grid.back().load.value == Approx(1.5 * fastest / 128).epsilon(1e-6));
  // Where one scheme's TPOT overtakes another's as the load grows.
  CHECK_FALSE(sw.overtakes.empty());
  // The scenario's own prompt and output tokens, when set, are the workload.
  s.scenario.inputLen = 512;
  s.scenario.outputLen = 256;
  const qf::ServingSweeps own = qf::scenarioServing(s, &workload);
  CHECK(workload.rfind("512 → 256 tokens (the scenario's prompt and output tokens); batch cap",
                       0) == 0);
  CHECK(own.groups.front().modelled.front().inputTokens == 512);
  // A model its GPU cannot hold: a warning, no group.
  s.scenario.model = "llama-3.1-405b";
  s.scenario.schemes = {"bf16"};
  const qf::ServingSweeps none = qf::scenarioServing(s);
  CHECK(none.groups.empty());
  REQUIRE_FALSE(none.warnings.empty());
  CHECK(none.warnings.front().find("bf16") != std::string::npos);
}
