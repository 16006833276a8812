// The smallest tensor-parallel degree at which a candidate fits (engine.hpp).
#include <quantfront/core/model/engine.hpp>

namespace qf {

std::optional<int> smallestFittingTp(const Scenario& s, const SchemeAssignment& a, int maxTp) {
  const ParamCounts params = countParams(s.model);
  for (int tp = std::max(1, s.tp) * 2; tp <= maxTp; tp *= 2) {
    Scenario t = s;
    t.tp = tp;
    if (validateScenario(t)) continue;  // heads that do not split over tp GPUs
    auto curve = buildStepCurve(t, params, a);
    if (!curve) continue;
    const CapacityReport cap = computeCapacity(t, *curve);
    if (cap.fits && cap.maxSeqs > 0) return tp;
  }
  return std::nullopt;
}

}  // namespace qf
