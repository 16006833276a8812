#pragma once
// The arithmetic of graph timing, kept free of CUDA so the host tests run it: how many launches
// one timed sample holds, when to stop sampling, and per-launch figures from per-sample times.
// Why the kernel is timed this way: docs/benchmarks.md, "Kernel timing".
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace qf::cuda::detail {

/// Launches per timed sample: enough that one sample lasts at least `targetS` at the estimated
/// `perLaunchS`, a whole number of buffer rotations (`rotation` ≥ 1: every buffer set is
/// visited equally often and a set never follows itself across two replays of one graph), at
/// least one rotation and at most `maxLaunches` rounded down to whole rotations (never below
/// one rotation).
inline int launchesPerSample(double perLaunchS, double targetS, int rotation, int maxLaunches) {
  const int rot = std::max(1, rotation);
  double want = perLaunchS > 0 ? std::ceil(targetS / perLaunchS) : static_cast<double>(rot);
  want = std::clamp(want, 1.0, static_cast<double>(std::max(maxLaunches, 1)));
  const int launches = static_cast<int>(want);
  const int rotations = std::max(1, (launches + rot - 1) / rot);
  const int maxRotations = std::max(1, std::max(maxLaunches, 1) / rot);
  return std::min(rotations, maxRotations) * rot;
}

/// Per-launch summary of timed samples, each the elapsed time of `launchesPerSample` launches.
struct SampleSummary {
  double medianS = 0;   ///< median sample / launches
  double minS = 0;      ///< fastest sample / launches
  double meanS = 0;     ///< mean sample / launches
  double relNoise = 0;  ///< stddev/mean of the samples (the same for per-launch figures)
};

/// Median, minimum, mean and relative noise (sample standard deviation over the mean) of
/// `sampleS`, divided by `launchesPerSample`. Empty input gives zeros.
inline SampleSummary summarizeSamples(const std::vector<double>& sampleS, int launchesPerSample) {
  SampleSummary s;
  if (sampleS.empty()) return s;
  const double per = 1.0 / static_cast<double>(std::max(launchesPerSample, 1));
  std::vector<double> sorted = sampleS;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  const double median = n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  double mean = 0;
  for (double v : sorted) mean += v;
  mean /= static_cast<double>(n);
  double var = 0;
  for (double v : sorted) var += (v - mean) * (v - mean);
  var /= static_cast<double>(n > 1 ? n - 1 : 1);
  s.medianS = median * per;
  s.minS = sorted.front() * per;
  s.meanS = mean * per;
  s.relNoise = mean > 0 ? std::sqrt(var) / mean : 0;
  return s;
}

/// The stopping rule: at least `minSamples`, then stop once the noise is at most `maxRelNoise`
/// or the samples add up to `maxSeconds`; never more than `maxSamples`.
inline bool samplingDone(int samples, double totalS, double relNoise, int minSamples,
                         int maxSamples, double maxRelNoise, double maxSeconds) {
  if (samples >= maxSamples) return true;
  if (samples < minSamples) return false;
  return relNoise <= maxRelNoise || totalS >= maxSeconds;
}

/// Relative spread of independent repeats: the sample standard deviation of their medians over
/// the mean of the medians (0 with fewer than two). What "noise" means in a record's target:
/// the stopping rule drives the within-run figure down by construction (it samples until that
/// number is small), so it cannot also be the check.
inline double repeatSpread(const std::vector<double>& medians) {
  if (medians.size() < 2) return 0;
  double mean = 0;
  for (double v : medians) mean += v;
  mean /= static_cast<double>(medians.size());
  double var = 0;
  for (double v : medians) var += (v - mean) * (v - mean);
  var /= static_cast<double>(medians.size() - 1);
  return mean > 0 ? std::sqrt(var) / mean : 0;
}

/// A per-launch time with the empty-kernel baseline (the GPU-side gap between kernels of one
/// graph, measured once per session) taken off: the kernel's own time. Never below 5% of the
/// raw figure, so a kernel no longer than the gap keeps a positive time (the record then says
/// how large the baseline was beside it).
inline double withoutBaseline(double perLaunchS, double baselineS) {
  if (!(baselineS > 0)) return perLaunchS;
  return std::max(perLaunchS - baselineS, 0.05 * perLaunchS);
}

/// The per-repeat share of a stopping rule split over `repeats` independent repeats: each
/// repeat takes at least `minSamples`/repeats samples (never below 5) and a 1/repeats share of
/// the time and sample caps, so the repeats together cost what one run did.
struct RepeatBudget {
  int minSamples, maxSamples;
  double maxSeconds;
};
inline RepeatBudget repeatBudget(int minSamples, int maxSamples, double maxSeconds, int repeats) {
  const int r = std::max(1, repeats);
  RepeatBudget b;
  b.minSamples = std::max(5, (minSamples + r - 1) / r);
  b.maxSamples = std::max(b.minSamples, maxSamples / r);
  b.maxSeconds = maxSeconds / r;
  return b;
}

}  // namespace qf::cuda::detail
