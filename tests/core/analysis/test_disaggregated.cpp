// Disaggregated prefill and decode: the pools' steady state against hand-computed cases.
#include <catch2/catch.hpp>

#include <cmath>

#include <quantfront/core/analysis/deploy_intervals.hpp>
#include <quantfront/core/analysis/deploy_search.hpp>
#include <quantfront/core/analysis/disaggregated.hpp>
#include <quantfront/core/analysis/serving_intervals.hpp>
#include <quantfront/core/model/catalog.hpp>

using namespace qf;

namespace {

/// Step times simple enough to work by hand: a decode-shaped pass over b tokens is 10 ms +
/// 0.1 ms each (no context term); a prefill of n tokens is that pass plus n x `perToken`
/// seconds of attention.
StepTimeModel steps(double perToken) {
  StepTimeModel m;
  m.prefillS = [perToken](double n, double) { return 0.010 + 1e-4 * n + n * perToken; };
  m.decodeStepS = [](double b, double) { return 0.010 + 1e-4 * b; };
  m.requestOverheadS = 0.005;
  return m;
}

}  // namespace

TEST_CASE("a disaggregated deployment runs at the slower pool's rate", "[disaggregated]") {
  ServingWorkload w;
  w.inputTokens = 1000;
  w.outputTokens = 101;  // 100 decode steps after the prefill's token
  const StepTimeModel fastPrefill = steps(1e-7), dec = steps(1e-7);
  DisaggPools p;
  p.prefill = &fastPrefill;
  p.prefillReplicas = 16;
  p.prefillReplicas = 16;  // 16 x 9.9 requests a second: more than the decode pool's 78
  p.decode = &dec;
  p.decodeReplicas = 2;
  p.decodeLimits.maxBatch = 64;
  p.decodeLimits.kvCapacityTokens = 1e9;
  p.kvTransferS = 0.05;
  // The decode pool binds: 64 sequences a replica, each step 10 + 6.4 ms, 100 steps a request.
  const DisaggState sat = disaggSaturated(p, w);
  REQUIRE(sat.stable);
  CHECK(sat.bindingLimit == "batch cap");
  CHECK(sat.requestsPerS == Approx(2 * 64 / (100 * 0.0164)));
  CHECK(sat.outputTokPerS == Approx(sat.requestsPerS * 101));
  // TPOT: the step, plus the KV transfer spread over the 100 gaps.
  CHECK(sat.tpotS == Approx(0.0164 + 0.05 / 100));
  // The KV cache binds when it holds fewer sequences than the cap: 40 of 1,101 tokens.
  p.decodeLimits.kvCapacityTokens = 40 * 1101 + 10;
  CHECK(disaggSaturated(p, w).bindingLimit == "KV cache");
  CHECK(disaggSaturated(p, w).requestsPerS == Approx(2 * 40 / (100 * 0.014)));
  p.decodeLimits.kvCapacityTokens = 1e9;
  // A slow prefill pool binds instead: 1 ms of attention a token, 8 whole prompts a step of
  // 10 + 800 + 8,000 ms: 0.91 requests a second against the decode pool's 78.

  const StepTimeModel slowPrefill = steps(1e-3);
  p.prefill = &slowPrefill;
  p.prefillReplicas = 1;
  p.prefillReplicas = 1;
  const DisaggState ps1 = disaggSaturated(p, w);
  CHECK(ps1.bindingLimit == "prefill pool");
  CHECK(ps1.requestsPerS == Approx(8 / (0.010 + 0.8 + 8.0)));
  // The decode pool then runs fewer sequences, so its TPOT is below the full batch's.
  CHECK(ps1.tpotS < sat.tpotS);
  // Synchronous: TTFT is t_req and the prefill alone, 5 + 10 + 100 + 1,000 ms.
  const DisaggState one = disaggSynchronous(p, w);
  CHECK(one.ttftS == Approx(0.005 + 0.110 + 1.0));
  CHECK(one.tpotS == Approx(0.0101 + 0.05 / 100));
  // At a rate (the decode-bound pools again): a queueing wait on top of the prefill, a TPOT
  // rising with the load, and nothing at or above the saturated rate.
  p.prefill = &fastPrefill;
  p.prefillReplicas = 16;
  const DisaggState low = disaggAtRate(p, w, 0.1 * sat.requestsPerS);
  const DisaggState high = disaggAtRate(p, w, 0.9 * sat.requestsPerS);
  REQUIRE(low.stable);
  REQUIRE(high.stable);
  CHECK(low.ttftS > 0.005 + fastPrefill.prefillS(1000, 0));
  CHECK(high.ttftS > low.ttftS);
  CHECK(high.tpotS > low.tpotS);
  CHECK(high.tpotS < sat.tpotS);
  CHECK(low.outputTokPerS == Approx(0.1 * sat.requestsPerS * 101));
  CHECK_FALSE(disaggAtRate(p, w, sat.requestsPerS * 1.01).stable);
}

TEST_CASE("the KV moves over NVLink within a node and over the network across nodes",
          "[disaggregated]") {
  const GpuSpec h100 = *Catalog::bundled().resolveGpu("h100-sxm");
  REQUIRE(h100.nvlinkGBps);
  // 1,000 tokens of 327,680 bytes (Llama-3.1-70B's bf16 KV a token, all layers).
  const double bytes = 1000 * 327680.0;
  // 2 + 2 GPUs in one node: two GPU pairs, each at half the NVLink figure.
  CHECK(kvTransferS(h100, 327680, 1000, 2, 2, 4) ==
        Approx(bytes / (2 * *h100.nvlinkGBps * 1e9 / 2)));
  // 8 + 8 GPUs: two nodes, one 50 GB/s NIC per GPU, 8 pairs.
  CHECK(kvTransferS(h100, 327680, 1000, 8, 8, 16) == Approx(bytes / (8 * 50e9)));
  // Pools of two GPU types are two kinds of node: the KV crosses the network even on 2 + 2.
  CHECK(kvTransferS(h100, 327680, 1000, 2, 2, 4, false) == Approx(bytes / (2 * 50e9)));
  // The narrower pool sets the pairs.
  CHECK(kvTransferS(h100, 327680, 1000, 4, 1, 5) == Approx(bytes / (*h100.nvlinkGBps * 1e9 / 2)));
}

TEST_CASE("a split deployment of the search is rebuilt exactly and carries an interval",
          "[disaggregated][intervals]") {
  const Catalog& cat = Catalog::bundled();
  DeploySpace sp;
  sp.model = *cat.resolveModel("llama-3.1-70b");
  sp.gpus = {*cat.resolveGpu("h100-sxm")};
  sp.maxGpus = 8;
  sp.schemes = {*cat.scheme("w8a8-fp8")};
  sp.kvDtypes = {"fp8"};
  sp.disaggregated = true;
  for (auto load : {DeployLoad{DeployLoad::Kind::Max, 0}, DeployLoad{DeployLoad::Kind::Rate, 2},
                    DeployLoad{DeployLoad::Kind::Sync, 0}}) {
    INFO(deployLoadText(load));
    DeployOptions o;
    o.load = load;
    o.workload.inputTokens = 4096;
    o.workload.outputTokens = 256;
    o.sloTpotMs = 60;
    auto r = searchDeployments(sp, o);
    REQUIRE(r.ok());
    auto fi = frontierIntervals(sp, o, *r);
    REQUIRE(fi.ok());
    int split = 0;
    for (std::size_t i = 0; i < r->frontier.size(); ++i) {
      const DeployConfig& c = r->frontier[i];
      const DeployIntervals& iv = fi->frontier[i];
      if (!c.disaggregated()) {
        CHECK_FALSE(disaggregatedState(sp, o, c).ok());  // refused: not split
        continue;
      }
      ++split;
      // The same steady state as the search priced.
      auto st = disaggregatedState(sp, o, c);
      REQUIRE(st.ok());
      CHECK(st->ttftS * 1e3 == Approx(c.ttftMs).epsilon(1e-12));
      CHECK(st->tpotS * 1e3 == Approx(c.tpotMs).epsilon(1e-12));
      CHECK(st->outputTokPerS == Approx(c.outputTokS).epsilon(1e-12));
      CHECK(st->bindingLimit == c.bindingLimit);
      // An interval around each figure, from the H100's fit record: TTFT and TPOT move with
      // the constants; the throughput does so unless it is the offered load.
      for (const IntervalEstimate* e : {&iv.ttftMs, &iv.tpotMs}) {
        CHECK(e->low < e->value);
        CHECK(e->high > e->value);
      }
      CHECK(iv.ttftMs.value == c.ttftMs);
      CHECK(iv.tpotMs.value == c.tpotMs);
      if (load.kind == DeployLoad::Kind::Rate) {
        CHECK(iv.outputTokS.low == iv.outputTokS.high);
        CHECK(iv.usdPerMillionOutputTokens.low == iv.usdPerMillionOutputTokens.high);
      } else {
        CHECK(iv.outputTokS.low < c.outputTokS);
        CHECK(iv.outputTokS.high > c.outputTokS);
        // Cost is the price over the throughput: the throughput's interval inverted.
        CHECK(iv.usdPerMillionOutputTokens.low ==
              Approx(c.usdPerMillionOutputTokens * c.outputTokS / iv.outputTokS.high));
        CHECK(iv.usdPerMillionOutputTokens.high ==
              Approx(c.usdPerMillionOutputTokens * c.outputTokS / iv.outputTokS.low));
      }
    }
    if (load.kind != DeployLoad::Kind::Sync) CHECK(split > 0);
  }
}

TEST_CASE("each pool of a split deployment takes its own GPU and schemes", "[disaggregated]") {
  const Catalog& cat = Catalog::bundled();
  DeploySpace sp;
  sp.model = *cat.resolveModel("llama-3.1-70b");
  sp.gpus = {*cat.resolveGpu("h100-sxm"), *cat.resolveGpu("h200-sxm"),
             *cat.resolveGpu("a100-80gb")};
  sp.maxGpus = 16;
  sp.schemes = {*cat.scheme("bf16"), *cat.scheme("w8a8-fp8"), *cat.scheme("w8a8-int8"),
                *cat.scheme("w4a16-g128")};
  sp.disaggregated = true;
  DeployOptions o;
  o.load = DeployLoad{DeployLoad::Kind::Rate, 2};
  o.workload.inputTokens = 4096;
  o.workload.outputTokens = 512;
  o.sloTpotMs = 50;
  auto r = searchDeployments(sp, o);
  REQUIRE(r.ok());
  auto fi = frontierIntervals(sp, o, *r);
  REQUIRE(fi.ok());
  // Long prompts at a moderate rate: the compute-bound prefill pool and the memory-bound
  // decode pool choose differently (the seeds' two regimes: FP8's tensor rate for prefill,
  // W4A16's light weights for decode).
  int mixed = 0;
  for (std::size_t i = 0; i < r->frontier.size(); ++i) {
    const DeployConfig& c = r->frontier[i];
    if (!c.disaggregated()) continue;
    CHECK_FALSE(c.prefillGpu.empty());
    CHECK_FALSE(c.prefillLinear.empty());
    if (c.prefillGpu == c.gpu && c.prefillSchemeId() == c.schemeId()) continue;
    ++mixed;
    INFO(c.layoutText());
    CHECK(c.layoutText().find("prefill pool") != std::string::npos);
    // The price is both pools' GPUs at their own rates.
    const double pp = *cat.resolveGpu(c.prefillGpu)->pricePerGpuHourUsd;
    const double dp = *cat.resolveGpu(c.gpu)->pricePerGpuHourUsd;
    CHECK(c.pricePerHourUsd ==
          Approx(pp * c.prefillTp * c.prefillReplicas + dp * c.tp * c.replicas));
    // Rebuilt from its row exactly.
    auto st = disaggregatedState(sp, o, c);
    REQUIRE(st.ok());
    CHECK(st->ttftS * 1e3 == Approx(c.ttftMs).epsilon(1e-12));
    CHECK(st->tpotS * 1e3 == Approx(c.tpotMs).epsilon(1e-12));
    CHECK(c.kvTransferMs > 0);
    CHECK(fi->frontier[i].tpotMs.low < c.tpotMs);
    CHECK(fi->frontier[i].tpotMs.high > c.tpotMs);
  }
  CHECK(mixed > 0);
  REQUIRE(r->best.has_value());
  CHECK(r->best->disaggregated());
  CHECK(r->best->linear == "w4a16-g128");
  CHECK(r->best->prefillLinear == "w8a8-fp8");
}

TEST_CASE("under speculation every deployment is rebuilt with its draft and carries an interval",
          "[disaggregated][intervals][speculation]") {
  const Catalog& cat = Catalog::bundled();
  for (const bool draftModel : {false, true}) {
    INFO((draftModel ? "Llama-3.1-8B drafting" : "MTP"));
    DeploySpace sp;
    sp.model = *cat.resolveModel("llama-3.1-70b");
    sp.gpus = {*cat.resolveGpu("h100-sxm")};
    sp.maxGpus = 8;
    sp.schemes = {*cat.scheme("bf16"), *cat.scheme("w4a16-g128")};
    sp.kvDtypes = {"bf16"};
    sp.disaggregated = true;
    sp.speculation = Speculation{3, 0.7};
    if (draftModel) sp.draftModel = *cat.resolveModel("llama-3.1-8b");
    DeployOptions o;
    o.load = DeployLoad{DeployLoad::Kind::Max, 0};
    o.workload.inputTokens = 2048;
    o.workload.outputTokens = 256;
    auto r = searchDeployments(sp, o);
    REQUIRE(r.ok());
    auto fi = frontierIntervals(sp, o, *r);
    REQUIRE(fi.ok());
    REQUIRE(fi->frontier.size() == r->frontier.size());
    int split = 0, aggregated = 0;
    for (std::size_t i = 0; i < r->frontier.size(); ++i) {
      const DeployConfig& c = r->frontier[i];
      const DeployIntervals& iv = fi->frontier[i];
      if (c.disaggregated()) {
        ++split;
        auto st = disaggregatedState(sp, o, c);  // both pools with the draft
        REQUIRE(st.ok());
        CHECK(st->tpotS * 1e3 == Approx(c.tpotMs).epsilon(1e-12));
        CHECK(st->outputTokPerS == Approx(c.outputTokS).epsilon(1e-12));
      } else {
        ++aggregated;
        // The query the intervals price, rebuilt: the speculative steady state the search
        // priced, not the plain engine's.
        ServingQuery q;
        q.scenario = deployScenario(sp, sp.gpus.front(), c.tp, 2.0, o.workload);
        auto as = deployAssignment(sp, c);
        REQUIRE(as.ok());
        q.candidate = *as;
        q.inputLen = 2048;
        q.outputLen = 256;
        q.maxBatch = c.maxBatch;
        q.tokenBudget = std::max(sp.tokenBudget, c.maxBatch * 4.0);
        q.speculation = deploySpeculation(sp, sp.gpus.front(), c.tp, 2.0, o.workload);
        CHECK(servingInterval(q, E2eMetric::TpotMs).value == Approx(c.tpotMs).epsilon(1e-9));
        // The plain engine's figure is another (speculation pays on few GPUs, a draft model
        // costs more than it saves at TP 8).
        q.speculation.reset();
        CHECK(std::abs(servingInterval(q, E2eMetric::TpotMs).value / c.tpotMs - 1) > 0.03);
      }
      CHECK(iv.tpotMs.low < c.tpotMs);
      CHECK(iv.tpotMs.high > c.tpotMs);
      CHECK(iv.outputTokS.low < c.outputTokS);
      CHECK(iv.outputTokS.high > c.outputTokS);
    }
    CHECK(aggregated > 0);
    CHECK(split > 0);
  }
}

TEST_CASE("each pool of a split MoE deployment takes its own expert layout, rebuilt exactly",
          "[disaggregated][moe]") {
  const Catalog& cat = Catalog::bundled();
  DeploySpace sp;
  sp.model = *cat.resolveModel("deepseek-v3");  // MLA, 256 routed experts
  sp.gpus = {*cat.resolveGpu("h200-sxm")};
  sp.maxGpus = 16;
  sp.schemes = {*cat.scheme("w8a8-fp8")};
  sp.kvDtypes = {"fp8"};
  sp.disaggregated = true;
  DeployOptions o;
  o.load = DeployLoad{DeployLoad::Kind::Max, 0};
  o.workload.inputTokens = 2048;
  o.workload.outputTokens = 256;
  o.sloTpotMs = 100;
  auto r = searchDeployments(sp, o);
  REQUIRE(r.ok());
  // The pools' layouts are enumerated: each pool engine at each of the layouts of its TP.
  DeploySpace plain = sp;
  plain.moeParallel = false;
  auto rp = searchDeployments(plain, o);
  REQUIRE(rp.ok());
  CHECK(r->space > rp->space);
  int laidOut = 0;
  for (const DeployConfig& c : r->frontier) {
    if (!c.disaggregated()) continue;
    const DeployConfig p = c.prefillPool();
    CHECK(p.ep == c.prefillEp);
    CHECK(p.dpAttention == c.prefillDpAttention);
    if (c.prefillEp == 1 && !c.prefillDpAttention && c.ep == 1 && !c.dpAttention) continue;
    ++laidOut;
    INFO(c.layoutText());
    // Each pool's EP divides the experts (DeepSeek-V3's 256 need no redundant slot here)
    // and its TP.
    CHECK(c.prefillTp % c.prefillEp == 0);
    CHECK(c.tp % c.ep == 0);
    CHECK(c.prefillRedundantExperts == 0);
    // Rebuilt from its row, layouts and all, exactly as the search priced it.
    auto st = disaggregatedState(sp, o, c);
    REQUIRE(st.ok());
    CHECK(st->ttftS * 1e3 == Approx(c.ttftMs).epsilon(1e-12));
    CHECK(st->tpotS * 1e3 == Approx(c.tpotMs).epsilon(1e-12));
    CHECK(st->outputTokPerS == Approx(c.outputTokS).epsilon(1e-12));
  }
  // Split deployments with an expert layout in a pool reach the frontier, and are at least as
  // cheap at the best as plain TP pools alone.
  CHECK(laidOut > 0);
  REQUIRE(r->best.has_value());
  REQUIRE(rp->best.has_value());
  CHECK(r->best->usdPerMillionOutputTokens <= rp->best->usdPerMillionOutputTokens);
}

TEST_CASE("the bounds the search skips pairs by never exceed what the pair reaches",
          "[disaggregated][search]") {
  ServingWorkload w;
  w.inputTokens = 1000;
  w.outputTokens = 101;
  const StepTimeModel pre = steps(1e-4), dec = steps(1e-7);
  DisaggPools p;
  p.prefill = &pre;
  p.prefillReplicas = 3;
  p.prefillBudget = 8192;
  p.decode = &dec;
  p.decodeReplicas = 2;
  p.decodeLimits.maxBatch = 256;
  p.decodeLimits.kvCapacityTokens = 1e9;
  p.kvTransferS = 0.02;
  const PrefillRates pr = prefillRates(pre, p.prefillBudget, w);
  const DecodeSide side = decodeSide(p, w);
  // The shared parts: the decode side by hand (256 a replica, 10 + 25.6 ms a step).
  CHECK(side.nMax == 256);
  CHECK(side.rateMax == Approx(2 * 256 / (100 * 0.0356)));
  CHECK(side.stepAtOne == Approx(0.0101));
  // The states from the shared parts are the states.
  const DisaggState sat = disaggSaturated(p, w);
  const DisaggState satShared = disaggSaturated(p, w, pr, side);
  CHECK(satShared.requestsPerS == sat.requestsPerS);
  CHECK(satShared.tpotS == sat.tpotS);
  CHECK(satShared.bindingLimit == sat.bindingLimit);
  const DisaggBounds b = disaggBounds(p, w, pr, side);
  CHECK(b.maxRequestsPerS == sat.requestsPerS);
  CHECK(b.minTtftS <= sat.ttftS);
  CHECK(b.minTpotS <= sat.tpotS);
  // At every stable rate: the TPOT bound from the least concurrency is below the exact TPOT,
  // above the one-sequence bound, and close to it where the step barely grows.
  for (double share : {0.05, 0.3, 0.6, 0.9, 0.999}) {
    const double r = share * sat.requestsPerS;
    const DisaggState at = disaggAtRate(p, w, r);
    REQUIRE(at.stable);
    INFO("rate " << r);
    const double bound = disaggTpotAtLeast(p, w, r, side);
    CHECK(bound <= at.tpotS * (1 + 1e-12));
    CHECK(bound >= b.minTpotS);
    CHECK(disaggAtRate(p, w, r, pr, side).tpotS == at.tpotS);
    // The concurrency found completes the rate: n / ((O - 1) t(n)) = r per replica.
    const double n = at.decodeConcurrency;
    CHECK(n / (100 * (0.010 + 1e-4 * n)) == Approx(r / 2).epsilon(1e-9));
    // The search's shortcuts are the same figures, to the bit: the step kept at a rate, and
    // the bounds from the pairing's shared parts.
    DecodeSide keptSide = side;
    keepTpotBoundAt(keptSide, p, w, r);
    CHECK(keptSide.boundRate == r);
    CHECK(disaggTpotAtLeast(p, w, r, keptSide) == bound);
    CHECK(disaggTpotAtLeast(p, w, 0.5 * r, keptSide) == disaggTpotAtLeast(p, w, 0.5 * r, side));
    // The decode concurrency kept at a rate gives the state solved afresh, to the bit; at
    // another rate the kept figures are not used.
    keepStateAt(keptSide, p, w, r);
    CHECK(keptSide.keepsStateAt(r));
    CHECK_FALSE(keptSide.keepsStateAt(0.5 * r));
    const DisaggState atKept = disaggAtRate(p, w, r, pr, keptSide);
    CHECK(atKept.decodeConcurrency == at.decodeConcurrency);
    CHECK(atKept.tpotS == at.tpotS);
    CHECK(atKept.ttftS == at.ttftS);
    CHECK(atKept.bindingLimit == at.bindingLimit);
    CHECK(disaggAtRate(p, w, 0.5 * r, pr, keptSide).tpotS == disaggAtRate(p, w, 0.5 * r).tpotS);
  }
  const DisaggBounds fromParts = disaggBounds(pairBoundsParts(p, w, pr), side);
  CHECK(fromParts.maxRequestsPerS == b.maxRequestsPerS);
  CHECK(fromParts.minTtftS == b.minTtftS);
  CHECK(fromParts.minTpotS == b.minTpotS);
  // The one-request TPOT by hand: a step at one sequence and the transfer over 100 gaps.
  CHECK(fromParts.minTpotS == Approx(0.0101 + 0.02 / 100));
}
