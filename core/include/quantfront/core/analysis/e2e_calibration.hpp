#pragma once
/// End-to-end calibration: the model's real-GPU constants (per-step overhead, bandwidth
/// efficiency, compute efficiency per tensor path, dequant cost per kernel class) fitted to
/// measured latencies and throughputs at known batch and lengths (docs/model.md,
/// "Calibration from end-to-end measurements").
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/import/measured_points.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/speculation.hpp>

namespace qf {

/// Speculative decoding on the server a serving figure is for (docs/model.md, "Speculative
/// decoding"). The draft is rebuilt at the efficiency under test, so an interval moves the
/// draft's constants with the target's (the draft runs with the target's GPU constants).
struct PointSpeculation {
  Speculation speculation;
  /// The draft model on the target's GPUs (its candidate in the catalog's baseline scheme);
  /// absent: the target's own multi-token-prediction layer.
  std::optional<Scenario> draftScenario;
  SchemeAssignment draftCandidate;
};

/// A measured point resolved to engine inputs (model, GPU, scheme, KV dtype).
struct PreparedPoint {
  MeasuredPoint point;
  Scenario scenario;  ///< its efficiency is replaced by the one under test
  SchemeAssignment candidate;
  /// Serving rows only: the server speculates (modelled figures; no imported row does).
  std::optional<PointSpeculation> speculation;
};

/// The replica of `s` (efficiency `eff`) running `cand` under `spec`: the draft built at the
/// same efficiency, then speculativeServing. Errors: as engineServing and speculativeServing.
Result<EngineServing> speculativeEngineServing(const EngineServing& target, const Scenario& s,
                                               const PointSpeculation& spec, const Efficiency& eff);

/// Resolves each point against `gpu` (the GPU the fit is for). Points whose GPU names another
/// catalog GPU are left out, each with a line in `notes`. Errors name the point and field.
Result<std::vector<PreparedPoint>> preparePoints(const std::vector<MeasuredPoint>& points,
                                                 const GpuSpec& gpu, const std::string& gpuArg,
                                                 std::vector<std::string>& notes,
                                                 const Catalog& cat = Catalog::bundled());

/// The model's value of a point's metric under `eff`.
double predictPoint(const PreparedPoint& p, const Efficiency& eff);

/// The engine whose bundled constants a fit of `points` starts from (engineConstantsKey):
/// the points' engine when they all share one, else "" (vLLM's); `mixed` is set when
/// TensorRT-LLM points sit beside others.
std::string pointsEngine(const std::vector<PreparedPoint>& points, bool* mixed = nullptr);

/// The first point faster than the GPU's ideal roofline allows by more than 2x (a latency
/// below half of it, a throughput above twice it): not a measurement on that GPU. Named by
/// row and field. fitEndToEnd refuses such points; qfront calibrate --check does too.
std::optional<Error> implausiblePoint(const std::vector<PreparedPoint>& points);
/// The same for a serving row: the analytic steady state at the row's load for means, p50s
/// and throughput (a rate beyond what the model sustains is priced at 99% of it), the seeded
/// simulation (seed 1) for ITL and the p99s. NaN when the deployment cannot serve the row.
double predictServingPoint(const PreparedPoint& p, const Efficiency& eff);

/// One fitted constant: its name as the calibration block spells it
/// (`overhead_ms`, `bandwidth_efficiency`, `compute_efficiency.bf16`,
/// `dequant_s_per_weight.w4a16-g128`), value, and 1-sigma spread in the same unit.
struct E2eFitConstant {
  std::string name;
  double value = 0;
  double spread = 0;
};

struct E2eFitResidual {
  std::string origin;
  std::string metric;
  double measured = 0;
  double datasheet = 0;    ///< the ideal roofline's prediction
  double fitted = 0;       ///< the fit's prediction
  double logResidual = 0;  ///< ln(fitted / measured)
  double weight = 1;       ///< the robust (Huber) weight the point ended with
};

/// The range of conditions a fit saw (predictions outside it are flagged as extrapolated).
struct E2eFitRange {
  double batchMin = 0, batchMax = 0;
  double inputMin = 0, inputMax = 0;
  double outputMin = 0, outputMax = 0;
  [[nodiscard]] bool contains(double batch, double inputLen, double outputLen) const;
};

struct E2eFit {
  Efficiency efficiency;                  ///< the fitted constants (source: the fit)
  std::vector<E2eFitConstant> constants;  ///< the fitted ones, in parameter order
  std::vector<std::string> fixed;         ///< constants no point depends on (kept at the prior)
  /// Constants the fit left outside their physical range or against a hardware ordering
  /// (FP8 slower than bf16 on FP8 tensor cores), held instead of fitted; `warnings` says
  /// each one's fitted value and what it is held at.
  std::vector<std::string> held;
  std::vector<std::string> warnings;
  std::vector<E2eFitResidual> residuals;
  double sigmaLog = 0;  ///< robust scale of the log residuals (their spread per point)
  int dof = 0;          ///< points − constants
  /// Covariance of the fitted parameters in the fit's own coordinates (ln of each constant),
  /// row-major, constants.size() squared.
  std::vector<double> covariance;
  E2eFitRange range;
  double medianAbsErrorPct = 0;  ///< median |fitted/measured − 1| in percent
  double datasheetMedianAbsErrorPct = 0;
  /// Each point predicted by a fit of the others, median |error| in percent, and the prior's
  /// median |error| on the same points; both 0 when the fit has no prior (the datasheet).
  double crossValidatedPct = 0;
  double priorPct = 0;
};

/// The value of one of the fit's constants, by its calibration-block name
/// ("overhead_ms", "compute_efficiency.fp8", "kernel_bandwidth_efficiency.w4a16-g128", ...).
double e2eConstantValue(const Efficiency& eff, const std::string& name);

/// Fits the constants by robust least squares (Huber weights, Levenberg-Marquardt) on
/// ln(predicted / measured). Only constants some point depends on are fitted; the others keep
/// `prior`'s value (the GPU's calibration: a GPU file's block or the bundled defaults; the
/// datasheet where it has none). A fitted constant outside its physical range, or an FP8/INT8
/// rate below bf16's on a GPU with those tensor cores, is held (at the nearer bound, or at
/// bf16's rate) with a warning, and the rest refitted. A set the points cannot determine
/// (fewer points than constants, or two constants the points cannot tell apart) is refused
/// with an Error naming them. With a prior, the points' own cross-validation (each predicted
/// by a fit of the others) is set beside the prior's error on them, with a warning when it is
/// the larger, and widens the intervals where its scatter is the wider; `crossValidate` false
/// skips it (five more fits) where only the constants are wanted.
Result<E2eFit> fitEndToEnd(const std::vector<PreparedPoint>& points, const std::string& source,
                           const Efficiency& prior = Efficiency{}, bool crossValidate = true);

/// The fit as a calibration block (what `qfront calibrate -o` writes for the GPU file):
/// source, overhead_ms, bandwidth_efficiency, compute_efficiency, dequant_s_per_weight, and
/// `e2e_fit` (constants with spreads, covariance, sigma_log, dof, range, residuals).
GpuCalibration e2eCalibrationBlock(const E2eFit& fit, const std::string& source);

/// A prediction with its interval, from a calibration block's `e2e_fit` record.
struct IntervalEstimate {
  double value = 0;
  double low = 0, high = 0;
  bool extrapolated = false;  ///< outside the range the fit saw
};

/// The interval around `predict(eff)` at confidence `level` (0.8 by default): the
/// log-space variance σ²·(1 + gᵀ·C·g/σ²) where g is the prediction's gradient in the fit's
/// coordinates and C their covariance, with Student's t at dof. Without a fit record the
/// interval is the value itself. `calibrationExtra` is GpuCalibration::extraJson.
template <class F>
IntervalEstimate intervalFor(F predict, const Efficiency& eff, const std::string& calibrationExtra,
                             double level, double batch, double inputLen, double outputLen);

/// Two-sided Student-t quantile for a central `level` interval (e.g. 0.8 → t_{0.9, dof}).
double studentTQuantile(double level, int dof);

/// The coordinates of a fit record: names, covariance, sigma_log, dof and range, parsed from
/// a calibration block's extra JSON; nullopt when it holds none.
struct E2eFitRecord {
  std::vector<std::string> names;
  std::vector<double> covariance;
  double sigmaLog = 0;
  int dof = 0;
  E2eFitRange range;
};
std::optional<E2eFitRecord> e2eFitRecord(const std::string& calibrationExtra);

/// Intervals of one candidate's static-batch predictions (one per point of `sr.e2e`), from
/// the scenario efficiency's `e2e_fit` record; empty when it has none or no degree of freedom.
struct StaticBatchInterval {
  IntervalEstimate ttftMs, tpotMs, latencyS, totalTokensPerS;
};
std::vector<StaticBatchInterval> staticBatchIntervals(const Scenario& s, const ParamCounts& params,
                                                      const SchemeReport& sr, double level = 0.8);

/// The `level` interval of one candidate's decode step time (seconds, as
/// StepCurve::stepSeconds) at each of `batches`, from the scenario efficiency's `e2e_fit`
/// record; empty when it has none or no degree of freedom. `extrapolated` marks batches
/// outside the batch range the fit saw.
std::vector<IntervalEstimate> stepTimeIntervals(const Scenario& s, const ParamCounts& params,
                                                const SchemeReport& sr,
                                                const std::vector<double>& batches,
                                                double level = 0.8);

/// The efficiency with the constant `name` multiplied by exp(delta) (the fit's coordinates).
Efficiency perturbed(const Efficiency& eff, const std::string& name, double delta);

/// The `level` interval of a prediction `value` (> 0) whose log-gradient in the fit's
/// coordinates is `logGradient`: log-space variance σ² + gᵀ·C·g, Student's t at the fit's dof.
/// A value ≤ 0 or non-finite, or a record without a degree of freedom, gives the value alone.
IntervalEstimate intervalFromLogGradient(double value, const std::vector<double>& logGradient,
                                         const E2eFitRecord& rec, double level);

/// The same with the fit record already parsed (null: the value alone).
template <class F>
IntervalEstimate intervalFor(F predict, const Efficiency& eff, const E2eFitRecord* rec,
                             double level, double batch, double inputLen, double outputLen) {
  const double value = predict(eff);
  if (!rec || rec->dof <= 0 || !(value > 0)) return {value, value, value, false};
  const std::size_t n = rec->names.size();
  std::vector<double> g(n, 0.0);
  const double h = 1e-4;
  for (std::size_t i = 0; i < n; ++i) {
    const double up = predict(perturbed(eff, rec->names[i], h));
    const double dn = predict(perturbed(eff, rec->names[i], -h));
    if (up > 0 && dn > 0) g[i] = (std::log(up) - std::log(dn)) / (2 * h);
  }
  IntervalEstimate out = intervalFromLogGradient(value, g, *rec, level);
  out.extrapolated = !rec->range.contains(batch, inputLen, outputLen);
  return out;
}

template <class F>
IntervalEstimate intervalFor(F predict, const Efficiency& eff, const std::string& calibrationExtra,
                             double level, double batch, double inputLen, double outputLen) {
  const auto rec = e2eFitRecord(calibrationExtra);
  return intervalFor(predict, eff, rec ? &*rec : nullptr, level, batch, inputLen, outputLen);
}

}  // namespace qf
