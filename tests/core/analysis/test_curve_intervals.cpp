// Intervals on figures of a step curve, ties at crossovers, and the modelled metrics' intervals
// that the frontier and its gates then read like measured ones.
#include <catch2/catch.hpp>

#include <cmath>

#include <quantfront/core/analysis/curve_intervals.hpp>
#include <quantfront/core/analysis/frontier.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/session/session.hpp>

using namespace qf;

namespace {

Scenario scenarioOf(bool datasheet = false) {
  ScenarioSpec spec;  // Llama-3-8B on one H100 SXM: the bundled constants have a fit record
  spec.datasheet = datasheet;
  auto s = resolveScenario(spec);
  REQUIRE(s.ok());
  return *s;
}

SchemeAssignment schemeOf(const std::string& id) {
  auto c = makeCandidates({id}, "", "", "");
  REQUIRE(c.ok());
  return c->front();
}

StepCurveIntervals intervalsOf(const Scenario& s, const std::string& id) {
  auto iv = StepCurveIntervals::build(s, countParams(s.model), schemeOf(id));
  REQUIRE(iv.ok());
  return std::move(*iv);
}

}  // namespace

TEST_CASE("a step curve's intervals are intervalFor's, from curves built once",
          "[intervals][curve]") {
  const Scenario s = scenarioOf();
  const auto rec = e2eFitRecord(s.efficiency.calibrationExtra);
  REQUIRE(rec);
  REQUIRE(rec->dof > 0);
  const ParamCounts params = countParams(s.model);
  const SchemeAssignment a = schemeOf("w4a16-g128");
  const StepCurveIntervals iv = intervalsOf(s, "w4a16-g128");
  REQUIRE(iv.hasSpread());
  for (double b : {1.0, 7.0, 64.0, 300.0, 2048.0}) {
    INFO("B = " << b);
    // Independently: every nudged efficiency's curve rebuilt from scratch.
    auto rebuilt = [&](const Efficiency& e) {
      Scenario t = s;
      t.efficiency = e;
      auto c = buildStepCurve(t, params, a);
      REQUIRE(c.ok());
      return c->stepSeconds(b);
    };
    const IntervalEstimate want = intervalFor(rebuilt, s.efficiency, &*rec, 0.8, b,
                                              rec->range.inputMin, rec->range.outputMin);
    const IntervalEstimate got = iv.stepSeconds(b);
    CHECK(got.value == Approx(want.value).epsilon(1e-12));
    CHECK(got.low == Approx(want.low).epsilon(1e-9));
    CHECK(got.high == Approx(want.high).epsilon(1e-9));
    CHECK(got.extrapolated == want.extrapolated);
    CHECK(got.low < got.value);
    CHECK(got.value < got.high);
  }
  // The datasheet roofline has no fit record: the value alone, and never a tie.
  const Scenario ds = scenarioOf(true);
  const StepCurveIntervals flat = intervalsOf(ds, "w4a16-g128");
  CHECK_FALSE(flat.hasSpread());
  const IntervalEstimate one = flat.stepSeconds(64);
  CHECK(one.low == one.value);
  CHECK(one.high == one.value);
  CHECK_FALSE(figuresTie(flat, flat, [](const StepCurve& c) { return c.stepSeconds(1); }));
  CHECK_FALSE(crossoverTie(flat, flat, 100, 1, 1024));
}

TEST_CASE("a ratio keeps one figure's scatter and cancels what both schemes share",
          "[intervals][curve]") {
  const Scenario s = scenarioOf();
  const auto rec = e2eFitRecord(s.efficiency.calibrationExtra);
  REQUIRE(rec);
  const StepCurveIntervals w4 = intervalsOf(s, "w4a16-g128");
  // A figure against itself: the ratio is 1 under every nudge, so the interval is the scatter
  // of one figure alone, exp(±t·σ) (hand-computed from the record).
  const IntervalEstimate self = w4.figureWith(w4, [](const StepCurve& x, const StepCurve& y) {
    return x.stepSeconds(8) / y.stepSeconds(8);
  });
  const double half = studentTQuantile(0.8, rec->dof) * rec->sigmaLog;
  CHECK(self.value == Approx(1.0));
  CHECK(self.low == Approx(std::exp(-half)).epsilon(1e-9));
  CHECK(self.high == Approx(std::exp(half)).epsilon(1e-9));
  // The ratio's interval is narrower than the two marginal intervals' overlap test: at the
  // crossover both marginal intervals overlap by construction, and far from it a ratio well
  // outside exp(±t·σ) is an ordering, not a tie.
  const StepCurveIntervals bf = intervalsOf(s, "bf16");
  const double b = 1.0;
  const double r = w4.curve().stepSeconds(b) / bf.curve().stepSeconds(b);
  const bool tie = figuresTie(w4, bf, [b](const StepCurve& c) { return c.stepSeconds(b); });
  const IntervalEstimate ratio = w4.figureWith(bf, [b](const StepCurve& x, const StepCurve& y) {
    return x.stepSeconds(b) / y.stepSeconds(b);
  });
  CHECK(ratio.value == Approx(r));
  CHECK(tie == (ratio.low <= 1 && ratio.high >= 1));
  CHECK(ratio.high / ratio.low >= self.high / self.low * (1 - 1e-9));
}

TEST_CASE("a crossover's tie is where the ratio's interval holds 1, and only there",
          "[intervals][curve]") {
  const Scenario s = scenarioOf();
  const ParamCounts params = countParams(s.model);
  const StepCurveIntervals w4 = intervalsOf(s, "w4a16-g128");
  const StepCurveIntervals bf = intervalsOf(s, "bf16");
  const auto xs = findCrossings(w4.curve(), bf.curve());
  REQUIRE(xs.size() == 1);
  const double x = xs.front().batch;
  const auto tie = crossoverTie(w4, bf, x, 1, 4096);
  REQUIRE(tie);
  CHECK(tie->from <= x);
  CHECK(x <= tie->to);
  auto ties = [&](double b) {
    return figuresTie(w4, bf, [b](const StepCurve& c) { return c.stepSeconds(b); });
  };
  CHECK(ties(x));
  CHECK(ties(tie->from));
  CHECK(ties(tie->to));
  // Edges bisected to 0.1%: 1% beyond an edge that is not a bound is no longer a tie.
  if (tie->from > 1) CHECK_FALSE(ties(tie->from / 1.01));
  if (tie->to < 4096) CHECK_FALSE(ties(tie->to * 1.01));
  // A tie spans a range, not a point: the crossover is never a sharp ordering.
  CHECK(tie->to > tie->from);
  // A crossover outside the range has no tie inside it (clamped, it made a tie of an end).
  CHECK_FALSE(crossoverTie(w4, bf, x, 1, x * 0.5));
  CHECK_FALSE(crossoverTie(w4, bf, x, x * 2, 4096));
  // Narrower bounds clip it.
  const auto clipped = crossoverTie(w4, bf, x, x, x * 1.001);
  REQUIRE(clipped);
  CHECK(clipped->from == Approx(x));
  CHECK(clipped->to <= x * 1.001 * (1 + 1e-12));
  (void)params;
}

TEST_CASE("modelled metrics carry the constants' 80% interval, and gates read it",
          "[intervals][session]") {
  ScenarioSpec scenario;
  Candidate c;
  c.id = "8b-w4";
  c.model = "llama-3.1-8b";
  c.schemeLinear = "w4a16-g128";
  c.gpu = "h100-sxm";
  auto m = modelledMetrics(c, scenario);
  REQUIRE(m.ok());
  for (const char* name :
       {"step_ms_b1", "step_ms_b64", "memory_floor_ms", "tokens_per_s_at_capacity",
        "latency_code_completion_sync_s", "queries_per_usd_code_completion"}) {
    INFO(name);
    const MetricValue& v = m->at(name);
    REQUIRE(v.lo);
    REQUIRE(v.hi);
    CHECK(*v.lo < v.value);
    CHECK(v.value < *v.hi);
    CHECK(v.provenance.note.find("80% interval") != std::string::npos);
  }
  // Queries per USD move against latency: its low end is the latency's high end's.
  const MetricValue& lat = m->at("latency_code_completion_sync_s");
  const MetricValue& q = m->at("queries_per_usd_code_completion");
  CHECK(q.value * lat.value == Approx(*q.lo * *lat.hi).epsilon(1e-6));
  // The saving against bf16 has an interval around its value.
  const MetricValue& pct = m->at("cost_reduction_pct_code_completion");
  REQUIRE(pct.lo);
  CHECK(*pct.lo < pct.value);
  CHECK(pct.value < *pct.hi);
  // Memory arithmetic is exact given the config: no interval.
  CHECK_FALSE(m->at("weights_gib").lo);
  CHECK_FALSE(m->at("max_concurrency").lo);

  // A gate whose threshold lies inside the modelled interval is undecided, as for a measured
  // figure; one beyond the whole interval decides.
  const MetricValue& step = m->at("step_ms_b1");
  Candidate k = c;
  k.metrics = *m;
  FrontierOptions opts;
  opts.objectives = {{"step_ms_b1", Direction::Min}};
  auto gate = [&](double threshold) {
    opts.gates = {*parseGate("step_ms_b1<=" + std::to_string(threshold))};
    auto r = computeFrontier({k}, opts);
    REQUIRE(r.ok());
    return r->frontier.size() == 1 ? "pass" : !r->undecided.empty() ? "undecided" : "fail";
  };
  CHECK(std::string(gate(step.value)) == "undecided");
  CHECK(std::string(gate(*step.hi * 1.01)) == "pass");
  CHECK(std::string(gate(*step.lo * 0.99)) == "fail");

  // Under the datasheet roofline nothing has an interval.
  scenario.datasheet = true;
  auto flat = modelledMetrics(c, scenario);
  REQUIRE(flat.ok());
  for (const auto& [name, v] : *flat) {
    INFO(name);
    CHECK_FALSE(v.lo);
    CHECK_FALSE(v.hi);
  }
}
