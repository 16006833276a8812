#pragma once
/// The end-to-end fit's constants by name (a calibration block's spelling), read and written
/// on an Efficiency, their physical ranges and the prior's pull on them (docs/model.md,
/// "Plausible constants", "A fit that keeps its prior"). Internal to the fit
/// (e2e_calibration.cpp, e2e_constants.cpp).
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/model/engine.hpp>

namespace qf::e2e {

/// Names of the fit's parameters, in the calibration block's spelling.
inline constexpr const char* kOverhead = "overhead_ms";
inline constexpr const char* kBandwidth = "bandwidth_efficiency";
inline constexpr const char* kSeqOverhead = "seq_overhead_us";
inline constexpr const char* kAllreduce = "allreduce_latency_us";
inline constexpr const char* kGemmMHalf = "gemm_m_half";
inline constexpr const char* kTpWidthHalf = "tp_width_half";
inline constexpr const char* kRequestOverhead = "request_overhead_ms";
inline constexpr const char* kComputePrefix = "compute_efficiency.";
inline constexpr const char* kDequantPrefix = "dequant_s_per_weight.";
inline constexpr const char* kKernelBandwidthPrefix = "kernel_bandwidth_efficiency.";
inline constexpr const char* kAttentionBandwidthPrefix = "attention_bandwidth_efficiency.";

/// The physical range of a fitted constant: outside it the points are saying something the
/// hardware cannot do (docs/model.md, "Plausible constants").
struct PlausibleRange {
  double lo, hi;
  const char* what;
};

/// The physical range of the constant `name`.
PlausibleRange plausibleRange(const std::string& name);

/// A fitted constant the fit may not keep, the value it is held at instead, and why.
struct HeldConstant {
  std::string name;
  double value;
  std::string warning;
};

/// The prior's pull on one fitted constant: a pseudo-observation of its ln value, weighted
/// (σ_ref/τ)² against points whose log residuals are weighted 1 (docs/model.md, "A fit that
/// keeps its prior"). Weight 0: no pull (a datasheet prior, or a prior without the constant).
struct PriorPull {
  double logValue = 0;
  double weight = 0;
};

/// A typical point's log residual when the prior says nothing of it (10%): the scale the
/// prior's spread is weighed against.
inline constexpr double kPriorReferenceSigma = 0.1;

/// The key after `prefix` in a keyed constant's name ("compute_efficiency.bf16" → "bf16"), or
/// nothing when the name does not start with it.
std::optional<std::string> keyAfter(const std::string& name, const char* prefix);

/// The value of the constant `name` in `e` (the value the model uses where `e` states none).
double getConstant(const Efficiency& e, const std::string& name);

/// Sets the constant `name` of `e` to `v`.
void setConstant(Efficiency& e, const std::string& name, double v);

/// A constant no point depends on keeps its prior value: the GPU's own calibration (a GPU
/// file's block, or the catalog's bundled defaults), the datasheet where the prior has none.
/// (Before, it fell back to the datasheet, and a fit of FP8 and bf16 points alone dropped the
/// bundled 0.679 Marlin factor: W4A16's floor moved from 59% to 75% of the bandwidth.)
void keepPriorValues(const std::vector<std::string>& fixedNames, Efficiency& eff,
                     const Efficiency& prior);

/// The fitted constants that leave their physical range (held at the nearer bound) or break
/// an ordering the hardware guarantees: on a GPU with FP8 (INT8) tensor cores an FP8 (INT8)
/// GEMM is never slower than a bf16 one, so its path's fitted rate is held at bf16's rate, the
/// nearest the ordering allows.
std::vector<HeldConstant> implausibleConstants(const std::vector<std::string>& params,
                                               const Efficiency& eff, const Efficiency& prior,
                                               const GpuSpec& gpu);

/// τ, how far in ln a constant may plausibly sit from the GPU's prior calibration. Chosen so
/// that a handful of points cannot drag a constant further than the published H100 sets
/// support: fitted on 3, 5 or 10 of their points, the held-out error is no worse than the
/// prior's (tests/core/analysis/test_e2e_calibration.cpp); many points outweigh it.
double priorLogSpread(const std::string& name);

/// Each fitted constant's pull towards its value in `prior`.
std::vector<PriorPull> priorPulls(const std::vector<std::string>& params, const Efficiency& prior);

/// Σ weight·(ln c − ln c_prior)² over the fitted constants.
double priorCost(const std::vector<std::string>& params, const std::vector<PriorPull>& pulls,
                 const Efficiency& eff);

}  // namespace qf::e2e
