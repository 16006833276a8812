// End-to-end calibration: robust least squares of the model's real-GPU constants on
// ln(predicted / measured) (docs/model.md, "Calibration from end-to-end measurements").
#include <quantfront/core/analysis/calibration.hpp>
#include <quantfront/core/analysis/curve_intervals.hpp>
#include <quantfront/core/analysis/e2e_calibration.hpp>
#include <quantfront/core/base/numbers.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/core/model/scenario_spec.hpp>

#include "e2e_constants.hpp"

namespace qf {

using namespace e2e;  // the fitted constants by name, their ranges and their prior

namespace {

/// Solves A·x = b (n×n, row-major) by Gauss-Jordan with partial pivoting; also returns A⁻¹.
/// False when a pivot falls below `tol` relative to the largest diagonal.
bool solveSymmetric(std::vector<double> a, std::size_t n, std::vector<double>& b,
                    std::vector<double>* inverse, double tol) {
  std::vector<double> inv(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) inv[i * n + i] = 1.0;
  double scale = 0;
  for (std::size_t i = 0; i < n; ++i) scale = std::max(scale, std::abs(a[i * n + i]));
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t piv = c;
    for (std::size_t r = c + 1; r < n; ++r) {
      if (std::abs(a[r * n + c]) > std::abs(a[piv * n + c])) piv = r;
    }
    if (!(std::abs(a[piv * n + c]) > tol * scale)) return false;
    if (piv != c) {
      for (std::size_t k = 0; k < n; ++k) {
        std::swap(a[c * n + k], a[piv * n + k]);
        std::swap(inv[c * n + k], inv[piv * n + k]);
      }
      std::swap(b[c], b[piv]);
    }
    const double d = a[c * n + c];
    for (std::size_t k = 0; k < n; ++k) {
      a[c * n + k] /= d;
      inv[c * n + k] /= d;
    }
    b[c] /= d;
    for (std::size_t r = 0; r < n; ++r) {
      if (r == c) continue;
      const double f = a[r * n + c];
      if (f == 0) continue;
      for (std::size_t k = 0; k < n; ++k) {
        a[r * n + k] -= f * a[c * n + k];
        inv[r * n + k] -= f * inv[c * n + k];
      }
      b[r] -= f * b[c];
    }
  }
  if (inverse) *inverse = std::move(inv);
  return true;
}

double medianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

Efficiency perturbed(const Efficiency& eff, const std::string& name, double delta) {
  Efficiency e = eff;
  double v = getConstant(e, name);
  if (keyAfter(name, kDequantPrefix) && !(v > 0)) v = 1e-16;
  setConstant(e, name, v * std::exp(delta));
  return e;
}

namespace {

/// What stands for a point's batch: its batch, or a serving row's load coded as a negative
/// number (two loads run two batches).
double sizeOf(const MeasuredPoint& p) {
  if (!p.serving()) return p.batch;
  if (p.load == PointLoad::Max) return -1.0;
  return p.load == PointLoad::Concurrency ? -2.0 - p.loadValue : -1e7 - p.loadValue;
}

/// Whether some deployment (model, TP, schemes, KV dtype, lengths) is measured at two
/// batches (`byTp` false), or some (model, schemes, KV dtype, batch, lengths) at two TP
/// degrees (`byTp` true): what it takes to tell a per-sequence cost from t0, or the
/// all-reduce's fixed time from bandwidth and t0. With `only`, just the points it marks.
bool variesWithin(const std::vector<PreparedPoint>& points, bool byTp,
                  const std::vector<bool>* only = nullptr) {
  std::map<std::string, std::set<double>> seen;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (only && !(*only)[i]) continue;
    const PreparedPoint& pp = points[i];
    const MeasuredPoint& p = pp.point;
    const double size = sizeOf(p);
    std::ostringstream key;
    key << p.model << "|" << pp.candidate.id << "|" << p.kvDtype << "|" << p.inputLen << "|"
        << p.outputLen << "|";
    if (byTp) {
      key << size;
    } else {
      key << p.tp;
    }
    auto& values = seen[key.str()];
    values.insert(byTp ? p.tp : size);
    if (values.size() > 1) return true;
  }
  return false;
}

/// Candidate constants: t0 and η_β always; the per-sequence cost when some deployment is
/// measured at two batches; the all-reduce's fixed time when some is measured at two TP
/// degrees (one above 1); η_P of every tensor path a point's GEMMs run on; the dequant cost of
/// every kernel class with a conversion (c > 0). `start` gets their starting values.
std::vector<std::string> candidateConstants(const std::vector<PreparedPoint>& points,
                                            Efficiency& start) {
  std::vector<std::string> names{kOverhead, kBandwidth};
  start.overheadMs = 1.0;
  start.bandwidthEff = 0.8;
  if (variesWithin(points, false)) {
    names.push_back(kSeqOverhead);
    start.seqOverheadUs = 10.0;
  }
  const bool multiGpu = std::any_of(points.begin(), points.end(),
                                    [](const PreparedPoint& pp) { return pp.point.tp > 1; });
  if (multiGpu && variesWithin(points, true)) {
    names.push_back(kAllreduce);
    start.allreduceLatencyUs = 10.0;
  }
  std::set<std::string> paths, dequant;
  bool libraryKernel = false;  // some point streams weights through a GEMM without dequant
  std::vector<bool> weightOnly(points.size(), false);  // points with a dequant kernel
  for (std::size_t i = 0; i < points.size(); ++i) {
    const PreparedPoint& pp = points[i];
    auto curve = buildStepCurve(pp.scenario, countParams(pp.scenario.model), pp.candidate);
    if (!curve) continue;
    for (const auto& k : curve->kinds) {
      if (!k.present) continue;
      // The LM head's compute (one V·d GEMM of ~30 per step, in bf16 where checkpoints keep
      // it) cannot determine its path's rate: that rate is fitted where a decoder layer runs it.
      if (k.kind != LayerKind::LmHead) paths.insert(tensorPathName(k.effectivePath));
      if (k.effectiveC > 0) {
        // Kept under the kernel's constants id: a scheme another's kernel runs (constants_of)
        // shares that kernel's constants, and its points inform them.
        dequant.insert(k.constantsId);
        // Start at the counted c/D of that kernel class (any point using it gives D and c).
        start.dequantSPerWeight[k.constantsId] = k.dequantSPerWeight;
        weightOnly[i] = true;
      } else {
        libraryKernel = true;
      }
    }
  }
  for (const auto& p : paths) {
    names.push_back(kComputePrefix + p);
    start.computeEff[p] = 0.7;
  }
  for (const auto& d : dequant) names.push_back(kDequantPrefix + d);
  // A weight-only kernel's own bandwidth (η_k): only beside a library GEMM's points (with
  // weight-only points alone η_k and η_β change every prediction alike), and only where a
  // weight-only deployment is measured at two batches (where its step leaves the memory
  // floor tells η_k from t0; at one batch both set the same ratio to bf16).
  if (libraryKernel && variesWithin(points, false, &weightOnly)) {
    for (const auto& d : dequant) {
      names.push_back(kKernelBandwidthPrefix + d);
      start.kernelBandwidthEff[d] = 0.9;
    }
  }
  // The attention kernel's bandwidth on an FP8 cache (η_a): where points read both an FP8 and
  // a bf16 cache, which tell it from η_β (docs/model.md, "The attention kernel's bandwidth").
  {
    bool fp8Kv = false, bf16Kv = false;
    for (const auto& pp : points) (pp.scenario.kvBytesPerElement < 1.5 ? fp8Kv : bf16Kv) = true;
    if (fp8Kv && bf16Kv) names.push_back(std::string(kAttentionBandwidthPrefix) + "fp8");
  }
  // The GEMM-shape constants only where the prior has them (a datasheet fit keeps its form):
  // they are told from η_P by GEMMs of other rows (M½) or other TP degrees (w½), and the
  // prior holds them where the points do not.
  if (start.gemmMHalf > 0) names.push_back(kGemmMHalf);
  // A served request's fixed cost shows in the TTFT of serving rows only.
  const bool servedTtft = std::any_of(points.begin(), points.end(), [](const PreparedPoint& pp) {
    const E2eMetric m = pp.point.metric;
    return pp.point.serving() &&
           (m == E2eMetric::TtftMs || m == E2eMetric::TtftP50Ms || m == E2eMetric::E2eLatencyS);
  });
  if (servedTtft) {
    names.push_back(kRequestOverhead);
    if (!(start.requestOverheadMs > 0)) start.requestOverheadMs = 5.0;
  }
  if (multiGpu && start.tpWidthHalf > 0) names.push_back(kTpWidthHalf);
  return names;
}

/// The log residuals ln(predicted / measured) of the points and their Jacobian in the
/// ln-constants.
struct LogResiduals {
  const std::vector<PreparedPoint>& points;
  std::vector<double> measured;

  explicit LogResiduals(const std::vector<PreparedPoint>& pts) : points(pts), measured(pts.size()) {
    for (std::size_t i = 0; i < pts.size(); ++i) measured[i] = pts[i].point.value;
  }
  bool at(const Efficiency& e, std::vector<double>& r) const {
    const std::size_t n = points.size();
    r.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double p = predictPoint(points[i], e);
      if (!(p > 0) || !std::isfinite(p)) return false;
      r[i] = std::log(p / measured[i]);
    }
    return true;
  }
  bool jacobian(const Efficiency& e, const std::vector<std::string>& ps,
                std::vector<double>& jac) const {
    const std::size_t n = points.size();
    const double h = 1e-4;
    jac.assign(n * ps.size(), 0.0);
    std::vector<double> up, dn;
    for (std::size_t k = 0; k < ps.size(); ++k) {
      if (!at(perturbed(e, ps[k], h), up) || !at(perturbed(e, ps[k], -h), dn)) return false;
      for (std::size_t i = 0; i < n; ++i) jac[i * ps.size() + k] = (up[i] - dn[i]) / (2 * h);
    }
    return true;
  }
};

/// The weighted normal matrix JᵀWJ (p × p).
std::vector<double> normalMatrix(const std::vector<double>& jac, const std::vector<double>& w,
                                 std::size_t n, std::size_t p) {
  std::vector<double> normal(p * p, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t a = 0; a < p; ++a)
      for (std::size_t b = 0; b < p; ++b)
        normal[a * p + b] += w[i] * jac[i * p + a] * jac[i * p + b];
  return normal;
}

/// A fitted constant clamped to what a calibration block accepts, kept above 0 (the fit works
/// in its logarithm).
double acceptedValue(const std::string& name, double v) {
  if (name == kBandwidth || keyAfter(name, kComputePrefix) ||
      keyAfter(name, kKernelBandwidthPrefix) || keyAfter(name, kAttentionBandwidthPrefix))
    return std::clamp(v, 1e-3, kMaxEfficiency);
  if (name == kOverhead) return std::clamp(v, 1e-6, kMaxOverheadMs);
  if (name == kSeqOverhead) return std::clamp(v, 1e-6, kMaxSeqOverheadUs);
  if (name == kAllreduce) return std::clamp(v, 1e-6, kMaxAllreduceLatencyUs);
  if (name == kGemmMHalf) return std::clamp(v, 1e-6, kMaxGemmMHalf);
  if (name == kTpWidthHalf) return std::clamp(v, 1e-6, kMaxTpWidthHalf);
  if (name == kRequestOverhead) return std::clamp(v, 1e-6, kMaxRequestOverheadMs);
  return std::clamp(v, 1e-18, kMaxDequantSPerWeight);
}

/// Levenberg-Marquardt on Huber-weighted log residuals (iteratively reweighted), from `eff`
/// with residuals `r`; leaves the fitted constants in `eff`, their residuals in `r` and the
/// last Huber weights in `w`.
void fitRobust(const LogResiduals& model, const std::vector<std::string>& params,
               const std::vector<PriorPull>& pulls, Efficiency& eff, std::vector<double>& r,
               std::vector<double>& w) {
  const std::size_t n = r.size(), p = params.size();
  std::vector<double> jac;
  auto cost = [&](const std::vector<double>& res, const Efficiency& e) {
    double c = priorCost(params, pulls, e);
    for (std::size_t i = 0; i < n; ++i) c += w[i] * res[i] * res[i];
    return c;
  };
  double lambda = 1e-3;
  double scale = 0.05;  // robust scale of the residuals, updated each round
  std::vector<double> normal, rhs;
  for (int iter = 0; iter < 200; ++iter) {
    // Huber weights from the current residuals with a MAD scale (floor 1%).
    {
      std::vector<double> absr(n);
      for (std::size_t i = 0; i < n; ++i) absr[i] = std::abs(r[i]);
      scale = std::max(1.4826 * medianOf(absr), 0.01);
      const double k = 1.345 * scale;
      for (std::size_t i = 0; i < n; ++i) w[i] = absr[i] <= k ? 1.0 : k / absr[i];
    }
    if (!model.jacobian(eff, params, jac)) break;
    normal.assign(p * p, 0.0);
    rhs.assign(p, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t a = 0; a < p; ++a) {
        rhs[a] -= w[i] * jac[i * p + a] * r[i];
        for (std::size_t b = 0; b < p; ++b)
          normal[a * p + b] += w[i] * jac[i * p + a] * jac[i * p + b];
      }
    }
    // The prior's pseudo-observations: ∂/∂ln c of weight·(ln c − ln c_prior)².
    for (std::size_t a = 0; a < p; ++a) {
      if (pulls[a].weight <= 0) continue;
      normal[a * p + a] += pulls[a].weight;
      rhs[a] -= pulls[a].weight *
                (std::log(std::max(getConstant(eff, params[a]), 1e-300)) - pulls[a].logValue);
    }
    const double before = cost(r, eff);
    bool improved = false;
    for (int tries = 0; tries < 20 && !improved; ++tries) {
      std::vector<double> damped = normal, step = rhs;
      for (std::size_t a = 0; a < p; ++a) damped[a * p + a] *= 1 + lambda;
      for (std::size_t a = 0; a < p; ++a) damped[a * p + a] += 1e-12;
      if (!solveSymmetric(damped, p, step, nullptr, 1e-14)) {
        lambda *= 10;
        continue;
      }
      Efficiency trial = eff;
      for (std::size_t a = 0; a < p; ++a) {
        trial = perturbed(trial, params[a], std::clamp(step[a], -2.0, 2.0));
      }
      // Keep the fitted constants in their accepted ranges (above 0: they are fitted in ln).
      // The others are left as they are: a t_seq or α of 0 stays 0 (it was written as 1e-6
      // before, which read as a fitted "free" all-reduce).
      for (const auto& name : params)
        setConstant(trial, name, acceptedValue(name, getConstant(trial, name)));
      std::vector<double> rt;
      if (model.at(trial, rt) && cost(rt, trial) < before) {
        eff = trial;
        r = rt;
        lambda = std::max(lambda / 10, 1e-9);
        improved = true;
        double moved = 0;
        for (double s : step) moved = std::max(moved, std::abs(s));
        if (moved < 1e-7) iter = 1000;
      } else {
        lambda *= 10;
      }
    }
    if (!improved) break;
  }
}

/// The largest |∂ ln prediction / ∂ ln constant| over the points, per column of `jac`
/// (n × p): how much any point depends on each constant.
std::vector<double> largestDependence(const std::vector<double>& jac, std::size_t n,
                                      std::size_t p) {
  std::vector<double> most(p, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < p; ++k) most[k] = std::max(most[k], std::abs(jac[i * p + k]));
  return most;
}

/// Identifiability: the weighted normal matrix, columns scaled to unit diagonal, must be well
/// conditioned; `inverse` gets the inverse of the scaled matrix. Else an error names the
/// constants the points cannot tell apart.
std::optional<Error> checkIdentifiable(const std::vector<double>& normal,
                                       const std::vector<std::string>& params,
                                       std::vector<double>& inverse, const std::string& source) {
  const std::size_t p = params.size();
  std::vector<double> scaled = normal;
  for (std::size_t a = 0; a < p; ++a)
    for (std::size_t b = 0; b < p; ++b) {
      const double d = std::sqrt(normal[a * p + a] * normal[b * p + b]);
      scaled[a * p + b] = d > 0 ? normal[a * p + b] / d : 0.0;
    }
  std::vector<double> dummy(p, 0.0);
  bool conditioned = solveSymmetric(scaled, p, dummy, &inverse, 1e-9);
  if (conditioned) {
    for (std::size_t a = 0; a < p; ++a) conditioned = conditioned && inverse[a * p + a] < 1e6;
  }
  if (conditioned) return std::nullopt;
  // Name the pair with the strongest correlation.
  std::string pair;
  double worst = -1;
  for (std::size_t a = 0; a < p; ++a)
    for (std::size_t b = a + 1; b < p; ++b)
      if (std::abs(scaled[a * p + b]) > worst) {
        worst = std::abs(scaled[a * p + b]);
        pair = params[a] + " and " + params[b];
      }
  return Error{
      source, "", "points",
      "these points cannot determine the constants: " + (pair.empty() ? params.front() : pair) +
          " change the predictions alike; add points at other batches, lengths or "
          "schemes"};
}

/// Each point's fitted and datasheet prediction beside its measurement, the median errors and
/// the range of batches and lengths the fit saw.
void describeResiduals(const std::vector<PreparedPoint>& points, const Efficiency& eff,
                       const std::vector<double>& r, const std::vector<double>& w, E2eFit& fit) {
  Efficiency datasheet;
  std::vector<double> errs, dsErrs;
  bool first = true;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& pt = points[i].point;
    E2eFitResidual res;
    res.origin = pt.origin;
    res.metric = e2eMetricName(pt.metric);
    res.measured = pt.value;
    res.fitted = predictPoint(points[i], eff);
    res.datasheet = predictPoint(points[i], datasheet);
    res.logResidual = r[i];
    res.weight = w[i];
    errs.push_back(std::abs(res.fitted / res.measured - 1) * 100);
    dsErrs.push_back(std::abs(res.datasheet / res.measured - 1) * 100);
    fit.residuals.push_back(res);
    auto& g = fit.range;
    if (first) {
      g = {pt.batch, pt.batch, pt.inputLen, pt.inputLen, pt.outputLen, pt.outputLen};
      first = false;
    }
    if (!pt.serving() || pt.batch > 0) {
      if (g.batchMin <= 0) g.batchMin = g.batchMax = pt.batch;
      g.batchMin = std::min(g.batchMin, pt.batch);
      g.batchMax = std::max(g.batchMax, pt.batch);
    }
    g.inputMin = std::min(g.inputMin, pt.inputLen);
    g.inputMax = std::max(g.inputMax, pt.inputLen);
    g.outputMin = std::min(g.outputMin, pt.outputLen);
    g.outputMax = std::max(g.outputMax, pt.outputLen);
  }
  fit.medianAbsErrorPct = medianOf(errs);
  fit.datasheetMedianAbsErrorPct = medianOf(dsErrs);
}

}  // namespace

double e2eConstantValue(const Efficiency& eff, const std::string& name) {
  return getConstant(eff, name);
}

namespace {

/// One fit with the constants in `excluded` kept at the prior (fitEndToEnd's body).
/// The fit's residual scale σ (fit.sigmaLog) from its log residuals `r` and Huber weights `w`,
/// with fit.dof set: pooled with the prior calibration's own where it has one. `fitted` is the
/// number of constants fitted to the points.
void setResidualScale(const std::vector<double>& r, const std::vector<double>& w,
                      const Efficiency& prior, std::size_t fitted, E2eFit& fit) {
  // Residual scale: the MAD scale, 1.4826 × median |r|, the same robust scale the Huber
  // weights were cut at, times sqrt(n / dof) for the constants fitted to these very points
  // (docs/model.md, Intervals). The Huber-weighted RMS is the fallback when more than half
  // the points are fitted exactly (MAD zero).
  const std::size_t n = r.size();
  if (fit.dof > 0) {
    std::vector<double> absr(n);
    double ss = 0, sw = 0;
    for (std::size_t i = 0; i < n; ++i) {
      absr[i] = std::abs(r[i]);
      ss += w[i] * r[i] * r[i];
      sw += w[i];
    }
    const double dofCorrection = std::sqrt(static_cast<double>(n) / fit.dof);
    const double mad = 1.4826 * medianOf(absr);
    fit.sigmaLog = mad > 0 ? mad * dofCorrection
                           : std::sqrt(ss / static_cast<double>(fit.dof) * static_cast<double>(n) /
                                       std::max(sw, 1e-12));
  }
  // No more points than constants: they are met exactly whatever their scatter, so they say
  // nothing of it and count for nothing in the pool below (an exact fit to two A100 latencies
  // had σ = 3e-5 and intervals 0.01% wide).
  const bool exact = n <= fitted;
  // A few points say little of their own spread: it is pooled with the prior calibration's
  // (its e2e_fit record), which counts for at most 5 points, so that many points of one's
  // own outweigh it.
  bool pooled = false;
  if (!prior.isDatasheet()) {
    if (const auto rec = e2eFitRecord(prior.calibrationExtra);
        rec && rec->dof > 0 && rec->sigmaLog > 0) {
      const double d0 = std::min(static_cast<double>(rec->dof), 5.0);
      const double d = exact ? 0.0 : std::max(fit.dof, 0);
      fit.sigmaLog = std::sqrt(
          (d0 * rec->sigmaLog * rec->sigmaLog + d * fit.sigmaLog * fit.sigmaLog) / (d0 + d));
      fit.dof = std::max(fit.dof, 1);
      pooled = true;
    }
  }
  // With no prior scatter to take either, the scale is the one a prior's pulls are weighed with.
  if (exact && !pooled) {
    fit.sigmaLog = std::max(fit.sigmaLog, kPriorReferenceSigma);
    fit.dof = std::max(fit.dof, 1);
  }
}

/// Constants outside their physical range, or against an ordering the hardware guarantees,
/// are held (at the bound, the prior or bf16's rate) and the rest fitted again without them:
/// `params` loses them, `held` and `heldWarnings` name them and why.
std::optional<Error> holdImplausible(const LogResiduals& model, const Efficiency& prior,
                                     const GpuSpec& gpu, const std::string& source,
                                     std::vector<std::string>& params, Efficiency& eff,
                                     std::vector<double>& r, std::vector<double>& w,
                                     std::vector<double>& jac, std::vector<std::string>& held,
                                     std::vector<std::string>& heldWarnings) {
  for (int round = 0; round < 4 && !params.empty(); ++round) {
    const auto pulls = implausibleConstants(params, eff, prior, gpu);
    if (pulls.empty()) break;
    for (const auto& h : pulls) {
      setConstant(eff, h.name, h.value);
      params.erase(std::find(params.begin(), params.end(), h.name));
      held.push_back(h.name);
      heldWarnings.push_back(h.warning);
    }
    if (params.empty()) break;
    if (!model.at(eff, r)) return Error{source, "", "", "the model cannot predict these points"};
    std::fill(w.begin(), w.end(), 1.0);
    fitRobust(model, params, priorPulls(params, prior), eff, r, w);
    if (!model.jacobian(eff, params, jac))
      return Error{source, "", "", "the model cannot predict these points at the fitted values"};
  }
  return std::nullopt;
}

Result<E2eFit> fitOnce(const std::vector<PreparedPoint>& allPoints, const std::string& source,
                       const Efficiency& prior, const std::vector<std::string>& excluded) {
  if (allPoints.empty()) return Error{source, "", "", "no measured points for this GPU"};
  // Tail figures (p99s, ITL) come from the simulation: scored by --check, never fitted (a fit
  // evaluates every point dozens of times, and a p99 is one draw of the simulation's seed).
  std::vector<PreparedPoint> points;
  for (const auto& pp : allPoints) {
    if (!isTailMetric(pp.point.metric)) points.push_back(pp);
  }
  const std::size_t tails = allPoints.size() - points.size();
  if (points.empty()) {
    return Error{source, "", "metric",
                 "every point is a tail figure (p99 or ITL), which a fit scores but does not fit "
                 "to; add means, p50s or throughputs"};
  }
  // Every constant starts at its prior; the candidates' starting values replace theirs, and
  // what no candidate names (η_k with no weight-only point, say) stays as the prior has it.
  Efficiency start = prior;
  const std::vector<std::string> names = candidateConstants(points, start);
  const std::size_t n = points.size();
  const LogResiduals model(points);
  // Keep only the constants some point depends on (|∂ ln pred / ∂ ln c| ≥ 1% somewhere).
  std::vector<std::string> params;
  std::vector<std::string> fixedNames;
  {
    std::vector<double> jac;
    if (!model.jacobian(start, names, jac))
      return Error{source, "", "", "the model cannot predict these points (check their figures)"};
    const auto most = largestDependence(jac, n, names.size());
    for (std::size_t k = 0; k < names.size(); ++k) {
      const bool out = std::find(excluded.begin(), excluded.end(), names[k]) != excluded.end();
      (most[k] >= 0.01 && !out ? params : fixedNames).push_back(names[k]);
    }
  }
  Efficiency eff = start;
  keepPriorValues(fixedNames, eff, prior);
  // Constants the prior holds need no point of their own; the others one point each.
  const auto countFree = [&prior](const std::vector<std::string>& ps) {
    const auto pulls = priorPulls(ps, prior);
    return static_cast<std::size_t>(std::count_if(
        pulls.begin(), pulls.end(), [](const PriorPull& q) { return q.weight <= 0; }));
  };
  if (n < countFree(params)) {
    std::string list;
    for (const auto& q : params) list += (list.empty() ? "" : ", ") + q;
    return Error{source, "", "points",
                 std::to_string(n) + " point" + (n == 1 ? "" : "s") + " cannot determine " +
                     std::to_string(params.size()) + " constants (" + list +
                     "); measure more batches, lengths or schemes"};
  }
  std::vector<double> r, jac, w(n, 1.0);
  if (!model.at(eff, r)) return Error{source, "", "", "the model cannot predict these points"};
  fitRobust(model, params, priorPulls(params, prior), eff, r, w);
  if (!model.jacobian(eff, params, jac))
    return Error{source, "", "", "the model cannot predict these points at the fitted values"};
  {
    // A kernel's η_k matters only while its kernel is memory-bound: when the fit makes every
    // point compute-bound (a large dequant cost), no point depends on it any more; it keeps
    // its datasheet value and the rest is fitted again without it.
    const auto most = largestDependence(jac, n, params.size());
    std::vector<std::string> kept;
    for (std::size_t k = 0; k < params.size(); ++k) {
      const bool idle = keyAfter(params[k], kKernelBandwidthPrefix) && most[k] < 0.01;
      (idle ? fixedNames : kept).push_back(params[k]);
    }
    if (kept.size() < params.size()) {
      params = kept;
      keepPriorValues(fixedNames, eff, prior);
      if (!model.at(eff, r)) return Error{source, "", "", "the model cannot predict these points"};
      std::fill(w.begin(), w.end(), 1.0);
      fitRobust(model, params, priorPulls(params, prior), eff, r, w);
      if (!model.jacobian(eff, params, jac))
        return Error{source, "", "", "the model cannot predict these points at the fitted values"};
    }
  }
  std::vector<std::string> held, heldWarnings;
  if (auto e = holdImplausible(model, prior, points.front().scenario.gpu, source, params, eff, r, w,
                               jac, held, heldWarnings))
    return *e;
  if (params.empty()) {
    return Error{source, "", "points",
                 "every constant these points determine left its physical range (" +
                     (heldWarnings.empty() ? std::string() : heldWarnings.front()) +
                     "); check the points' figures"};
  }
  const std::size_t p = params.size();
  const auto pulls = priorPulls(params, prior);
  std::vector<double> normal = normalMatrix(jac, w, n, p);
  for (std::size_t a = 0; a < p; ++a) normal[a * p + a] += pulls[a].weight;
  std::vector<double> inverse;
  if (auto e = checkIdentifiable(normal, params, inverse, source)) return *e;
  E2eFit fit;
  // Each prior pull is one pseudo-observation.
  const std::size_t pulled = p - countFree(params);
  fit.dof = static_cast<int>(n + pulled) - static_cast<int>(p);
  setResidualScale(r, w, prior, p, fit);
  // Covariance of the ln-constants: σ²·(JᵀWJ)⁻¹ (unscale the inverse).
  fit.covariance.assign(p * p, 0.0);
  for (std::size_t a = 0; a < p; ++a)
    for (std::size_t b = 0; b < p; ++b) {
      const double d = std::sqrt(normal[a * p + a] * normal[b * p + b]);
      fit.covariance[a * p + b] = d > 0 ? fit.sigmaLog * fit.sigmaLog * inverse[a * p + b] / d : 0;
    }
  eff.source = source;
  fit.efficiency = eff;
  for (std::size_t a = 0; a < p; ++a) {
    const double v = getConstant(eff, params[a]);
    fit.constants.push_back({params[a], v, v * std::sqrt(fit.covariance[a * p + a])});
  }
  fit.fixed = fixedNames;
  fit.held = held;
  fit.warnings = heldWarnings;
  if (tails > 0) {
    fit.warnings.push_back(std::to_string(tails) + " tail figure" + (tails == 1 ? "" : "s") +
                           " (p99 or ITL) not fitted; the held-out check ({--check}) scores them");
  }
  describeResiduals(points, eff, r, w, fit);
  return fit;
}

/// fitEndToEnd without its cross-validation: constants the points leave undetermined go back
/// to the prior and the rest is fitted again.
Result<E2eFit> fitConstants(const std::vector<PreparedPoint>& allPoints, const std::string& source,
                            const Efficiency& prior) {
  // A constant whose 1σ spans more than a factor e³ ≈ 20 is not determined by these points
  // (a dequant cost fitted to 1e-18 s per weight with a spread of 5e-12): it keeps the prior's
  // value, with a warning, and the rest is fitted again, so that no interval inherits its
  // spread (docs/model.md, "Calibration from end-to-end measurements").
  constexpr double kUndeterminedLogSd = 3.0;
  if (auto e = implausiblePoint(allPoints)) return *e;
  std::vector<std::string> excluded, kept;  // kept: one warning per constant kept at the prior
  std::optional<E2eFit> previous;           // the last fit that succeeded, with its warnings
  std::vector<std::string> lastLoose;       // the constants that fit left loose
  for (int round = 0;; ++round) {
    auto fit = fitOnce(allPoints, source, prior, excluded);
    // A refit that fails (the rest held, say) leaves the fit before it, loose constants and all.
    if (!fit) {
      if (!previous) return fit;
      for (const auto& n : lastLoose)
        previous->warnings.push_back(n.substr(0, n.find("; kept at")) +
                                     "; fitted anyway: every interval that depends on it is wide");
      return std::move(*previous);
    }
    const std::size_t p = fit->constants.size();
    std::vector<std::string> loose, looseNotes;
    for (std::size_t a = 0; a < p; ++a) {
      const double logSd = std::sqrt(std::max(fit->covariance[a * p + a], 0.0));
      if (!(logSd > kUndeterminedLogSd)) continue;
      const std::string& name = fit->constants[a].name;
      loose.push_back(name);
      const double was = e2eConstantValue(prior, name);
      const std::string w =
          words(name, ": these points cannot determine it (fitted ", fit->constants[a].value,
                " with a 1-sigma factor of e^", sigFigs(logSd, 3), ")");
      looseNotes.push_back(w + (was > 0 ? "; kept at the prior's " + sigFigs(was, 3)
                                        : std::string("; kept at the prior, which charges "
                                                      "none")));
    }
    std::vector<std::string> warnings = kept;
    if (!loose.empty() && (loose.size() == p || round == 3)) {
      // Nothing left to fit without them: fitted anyway, and said so.
      for (const auto& n : looseNotes)
        warnings.push_back(n.substr(0, n.find("; kept at")) +
                           "; fitted anyway: every interval that depends on it is wide");
    }
    fit->warnings.insert(fit->warnings.begin(), warnings.begin(), warnings.end());
    if (loose.empty() || loose.size() == p || round == 3) return fit;
    previous = std::move(*fit);
    lastLoose = looseNotes;
    kept.insert(kept.end(), looseNotes.begin(), looseNotes.end());
    excluded.insert(excluded.end(), loose.begin(), loose.end());
  }
}

/// The points' own check of a fit against its prior: each point predicted by a fit that did
/// not see it (leave-one-out up to kCrossValidationFolds points, that many interleaved folds
/// above), median |ln(predicted / measured)|. A fold the rest cannot fit predicts with the
/// prior.
/// |ln(predicted / measured)| of one point under `eff` (1e9 where the model cannot price it).
double absLogError(const PreparedPoint& pp, const Efficiency& eff) {
  const double pred = predictPoint(pp, eff);
  return pred > 0 ? std::abs(std::log(pred / pp.point.value)) : 1e9;
}

double crossValidatedError(const std::vector<PreparedPoint>& points, const std::string& source,
                           const Efficiency& prior) {
  constexpr std::size_t kCrossValidationFolds = 5;
  const std::size_t n = points.size();
  const std::size_t folds = std::min(n, kCrossValidationFolds);
  std::vector<double> errs(n, 0.0);
  // Points of one shape (batch, lengths, TP) leave together where there are enough shapes:
  // a point the fit did not see is usually of a shape it did not see.
  std::vector<std::size_t> foldOf(n);
  std::map<std::tuple<double, double, double, int>, std::size_t> shapes;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& pt = points[i].point;
    foldOf[i] = shapes.try_emplace({pt.batch, pt.inputLen, pt.outputLen, pt.tp}, shapes.size())
                    .first->second;
  }
  for (std::size_t i = 0; i < n; ++i)
    foldOf[i] = shapes.size() >= folds ? foldOf[i] % folds : i % folds;
  for (std::size_t f = 0; f < folds; ++f) {
    std::vector<PreparedPoint> train;
    std::vector<std::size_t> test;
    for (std::size_t i = 0; i < n; ++i) {
      if (foldOf[i] == f) {
        test.push_back(i);
      } else {
        train.push_back(points[i]);
      }
    }
    const auto fit = fitConstants(train, source, prior);
    for (const std::size_t i : test)
      errs[i] = absLogError(points[i], fit ? fit->efficiency : prior);
  }
  return medianOf(errs);
}

}  // namespace

Result<E2eFit> fitEndToEnd(const std::vector<PreparedPoint>& allPoints, const std::string& source,
                           const Efficiency& prior, bool crossValidate) {
  auto fit = fitConstants(allPoints, source, prior);
  if (!fit || prior.isDatasheet() || !crossValidate) return fit;
  // A few points can agree with each other and still mislead: what the model lacks, they
  // push into the constants it has. Their own cross-validation shows it: each point predicted
  // by a fit of the others, beside the prior's prediction of it (docs/model.md, "The points'
  // own check"). It is said, not acted on: holding the prior tighter where it lost cost more
  // in the draws where the points were right than it saved in the others.
  std::vector<PreparedPoint> points;
  for (const auto& pp : allPoints) {
    if (!isTailMetric(pp.point.metric)) points.push_back(pp);
  }
  if (points.size() < 2) return fit;
  std::vector<double> priorErrs;
  for (const auto& pp : points) priorErrs.push_back(absLogError(pp, prior));
  fit->priorPct = 100 * std::expm1(medianOf(priorErrs));
  const double cv = crossValidatedError(points, source, prior);
  fit->crossValidatedPct = 100 * std::expm1(cv);
  // A point the fit did not see scatters as the points left out of it did: where that MAD
  // scale is wider than the residuals', the intervals take it (their covariance with them).
  const double cvSigma = 1.4826 * cv;
  if (cvSigma > fit->sigmaLog && fit->sigmaLog > 0) {
    const double grow = (cvSigma / fit->sigmaLog) * (cvSigma / fit->sigmaLog);
    for (double& c : fit->covariance) c *= grow;
    for (auto& c : fit->constants) c.spread *= std::sqrt(grow);
    fit->sigmaLog = cvSigma;
  }
  if (fit->crossValidatedPct > fit->priorPct) {
    fit->warnings.push_back(
        "each point predicted by a fit of the others is off by " +
        sigFigs(fit->crossValidatedPct, 3) + "% at the median, more than the prior's " +
        sigFigs(fit->priorPct, 3) +
        "% on them: these points may not predict other shapes better than the prior does; "
        "check them, or measure more shapes, before applying the calibration");
  }
  return fit;
}

}  // namespace qf
