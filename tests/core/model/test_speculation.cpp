// Speculative decoding: tokens per step, the verify pass at M = B(k + 1), the draft's cost and
// memory, against hand-computed cases; and the crossover it moves, on the engine's own curves.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/model/speculation.hpp>

namespace {

/// Target: 10 ms + 0.1 ms per token + 1 us per sequence-token of context.
qf::StepTimeModel targetSteps() {
  qf::StepTimeModel m;
  m.prefillS = [](double n, double) { return 0.010 + 1e-4 * n; };
  m.decodeStepS = [](double b, double c) { return 0.010 + 1e-4 * b + 1e-6 * b * c; };
  return m;
}

/// Draft: 1 ms + 10 us per token.
qf::SpeculativeDraft smallDraft() {
  qf::SpeculativeDraft d;
  d.steps.prefillS = [](double n, double) { return 0.001 + 1e-5 * n; };
  d.steps.decodeStepS = [](double b, double) { return 0.001 + 1e-5 * b; };
  d.label = "draft";
  return d;
}

qf::Speculation spec(int k, double alpha) {
  qf::Speculation s;
  s.draftTokens = k;
  s.acceptance = alpha;
  return s;
}

}  // namespace

TEST_CASE("tokens per speculative step are (1 - a^(k+1)) / (1 - a)", "[speculation]") {
  CHECK(qf::expectedTokensPerStep(spec(3, 0.5)) == Approx(1.875));
  CHECK(qf::expectedTokensPerStep(spec(1, 0.8)) == Approx(1.8));
  CHECK(qf::expectedTokensPerStep(spec(4, 1.0)) == Approx(5.0));
  // A draft that is never right still leaves the target's own token.
  CHECK(qf::expectedTokensPerStep(spec(5, 1e-9)) == Approx(1.0).epsilon(1e-6));
}

TEST_CASE("speculation refuses k outside 1..15 and an acceptance of 0 or less or above 1",
          "[speculation]") {
  CHECK_FALSE(qf::validateSpeculation(spec(1, 1.0)));
  CHECK_FALSE(qf::validateSpeculation(spec(15, 0.7)));
  for (int k : {0, -1, 16, 100}) {
    auto e = qf::validateSpeculation(spec(k, 0.7));
    REQUIRE(e);
    CHECK(e->field == "spec-k");
  }
  for (double a : {0.0, -0.1, 1.01, std::numeric_limits<double>::quiet_NaN()}) {
    auto e = qf::validateSpeculation(spec(3, a));
    REQUIRE(e);
    CHECK(e->field == "spec-acceptance");
  }
}

TEST_CASE("a speculative step verifies B(k+1) tokens, reads the KV once, drafts k times",
          "[speculation]") {
  const auto t = targetSteps();
  const auto d = smallDraft();
  // B = 8, context 100, k = 3: verify = (10 + 0.1 x 32) ms + attention 8 x 100 x 1 us = 14 ms;
  // drafting = 3 x (1 + 0.08) ms = 3.24 ms.
  CHECK(qf::speculativeStepS(t, d, spec(3, 0.5), 8, 100) == Approx(0.01724));
  // Per accepted token at a = 0.5 (1.875 tokens a step).
  const auto m = qf::speculativeSteps(t, d, spec(3, 0.5));
  CHECK(m.decodeStepS(8, 100) == Approx(0.01724 / 1.875));
  CHECK(m.decodeTokensPerSeq == 4.0);
  // Prefill runs the target's and the draft's: 10 + 10 ms, 1 + 1 ms.
  CHECK(m.prefillS(100, 0) == Approx(0.022));
  // A mixed step of 8 decodes and one 100-token chunk: the chunk costs the GEMMs' margin above
  // the 32 verify tokens (13.2 -> 23.2 ms) and its prefill beyond a pass (22 - 20 ms).
  CHECK(qf::mixedStepS(m, 8, 100, 100, 0, 1) == Approx(0.0232 + 0.01724 / 1.875 - 0.0132 + 0.002));
  // Without decodes the mixed step is the prefill.
  CHECK(qf::mixedStepS(m, 0, 0, 100, 0, 1) == Approx(0.022));
}

TEST_CASE("a mixed step without speculation is priced as before", "[speculation]") {
  const auto t = targetSteps();
  // pass(8 + 100) + attention of the decodes + the chunk's prefill beyond a pass (0 here).
  CHECK(qf::mixedStepS(t, 8, 100, 100, 0, 1) == Approx(0.010 + 1e-4 * 108 + 8 * 100 * 1e-6));
}

TEST_CASE("speculation's draft takes its weights and KV from the pool", "[speculation]") {
  qf::EngineServing target;
  target.steps = targetSteps();
  target.capacity.weightsGib = 15.0;  // per GPU
  target.capacity.kvBytesPerToken = 131072;
  target.kvCapacityTokens = 400000;
  target.kvGroupBytesPerToken = 131072;  // KV heads split over the 2 GPUs: no copies
  // MTP on a 32-layer target over 2 GPUs: 30 GiB / 32 of weights, 1/32 more KV per token.
  const auto mtp = qf::mtpDraft(target, 32, 2);
  CHECK(mtp.weightsGib == Approx(30.0 / 32));
  CHECK(mtp.scale == Approx(1.0 / 32));
  auto s = qf::speculativeServing(target, mtp, spec(1, 0.8));
  REQUIRE(s);
  const double gib = 1024.0 * 1024.0 * 1024.0;
  const double want = (400000.0 * 131072 - 30.0 / 32 * gib) / (131072.0 * (1 + 1.0 / 32));
  CHECK(s->kvCapacityTokens == Approx(want));
  // A draft bigger than the pool is refused, naming it.
  auto big = smallDraft();
  big.weightsGib = 100;
  auto r = qf::speculativeServing(target, big, spec(2, 0.8));
  REQUIRE_FALSE(r);
  CHECK(r.error().field == "spec-draft");
  CHECK(r.error().message.find("draft") != std::string::npos);
}

TEST_CASE("speculation moves W4A16's crossover with bf16 k + 1 times lower in batch",
          "[speculation]") {
  qf::ScenarioSpec sp;
  sp.model = "llama-3.1-8b";
  sp.gpu = "h100-sxm";
  auto s = qf::resolveScenario(sp);
  REQUIRE(s);
  auto cands = qf::makeCandidates({"bf16", "w4a16-g128"}, "", "", "");
  REQUIRE(cands);
  REQUIRE(cands->size() == 2);
  auto bf16 = qf::engineServing(*s, (*cands)[0]);
  auto w4 = qf::engineServing(*s, (*cands)[1]);
  REQUIRE(bf16);
  REQUIRE(w4);
  // The first batch at which W4A16's step is no faster than bf16's, on a 0.25 grid.
  auto crossing = [](auto&& a, auto&& b) {
    for (double batch = 0.25; batch <= 4096; batch += 0.25)
      if (a(batch) >= b(batch)) return batch;
    return -1.0;
  };
  const double plain = crossing([&](double b) { return w4->steps.decodeStepS(b, 0); },
                                [&](double b) { return bf16->steps.decodeStepS(b, 0); });
  REQUIRE(plain > 8);
  qf::SpeculativeDraft free;  // a draft that costs nothing isolates the verify pass
  free.steps = bf16->steps;
  free.scale = 0;
  const auto k3 = spec(3, 0.7);
  const double withSpec =
      crossing([&](double b) { return qf::speculativeStepS(w4->steps, free, k3, b, 0); },
               [&](double b) { return qf::speculativeStepS(bf16->steps, free, k3, b, 0); });
  CHECK(withSpec == Approx(plain / 4).margin(0.25));
}

TEST_CASE("verify tokens count against the token budget", "[speculation]") {
  qf::StepTimeModel plain;
  plain.prefillS = [](double n, double) { return 0.010 + 1e-4 * n; };
  plain.decodeStepS = [](double b, double) { return 0.010 + 1e-4 * b; };
  // Speculation that never pays (one token a step): the decode step is a 4-token verify.
  qf::StepTimeModel verify4 = plain;
  verify4.decodeStepS = [](double b, double) { return 0.010 + 4e-4 * b; };
  verify4.passS = [](double n) { return 0.010 + 1e-4 * n; };
  verify4.decodeTokensPerSeq = 4;
  qf::ServingLimits lim;
  lim.maxBatch = 64;
  lim.tokenBudget = 512;
  qf::ServingWorkload w;
  w.inputTokens = 2000;
  w.outputTokens = 100;
  // Budget-bound: every step full. With 4 budget tokens per decoding sequence, fewer prompt
  // tokens fit beside the decodes (427 instead of 488 a step, by hand), so fewer requests
  // start per second: 0.2135 / 61.2 ms against 0.244 / 61.2 ms.
  const auto a = qf::saturatedState(plain, lim, w);
  const auto b = qf::saturatedState(verify4, lim, w);
  CHECK(b.requestsPerS / a.requestsPerS == Approx(0.2135 / 0.244).epsilon(0.02));
  // A full batch's verify tokens (64 x 4) must fit the budget: 200 does not.
  lim.tokenBudget = 200;
  qf::SimOptions o;
  o.input.mean = 100;
  o.output.mean = 10;
  o.requests = 100;
  auto r = qf::simulateServing(verify4, lim, o);
  REQUIRE_FALSE(r);
  CHECK(r.error().field == "token-budget");
  // The plain model runs at that budget (64 decodes fit in 200).
  CHECK(qf::simulateServing(plain, lim, o));
}

TEST_CASE("a measured accept length gives the acceptance that yields it", "[speculation]") {
  // k = 1: tau = 1 + alpha.
  REQUIRE(qf::acceptanceForTokensPerStep(1.6, 1).has_value());
  CHECK(*qf::acceptanceForTokensPerStep(1.6, 1) == Approx(0.6).margin(1e-9));
  // k = 3 at alpha 0.7: 1 + 0.7 + 0.49 + 0.343 = 2.533 tokens a step, and back.
  CHECK(*qf::acceptanceForTokensPerStep(2.533, 3) == Approx(0.7).margin(1e-9));
  // Every draft accepted: k + 1 tokens a step.
  CHECK(*qf::acceptanceForTokensPerStep(4.0, 3) == Approx(1.0).margin(1e-9));
  // Outside what k drafts can yield: no acceptance.
  CHECK_FALSE(qf::acceptanceForTokensPerStep(1.0, 3).has_value());
  CHECK_FALSE(qf::acceptanceForTokensPerStep(4.2, 3).has_value());
  CHECK_FALSE(qf::acceptanceForTokensPerStep(std::nan(""), 3).has_value());
  CHECK_FALSE(qf::acceptanceForTokensPerStep(2.0, 0).has_value());
}
