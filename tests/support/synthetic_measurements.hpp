#pragma once
// Kernel records made from known parameters (β, P per path, dequant cost) with ±5% noise
// from a fixed seed, as qfront-measure would write them for Llama-3-8B's GEMM shapes: what
// the calibration tests fit and expect back.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <quantfront/core/base/kernels.hpp>
#include <quantfront/core/base/records.hpp>

namespace qf::testing {

inline constexpr double kBeta = 3.1e12;       // bytes/s
inline constexpr double kBf16Flops = 720e12;  // FLOP/s
inline constexpr double kFp8Flops = 1350e12;
inline constexpr double kDequantS = 2.4e-13;  // s per weight (w4a16-g128)
inline constexpr double kLaunchS = 4e-6;      // a launch overhead the GEMM fits' intercept absorbs

/// Multiplicative noise, uniform in ±5%, from a fixed seed (the test is repeatable).
struct Noise {
  std::mt19937_64 gen{20261130};
  std::uniform_real_distribution<double> u{-0.05, 0.05};
  double operator()() { return 1.0 + u(gen); }
};

inline KernelMeasurement rec(const std::string& kernel, const std::string& scheme,
                             const std::string& dev, std::int64_t m, std::int64_t n, std::int64_t k,
                             double t) {
  KernelMeasurement r;
  r.kernel = kernel;
  r.kind = kernelKindOf(kernel, scheme);
  r.scheme = scheme;
  r.device = dev;
  r.m = m;
  r.n = n;
  r.k = k;
  r.medianS = t;
  r.minS = t * 0.98;
  r.relNoise = 0.01;
  r.samples = 20;
  return r;
}

inline std::vector<KernelMeasurement> synthetic(const std::string& dev, double scale) {
  Noise noise;
  std::vector<KernelMeasurement> out;
  for (double gib : {0.5, 1.0, 2.0, 4.0, 8.0}) {
    for (const char* kernel : {"hbm_copy", "hbm_read"}) {
      const double bytes = gib * 1073741824.0;
      auto r = rec(kernel, "", dev, 0, static_cast<std::int64_t>(bytes), 0,
                   bytes / (kBeta * scale) * noise());
      r.bytesMoved = bytes;
      out.push_back(r);
    }
  }
  // Llama-3-8B's distinct GEMM shapes (q and o share one), as qfront-measure times them.
  const std::int64_t shapes[][2] = {
      {4096, 4096}, {2048, 4096}, {28672, 4096}, {4096, 14336}, {128256, 4096}};
  for (std::int64_t m : {1024, 2048, 4096}) {
    for (const auto& s : shapes) {
      const double flops = 2.0 * static_cast<double>(m * s[0] * s[1]);
      auto b = rec("gemm_bf16", "bf16", dev, m, s[0], s[1],
                   (flops / (kBf16Flops * scale) + kLaunchS) * noise());
      b.flops = flops;
      out.push_back(b);
      auto f = rec("gemm_fp8", "w8a8-fp8", dev, m, s[0], s[1],
                   (flops / (kFp8Flops * scale) + kLaunchS) * noise());
      f.flops = flops;
      out.push_back(f);
    }
  }
  for (int i = 0; i < 12; ++i) {
    const std::int64_t n = 4096 + 1024 * i;
    out.push_back(rec("dequant_w4a16-g128", "w4a16-g128", dev, 0, n, 4096,
                      static_cast<double>(n * 4096) * kDequantS / scale * noise()));
  }
  // One wild outlier the robust fit must shrug off.
  auto wild = rec("hbm_copy", "", dev, 0, 1073741824, 0, 1073741824.0 / kBeta * 3.0);
  wild.bytesMoved = 1073741824.0;
  out.push_back(wild);
  return out;
}
}  // namespace qf::testing
