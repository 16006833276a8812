// The bundled example session: every modelled figure comes out of the engine, every published
// figure is cited, and the example and a round-tripped session carry what the schema requires.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/resources.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/cost.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/session/session.hpp>

using namespace qf;

namespace {

constexpr const char* kExample = "sessions/llama-3.1-8b-70b.json";

Session loadExample() {
  const auto text = bundledFile(kExample);
  REQUIRE(text.has_value());
  auto s = parseSessionText(*text, kExample);
  if (!s) FAIL(s.error().str());
  REQUIRE(s->loadNotes.empty());
  return std::move(*s);
}

Json loadSchema() {
  const auto text = bundledFile("schema/session.schema.json");
  REQUIRE(text.has_value());
  auto j = parseJson(*text, "session.schema.json");
  REQUIRE(j.ok());
  return *j;
}

bool relClose(double a, double b, double rel = 1e-6) {
  if (a == b) return true;
  return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}

/// A small structural check of `inst` against JSON Schema `schema`: "$ref" (local), "required",
/// "properties", "additionalProperties" (as a schema), "items", "type", "const", "enum".
/// Appends "POINTER: problem" to `problems`.
void checkSchema(const Json& root, const Json& schema, const Json& inst, const std::string& ptr,
                 std::vector<std::string>& problems) {
  if (!schema.is_object()) return;
  if (const auto ref = schema.find("$ref"); ref != schema.end()) {
    const std::string target = ref->get<std::string>();
    REQUIRE(target.rfind("#/", 0) == 0);
    checkSchema(root, root.at(Json::json_pointer(target.substr(1))), inst, ptr, problems);
  }
  if (const auto c = schema.find("const"); c != schema.end() && *c != inst) {
    problems.push_back(ptr + ": expected " + c->dump());
  }
  if (const auto e = schema.find("enum"); e != schema.end()) {
    if (std::find(e->begin(), e->end(), inst) == e->end())
      problems.push_back(ptr + ": not in enum");
  }
  if (const auto t = schema.find("type"); t != schema.end()) {
    const std::string type = t->get<std::string>();
    const bool ok =
        (type == "object" && inst.is_object()) || (type == "array" && inst.is_array()) ||
        (type == "string" && inst.is_string()) || (type == "boolean" && inst.is_boolean()) ||
        (type == "number" && inst.is_number()) || (type == "integer" && inst.is_number_integer());
    if (!ok) problems.push_back(ptr + ": expected " + type);
  }
  if (inst.is_object()) {
    if (const auto req = schema.find("required"); req != schema.end()) {
      for (const auto& key : *req) {
        if (!inst.contains(key.get<std::string>())) {
          problems.push_back(ptr + ": missing required key '" + key.get<std::string>() + "'");
        }
      }
    }
    const auto props = schema.find("properties");
    const auto extra = schema.find("additionalProperties");
    for (auto it = inst.begin(); it != inst.end(); ++it) {
      const std::string child = ptr + "/" + it.key();
      if (props != schema.end() && props->contains(it.key())) {
        checkSchema(root, props->at(it.key()), it.value(), child, problems);
      } else if (extra != schema.end() && extra->is_object()) {
        checkSchema(root, *extra, it.value(), child, problems);
      }
    }
  }
  if (inst.is_array()) {
    if (const auto items = schema.find("items"); items != schema.end()) {
      for (std::size_t i = 0; i < inst.size(); ++i) {
        checkSchema(root, *items, inst[i], ptr + "/" + std::to_string(i), problems);
      }
    }
  }
}

std::vector<std::string> schemaProblems(const Json& doc) {
  const Json schema = loadSchema();
  std::vector<std::string> problems;
  checkSchema(schema, schema, doc, "", problems);
  return problems;
}

}  // namespace

TEST_CASE("example session: modelled figures are the engine's", "[session][example]") {
  const Session s = loadExample();
  const Catalog& cat = Catalog::bundled();
  REQUIRE(s.candidates.size() == 24);
  std::size_t checked = 0;
  for (const Candidate& c : s.candidates) {
    INFO("candidate " << c.id);
    // Recompute from first principles: the candidate's model, GPU, count as TP and scheme,
    // under the session scenario's serving settings.
    ScenarioSpec spec = s.scenario;
    spec.model = c.model;
    spec.gpu = c.gpu;
    spec.tp = c.gpuCount;
    auto scenario = resolveScenario(spec, cat);
    REQUIRE(scenario.ok());
    auto scheme = cat.scheme(c.schemeLinear);
    REQUIRE(scheme.ok());
    SchemeAssignment cs;
    cs.id = scheme->id;
    cs.linear = *scheme;
    auto rep = runEngine(*scenario, {cs}, {1.0, 64.0});
    REQUIRE(rep.ok());
    const SchemeReport& r = rep->schemes.front();
    const CapacityReport cap = computeCapacity(*scenario, r.curve);
    std::map<std::string, double> expected = {
        {"memory_floor_ms", r.memoryFloorMs},
        {"step_ms_b1", r.curve.stepSeconds(1.0) * 1e3},
        {"step_ms_b64", r.curve.stepSeconds(64.0) * 1e3},
        {"weights_gib", cap.weightsGib},
        {"max_concurrency", static_cast<double>(cap.maxSeqs)},
        {"tokens_per_s_at_capacity", cap.tokensPerSAtCapacity}};
    // Per use case: one request alone, queries per USD at the catalog price × count, and the
    // cost per query saved against the same model's bf16 on the same GPUs.
    SchemeAssignment bf16;
    bf16.id = "bf16";
    bf16.linear = *cat.scheme("bf16");
    REQUIRE(scenario->gpu.pricePerGpuHourUsd.has_value());  // every GPU here has a price
    const double usdPerHour = *scenario->gpu.pricePerGpuHourUsd * c.gpuCount;
    auto useCases = bundledUseCases();
    REQUIRE(useCases.ok());
    for (const UseCase& u : *useCases) {
      std::string stem = u.id;
      std::replace(stem.begin(), stem.end(), '-', '_');
      auto own = estimateUseCase(*scenario, cs, u);
      auto base = estimateUseCase(*scenario, bf16, u);
      REQUIRE(own.ok());
      REQUIRE(base.ok());
      const double queries = 3600.0 / (own->latency.totalS * usdPerHour);
      const double baseQueries = 3600.0 / (base->latency.totalS * usdPerHour);
      expected["latency_" + stem + "_sync_s"] = own->latency.totalS;
      expected["queries_per_usd_" + stem] = queries;
      expected["cost_reduction_pct_" + stem] = 100.0 * (1.0 - baseQueries / queries);
    }
    // A published figure of a modelled name stays published (and its value the paper's).
    for (const auto& [name, m] : c.metrics) {
      if (m.provenance.kind == ProvenanceKind::Published) expected.erase(name);
    }
    std::size_t modelled = 0;
    for (const auto& [name, m] : c.metrics) {
      if (m.provenance.kind != ProvenanceKind::Modelled) continue;
      ++modelled;
      INFO("metric " << name);
      REQUIRE(expected.count(name) == 1);
      if (name.rfind("cost_reduction_pct_", 0) == 0) {
        if (c.schemeLinear == "bf16") CHECK(m.value == 0);
        CHECK(std::abs(m.value - expected.at(name)) <= 1e-6);
      } else {
        CHECK(relClose(m.value, expected.at(name)));
      }
      CHECK(m.provenance.note.find("analytic engine") != std::string::npos);
      ++checked;
    }
    CHECK(modelled == expected.size());
  }
  // 6 step-time and capacity figures and 3 per use case each, less the two published
  // code-completion latencies of the 8B on one A6000.
  CHECK(checked == 24 * (6 + 3 * 7) - 2);
  // The helper the GUI uses to refresh them agrees too.
  Session refreshed = s;
  REQUIRE_FALSE(refreshModelledMetrics(refreshed).has_value());
  CHECK(sessionToJson(refreshed) == sessionToJson(s));
}

TEST_CASE("example session: published figures are cited and within the paper's setups",
          "[session][example]") {
  const Session s = loadExample();
  std::size_t published = 0;
  std::set<std::string> ids;
  for (const Candidate& c : s.candidates) {
    INFO("candidate " << c.id);
    ids.insert(c.id);
    CHECK((c.model == "llama-3.1-8b" || c.model == "llama-3.1-70b"));
    CHECK(c.engine == "vLLM 0.6.4.post1");
    // W8A8-FP8 ran on H100 only (Ampere has no FP8 path).
    if (c.schemeLinear == "w8a8-fp8") CHECK(c.gpu == "h100-sxm");
    // The paper's GPU counts: 1 for 8B, 2 or 4 for 70B.
    if (c.model == "llama-3.1-8b") CHECK(c.gpuCount == 1);
    if (c.model == "llama-3.1-70b") CHECK((c.gpuCount == 2 || c.gpuCount == 4));
    for (const auto& [name, m] : c.metrics) {
      INFO("metric " << name);
      CHECK(std::isfinite(m.value));
      CHECK(m.provenance.kind != ProvenanceKind::Measured);  // nothing here was measured by us
      if (m.provenance.kind != ProvenanceKind::Published) continue;
      ++published;
      CHECK(m.provenance.citation.rfind("arXiv:2411.02355 ", 0) == 0);
      const std::string where = m.provenance.citation.substr(17);
      CHECK((where.rfind("Table ", 0) == 0 || where.rfind("Appendix Table ", 0) == 0 ||
             where.rfind("Figure ", 0) == 0 || where.rfind("Section ", 0) == 0));
      CHECK_FALSE(m.provenance.note.empty());
    }
  }
  CHECK(ids.size() == s.candidates.size());
  CHECK(published > 100);

  // Figures worked out rather than read off a table are marked derived, and their citation
  // quotes the text the number rests on.
  std::size_t derived = 0;
  for (const Candidate& c : s.candidates) {
    for (const auto& [name, m] : c.metrics) {
      INFO(c.id << ": " << name);
      const bool baselineRecovery =
          c.schemeLinear == "bf16" && name.find("recovery") != std::string::npos;
      const bool a100Price = c.gpu == "a100-80gb" && name == "usd_per_hour";
      if (!baselineRecovery && !a100Price) continue;
      ++derived;
      CHECK(m.provenance.note.rfind("derived: ", 0) == 0);
      CHECK(m.provenance.citation.find(": '") != std::string::npos);
      if (baselineRecovery) CHECK(m.value == 100);
      if (a100Price) {
        // 8xA100 at $14.32/h, pro rata per GPU, to the cent.
        CHECK(m.value == Approx(std::round(14.32 / 8 * c.gpuCount * 100) / 100));
      }
    }
  }
  CHECK(derived >= 16 + 9);

  // A few figures as the review states them (Tables 2, 3, 5, 6).
  auto value = [&](const std::string& id, const std::string& metric) {
    for (const auto& c : s.candidates) {
      if (c.id == id) return c.metrics.at(metric).value;
    }
    FAIL("no candidate " << id);
    return 0.0;
  };
  CHECK(value("8b-w4a16-g128-a6000x1", "open_llm_v1_recovery_pct") == 98.72);
  CHECK(value("8b-w8a8-fp8-h100-sxmx1", "open_llm_v2_recovery_pct") == 101.2);
  CHECK(value("70b-w8a8-int8-a100-80gbx2", "open_llm_v2_recovery_pct") == 97.3);
  CHECK(value("8b-w4a16-g128-a6000x1", "queries_per_usd_code_completion_sync") == 462);
  CHECK(value("8b-bf16-a6000x1", "latency_code_completion_sync_s") == 24.5);
  CHECK(value("8b-w4a16-g128-a6000x1", "latency_code_completion_sync_s") == 9.7);
  CHECK(value("8b-w4a16-g128-a6000x1", "cost_reduction_sync") == 2.39);
  CHECK(value("70b-w4a16-g128-h100-sxmx2", "cost_reduction_sync") == 2.11);
  CHECK(value("70b-w8a8-fp8-h100-sxmx4", "throughput_speedup_async") == 1.77);
}

TEST_CASE("example session: scenario and view as shipped", "[session][example]") {
  const Session s = loadExample();
  // The session's own 8B model (its candidates' and gates'), so the first page's recommendation
  // and the gates speak of one model; its shapes are the seed's Figure 1 (Llama-3-8B's).
  CHECK(s.scenario.model == "llama-3.1-8b");
  CHECK(s.scenario.gpu == "h100-sxm");
  CHECK(s.scenario.tp == 1);
  CHECK(s.scenario.schemes == std::vector<std::string>{"bf16", "w8a8-fp8", "w4a16-g128"});
  CHECK(s.scenario.batchMin == 1);
  CHECK(s.scenario.batchMax == 1024);
  CHECK(s.scenario.useCase == "code-completion");
  REQUIRE(resolveScenario(s.scenario).ok());
  REQUIRE(s.view.objectives.size() == 2);
  CHECK(s.view.objectives[0].direction == Direction::Max);
  CHECK(s.view.objectives[1].direction == Direction::Min);
  // Every objective and axis names a metric some candidate carries.
  auto carried = [&](const std::string& metric) {
    return std::any_of(s.candidates.begin(), s.candidates.end(),
                       [&](const Candidate& c) { return c.metrics.count(metric) > 0; });
  };
  for (const auto& o : s.view.objectives) CHECK(carried(o.metric));
  CHECK(carried(s.view.axes.x));
  CHECK(carried(s.view.axes.y));
  CHECK(carried(s.view.axes.color));
  // The shipped file is what the writer produces (stable key order, no drift).
  CHECK(sessionToText(s) == std::string(*bundledFile(kExample)));
}

TEST_CASE("session schema: required keys are present in written sessions", "[session][schema]") {
  const Json schema = loadSchema();
  CHECK(schema.at("$schema") == "https://json-schema.org/draft/2020-12/schema");

  const auto example = parseJson(*bundledFile(kExample), kExample);
  REQUIRE(example.ok());
  const auto exampleProblems = schemaProblems(*example);
  INFO((exampleProblems.empty() ? std::string() : exampleProblems.front()));
  CHECK(exampleProblems.empty());

  // A session with every kind of record, written and read back.
  Session s = loadExample();
  ImportedRun run;
  run.format = "vllm-serve";
  run.kind = qf::RunKind::Serving;
  run.sourceFile = "serve.json";
  run.sha256 = std::string(64, 'c');
  run.metrics = {{"x_ms", std::nan("")}};
  RequestRecord q;
  q.itlsS = {0.01};
  run.requests = {q};
  run.decodeStepByBatch = {{1, 0.004}};
  s.importedRuns.push_back(run);
  KernelMeasurement k;
  k.kernel = "gemm";
  k.device = "NVIDIA H200";
  k.medianS = 1e-5;
  s.kernelMeasurements.push_back(k);
  s.scenario.mixedLinear = "w4a16-g128";
  s.scenario.mixedLmHead = "bf16";
  auto back = parseSessionText(sessionToText(s), "roundtrip.json");
  REQUIRE(back.ok());
  const auto problems = schemaProblems(sessionToJson(*back));
  INFO((problems.empty() ? std::string() : problems.front()));
  CHECK(problems.empty());

  // The check itself catches a missing required key and a wrong type.
  Json broken = sessionToJson(*back);
  broken["candidates"][0].erase("gpu_count");
  broken["scenario"]["tp"] = "1";
  const auto found = schemaProblems(broken);
  CHECK(std::any_of(found.begin(), found.end(), [](const std::string& p) {
    return p == "/candidates/0: missing required key 'gpu_count'";
  }));
  CHECK(std::any_of(found.begin(), found.end(),
                    [](const std::string& p) { return p == "/scenario/tp: expected integer"; }));
  // ... and parseSession refuses what the schema marks missing.
  CHECK_FALSE(parseSession(broken, "broken.json").ok());
}
