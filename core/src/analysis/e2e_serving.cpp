// Serving rows of the measured-points CSV: what the model predicts of a server under a load
// (docs/model.md, "Calibration from serving sweeps").
#include <quantfront/core/analysis/e2e_calibration.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <quantfront/core/model/serving_model.hpp>

namespace qf {

namespace {

/// Requests a simulation of a tail metric runs: 20 × the batch cap, at least 2,000 and at
/// most 20,000 (what `qfront serving` runs by default, bounded for a fit's many evaluations).
int tailRequests(int maxBatch) {
  return std::clamp(20 * maxBatch, 2000, 20000);
}

double fromSimulation(const StepTimeModel& steps, const ServingLimits& lim,
                      const MeasuredPoint& p) {
  SimOptions o;
  o.seed = 1;
  o.requests = tailRequests(p.maxBatch);
  o.input.mean = p.inputLen;
  o.output.mean = p.outputLen;
  if (p.load == PointLoad::Concurrency) {
    o.closedLoopConcurrency = static_cast<int>(p.loadValue);
  } else {
    o.requestsPerS =
        p.load == PointLoad::Max ? std::numeric_limits<double>::infinity() : p.loadValue;
  }
  const auto r = simulateServing(steps, lim, o);
  if (!r) return std::nan("");
  switch (p.metric) {
    case E2eMetric::TtftP99Ms:
      return r->ttftP99S * 1e3;
    case E2eMetric::TpotP99Ms:
      return r->tpotP99S * 1e3;
    case E2eMetric::ItlP50Ms:
      return r->itlP50S * 1e3;
    case E2eMetric::ItlP99Ms:
      return r->itlP99S * 1e3;
    default:
      return std::nan("");
  }
}

}  // namespace

Result<EngineServing> speculativeEngineServing(const EngineServing& target, const Scenario& s,
                                               const PointSpeculation& spec,
                                               const Efficiency& eff) {
  SpeculativeDraft draft;
  if (spec.draftScenario) {
    Scenario ds = *spec.draftScenario;
    ds.efficiency = eff;
    auto de = engineServing(ds, spec.draftCandidate);
    if (!de) return de.error();
    draft = modelDraft(*de, ds.model.id, s.tp);
  } else {
    draft = mtpDraft(target, static_cast<int>(s.model.layers), s.tp);
  }
  return speculativeServing(target, draft, spec.speculation);
}

double predictServingPoint(const PreparedPoint& pp, const Efficiency& eff) {
  Scenario s = pp.scenario;
  s.efficiency = eff;
  auto es = engineServing(s, pp.candidate);
  if (es && pp.speculation) es = speculativeEngineServing(*es, s, *pp.speculation, eff);
  if (!es || !(es->kvCapacityTokens > 0)) return std::nan("");
  const MeasuredPoint& p = pp.point;
  const ServingLimits lim{p.maxBatch, p.tokenBudget, es->kvCapacityTokens};
  const ServingWorkload w{p.inputLen, p.outputLen};
  if (validateServing(lim, w)) return std::nan("");
  if (p.inputLen + p.outputLen > es->kvCapacityTokens) return std::nan("");
  if (isTailMetric(p.metric)) return fromSimulation(es->steps, lim, p);
  const SteadyState sat = saturatedState(es->steps, lim, w);
  if (!(sat.requestsPerS > 0)) return std::nan("");
  SteadyState st = sat;
  double queueS = 0;  // a closed loop's clients beyond what the server runs wait their turn
  switch (p.load) {
    case PointLoad::Static:
    case PointLoad::Max:
      break;
    case PointLoad::Concurrency:
      if (p.loadValue < sat.concurrency) {
        st = stateAtConcurrency(es->steps, lim, w, p.loadValue);
      } else {
        queueS = (p.loadValue - sat.concurrency) / sat.requestsPerS;
      }
      break;
    case PointLoad::Rate: {
      // A rate the model cannot sustain is priced at 99% of what it can (its queue would grow
      // without bound): the prediction stays finite and continuous for the fit, and the
      // throughput is the saturated one.
      const double rate = std::min(p.loadValue, 0.99 * sat.requestsPerS);
      st = stateAtRate(es->steps, lim, w, rate);
      if (rate < p.loadValue) {
        st.requestsPerS = sat.requestsPerS;
        st.outputTokPerS = sat.outputTokPerS;
      }
      break;
    }
  }
  const double ttftS = st.ttftS + queueS;
  switch (p.metric) {
    case E2eMetric::TtftMs:
    case E2eMetric::TtftP50Ms:
      return ttftS * 1e3;
    case E2eMetric::TpotMs:
    case E2eMetric::TpotP50Ms:
      return st.tpotS * 1e3;
    case E2eMetric::E2eLatencyS:
      return ttftS + (p.outputLen - 1.0) * st.tpotS;
    case E2eMetric::OutputTokS:
      return st.requestsPerS * p.outputLen;
    case E2eMetric::TotalTokS:
      return st.requestsPerS * (p.inputLen + p.outputLen);
    default:
      return std::nan("");
  }
}

}  // namespace qf
