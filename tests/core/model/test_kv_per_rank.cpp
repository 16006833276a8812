// KV per rank (docs/model.md, "KV per rank"): under tensor parallelism each rank keeps its
// share of a sequence's KV as the engines lay it out: split KV heads, whole replicated heads,
// MLA's whole latent. Figures hand-computed from the published configs.
#include <catch2/catch.hpp>

#include <string>

#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/model/serving_model.hpp>

using namespace qf;

namespace {

constexpr double kGib = 1024.0 * 1024.0 * 1024.0;

Scenario scenario(const std::string& model, const std::string& gpu, int tp) {
  ScenarioSpec spec;
  spec.model = model;
  spec.gpu = gpu;
  spec.tp = tp;
  auto s = resolveScenario(spec);
  if (!s) FAIL(s.error().str());
  return *s;
}

SchemeReport report(const Scenario& s, const std::string& scheme = "bf16") {
  auto cands = makeCandidates({scheme}, "", "", "");
  REQUIRE(cands.ok());
  auto rep = runEngine(s, *cands, {1.0, 64.0});
  if (!rep) FAIL(rep.error().str());
  return rep->schemes.front();
}

}  // namespace

TEST_CASE("KV shards: split heads, replicated heads and MLA's latent", "[engine][kv]") {
  const Scenario llama = scenario("llama-3.1-8b", "h100-sxm", 1);
  // 8 KV heads: TP 2, 4, 8 split them; at TP 16 every rank holds one whole head (two copies).
  CHECK(llama.model.kvShards(1) == 1.0);
  CHECK(llama.model.kvShards(4) == 4.0);
  CHECK(llama.model.kvShards(8) == 8.0);
  CHECK(llama.model.kvShards(16) == 8.0);
  // DeepSeek-V3's MLA latent (512 + 64 per token and layer) is one head every rank keeps.
  const Scenario ds = scenario("deepseek-v3", "h200-sxm", 8);
  REQUIRE(ds.model.mla.has_value());
  CHECK(ds.model.kvShards(8) == 1.0);
}

TEST_CASE("DeepSeek-V3 at TP 8 keeps the whole MLA latent on every rank", "[engine][kv]") {
  Scenario s = scenario("deepseek-v3", "h200-sxm", 8);
  s.maxModelLen = 8192;
  // FP8 weights (bf16 does not fit 8 H200s); the KV stays bf16.
  const SchemeReport r = report(s, "w8a8-fp8");
  // 61 layers x (512 + 64) x 2 bytes = 70,272 bytes a token, whole on each of the 8 ranks.
  CHECK(r.capacity.kvBytesPerToken == Approx(70272.0));
  CHECK(r.capacity.kvGibPerSeq == Approx(70272.0 * 8192 / kGib));
  const double free = r.capacity.budgetGib - r.capacity.weightsGib;
  REQUIRE(free > 0);
  CHECK(r.capacity.maxSeqs == static_cast<std::int64_t>(free / (70272.0 * 8192 / kGib)));
  // The replica holds as many tokens as one rank: free bytes over 70,272, not 8 times that.
  auto cands = makeCandidates({"w8a8-fp8"}, "", "", "");
  REQUIRE(cands.ok());
  auto es = engineServing(s, cands->front());
  REQUIRE(es);
  CHECK(es->kvCapacityTokens == Approx(free * kGib / 70272.0));
  CHECK(es->kvGroupBytesPerToken == Approx(8 * 70272.0));
}

TEST_CASE("Llama-3.1-8B at TP 16 reads and stores 1/8 of its KV per rank, not 1/16",
          "[engine][kv]") {
  Scenario s8 = scenario("llama-3.1-8b", "h100-sxm", 8);
  Scenario s16 = scenario("llama-3.1-8b", "h100-sxm", 8);
  s16.tp = 16;
  s8.contextTokens = s16.contextTokens = 4096;
  s8.maxModelLen = s16.maxModelLen = 8192;
  const SchemeReport r8 = report(s8);
  const SchemeReport r16 = report(s16);
  // 32 layers x 8 heads x 128 x 2 (K and V) x 2 bytes = 131,072 bytes a token.
  CHECK(r16.capacity.kvGibPerSeq == Approx(131072.0 * 8192 / 8 / kGib));
  CHECK(r16.capacity.kvGibPerSeq == Approx(r8.capacity.kvGibPerSeq));
  // The decode step's KV read per sequence is the same at TP 8 and 16 (each rank one head).
  CHECK(r16.curve.attentionKvReadSPerSeq == Approx(r8.curve.attentionKvReadSPerSeq));
  CHECK(r8.curve.attentionKvReadSPerSeq ==
        Approx(131072.0 * 4096 / 8 / (s8.gpu.bandwidthBytesPerS() * s8.efficiency.bandwidthEff)));
}
