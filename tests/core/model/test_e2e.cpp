// Prefill and static-batch end-to-end prediction against hand-computed figures.
#include <catch2/catch.hpp>

#include "support/engine_fixtures.hpp"

#include <cmath>

#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/engine.hpp>

using namespace qf;
using qf::test::scenario;
using qf::test::uniform;

namespace {

// Llama-3-8B from its config.json: L 32, d 4096, 32 heads, 8 KV heads of 128, MLP 14336,
// vocabulary 128256.
constexpr double kL = 32, kD = 4096, kHeads = 32, kKvHeads = 8, kHd = 128, kF = 14336, kV = 128256;
constexpr double kLinear = kL * (2 * kD * kHeads * kHd + 2 * kD * kKvHeads * kHd + 3 * kD * kF);
constexpr double kLmHead = kV * kD;
constexpr double kKvBytesPerToken = 2 * kL * kKvHeads * kHd * 2;  // bf16 K and V
constexpr double kBeta = 3.35e12, kPeak = 989.4e12;               // H100 SXM datasheet

StepCurve curveOf(const Scenario& s, const std::string& scheme) {
  auto c = buildStepCurve(s, countParams(s.model), uniform(scheme));
  REQUIRE(c.ok());
  return *c;
}

}  // namespace

TEST_CASE("prefill of Llama-3-8B bf16 on an H100 by hand", "[engine][e2e]") {
  const Scenario s = scenario("llama-3-8b", "h100-sxm");
  const StepCurve c = curveOf(s, "bf16");
  REQUIRE(countParams(s.model).linear() == Approx(kLinear));
  for (double batch : {1.0, 4.0}) {
    const double i = 1024;
    const double m = batch * i;
    // GEMMs at M = B·I are compute-bound; the LM head runs for one token per prompt.
    const double linear = std::max(kLinear * 2 / kBeta, 2 * kLinear * m / kPeak);
    const double head = std::max(kLmHead * 2 / kBeta, 2 * kLmHead * batch / kPeak);
    // Causal attention: the query at position n attends to n tokens on each of 32 layers.
    const double attention = batch * 4 * kHeads * kHd * kL * (i * (i + 1) / 2) / kPeak;
    const double kvWrite = m * kKvBytesPerToken / kBeta;
    CHECK(c.prefillSeconds(batch, i) == Approx(linear + head + attention + kvWrite).epsilon(1e-12));
  }
  // At M = 1024 the linear GEMMs take 14.45 ms on the datasheet roofline.
  CHECK(2 * kLinear * 1024 / kPeak * 1e3 == Approx(14.45).epsilon(1e-3));
}

TEST_CASE("static batch: TTFT, TPOT, latency and tokens/s", "[engine][e2e]") {
  Scenario s = scenario("llama-3-8b", "h100-sxm");
  s.efficiency.overheadMs = 2.0;
  const StepCurve c = curveOf(s, "bf16");
  const double b = 8, i = 256, o = 128;
  const auto p = predictStaticBatch(c, b, i, o);
  // Decode: each step reads the weights (memory-bound at B = 8) and the KV of its context.
  double decode = 0;
  for (double n = i + 1; n <= i + o - 1; ++n) {
    const double gemms = (kLinear + kLmHead) * 2 / kBeta;
    const double kv = b * std::max(n * kKvBytesPerToken / kBeta, 4 * kHeads * kHd * kL * n / kPeak);
    decode += gemms + kv + 2e-3;
  }
  CHECK(p.tpotMs == Approx(decode / (o - 1) * 1e3).epsilon(1e-10));
  CHECK(p.ttftMs == Approx(c.prefillSeconds(b, i) * 1e3).epsilon(1e-12));
  CHECK(p.e2eLatencyS == Approx(c.prefillSeconds(b, i) + decode).epsilon(1e-10));
  CHECK(p.outputTokensPerS == Approx(b * o / p.e2eLatencyS));
  CHECK(p.totalTokensPerS == Approx(b * (i + o) / p.e2eLatencyS));
  // The per-step overhead is paid once by prefill and once per decode step.
  Scenario s0 = s;
  s0.efficiency.overheadMs = 0;
  const auto p0 = predictStaticBatch(curveOf(s0, "bf16"), b, i, o);
  CHECK(p.e2eLatencyS - p0.e2eLatencyS == Approx(o * 2e-3).epsilon(1e-9));
  // One output token: no decode step.
  const auto one = predictStaticBatch(c, b, i, 1);
  CHECK(one.tpotMs == 0);
  CHECK(one.e2eLatencyS == Approx(one.ttftMs / 1e3));
}

TEST_CASE("a decode step at a context equals the --context step", "[engine][e2e]") {
  for (const char* model : {"llama-3-8b", "gpt-oss-20b", "mixtral-8x7b"}) {
    Scenario s = scenario(model, "h100-sxm");
    const StepCurve plain = curveOf(s, "w4a16-g128");
    s.contextTokens = 3000;
    const StepCurve withCtx = curveOf(s, "w4a16-g128");
    for (double b : {1.0, 16.0, 300.0}) {
      CHECK(plain.decodeStepSeconds(b, 3000) == Approx(withCtx.stepSeconds(b)).epsilon(1e-12));
      // The --context attention is replaced, not added twice.
      CHECK(withCtx.decodeStepSeconds(b, 3000) == Approx(withCtx.stepSeconds(b)).epsilon(1e-12));
    }
  }
}

TEST_CASE("kept layer-token sums are closed forms of the per-position counts", "[engine][e2e]") {
  // gpt-oss-20b: 12 of 24 layers windowed to 128 tokens.
  const StepCurve c = curveOf(scenario("gpt-oss-20b", "h100-sxm"), "bf16");
  CHECK(c.token.windowedLayers == 12);
  CHECK(c.token.window == 128);
  for (auto [a, b] :
       {std::pair{1.0, 50.0}, {1.0, 128.0}, {100.0, 400.0}, {129.0, 1000.0}, {5.0, 4.0}}) {
    double brute = 0;
    for (double n = a; n <= b; ++n) brute += 12 * n + 12 * std::min(128.0, n);
    CHECK(c.token.keptLayerTokensSum(a, b) == Approx(brute).epsilon(1e-14));
  }
}

TEST_CASE("prefill runs each scheme's real path", "[engine][e2e]") {
  const Scenario s = scenario("llama-3-8b", "h100-sxm");
  // W4A16 prefill: dequantise every weight once (c = 2 per weight at D = 33.5e12/s) and run
  // the bf16 GEMM, so at M = 4096 it is slower than bf16 by exactly the dequant.
  const double m = 4096;
  const StepCurve bf16 = curveOf(s, "bf16");
  const StepCurve w4 = curveOf(s, "w4a16-g128");
  const double deq = kLinear * 2 / 33.5e12;
  const double w4Linear = deq + 2 * kLinear * m / kPeak;
  const double bfLinear = 2 * kLinear * m / kPeak;
  const double w4Head =
      std::max(kLmHead * 4.125 / 8 / kBeta, kLmHead * 2 / 33.5e12 + 2 * kLmHead / kPeak);
  const double bfHead = kLmHead * 2 / kBeta;
  CHECK(w4.prefillSeconds(1, m) - bf16.prefillSeconds(1, m) ==
        Approx(w4Linear + w4Head - bfLinear - bfHead).epsilon(1e-9));
  // A Marlin efficiency for W4A16 decode does not slow its prefill GEMM (that is cuBLAS bf16);
  // the bf16 path's does.
  Scenario e = s;
  e.efficiency.computeEff["w4a16-g128"] = 0.4;
  CHECK(curveOf(e, "w4a16-g128").prefillSeconds(1, m) == Approx(w4.prefillSeconds(1, m)));
  e.efficiency.computeEff["bf16"] = 0.5;
  CHECK(curveOf(e, "w4a16-g128").prefillSeconds(1, m) > w4.prefillSeconds(1, m) * 1.8);
  // FP8 prefill runs on the fp8 path at twice the bf16 rate.
  const StepCurve fp8 = curveOf(s, "w8a8-fp8");
  CHECK(fp8.prefillSeconds(1, m) < bf16.prefillSeconds(1, m) * 0.55);
}

TEST_CASE("tensor parallelism: prefill pays the all-reduce per token", "[engine][e2e]") {
  const Scenario s1 = scenario("llama-3.1-70b", "h100-sxm", 1);
  const Scenario s2 = scenario("llama-3.1-70b", "h100-sxm", 2);
  const StepCurve c1 = curveOf(s1, "bf16");
  const StepCurve c2 = curveOf(s2, "bf16");
  // Two all-reduces per layer of d·2 bytes per token, 2(TP−1)/TP of it over one direction of
  // the 900 GB/s NVLink.
  const double perToken = 80 * 2 * (2.0 * 1 / 2) * 8192 * 2 / 450e9;
  CHECK(c2.token.allReduceSPerToken == Approx(perToken).epsilon(1e-12));
  // Everything else halves (prefill of 2048 tokens, compute-bound).
  const double m = 2048;
  CHECK(c2.prefillSeconds(1, m) - perToken * m ==
        Approx(c1.prefillSeconds(1, m) / 2).epsilon(1e-9));
}

TEST_CASE("runEngine reports the end-to-end figures per batch", "[engine][e2e]") {
  Scenario s = scenario("llama-3-8b", "h100-sxm");
  s.inputLen = 2048;
  s.outputLen = 128;
  auto rep = runEngine(s, {uniform("bf16"), uniform("w4a16-g128")}, {1, 16, 64});
  REQUIRE(rep.ok());
  for (const auto& sr : rep->schemes) {
    REQUIRE(sr.e2e.size() == 3);
    for (const auto& x : sr.e2e) {
      const auto direct = predictStaticBatch(sr.curve, x.batch, 2048, 128);
      CHECK(x.e2eLatencyS == direct.e2eLatencyS);
    }
    // Throughput rises with batch; latency too.
    CHECK(sr.e2e[2].totalTokensPerS > sr.e2e[0].totalTokensPerS);
    CHECK(sr.e2e[2].e2eLatencyS > sr.e2e[0].e2eLatencyS);
  }
  // Without lengths there is no end-to-end prediction; one length alone is refused.
  s.outputLen = 0;
  auto bad = runEngine(s, {uniform("bf16")}, {1});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "output-len");
}
