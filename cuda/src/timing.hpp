#pragma once
// Kernel timing by CUDA graph replay: N launches captured once, each sample one replay between
// two events, divided by N. Not part of the public facade. Why: docs/benchmarks.md, "Kernel
// timing"; the arithmetic lives in timing_math.hpp (host-tested).
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>

namespace qf::cuda::detail {

/// Stopping rule and sample size for one timed configuration.
struct TimingOptions {
  int minSamples = 20;          ///< at least this many timed samples
  int maxSamples = 400;         ///< at most this many
  double maxRelNoise = 0.02;    ///< stop when stddev/mean ≤ this (after minSamples)
  double maxSeconds = 1.0;      ///< stop when the timed samples add up to this (after minSamples)
  double targetSampleS = 1e-3;  ///< one sample (graph replay) lasts at least this long
  double warmupS = 0.05;        ///< replays for this long after the first launch, untimed
  int rotation = 1;             ///< launch(run) cycles its buffer sets with this period
  int maxLaunches = 4096;       ///< launches per sample at most
  /// Independent repeats: each captures its own graph, warms up and samples under its share
  /// of the stopping rule (repeatBudget); the record's repeat noise is the spread of their
  /// medians (repeatSpread), the median and minimum come from all samples pooled.
  int repeats = 3;
  /// Per-launch empty-kernel time subtracted from the median and minimum (withoutBaseline);
  /// 0: none (the baseline's own timing).
  double baselineS = 0;
  /// Called with true just before the first timed sample and with false just after the last
  /// (board-power sampling covers exactly the timed window); may be empty.
  std::function<void(bool sampling)> onSampling;
};

/// Per-launch summary of the samples, seconds.
struct TimingResult {
  double medianS = 0;             ///< median sample / launchesPerSample
  double minS = 0;                ///< fastest sample / launchesPerSample
  double relNoise = 0;            ///< stddev/mean of the samples (pooled)
  double repeatNoise = 0;         ///< spread of the repeats' medians (repeatSpread)
  int repeats = 1;                ///< independent repeats made
  double baselineS = 0;           ///< what was subtracted from medianS and minS
  int64_t samples = 0;            ///< timed samples
  int64_t launchesPerSample = 1;  ///< launches in one sample (N)
  const char* method = "";        ///< "cuda_graph", or "stream_batch" where capture failed
  double warmupS = 0;             ///< GPU time spent warming up before the first sample
};

/// Times launch(run), which must enqueue exactly one run on `stream` using buffer set
/// run % options.rotation. The first (cold) launch is untimed; then N launches are captured
/// into a graph (N from timing_math.hpp's launchesPerSample on a measured estimate), and
/// options.repeats times the graph is captured anew, replays for options.warmupS and is
/// sampled, each sample one replay between two events. Where
/// capture is refused (an operation that cannot be captured), each sample is N launches
/// enqueued between two events instead ("stream_batch").
TimingResult timeRuns(const std::function<void(int64_t run)>& launch, const TimingOptions& options,
                      cudaStream_t stream);

}  // namespace qf::cuda::detail
