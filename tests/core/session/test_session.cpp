// Session files: round trip, migration, refusal of newer versions, atomic saves, bad input.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/frontier.hpp>
#include <quantfront/core/analysis/metric_dictionary.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/cost.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/session/session.hpp>
#include "support/temp_dir.hpp"

using namespace qf;
namespace fs = std::filesystem;

namespace {

const std::string kDataDir = std::string(QF_TEST_DATA_DIR) + "/session";

using qf::testing::TempDir;

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void writeAll(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

const std::string kSha = std::string(64, 'a');

/// A session with every kind of content the format holds.
Session richSession() {
  Session s;
  s.title = "round trip \xce\xbb";  // UTF-8 kept as is
  s.notes = "notes";
  s.scenario.model = "llama-3.1-70b";
  s.scenario.gpu = "a100-80gb";
  s.scenario.tp = 2;
  s.scenario.schemes = {"bf16", "w8a8-int8"};
  s.scenario.mixedLinear = "w8a8-int8";
  s.scenario.mixedLmHead = "bf16";
  s.scenario.kvDtype = "fp8";
  s.scenario.maxModelLen = 4096;
  s.scenario.memUtil = 0.9;
  s.scenario.reserveGib = 4.5;
  s.scenario.contextTokens = 2048;
  s.scenario.useCase = "code-fixing";
  s.scenario.batchMin = 2;
  s.scenario.batchMax = 300;
  s.scenario.specDraftTokens = 4;
  s.scenario.specAcceptance = 0.65;
  s.scenario.specDraft = "llama-3.1-8b";

  Candidate c;
  c.id = "c1";
  c.model = "llama-3.1-70b";
  c.schemeLinear = "w4a16-g128";
  c.schemeMoe = "w4a16-g128";
  c.schemeLmHead = "bf16";
  c.gpu = "a100-80gb";
  c.gpuCount = 2;
  c.engine = "vLLM 0.6.4.post1";
  c.notes = "n";
  MetricValue measured;
  measured.value = 7.25;
  measured.lo = 7.0;
  measured.hi = 7.5;
  measured.n = 1000;
  measured.provenance.kind = ProvenanceKind::Measured;
  measured.provenance.sourceFile = "serve.json";
  measured.provenance.sha256 = kSha;
  c.metrics["tpot_p99_ms"] = measured;
  MetricValue published;
  published.value = 0.1 + 0.2;  // not exactly representable: must round-trip bit for bit
  published.provenance.kind = ProvenanceKind::Published;
  published.provenance.citation = "arXiv:2411.02355 Table 2";
  c.metrics["open_llm_v1_recovery_pct"] = published;
  MetricValue modelled;
  modelled.value = 1e-300;
  modelled.provenance.kind = ProvenanceKind::Modelled;
  modelled.provenance.note = "engine";
  c.metrics["step_ms_b1"] = modelled;
  s.candidates.push_back(c);
  Candidate c2 = c;
  c2.id = "c2";
  c2.schemeMoe.clear();
  c2.schemeLmHead.clear();
  c2.metrics.clear();
  s.candidates.push_back(c2);

  ImportedRun run;
  run.format = "vllm-serve";
  run.kind = qf::RunKind::Serving;
  run.sourceFile = "serve.json";
  run.sha256 = kSha;
  run.label = "bf16";
  run.setup = {{"backend", "vllm"}, {"request_rate", "inf"}};
  run.metrics = {{"tpot_p99_ms", 7.25},
                 {"nan_metric", std::numeric_limits<double>::quiet_NaN()},
                 {"rate_req_s", std::numeric_limits<double>::infinity()},
                 {"neg", -std::numeric_limits<double>::infinity()}};
  RequestRecord q;
  q.ttftS = 0.03;
  q.latencyS = 1.2;
  q.itlsS = {0.01, 0.011};
  q.inputLen = 256;
  q.outputLen = 3;
  q.success = false;
  run.requests = {q, q};
  run.decodeStepByBatch = {{1, 0.0045}, {64, 0.005}};
  run.warnings = {"skipped key 'x': unknown"};
  s.importedRuns.push_back(run);

  KernelMeasurement k;
  k.kernel = "dequant_w4a16_g128";
  k.scheme = "w4a16-g128";
  k.device = "NVIDIA H200";
  k.m = 1;
  k.n = 4096;
  k.k = 4096;
  k.medianS = 1.5e-5;
  k.minS = 1.4e-5;
  k.relNoise = 0.01;
  k.samples = 100;
  k.bytesMoved = 8.6e6;
  k.flops = 3.3e7;
  k.sourceFile = "nvbench.json";
  s.kernelMeasurements.push_back(k);

  s.view.objectives = {{"open_llm_v1_recovery_pct", Direction::Max},
                       {"tpot_p99_ms", Direction::Min}};
  s.view.gates = {"open_llm_v1_recovery_pct>=99", "tpot_p99_ms<70"};
  s.view.axes = {"tpot_p99_ms", "open_llm_v1_recovery_pct", "weights_gib"};
  s.view.tab = "pareto";
  return s;
}

/// Parses text as a session and returns the error (fails the test when it parses).
Error parseError(const std::string& text, const std::string& label = "bad.json") {
  auto r = parseSessionText(text, label);
  REQUIRE_FALSE(r.ok());
  return r.error();
}

std::string minimalWith(const std::string& candidatesJson, const std::string& extra = "") {
  return R"({"format": "quantfront-session", "version": 2,
  "scenario": {"model": "llama-3-8b", "gpu": "h100-sxm", "tp": 1, "schemes": ["bf16"],
    "kv_dtype": "bf16", "max_model_len": 8192, "mem_util": 0.92, "reserve_gib": 6.0,
    "context": 0, "batch": {"min": 1, "max": 1024}},
  "candidates": )" +
         candidatesJson + extra + "}";
}

std::string candidateWith(const std::string& metric) {
  return R"([{"id": "a", "model": "llama-3-8b", "schemes": {"linear": "bf16"},
    "gpu": "h100-sxm", "gpu_count": 1, "metrics": {"m": )" +
         metric + "}}]";
}

}  // namespace

TEST_CASE("session: save then load gives the same session", "[session]") {
  TempDir dir;
  const Session s = richSession();
  const std::string path = dir.file("s.json");
  REQUIRE_FALSE(saveSessionAtomic(s, path).has_value());
  CHECK(dir.entries() == std::vector<std::string>{"s.json"});  // no temporary left behind

  auto back = loadSession(path);
  REQUIRE(back.ok());
  CHECK(back->loadNotes.empty());
  CHECK(back->loadedVersion == kSessionVersion);
  CHECK(sessionToJson(*back) == sessionToJson(s));

  // Spot checks on the structs themselves, bit for bit where it matters.
  CHECK(back->title == s.title);
  CHECK(back->scenario.model == "llama-3.1-70b");
  CHECK(back->scenario.tp == 2);
  CHECK(back->scenario.schemes == s.scenario.schemes);
  CHECK(back->scenario.mixedLinear == "w8a8-int8");
  CHECK(back->scenario.mixedMoe.empty());
  CHECK(back->scenario.mixedLmHead == "bf16");
  CHECK(back->scenario.kvDtype == "fp8");
  CHECK(back->scenario.maxModelLen == 4096);
  CHECK(back->scenario.memUtil == 0.9);
  CHECK(back->scenario.reserveGib == 4.5);
  CHECK(back->scenario.contextTokens == 2048);
  CHECK(back->scenario.useCase == "code-fixing");
  CHECK(back->scenario.batchMin == 2);
  CHECK(back->scenario.batchMax == 300);
  REQUIRE(back->candidates.size() == 2);
  const Candidate& c = back->candidates[0];
  CHECK(c.schemeLinear == "w4a16-g128");
  CHECK(c.schemeMoe == "w4a16-g128");
  CHECK(c.schemeLmHead == "bf16");
  CHECK(c.gpuCount == 2);
  CHECK(c.metrics.at("open_llm_v1_recovery_pct").value == 0.1 + 0.2);
  CHECK(c.metrics.at("step_ms_b1").value == 1e-300);
  const MetricValue& m = c.metrics.at("tpot_p99_ms");
  CHECK(m.lo == 7.0);
  CHECK(m.hi == 7.5);
  CHECK(m.n == 1000);
  CHECK(m.provenance.kind == ProvenanceKind::Measured);
  CHECK(m.provenance.sourceFile == "serve.json");
  CHECK(m.provenance.sha256 == kSha);
  CHECK(c.metrics.at("open_llm_v1_recovery_pct").provenance.citation == "arXiv:2411.02355 Table 2");
  CHECK(back->candidates[1].schemeMoe.empty());
  REQUIRE(back->importedRuns.size() == 1);
  const ImportedRun& run = back->importedRuns[0];
  CHECK(std::isnan(run.metrics.at("nan_metric")));
  CHECK(run.metrics.at("rate_req_s") == std::numeric_limits<double>::infinity());
  CHECK(run.metrics.at("neg") == -std::numeric_limits<double>::infinity());
  CHECK(run.setup.at("request_rate") == "inf");
  REQUIRE(run.requests.size() == 2);
  CHECK(run.requests[1].itlsS == std::vector<double>{0.01, 0.011});
  CHECK_FALSE(run.requests[1].success);
  CHECK(run.decodeStepByBatch == s.importedRuns[0].decodeStepByBatch);
  CHECK(run.warnings == s.importedRuns[0].warnings);
  REQUIRE(back->kernelMeasurements.size() == 1);
  CHECK(back->kernelMeasurements[0].n == 4096);
  CHECK(back->kernelMeasurements[0].medianS == 1.5e-5);
  REQUIRE(back->view.objectives.size() == 2);
  CHECK(back->view.objectives[0].direction == Direction::Max);
  CHECK(back->view.objectives[1].direction == Direction::Min);
  CHECK(back->view.gates == s.view.gates);
  CHECK(back->view.axes.color == "weights_gib");
  CHECK(back->view.tab == "pareto");

  // Saved text starts with the format and version, and a second save is byte-identical.
  const std::string text = readAll(path);
  CHECK(text.rfind("{\n  \"format\": \"quantfront-session\",\n  \"version\": 2,", 0) == 0);
  REQUIRE_FALSE(saveSessionAtomic(*back, path).has_value());
  CHECK(readAll(path) == text);
}

TEST_CASE("session: a default session round-trips", "[session]") {
  const Session s;
  auto back = parseSessionText(sessionToText(s), "new.json");
  REQUIRE(back.ok());
  CHECK(sessionToJson(*back) == sessionToJson(s));
  CHECK(back->scenario.schemes == s.scenario.schemes);
}

TEST_CASE("session: version 1 migrates to version 2", "[session]") {
  const std::string path = kDataDir + "/v1_session.json";
  auto s = loadSession(path);
  REQUIRE(s.ok());
  CHECK(s->loadedVersion == 1);
  REQUIRE_FALSE(s->loadNotes.empty());
  CHECK(s->loadNotes.front().find("migrated from session version 1 to 2") != std::string::npos);
  const bool digestNote = std::any_of(s->loadNotes.begin(), s->loadNotes.end(), [](const auto& n) {
    return n.find("no SHA-256") != std::string::npos;
  });
  CHECK(digestNote);

  CHECK(s->scenario.batchMin == 1);
  CHECK(s->scenario.batchMax == 512);
  CHECK(s->scenario.schemes == std::vector<std::string>{"bf16", "w4a16-g128"});
  REQUIRE(s->candidates.size() == 3);
  const Candidate& a = s->candidates[0];
  CHECK(a.schemeLinear == "bf16");
  CHECK(a.schemeMoe.empty());
  const MetricValue& tpot = a.metrics.at("tpot_p99_ms");
  CHECK(tpot.value == 7.5);
  CHECK(tpot.provenance.kind == ProvenanceKind::Measured);
  CHECK(tpot.provenance.sourceFile == "serve_bf16.json");
  CHECK(a.metrics.at("throughput_tok_s").value == 4100);
  const MetricValue& rec = s->candidates[1].metrics.at("open_llm_v1_recovery_pct");
  CHECK(rec.provenance.kind == ProvenanceKind::Published);
  CHECK(rec.provenance.citation == "arXiv:2411.02355 Table 2");
  CHECK(s->candidates[2].metrics.at("step_ms_b1").provenance.kind == ProvenanceKind::Modelled);
  REQUIRE(s->importedRuns.size() == 1);
  CHECK(s->importedRuns[0].sha256.empty());
  REQUIRE(s->view.objectives.size() == 2);
  CHECK(s->view.objectives[0].metric == "open_llm_v1_recovery_pct");
  CHECK(s->view.objectives[0].direction == Direction::Max);
  CHECK(s->view.objectives[1].direction == Direction::Min);
  CHECK(s->view.axes.x == "tpot_p99_ms");
  CHECK(s->view.axes.y == "open_llm_v1_recovery_pct");
  CHECK(s->view.tab == "pareto");

  // Saving writes version 2; loading that gives the same session without a migration note.
  TempDir dir;
  REQUIRE_FALSE(saveSessionAtomic(*s, dir.file("v2.json")).has_value());
  auto again = loadSession(dir.file("v2.json"));
  REQUIRE(again.ok());
  CHECK(again->loadedVersion == 2);
  CHECK(again->loadNotes.empty());
  CHECK(sessionToJson(*again) == sessionToJson(*s));
}

TEST_CASE("session: version-1 errors name the version-1 field", "[session]") {
  auto s = loadSession(kDataDir + "/v1_measured_without_source.json");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().field == "source");
  CHECK(s.error().position == "/candidates/0/source");
  CHECK(s.error().file.find("v1_measured_without_source.json") != std::string::npos);
}

TEST_CASE("session: a newer version and another format are refused", "[session]") {
  auto newer = loadSession(kDataDir + "/newer_version.json");
  REQUIRE_FALSE(newer.ok());
  CHECK(newer.error().field == "version");
  CHECK(newer.error().message ==
        "written by a newer QuantFront (version 3); this build reads up to 2");
  CHECK(newer.error().file.find("newer_version.json") != std::string::npos);

  auto other = loadSession(kDataDir + "/wrong_format.json");
  REQUIRE_FALSE(other.ok());
  CHECK(other.error().field == "format");
  CHECK(other.error().message.find("quantfront-gpus") != std::string::npos);

  const Error huge = parseError(R"({"format": "quantfront-session", "version": 1000000000000})");
  CHECK(huge.message ==
        "written by a newer QuantFront (version 1000000000000); this build reads up to 2");

  const Error noFormat = parseError(R"({"version": 2, "candidates": []})");
  CHECK(noFormat.field == "format");
  const Error zero = parseError(R"({"format": "quantfront-session", "version": 0})");
  CHECK(zero.field == "version");
  const Error frac = parseError(R"({"format": "quantfront-session", "version": 1.5})");
  CHECK(frac.field == "version");
}

TEST_CASE("session: bad input names file, position and field", "[session]") {
  TempDir dir;
  SECTION("truncated") {
    auto s = loadSession(kDataDir + "/truncated.json");
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().file.find("truncated.json") != std::string::npos);
    CHECK(s.error().position.rfind("line ", 0) == 0);
    CHECK(s.error().message.find("not valid JSON") != std::string::npos);
  }
  SECTION("empty file") {
    writeAll(dir.file("empty.json"), "");
    auto s = loadSession(dir.file("empty.json"));
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().file == dir.file("empty.json"));
    CHECK(s.error().message.find("empty") != std::string::npos);
  }
  SECTION("missing file") {
    auto s = loadSession(dir.file("nope.json"));
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message.find("not found") != std::string::npos);
  }
  SECTION("1 GB file is refused before reading") {
    const std::string big = dir.file("big.json");
    { std::ofstream(big).put('{'); }
    fs::resize_file(big, 1ull << 30);  // sparse: no disk is used
    auto s = loadSession(big);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().file == big);
    CHECK(s.error().message.find("larger than") != std::string::npos);
  }
  SECTION("UTF-8 garbage") {
    const std::string text =
        minimalWith("[]", R"(, "title": ")" + std::string("\xff\xfe\xc3") + "\"");
    const Error e = parseError(text, "garbage.json");
    CHECK(e.file == "garbage.json");
    CHECK(e.position.rfind("line ", 0) == 0);
    CHECK(e.message.find("not valid JSON") != std::string::npos);
    const Error bin = parseError(std::string("\x89PNG\r\n\x1a\n\0\0", 10), "image.png");
    CHECK(bin.position == "line 1, column 1");
  }
  SECTION("bare NaN where a number is needed") {
    const Error e = parseError(
        minimalWith(candidateWith(R"({"value": NaN, "provenance": {"kind": "modelled"}})")));
    CHECK(e.position.rfind("line ", 0) == 0);
    CHECK(e.file == "bad.json");
  }
  SECTION("NaN as a string where a number is needed") {
    const Error e = parseError(
        minimalWith(candidateWith(R"({"value": "NaN", "provenance": {"kind": "modelled"}})")));
    CHECK(e.position == "/candidates/0/metrics/m/value");
    CHECK(e.field == "value");
    CHECK(e.message.find("expected a number") != std::string::npos);
  }
  SECTION("bare number where v2 needs a metric object") {
    const Error e = parseError(minimalWith(candidateWith("12.5")));
    CHECK(e.position == "/candidates/0/metrics/m");
    CHECK(e.field == "m");
  }
  SECTION("unknown provenance kind") {
    const Error e = parseError(
        minimalWith(candidateWith(R"({"value": 1, "provenance": {"kind": "guessed"}})")));
    CHECK(e.position == "/candidates/0/metrics/m/provenance/kind");
    CHECK(e.field == "kind");
  }
  SECTION("published figure without a citation") {
    const Error e = parseError(
        minimalWith(candidateWith(R"({"value": 1, "provenance": {"kind": "published"}})")));
    CHECK(e.field == "citation");
  }
  SECTION("measured figure without a source file") {
    const Error e = parseError(minimalWith(
        candidateWith(R"({"value": 1, "provenance": {"kind": "measured", "sha256": ""}})")));
    CHECK(e.field == "source_file");
  }
  SECTION("malformed digest") {
    const Error e = parseError(minimalWith(candidateWith(
        R"({"value": 1, "provenance": {"kind": "measured", "source_file": "a", "sha256": "XYZ"}})")));
    CHECK(e.field == "sha256");
  }
  SECTION("interval upside down") {
    const Error e = parseError(minimalWith(
        candidateWith(R"({"value": 1, "lo": 2, "hi": 1, "provenance": {"kind": "modelled"}})")));
    CHECK(e.field == "hi");
  }
  SECTION("wrong type in the scenario") {
    std::string text = minimalWith("[]");
    text.replace(text.find("\"tp\": 1"), 7, "\"tp\": \"two\"");
    const Error e = parseError(text);
    CHECK(e.position == "/scenario/tp");
    CHECK(e.field == "tp");
    CHECK(e.message.find("found a string") != std::string::npos);
  }
  SECTION("out-of-range memory utilisation") {
    std::string text = minimalWith("[]");
    text.replace(text.find("\"mem_util\": 0.92"), 16, "\"mem_util\": 1.5");
    CHECK(parseError(text).field == "mem_util");
  }
  SECTION("unknown KV dtype") {
    std::string text = minimalWith("[]");
    text.replace(text.find("\"kv_dtype\": \"bf16\""), 18, "\"kv_dtype\": \"int3\"");
    CHECK(parseError(text).field == "kv_dtype");
  }
  SECTION("speculation out of range") {
    for (const auto& [sp, field] :
         {std::pair<std::string, std::string>{
              R"({"draft_tokens": 16, "acceptance": 0.7, "draft": "mtp"})", "draft_tokens"},
          {R"({"draft_tokens": 3, "acceptance": 0, "draft": "mtp"})", "acceptance"},
          {R"({"draft_tokens": 3, "acceptance": 0.7})", "draft"}}) {
      std::string text = minimalWith("[]");
      text.replace(text.find("\"context\": 0"), 12, "\"context\": 0, \"speculation\": " + sp);
      const Error e = parseError(text);
      CHECK(e.field == field);
      CHECK(e.position.rfind("/scenario/speculation", 0) == 0);
    }
  }
  SECTION("missing scenario") {
    const Error e =
        parseError(R"({"format": "quantfront-session", "version": 2, "candidates": []})");
    CHECK(e.field == "scenario");
    CHECK(e.position == "/scenario");
  }
  SECTION("candidates not an array") {
    const Error e = parseError(minimalWith("{}"));
    CHECK(e.field == "candidates");
  }
  SECTION("duplicate candidate id") {
    const std::string one =
        R"({"id": "a", "model": "m", "schemes": {"linear": "bf16"}, "gpu": "g", "gpu_count": 1, "metrics": {}})";
    const Error e = parseError(minimalWith("[" + one + ", " + one + "]"));
    CHECK(e.position == "/candidates/1/id");
    CHECK(e.message.find("duplicate") != std::string::npos);
  }
  SECTION("gate that does not parse") {
    const Error e = parseError(minimalWith("[]", R"(, "view": {"gates": ["recovery_pct >> 3"]})"));
    CHECK(e.position == "/view/gates/0");
    CHECK(e.field == "gates");
  }
  SECTION("objective orientation") {
    const Error e = parseError(
        minimalWith("[]", R"(, "view": {"objectives": [{"metric": "x", "orientation": "up"}]})"));
    CHECK(e.field == "orientation");
  }
  SECTION("nesting far deeper than a session") {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    const Error e = parseError(deep, "deep.json");
    CHECK(e.file == "deep.json");
    CHECK(e.message.find("nested deeper") != std::string::npos);
  }
  SECTION("a JSON pointer escapes '/' and '~' in keys") {
    const Error e =
        parseError(minimalWith(R"([{"id": "a", "model": "m", "schemes": {"linear": "bf16"},
      "gpu": "g", "gpu_count": 1, "metrics": {"a/b~c": 3}}])"));
    CHECK(e.position == "/candidates/0/metrics/a~1b~0c");
  }
}

TEST_CASE("session: the scenario's serving engine is kept and checked", "[session][engine]") {
  Session s;
  s.scenario.engine = "trtllm";
  const std::string text = sessionToText(s);
  CHECK(text.find("\"engine\": \"trtllm\"") != std::string::npos);
  auto back = parseSessionText(text, "s.json");
  REQUIRE(back.ok());
  CHECK(back->scenario.engine == "trtllm");
  // An unnamed engine is not written: sessions without one read as before.
  CHECK(sessionToText(Session{}).find("\"engine\"") == std::string::npos);
  std::string bad = text;
  bad.replace(bad.find("\"trtllm\""), 8, "\"tgi\"");
  auto refused = parseSessionText(bad, "s.json");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().field == "engine");
  CHECK(refused.error().position == "/scenario/engine");
}

TEST_CASE("session: unknown keys are noted, not fatal", "[session]") {
  auto s = parseSessionText(minimalWith("[]", R"(, "colour_scheme": "dark")"), "x.json");
  REQUIRE(s.ok());
  REQUIRE(s->loadNotes.size() == 1);
  CHECK(s->loadNotes[0] == "ignored unknown key /colour_scheme");
}

TEST_CASE("session: validate refuses what the reader would, naming the same field",
          "[session][validate]") {
  const Session good = richSession();
  CHECK_FALSE(validate(good).has_value());
  using Edit = void (*)(Session&);
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const std::vector<std::pair<const char*, Edit>> edits = {
      {"empty model", [](Session& s) { s.scenario.model.clear(); }},
      {"empty GPU", [](Session& s) { s.scenario.gpu.clear(); }},
      {"edited GPU refused",
       [](Session& s) {
         s.scenario.gpuSpec = *Catalog::bundled().resolveGpu("h100-sxm");
         s.scenario.gpuSpec->memoryGib = -80;
       }},
      {"TP 0", [](Session& s) { s.scenario.tp = 0; }},
      {"TP 2000", [](Session& s) { s.scenario.tp = 2000; }},
      {"empty scheme", [](Session& s) { s.scenario.schemes.push_back(""); }},
      {"empty KV dtype", [](Session& s) { s.scenario.kvDtype.clear(); }},
      {"unknown KV dtype", [](Session& s) { s.scenario.kvDtype = "int3"; }},
      {"max_model_len 0", [](Session& s) { s.scenario.maxModelLen = 0; }},
      {"mem_util NaN", [](Session& s) { s.scenario.memUtil = kNaN; }},
      {"mem_util 1.5", [](Session& s) { s.scenario.memUtil = 1.5; }},
      {"reserve -1", [](Session& s) { s.scenario.reserveGib = -1; }},
      {"reserve inf", [](Session& s) { s.scenario.reserveGib = kInf; }},
      {"context -1", [](Session& s) { s.scenario.contextTokens = -1; }},
      {"batch min 0.5", [](Session& s) { s.scenario.batchMin = 0.5; }},
      {"batch min NaN", [](Session& s) { s.scenario.batchMin = kNaN; }},
      {"batch max below min", [](Session& s) { s.scenario.batchMax = 1; }},
      {"empty candidate id", [](Session& s) { s.candidates[0].id.clear(); }},
      {"empty candidate model", [](Session& s) { s.candidates[1].model.clear(); }},
      {"empty linear scheme", [](Session& s) { s.candidates[0].schemeLinear.clear(); }},
      {"empty candidate GPU", [](Session& s) { s.candidates[0].gpu.clear(); }},
      {"GPU count 0", [](Session& s) { s.candidates[1].gpuCount = 0; }},
      {"empty metric name", [](Session& s) { s.candidates[0].metrics[""] = MetricValue{}; }},
      {"metric value inf", [](Session& s) { s.candidates[0].metrics["step_ms_b1"].value = kInf; }},
      {"interval upside down", [](Session& s) { s.candidates[0].metrics["tpot_p99_ms"].lo = 8.0; }},
      {"negative count", [](Session& s) { s.candidates[0].metrics["tpot_p99_ms"].n = -1; }},
      {"bad digest",
       [](Session& s) { s.candidates[0].metrics["tpot_p99_ms"].provenance.sha256 = "XYZ"; }},
      {"measured without file",
       [](Session& s) { s.candidates[0].metrics["tpot_p99_ms"].provenance.sourceFile.clear(); }},
      {"published without citation",
       [](Session& s) {
         s.candidates[0].metrics["open_llm_v1_recovery_pct"].provenance.citation.clear();
       }},
      {"duplicate candidate id", [](Session& s) { s.candidates[1].id = "c1"; }},
      {"empty run format", [](Session& s) { s.importedRuns[0].format.clear(); }},
      {"empty run source", [](Session& s) { s.importedRuns[0].sourceFile.clear(); }},
      {"bad run digest", [](Session& s) { s.importedRuns[0].sha256 = "abc"; }},
      {"negative input length", [](Session& s) { s.importedRuns[0].requests[1].inputLen = -1; }},
      {"negative output length", [](Session& s) { s.importedRuns[0].requests[0].outputLen = -5; }},
      {"negative kernel m", [](Session& s) { s.kernelMeasurements[0].m = -1; }},
      {"median 0", [](Session& s) { s.kernelMeasurements[0].medianS = 0; }},
      {"median NaN", [](Session& s) { s.kernelMeasurements[0].medianS = kNaN; }},
      {"min NaN", [](Session& s) { s.kernelMeasurements[0].minS = kNaN; }},
      {"noise -1", [](Session& s) { s.kernelMeasurements[0].relNoise = -1; }},
      {"samples -1", [](Session& s) { s.kernelMeasurements[0].samples = -1; }},
      {"flops inf", [](Session& s) { s.kernelMeasurements[0].flops = kInf; }},
      {"empty objective", [](Session& s) { s.view.objectives[1].metric.clear(); }},
      {"empty gate", [](Session& s) { s.view.gates.push_back(""); }},
      {"unreadable gate", [](Session& s) { s.view.gates[1] = "tpot_p99_ms"; }},
      {"empty hidden id",
       [](Session& s) {
         s.view.hidden = {"c1", ""};
       }},
      {"empty tab", [](Session& s) { s.view.tab.clear(); }},
  };
  for (const auto& [what, edit] : edits) {
    INFO(what);
    Session bad = good;
    edit(bad);
    // What the reader says of the saved text is what validation must say of the session.
    auto back = parseSessionText(sessionToText(bad), "s.json");
    REQUIRE_FALSE(back.ok());
    const auto e = validateSession(bad, "s.json");
    REQUIRE(e.has_value());
    CHECK(e->file == "s.json");
    CHECK(e->position == back.error().position);
    CHECK(e->field == back.error().field);
    CHECK(validate(bad)->file.empty());
  }
  SECTION("what the file drops, validation lets pass as the reader does") {
    Session s = good;
    s.candidates[0].metrics["tpot_p99_ms"].lo = kNaN;  // written as null: no bound
    s.candidates[0].metrics["tpot_p99_ms"].n = kInf;
    s.kernelMeasurements[0].energyJ = kNaN;
    s.importedRuns[0].requests[0].ttftS = kNaN;
    REQUIRE(parseSessionText(sessionToText(s), "s.json").ok());
    CHECK_FALSE(validate(s).has_value());
  }
  SECTION("an edited GPU is checked typed: its field and pointer are named") {
    Session s = good;
    s.scenario.gpuSpec = *Catalog::bundled().resolveGpu("h100-sxm");
    s.scenario.gpuSpec->hbmBandwidthTBps = kNaN;
    const auto e = validateSession(s, "s.json");
    REQUIRE(e.has_value());
    CHECK(e->file == "s.json");
    CHECK(e->position == "/scenario/gpu_spec/hbm_bandwidth_tbs");
    CHECK(e->field == "hbm_bandwidth_tbs");
  }
}

TEST_CASE("session: atomic save never damages the file it replaces", "[session]") {
  TempDir dir;
  const std::string path = dir.file("s.json");
  const Session good = richSession();
  REQUIRE_FALSE(saveSessionAtomic(good, path).has_value());
  const std::string before = readAll(path);

  SECTION("a session that would not load back is refused") {
    Session bad = good;
    bad.candidates[0].metrics["tpot_p99_ms"].value = std::numeric_limits<double>::quiet_NaN();
    const auto e = saveSessionAtomic(bad, path);
    REQUIRE(e.has_value());
    CHECK(e->message.find("refusing to save") != std::string::npos);
    CHECK(e->field == "value");
    CHECK(readAll(path) == before);
    CHECK(dir.entries() == std::vector<std::string>{"s.json"});
    CHECK_FALSE(validateSession(good, path).has_value());
    CHECK(validateSession(bad, path).has_value());
  }
  SECTION("a directory in the way: temporary file removed, nothing else touched") {
    fs::create_directory(dir.file("taken"));
    writeAll(dir.file("taken/inside.txt"), "keep");
    const auto e = saveSessionAtomic(good, dir.file("taken"));
    REQUIRE(e.has_value());
    CHECK(e->file == dir.file("taken"));
    CHECK(e->message.find("directory") != std::string::npos);
    CHECK(fs::is_directory(dir.file("taken")));
    CHECK(readAll(dir.file("taken/inside.txt")) == "keep");
    CHECK(dir.entries() == std::vector<std::string>{"s.json", "taken"});
  }
  SECTION("the parent directory does not exist") {
    const auto e = saveSessionAtomic(good, dir.file("missing/s.json"));
    REQUIRE(e.has_value());
    CHECK(e->message.find("temporary file") != std::string::npos);
    CHECK(dir.entries() == std::vector<std::string>{"s.json"});
  }
  SECTION("the parent is a file") {
    const auto e = saveSessionAtomic(good, dir.file("s.json/child.json"));
    REQUIRE(e.has_value());
    CHECK(readAll(path) == before);
  }
  SECTION("a read-only directory") {
    fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec);
    Session changed = good;
    changed.title = "changed";
    const auto e = saveSessionAtomic(changed, path);
    fs::permissions(dir.path(), fs::perms::owner_all);
    if (::geteuid() == 0) {
      // root writes through directory permissions; the save must then simply succeed.
      CHECK_FALSE(e.has_value());
      CHECK(loadSession(path)->title == "changed");
    } else {
      REQUIRE(e.has_value());
      CHECK(readAll(path) == before);
    }
    CHECK(dir.entries() == std::vector<std::string>{"s.json"});
  }
  SECTION("replacing keeps the file's permissions") {
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
    Session changed = good;
    changed.title = "changed";
    REQUIRE_FALSE(saveSessionAtomic(changed, path).has_value());
    CHECK((fs::status(path).permissions() & fs::perms::mask) ==
          (fs::perms::owner_read | fs::perms::owner_write));
    CHECK(loadSession(path)->title == "changed");
  }
  SECTION("saving through a symbolic link replaces the file it names") {
    fs::create_symlink(path, dir.file("link.json"));
    Session changed = good;
    changed.title = "via link";
    REQUIRE_FALSE(saveSessionAtomic(changed, dir.file("link.json")).has_value());
    CHECK(fs::is_symlink(dir.file("link.json")));
    CHECK(loadSession(path)->title == "via link");
  }
}

TEST_CASE("session: importing the same file twice does not duplicate", "[session]") {
  Session s;
  ImportReport rep;
  rep.file = "a.json";
  rep.format = "sglang-one-batch";
  rep.sha256 = kSha;
  ImportedRun r1;
  r1.label = "b1";
  r1.metrics = {{"x_ms", 1}};
  ImportedRun r2 = r1;
  r2.label = "b8";
  rep.runs = {r1, r2};

  const MergeResult first = mergeImport(s, rep);
  CHECK(first.runsAdded == 2);  // two runs of one file: both kept
  CHECK_FALSE(first.duplicate);
  REQUIRE(s.importedRuns.size() == 2);
  CHECK(s.importedRuns[0].sha256 == kSha);
  CHECK(s.importedRuns[0].sourceFile == "a.json");
  CHECK(s.importedRuns[0].format == "sglang-one-batch");

  const MergeResult again = mergeImport(s, rep);
  CHECK(again.runsAdded == 0);
  CHECK(again.duplicate);
  CHECK(again.duplicateOf == "a.json");
  CHECK(s.importedRuns.size() == 2);

  ImportReport renamed = rep;  // same bytes under another name
  renamed.file = "copy-of-a.json";
  CHECK(mergeImport(s, renamed).duplicate);
  CHECK(s.importedRuns.size() == 2);

  ImportReport other = rep;
  other.file = "b.json";
  other.sha256 = std::string(64, 'b');
  CHECK(mergeImport(s, other).runsAdded == 2);
  CHECK(s.importedRuns.size() == 4);
}

TEST_CASE("session: mangled session text never crashes the reader", "[session]") {
  const std::string base = sessionToText(richSession());
  std::mt19937 rng(12345);
  std::size_t rejected = 0;
  for (int i = 0; i < 300; ++i) {
    std::string text = base;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[at] = static_cast<char>(rng() % 256);
          break;
        case 1:
          text.erase(at, 1 + rng() % 8);
          break;
        default:
          text.insert(at, 1, "{}[]\",:0-e"[rng() % 10]);
          break;
      }
    }
    auto r = parseSessionText(text, "mangled.json");
    if (!r.ok()) {
      ++rejected;
      CHECK_FALSE(r.error().message.empty());
      CHECK(r.error().file == "mangled.json");
    }
  }
  CHECK(rejected > 0);
}

namespace {
/// A vLLM `bench serve --save-detailed` result with `requests` requests of `tokens` output
/// tokens each, times written as Python's repr writes perf_counter differences (17 digits).
std::string syntheticDetailedServe(int requests, int tokens, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> ttftDist(0.05, 0.8), gapDist(0.008, 0.06);
  std::string ttfts, itls, lats, ins, outs, errs;
  char buf[64];
  auto num = [&](std::string& dst, double v) {
    std::snprintf(buf, sizeof buf, "%.17g", v);
    dst += buf;
  };
  for (int i = 0; i < requests; ++i) {
    const char* sep = i ? ", " : "";
    const double ttft = ttftDist(rng);
    double lat = ttft;
    ttfts += sep;
    num(ttfts, ttft);
    itls += sep;
    itls += "[";
    for (int t = 1; t < tokens; ++t) {
      const double g = gapDist(rng);
      lat += g;
      if (t > 1) itls += ", ";
      num(itls, g);
    }
    itls += "]";
    lats += sep;
    num(lats, lat);
    ins += sep + std::to_string(512 + i % 100);
    outs += sep + std::to_string(tokens);
    errs += std::string(sep) + "\"\"";
  }
  return "{\"date\": \"20250301-120000\", \"backend\": \"vllm\", \"model_id\": \"m\", "
         "\"tokenizer_id\": \"m\", \"num_prompts\": " +
         std::to_string(requests) +
         ", \"request_rate\": \"inf\", \"burstiness\": 1.0, \"max_concurrency\": null, "
         "\"duration\": 600.0, \"completed\": " +
         std::to_string(requests) +
         ", \"failed\": 0, \"request_throughput\": 33.3, \"output_throughput\": 3333.3, "
         "\"input_lens\": [" +
         ins + "], \"output_lens\": [" + outs + "], \"ttfts\": [" + ttfts + "], \"itls\": [" +
         itls + "], \"latencies\": [" + lats + "], \"errors\": [" + errs + "]}\n";
}
}  // namespace

TEST_CASE("session: a large detailed import saves compactly and opens again", "[session]") {
  // 20,000 requests × 100 tokens: 2 million inter-token gaps.
  const std::string source = syntheticDetailedServe(20000, 100, 42);
  auto rep = importBytes(source, "detailed.json");
  REQUIRE(rep.ok());
  REQUIRE(rep->runs.size() == 1);
  REQUIRE(rep->runs[0].requests.size() == 20000);
  Session s;
  REQUIRE(mergeImport(s, *rep).runsAdded == 1);
  TempDir dir;
  const std::string path = dir.file("big.session.json");
  REQUIRE_FALSE(saveSessionAtomic(s, path).has_value());
  const auto sessionBytes = fs::file_size(path);
  INFO("source " << source.size() << " bytes, session " << sessionBytes << " bytes");
  CHECK(static_cast<double>(sessionBytes) <= 1.2 * static_cast<double>(source.size()));
  // The import limit fits in what a session may hold.
  CHECK(static_cast<double>(ImportOptions{}.maxBytes) * 1.2 <=
        static_cast<double>(kMaxSessionFileBytes));

  auto back = loadSession(path);
  REQUIRE(back.ok());
  REQUIRE(back->importedRuns.size() == 1);
  const auto& a = rep->runs[0].requests;
  const auto& b = back->importedRuns[0].requests;
  REQUIRE(b.size() == a.size());
  for (std::size_t i = 0; i < a.size(); i += 997) {
    INFO("request " << i);
    CHECK(b[i].ttftS == Approx(a[i].ttftS).epsilon(1e-6));
    CHECK(b[i].latencyS == Approx(a[i].latencyS).epsilon(1e-6));
    CHECK(b[i].inputLen == a[i].inputLen);
    CHECK(b[i].outputLen == 100);
    CHECK(b[i].success);
    REQUIRE(b[i].itlsS.size() == 99);
    CHECK(b[i].itlsS[37] == Approx(a[i].itlsS[37]).epsilon(1e-6));
  }
  // Saving what was loaded gives the same bytes.
  const std::string again = dir.file("again.json");
  REQUIRE_FALSE(saveSessionAtomic(*back, again).has_value());
  CHECK(fs::file_size(again) == sessionBytes);
}

TEST_CASE("session: request columns are checked when read", "[session]") {
  Session s;
  ImportedRun run;
  run.format = "vllm-serve";
  run.kind = qf::RunKind::Serving;
  run.sourceFile = "x.json";
  run.sha256 = std::string(64, 'a');
  RequestRecord q;
  q.ttftS = 0.1;
  q.latencyS = 0.3;
  q.itlsS = {0.1, 0.1};
  q.outputLen = 3;
  run.requests = {q, q};
  run.requests[1].success = false;
  s.importedRuns.push_back(run);
  const std::string text = sessionToText(s);
  // Columns sit on one line each.
  CHECK(text.find("\"itls_s\": [0.1,0.1,0.1,0.1]") != std::string::npos);
  CHECK(text.find("\"success\": [1,0]") != std::string::npos);
  auto ok = parseSessionText(text, "s.json");
  REQUIRE(ok.ok());
  CHECK(ok->importedRuns[0].requests.size() == 2);
  CHECK_FALSE(ok->importedRuns[0].requests[1].success);
  std::string shortItls = text;
  shortItls.replace(shortItls.find("[0.1,0.1,0.1,0.1]"), 17, "[0.1,0.1,0.1]");
  auto bad = parseSessionText(shortItls, "s.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().position.find("/imported_runs/0/request_arrays/itl_count/1") !=
        std::string::npos);
  std::string badCount = text;
  badCount.replace(badCount.find("\"count\": 2"), 10, "\"count\": 3");
  auto count = parseSessionText(badCount, "s.json");
  REQUIRE_FALSE(count.ok());
  CHECK(count.error().message.find("has 2 entries but count is 3") != std::string::npos);
}

namespace {

Candidate costCandidate(const std::string& model, const std::string& scheme, const std::string& gpu,
                        int count) {
  Candidate c;
  c.id = model + "-" + scheme + "-" + gpu;
  c.model = model;
  c.schemeLinear = scheme;
  c.gpu = gpu;
  c.gpuCount = count;
  return c;
}

/// One use case estimated on its own: the candidate's model, GPU and count, one scheme.
UseCaseEstimate estimateAlone(const Candidate& c, const std::string& scheme,
                              const std::string& useCase) {
  ScenarioSpec spec;
  spec.model = c.model;
  spec.gpu = c.gpu;
  spec.tp = c.gpuCount;
  auto s = resolveScenario(spec);
  REQUIRE(s.ok());
  auto sc = Catalog::bundled().scheme(scheme);
  REQUIRE(sc.ok());
  SchemeAssignment a;
  a.id = sc->id;
  a.linear = *sc;
  auto u = findUseCase(useCase);
  REQUIRE(u.ok());
  auto e = estimateUseCase(*s, a, *u);
  REQUIRE(e.ok());
  return *e;
}

}  // namespace

TEST_CASE("modelled metrics: per-use-case latency, queries per USD and cost reduction",
          "[session][cost]") {
  const ScenarioSpec scenario;  // serving settings only; model, GPU and count are the candidate's
  const Candidate w4 = costCandidate("llama-3.1-8b", "w4a16-g128", "h100-sxm", 1);
  auto m = modelledMetrics(w4, scenario);
  REQUIRE(m.ok());

  // Code completion (256 prompt, 1024 output tokens, decode-heavy) at the H100's $3.29/h.
  const double price = *Catalog::bundled().resolveGpu("h100-sxm")->pricePerGpuHourUsd;
  CHECK(price == 3.29);
  const auto own = estimateAlone(w4, "w4a16-g128", "code-completion");
  const auto base = estimateAlone(w4, "bf16", "code-completion");
  const double q = 3600.0 / (own.latency.totalS * price * 1);
  const double qBf16 = 3600.0 / (base.latency.totalS * price * 1);
  REQUIRE(m->count("latency_code_completion_sync_s") == 1);
  CHECK(m->at("latency_code_completion_sync_s").value == Approx(own.latency.totalS).epsilon(1e-12));
  CHECK(m->at("queries_per_usd_code_completion").value == Approx(q).epsilon(1e-12));
  const double reduction = m->at("cost_reduction_pct_code_completion").value;
  CHECK(reduction == Approx(100.0 * (1.0 - qBf16 / q)).epsilon(1e-12));
  CHECK(reduction > 0);
  CHECK(reduction < 100);
  for (const auto& [name, v] : *m) {
    INFO(name);
    CHECK(v.provenance.kind == ProvenanceKind::Modelled);
    CHECK(v.provenance.note.find("analytic engine") != std::string::npos);
  }
  const std::string& note = m->at("cost_reduction_pct_code_completion").provenance.note;
  CHECK(note.find("256 prompt + 1024 output tokens, batch 1") != std::string::npos);
  CHECK(note.find("price 3.29 USD/h x 1 GPU = 3.29 USD/h") != std::string::npos);
  CHECK(note.find("baseline: llama-3.1-8b bf16 on the same GPUs") != std::string::npos);
  // Every name the helper lists is written for a priced GPU, nothing else.
  const auto names = modelledMetricNames();
  CHECK(names.size() == 6 + 3 * 7);
  CHECK(m->size() == names.size());
  for (const auto& name : names) CHECK(m->count(name) == 1);

  // Several GPUs: the price is per GPU × count, the baseline on the same count.
  const Candidate fp8x2 = costCandidate("llama-3.1-70b", "w8a8-fp8", "h100-sxm", 2);
  auto m2 = modelledMetrics(fp8x2, scenario);
  REQUIRE(m2.ok());
  const auto ownRag = estimateAlone(fp8x2, "w8a8-fp8", "rag");
  const auto baseRag = estimateAlone(fp8x2, "bf16", "rag");
  const double q2 = 3600.0 / (ownRag.latency.totalS * price * 2);
  const double q2Bf16 = 3600.0 / (baseRag.latency.totalS * price * 2);
  CHECK(m2->at("queries_per_usd_rag").value == Approx(q2).epsilon(1e-12));
  CHECK(m2->at("cost_reduction_pct_rag").value ==
        Approx(100.0 * (1.0 - q2Bf16 / q2)).epsilon(1e-12));
  CHECK(m2->at("queries_per_usd_rag").provenance.note.find("x 2 GPUs = 6.58 USD/h") !=
        std::string::npos);
}

TEST_CASE("modelled metrics: a bf16 candidate saves nothing, an unpriced GPU has no USD",
          "[session][cost]") {
  const ScenarioSpec scenario;
  auto bf16 = modelledMetrics(costCandidate("llama-3.1-8b", "bf16", "a6000", 1), scenario);
  REQUIRE(bf16.ok());
  std::size_t reductions = 0;
  for (const auto& [name, v] : *bf16) {
    if (name.rfind("cost_reduction_pct_", 0) != 0) continue;
    INFO(name);
    CHECK(v.value == 0.0);
    ++reductions;
  }
  CHECK(reductions == 7);
  const auto alone =
      estimateAlone(costCandidate("llama-3.1-8b", "bf16", "a6000", 1), "bf16", "summarization");
  CHECK(bf16->at("queries_per_usd_summarization").value ==
        Approx(3600.0 / (alone.latency.totalS * 0.80)).epsilon(1e-12));

  // A GPU without a price (the H200 edited to state none): no queries per USD and no cost
  // reduction (not zeros).
  const Candidate h200 = costCandidate("llama-3.1-8b", "w4a16-g128", "h200-sxm", 1);
  GpuSpec noPrice = *Catalog::bundled().resolveGpu("h200-sxm");
  noPrice.pricePerGpuHourUsd.reset();
  ScenarioSpec unpricedScenario = scenario;
  unpricedScenario.gpu = "h200-sxm";
  unpricedScenario.gpuSpec = noPrice;
  auto unpriced = modelledMetrics(h200, unpricedScenario);
  REQUIRE(unpriced.ok());
  std::size_t latencies = 0;
  for (const auto& [name, v] : *unpriced) {
    INFO(name);
    CHECK(name.find("usd") == std::string::npos);
    CHECK(name.find("cost_reduction") == std::string::npos);
    if (name.rfind("latency_", 0) == 0) ++latencies;
  }
  CHECK(latencies == 7);
  CHECK(unpriced->size() == 6 + 7);
  CHECK(unpriced->at("latency_code_fixing_sync_s").value ==
        Approx(estimateAlone(h200, "w4a16-g128", "code-fixing").latency.totalS).epsilon(1e-12));
}

TEST_CASE("modelled metrics: a published figure of the same name is kept", "[session][cost]") {
  Session s;
  Candidate c = costCandidate("llama-3.1-8b", "w4a16-g128", "a6000", 1);
  MetricValue paper;
  paper.value = 9.7;
  paper.provenance.kind = ProvenanceKind::Published;
  paper.provenance.citation = "arXiv:2411.02355 Table 5";
  paper.provenance.note = "end-to-end latency, code completion";
  c.metrics["latency_code_completion_sync_s"] = paper;
  s.candidates.push_back(c);
  auto m = modelledMetrics(c, s.scenario);
  REQUIRE(m.ok());
  CHECK(m->count("latency_code_completion_sync_s") == 0);
  CHECK(m->count("queries_per_usd_code_completion") == 1);  // from the modelled latency
  REQUIRE_FALSE(refreshModelledMetrics(s).has_value());
  const MetricValue& kept = s.candidates[0].metrics.at("latency_code_completion_sync_s");
  CHECK(kept.value == 9.7);
  CHECK(kept.provenance.kind == ProvenanceKind::Published);
  CHECK(s.candidates[0].metrics.at("latency_rag_sync_s").provenance.kind ==
        ProvenanceKind::Modelled);
}

TEST_CASE("refresh is bounded: it says the size it would reach and changes nothing past it",
          "[session][cost]") {
  // Ten candidates of two configurations and one measured figure.
  Session s;
  for (int i = 0; i < 10; ++i) {
    Candidate c = costCandidate("llama-3.1-8b", i % 2 ? "w4a16-g128" : "bf16", "a6000", 1);
    c.id = "c" + std::to_string(i);
    s.candidates.push_back(c);
  }
  MetricValue measured;
  measured.value = 1.5;
  measured.provenance.kind = ProvenanceKind::Measured;
  measured.provenance.note = "timed";
  s.candidates[3].metrics["step_ms_b1"] = measured;
  const std::size_t before = sessionToText(s).size();

  Session small = s;
  const auto refused = refreshModelledMetrics(small, Catalog::bundled(), 20000);
  REQUIRE(refused.has_value());
  INFO(refused->str());
  CHECK(refused->message.find("refresh would add about") != std::string::npos);
  CHECK(refused->message.find("nothing was changed") != std::string::npos);
  CHECK(sessionToText(small) == sessionToText(s));

  REQUIRE_FALSE(refreshModelledMetrics(s).has_value());
  const std::size_t after = sessionToText(s).size();
  // The estimate the budget is held against is the saved growth within 25%.
  std::uint64_t estimate = 0;
  for (const Candidate& c : s.candidates) {
    for (const auto& [name, v] : c.metrics) {
      if (v.provenance.kind == ProvenanceKind::Modelled) {
        estimate += 170 + name.size() + v.provenance.note.size();
      }
    }
  }
  const double growth = static_cast<double>(after - before);
  CHECK(static_cast<double>(estimate) == Approx(growth).epsilon(0.25));
  // Candidates of one configuration carry the same figures; the measured one is kept.
  CHECK(s.candidates[1].metrics.at("step_ms_b64").value ==
        s.candidates[9].metrics.at("step_ms_b64").value);
  CHECK(s.candidates[3].metrics.at("step_ms_b1").provenance.kind == ProvenanceKind::Measured);
  CHECK(s.candidates[1].metrics.at("step_ms_b1").provenance.kind == ProvenanceKind::Modelled);
  // Batch 1 is memory-bound: W4A16 (odd ids) streams fewer bytes than bf16 (even ids).
  CHECK(s.candidates[1].metrics.at("step_ms_b1").value <
        s.candidates[0].metrics.at("step_ms_b1").value);
}

TEST_CASE("modelled metrics: every name is in the metric dictionary with its direction",
          "[session][cost]") {
  const auto names = modelledMetricNames();
  for (const char* stem : {"code_completion", "docstring_generation", "code_fixing", "rag",
                           "instruction_following", "multi_turn_chat", "summarization"}) {
    INFO(stem);
    const std::string latency = std::string("latency_") + stem + "_sync_s";
    const std::string queries = std::string("queries_per_usd_") + stem;
    const std::string reduction = std::string("cost_reduction_pct_") + stem;
    for (const auto& name : {latency, queries, reduction}) {
      INFO(name);
      CHECK(std::find(names.begin(), names.end(), name) != names.end());
    }
    const auto l = lookupMetric(latency);
    const auto q = lookupMetric(queries);
    const auto r = lookupMetric(reduction);
    REQUIRE(l.has_value());
    REQUIRE(q.has_value());
    REQUIRE(r.has_value());
    CHECK(l->direction == Direction::Min);
    CHECK(l->unit == "s");
    CHECK(q->direction == Direction::Max);
    CHECK(q->category == MetricCategory::Cost);
    CHECK(r->direction == Direction::Max);
    CHECK(r->unit == "%");
    CHECK(r->relative);
    // A bare name on the command line takes the same direction.
    CHECK(knownDirection(latency) == Direction::Min);
    CHECK(knownDirection(queries) == Direction::Max);
    CHECK(knownDirection(reduction) == Direction::Max);
  }
}

TEST_CASE("session: a kernel record's repeat noise, baseline and plan round-trip and are checked",
          "[session]") {
  Session s;
  KernelMeasurement k;
  k.kernel = "gemm_w4a16-g128";
  k.scheme = "w4a16-g128";
  k.kind = KernelKind::Gemm;
  k.device = "NVIDIA H200";
  k.m = 1;
  k.n = 4096;
  k.k = 14336;
  k.medianS = 7.5e-6;
  k.relNoise = 0.004;
  k.repeatNoise = 0.013;
  k.baselineS = 1.1e-6;
  k.plan = {{"ctas", 512}, {"groups_per_cta", 7}, {"cta_rows", 8}, {"split_depth", 16}};
  s.kernelMeasurements.push_back(k);
  auto back = parseSessionText(sessionToText(s), "k.json");
  REQUIRE(back.ok());
  REQUIRE(back->kernelMeasurements.size() == 1);
  const KernelMeasurement& r = back->kernelMeasurements.front();
  CHECK(r.repeatNoise == 0.013);
  CHECK(r.baselineS == 1.1e-6);
  CHECK(r.plan == k.plan);
  // A plan value that is not a number, or a negative baseline, is refused naming the field.
  auto j = nlohmann::json::parse(sessionToText(s));
  j["kernel_measurements"][0]["plan"]["ctas"] = "many";
  auto bad = parseSessionText(j.dump(), "k.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "plan.ctas");
  j["kernel_measurements"][0]["plan"]["ctas"] = 512;
  j["kernel_measurements"][0]["baseline_s"] = -1;
  auto neg = parseSessionText(j.dump(), "k.json");
  REQUIRE_FALSE(neg.ok());
  CHECK(neg.error().field == "baseline_s");
}
