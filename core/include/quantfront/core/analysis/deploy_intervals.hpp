#pragma once
/// Intervals of a deployment's modelled figures (TTFT, TPOT, throughput, cost) from its GPU's
/// calibration record, and which frontier deployments the best one cannot be told from
/// (docs/model.md, "Deployment search").
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/analysis/deploy_search.hpp>
#include <quantfront/core/analysis/e2e_calibration.hpp>

namespace qf {

struct DeployIntervals {
  IntervalEstimate ttftMs, tpotMs, outputTokS, usdPerMillionOutputTokens;
};

/// The `level` intervals of `c`'s figures: the steady state of one replica under the
/// search's constants for its GPU (the GPU's calibration, else the bundled defaults; none
/// with --datasheet), perturbed along the calibration's fit record; the throughput times the
/// replicas, the cost its inverse. A disaggregated deployment's: both pools' steady state
/// (disaggregatedState) perturbed together, since both run on the one GPU's constants; at a
/// rate its throughput is the offered load and carries none. Without a record each interval
/// is the value alone.
Result<DeployIntervals> deployIntervals(const DeploySpace& space, const DeployOptions& opts,
                                        const DeployConfig& c, double level = 0.8);

/// Indices of the frontier deployments whose cost interval overlaps `best`'s: within the
/// constants' spread they cost the same, so the choice among them is a tie, not a
/// recommendation.
std::vector<std::size_t> costTies(const std::vector<DeployIntervals>& frontier,
                                  const DeployIntervals& best, std::size_t bestIndex);

/// A search's frontier with an interval on every figure, and the best deployment's ties.
struct FrontierIntervals {
  double level = 0.8;
  std::vector<DeployIntervals> frontier;  ///< one per frontier deployment, in its order
  std::optional<std::size_t> best;        ///< the best deployment's frontier index
  std::vector<std::size_t> bestTies;      ///< costTies of the best one
};

/// Every frontier deployment's `level` intervals (deployIntervals) and the best one's ties. The
/// best deployment is the frontier's cheapest point, its last.
Result<FrontierIntervals> frontierIntervals(const DeploySpace& space, const DeployOptions& opts,
                                            const DeployResult& result, double level = 0.8);

}  // namespace qf
