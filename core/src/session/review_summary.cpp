// The answer first: a review's recommendation per regime, frontier, failures and confidence.
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/session/review_summary.hpp>

#include <quantfront/core/base/text.hpp>
#include <quantfront/core/session/attach_runs.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace qf {

namespace {

std::string whole(double v) {
  return std::to_string(std::llround(v));
}

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

/// The step time at the smallest batch the report holds (batch 1 unless the range starts
/// higher), with that batch.
std::pair<double, double> firstStep(const SchemeReport& s) {
  if (s.points.empty()) return {0, s.memoryFloorMs};
  return {s.points.front().batch, s.points.front().stepMs};
}

/// Why the gates bar scheme `a` on the report's scenario, "" when they do not: the session's
/// candidates of the scenario's model, GPU and count in that scheme (uniform) are all gated
/// out or undecided ("candidate X fails a gate (detail)"). No such candidate, or one that
/// passes, bars nothing: the recommendation then stands on the model alone.
std::string gateBar(const SchemeAssignment& a, const Scenario& sc,
                    const std::vector<Candidate>& cands,
                    const std::map<std::string, CandidateVerdict>& verdicts) {
  std::string why;
  for (const auto& c : cands) {
    // A candidate may name its model by its Hugging Face name, and an empty scheme is bf16.
    const bool sameModel = sameIgnoringCase(c.model, sc.model.id) ||
                           (!sc.model.name.empty() && sameIgnoringCase(c.model, sc.model.name)) ||
                           sameIgnoringCase(catalogModelFromName(c.model), sc.model.id);
    const bool sameGpu = sameIgnoringCase(c.gpu, sc.gpu.id) || sameIgnoringCase(c.gpu, sc.gpu.name);
    const std::string linear =
        c.schemeLinear.empty() ? Catalog::bundled().baselineSchemeId() : c.schemeLinear;
    const bool sameScheme =
        !a.mixed() && sameIgnoringCase(linear, a.linear.id) &&
        (c.schemeMoe.empty() || sameIgnoringCase(c.schemeMoe, a.linear.id)) &&
        (c.schemeLmHead.empty() || sameIgnoringCase(c.schemeLmHead, a.linear.id));
    if (!sameModel || !sameGpu || c.gpuCount != sc.tp || !sameScheme) continue;
    const auto v = verdicts.find(c.id);
    if (v == verdicts.end()) continue;
    switch (v->second.verdict) {
      case Verdict::GatedOut:
        if (why.empty()) why = "candidate " + c.id + " fails a gate (" + v->second.detail + ")";
        break;
      case Verdict::Undecided:
        if (why.empty())
          why = "candidate " + c.id + " is undecided on a gate (" + v->second.detail + ")";
        break;
      case Verdict::NotScored:
        break;
      default:
        return "";  // a candidate of this scheme passes the gates
    }
  }
  return why;
}

}  // namespace

namespace {

/// The verdicts' lines: the frontier, then what did not pass and why.
void summarizeVerdicts(const std::vector<Candidate>& cands,
                       const std::map<std::string, CandidateVerdict>& verdicts,
                       ReviewSummary& out) {
  std::vector<std::string> front, gated, undecided;
  std::map<std::string, std::vector<std::string>> notScored;  // missing metric → ids
  for (const auto& c : cands) {
    const auto it = verdicts.find(c.id);
    if (it == verdicts.end()) continue;
    const auto& v = it->second;
    switch (v.verdict) {
      case Verdict::Frontier:
        front.push_back(c.id);
        break;
      case Verdict::GatedOut:
        gated.push_back(c.id + " (" + v.detail + ")");
        break;
      case Verdict::Undecided:
        undecided.push_back(c.id + " (" + v.detail + ")");
        break;
      case Verdict::NotScored:
        notScored[v.detail.substr(0, v.detail.find(": "))].push_back(c.id);
        break;
      default:
        break;
    }
  }
  if (cands.empty()) {
    out.frontier = "No candidates: import benchmark and eval results to compare measured figures.";
  } else if (front.empty()) {
    out.frontier = "No candidate is on the frontier (see below).";
  } else {
    out.frontier = "On the frontier (" + std::to_string(front.size()) + " of " +
                   std::to_string(cands.size()) + "): " + join(front) + ".";
  }
  for (const auto& g : gated) out.verdicts.push_back("Fails a gate: " + g);
  for (const auto& u : undecided) out.verdicts.push_back("Undecided, needs more samples: " + u);
  for (const auto& [why, who] : notScored) {
    out.verdicts.push_back("Not scored (" + why + "), " + std::to_string(who.size()) +
                           " candidate(s): " + join(who));
  }
}

/// The confidence line: the provenance of the figures the objectives read.
std::string confidenceLine(const std::vector<Candidate>& cands,
                           const std::vector<Objective>& objectives) {
  std::size_t measured = 0, modelled = 0, cited = 0;
  for (const auto& c : cands) {
    for (const auto& o : objectives) {
      const auto m = c.metrics.find(o.metric);
      if (m == c.metrics.end()) continue;
      switch (m->second.provenance.kind) {
        case ProvenanceKind::Measured:
          ++measured;
          break;
        case ProvenanceKind::Modelled:
          ++modelled;
          break;
        case ProvenanceKind::Published:
          ++cited;
          break;
      }
    }
  }
  const std::size_t all = measured + modelled + cited;
  if (all == 0) return "No objective figures yet: the recommendation above is the model's alone.";
  auto pct = [&](std::size_t n) {
    return std::to_string((200 * n + all) / (2 * all)) + "%";  // rounded half up
  };
  return "Of the " + std::to_string(all) + " figures the objectives compare, " + pct(measured) +
         " are measured, " + pct(modelled) + " modelled and " + pct(cited) +
         " cited from publications.";
}

}  // namespace

ReviewSummary summarizeReview(const EngineReport& report, const std::vector<Candidate>& cands,
                              const std::vector<Objective>& objectives,
                              const std::map<std::string, CandidateVerdict>& verdicts,
                              const ReportIntervals* intervals) {
  ReviewSummary out;
  const auto& sc = report.scenario;
  std::vector<std::string> ids, misfits, barred;
  std::vector<const SchemeReport*> fitting;
  for (const auto& s : report.schemes) {
    ids.push_back(s.assignment.id);
    if (!s.capacity.fits) {
      misfits.push_back(s.assignment.id);
    } else if (const std::string why = gateBar(s.assignment, sc, cands, verdicts); !why.empty()) {
      // The gates speak for this scheme here: the model's speed does not recommend it.
      barred.push_back(s.assignment.id + ": " + why);
    } else {
      fitting.push_back(&s);
    }
  }
  // A scheme's step-time curves with their spread (null without one).
  auto spreadOf = [&](const SchemeReport* s) -> const StepCurveIntervals* {
    if (!intervals) return nullptr;
    const auto i = static_cast<std::size_t>(s - report.schemes.data());
    if (i >= intervals->schemes.size() || !intervals->schemes[i]) return nullptr;
    return intervals->schemes[i]->hasSpread() ? &*intervals->schemes[i] : nullptr;
  };
  auto range = [](const IntervalEstimate& iv, double scale, int digits) {
    auto f = [digits](double v) { return digits > 0 ? sigFigs(v, digits) : whole(v); };
    return " (80%: " + f(iv.low * scale) + "-" + f(iv.high * scale) + ")";
  };
  out.scenario = sc.model.name + " on " + std::to_string(sc.tp) + " x " + sc.gpu.name +
                 ", schemes compared: " + join(ids);
  if (!misfits.empty()) {
    out.doesNotFit = join(misfits) + ": the weights exceed the memory budget of " +
                     std::to_string(sc.tp) + " x " + sc.gpu.name + " (not recommended)";
  }
  for (const auto& b : barred) out.regimes.push_back("Not recommended, " + b + ".");
  if (fitting.empty()) {
    out.regimes.push_back(barred.empty()
                              ? "No scheme fits: no recommendation at this GPU count."
                              : "No scheme both fits and passes the gates: no recommendation.");
  } else {
    const SchemeReport* fast = fitting.front();
    const SchemeReport* slow = fitting.front();
    const SchemeReport* most = fitting.front();
    for (const SchemeReport* s : fitting) {
      if (firstStep(*s).second < firstStep(*fast).second) fast = s;
      if (firstStep(*s).second > firstStep(*slow).second) slow = s;
      if (s->capacity.tokensPerSAtCapacity > most->capacity.tokensPerSAtCapacity) most = s;
    }
    const auto [b, fastMs] = firstStep(*fast);
    // The schemes whose interval overlaps the leader's: a tie with it, whatever the point
    // estimates say.
    auto stepAt = [&](const SchemeReport* s) { return spreadOf(s)->stepSeconds(b); };
    // The tie test is the ratio's interval (figuresTie), not two marginal intervals overlapping.
    auto capacityOf = [&](const SchemeReport* s) {
      return spreadOf(s)->tokensPerS(static_cast<double>(s->capacity.maxSeqs));
    };
    std::vector<std::string> syncTies, satTies;
    for (const SchemeReport* s : fitting) {
      if (!spreadOf(s)) continue;
      if (s != fast && spreadOf(fast) &&
          figuresTie(*spreadOf(s), *spreadOf(fast),
                     [b](const StepCurve& c) { return c.stepSeconds(b); }))
        syncTies.push_back(s->assignment.id);
      if (s != most && spreadOf(most) && s->capacity.maxSeqs > 0 && most->capacity.maxSeqs > 0 &&
          ratioHoldsOne(*spreadOf(s), *spreadOf(most), [&](const StepCurve& x, const StepCurve& y) {
            const double sx = static_cast<double>(s->capacity.maxSeqs);
            const double sy = static_cast<double>(most->capacity.maxSeqs);
            return (sx / x.stepSeconds(sx)) / (sy / y.stepSeconds(sy));
          }))
        satTies.push_back(s->assignment.id);
    }
    std::string sync = "Synchronous (one request at a time, batch " + sigFigs(b, 3) +
                       "): " + fast->assignment.id + ", " + sigFigs(fastMs, 3) +
                       " ms per decode step";
    if (spreadOf(fast)) sync += range(stepAt(fast), 1e3, 3);
    if (slow != fast) {
      sync += " against " + sigFigs(firstStep(*slow).second, 3) + " ms for " + slow->assignment.id +
              " (" + sigFigs(firstStep(*slow).second / fastMs, 2) + "x faster)";
    }
    if (!syncTies.empty()) {
      sync += "; a tie with " + join(syncTies) +
              " (the 80% interval of their ratio holds 1): no recommendation between them";
    }
    out.regimes.push_back(sync + " [modelled].");
    std::string sat = "Saturated (every KV slot busy): " + most->assignment.id + ", " +
                      whole(most->capacity.tokensPerSAtCapacity) + " tokens/s at " +
                      std::to_string(most->capacity.maxSeqs) + " sequences";
    if (spreadOf(most) && most->capacity.maxSeqs > 0) sat += range(capacityOf(most), 1, 0);
    for (const SchemeReport* s : fitting) {
      if (s == most) continue;
      sat += "; " + s->assignment.id + " " + whole(s->capacity.tokensPerSAtCapacity) + " at " +
             std::to_string(s->capacity.maxSeqs);
    }
    if (!satTies.empty()) {
      sat += "; a tie with " + join(satTies) +
             " (the 80% interval of their ratio holds 1): no recommendation between them";
    }
    out.regimes.push_back(sat + " [modelled].");
    if (fast != most) {
      const bool tied =
          std::find(syncTies.begin(), syncTies.end(), most->assignment.id) != syncTies.end() ||
          std::find(satTies.begin(), satTies.end(), fast->assignment.id) != satTies.end();
      out.regimes.push_back(
          tied ? "The two regimes' leaders differ, but within the intervals: " +
                     fast->assignment.id + " and " + most->assignment.id + " tie in at least one."
               : "The two regimes disagree: " + fast->assignment.id + " for latency at low load, " +
                     most->assignment.id + " for throughput under load.");
    }
  }

  summarizeVerdicts(cands, verdicts, out);
  out.confidence = confidenceLine(cands, objectives);
  return out;
}

}  // namespace qf
