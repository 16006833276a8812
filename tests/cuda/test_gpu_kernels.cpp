// [gpu] A small measure() run on the attached GPU: every kernel's correctness check must pass.
// Registered only with -DQF_ENABLE_GPU_TESTS=ON (needs an NVIDIA GPU).
#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_test_macros.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include <quantfront/cuda/measure.hpp>

TEST_CASE("measure() checks and times every kernel on small shapes", "[gpu]") {
  qf::cuda::MeasureConfig cfg;
  cfg.quick = true;
  cfg.minSamples = 5;
  cfg.maxSamples = 20;
  cfg.maxSecondsPerRecord = 0.05;
  cfg.dequantWeights = int64_t{1} << 22;
  cfg.mList = {1, 3, 64, 118};
  cfg.shapes = {{"square", 1024, 1024, 1}, {"wide", 3072, 1024, 2}, {"deep", 1024, 3072, 1}};
  int callbacks = 0;
  const qf::cuda::MeasureResult r = qf::cuda::measure(cfg, [&](const auto&, double fraction) {
    ++callbacks;
    CHECK(fraction > 0.0);
    CHECK(fraction <= 1.0);
    return true;
  });
  REQUIRE(r.error.empty());
  CHECK_FALSE(r.cancelled);
  CHECK(r.environment.smCount > 0);
  // 2 HBM + 5 dequant + 4 GEMM kernels × 3 shapes × 4 m.
  CHECK(r.records.size() == 2 + 5 + 4 * 3 * 4);
  CHECK(callbacks == static_cast<int>(r.records.size()));
  for (const qf::cuda::MeasureRecord& rec : r.records) {
    INFO(rec.kernel << " m=" << rec.m << " n=" << rec.n << " k=" << rec.k << ": " << rec.check);
    if (!rec.supported) {
      // cuBLASLt may lack a kernel for a tiny INT8/FP8 case; never for bf16 or our own kernels.
      CHECK((rec.kernel == "gemm_int8" || rec.kernel == "gemm_fp8"));
      continue;
    }
    CHECK(rec.valid);
    CHECK(rec.medianS > 0);
    CHECK(rec.minS <= rec.medianS);
    CHECK(rec.samples >= 5);
    // Graph-timed: N launches per sample, whole rotations, the method named.
    CHECK(rec.launchesPerSample >= 1);
    CHECK((rec.timingMethod == "cuda_graph" || rec.timingMethod == "stream_batch"));
  }
  CHECK_FALSE(r.environment.uuid.empty());
}

TEST_CASE("measure() cancels when the callback says so", "[gpu]") {
  qf::cuda::MeasureConfig cfg;
  cfg.quick = true;
  cfg.gemm = false;
  cfg.minSamples = 3;
  cfg.maxSamples = 5;
  cfg.dequantWeights = int64_t{1} << 20;
  const qf::cuda::MeasureResult r =
      qf::cuda::measure(cfg, [](const qf::cuda::MeasureRecord&, double) { return false; });
  REQUIRE(r.error.empty());
  CHECK(r.cancelled);
  CHECK(r.records.size() == 1);
}
