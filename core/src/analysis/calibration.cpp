// Robust fits of β, P and the dequant cost from kernel records; the measured step time.
#include <quantfront/core/analysis/calibration.hpp>
#include <quantfront/core/analysis/calibration_bounds.hpp>
#include <quantfront/core/base/numbers.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/kernels.hpp>
#include <quantfront/core/base/percentile.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/gemm_shapes.hpp>
#include <quantfront/core/model/hardware.hpp>

namespace qf {

namespace {

/// Weighted least squares of y on x (with or without intercept); false when degenerate.
bool weightedLine(const std::vector<double>& xs, const std::vector<double>& ys,
                  const std::vector<double>& ws, bool withIntercept, double& slope,
                  double& intercept) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    sw += ws[i];
    sx += ws[i] * xs[i];
    sy += ws[i] * ys[i];
    sxx += ws[i] * xs[i] * xs[i];
    sxy += ws[i] * xs[i] * ys[i];
  }
  if (!(sw > 0) || !(sxx > 0)) return false;
  if (!withIntercept) {
    slope = sxy / sxx;
    intercept = 0;
    return true;
  }
  const double det = sw * sxx - sx * sx;
  if (!(std::abs(det) > 1e-12 * sw * sxx)) return false;
  slope = (sw * sxy - sx * sy) / det;
  intercept = (sy - slope * sx) / sw;
  return true;
}

double medianAbs(const std::vector<double>& v) {
  std::vector<double> a;
  a.reserve(v.size());
  for (const double x : v) a.push_back(std::abs(x));
  return medianOf(a);
}

/// Bytes a GEMM kernel of `schemeId` streams per weight (weights, scales, zeros: the
/// bundled catalog's storage), 0 when the catalog does not know the scheme.
double storedBytesPerWeight(const std::string& schemeId) {
  auto s = Catalog::bundled().scheme(schemeId);
  return s ? s->bytesPerWeight() : 0.0;
}

bool usable(const KernelMeasurement& r) {
  return std::isfinite(r.medianS) && r.medianS > 0;
}

FittedValue fitted(double value, const RobustLineFit& fit) {
  FittedValue f;
  f.value = value;
  f.relSpread = fit.relSpread;
  f.records = fit.points;
  f.relResiduals = fit.relResiduals;
  return f;
}

/// Linear interpolation of log(time) in log(M) between the measured rows.
std::optional<double> interpolateLogLog(const std::map<std::int64_t, double>& byM, double m) {
  if (byM.empty()) return std::nullopt;
  const auto first = byM.begin();
  const auto last = std::prev(byM.end());
  if (m < static_cast<double>(first->first) * (1 - 1e-9) ||
      m > static_cast<double>(last->first) * (1 + 1e-9)) {
    return std::nullopt;
  }
  auto hi = byM.lower_bound(static_cast<std::int64_t>(std::ceil(m - 1e-9)));
  if (hi == byM.end()) hi = last;
  if (static_cast<double>(hi->first) == m || hi == first) return hi->second;
  const auto lo = std::prev(hi);
  const double x0 = std::log(static_cast<double>(lo->first));
  const double x1 = std::log(static_cast<double>(hi->first));
  const double t = (std::log(m) - x0) / (x1 - x0);
  return std::exp(std::log(lo->second) + t * (std::log(hi->second) - std::log(lo->second)));
}

}  // namespace

RobustLineFit fitRobustLine(const std::vector<double>& xs, const std::vector<double>& ys,
                            bool withIntercept) {
  RobustLineFit fit;
  fit.points = xs.size();
  if (xs.empty() || xs.size() != ys.size()) return fit;
  const auto [mn, mx] = std::minmax_element(xs.begin(), xs.end());
  if (!(*mx > *mn)) withIntercept = false;
  // Relative residuals: weight each point by 1/y², then by its Huber weight.
  std::vector<double> base(xs.size()), ws(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) base[i] = 1.0 / (ys[i] * ys[i]);
  ws = base;
  double slope = 0, intercept = 0;
  std::vector<double> rel(xs.size(), 0.0);
  for (int round = 0; round < 30; ++round) {
    if (!weightedLine(xs, ys, ws, withIntercept, slope, intercept)) break;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const double pred = slope * xs[i] + intercept;
      rel[i] = (ys[i] - pred) / ys[i];
    }
    const double scale = 1.4826 * medianAbs(rel);
    if (!(scale > 0)) break;
    const double k = 1.345 * scale;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const double a = std::abs(rel[i]);
      ws[i] = base[i] * (a <= k ? 1.0 : k / a);
    }
  }
  fit.slope = slope;
  fit.intercept = intercept;
  fit.relResiduals.resize(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double pred = slope * xs[i] + intercept;
    fit.relResiduals[i] = pred != 0 ? (ys[i] - pred) / pred : 0.0;
  }
  fit.relSpread = 1.4826 * medianAbs(fit.relResiduals);
  return fit;
}

std::vector<std::string> measuredDevices(const std::vector<KernelMeasurement>& records) {
  std::vector<std::string> out;
  for (const auto& r : records) {
    if (std::find(out.begin(), out.end(), r.device) == out.end()) out.push_back(r.device);
  }
  return out;
}

namespace {
Result<std::string> chooseDevice(const std::vector<KernelMeasurement>& records,
                                 const std::string& device, const std::string& source) {
  const auto devices = measuredDevices(records);
  if (devices.empty()) {
    return Error{source, "/kernel_measurements", "kernel_measurements",
                 "no kernel measurements: run qfront-measure on the GPU first"};
  }
  std::string names;
  for (const auto& d : devices) names += (names.empty() ? "'" : ", '") + d + "'";
  if (device.empty()) {
    if (devices.size() > 1) {
      return Error{source, "/kernel_measurements", "device",
                   "records of several devices (" + names +
                       "); choose one ({--device}): one device's records are never "
                       "mixed into another's fit"};
    }
    return devices.front();
  }
  if (std::find(devices.begin(), devices.end(), device) == devices.end()) {
    return Error{source, "/kernel_measurements", "device",
                 "no records of device '" + device + "' (devices: " + names + ")"};
  }
  return device;
}
}  // namespace

namespace {

/// What each GEMM kernel costs at decode sizes, from its own records (`decode`: by scheme,
/// weights and time at M ≤ kDecodeMaxM): its weight read's fraction of the probes' bandwidth
/// (η_k) and, for a fused weight-only kernel, the time per weight beyond that read (the
/// dequant the engine charges). docs/model.md, "The kernels measured".
void fitDecodeKernels(const std::map<std::string, std::vector<std::pair<double, double>>>& decode,
                      Calibration& c) {
  if (!c.bandwidthBytesPerS && !decode.empty()) {
    c.warnings.push_back(
        "no hbm_copy/hbm_read records: the GEMM kernels' decode-size bandwidth and the fused "
        "kernels' dequant cost are not calibrated");
  }
  for (const auto& [scheme, points] : decode) {
    if (!c.bandwidthBytesPerS) break;
    const double beta = c.bandwidthBytesPerS->value;
    const MeasurableScheme* ms = measurableScheme(scheme);
    const double bytesPerWeight = storedBytesPerWeight(scheme);
    if (!ms || !(bytesPerWeight > 0)) continue;
    const bool fused = !tensorPathFromName(ms->gemmRateKey).has_value();
    std::vector<double> eta, excess;
    for (const auto& [w, t] : points) {
      eta.push_back(w * bytesPerWeight / (beta * t));
      excess.push_back(std::max(0.0, (t - w * bytesPerWeight / beta) / w));
    }
    auto median = [](std::vector<double> v) { return medianOf(v); };
    auto spreadOf = [](const std::vector<double>& v, double centre) {
      FittedValue f;
      f.value = centre;
      f.records = v.size();
      for (const double x : v) f.relResiduals.push_back(centre > 0 ? x / centre - 1.0 : 0.0);
      f.relSpread = 1.4826 * medianAbs(f.relResiduals);
      return f;
    };
    if (fused) {
      const double deq = median(excess);
      c.dequantSecondsPerWeight[scheme] = spreadOf(excess, deq);
      // The read and the dequant are one kernel's time: η_k = b/(b + β·deq) prices the
      // kernel's decode step at what it took, whatever side of the max() it lands on.
      const double k = bytesPerWeight / (bytesPerWeight + beta * deq);
      c.kernelBandwidthEff[scheme] = spreadOf(eta, k);
    } else {
      c.kernelBandwidthEff[scheme] = spreadOf(eta, median(eta));
    }
  }
}

}  // namespace

Result<Calibration> calibrate(const std::vector<KernelMeasurement>& records,
                              const std::string& deviceIn, const std::string& source) {
  auto device = chooseDevice(records, deviceIn, source);
  if (!device) return device.error();
  Calibration c;
  c.device = *device;

  std::vector<double> hbmX, hbmY;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> gemm, dequant;
  // Decode-size GEMM records by scheme: (weights, time) at M ≤ kDecodeMaxM.
  std::map<std::string, std::vector<std::pair<double, double>>> decode;
  for (const auto& r : records) {
    if (r.device != c.device || !usable(r)) continue;
    if (r.kind == KernelKind::HbmCopy || r.kind == KernelKind::HbmRead) {
      if (r.bytesMoved > 0) {
        hbmX.push_back(r.bytesMoved);
        hbmY.push_back(r.medianS);
      }
    } else if (r.kind == KernelKind::Gemm) {
      const MeasurableScheme* scheme = measurableScheme(r.scheme);
      if (scheme && *scheme->gemmRateKey && r.m >= kCalibrationMinM && r.flops > 0) {
        auto& [x, y] = gemm[scheme->gemmRateKey];  // bf16, fp8, int8, w4a16-g128
        x.push_back(r.flops);
        y.push_back(r.medianS);
      }
      if (scheme && *scheme->gemmRateKey && r.m >= 1 && r.m <= kDecodeMaxM && r.n > 0 && r.k > 0) {
        decode[r.scheme].emplace_back(static_cast<double>(r.n) * static_cast<double>(r.k),
                                      r.medianS);
      }
    } else if (r.kind == KernelKind::Dequant) {
      const double weights = static_cast<double>(r.n) * static_cast<double>(r.k);
      if (weights > 0 && !r.scheme.empty()) {
        auto& [x, y] = dequant[r.scheme];
        x.push_back(weights);
        y.push_back(r.medianS);
      }
    }
  }
  auto spansSizes = [](const std::vector<double>& x) {
    const auto [mn, mx] = std::minmax_element(x.begin(), x.end());
    return *mx > 4.0 * *mn;
  };
  // Records that cannot give a fit are an error naming what was fitted, never a value that
  // silently goes missing.
  auto noFit = [&](const std::string& what, std::size_t n) {
    return Error{source, "/kernel_measurements", what,
                 "cannot fit " + what + " on " + c.device + " from " + std::to_string(n) +
                     " records: the fitted time per unit is not positive; check the records' "
                     "times and sizes"};
  };
  if (!hbmX.empty()) {
    const auto fit = fitRobustLine(hbmX, hbmY, spansSizes(hbmX));
    if (!(fit.slope > 0 && std::isfinite(1.0 / fit.slope))) return noFit("bandwidth", hbmX.size());
    c.bandwidthBytesPerS = fitted(1.0 / fit.slope, fit);
  } else {
    c.warnings.push_back("no hbm_copy/hbm_read records: bandwidth not calibrated");
  }
  for (auto& [key, xy] : gemm) {
    const auto fit = fitRobustLine(xy.first, xy.second, spansSizes(xy.first));
    if (!(fit.slope > 0 && std::isfinite(1.0 / fit.slope))) {
      return noFit("tensor rate gemm_" + key, xy.first.size());
    }
    c.peakFlopsPerS[key] = fitted(1.0 / fit.slope, fit);
  }
  if (gemm.empty()) {
    c.warnings.push_back("no GEMM records at M >= " + std::to_string(kCalibrationMinM) +
                         ": tensor rates not calibrated");
  }
  // The streaming dequant kernels are a bandwidth probe (write-bound: they store bf16 for
  // every weight they read), reported and never priced: the engine charges a weight-only
  // scheme's dequant inside its fused GEMM.
  for (auto& [scheme, xy] : dequant) {
    const auto fit = fitRobustLine(xy.first, xy.second, false);
    if (!(fit.slope > 0 && std::isfinite(fit.slope))) {
      return noFit("streaming dequant " + scheme, xy.first.size());
    }
    c.streamingDequantSPerWeight[scheme] = fitted(fit.slope, fit);
    const MeasurableScheme* ms = measurableScheme(scheme);
    if (ms && !*ms->gemmRateKey) {
      c.warnings.push_back(scheme +
                           " is modelled only: no GEMM kernel measures it (its "
                           "streaming dequant records are a bandwidth probe)");
    }
  }
  fitDecodeKernels(decode, c);
  return c;
}

std::string catalogGpuForDevice(const std::string& deviceName) {
  return Catalog::bundled().gpuForDeviceName(deviceName);
}

std::string catalogGpuId(const std::string& idOrName, const Catalog& cat) {
  if (idOrName.empty()) return {};
  for (const auto& g : cat.gpus()) {
    if (sameIgnoringCase(g.id, idOrName)) return g.id;
  }
  const std::string fromName = catalogGpuForDevice(idOrName);
  if (!fromName.empty() && cat.resolveGpu(fromName)) return fromName;
  return {};
}

bool sameGpu(const std::string& a, const std::string& b, const Catalog& cat) {
  if (sameIgnoringCase(a, b)) return true;
  const std::string ia = catalogGpuId(a, cat);
  return !ia.empty() && ia == catalogGpuId(b, cat);
}

std::string gemmKernelForScheme(const std::string& schemeId) {
  return kernelName(KernelKind::Gemm, schemeId);
}

std::vector<std::string> measuredGemmSchemes(const std::vector<KernelMeasurement>& records,
                                             const std::string& device) {
  std::vector<std::string> out;
  for (const MeasurableScheme& s : measurableSchemes()) {
    if (!*s.gemmRateKey) continue;
    const bool measured = std::any_of(records.begin(), records.end(), [&](const auto& r) {
      return r.device == device && r.kind == KernelKind::Gemm && r.scheme == s.id && r.m > 0;
    });
    if (measured) out.emplace_back(s.id);
  }
  return out;
}

std::vector<double> measuredGemmBatches(const std::vector<KernelMeasurement>& records,
                                        const std::string& device, const std::string& schemeId) {
  std::set<double> batches;
  for (const auto& r : records) {
    if (r.device != device || r.m <= 0 || r.kind != KernelKind::Gemm) continue;
    if (schemeId.empty() || r.scheme == schemeId) {
      batches.insert(static_cast<double>(r.m));
    }
  }
  return {batches.begin(), batches.end()};
}

namespace {
Json fitJson(const FittedValue& f) {
  return Json{
      {"rel_spread", f.relSpread}, {"records", f.records}, {"rel_residuals", f.relResiduals}};
}
}  // namespace

namespace {

/// The calibration block of `c` over `gpu`'s datasheet, figures as fitted (not range-checked).
GpuCalibration calibrationBlock(const GpuSpec& gpu, const Calibration& c,
                                const std::string& source) {
  GpuCalibration cal;
  cal.source = source;
  Json extra = Json::object();
  extra["device"] = c.device;
  Json fits = Json::object();
  if (c.bandwidthBytesPerS) {
    cal.bandwidthEfficiency = c.bandwidthBytesPerS->value / gpu.bandwidthBytesPerS();
    extra["measured_bandwidth_tbs"] = c.bandwidthBytesPerS->value / 1e12;
    fits["bandwidth"] = fitJson(*c.bandwidthBytesPerS);
  }
  Json measuredTflops = Json::object();
  for (const auto& [key, f] : c.peakFlopsPerS) {
    // Library GEMMs are keyed by tensor path; our fused kernels by scheme (bf16 path).
    auto path = tensorPathFromName(key);
    const TensorPath p = path ? *path : TensorPath::Bf16;
    if (!gpu.hasPath(p)) continue;
    cal.computeEfficiency[key] = f.value / gpu.peakFlopsPerS(p);
    measuredTflops[key] = f.value / 1e12;
    fits["compute/" + key] = fitJson(f);
  }
  if (!measuredTflops.empty()) extra["measured_tensor_tflops"] = measuredTflops;
  for (const auto& [scheme, f] : c.dequantSecondsPerWeight) {
    cal.dequantSPerWeight[scheme] = f.value;
    fits["dequant/" + scheme] = fitJson(f);
  }
  for (const auto& [scheme, f] : c.kernelBandwidthEff) {
    cal.kernelBandwidthEfficiency[scheme] = f.value;
    fits["kernel_bandwidth/" + scheme] = fitJson(f);
  }
  if (!c.streamingDequantSPerWeight.empty()) {
    Json probe = Json::object();
    for (const auto& [scheme, f] : c.streamingDequantSPerWeight) {
      probe[scheme] = {
          {"s_per_weight", f.value}, {"records", f.records}, {"rel_spread", f.relSpread}};
    }
    extra["streaming_dequant_probe"] = probe;
  }
  extra["fits"] = fits;
  cal.extraJson = extra.dump();
  return cal;
}

/// The ranges a GPU file's reader accepts (parseGpuCalibration): what is applied is what a
/// written file would read back as.
std::optional<Error> checkCalibrationBlock(const GpuCalibration& cal, const std::string& source) {
  auto efficiency = [&](const std::string& field, double v) -> std::optional<Error> {
    if (std::isfinite(v) && v > 0 && v <= kMaxEfficiency) return std::nullopt;
    return Error{source, "", "calibration." + field,
                 "must be in (0, " + sigFigs(kMaxEfficiency, 6) + "], found " + sigFigs(v, 6)};
  };
  if (cal.bandwidthEfficiency) {
    if (auto e = efficiency("bandwidth_efficiency", *cal.bandwidthEfficiency)) return e;
  }
  for (const auto& [key, eta] : cal.computeEfficiency) {
    if (auto e = efficiency("compute_efficiency." + key, eta)) return e;
  }
  for (const auto& [scheme, eta] : cal.kernelBandwidthEfficiency) {
    if (auto e = efficiency("kernel_bandwidth_efficiency." + scheme, eta)) return e;
  }
  for (const auto& [scheme, v] : cal.dequantSPerWeight) {
    if (!(std::isfinite(v) && v >= 0 && v <= kMaxDequantSPerWeight)) {
      return Error{
          source, "", "calibration.dequant_s_per_weight." + scheme,
          "must be in [0, " + sigFigs(kMaxDequantSPerWeight, 6) + "], found " + sigFigs(v, 6)};
    }
  }
  return std::nullopt;
}

}  // namespace

Result<GpuSpec> applyCalibration(GpuSpec gpu, const Calibration& c, const std::string& source) {
  GpuCalibration cal = calibrationBlock(gpu, c, source);
  if (auto e = checkCalibrationBlock(cal, source)) return *e;
  gpu.calibration = std::move(cal);
  return gpu;
}

Json calibratedGpuJson(const GpuSpec& datasheet, const Calibration& c, const std::string& source) {
  // Figures out of range are written as they are, for the reader to refuse naming the field.
  GpuSpec gpu = datasheet;
  gpu.calibration = calibrationBlock(datasheet, c, source);
  return gpuToJson(gpu);
}

Result<std::vector<MeasuredStep>> measuredStepTimes(const std::vector<KernelMeasurement>& records,
                                                    const std::string& deviceIn,
                                                    const ModelArch& model,
                                                    const std::string& schemeId,
                                                    const std::vector<double>& batches,
                                                    const std::string& source) {
  auto device = chooseDevice(records, deviceIn, source);
  if (!device) return device.error();
  if (gemmKernelForScheme(schemeId).empty()) {
    std::string measurable;
    for (const MeasurableScheme& s : measurableSchemes()) {
      if (*s.gemmRateKey) measurable += (measurable.empty() ? "" : ", ") + std::string(s.id);
    }
    return Error{
        source, "", "scheme",
        "no GEMM kernel is measured for scheme '" + schemeId + "' (measured: " + measurable + ")"};
  }
  // Times and noise by (n, k), then M: built once, so each batch costs O(log M) per shape.
  struct ByM {
    std::map<std::int64_t, double> times, noise;
  };
  std::map<std::pair<std::int64_t, std::int64_t>, ByM> byShape;
  for (const auto& r : records) {
    if (r.device != *device || r.kind != KernelKind::Gemm || r.scheme != schemeId || !usable(r) ||
        r.m <= 0) {
      continue;
    }
    auto& s = byShape[{r.n, r.k}];
    s.times[r.m] = r.medianS;
    s.noise[r.m] = r.relNoise;
  }
  const auto shapes = decodeGemmShapes(model);
  std::vector<MeasuredStep> out;
  for (const double b : batches) {
    MeasuredStep step;
    step.batch = b;
    double var = 0;
    bool complete = true;
    for (const auto& s : shapes) {
      double rows = b, instances = static_cast<double>(s.count);
      if (s.kind == GemmKind::Expert) {
        const double e = static_cast<double>(model.experts);
        const double k = static_cast<double>(model.expertsPerToken);
        rows = std::ceil(b * k / e);
        instances *= e * (1.0 - std::pow(1.0 - k / e, b));
      }
      const auto it = byShape.find({s.n, s.k});
      if (it == byShape.end()) {
        complete = false;
        break;
      }
      const auto& times = it->second.times;
      const auto& noise = it->second.noise;
      const auto t = interpolateLogLog(times, rows);
      if (!t) {
        complete = false;
        break;
      }
      // The noise of the nearest measured row at or above M.
      auto nIt = noise.lower_bound(static_cast<std::int64_t>(std::ceil(rows - 1e-9)));
      if (nIt == noise.end()) nIt = std::prev(noise.end());
      step.stepS += instances * *t;
      const double sd = instances * *t * std::max(0.0, nIt->second);
      var += sd * sd;
      ++step.terms;
    }
    if (!complete) continue;
    step.spreadS = std::sqrt(var);
    out.push_back(step);
  }
  return out;
}

Result<GpuSpec> calibratedGpu(const GpuSpec& datasheet, const Calibration& calibration,
                              const std::string& source) {
  return applyCalibration(datasheet, calibration, source);
}

Result<MeasurementOverlay> measurementOverlay(const std::vector<KernelMeasurement>& records,
                                              const Scenario& scenario,
                                              const std::vector<SchemeAssignment>& assignments,
                                              const std::vector<double>& batches,
                                              const std::string& source) {
  MeasurementOverlay o;
  const auto devices = measuredDevices(records);
  if (devices.empty()) return o;
  o.device = devices.front();
  for (const auto& d : devices) {
    if (catalogGpuForDevice(d) == scenario.gpu.id) {
      o.device = d;
      break;
    }
  }
  if (devices.size() > 1) {
    o.notes.push_back("measurements of " + std::to_string(devices.size()) + " devices; showing " +
                      o.device);
  }
  if (catalogGpuForDevice(o.device) != scenario.gpu.id) {
    o.notes.push_back("measured on " + o.device + ", modelled on " + scenario.gpu.name);
  }
  std::optional<Scenario> calibratedScenario;
  const RecordScreen screened = screenRecords(records, o.device, scenario.gpu);
  for (const auto& w : screened.warnings) o.notes.push_back(w);
  auto cal = calibrate(screened.kept, o.device, source);
  if (cal && (cal->bandwidthBytesPerS || !cal->peakFlopsPerS.empty())) {
    auto gpu = calibratedGpu(scenario.gpu, *cal, source);
    if (gpu) {
      calibratedScenario = scenario;
      calibratedScenario->gpu = *gpu;
      calibratedScenario->efficiency = efficiencyFromGpu(*gpu);
      auto rep = runEngine(*calibratedScenario, assignments, batches);
      if (rep) o.calibrated = std::move(*rep);
    } else {
      o.notes.push_back("calibration not applied: " + gpu.error().str());
    }
  } else if (!cal) {
    o.notes.push_back("calibration not applied: " + cal.error().str());
  }
  for (const auto& a : assignments) {
    if (a.mixed()) continue;
    const std::string& id = a.linear.id;
    if (gemmKernelForScheme(id).empty()) continue;
    const std::vector<double> measuredBatches = measuredGemmBatches(records, o.device, id);
    if (measuredBatches.empty()) continue;
    auto steps = measuredStepTimes(records, o.device, scenario.model, id, measuredBatches, source);
    if (!steps) return steps.error();
    if (steps->empty()) continue;
    MeasuredCurve curve;
    curve.schemeId = id;
    curve.points = std::move(*steps);
    std::vector<double> at;
    for (const auto& p : curve.points) at.push_back(p.batch);
    auto model = runEngine(scenario, {a}, at);
    if (model && !model->schemes.empty()) {
      for (const auto& p : model->schemes.front().points)
        curve.datasheetStepS.push_back(p.stepMs / 1e3);
    }
    if (calibratedScenario) {
      auto c = runEngine(*calibratedScenario, {a}, at);
      if (c && !c->schemes.empty()) {
        for (const auto& p : c->schemes.front().points)
          curve.calibratedStepS.push_back(p.stepMs / 1e3);
      }
    }
    o.measured.push_back(std::move(curve));
  }
  return o;
}

}  // namespace qf
