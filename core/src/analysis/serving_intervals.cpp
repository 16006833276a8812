// Intervals of the serving model's figures (serving_intervals.hpp).
#include <quantfront/core/analysis/serving_intervals.hpp>

#include <cmath>

namespace qf {

IntervalEstimate servingInterval(const ServingQuery& q, E2eMetric metric, double level,
                                 const E2eFitRecord* record) {
  PreparedPoint pp;
  pp.scenario = q.scenario;
  pp.candidate = q.candidate;
  pp.speculation = q.speculation;
  MeasuredPoint& p = pp.point;
  p.model = q.scenario.model.id;
  p.gpu = q.scenario.gpu.id;
  p.tp = q.scenario.tp;
  p.batch = 0;
  p.inputLen = q.inputLen;
  p.outputLen = q.outputLen;
  p.maxBatch = q.maxBatch;
  p.tokenBudget = q.tokenBudget;
  p.load = q.load;
  p.loadValue = q.loadValue;
  p.metric = metric;
  const Efficiency& eff = q.scenario.efficiency;
  std::optional<E2eFitRecord> own;
  if (!record) {
    own = e2eFitRecord(eff.calibrationExtra);
    if (own) record = &*own;
  }
  auto predict = [&pp](const Efficiency& e) { return predictServingPoint(pp, e); };
  IntervalEstimate out = intervalFor(predict, eff, record, level, 0.0, q.inputLen, q.outputLen);
  // Below saturation a server delivers the offered load whatever the constants: that
  // throughput is known, not modelled, and carries no interval.
  if ((metric == E2eMetric::OutputTokS || metric == E2eMetric::TotalTokS) &&
      q.load == PointLoad::Rate) {
    const double offered =
        q.loadValue * (metric == E2eMetric::OutputTokS ? q.outputLen : q.inputLen + q.outputLen);
    if (std::abs(out.value - offered) <= 1e-9 * offered) out.low = out.high = out.value;
  }
  if (!std::isfinite(out.low) || !std::isfinite(out.high)) out.low = out.high = out.value;
  return out;
}

std::optional<IntervalEstimate> servingIntervalAround(const ServingQuery& q, E2eMetric metric,
                                                      double value, double level,
                                                      const E2eFitRecord* record) {
  const IntervalEstimate iv = servingInterval(q, metric, level, record);
  if (!(iv.value > 0) || !std::isfinite(iv.value) || !std::isfinite(value)) return std::nullopt;
  return IntervalEstimate{value, iv.low / iv.value * value, iv.high / iv.value * value,
                          iv.extrapolated};
}

}  // namespace qf
