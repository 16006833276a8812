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

}  // namespace qf::cuda::detail
