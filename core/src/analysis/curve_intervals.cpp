// Intervals on figures of one scheme's step curve, from curves built once per nudged constant.
#include <quantfront/core/analysis/curve_intervals.hpp>

#include <algorithm>

namespace qf {

Result<StepCurveIntervals> StepCurveIntervals::build(const Scenario& s, const ParamCounts& params,
                                                     const SchemeAssignment& a, double level) {
  StepCurveIntervals out;
  out.m_level = level;
  auto base = buildStepCurve(s, params, a);
  if (!base) return base.error();
  out.m_base = std::move(*base);
  auto rec = e2eFitRecord(s.efficiency.calibrationExtra);
  if (!rec || rec->dof <= 0) return out;
  Scenario t = s;
  for (const std::string& name : rec->names) {
    for (double sign : {1.0, -1.0}) {
      t.efficiency = perturbed(s.efficiency, name, sign * kNudge);
      auto c = buildStepCurve(t, params, a);
      // A nudge the curve cannot take (it never fails where the base did not): no spread.
      if (!c) return out;
      (sign > 0 ? out.m_up : out.m_dn).push_back(std::move(*c));
    }
  }
  out.m_rec = std::move(rec);
  return out;
}

IntervalEstimate StepCurveIntervals::stepSeconds(double batch) const {
  IntervalEstimate iv = figure([batch](const StepCurve& c) { return c.stepSeconds(batch); });
  // Lengths inside the fit's range: only the batch can leave it here.
  if (m_rec) iv.extrapolated = outsideFit(batch, m_rec->range.inputMin, m_rec->range.outputMin);
  return iv;
}

std::optional<TieRange> crossoverTie(const StepCurveIntervals& a, const StepCurveIntervals& b,
                                     double crossover, double batchMin, double batchMax) {
  if (!a.hasSpread() || !b.hasSpread() || !(batchMin > 0) || !(batchMax >= batchMin))
    return std::nullopt;
  // A crossover outside the range has no tie inside it (clamping it to an end made a tie of
  // an end where the two were apart).
  if (!(crossover >= batchMin && crossover <= batchMax)) return std::nullopt;
  const double x0 = crossover;
  auto tie = [&](double batch) {
    return figuresTie(a, b, [batch](const StepCurve& c) { return c.stepSeconds(batch); });
  };
  // Step out from the crossover by 2%, doubling the step (in log batch) while the intervals
  // still overlap, then bisect the edge to 0.1%. The tie is one range around the crossover
  // (the ratio's interval holds 1 from the crossover outward until it no longer does), so a
  // longer step finds the same edge in a few evaluations: the window recomputes this on
  // every scenario edit, for every crossover.
  auto edge = [&](double factor, double bound) {
    double in = x0;
    double step = std::log(factor);
    for (;;) {
      const double stepped = in * std::exp(step);
      const double next = factor > 1 ? std::min(stepped, bound) : std::max(stepped, bound);
      if (next == in) return in;
      if (!tie(next)) {
        double out = next;
        while (std::abs(std::log(out / in)) > 1e-3) {
          const double mid = std::sqrt(in * out);
          (tie(mid) ? in : out) = mid;
        }
        return in;
      }
      in = next;
      step *= 2;
    }
  };
  if (!tie(x0)) return std::nullopt;
  return TieRange{edge(1 / 1.02, batchMin), edge(1.02, batchMax)};
}

bool ReportIntervals::anySpread() const {
  return std::any_of(schemes.begin(), schemes.end(),
                     [](const auto& s) { return s && s->hasSpread(); });
}

ReportIntervals reportIntervals(const EngineReport& r, double batchMin, double batchMax,
                                double level) {
  ReportIntervals out;
  out.schemes.reserve(r.schemes.size());
  for (const auto& s : r.schemes) {
    auto iv = StepCurveIntervals::build(r.scenario, r.params, s.assignment, level);
    if (iv) {
      out.schemes.emplace_back(std::move(*iv));
    } else {
      out.schemes.emplace_back(std::nullopt);
    }
  }
  auto find = [&](const std::string& id) -> const StepCurveIntervals* {
    for (std::size_t i = 0; i < r.schemes.size(); ++i) {
      if (r.schemes[i].assignment.id == id && out.schemes[i]) return &*out.schemes[i];
    }
    return nullptr;
  };
  for (const auto& c : r.crossovers) {
    const StepCurveIntervals* a = find(c.schemes[0]);
    const StepCurveIntervals* b = find(c.schemes[1]);
    out.ties.push_back(a && b ? crossoverTie(*a, *b, c.batch, batchMin, batchMax) : std::nullopt);
  }
  return out;
}

}  // namespace qf
