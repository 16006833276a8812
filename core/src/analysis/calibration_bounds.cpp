// Physical bounds on kernel records before a calibration fit (calibration_bounds.hpp).
#include <quantfront/core/analysis/calibration_bounds.hpp>

#include <algorithm>
#include <cmath>

#include <quantfront/core/base/json_scanner.hpp>

namespace qf {

namespace {

bool startsWith(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

/// Why `r` cannot be a measurement on `gpu`, or empty when it can.
std::string implausible(const KernelMeasurement& r, const GpuSpec& gpu) {
  const double t = r.medianS;
  if (!(t >= kMinKernelSeconds && t <= kMaxKernelSeconds)) {
    return "median_s " + formatNumber(t) + " s is outside " + formatNumber(kMinKernelSeconds) +
           ".." + formatNumber(kMaxKernelSeconds) + " s";
  }
  auto rateCheck = [&](double amount, const char* field, double peak, const char* unit) {
    const double rate = amount / t;
    if (rate > kMaxRateOverDatasheet * peak || rate < kMinRateOverDatasheet * peak) {
      return std::string(field) + " " + formatNumber(amount) + " over " + formatNumber(t) +
             " s is " + formatNumber(rate) + " " + unit + ", " + formatNumber(rate / peak) +
             "x the datasheet's " + formatNumber(peak) + " " + unit;
    }
    return std::string();
  };
  if (r.kernel == "hbm_copy" || r.kernel == "hbm_read") {
    if (r.bytesMoved > 0)
      return rateCheck(r.bytesMoved, "bytes_moved", gpu.bandwidthBytesPerS(), "B/s");
  } else if (startsWith(r.kernel, "gemm_")) {
    double peak = 0;
    for (const TensorPath p : kAllTensorPaths) {
      if (gpu.hasPath(p)) peak = std::max(peak, gpu.peakFlopsPerS(p));
    }
    // Only an upper bound: a small-M GEMM is memory-bound and far below the tensor peak.
    if (r.flops > 0 && peak > 0 && r.flops / t > kMaxRateOverDatasheet * peak) {
      return rateCheck(r.flops, "flops", peak, "FLOP/s");
    }
  } else if (startsWith(r.kernel, "dequant_")) {
    const double weights = static_cast<double>(r.n) * static_cast<double>(r.k);
    if (weights > 0) {
      return rateCheck(weights, "n x k weights", kMaxWeightsPerByte * gpu.bandwidthBytesPerS(),
                       "weights/s");
    }
  }
  return {};
}

}  // namespace

RecordScreen screenRecords(const std::vector<KernelMeasurement>& records, const std::string& device,
                           const GpuSpec& datasheet) {
  RecordScreen s;
  s.kept.reserve(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    if (r.device == device) {
      const std::string why = implausible(r, datasheet);
      if (!why.empty()) {
        ++s.refused;
        s.warnings.push_back("/kernel_measurements/" + std::to_string(i) + " (" + r.kernel +
                             "): " + why + ": not a physical measurement on " + datasheet.name +
                             "; left out of the fit");
        continue;
      }
    }
    s.kept.push_back(r);
  }
  return s;
}

}  // namespace qf
