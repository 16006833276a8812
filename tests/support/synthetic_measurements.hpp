#pragma once
// Kernel records made from known parameters (β, P per path, decode-size kernel speeds, the
// streaming dequant probe) with ±5% noise
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
/// Decode sizes (M ≤ 16): cuBLASLt bf16 reads its weights at 88% of the probes' bandwidth, and
/// the fused W4A16 kernel runs 2.15× faster than it (the published Marlin-vs-cuBLAS ratio on
/// an H100 at M = 1–16 is 2.1–2.2×; the storage ratio alone would give 3.88×).
inline constexpr double kBf16DecodeEff = 0.88;
inline constexpr double kMarlinOverBf16 = 2.15;
inline constexpr double kW4a16BytesPerWeight = 4.125 / 8.0;
/// The fused kernel's time per weight beyond its weight read: (t − W·b/β)/W.
inline constexpr double kFusedDequantS =
    2.0 / (kBf16DecodeEff * kBeta * kMarlinOverBf16) - kW4a16BytesPerWeight / kBeta;

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

/// Decode-size GEMM records (M = 1…16) of cuBLASLt bf16 and the fused W4A16 kernel on
/// Llama-3-8B's shapes: bf16 at kBf16DecodeEff of the probes' bandwidth, W4A16
/// kMarlinOverBf16 times faster, with the same ±5% noise.
inline std::vector<KernelMeasurement> syntheticDecode(const std::string& dev, double scale) {
  Noise noise;
  std::vector<KernelMeasurement> out;
  const std::int64_t shapes[][2] = {
      {4096, 4096}, {2048, 4096}, {28672, 4096}, {4096, 14336}, {128256, 4096}};
  for (std::int64_t m : {1, 2, 4, 8, 16}) {
    for (const auto& s : shapes) {
      const double w = static_cast<double>(s[0] * s[1]);
      const double tBf16 = 2.0 * w / (kBf16DecodeEff * kBeta * scale);
      auto b = rec("gemm_bf16", "bf16", dev, m, s[0], s[1], tBf16 * noise());
      b.flops = 2.0 * static_cast<double>(m) * w;
      out.push_back(b);
      auto q = rec("gemm_w4a16-g128", "w4a16-g128", dev, m, s[0], s[1],
                   tBf16 / kMarlinOverBf16 * noise());
      q.flops = 2.0 * static_cast<double>(m) * w;
      out.push_back(q);
    }
  }
  return out;
}
}  // namespace qf::testing
