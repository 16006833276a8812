// A session's static-batch runs as end-to-end measured points: what each kind gives, and the
// runs left out with the reason.
#include <catch2/catch.hpp>

#include <quantfront/core/analysis/calibration.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/session/attach_runs.hpp>
#include <quantfront/core/session/e2e_evidence.hpp>

using namespace qf;

namespace {

/// A Llama-3-8B candidate on `gpuCount` of `gpu`.
Candidate candidate8b(const std::string& id, const std::string& scheme,
                      const std::string& gpu = "h100-sxm", int gpuCount = 1) {
  Candidate c;
  c.id = id;
  c.model = "llama-3-8b";
  c.schemeLinear = scheme;
  c.gpu = gpu;
  c.gpuCount = gpuCount;
  return c;
}

ImportedRun run(RunKind kind, const std::string& file, const std::string& candidate) {
  ImportedRun r;
  r.kind = kind;
  r.sourceFile = file;
  if (!candidate.empty()) r.setup[kCandidateSetupKey] = candidate;
  return r;
}

}  // namespace

TEST_CASE("static-batch runs become measured points of their candidate", "[session][e2e]") {
  Session s;
  s.candidates.push_back(candidate8b("w4", "w4a16-g128", "h100-sxm", 2));

  std::vector<ImportedRun> latency = {run(RunKind::Latency, "lat.json", "w4"),
                                      run(RunKind::Throughput, "thr.json", "w4"),
                                      run(RunKind::Serving, "serve.json", "w4")};
  latency[0].metrics["latency_mean_s"] = 1.25;
  latency[0].metrics["latency_p50_s"] = 1.2;
  latency[1].metrics["total_token_throughput_tok_s"] = 9000;
  // Only the latency and throughput runs take the stamp.
  CHECK(stampStaticBatch(latency, StaticBatch{8, 1024, 128}) == 2);
  CHECK(latency[2].setup.count(kBatchSetupKey) == 0);
  CHECK(latency[0].setup.at(kBatchSetupKey) == "8");
  for (auto& r : latency) s.importedRuns.push_back(r);

  ImportedRun sweep = run(RunKind::DecodeSweep, "one_batch.jsonl", "w4");
  sweep.setup["input_len"] = "512";
  sweep.setup["output_len"] = "32";
  sweep.decodeStepByBatch = {{1, 0.007}, {16, 0.009}};
  sweep.metrics["bs1/prefill_latency_ms"] = 40;
  sweep.metrics["bs16/prefill_latency_ms"] = 300;
  s.importedRuns.push_back(sweep);
  s.importedRuns.push_back(run(RunKind::Latency, "bare.json", "w4"));  // no batch given
  s.importedRuns.push_back(run(RunKind::Latency, "loose.json", ""));   // not attached
  s.importedRuns.back().setup[kBatchSetupKey] = "1";

  std::vector<std::string> notes;
  const auto pts = measuredPointsFromSession(s, "s.json", notes);
  REQUIRE(pts.size() == 6);  // latency, throughput, 2 × (prefill, decode step)
  CHECK(pts[0].metric == E2eMetric::E2eLatencyS);
  CHECK(pts[0].value == 1.2);  // the median, not the mean
  CHECK(pts[0].batch == 8);
  CHECK(pts[0].inputLen == 1024);
  CHECK(pts[0].outputLen == 128);
  CHECK(pts[0].tp == 2);
  CHECK(pts[0].scheme == "w4a16-g128");
  CHECK(pts[0].gpu == "h100-sxm");
  CHECK(pts[0].model == "llama-3-8b");
  CHECK(pts[1].metric == E2eMetric::TotalTokS);
  CHECK(pts[1].value == 9000);
  CHECK(pts[2].metric == E2eMetric::PrefillMs);
  CHECK(pts[2].value == 40);
  CHECK(pts[2].inputLen == 512);
  CHECK(pts[3].metric == E2eMetric::DecodeStepMs);
  CHECK(pts[3].value == Approx(7.0));
  CHECK(pts[5].batch == 16);
  CHECK(pts[5].value == Approx(9.0));
  // Its TP is not stated anywhere: taken as the candidate's 2 GPUs, said once per run that
  // gave points (not for the runs left out).
  REQUIRE(notes.size() == 6);
  CHECK(notes[0].find("lat.json: its TP is not stated; taken as the candidate's 2 GPUs") == 0);
  CHECK(notes[1].find("thr.json: its TP is not stated") == 0);
  // A serving run without its offered load cannot be placed on a load curve.
  CHECK(notes[2].find("serve.json: ") == 0);
  CHECK(notes[2].find("not fitted") != std::string::npos);
  CHECK(notes[3].find("one_batch.jsonl: its TP is not stated") == 0);
  CHECK(notes[4].find("bare.json: its file states no batch or lengths") == 0);
  CHECK(notes[5].find("loose.json: not attached to a candidate") == 0);
}

TEST_CASE("serving runs become serving rows at their offered load", "[session][e2e][serving]") {
  Session s;
  s.candidates.push_back(candidate8b("fp8", "w8a8-fp8"));
  ImportedRun at4 = run(RunKind::Serving, "rate4.json", "fp8");
  at4.setup["request_rate"] = "4";
  at4.metrics = {{"completed", 100},
                 {"total_input_tokens", 102400},
                 {"total_output_tokens", 25600},
                 {"output_throughput_tok_s", 1010},
                 {"ttft_median_ms", 48},
                 {"ttft_p99_ms", 95},
                 {"tpot_median_ms", 9.5},
                 {"tpot_p99_ms", 14},
                 {"itl_median_ms", 9.1},
                 {"itl_p99_ms", 30}};
  ImportedRun all = at4;
  all.sourceFile = "max.json";
  all.setup["request_rate"] = "inf";
  ImportedRun closed = at4;
  closed.sourceFile = "c16.json";
  closed.setup.erase("request_rate");
  closed.setup["max_concurrency"] = "16";
  ImportedRun noRate = at4;
  noRate.sourceFile = "norate.json";
  noRate.setup.erase("request_rate");
  s.importedRuns = {at4, all, closed, noRate};
  std::vector<std::string> notes;
  const auto pts = measuredPointsFromSession(s, "s.json", notes);
  // 7 figures at 4 req/s and at c16; at max the two TTFTs are left out.
  REQUIRE(pts.size() == 7 + 5 + 7);
  CHECK(pts[0].load == PointLoad::Rate);
  CHECK(pts[0].loadValue == 4);
  CHECK(pts[0].inputLen == 1024);
  CHECK(pts[0].outputLen == 256);
  CHECK(pts[0].metric == E2eMetric::OutputTokS);
  CHECK(pts[0].value == 1010);
  CHECK(pts[1].metric == E2eMetric::TtftP50Ms);
  CHECK(pts[1].value == 48);
  CHECK(pts[7].load == PointLoad::Max);
  for (std::size_t i = 7; i < 12; ++i) {
    CHECK(pts[i].metric != E2eMetric::TtftP50Ms);
    CHECK(pts[i].metric != E2eMetric::TtftP99Ms);
  }
  CHECK(pts[12].load == PointLoad::Concurrency);
  CHECK(pts[12].loadValue == 16);
  // The run without a load is left out with its reason; the limits are said once.
  REQUIRE(notes.size() == 2);
  CHECK(notes[0].find("norate.json: ") == 0);
  CHECK(notes[1].find("serving runs: the server's batch cap") == 0);
  // Every one of them is predicted by the model (the p99s and ITL by the simulation).
  std::vector<std::string> prepNotes;
  auto prepared =
      preparePoints(pts, *Catalog::bundled().resolveGpu("h100-sxm"), "h100-sxm", prepNotes);
  REQUIRE(prepared.ok());
  const Efficiency eff = efficiencyFromGpu(*Catalog::bundled().resolveGpu("h100-sxm"));
  for (const auto& pp : *prepared) {
    INFO(pp.point.origin << " " << e2eMetricName(pp.point.metric));
    CHECK(predictPoint(pp, eff) > 0);
  }
}

TEST_CASE("a run's stated TP wins over the candidate's GPU count", "[session][e2e]") {
  // Eight GPUs as four replicas of TP 2: the static-batch benchmark ran on one replica.
  Session s;
  s.candidates.push_back(candidate8b("fp8x8", "w8a8-fp8", "h100-sxm", 8));
  std::vector<ImportedRun> runs = {run(RunKind::Latency, "stamped.json", "fp8x8"),
                                   run(RunKind::Latency, "own-key.json", "fp8x8"),
                                   run(RunKind::DecodeSweep, "sweep.jsonl", "fp8x8"),
                                   run(RunKind::Serving, "serve.json", "fp8x8")};
  for (auto& r : runs) r.metrics["latency_p50_s"] = 2.0;
  runs[2].setup["input_len"] = "128";
  runs[2].setup["output_len"] = "16";
  runs[2].decodeStepByBatch = {{4, 0.006}};
  // --tp alone stamps the TP on the static-batch runs (the sweep included), not on serving.
  CHECK(stampStaticBatch(runs, StaticBatch{0, 0, 0, 2}) == 3);
  CHECK(runs[0].setup.at(kTpSetupKey) == "2");
  CHECK(runs[0].setup.count(kBatchSetupKey) == 0);
  CHECK(runs[3].setup.count(kTpSetupKey) == 0);
  // A file that states its own tensor_parallel_size (kept among its setup keys).
  runs[1].setup.erase(kTpSetupKey);
  runs[1].setup["tensor_parallel_size"] = "4";
  stampStaticBatch(runs, StaticBatch{16, 512, 64, 0});
  CHECK(runs[0].setup.at(kTpSetupKey) == "2");  // a later stamp without --tp keeps it
  s.importedRuns = runs;
  std::vector<std::string> notes;
  const auto pts = measuredPointsFromSession(s, "s.json", notes);
  REQUIRE(pts.size() == 3);
  CHECK(pts[0].tp == 2);
  CHECK(pts[1].tp == 4);
  CHECK(pts[2].tp == 2);
  CHECK(pts[2].metric == E2eMetric::DecodeStepMs);
  for (const auto& n : notes) CHECK(n.find("TP is not stated") == std::string::npos);
}

TEST_CASE("a mixed candidate is fitted as mixed and its GPU read by name", "[session][e2e]") {
  Session s;
  Candidate c;
  c.id = "mixed";
  c.model = "llama-3-8b";
  c.schemeLinear = "w4a16-g128";
  c.schemeLmHead = "w8a8-fp8";
  c.gpu = "NVIDIA H100 80GB HBM3";  // as the driver names it
  s.candidates.push_back(c);
  Candidate u = c;
  u.id = "uniform";
  u.schemeLmHead.clear();
  u.gpu = "H100-SXM";
  s.candidates.push_back(u);
  for (const char* id : {"mixed", "uniform"}) {
    std::vector<ImportedRun> runs{run(RunKind::Latency, std::string(id) + ".json", id)};
    runs[0].metrics["latency_p50_s"] = 3.0;
    stampStaticBatch(runs, StaticBatch{1, 1024, 512, 1});
    s.importedRuns.push_back(runs[0]);
  }
  std::vector<std::string> notes;
  const auto pts = measuredPointsFromSession(s, "s.json", notes);
  REQUIRE(pts.size() == 2);
  CHECK(pts[0].gpu == "h100-sxm");  // the catalog id, not the driver's name
  CHECK(pts[0].schemeLmHead == "w8a8-fp8");
  CHECK(pts[1].schemeLmHead.empty());
  const GpuSpec h100 = *Catalog::bundled().resolveGpu("h100-sxm");
  // Both points are the fit's GPU however the candidate spelled it. The uniform candidate's LM
  // head is priced as its checkpoint keeps it (bf16); the mixed one names an FP8 head, which
  // streams 0.5 G parameters at 8 bits instead of 16 and makes it faster.
  auto prepared = preparePoints(pts, h100, "h100-sxm", notes);
  REQUIRE(prepared.ok());
  REQUIRE(prepared->size() == 2);
  CHECK(prepared->at(0).candidate.mixed());
  CHECK_FALSE(prepared->at(1).candidate.mixed());
  const Efficiency eff = scenarioEfficiency(h100, false);
  CHECK(predictPoint(prepared->at(0), eff) * 1.02 < predictPoint(prepared->at(1), eff));
  CHECK(sameGpu("NVIDIA H100 80GB HBM3", "h100-sxm", Catalog::bundled()));
  CHECK_FALSE(sameGpu("NVIDIA H100 PCIe", "h100-sxm", Catalog::bundled()));
  CHECK(sameGpu("NVIDIA RTX A6000", "A6000", Catalog::bundled()));
  CHECK(sameGpu("my-gpu", "MY-GPU", Catalog::bundled()));
  CHECK_FALSE(sameGpu("my-gpu", "h100-sxm", Catalog::bundled()));
}

namespace {

/// The model's latency for Llama-3-8B bf16 on one H100 at batch `b`, 1024 in / 512 out,
/// under `eff`.
double modelLatencyS(double b, const Efficiency& eff, const GpuSpec& gpu) {
  MeasuredPoint p;
  p.model = "llama-3-8b";
  p.gpu = gpu.id;
  p.scheme = "bf16";
  p.batch = b;
  p.inputLen = 1024;
  p.outputLen = 512;
  p.metric = E2eMetric::E2eLatencyS;
  p.value = 1;
  std::vector<std::string> notes;
  auto pp = preparePoints({p}, gpu, gpu.id, notes);
  REQUIRE(pp.ok());
  REQUIRE(pp->size() == 1);
  return predictPoint(pp->front(), eff);
}

Session latencySession(double measuredS, double batch) {
  Session s;
  Candidate c;
  c.id = "bf16-h100";
  c.model = "llama-3-8b";
  c.schemeLinear = "bf16";
  c.gpu = "H100-SXM";  // matched ignoring case, as the catalog is
  s.candidates.push_back(c);
  ImportedRun r = run(RunKind::Latency, "lat.json", "bf16-h100");
  r.metrics["latency_p50_s"] = measuredS;
  std::vector<ImportedRun> runs{r};
  stampStaticBatch(runs, StaticBatch{batch, 1024, 512});
  s.importedRuns = runs;
  return s;
}

}  // namespace

TEST_CASE("an imported run is compared with the datasheet and calibrated predictions",
          "[session][e2e]") {
  const GpuSpec h100 = *Catalog::bundled().resolveGpu("h100-sxm");
  const Efficiency bundled = scenarioEfficiency(h100, false);
  REQUIRE(bundled.overheadMs > 0);  // the bundled defaults are not the datasheet
  // Batch 32, 1,024 in, 512 out: inside what the bundled (vLLM) fit saw (batch 16-64,
  // 128-2,048 in, up to 2,048 out).
  const double calibratedS = modelLatencyS(32, bundled, h100);
  const double datasheetS = modelLatencyS(32, Efficiency{}, h100);
  REQUIRE(datasheetS < calibratedS);  // the ideal roofline has no per-step overhead

  // Measured 10% slower than the calibrated model says.
  const Session s = latencySession(calibratedS * 1.1, 32);
  std::vector<std::string> notes;
  const auto rows = compareEndToEnd(s, "s.json", notes);
  REQUIRE(rows.size() == 1);
  CHECK(notes.empty());
  const E2eComparison& r = rows[0];
  CHECK(r.point.candidate == "bf16-h100");
  CHECK(r.point.origin == "s.json: lat.json");
  CHECK(r.datasheet == Approx(datasheetS).epsilon(1e-12));
  CHECK(r.calibrated.value == Approx(calibratedS).epsilon(1e-12));
  CHECK(r.calibratedErrorPct() == Approx(100.0 * (1 / 1.1 - 1)).epsilon(1e-9));
  CHECK(r.datasheetErrorPct() == Approx(100.0 * (datasheetS / (calibratedS * 1.1) - 1)));
  CHECK(r.calibrationSource == bundled.source);
  // The bundled H100 fit has degrees of freedom: an interval around the value.
  CHECK(r.calibrated.low < r.calibrated.value);
  CHECK(r.calibrated.high > r.calibrated.value);
  CHECK_FALSE(r.calibrated.extrapolated);

  // A batch outside what the bundled fit saw is flagged as extrapolated: batch 1, which the
  // vLLM fit half does not hold, and 4,096.
  CHECK(compareEndToEnd(latencySession(1.0, 1), "s.json", notes).at(0).calibrated.extrapolated);
  const auto far = compareEndToEnd(latencySession(1.0, 4096), "s.json", notes);
  REQUIRE(far.size() == 1);
  CHECK(far[0].calibrated.extrapolated);
}

TEST_CASE("the comparison runs on the scenario's edited GPU for its candidates",
          "[session][e2e][gpu-edit]") {
  GpuSpec halved = *Catalog::bundled().resolveGpu("h100-sxm");
  halved.hbmBandwidthTBps /= 2;
  Session s = latencySession(1.0, 1);
  s.scenario.gpu = "h100-sxm";
  s.scenario.gpuSpec = halved;
  std::vector<std::string> notes;
  const auto rows = compareEndToEnd(s, "s.json", notes);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].datasheet == Approx(modelLatencyS(1, Efficiency{}, halved)).epsilon(1e-12));
  // Batch 1 decode is memory-bound: half the bandwidth, nearly twice the datasheet latency.
  const double catalogS =
      modelLatencyS(1, Efficiency{}, *Catalog::bundled().resolveGpu("h100-sxm"));
  CHECK(rows[0].datasheet / catalogS > 1.8);
}

TEST_CASE("the comparison's summary: median errors and interval coverage", "[session][e2e]") {
  auto row = [](double measured, double datasheet, double calibrated, double lo, double hi) {
    E2eComparison r;
    r.point.value = measured;
    r.datasheet = datasheet;
    r.calibrated.value = calibrated;
    r.calibrated.low = lo;
    r.calibrated.high = hi;
    return r;
  };
  // |errors|: datasheet 50%, 40%, 20%; calibrated 10%, 0%, 30%.
  const std::vector<E2eComparison> rows = {row(2, 1, 2.2, 1.8, 2.6), row(5, 3, 5, 4, 6),
                                           row(10, 8, 7, 7.5, 9)};
  const E2eErrorSummary s = summarizeE2e(rows);
  CHECK(s.datasheetMedianPct == Approx(40));
  CHECK(s.calibratedMedianPct == Approx(10));
  CHECK(s.withInterval == 3);
  CHECK(s.insideInterval == 2);  // 10 lies above [7.5, 9]
  CHECK(summarizeE2e({}).datasheetMedianPct == 0);
}

namespace {

/// A session of latency runs of Llama-3-8B on one H100 (bf16 and W4A16, batches 1–128, 1,024 →
/// 512 tokens) whose figures are the model's under `truth`: what a calibration should recover.
Session syntheticSession(const Efficiency& truth) {
  Session s;
  for (const char* scheme : {"bf16", "w4a16-g128"}) {
    Candidate c;
    c.id = std::string("8b-") + scheme;
    c.model = "llama-3-8b";
    c.schemeLinear = scheme;
    c.gpu = "h100-sxm";
    s.candidates.push_back(c);
    for (double b : {1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0}) {
      ImportedRun r = run(RunKind::Latency, c.id + "-b" + std::to_string(int(b)) + ".json", c.id);
      r.metrics["latency_p50_s"] = 1.0;  // replaced below by the truth's figure
      std::vector<ImportedRun> runs{r};
      stampStaticBatch(runs, StaticBatch{b, 1024, 512});
      s.importedRuns.push_back(runs.front());
    }
  }
  std::vector<std::string> notes;
  const auto points = measuredPointsFromSession(s, "synthetic", notes);
  REQUIRE(points.size() == s.importedRuns.size());
  auto gpu = Catalog::bundled().resolveGpu("h100-sxm");
  REQUIRE(gpu.ok());
  auto prepared = preparePoints(points, *gpu, "h100-sxm", notes);
  REQUIRE(prepared.ok());
  for (std::size_t i = 0; i < prepared->size(); ++i)
    s.importedRuns[i].metrics["latency_p50_s"] = predictPoint((*prepared)[i], truth);
  return s;
}

}  // namespace

TEST_CASE("a session's runs calibrate its GPU, with a held-out check against the prior",
          "[session][e2e][calibrate]") {
  auto gpu = Catalog::bundled().resolveGpu("h100-sxm");
  REQUIRE(gpu.ok());
  const Efficiency prior = scenarioEfficiency(*gpu, false);
  // The truth: a per-step overhead 40% above the bundled prior's and 10% less bandwidth.
  Efficiency truth = prior;
  truth.overheadMs *= 1.4;
  truth.bandwidthEff *= 0.9;
  const Session s = syntheticSession(truth);
  auto cal = calibrateSession(s, "synthetic.json", "File > Calibrate on synthetic.json");
  REQUIRE(cal.ok());
  CHECK(cal->points == 16);
  CHECK(cal->gpuId == "h100-sxm");
  CHECK(cal->prior.source == prior.source);
  REQUIRE(cal->gpu.calibration.has_value());
  // The block names where it came from and when; the window's title reads it as the user's.
  const Efficiency fitted = efficiencyFromGpu(cal->gpu);
  INFO(fitted.source);
  CHECK(fitted.source.rfind(
            "calibration (File > Calibrate on synthetic.json (16 end-to-end points, ", 0) == 0);
  CHECK(constantsProvenance(fitted).rfind("your calibration: File > Calibrate on synthetic.json",
                                          0) == 0);
  // Noise-free points from the truth: the fit moves t0 and the bandwidth efficiency toward it.
  CHECK(std::abs(fitted.overheadMs / truth.overheadMs - 1) <
        std::abs(prior.overheadMs / truth.overheadMs - 1));
  CHECK(std::abs(fitted.bandwidthEff / truth.bandwidthEff - 1) <
        std::abs(prior.bandwidthEff / truth.bandwidthEff - 1));
  // Held out: half the points fitted, the other half predicted better than by the prior.
  REQUIRE(cal->heldOut);
  CHECK(cal->heldOut->fitted == 8);
  CHECK(cal->heldOut->scored == 8);
  CHECK(cal->heldOut->calibratedMedianPct < cal->heldOut->priorMedianPct);
  CHECK(cal->heldOut->priorMedianPct > 5.0);  // the prior is visibly off for this truth
}

TEST_CASE("calibrating a session without priceable runs, or on two GPUs, says why",
          "[session][e2e][calibrate]") {
  Session empty;
  auto none = calibrateSession(empty, "empty.json", "File > Calibrate on empty.json");
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().field == "runs");
  CHECK(none.error().message.find("no imported end-to-end run") != std::string::npos);

  auto gpu = Catalog::bundled().resolveGpu("h100-sxm");
  REQUIRE(gpu.ok());
  Session two = syntheticSession(scenarioEfficiency(*gpu, false));
  two.candidates[1].gpu = "a100-80gb";
  auto mixed = calibrateSession(two, "two.json", "File > Calibrate on two.json");
  REQUIRE_FALSE(mixed.ok());
  CHECK(mixed.error().field == "gpu");
  CHECK(mixed.error().message.find("several GPUs") != std::string::npos);
  // Naming the GPU fits its runs alone.
  auto h100 = calibrateSession(two, "two.json", "File > Calibrate on two.json", "h100-sxm");
  REQUIRE(h100.ok());
  CHECK(h100->points == 8);
}

TEST_CASE("a serving run unfit to calibrate from stops the fit, naming its file and field",
          "[session][e2e][calibrate][serving]") {
  Session s;
  s.candidates.push_back(candidate8b("fp8", "w8a8-fp8"));
  ImportedRun good = run(RunKind::Serving, "rate4.json", "fp8");
  good.setup["request_rate"] = "4";
  good.setup["model_id"] = "neuralmagic/Meta-Llama-3-8B-Instruct-FP8";
  good.metrics = {{"completed", 100},
                  {"total_input_tokens", 102400},
                  {"total_output_tokens", 25600},
                  {"output_throughput_tok_s", 1010},
                  {"ttft_median_ms", 48},
                  {"tpot_median_ms", 9.5}};
  struct Case {
    const char* what;
    ImportedRun bad;
    const char* field;
  };
  ImportedRun noRate = good;
  noRate.sourceFile = "norate.json";
  noRate.setup.erase("request_rate");
  ImportedRun otherModel = good;
  otherModel.sourceFile = "70b.json";
  otherModel.setup["model_id"] = "meta-llama/Llama-3.1-70B-Instruct";
  ImportedRun contradicts = good;
  contradicts.sourceFile = "odd.json";
  contradicts.metrics["ttft_median_ms_recomputed"] = 61;
  for (const Case& k :
       {Case{"a sweep without its rate", noRate, "request_rate"},
        Case{"a run of another model", otherModel, "model_id"},
        Case{"percentiles its records contradict", contradicts, "ttft_median_ms"}}) {
    INFO(k.what);
    Session bad = s;
    bad.importedRuns = {good, k.bad};
    auto cal = calibrateSession(bad, "s.json", "File > Calibrate on s.json");
    REQUIRE_FALSE(cal.ok());
    CHECK(cal.error().file == k.bad.sourceFile);
    CHECK(cal.error().field == k.field);
    // Comparing with the model is not a fit: the same run is a note there, not an error.
    std::vector<std::string> notes;
    const auto pts = measuredPointsFromSession(bad, "s.json", notes);
    CHECK(pts.size() >= 3);
  }
  // Not defects: a model of the same shapes under another catalog id (Llama-3.1-8B against a
  // Llama-3-8B candidate), and a percentile its records put within 2% (another method).
  ImportedRun sameShapes = good;
  sameShapes.sourceFile = "31.json";
  sameShapes.setup["model_id"] = "meta-llama/Llama-3.1-8B-Instruct";
  ImportedRun close = good;
  close.sourceFile = "close.json";
  close.metrics["ttft_median_ms_recomputed"] = 48.5;
  Session ok = s;
  ok.importedRuns = {good, sameShapes, close};
  std::vector<std::string> notes;
  std::vector<Error> defects;
  CHECK(measuredPointsFromSession(ok, "s.json", notes, Catalog::bundled(), &defects).size() == 9);
  CHECK(defects.empty());
}
