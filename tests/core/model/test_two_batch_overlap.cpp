// Two-batch overlap (docs/model.md, "Two-batch overlap"): the batch runs as two micro-batches,
// one's all-to-all under the other's GEMMs and attention. Each step pays what no micro-batch
// hides, then the longer of the all-to-all and the work; the weights are read and the
// collectives called once a micro-batch. Hand-computed against the same curve without it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <quantfront/core/analysis/deploy_search.hpp>
#include <quantfront/core/analysis/launch_command.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/scenario_spec.hpp>

using namespace qf;

namespace {

/// DeepSeek-V3 in FP8 on `tp` H100 SXM at EP = tp with DP attention, FP8 KV.
Scenario deepseekEp(int tp, bool overlap, std::int64_t context = 0) {
  ScenarioSpec spec;
  spec.model = "deepseek-v3";
  spec.gpu = "h100-sxm";
  spec.tp = tp;
  spec.kvDtype = "fp8";
  spec.maxModelLen = 4096;
  MoeLayout l{tp, true};
  l.redundantExperts = (tp - 256 % tp) % tp;
  l.twoBatchOverlap = overlap;
  auto s = resolveScenario(spec, l);
  if (!s) FAIL(s.error().str());
  s->contextTokens = context;
  return *s;
}

StepCurve curveOf(const Scenario& s) {
  auto cands = makeCandidates({"w8a8-fp8"}, "", "", "");
  REQUIRE(cands.ok());
  auto c = buildStepCurve(s, countParams(s.model), cands->front());
  if (!c) FAIL(c.error().str());
  return *c;
}

/// The work the all-to-all hides under: each kind's longer side and the attention.
double workOf(const StepCurve& c, double batch) {
  const double et = c.routing.distinct(batch);
  double w = c.attentionS.at(batch, et);
  for (const auto& k : c.kinds) {
    if (k.present) w += std::max(k.memS.at(batch, et), k.compS.at(batch, et));
  }
  return w;
}

}  // namespace

TEST_CASE("two-batch overlap: a step pays the longer of the all-to-all and the work it hides",
          "[engine][moe-parallel][overlap]") {
  const StepCurve plain = curveOf(deepseekEp(8, false, 2048));
  const StepCurve tbo = curveOf(deepseekEp(8, true, 2048));
  REQUIRE_FALSE(plain.twoBatchOverlap);
  REQUIRE(tbo.twoBatchOverlap);
  // The all-to-all's bytes leave the additive terms for the overlapped one; each micro-batch
  // makes its own calls (α twice as often).
  CHECK(plain.overlapS.c1 == 0.0);
  CHECK(tbo.overlapS.c1 == Approx(plain.allReduceS.c1));
  CHECK(tbo.allReduceS.c1 == 0.0);
  CHECK(tbo.allReduceS.c0 == Approx(2.0 * plain.allReduceS.c0));
  CHECK(tbo.token.allReduceSPerToken == Approx(plain.token.allReduceSPerToken));
  // The layers' weights are read, dequantized and tiled once a micro-batch; the tensor math
  // per sequence is paid once; the LM head runs once on the whole batch.
  for (LayerKind kind : kAllLayerKinds) {
    const auto i = static_cast<std::size_t>(kind);
    const KindTerm& a = plain.kinds[i];
    const KindTerm& b = tbo.kinds[i];
    if (!a.present) continue;
    const double twice = kind == LayerKind::LmHead ? 1.0 : 2.0;
    INFO(layerKindName(kind));
    CHECK(b.memS.c0 == Approx(twice * a.memS.c0));
    CHECK(b.memS.cE == Approx(twice * a.memS.cE));
    CHECK(b.compS.c0 == Approx(twice * a.compS.c0));
    CHECK(b.compS.cE == Approx(twice * a.compS.cE));
    CHECK(b.compS.c1 == Approx(a.compS.c1));
    CHECK(b.memS.c1 == Approx(a.memS.c1));
  }
  // The step, by hand: t0, the calls and the host time per sequence, then the longer side.
  for (double batch : {1.0, 16.0, 256.0, 2048.0, 16384.0}) {
    INFO("B = " << batch);
    const double host = tbo.overheadS + tbo.allReduceS.c0 + tbo.seqOverheadS * batch;
    const double comm = tbo.overlapS.c1 * batch;
    CHECK(tbo.stepSeconds(batch) == Approx(host + std::max(workOf(tbo, batch), comm)));
    // Without the overlap the same step adds everything.
    const double plainHost = plain.overheadS + plain.allReduceS.c0 + plain.seqOverheadS * batch;
    CHECK(plain.stepSeconds(batch) ==
          Approx(plainHost + workOf(plain, batch) + plain.allReduceS.c1 * batch));
    // activeAt is the same step as one Affine.
    CHECK(tbo.activeAt(batch).at(batch, tbo.routing.distinct(batch)) ==
          Approx(tbo.stepSeconds(batch)));
  }
  // One sequence pays the second weight read; a full batch gains the hidden all-to-all.
  CHECK(tbo.stepSeconds(1.0) > plain.stepSeconds(1.0));
  CHECK(tbo.stepSeconds(16384.0) < plain.stepSeconds(16384.0));
  // A decode step at a context is the --context step at that context.
  CHECK(tbo.decodeStepSeconds(1024.0, 2048.0) == Approx(tbo.stepSeconds(1024.0)));
}

TEST_CASE("two-batch overlap keeps crossovers exact where the all-to-all takes over",
          "[engine][moe-parallel][overlap]") {
  // EP 32 over four nodes: the all-to-all crosses the 50 GB/s NIC and grows faster with the
  // batch than the work it hides under, so the step turns all-to-all-bound at some batch.
  const StepCurve tbo = curveOf(deepseekEp(32, true));
  const StepCurve plain = curveOf(deepseekEp(32, false));
  REQUIRE(tbo.overlapS.c1 > 0);
  CHECK(workOf(tbo, 1.0) > tbo.overlapS.c1);
  CHECK(workOf(tbo, 1e6) < tbo.overlapS.c1 * 1e6);
  // The switch is a knot, where the two sides meet.
  const auto knots = tbo.knots();
  const auto at = std::find_if(knots.begin(), knots.end(), [&](double b) {
    return std::abs(workOf(tbo, b) - tbo.overlapS.c1 * b) <= 1e-9 * workOf(tbo, b);
  });
  REQUIRE(at != knots.end());
  const double bStar = *at;
  INFO("switch at B = " << bStar);
  CHECK(workOf(tbo, bStar * 0.99) > tbo.overlapS.c1 * bStar * 0.99);
  CHECK(workOf(tbo, bStar * 1.01) < tbo.overlapS.c1 * bStar * 1.01);
  // Against the same deployment without overlap: slower at one sequence (a second weight read),
  // faster once the work hides the all-to-all; the crossover found is where they are equal.
  const auto cross = findCrossings(tbo, plain);
  REQUIRE(cross.size() == 1);
  const double b = cross.front().batch;
  CHECK_FALSE(cross.front().firstFasterBelow);
  CHECK(tbo.stepSeconds(b) == Approx(plain.stepSeconds(b)).epsilon(1e-9));
  CHECK(tbo.stepSeconds(b * 0.9) > plain.stepSeconds(b * 0.9));
  CHECK(tbo.stepSeconds(b * 1.1) < plain.stepSeconds(b * 1.1));
}

TEST_CASE("two-batch overlap: a static batch's decode is the sum of its steps, and its prefill",
          "[engine][moe-parallel][overlap][e2e]") {
  const StepCurve tbo = curveOf(deepseekEp(32, true));
  // A batch whose steps change sides within the run: the all-to-all first, then the work as
  // the attention grows with the context. Above the batch where the sides meet at a context
  // the all-to-all is the longer; that batch grows with the context.
  const double inputLen = 10, outputLen = 2001;
  auto meet = [&](double context) {
    auto allToAllLonger = [&](double b) {
      const double host = tbo.overheadS + tbo.allReduceS.c0 + tbo.seqOverheadS * b;
      return tbo.decodeStepSeconds(b, context) - host <= tbo.overlapS.c1 * b;
    };
    double lo = 1, hi = 1e7;
    REQUIRE_FALSE(allToAllLonger(lo));
    if (!allToAllLonger(hi)) return hi;  // the work is the longer at every batch up to 10^7
    while (hi - lo > 1e-6 * hi) {
      const double mid = 0.5 * (lo + hi);
      (allToAllLonger(mid) ? hi : lo) = mid;
    }
    return hi;
  };
  const double first = meet(inputLen + 1), last = meet(inputLen + outputLen - 1);
  INFO("the sides meet at B = " << first << " at the first step, " << last << " at the last");
  REQUIRE(last - first > 2);
  const double batch = std::ceil(first + 0.5 * (std::min(last, 10 * first) - first));
  REQUIRE(batch > 0);
  INFO("B = " << batch);
  double sum = 0;
  for (double n = inputLen + 1; n <= inputLen + outputLen - 1; ++n)
    sum += tbo.decodeStepSeconds(batch, n);
  const auto p = predictStaticBatch(tbo, batch, inputLen, outputLen);
  CHECK(p.tpotMs == Approx(sum / (outputLen - 1) * 1e3).epsilon(1e-9));
  // The prefill pays t0, the calls and each prompt's host time, then the longer of its
  // tokens' all-to-all and its GEMMs, attention and KV write.
  const double promptLen = 2000;
  const double tokens = 8 * promptLen;
  const double host = tbo.overheadS + tbo.allReduceS.c0 + tbo.seqOverheadS * 8;
  const double comm = tbo.token.allReduceSPerToken * tokens;
  const StepCurve plain = curveOf(deepseekEp(32, false));
  const double plainWork = plain.prefillSeconds(8, promptLen) - plain.overheadS -
                           plain.allReduceS.c0 - plain.seqOverheadS * 8 - comm;
  // The overlapped work is the plain work with the layers' weight reads, dequant and tile
  // padding paid once more (at most their whole prefill sides again).
  const double et = plain.routing.distinct(tokens);
  double extra = 0;
  for (LayerKind kind : {LayerKind::Linear, LayerKind::Moe}) {
    const auto i = static_cast<std::size_t>(kind);
    extra += plain.token.prefillMem[i].c0 + plain.token.prefillMem[i].cE * et +
             plain.token.prefillComp[i].c0 + plain.token.prefillComp[i].cE * et;
  }
  const double overlapped = tbo.prefillSeconds(8, promptLen);
  CHECK(overlapped >= host + std::max(plainWork, comm) - 1e-12);
  CHECK(overlapped <= host + std::max(plainWork + extra, comm) + 1e-12);
  CHECK(overlapped < plain.prefillSeconds(8, promptLen));
}

TEST_CASE("two-batch overlap is refused where there is no all-to-all to hide, naming it",
          "[engine][moe-parallel][overlap]") {
  ScenarioSpec spec;
  spec.model = "deepseek-v3";
  spec.gpu = "h200-sxm";
  spec.tp = 8;
  spec.kvDtype = "fp8";
  auto refused = [&](MoeLayout l) {
    l.twoBatchOverlap = true;
    auto s = resolveScenario(spec, l);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().field == "two-batch-overlap");
    return s.error().message;
  };
  CHECK(refused(MoeLayout{1, false}).find("--dp-attention") != std::string::npos);
  CHECK(refused(MoeLayout{8, false}).find("--dp-attention") != std::string::npos);
  CHECK(refused(MoeLayout{4, true}).find("4 and 8 here") != std::string::npos);
  MoeLayout ok{8, true};
  ok.twoBatchOverlap = true;
  CHECK(resolveScenario(spec, ok).ok());
}

TEST_CASE("the search tries two-batch overlap where it applies, and its launch lines say so",
          "[deploy][moe-parallel][overlap][launch]") {
  DeploySpace sp;
  sp.model = *Catalog::bundled().resolveModel("deepseek-v3");
  auto overlapped = [&](int tp) {
    int n = 0;
    for (const auto& l : moeLayouts(sp, tp)) {
      if (!l.twoBatchOverlap) continue;
      ++n;
      CHECK(l.dpAttention);
      CHECK(l.ep == tp);
    }
    return n;
  };
  CHECK(overlapped(8) == 0);  // off by default
  sp.twoBatchOverlap = true;
  CHECK(overlapped(8) == 1);
  CHECK(overlapped(24) == 1);
  CHECK(overlapped(1) == 0);
  DeployConfig c;
  c.gpu = "h100-sxm";
  c.gpuCount = 16;
  c.tp = 16;
  c.ep = 16;
  c.dpAttention = true;
  c.twoBatchOverlap = true;
  c.linear = c.moe = c.lmHead = "w8a8-fp8";
  c.kvDtype = "fp8";
  c.maxBatch = 2048;
  CHECK(c.layoutText().find("two-batch overlap") != std::string::npos);
  LaunchSettings s;
  s.memUtil = 0.9;
  s.tokenBudget = 8192;
  s.maxModelLen = 3000;
  const auto lc = launchCommands(c, sp.model, s);
  REQUIRE(lc.size() == 3);
  CHECK(lc[0].command.find(" --enable-dbo") != std::string::npos);
  CHECK(lc[1].command.find(" --enable-two-batch-overlap") != std::string::npos);
  const bool said = std::any_of(lc[2].notes.begin(), lc[2].notes.end(), [](const auto& n) {
    return n.find("two-batch overlap") != std::string::npos;
  });
  CHECK(said);
  c.twoBatchOverlap = false;
  for (const auto& l : launchCommands(c, sp.model, s)) {
    CHECK(l.command.find("dbo") == std::string::npos);
    CHECK(l.command.find("overlap") == std::string::npos);
  }
}

TEST_CASE("two-batch overlap: the engine's reported points and ridge are the curve's",
          "[engine][moe-parallel][overlap]") {
  // EP 32: at 65,536 sequences the all-to-all is the longer side, which the points must carry.
  const Scenario s = deepseekEp(32, true);
  const Scenario plainScenario = deepseekEp(32, false);
  auto cands = makeCandidates({"w8a8-fp8"}, "", "", "");
  REQUIRE(cands.ok());
  const std::vector<double> batches{1.0, 1024.0, 65536.0};
  auto rep = runEngine(s, *cands, batches);
  auto plain = runEngine(plainScenario, *cands, batches);
  REQUIRE(rep);
  REQUIRE(plain);
  const SchemeReport& sr = rep->schemes.front();
  const StepCurve& c = sr.curve;
  REQUIRE(c.overlapS.c1 * 65536.0 > workOf(c, 65536.0));
  for (std::size_t i = 0; i < batches.size(); ++i) {
    INFO("B = " << batches[i]);
    CHECK(sr.points[i].stepMs == Approx(c.stepSeconds(batches[i]) * 1e3));
    CHECK(sr.points[i].tokensPerS == Approx(batches[i] / c.stepSeconds(batches[i])));
  }
  // Each micro-batch of B/2 turns compute-bound at the kernel's ridge: the batch's is twice it.
  REQUIRE(plain->schemes.front().ridgeBatch.has_value());
  REQUIRE(sr.ridgeBatch.has_value());
  CHECK(*sr.ridgeBatch == Approx(2.0 * *plain->schemes.front().ridgeBatch));
}
