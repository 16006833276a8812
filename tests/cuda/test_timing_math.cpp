// The arithmetic of graph timing (cuda/src/timing_math.hpp), on hand-computed cases.
#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_test_macros.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include "timing_math.hpp"

#include <cmath>
#include <vector>

using namespace qf::cuda::detail;

TEST_CASE("launches per sample reach the target in whole rotations", "[cuda][timing]") {
  // 5 µs kernel, 1 ms target: 200 launches; one rotation of 1.
  CHECK(launchesPerSample(5e-6, 1e-3, 1, 4096) == 200);
  // 3 µs: ceil(333.3) = 334, rounded up to whole rotations of 64 → 384.
  CHECK(launchesPerSample(3e-6, 1e-3, 64, 4096) == 384);
  // A 2 ms kernel needs one launch, but a rotation of 3 buffer sets needs 3.
  CHECK(launchesPerSample(2e-3, 1e-3, 3, 4096) == 3);
  // 0.1 µs: 10,000 wanted, capped at 4096 → 4096 (a multiple of 1), or 4080 = 68·60.
  CHECK(launchesPerSample(1e-7, 1e-3, 1, 4096) == 4096);
  CHECK(launchesPerSample(1e-7, 1e-3, 60, 4096) == 4080);
  // A rotation longer than the cap still gets one whole rotation.
  CHECK(launchesPerSample(1e-7, 1e-3, 100, 50) == 100);
  // No estimate: one rotation.
  CHECK(launchesPerSample(0, 1e-3, 7, 4096) == 7);
  // The warm-up graph: at least 8 launches, whole rotations.
  CHECK(launchesPerSample(1.0, 8.0, 1, 4096) == 8);
  CHECK(launchesPerSample(1.0, 8.0, 3, 4096) == 9);
  CHECK(launchesPerSample(1.0, 8.0, 16, 4096) == 16);
}

TEST_CASE("samples are summarised per launch", "[cuda][timing]") {
  // Three replays of 200 launches: 2.0, 2.2, 2.1 ms → median 10.5 µs, min 10 µs.
  const auto s = summarizeSamples({2.0e-3, 2.2e-3, 2.1e-3}, 200);
  CHECK(std::fabs(s.medianS - 10.5e-6) < 1e-12);
  CHECK(std::fabs(s.minS - 10.0e-6) < 1e-12);
  CHECK(std::fabs(s.meanS - 10.5e-6) < 1e-12);
  // stddev of {2.0, 2.2, 2.1} (n−1) = 0.1 → relative 0.1/2.1.
  CHECK(std::fabs(s.relNoise - 0.1 / 2.1) < 1e-9);
  // Even count: the median is the mean of the middle two.
  const auto e = summarizeSamples({4.0, 1.0, 3.0, 2.0}, 2);
  CHECK(e.medianS == 1.25);
  CHECK(e.minS == 0.5);
  // One sample: no spread.
  CHECK(summarizeSamples({1e-3}, 10).relNoise == 0.0);
  CHECK(summarizeSamples({}, 10).medianS == 0.0);
}

TEST_CASE("sampling stops on noise or time, never before the minimum", "[cuda][timing]") {
  CHECK_FALSE(samplingDone(19, 5.0, 0.0, 20, 400, 0.02, 1.0));   // below the minimum
  CHECK(samplingDone(20, 0.1, 0.01, 20, 400, 0.02, 1.0));        // quiet enough
  CHECK_FALSE(samplingDone(20, 0.1, 0.05, 20, 400, 0.02, 1.0));  // noisy, time left
  CHECK(samplingDone(20, 1.0, 0.05, 20, 400, 0.02, 1.0));        // noisy, out of time
  CHECK(samplingDone(400, 0.1, 0.5, 20, 400, 0.02, 1.0));        // the cap
}

TEST_CASE("noise comes from independent repeats, not from the stopping rule", "[cuda][timing]") {
  // Three repeats whose medians are 0.98, 1.00 and 1.02 µs: sample sd 0.02 over a mean of 1.
  CHECK(std::abs(repeatSpread({0.98e-6, 1.00e-6, 1.02e-6}) - 0.02) < 1e-12);
  CHECK(repeatSpread({1e-6, 1e-6, 1e-6}) == 0);
  CHECK(repeatSpread({1e-6}) == 0);  // one repeat says nothing about the spread
  CHECK(repeatSpread({}) == 0);
  // The stopping rule split over 3 repeats: 20 samples → 7 each, 400 → 133, 1 s → 1/3 s.
  const RepeatBudget b = repeatBudget(20, 400, 1.0, 3);
  CHECK(b.minSamples == 7);
  CHECK(b.maxSamples == 133);
  CHECK(std::abs(b.maxSeconds - 1.0 / 3.0) < 1e-12);
  // Never fewer than 5 samples a repeat, and the cap never below the minimum.
  const RepeatBudget small = repeatBudget(2, 6, 0.3, 3);
  CHECK(small.minSamples == 5);
  CHECK(small.maxSamples == 5);
}

TEST_CASE("the null-kernel baseline comes off a kernel's time, never below 5% of it",
          "[cuda][timing]") {
  // A 10 µs kernel in a graph whose empty kernel takes 2 µs per launch: 8 µs of its own.
  CHECK(std::abs(withoutBaseline(10e-6, 2e-6) - 8e-6) < 1e-18);
  // A kernel no longer than the gap keeps 5% of its raw time.
  CHECK(std::abs(withoutBaseline(1e-6, 2e-6) - 0.05e-6) < 1e-18);
  CHECK(withoutBaseline(3e-6, 0) == 3e-6);
}
