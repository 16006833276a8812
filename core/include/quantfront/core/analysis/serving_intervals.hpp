#pragma once
/// Intervals of the serving model's figures (throughput, TTFT, TPOT at a load) from the
/// calibration's fit record, as every end-to-end prediction has (docs/model.md, Intervals).
#include <string>

#include <quantfront/core/analysis/e2e_calibration.hpp>

namespace qf {

/// One analytic serving figure of `scenario` running `cand` at a load, with its interval.
struct ServingQuery {
  Scenario scenario;  ///< its efficiency is the one whose record gives the interval
  SchemeAssignment candidate;
  double inputLen = 0, outputLen = 0;
  int maxBatch = 256;
  double tokenBudget = 8192;
  PointLoad load = PointLoad::Max;
  double loadValue = 0;  ///< req/s, or clients in a closed loop
  /// The server speculates: the draft's constants move with the target's.
  std::optional<PointSpeculation> speculation;
};

/// The `level` interval of `metric` (output_tok_s, ttft_ms, tpot_ms, e2e_latency_s or their
/// p50 spellings) from the scenario efficiency's e2e_fit record: the gradient of the
/// prediction in the fit's log-constants against their covariance, plus the residual scale.
/// Without a record (the datasheet roofline, a fit without degrees of freedom) the interval
/// is the value alone; so is a throughput at a rate the deployment sustains (it is the
/// offered load, whatever the constants). A value of NaN: the deployment cannot serve the load.
IntervalEstimate servingInterval(const ServingQuery& q, E2eMetric metric, double level = 0.8,
                                 const E2eFitRecord* record = nullptr);

/// The same interval around `value`, a figure the caller already has of the same steady state
/// (a rate its own state prices at saturation, say): the interval's relative bounds applied to
/// it. Nullopt when the model cannot predict the point.
std::optional<IntervalEstimate> servingIntervalAround(const ServingQuery& q, E2eMetric metric,
                                                      double value, double level = 0.8,
                                                      const E2eFitRecord* record = nullptr);

}  // namespace qf
