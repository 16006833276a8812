// Energy per token from measured GEMM energy (see energy.hpp).
#include <quantfront/core/analysis/energy.hpp>

#include <cmath>

#include <quantfront/core/analysis/calibration.hpp>

namespace qf {

Result<std::vector<MeasuredEnergy>> measuredEnergyPerToken(
    const std::vector<KernelMeasurement>& records, const std::string& device,
    const ModelArch& model, const std::string& schemeId, const std::vector<double>& batches,
    const std::string& source) {
  // The energy of one run takes the place of its time: the step's sum, its expert rows and
  // its interpolation are then measuredStepTimes' own, in joules instead of seconds.
  std::vector<KernelMeasurement> asEnergy;
  for (const auto& r : records) {
    if (!std::isfinite(r.energyJ) || r.energyJ <= 0) continue;
    KernelMeasurement e = r;
    e.medianS = r.energyJ;
    e.minS = 0;
    asEnergy.push_back(std::move(e));
  }
  const std::string kernel = gemmKernelForScheme(schemeId);
  bool any = false;
  for (const auto& r : asEnergy)
    any = any || (r.kernel == kernel && (device.empty() || r.device == device));
  if (!any) {
    return Error{source, "", "energy_j",
                 "no " + (kernel.empty() ? schemeId : kernel) +
                     " measurement carries energy_j (measured without NVML, or not measured)"};
  }
  auto steps = measuredStepTimes(asEnergy, device, model, schemeId, batches, source);
  if (!steps) return steps.error();
  std::vector<MeasuredEnergy> out;
  for (const auto& s : *steps) {
    MeasuredEnergy e;
    e.batch = s.batch;
    e.joulesPerStep = s.stepS;
    e.joulesPerToken = s.batch > 0 ? s.stepS / s.batch : 0;
    e.spreadJ = s.spreadS;
    out.push_back(e);
  }
  return out;
}

}  // namespace qf
