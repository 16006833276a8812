// The scenario's edited GPU (ScenarioSpec::gpuSpec): the engine runs on the edited figures,
// the GPU file reader's checks apply, and sessions keep it.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/session/session.hpp>

#include "support/temp_dir.hpp"

using namespace qf;

namespace {

GpuSpec catalogH100() {
  auto gpu = Catalog::bundled().resolveGpu("h100-sxm");
  REQUIRE(gpu.ok());
  return *gpu;
}

/// The catalog H100 SXM as a GPU document, with `key` set to `value`.
Json h100With(const std::string& key, const Json& value) {
  auto gpu = Catalog::bundled().resolveGpu("h100-sxm");
  REQUIRE(gpu.ok());
  Json doc = gpuToJson(*gpu);
  doc[key] = value;
  return doc;
}

double h100BandwidthTBps() {
  auto gpu = Catalog::bundled().resolveGpu("h100-sxm");
  REQUIRE(gpu.ok());
  return gpu->hbmBandwidthTBps;
}

/// bf16 memory floor (ms) of `spec` through the engine.
/// The datasheet memory floor (the bundled calibration's η_β left out).
double memoryFloorMs(ScenarioSpec spec) {
  spec.datasheet = true;
  auto s = resolveScenario(spec);
  if (!s) FAIL(s.error().str());
  auto cands = makeCandidates({"bf16"}, "", "", "");
  REQUIRE(cands.ok());
  auto rep = runEngine(*s, *cands, {1.0});
  REQUIRE(rep.ok());
  return rep->schemes.front().memoryFloorMs;
}

ScenarioSpec editedSpec(double bandwidthTBps) {
  ScenarioSpec spec;
  GpuSpec gpu = catalogH100();
  gpu.hbmBandwidthTBps = bandwidthTBps;
  spec.gpuSpec = gpu;
  return spec;
}

}  // namespace

TEST_CASE("edited GPU: the engine runs on the edited bandwidth", "[scenario][gpu-edit]") {
  const double catalogTBps = h100BandwidthTBps();
  REQUIRE(catalogTBps == Approx(3.35));  // the H100 SXM datasheet figure
  const ScenarioSpec base;
  const ScenarioSpec halved = editedSpec(catalogTBps / 2);

  auto s = resolveScenario(halved);
  REQUIRE(s.ok());
  CHECK(s->gpu.hbmBandwidthTBps == catalogTBps / 2);
  CHECK(s->gpu.id == "h100-sxm");  // the id it was edited from
  CHECK(halved.gpu == "h100-sxm");

  // Memory-bound at batch 1: the floor is bytes / bandwidth, so half the bandwidth doubles it.
  const double before = memoryFloorMs(base);
  const double after = memoryFloorMs(halved);
  CHECK(after / before == Approx(2.0).epsilon(1e-12));

  // Hand computation: Llama 3 8B holds 8,030,261,248 parameters, 2 bytes each in bf16; the
  // memory floor reads at least every weight but the embedding table (128,256 × 4,096 rows,
  // of which a step reads one row per token) once.
  const double weightBytes = (8'030'261'248.0 - 128'256.0 * 4'096.0) * 2.0;
  const double floorFromHandMs = weightBytes / (catalogTBps / 2 * 1e12) * 1e3;
  CHECK(after == Approx(floorFromHandMs).epsilon(0.02));

  // The same figures in a GPU file give the same floor.
  testing::TempDir dir;
  const std::string path = (dir.path() / "half-h100.json").string();
  std::ofstream(path) << h100With("hbm_bandwidth_tbs", catalogTBps / 2).dump();
  ScenarioSpec fromFile;
  fromFile.gpu = path;
  CHECK(memoryFloorMs(fromFile) == after);
}

TEST_CASE("edited GPU: values outside the GPU file ranges are refused, naming the field",
          "[scenario][gpu-edit]") {
  struct Bad {
    std::string key;
    std::function<void(GpuSpec&)> set;
    std::string shown;  // the value as the message states it
    std::string position;
  };
  const Bad cases[] = {
      {"hbm_bandwidth_tbs", [](GpuSpec& g) { g.hbmBandwidthTBps = -1; }, "found -1",
       "/gpu_spec/hbm_bandwidth_tbs"},
      {"hbm_bandwidth_tbs",
       [](GpuSpec& g) { g.hbmBandwidthTBps = std::numeric_limits<double>::quiet_NaN(); }, "nan",
       "/gpu_spec/hbm_bandwidth_tbs"},
      {"memory_gib", [](GpuSpec& g) { g.memoryGib = 1e308; }, "found 1e+308",
       "/gpu_spec/memory_gib"},
      {"vector_fp32_tflops", [](GpuSpec& g) { g.vectorFp32Tflops = 0; }, "found 0",
       "/gpu_spec/vector_fp32_tflops"},
      {"tensor_tflops.fp8",
       [](GpuSpec& g) { g.tensorTflops[static_cast<std::size_t>(TensorPath::Fp8)] = -5; },
       "found -5", "/gpu_spec/tensor_tflops/fp8"},
      {"nvlink_gbs", [](GpuSpec& g) { g.nvlinkGBps = 0; }, "found 0", "/gpu_spec/nvlink_gbs"},
      {"price_per_hour", [](GpuSpec& g) { g.pricePerGpuHourUsd = -1; }, "found -1",
       "/gpu_spec/price_per_hour"},
      {"name", [](GpuSpec& g) { g.name.clear(); }, "missing", "/gpu_spec/name"},
      {"tensor_tflops",
       [](GpuSpec& g) {
         g.tensorTflops = {};
         g.tensorTflops[static_cast<std::size_t>(TensorPath::Fp8)] = 1979.0;
       },
       "bf16 or fp16", "/gpu_spec/tensor_tflops"},
      {"calibration.bandwidth_efficiency",
       [](GpuSpec& g) {
         g.calibration = GpuCalibration{};
         g.calibration->bandwidthEfficiency = 0;
       },
       "found 0", "/gpu_spec/calibration/bandwidth_efficiency"},
      {"calibration.compute_efficiency.bf16",
       [](GpuSpec& g) {
         g.calibration = GpuCalibration{};
         g.calibration->computeEfficiency["bf16"] = 2.0;
       },
       "found 2", "/gpu_spec/calibration/compute_efficiency/bf16"},
  };
  for (const auto& bad : cases) {
    INFO(bad.key);
    ScenarioSpec spec;
    GpuSpec gpu = catalogH100();
    bad.set(gpu);
    spec.gpuSpec = gpu;
    // resolveScenario checks an edited GPU set directly, naming the field and its pointer.
    auto s = resolveScenario(spec);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().field == bad.key);
    CHECK(s.error().position == bad.position);
    CHECK_THAT(s.error().message, Catch::Contains(bad.shown));
  }
  // The catalog's own figures pass the same checks.
  CHECK_FALSE(checkGpu(catalogH100()).has_value());
  for (const auto& g : Catalog::bundled().gpus()) {
    INFO(g.id);
    CHECK_FALSE(checkGpu(g).has_value());
  }
}

TEST_CASE("edited GPU: one without an id takes the scenario's GPU id", "[scenario][gpu-edit]") {
  ScenarioSpec spec;
  GpuSpec gpu = catalogH100();
  gpu.id.clear();
  gpu.name = "H100, memory clock lowered";
  spec.gpuSpec = gpu;
  auto s = resolveScenario(spec);
  REQUIRE(s.ok());
  CHECK(s->gpu.id == "h100-sxm");
  CHECK(s->gpu.name == "H100, memory clock lowered");
}

TEST_CASE("edited GPU: sessions save and load it under scenario.gpu_spec",
          "[scenario][gpu-edit][session]") {
  Session s;
  s.scenario = editedSpec(1.5);
  const std::string text = sessionToText(s);
  const Json written = Json::parse(text);
  REQUIRE(written.at("scenario").contains("gpu_spec"));
  CHECK(written.at("scenario").at("gpu_spec").at("hbm_bandwidth_tbs") == 1.5);
  CHECK(written.at("scenario").at("gpu") == "h100-sxm");

  testing::TempDir dir;
  const std::string path = (dir.path() / "edited.json").string();
  REQUIRE_FALSE(saveSessionAtomic(s, path).has_value());
  auto back = loadSession(path);
  if (!back) FAIL(back.error().str());
  CHECK(back->loadNotes.empty());  // gpu_spec is a known key
  CHECK(back->scenario.gpuSpec == s.scenario.gpuSpec);
  CHECK(back->scenario.gpu == "h100-sxm");
  auto resolved = resolveScenario(back->scenario);
  REQUIRE(resolved.ok());
  CHECK(resolved->gpu.hbmBandwidthTBps == 1.5);
  CHECK(sessionToText(*back) == text);  // saving again gives the same bytes
}

TEST_CASE("edited GPU: an invalid gpu_spec in a session is refused with its pointer",
          "[scenario][gpu-edit][session]") {
  Session s;
  Json doc = sessionToJson(s);
  doc["scenario"]["gpu_spec"] = h100With("memory_gib", -80.0);
  auto back = parseSession(doc, "bad.json");
  REQUIRE_FALSE(back.ok());
  CHECK(back.error().file == "bad.json");
  CHECK(back.error().position == "/scenario/gpu_spec/memory_gib");
  CHECK(back.error().field == "memory_gib");
}

TEST_CASE("edited GPU: a session without gpu_spec has none", "[scenario][gpu-edit][session]") {
  Session s;
  const std::string text = sessionToText(s);
  CHECK(text.find("gpu_spec") == std::string::npos);
  auto back = parseSessionText(text, "plain.json");
  REQUIRE(back.ok());
  CHECK_FALSE(back->scenario.gpuSpec.has_value());
  CHECK(sessionToText(*back) == text);
}

TEST_CASE("edited GPU: modelled metrics use it only for candidates on that GPU",
          "[scenario][gpu-edit][session]") {
  const ScenarioSpec base;
  const ScenarioSpec halved = editedSpec(h100BandwidthTBps() / 2);
  Candidate onH100;
  onH100.id = "8b-bf16-h100";
  onH100.model = "llama-3-8b";
  onH100.schemeLinear = "bf16";
  onH100.gpu = "H100-SXM";  // catalog ids match ignoring case
  onH100.gpuCount = 1;
  Candidate onA100 = onH100;
  onA100.id = "8b-bf16-a100";
  onA100.gpu = "a100-80gb";

  auto floorOf = [](const Candidate& c, const ScenarioSpec& spec) {
    auto m = modelledMetrics(c, spec);
    if (!m) FAIL(m.error().str());
    return m->at("memory_floor_ms");
  };
  const MetricValue h100Edited = floorOf(onH100, halved);
  CHECK(h100Edited.value / floorOf(onH100, base).value == Approx(2.0).epsilon(1e-12));
  CHECK_THAT(h100Edited.provenance.note, Catch::Contains("(edited: H100 SXM 80GB)"));
  const MetricValue a100 = floorOf(onA100, halved);
  CHECK(a100.value == floorOf(onA100, base).value);
  CHECK_THAT(a100.provenance.note, !Catch::Contains("edited"));
}

TEST_CASE("two scenarios are equal only when every field is", "[scenario][spec]") {
  const ScenarioSpec base;
  CHECK(base == ScenarioSpec{});
  // One change per field: undo must see each of them.
  const std::vector<std::function<void(ScenarioSpec&)>> changes = {
      [](ScenarioSpec& s) { s.model = "llama-3-70b"; },
      [](ScenarioSpec& s) { s.gpu = "h200-sxm"; },
      [](ScenarioSpec& s) { s.gpuSpec = GpuSpec{}; },
      [](ScenarioSpec& s) { s.tp = 2; },
      [](ScenarioSpec& s) { s.schemes.pop_back(); },
      [](ScenarioSpec& s) { s.mixedLinear = "w8a8-fp8"; },
      [](ScenarioSpec& s) { s.mixedMoe = "w4a16-g128"; },
      [](ScenarioSpec& s) { s.mixedLmHead = "bf16"; },
      [](ScenarioSpec& s) { s.batchMin = 2; },
      [](ScenarioSpec& s) { s.batchMax = 512; },
      [](ScenarioSpec& s) { s.maxModelLen = 4096; },
      [](ScenarioSpec& s) { s.kvDtype = "fp8"; },
      [](ScenarioSpec& s) { s.memUtil = 0.9; },
      [](ScenarioSpec& s) { s.reserveGib = 4; },
      [](ScenarioSpec& s) { s.contextTokens = 1024; },
      [](ScenarioSpec& s) { s.useCase = "chat"; },
      [](ScenarioSpec& s) { s.inputLen = 128; },
      [](ScenarioSpec& s) { s.outputLen = 128; },
      [](ScenarioSpec& s) { s.datasheet = true; },
      [](ScenarioSpec& s) { s.engine = "trtllm"; },
  };
  for (std::size_t i = 0; i < changes.size(); ++i) {
    INFO("field " << i);
    ScenarioSpec changed = base;
    changes[i](changed);
    CHECK_FALSE(changed == base);
  }
  // Two edited copies of one GPU differ when any figure, source or calibration does.
  ScenarioSpec edited;
  edited.gpuSpec = catalogH100();
  const std::vector<std::function<void(GpuSpec&)>> gpuChanges = {
      [](GpuSpec& g) { g.tensorTflops[static_cast<std::size_t>(TensorPath::Fp4)] = 1.0; },
      [](GpuSpec& g) { g.nvlinkGBps.reset(); },
      [](GpuSpec& g) { g.priceSource = "entered by hand"; },
      [](GpuSpec& g) { g.calibration = GpuCalibration{}; },
  };
  for (std::size_t i = 0; i < gpuChanges.size(); ++i) {
    INFO("GPU field " << i);
    ScenarioSpec changed = edited;
    gpuChanges[i](*changed.gpuSpec);
    CHECK_FALSE(changed == edited);
  }
  ScenarioSpec same = edited;
  CHECK(same == edited);
}

TEST_CASE("the constants' provenance names the fit, the carry-over or the user's calibration",
          "[scenario][provenance]") {
  CHECK(constantsProvenance(Efficiency{}) == "datasheet roofline");
  auto bundledFor = [](const std::string& gpu, const std::string& engine = "") {
    ScenarioSpec spec;
    spec.gpu = gpu;
    spec.engine = engine;
    auto s = resolveScenario(spec);
    REQUIRE(s.ok());
    return constantsProvenance(s->efficiency);
  };
  CHECK(bundledFor("h100-sxm") == "bundled constants fitted to 71 published H100 SXM vLLM figures");
  CHECK(bundledFor("h100-sxm", "trtllm") ==
        "bundled constants fitted to 173 published H100 SXM TensorRT-LLM figures");
  CHECK(bundledFor("h200-sxm") ==
        "bundled constants carried over from the H100 SXM fit to published vLLM figures");
  CHECK(bundledFor("h200-sxm", "trtllm") ==
        "bundled constants carried over from the H100 SXM fit to published TensorRT-LLM figures");
  CHECK(bundledFor("l40s") ==
        "bundled constants carried over from the A6000 fit to arXiv:2411.02355");
  Efficiency mine;
  mine.overheadMs = 3;
  mine.source = "qfront calibrate on runs.csv (12 end-to-end points, 2026-12-03)";
  CHECK(constantsProvenance(mine) == "your calibration: qfront calibrate on runs.csv, 2026-12-03");
  mine.source = "";
  CHECK(constantsProvenance(mine) == "your calibration");
}

TEST_CASE("TensorRT-LLM figures take the constants fitted to TensorRT-LLM where a GPU has them",
          "[scenario][engine]") {
  auto resolved = [](const std::string& gpu, const std::string& engine) {
    ScenarioSpec spec;
    spec.gpu = gpu;
    spec.engine = engine;
    auto s = resolveScenario(spec);
    REQUIRE(s.ok());
    return *s;
  };
  const Scenario vllm = resolved("h100-sxm", "");
  const Scenario trt = resolved("h100-sxm", "trtllm");
  // The two engines' per-step costs differ (docs/model.md, "Constants per serving engine"):
  // TensorRT-LLM's fixed and per-sequence costs are the smaller.
  CHECK(trt.efficiency.overheadMs < vllm.efficiency.overheadMs);
  CHECK(trt.efficiency.seqOverheadUs < vllm.efficiency.seqOverheadUs / 3);
  CHECK(trt.efficiency.source != vllm.efficiency.source);
  // And its KV pool rule.
  CHECK(trt.kvFreeFraction == 0.9);
  CHECK(vllm.kvFreeFraction == 0.0);
  // vLLM, SGLang and an unnamed engine share one block; "tensorrt-llm" is TensorRT-LLM.
  CHECK(resolved("h100-sxm", "sglang").efficiency.source == vllm.efficiency.source);
  CHECK(resolved("h100-sxm", "vllm").efficiency.overheadMs == vllm.efficiency.overheadMs);
  CHECK(resolved("h100-sxm", "tensorrt-llm").efficiency.overheadMs == trt.efficiency.overheadMs);
  // A GPU whose bundled block has no TensorRT-LLM constants keeps its one block.
  CHECK(resolved("a6000", "trtllm").efficiency.overheadMs ==
        resolved("a6000", "").efficiency.overheadMs);
  // A GPU file's own calibration is used whatever the engine.
  ScenarioSpec own;
  own.gpuSpec = *Catalog::bundled().resolveGpu("h100-sxm");
  GpuCalibration mine;
  mine.overheadMs = 1.25;
  mine.source = "mine";
  own.gpuSpec->calibration = mine;
  own.engine = "trtllm";
  auto o = resolveScenario(own);
  REQUIRE(o.ok());
  CHECK(o->efficiency.overheadMs == 1.25);
  // An engine the model does not know is refused, naming the field.
  ScenarioSpec bad;
  bad.engine = "tgi";
  auto b = resolveScenario(bad);
  REQUIRE_FALSE(b.ok());
  CHECK(b.error().field == "engine");
}

TEST_CASE("a bundled calibration file's engine blocks are read and checked", "[catalog][engine]") {
  const std::string ok = R"({"gpus": {"x": {"overhead_ms": 3, "source": "v",
      "engines": {"trtllm": {"overhead_ms": 1.5, "source": "t"}}}}})";
  auto d = parseDefaultCalibrations(ok, "cal.json");
  REQUIRE(d.ok());
  REQUIRE(d->count("x") == 1);
  REQUIRE(d->count("x@trtllm") == 1);
  CHECK(d->at("x").overheadMs == 3.0);
  CHECK(d->at("x@trtllm").overheadMs == 1.5);
  CHECK(d->at("x").extraJson.find("engines") == std::string::npos);
  auto unknown = parseDefaultCalibrations(
      R"({"gpus": {"x": {"overhead_ms": 3, "engines": {"tgi": {"overhead_ms": 1}}}}})", "cal.json");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().position == "/gpus/x/engines/tgi");
  auto badBlock = parseDefaultCalibrations(
      R"({"gpus": {"x": {"overhead_ms": 3, "engines": {"trtllm": {"overhead_ms": -1}}}}})",
      "cal.json");
  REQUIRE_FALSE(badBlock.ok());
  CHECK(badBlock.error().position.rfind("/gpus/x/engines/trtllm", 0) == 0);
  CHECK(engineConstantsKey("TensorRT-LLM") == "trtllm");
  CHECK(engineConstantsKey("sglang").empty());
}
