// Intervals of a deployment's modelled figures (deploy_intervals.hpp).
#include <quantfront/core/analysis/deploy_intervals.hpp>

#include <algorithm>
#include <cmath>

#include <quantfront/core/analysis/serving_intervals.hpp>
#include <quantfront/core/model/scenario_spec.hpp>

namespace qf {

Result<DeployIntervals> deployIntervals(const DeploySpace& sp, const DeployOptions& o,
                                        const DeployConfig& c, double level) {
  const auto gpu =
      std::find_if(sp.gpus.begin(), sp.gpus.end(), [&](const GpuSpec& g) { return g.id == c.gpu; });
  if (gpu == sp.gpus.end()) return Error{"", "", "gpu", "'" + c.gpu + "' is not in the search"};
  // A disaggregated deployment's figures come from two pools; the constants' spread is
  // carried for one engine's steady state only: its figures are given without an interval.
  if (c.disaggregated()) {
    auto bare = [](double v) { return IntervalEstimate{v, v, v}; };
    return DeployIntervals{bare(c.ttftMs), bare(c.tpotMs), bare(c.outputTokS),
                           bare(c.usdPerMillionOutputTokens)};
  }
  auto cands = makeCandidates({}, c.linear, c.moe, c.lmHead, *sp.catalog);
  if (!cands) return cands.error();
  ServingQuery q;
  q.scenario = deployScenario(sp, *gpu, c.tp, kvBytesForDtype(c.kvDtype), o.workload,
                              MoeLayout{c.ep, c.dpAttention});
  q.candidate = cands->front();
  q.inputLen = o.workload.inputTokens;
  q.outputLen = o.workload.outputTokens;
  q.maxBatch = c.maxBatch;
  q.tokenBudget = std::max(sp.tokenBudget, static_cast<double>(c.maxBatch));
  const double replicas = static_cast<double>(c.replicas);
  switch (o.load.kind) {
    case DeployLoad::Kind::Sync:
      q.load = PointLoad::Concurrency;
      q.loadValue = 1;
      break;
    case DeployLoad::Kind::Max:
      q.load = PointLoad::Max;
      break;
    case DeployLoad::Kind::Rate:
      q.load = PointLoad::Rate;
      q.loadValue = o.load.requestsPerS / replicas;
      break;
  }
  const auto rec = e2eFitRecord(q.scenario.efficiency.calibrationExtra);
  const E2eFitRecord* r = rec ? &*rec : nullptr;
  // Each interval around the search's own figure (the same steady state).
  auto around = [&](E2eMetric m, double value) {
    return servingIntervalAround(q, m, value, level, r)
        .value_or(IntervalEstimate{value, value, value});
  };
  DeployIntervals out;
  out.ttftMs = around(E2eMetric::TtftMs, c.ttftMs);
  out.tpotMs = around(E2eMetric::TpotMs, c.tpotMs);
  out.outputTokS = around(E2eMetric::OutputTokS, c.outputTokS);
  // Cost per token is the price over the throughput: its interval is the throughput's, inverted.
  const IntervalEstimate& t = out.outputTokS;
  const double cost = c.usdPerMillionOutputTokens;
  out.usdPerMillionOutputTokens = {cost, t.high > 0 ? cost * t.value / t.high : cost,
                                   t.low > 0 ? cost * t.value / t.low : cost, t.extrapolated};
  return out;
}

std::vector<std::size_t> costTies(const std::vector<DeployIntervals>& frontier,
                                  const DeployIntervals& best, std::size_t bestIndex) {
  std::vector<std::size_t> out;
  const auto& b = best.usdPerMillionOutputTokens;
  for (std::size_t i = 0; i < frontier.size(); ++i) {
    if (i == bestIndex) continue;
    const auto& c = frontier[i].usdPerMillionOutputTokens;
    if (c.low <= b.high && b.low <= c.high) out.push_back(i);
  }
  return out;
}

Result<FrontierIntervals> frontierIntervals(const DeploySpace& sp, const DeployOptions& o,
                                            const DeployResult& r, double level) {
  FrontierIntervals out;
  out.level = level;
  for (const auto& c : r.frontier) {
    auto iv = deployIntervals(sp, o, c, level);
    if (!iv) return iv.error();
    out.frontier.push_back(*iv);
  }
  if (r.best && !out.frontier.empty()) {
    out.best = out.frontier.size() - 1;
    out.bestTies = costTies(out.frontier, out.frontier[*out.best], *out.best);
  }
  return out;
}

}  // namespace qf
