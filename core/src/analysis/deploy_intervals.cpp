// Intervals of a deployment's modelled figures (deploy_intervals.hpp).
#include <quantfront/core/analysis/deploy_intervals.hpp>

#include <algorithm>
#include <array>
#include <cmath>

#include <quantfront/core/analysis/serving_intervals.hpp>
#include <quantfront/core/model/scenario_spec.hpp>

namespace qf {

namespace {

/// The cost interval: the price over the throughput, so the throughput's interval inverted.
IntervalEstimate costFrom(const IntervalEstimate& t, double cost) {
  return {cost, t.high > 0 ? cost * t.value / t.high : cost,
          t.low > 0 ? cost * t.value / t.low : cost, t.extrapolated};
}

/// A disaggregated deployment's intervals: both pools' steady state rebuilt with their
/// constants moved along each coordinate of the decode GPU's fit record (both pools together:
/// one GPU's constants, or where the pools run on two GPUs, constants fitted the same way),
/// the three figures' log-gradients taken from the same states, and each interval applied
/// around the search's own figure. Below saturation the throughput is the offered load and
/// carries none.
Result<DeployIntervals> splitIntervals(const DeploySpace& sp, const DeployOptions& o,
                                       const DeployConfig& c, const GpuSpec& gpu, double level) {
  const Efficiency base =
      deployScenario(sp, gpu, c.tp, kvBytesForDtype(c.kvDtype), o.workload).efficiency;
  auto at = [&](const std::string& constant, double delta) -> std::array<double, 3> {
    const auto st = disaggregatedState(sp, o, c, constant, delta);
    if (!st || !st->stable) return {0, 0, 0};
    return {st->ttftS, st->tpotS, st->outputTokPerS};
  };
  const auto value = at("", 0);
  const std::array<double, 3> figures{c.ttftMs, c.tpotMs, c.outputTokS};
  auto bare = [](double v) { return IntervalEstimate{v, v, v}; };
  DeployIntervals out{bare(c.ttftMs), bare(c.tpotMs), bare(c.outputTokS),
                      bare(c.usdPerMillionOutputTokens)};
  const auto rec = e2eFitRecord(base.calibrationExtra);
  if (!rec || rec->dof <= 0 || !(value[0] > 0 && value[1] > 0 && value[2] > 0)) return out;
  const std::size_t n = rec->names.size();
  std::array<std::vector<double>, 3> g;
  for (auto& v : g) v.assign(n, 0.0);
  const double h = 1e-4;
  for (std::size_t i = 0; i < n; ++i) {
    const auto up = at(rec->names[i], h);
    const auto dn = at(rec->names[i], -h);
    for (std::size_t m = 0; m < 3; ++m) {
      if (up[m] > 0 && dn[m] > 0) g[m][i] = (std::log(up[m]) - std::log(dn[m])) / (2 * h);
    }
  }
  const bool outside = !rec->range.contains(0.0, o.workload.inputTokens, o.workload.outputTokens);
  std::array<IntervalEstimate, 3> iv;
  for (std::size_t m = 0; m < 3; ++m) {
    const IntervalEstimate r = intervalFromLogGradient(value[m], g[m], *rec, level);
    iv[m] = {figures[m], r.low / r.value * figures[m], r.high / r.value * figures[m], outside};
  }
  out.ttftMs = iv[0];
  out.tpotMs = iv[1];
  if (o.load.kind != DeployLoad::Kind::Rate) out.outputTokS = iv[2];
  out.outputTokS.extrapolated = outside;
  out.usdPerMillionOutputTokens = costFrom(out.outputTokS, c.usdPerMillionOutputTokens);
  return out;
}

}  // namespace

Result<DeployIntervals> deployIntervals(const DeploySpace& sp, const DeployOptions& o,
                                        const DeployConfig& c, double level) {
  const auto gpu =
      std::find_if(sp.gpus.begin(), sp.gpus.end(), [&](const GpuSpec& g) { return g.id == c.gpu; });
  if (gpu == sp.gpus.end()) return Error{"", "", "gpu", "'" + c.gpu + "' is not in the search"};
  if (c.disaggregated()) return splitIntervals(sp, o, c, *gpu, level);
  auto as = deployAssignment(sp, c);
  if (!as) return as.error();
  ServingQuery q;
  q.scenario = deployScenario(sp, *gpu, c.tp, kvBytesForDtype(c.kvDtype), o.workload, c.layout());
  q.candidate = *as;
  q.inputLen = o.workload.inputTokens;
  q.outputLen = o.workload.outputTokens;
  q.maxBatch = c.maxBatch;
  const double ranks = schedulerRanks(c.tp, c.dpAttention);
  q.tokenBudget = std::max(sp.tokenBudget * ranks, static_cast<double>(c.maxBatch));
  if (sp.speculation) {
    // The draft's constants move with the target's; each decode takes k + 1 budget tokens.
    q.speculation = deploySpeculation(sp, *gpu, c.tp, kvBytesForDtype(c.kvDtype), o.workload);
    q.tokenBudget = std::max(sp.tokenBudget * ranks,
                             static_cast<double>(c.maxBatch) * (sp.speculation->draftTokens + 1));
  }
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
  out.usdPerMillionOutputTokens = costFrom(out.outputTokS, c.usdPerMillionOutputTokens);
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
