// Expert parallelism and DP attention (docs/model.md, "Expert parallelism and DP attention"):
// what each GPU stores, reads and sends, hand-computed from DeepSeek-V3's config.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <quantfront/core/analysis/deploy_search.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/model/serving_model.hpp>

using namespace qf;

namespace {

constexpr double kGib = 1024.0 * 1024.0 * 1024.0;

Scenario deepseek(int ep, bool dp, double imbalance = 1.0) {
  ScenarioSpec spec;
  spec.model = "deepseek-v3";
  spec.gpu = "h200-sxm";
  spec.tp = 8;
  spec.kvDtype = "fp8";
  auto s = resolveScenario(spec);
  if (!s) FAIL(s.error().str());
  s->ep = ep;
  s->dpAttention = dp;
  s->expertImbalance = imbalance;
  s->maxModelLen = 2048;
  return *s;
}

/// DeepSeek-V3 on `tp` H100 SXM, FP8 KV, 2,048 tokens a sequence.
ScenarioSpec deepseekOnH100(int tp) {
  ScenarioSpec spec;
  spec.model = "deepseek-v3";
  spec.gpu = "h100-sxm";
  spec.tp = tp;
  spec.kvDtype = "fp8";
  spec.maxModelLen = 2048;
  return spec;
}

SchemeReport fp8(const Scenario& s) {
  auto cands = makeCandidates({"w8a8-fp8"}, "", "", "");
  REQUIRE(cands.ok());
  REQUIRE_FALSE(validateScenario(s).has_value());
  auto rep = runEngine(s, *cands, {1.0, 64.0});
  if (!rep) FAIL(rep.error().str());
  return rep->schemes.front();
}

const KindTerm& kindOf(const SchemeReport& r, LayerKind k) {
  return r.curve.kinds[static_cast<std::size_t>(k)];
}

/// DeepSeek-V3 on 8 H200 under plain TP and under DP attention with EP 8, priced in FP8.
struct TpAndDp {
  Scenario tpOnly = deepseek(1, false);
  Scenario dp = deepseek(8, true);
  SchemeReport a = fp8(tpOnly);
  SchemeReport b = fp8(dp);
};

}  // namespace

TEST_CASE("EP and DP attention refuse what the engines cannot run, naming the option",
          "[engine][moe-parallel]") {
  struct Bad {
    const char* model;
    int tp, ep;
    bool dp;
    double imbalance;
    const char* field;
    const char* words;
  };
  const Bad cases[] = {
      {"deepseek-v3", 8, 3, false, 1.0, "ep", "must divide the tensor-parallel degree 8"},
      {"deepseek-v3", 8, 8, false, 0.5, "expert-imbalance", "[1, 64]"},
      {"llama-3.1-8b", 2, 2, false, 1.0, "ep", "no routed experts"},
      {"llama-3.1-8b", 2, 1, true, 1.0, "dp-attention", "no routed experts"},
      {"qwen3-30b-a3b", 1, 1, true, 1.0, "dp-attention", "at least 2 GPUs"},
      // Mixtral's 8 experts do not split over 16 groups.
      {"mixtral-8x7b", 16, 16, false, 1.0, "ep", "does not divide"},
  };
  for (const auto& c : cases) {
    INFO(c.model << " tp " << c.tp << " ep " << c.ep);
    ScenarioSpec spec;
    spec.model = c.model;
    spec.gpu = "h200-sxm";
    spec.tp = c.tp;
    auto s = resolveScenario(spec);
    REQUIRE(s);
    s->ep = c.ep;
    s->dpAttention = c.dp;
    s->expertImbalance = c.imbalance;
    const auto e = validateScenario(*s);
    REQUIRE(e);
    CHECK(e->field == c.field);
    CHECK(e->message.find(c.words) != std::string::npos);
  }
}

TEST_CASE("DP attention against plain TP: weights and KV per GPU and the traffic",
          "[engine][moe-parallel]") {
  const TpAndDp both;
  const Scenario& tpOnly = both.tpOnly;
  const Scenario& dp = both.dp;
  const SchemeReport& a = both.a;
  const SchemeReport& b = both.b;
  SECTION("the dense part on every GPU and the KV partitioned") {
    // The dense part (attention, 3 dense MLP layers, shared experts, router) runs whole on
    // every GPU for its own sequences, as vLLM's data-parallel ranks and SGLang's
    // --moe-dense-tp-size 1 run it.
    const ParamCounts p = countParams(dp.model);
    const KindTerm& lin = kindOf(b, LayerKind::Linear);
    CHECK(lin.weightsReplicated == Approx(p.linear()));
    CHECK(p.linear() > p.attention + p.denseMlp);
    // Per GPU: everything over 8, plus 7/8 more of the dense part (FP8, 1 byte each plus the
    // scheme's scale overhead).
    const double extra = p.linear() * lin.bytesPerWeight * 7.0 / 8.0 / kGib;
    CHECK(b.capacity.weightsGib == Approx(a.capacity.weightsGib + extra));
    // 61 layers x 576 x 1 byte: a whole token on one GPU under TP, 1/8 of the sequences per GPU
    // under DP attention.
    CHECK(kvShardsOf(tpOnly) == 1.0);
    CHECK(kvShardsOf(dp) == 8.0);
    CHECK(b.capacity.kvGibPerSeq == Approx(61.0 * 576 * 2048 / 8 / kGib));
    auto cands = makeCandidates({"w8a8-fp8"}, "", "", "");
    REQUIRE(cands.ok());
    auto es = engineServing(dp, cands->front());
    REQUIRE(es);
    const double free = (b.capacity.budgetGib - b.capacity.weightsGib) * kGib;
    CHECK(es->kvCapacityTokens == Approx(free * 8 / (61.0 * 576)));
    // The decode weight read grows by the replicated dense part: 7 more copies' worth over 8.
    const double beta = dp.gpu.bandwidthBytesPerS() * dp.efficiency.bandwidthEff;
    const double k = lin.kernelBandwidthEff;
    CHECK(lin.memS.c0 - kindOf(a, LayerKind::Linear).memS.c0 ==
          Approx(p.linear() * 7.0 * lin.bytesPerWeight / (beta * k) / 8.0));
    // Each GPU schedules its own sequences: the host time per sequence is paid 8 ways at once.
    CHECK(b.curve.seqOverheadS == Approx(a.curve.seqOverheadS / 8.0));
    CHECK(a.curve.seqOverheadS == Approx(tpOnly.efficiency.seqOverheadUs * 1e-6));
  }
  SECTION("all-to-all dispatch and combine instead of all-reduces with EP over every GPU") {
    const double perDir = *dp.gpu.nvlinkGBps * 1e9 / 2.0;
    const double alpha = dp.efficiency.allreduceLatencyUs * 1e-6;
    const double h = 7168, bytes = 2.0 * h;
    const double allReduce = 2.0 * 7.0 / 8.0 * bytes / perDir;
    // TP: two all-reduces on each of 61 layers.
    CHECK(a.curve.allReduceS.c0 == Approx(61 * 2 * alpha));
    CHECK(a.curve.allReduceS.c1 == Approx(61 * 2 * allReduce));
    // DP attention: the 3 dense layers send nothing; 58 MoE layers dispatch each GPU's 1/8 of
    // the tokens to 8 experts, 7/8 remote, in FP8 with a 4-byte scale a 128 values (the
    // experts run FP8 GEMMs), and combine them in bf16.
    const double dispatch = 8.0 * h * (1.0 + 4.0 / 128.0) * 7.0 / 8.0 / perDir / 8.0;
    const double combine = 8.0 * bytes * 7.0 / 8.0 / perDir / 8.0;
    CHECK(b.curve.allReduceS.c0 == Approx(58 * 2 * alpha));
    CHECK(b.curve.allReduceS.c1 == Approx(58 * (dispatch + combine)));
    // Experts in bf16 are dispatched in bf16.
    Scenario bf = dp;
    auto cands = makeCandidates({"bf16"}, "", "", "");
    REQUIRE(cands.ok());
    auto rep = runEngine(bf, *cands, {1.0});
    REQUIRE(rep);
    CHECK(rep->schemes.front().curve.allReduceS.c1 == Approx(58 * 2 * combine));
  }
}

TEST_CASE("a replica wider than its NVLink domain talks over the network",
          "[engine][moe-parallel]") {
  // DeepSeek-V3 on 16 H100 (two HGX nodes, one 50 GB/s NIC a GPU and direction).
  ScenarioSpec spec = deepseekOnH100(16);
  auto tp16 = resolveScenario(spec);
  REQUIRE(tp16);
  REQUIRE(tp16->gpu.nvlinkDomainGpus == 8);
  REQUIRE(tp16->gpu.networkGBps == 50);
  const double h = 7168, bytes = 2.0 * h, net = 50e9, nvl = 900e9 / 2.0;
  const double alpha = tp16->efficiency.allreduceLatencyUs * 1e-6;
  // Plain TP 16: NCCL's rings cross between the nodes on every GPU's NIC at once, so the
  // crossing runs at 8 x 50 = 400 GB/s, below NVLink's 450 a direction: the NICs set the time.
  const SchemeReport a = fp8(*tp16);
  CHECK(a.curve.allReduceS.c1 == Approx(61 * 2 * (2.0 * 15.0 / 16.0 * bytes / (8.0 * net))));
  CHECK(a.curve.allReduceS.c0 == Approx(61 * 2 * alpha));
  // EP 16 with DP attention: of a token's 8 copies, 7/16 go over NVLink and 8/16 over the
  // network at once; the network is slower and sets the time.
  auto ep16 = resolveScenario(spec, MoeLayout{16, true, 1.0, 0});
  REQUIRE(ep16);
  const SchemeReport b = fp8(*ep16);
  auto side = [&](double perCopy) {
    return std::max(8.0 * perCopy * 7.0 / 16.0 / nvl, 8.0 * perCopy * 8.0 / 16.0 / net) / 16.0;
  };
  CHECK(side(bytes) == Approx(8.0 * bytes * 8.0 / 16.0 / net / 16.0));
  CHECK(b.curve.allReduceS.c1 == Approx(58 * (side(h * (1.0 + 4.0 / 128.0)) + side(bytes))));
  // On 8 GPUs the same EP runs over NVLink alone.
  spec.tp = 8;
  auto ep8 = resolveScenario(spec, MoeLayout{8, true, 1.0, 0});
  REQUIRE(ep8);
  const SchemeReport c = fp8(*ep8);
  CHECK(c.curve.allReduceS.c1 ==
        Approx(58 * 8.0 * (h * (1.0 + 4.0 / 128.0) + bytes) * 7.0 / 8.0 / nvl / 8.0));
  // On A100 nodes (NVLink 600 GB/s, 300 a direction) the eight NICs outpace a GPU's NVLink,
  // which every ring crosses: NVLink sets the time.
  spec.gpu = "a100-80gb";
  spec.tp = 16;
  auto a100 = resolveScenario(spec);
  REQUIRE(a100);
  REQUIRE(a100->gpu.nvlinkDomainGpus == 8);
  REQUIRE(a100->gpu.networkGBps == 50);
  const double nvlA100 = *a100->gpu.nvlinkGBps * 1e9 / 2.0;
  REQUIRE(nvlA100 < 8.0 * net);
  CHECK(fp8(*a100).curve.allReduceS.c1 == Approx(61 * 2 * (2.0 * 15.0 / 16.0 * bytes / nvlA100)));
  // A part-filled last domain crosses on its own NICs: Llama-3.1-8B at TP 8 over domains of
  // 6 GPUs (one full, one of 2) rings at the 2 NICs of the small one, below NVLink.
  {
    ScenarioSpec small;
    small.model = "llama-3.1-8b";
    small.gpu = "h100-sxm";
    small.tp = 8;
    auto s8 = resolveScenario(small);
    REQUIRE(s8);
    s8->gpu.nvlinkDomainGpus = 6;
    const double h8 = 4096, bytes8 = 2.0 * h8;
    CHECK(fp8(*s8).curve.allReduceS.c1 ==
          Approx(32 * 2 * (2.0 * 7.0 / 8.0 * bytes8 / (2.0 * net))));
    s8->gpu.nvlinkDomainGpus = 4;  // two full domains of 4: 4 NICs cross
    CHECK(fp8(*s8).curve.allReduceS.c1 ==
          Approx(32 * 2 * (2.0 * 7.0 / 8.0 * bytes8 / (4.0 * net))));
  }
  // A GB200 NVL72 rack is one NVLink domain of 72 GPUs: TP 16 stays on NVLink.
  spec.gpu = "gb200";
  spec.tp = 16;
  auto gb = resolveScenario(spec);
  REQUIRE(gb);
  CHECK(gb->gpu.nvlinkDomainGpus == 72);
  const double nvlGb = *gb->gpu.nvlinkGBps * 1e9 / 2.0;
  CHECK(fp8(*gb).curve.allReduceS.c1 == Approx(61 * 2 * (2.0 * 15.0 / 16.0 * bytes / nvlGb)));
}

TEST_CASE("expert imbalance scales the busiest GPU's routed-expert work under EP",
          "[engine][moe-parallel]") {
  const SchemeReport even = fp8(deepseek(8, false));
  const SchemeReport skew = fp8(deepseek(8, false, 1.5));
  const KindTerm& e = kindOf(even, LayerKind::Moe);
  const KindTerm& s = kindOf(skew, LayerKind::Moe);
  CHECK(s.memS.cE == Approx(1.5 * e.memS.cE));
  CHECK(s.mmaSPerSeq == Approx(1.5 * e.mmaSPerSeq));
  // The attention and dense side does not move, nor the weights stored.
  CHECK(kindOf(skew, LayerKind::Linear).memS.c0 == Approx(kindOf(even, LayerKind::Linear).memS.c0));
  CHECK(skew.capacity.weightsGib == Approx(even.capacity.weightsGib));
  // Under plain TP (ep 1) every GPU holds a slice of every expert: no imbalance applies.
  const SchemeReport tp = fp8(deepseek(1, false, 1.5));
  CHECK(kindOf(tp, LayerKind::Moe).memS.cE ==
        Approx(kindOf(fp8(deepseek(1, false)), LayerKind::Moe).memS.cE));
}

TEST_CASE("the deployment search's MoE layouts are the ones the engines accept", "[moe][search]") {
  DeploySpace sp;
  sp.model = *Catalog::bundled().resolveModel("deepseek-v3");  // 256 routed experts
  const std::vector<MoeLayout> tp8 = {{1, false}, {1, true}, {2, false}, {2, true},
                                      {4, false}, {4, true}, {8, false}, {8, true}};
  CHECK(moeLayouts(sp, 8) == tp8);
  CHECK(moeLayouts(sp, 1) == std::vector<MoeLayout>{{1, false}});
  // Every EP degree above divides the 256 experts: no redundant slot is taken.
  for (const auto& l : moeLayouts(sp, 8)) CHECK(l.redundantExperts == 0);
  // Mixtral's 8 experts on 16 GPUs: EP 16 takes 8 redundant slots (16 slots, one a GPU), as
  // the engines' load balancer would place them; EP 8 and below take none.
  sp.model = *Catalog::bundled().resolveModel("mixtral-8x7b");
  const auto m16 = moeLayouts(sp, 16);
  CHECK(std::count_if(m16.begin(), m16.end(), [](const MoeLayout& l) { return l.ep == 8; }) == 2);
  CHECK(std::count_if(m16.begin(), m16.end(), [](const MoeLayout& l) { return l.ep == 16; }) == 2);
  for (const auto& l : m16) {
    INFO("ep " << l.ep);
    CHECK(l.redundantExperts == (l.ep == 16 ? 8 : 0));
    CHECK((8 + l.redundantExperts) % l.ep == 0);
  }
  // Off, or a dense model: plain TP only.
  sp.moeParallel = false;
  CHECK(moeLayouts(sp, 8) == std::vector<MoeLayout>{{1, false}});
  sp.moeParallel = true;
  sp.model = *Catalog::bundled().resolveModel("llama-3.1-70b");
  CHECK(moeLayouts(sp, 8) == std::vector<MoeLayout>{{1, false}});
  // Every layout is a scenario the engine prices (none is refused by validateScenario).
  sp.model = *Catalog::bundled().resolveModel("qwen3-30b-a3b");
  ServingWorkload w;
  w.inputTokens = 512;
  w.outputTokens = 128;
  const GpuSpec gpu = *Catalog::bundled().resolveGpu("h100-sxm");
  for (const auto& l : moeLayouts(sp, 4)) {
    INFO("ep " << l.ep << " dp " << l.dpAttention);
    const Scenario s = deployScenario(sp, gpu, 4, 1.0, w, l);
    CHECK(s.ep == l.ep);
    CHECK(s.dpAttention == l.dpAttention);
    CHECK_FALSE(validateScenario(s).has_value());
  }
  // So is a layout with redundant slots, and the slots reach the scenario.
  sp.model = *Catalog::bundled().resolveModel("mixtral-8x7b");
  for (const auto& l : moeLayouts(sp, 16)) {
    INFO("ep " << l.ep << " dp " << l.dpAttention);
    const Scenario s = deployScenario(sp, gpu, 16, 1.0, w, l);
    CHECK(s.redundantExperts == l.redundantExperts);
    CHECK_FALSE(validateScenario(s).has_value());
  }
}

TEST_CASE("the search reaches whole nodes: GPU counts, EP 72 with its slots, caps per DP rank",
          "[moe][search]") {
  CHECK(deployGpuCounts(8) == std::vector<int>{1, 2, 4, 8});
  CHECK(deployGpuCounts(6) == std::vector<int>{1, 2, 4});
  CHECK(deployGpuCounts(40) == std::vector<int>{1, 2, 4, 8, 16, 24, 32, 40});
  const auto wide = deployGpuCounts(1024);
  CHECK(wide.size() == 4 + 15 + 3);  // 1-8, 16-128 by whole nodes, 256, 512, 1024
  CHECK(wide[wide.size() - 4] == 128);
  CHECK(wide.back() == 1024);
  DeploySpace sp;
  sp.model = *Catalog::bundled().resolveModel("deepseek-v3");
  // TP 72: EP 1, 2, 4, 8 and 72 (256 experts over 72 take 32 redundant slots).
  const auto l72 = moeLayouts(sp, 72);
  std::vector<int> eps;
  for (const auto& l : l72) {
    if (!l.dpAttention) eps.push_back(l.ep);
    CHECK((256 + l.redundantExperts) % l.ep == 0);
  }
  CHECK(eps == std::vector<int>{1, 2, 4, 8, 72});
  const auto ep72 = std::find_if(l72.begin(), l72.end(),
                                 [](const MoeLayout& l) { return l.ep == 72 && l.dpAttention; });
  REQUIRE(ep72 != l72.end());
  CHECK(ep72->redundantExperts == 32);
  // Only DP attention splits DeepSeek-V3 over 72 GPUs (its 128 heads stay whole), and only at
  // EP 72 (each expert's 2,048 width over 72 / EP GPUs).
  for (const auto& l : l72) {
    INFO("ep " << l.ep << " dp " << l.dpAttention);
    CHECK(checkTensorParallel(sp.model, 72, l.dpAttention, l.ep).has_value() !=
          (l.dpAttention && l.ep == 72));
  }
  ServingWorkload w;
  w.inputTokens = 2000;
  w.outputTokens = 100;
  const GpuSpec h100 = *Catalog::bundled().resolveGpu("h100-sxm");
  const Scenario s = deployScenario(sp, h100, 72, 1.0, w, *ep72);
  CHECK_FALSE(validateScenario(s).has_value());
  // Under DP attention a replica's batch cap is its ranks' together.
  CHECK(schedulerRanks(72, true) == 72);
  CHECK(schedulerRanks(8, false) == 1);
  sp.gpus = {h100};
  sp.maxGpus = 16;
  sp.schemes = {*Catalog::bundled().scheme("w8a8-fp8")};
  sp.kvDtypes = {"fp8"};
  sp.batchCaps = {32, 256};
  DeployOptions o;
  o.load = DeployLoad{DeployLoad::Kind::Max, 0};
  o.workload = w;
  auto r = searchDeployments(sp, o);
  REQUIRE(r);
  REQUIRE_FALSE(r->frontier.empty());
  bool anyDp = false;
  for (const auto& c : r->frontier) {
    INFO(c.tp << " dp " << c.dpAttention << " cap " << c.maxBatch);
    const int ranks = schedulerRanks(c.tp, c.dpAttention);
    CHECK(c.maxBatch % ranks == 0);
    CHECK((c.maxBatch / ranks == 32 || c.maxBatch / ranks == 256));
    anyDp = anyDp || c.dpAttention;
  }
  CHECK(anyDp);
}

TEST_CASE("redundant expert slots: EP 72 on DeepSeek-V3, every slot stored and read",
          "[engine][moe-parallel]") {
  ScenarioSpec spec = deepseekOnH100(72);
  // 256 routed experts over 72 groups: refused, naming the way out; 256 + 32 slots divide.
  auto refused = resolveScenario(spec, MoeLayout{72, true, 1.0, 0});
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().field == "ep");
  CHECK(refused.error().message.find("{--redundant-experts}") != std::string::npos);
  auto ep72 = resolveScenario(spec, MoeLayout{72, true, 1.0, 32});
  REQUIRE(ep72.ok());
  CHECK(ep72->redundantExperts == 32);
  // Without DP attention 72 GPUs do not split the 128 attention heads.
  CHECK_FALSE(resolveScenario(spec, MoeLayout{72, false, 1.0, 32}).ok());
  // Redundant slots without EP mean nothing to the engines.
  spec.tp = 8;
  auto noEp = resolveScenario(spec, MoeLayout{1, false, 1.0, 32});
  REQUIRE_FALSE(noEp.ok());
  CHECK(noEp.error().field == "redundant-experts");
  // On 8 GPUs at EP 8: 32 redundant slots store and read 288/256 of the routed experts.
  const Scenario plain = deepseek(8, true);
  Scenario extra = plain;
  extra.redundantExperts = 32;
  const SchemeReport a = fp8(plain), b = fp8(extra);
  const KindTerm& ma = kindOf(a, LayerKind::Moe);
  const KindTerm& mb = kindOf(b, LayerKind::Moe);
  CHECK(mb.weightsStored == Approx(ma.weightsStored * 288.0 / 256.0).epsilon(1e-12));
  CHECK(mb.memS.cE == Approx(ma.memS.cE * 288.0 / 256.0).epsilon(1e-12));
  // The tensor math is the tokens' own: a replica does not multiply it.
  CHECK(mb.mmaSPerSeq == Approx(ma.mmaSPerSeq).epsilon(1e-12));
  // The linear kind is untouched, and the stored weights leave less room for KV.
  CHECK(kindOf(b, LayerKind::Linear).memS.c0 == Approx(kindOf(a, LayerKind::Linear).memS.c0));
  CHECK(b.capacity.maxSeqs < a.capacity.maxSeqs);
}
