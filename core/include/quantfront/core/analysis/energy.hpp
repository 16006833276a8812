#pragma once
/// Energy per generated token from measured GEMM energy (`energy_j` of kernel measurements,
/// recorded by qfront-measure from NVML while each record was timed).
#include <string>
#include <vector>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/base/records.hpp>
#include <quantfront/core/model/model_config.hpp>

namespace qf {

/// The candidate metric the frontier ranks on (smaller is better: knownDirection reads
/// "energy" as min): board joules per generated token of the decode step's GEMMs.
inline constexpr const char* kEnergyPerTokenMetric = "gemm_energy_j_per_token";

/// One batch's measured energy.
struct MeasuredEnergy {
  double batch = 0;
  double joulesPerStep = 0;   ///< Σ over the model's decode GEMMs of energy_j at M = batch
  double joulesPerToken = 0;  ///< joulesPerStep / batch (one token per sequence per step)
  double spreadJ = 0;         ///< root-sum-square of each term's relative noise × its energy
};

/// Joules per token of `model` under `schemeId` on `device` at each of `batches`: exactly
/// measuredStepTimes (calibration.hpp) — the same GEMMs, expert rows and log-log interpolation
/// between measured M — summing each record's energy_j instead of its median time. Records
/// without energy are left out; an error names `energy_j` when none of `device`'s records for
/// the scheme has any (measured where NVML was not available).
Result<std::vector<MeasuredEnergy>> measuredEnergyPerToken(
    const std::vector<KernelMeasurement>& records, const std::string& device,
    const ModelArch& model, const std::string& schemeId, const std::vector<double>& batches,
    const std::string& source);

}  // namespace qf
