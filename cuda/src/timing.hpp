#pragma once
// Event-based timing with warm-up, a noise-based stopping rule and a time cap.
// Not part of the public facade.
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>

namespace qf::cuda::detail {

/// Stopping rule for one timed configuration.
struct TimingOptions {
  int minSamples = 20;        ///< at least this many timed runs
  int maxSamples = 400;       ///< at most this many
  double maxRelNoise = 0.02;  ///< stop when stddev/mean ≤ this (after minSamples)
  double maxSeconds = 1.0;    ///< stop when the timed runs add up to this (after minSamples)
};

/// Summary of the samples, seconds.
struct TimingResult {
  double medianS = 0;   ///< median run time
  double minS = 0;      ///< fastest run
  double relNoise = 0;  ///< stddev/mean
  int64_t samples = 0;  ///< timed runs
};

/// Times launch(run) — which must enqueue exactly one run on `stream`, rotating its buffer set
/// by `run` — after a warm-up of ≥ 2 runs (≥ ~20 ms, ≤ 50 runs). Each sample is one run
/// between two CUDA events.
TimingResult timeRuns(const std::function<void(int64_t run)>& launch, const TimingOptions& options,
                      cudaStream_t stream);

}  // namespace qf::cuda::detail
