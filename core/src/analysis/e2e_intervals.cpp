// End-to-end calibration's intervals: a figure's 80% interval from the fit's covariance, the
// Student t quantile it uses, and the fit record a calibration block carries (docs/model.md,
// "Calibration from end-to-end measurements").
#include <quantfront/core/analysis/curve_intervals.hpp>
#include <quantfront/core/analysis/e2e_calibration.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/core/model/scenario_spec.hpp>

namespace qf {

bool E2eFitRange::contains(double batch, double inputLen, double outputLen) const {
  auto in = [](double v, double lo, double hi) {
    return v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9);
  };
  // A serving row has no batch of its own (0): its lengths alone are checked.
  return (batch <= 0 || in(batch, batchMin, batchMax)) && in(inputLen, inputMin, inputMax) &&
         in(outputLen, outputMin, outputMax);
}

IntervalEstimate intervalFromLogGradient(double value, const std::vector<double>& logGradient,
                                         const E2eFitRecord& rec, double level) {
  IntervalEstimate out{value, value, value, false};
  const std::size_t n = rec.names.size();
  if (rec.dof <= 0 || !(value > 0) || !std::isfinite(value) || logGradient.size() != n) return out;
  double var = rec.sigmaLog * rec.sigmaLog;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      var += logGradient[i] * rec.covariance[i * n + j] * logGradient[j];
  const double half = studentTQuantile(level, rec.dof) * std::sqrt(std::max(var, 0.0));
  out.low = value * std::exp(-half);
  out.high = value * std::exp(half);
  return out;
}

std::vector<IntervalEstimate> stepTimeIntervals(const Scenario& s, const ParamCounts& params,
                                                const SchemeReport& sr,
                                                const std::vector<double>& batches, double level) {
  std::vector<IntervalEstimate> out;
  auto model = StepCurveIntervals::build(s, params, sr.assignment, level);
  if (!model || !model->hasSpread()) return out;
  out.reserve(batches.size());
  for (double b : batches) out.push_back(model->stepSeconds(b));
  return out;
}

std::vector<StaticBatchInterval> staticBatchIntervals(const Scenario& s, const ParamCounts& params,
                                                      const SchemeReport& sr, double level) {
  std::vector<StaticBatchInterval> out;
  if (sr.e2e.empty()) return out;
  auto model = StepCurveIntervals::build(s, params, sr.assignment, level);
  if (!model || !model->hasSpread()) return out;
  for (const auto& x : sr.e2e) {
    auto at = [&](auto field) {
      IntervalEstimate iv = model->figure([&](const StepCurve& c) {
        return field(predictStaticBatch(c, x.batch, x.inputLen, x.outputLen));
      });
      iv.extrapolated = iv.value > 0 && model->outsideFit(x.batch, x.inputLen, x.outputLen);
      return iv;
    };
    StaticBatchInterval iv;
    iv.ttftMs = at([](const StaticBatchPrediction& p) { return p.ttftMs; });
    iv.tpotMs = at([](const StaticBatchPrediction& p) { return p.tpotMs; });
    iv.latencyS = at([](const StaticBatchPrediction& p) { return p.e2eLatencyS; });
    iv.totalTokensPerS = at([](const StaticBatchPrediction& p) { return p.totalTokensPerS; });
    out.push_back(iv);
  }
  return out;
}

double studentTQuantile(double level, int dof) {
  // Normal quantile by Acklam's rational approximation, then the Cornish-Fisher expansion
  // of Student's t in 1/dof (accurate to ~1e-3 for dof >= 3).
  const double p = 0.5 + 0.5 * std::clamp(level, 0.0, 0.999999);
  const double q = p - 0.5;
  double z = 0;
  if (p <= 0.97575) {
    const double r = q * q;
    const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                        1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
    const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                        6.680131188771972e+01, -1.328068155288572e+01};
    z = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                        -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
    const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                        3.754408661907416e+00};
    const double r = std::sqrt(-2 * std::log(1 - p));
    z = -(((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) /
        ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1);
  }
  if (dof <= 0) return z;
  const double v = static_cast<double>(dof);
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
}

GpuCalibration e2eCalibrationBlock(const E2eFit& fit, const std::string& source) {
  GpuCalibration c;
  c.source = source;
  const Efficiency& e = fit.efficiency;
  c.overheadMs = e.overheadMs;
  c.bandwidthEfficiency = e.bandwidthEff;
  if (e.seqOverheadUs > 0) c.seqOverheadUs = e.seqOverheadUs;
  if (e.allreduceLatencyUs > 0) c.allreduceLatencyUs = e.allreduceLatencyUs;
  if (e.gemmMHalf > 0) c.gemmMHalf = e.gemmMHalf;
  if (e.tpWidthHalf > 0) c.tpWidthHalf = e.tpWidthHalf;
  if (e.requestOverheadMs > 0) c.requestOverheadMs = e.requestOverheadMs;
  c.computeEfficiency = e.computeEff;
  c.dequantSPerWeight = e.dequantSPerWeight;
  c.kernelBandwidthEfficiency = e.kernelBandwidthEff;
  c.attentionBandwidthEfficiency = e.attentionBandwidthEff;
  Json rec;
  Json names = Json::array(), consts = Json::object();
  for (const auto& k : fit.constants) {
    names.push_back(k.name);
    consts[k.name] = {{"value", k.value}, {"spread", k.spread}};
  }
  rec = Json{{"constants", consts},
             {"names", names},
             {"not_determined", fit.fixed},
             {"held", fit.held},
             {"warnings", fit.warnings},
             {"covariance", fit.covariance},
             {"sigma_log", fit.sigmaLog},
             {"dof", fit.dof},
             {"median_abs_error_pct", fit.medianAbsErrorPct},
             {"datasheet_median_abs_error_pct", fit.datasheetMedianAbsErrorPct},
             {"range",
              {{"batch", {fit.range.batchMin, fit.range.batchMax}},
               {"input_len", {fit.range.inputMin, fit.range.inputMax}},
               {"output_len", {fit.range.outputMin, fit.range.outputMax}}}}};
  Json res = Json::array();
  for (const auto& r : fit.residuals) {
    res.push_back({{"point", r.origin},
                   {"metric", r.metric},
                   {"measured", r.measured},
                   {"fitted", r.fitted},
                   {"datasheet", r.datasheet},
                   {"log_residual", r.logResidual}});
  }
  rec["residuals"] = res;
  if (fit.priorPct > 0) {
    rec["cross_validated_median_abs_error_pct"] = fit.crossValidatedPct;
    rec["prior_median_abs_error_pct"] = fit.priorPct;
  }
  Json extra = Json::object();
  extra["e2e_fit"] = rec;
  c.extraJson = extra.dump();
  return c;
}

std::optional<E2eFitRecord> e2eFitRecord(const std::string& calibrationExtra) {
  const Json j = Json::parse(calibrationExtra, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("e2e_fit")) return std::nullopt;
  const Json& f = j["e2e_fit"];
  E2eFitRecord r;
  try {
    r.names = f.at("names").get<std::vector<std::string>>();
    r.covariance = f.at("covariance").get<std::vector<double>>();
    r.sigmaLog = f.at("sigma_log").get<double>();
    r.dof = f.at("dof").get<int>();
    const Json& g = f.at("range");
    r.range = {g.at("batch")[0].get<double>(),      g.at("batch")[1].get<double>(),
               g.at("input_len")[0].get<double>(),  g.at("input_len")[1].get<double>(),
               g.at("output_len")[0].get<double>(), g.at("output_len")[1].get<double>()};
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (r.covariance.size() != r.names.size() * r.names.size() || !std::isfinite(r.sigmaLog))
    return std::nullopt;
  return r;
}

}  // namespace qf
