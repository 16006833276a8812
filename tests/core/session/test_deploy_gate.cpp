// The deployment search gated on a session's quality evidence: only schemes whose candidate
// passes every gate reach the frontier; the refused ones are named with the reason.
#include <catch2/catch.hpp>

#include <set>

#include <quantfront/core/session/deploy_candidate.hpp>
#include <quantfront/core/session/deploy_gate.hpp>

using namespace qf;

namespace {

Candidate cand(const std::string& id, const std::string& scheme, double score) {
  Candidate c;
  c.id = id;
  c.model = "meta-llama/Meta-Llama-3-8B";
  c.schemeLinear = scheme;
  c.gpu = "h100-sxm";
  MetricValue m;
  m.value = score;
  m.provenance.kind = ProvenanceKind::Measured;
  m.provenance.sourceFile = "samples_gsm8k.jsonl";
  c.metrics["gsm8k_score"] = m;
  return c;
}

}  // namespace

TEST_CASE("search gated by the session's candidates", "[session][deploy]") {
  Session s;
  s.candidates = {cand("bf16", "bf16", 0.80), cand("fp8", "w8a8-fp8", 0.797),
                  cand("w4", "w4a16-g128", 0.70)};
  auto gate = parseGate("gsm8k_score>=baseline-0.01");
  REQUIRE(gate.ok());
  auto g = deployGateFromSession(s, "llama-3-8b", {*gate}, std::nullopt);
  REQUIRE(g.ok());
  CHECK(std::set<std::string>(g->passingSchemes.begin(), g->passingSchemes.end()) ==
        std::set<std::string>{"bf16", "w8a8-fp8"});
  REQUIRE(g->notes.size() == 1);
  CHECK(g->notes[0].rfind("w4: gsm8k_score>=baseline-0.01", 0) == 0);

  const Catalog& cat = Catalog::bundled();
  DeploySpace sp;
  sp.model = *cat.resolveModel("llama-3-8b");
  sp.gpus = {*cat.resolveGpu("h100-sxm")};
  sp.maxGpus = 2;
  for (const char* id : {"bf16", "w8a8-fp8", "w4a16-g128"}) sp.schemes.push_back(*cat.scheme(id));
  DeployOptions o;
  o.workload = {1024, 128};
  o.load.kind = DeployLoad::Kind::Sync;
  auto open = searchDeployments(sp, o);
  REQUIRE(open.ok());
  o.gate = g->passes;
  auto gated = searchDeployments(sp, o);
  REQUIRE(gated.ok());
  CHECK(gated->rejectedGate > 0);
  REQUIRE_FALSE(gated->frontier.empty());
  for (const auto& c : gated->frontier) CHECK(c.linear != "w4a16-g128");
  // Ungated, synchronous serving picks W4A16 (seed 001, Finding 5); gated, it cannot.
  REQUIRE(open->best.has_value());
  CHECK(open->best->linear == "w4a16-g128");
  CHECK(gated->best->linear != "w4a16-g128");
  // The chosen deployment as a candidate names its configuration and carries its figures.
  const Candidate k = candidateFromDeployment(*gated->best, "llama-3-8b", o);
  CHECK(k.gpu == "h100-sxm");
  CHECK(k.schemeLinear == gated->best->linear);
  CHECK(k.metrics.at("usd_per_million_output_tokens").value ==
        gated->best->usdPerMillionOutputTokens);
  CHECK(k.id.find("h100-sxm") != std::string::npos);
  // One token: no space, so the id works on a command line and in a CSV cell unquoted.
  CHECK(k.id.find(' ') == std::string::npos);
  CHECK(k.id == gated->best->gpu + "-x" + std::to_string(gated->best->gpuCount) + "-tp" +
                    std::to_string(gated->best->tp) + "-" + gated->best->schemeId() + "-kv-" +
                    gated->best->kvDtype + "-b" + std::to_string(gated->best->maxBatch));

  CHECK_FALSE(deployGateFromSession(s, "qwen3-30b-a3b", {*gate}, std::nullopt).ok());
  // A second FP8 candidate that fails: evidence against the scheme is not outvoted.
  s.candidates.push_back(cand("fp8-b", "w8a8-fp8", 0.70));
  auto g2 = deployGateFromSession(s, "llama-3-8b", {*gate}, std::nullopt);
  REQUIRE(g2.ok());
  CHECK(g2->passingSchemes == std::vector<std::string>{"bf16"});
}

TEST_CASE("a candidate without the gated metric neither vetoes its scheme nor passes it",
          "[session][deploy]") {
  // Measured candidates that pass, beside modelled ones of the same schemes that carry no
  // quality metric at all (a Deploy answer added as a candidate, say).
  Session s;
  s.candidates = {cand("bf16", "bf16", 0.770), cand("fp8", "w8a8-fp8", 0.773),
                  cand("w4", "w4a16-g128", 0.745)};
  for (const char* scheme : {"bf16", "w8a8-fp8", "w4a16-g128", "w8a8-int8"}) {
    Candidate c = cand(std::string("deploy-") + scheme, scheme, 0);
    c.metrics.clear();
    c.metrics["usd_per_million_output_tokens"].value = 1.0;
    s.candidates.push_back(c);
  }
  auto gate = parseGate("gsm8k_score>=0.74");
  REQUIRE(gate.ok());
  auto g = deployGateFromSession(s, "llama-3-8b", {*gate}, std::nullopt);
  REQUIRE(g.ok());
  CHECK(std::set<std::string>(g->passingSchemes.begin(), g->passingSchemes.end()) ==
        std::set<std::string>{"bf16", "w8a8-fp8", "w4a16-g128"});
  // INT8 has no scored candidate: not passing, and named as such.
  const bool named = std::any_of(g->notes.begin(), g->notes.end(), [](const std::string& n) {
    return n.rfind("w8a8-int8: no candidate of this scheme carries gsm8k_score", 0) == 0;
  });
  CHECK(named);
}

TEST_CASE("a baseline of another model is refused for a relative gate", "[session][deploy]") {
  Session s;
  s.candidates = {cand("bf16", "bf16", 0.80), cand("fp8", "w8a8-fp8", 0.797)};
  Candidate other = cand("qwen-bf16", "bf16", 0.90);
  other.model = "Qwen/Qwen3-30B-A3B";
  s.candidates.push_back(other);
  auto gate = parseGate("gsm8k_score>=baseline-0.01");
  REQUIRE(gate.ok());
  const auto g = deployGateFromSession(s, "llama-3-8b", {*gate}, std::string("qwen-bf16"));
  REQUIRE_FALSE(g.ok());
  CHECK_THAT(g.error().message, Catch::Contains("baseline 'qwen-bf16'"));
  CHECK_THAT(g.error().message, Catch::Contains("another model"));
}

TEST_CASE("a deployment found under speculation joins as a speculated candidate",
          "[session][deploy]") {
  const Catalog& cat = Catalog::bundled();
  DeploySpace sp;
  sp.model = *cat.resolveModel("llama-3.1-8b");
  sp.gpus = {*cat.resolveGpu("h100-sxm")};
  sp.maxGpus = 1;
  sp.schemes = {*cat.scheme("w8a8-fp8")};
  DeployOptions o;
  o.workload = {1024, 128};
  o.load.kind = DeployLoad::Kind::Sync;
  auto plain = searchDeployments(sp, o);
  REQUIRE(plain.ok());
  REQUIRE(plain->best.has_value());
  sp.speculation = Speculation{3, 0.7};
  auto spec = searchDeployments(sp, o);
  REQUIRE(spec.ok());
  REQUIRE(spec->best.has_value());
  const Candidate kp = candidateFromDeployment(*plain->best, "llama-3.1-8b", o);
  const Candidate ks = candidateFromDeployment(*spec->best, "llama-3.1-8b", o, sp.speculation);
  // The speculated figures reach the candidate (faster per token than plain decoding), and the
  // candidate says how they were priced: its id and provenance name the speculation.
  CHECK(ks.metrics.at("deploy_tpot_ms").value == spec->best->tpotMs);
  CHECK(ks.metrics.at("deploy_tpot_ms").value < kp.metrics.at("deploy_tpot_ms").value);
  CHECK(ks.id.size() > 7);
  CHECK(ks.id.substr(ks.id.size() - 7) == "-mtp-k3");
  CHECK(kp.id.find("mtp") == std::string::npos);
  const std::string& note = ks.metrics.at("deploy_tpot_ms").provenance.note;
  CHECK(note.find("speculative decoding") != std::string::npos);
  CHECK(note.find("3 draft tokens a step at acceptance 0.70 (2.53 tokens a step)") !=
        std::string::npos);
  CHECK(kp.metrics.at("deploy_tpot_ms").provenance.note.find("speculative") == std::string::npos);
}
