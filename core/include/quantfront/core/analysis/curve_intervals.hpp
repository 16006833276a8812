#pragma once
/// Intervals on figures computed from one scheme's step curve: the curve is built once at the
/// fitted constants and once per constant nudged up and down, so that any figure of the curve
/// (a step time at any batch, a request's latency, tokens/s at capacity, a ratio against
/// another scheme) gets its interval from the calibration's fit record without rebuilding
/// anything (docs/model.md, "Intervals on modelled figures").
#include <cmath>
#include <optional>
#include <vector>

#include <quantfront/core/analysis/e2e_calibration.hpp>

namespace qf {

/// One scheme's step curves under the calibration's constants and each constant nudged by
/// ±h in log space (h = 1e-4), for the scenario's efficiency and its `e2e_fit` record.
class StepCurveIntervals {
 public:
  /// Builds 2·(fitted constants) + 1 curves; with no fit record (the datasheet roofline, a
  /// calibration without one) or a record without a degree of freedom, only the base curve,
  /// and every interval is the value alone. Errors: the base curve's own.
  static Result<StepCurveIntervals> build(const Scenario& s, const ParamCounts& params,
                                          const SchemeAssignment& a, double level = 0.8);

  /// True when the intervals have a spread (a fit record with a degree of freedom).
  [[nodiscard]] bool hasSpread() const { return m_rec.has_value(); }
  /// The curve at the calibration's constants.
  [[nodiscard]] const StepCurve& curve() const { return m_base; }
  /// The decode step time at `batch` (seconds, as StepCurve::stepSeconds) with its interval;
  /// `extrapolated` when the batch is outside the fit's range.
  [[nodiscard]] IntervalEstimate stepSeconds(double batch) const;

  /// Tokens/s with `batch` sequences decoding (batch / step time; at the KV capacity, what
  /// CapacityReport::tokensPerSAtCapacity is), with its interval.
  [[nodiscard]] IntervalEstimate tokensPerS(double batch) const {
    return figure([batch](const StepCurve& c) { return batch / c.stepSeconds(batch); });
  }
  /// True when a point at these batch and lengths is outside what the fit saw (its figures are
  /// extrapolated); false without a fit record.
  [[nodiscard]] bool outsideFit(double batch, double inputLen, double outputLen) const {
    return m_rec && !m_rec->range.contains(batch, inputLen, outputLen);
  }
  /// The interval of any positive figure `f(const StepCurve&)`.
  template <class F>
  [[nodiscard]] IntervalEstimate figure(F f) const {
    return figureWith(*this, [&](const StepCurve& mine, const StepCurve&) { return f(mine); });
  }
  /// The interval of a positive figure of two schemes' curves under the same constants
  /// (`f(mine, other)`: a ratio, a difference), both moved together by each nudge. `other`
  /// must come from the same scenario (the same record); when it has no spread, neither does
  /// the result.
  template <class F>
  [[nodiscard]] IntervalEstimate figureWith(const StepCurveIntervals& other, F f) const {
    const double v = f(m_base, other.m_base);
    if (!m_rec || !other.m_rec || m_up.size() != other.m_up.size()) return valueOnly(v);
    std::vector<double> g(m_up.size(), 0.0);
    for (std::size_t i = 0; i < m_up.size(); ++i) {
      const double up = f(m_up[i], other.m_up[i]);
      const double dn = f(m_dn[i], other.m_dn[i]);
      if (up > 0 && dn > 0) g[i] = (std::log(up) - std::log(dn)) / (2 * kNudge);
    }
    return intervalFromLogGradient(v, g, *m_rec, m_level);
  }

 private:
  static constexpr double kNudge = 1e-4;
  static IntervalEstimate valueOnly(double v) { return {v, v, v, false}; }
  StepCurve m_base;
  std::vector<StepCurve> m_up, m_dn;  ///< per fitted constant, in the record's order
  std::optional<E2eFitRecord> m_rec;
  double m_level = 0.8;
};

/// True when the `level` interval of `ratio(a's curve, b's curve)` (a positive ratio of two
/// figures, each of its own curve) contains 1; false when either has no spread.
template <class F>
bool ratioHoldsOne(const StepCurveIntervals& a, const StepCurveIntervals& b, F ratio) {
  if (!a.hasSpread() || !b.hasSpread()) return false;
  const IntervalEstimate r = a.figureWith(b, ratio);
  return r.low <= 1 && r.high >= 1;
}

/// True when two schemes' figure `f` (a positive figure of a step curve) cannot be told apart:
/// the `level` interval of f(a)/f(b) contains 1. Both sides move under the same nudged
/// constants, so what they share (t0, the bandwidth efficiency) cancels in the ratio's
/// parameter term, and the ratio keeps the scatter of one figure (σ). Two marginal intervals
/// overlapping would be twice as wide and call most pairs ties (docs/model.md, "Ties").
/// False when either has no spread.
template <class F>
bool figuresTie(const StepCurveIntervals& a, const StepCurveIntervals& b, F f) {
  return ratioHoldsOne(a, b, [&](const StepCurve& x, const StepCurve& y) { return f(x) / f(y); });
}

/// Where two schemes' step times tie (figuresTie), around the batch where their curves cross.
struct TieRange {
  double from = 0, to = 0;  ///< batches, from ≤ crossover ≤ to
};
/// The batches around `crossover` (within [batchMin, batchMax]) at which a's and b's step times
/// tie: the difference there is inside the interval, a tie rather than an ordering. nullopt
/// when either has no spread, or the crossover lies outside [batchMin, batchMax]. Found by stepping
/// out from the crossover by 2% in batch, doubling the step while the tie holds, then bisecting
/// each edge to 0.1%.
std::optional<TieRange> crossoverTie(const StepCurveIntervals& a, const StepCurveIntervals& b,
                                     double crossover, double batchMin, double batchMax);

/// An engine report's intervals: per scheme its curves' intervals (nullopt where they could
/// not be built), per crossover the tie around it (nullopt without spread). What the step-time
/// plot shades, the crossover table and the report say, computed once per report.
struct ReportIntervals {
  std::vector<std::optional<StepCurveIntervals>> schemes;  ///< parallel to report.schemes
  std::vector<std::optional<TieRange>> ties;               ///< parallel to report.crossovers
  /// True when some scheme's intervals have a spread.
  [[nodiscard]] bool anySpread() const;
};
/// The intervals of `r` at `level`, ties looked for within [batchMin, batchMax].
ReportIntervals reportIntervals(const EngineReport& r, double batchMin, double batchMax,
                                double level = 0.8);

}  // namespace qf
