// The frontier over candidates: gates applied, objectives oriented, points classified, and
// the result as JSON.
#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/frontier.hpp>
#include <quantfront/core/analysis/metric_dictionary.hpp>
#include <quantfront/core/base/numbers.hpp>

#include <cmath>
#include <set>
#include <string_view>
#include <unordered_set>

#include "frontier_text.hpp"

namespace qf {

using namespace frontier_text;

namespace {

std::optional<Error> duplicateId(const std::vector<const Candidate*>& candidates) {
  std::unordered_set<std::string_view> ids;
  ids.reserve(candidates.size());
  for (const Candidate* c : candidates) {
    if (!ids.insert(c->id).second) {
      return Error{"", "", "id", "candidate id '" + c->id + "' appears twice"};
    }
  }
  return std::nullopt;
}

/// The baseline named in `opts` (looked up in the candidates, then in the baseline pool);
/// nullptr when none is named.
Result<const Candidate*> findBaseline(const std::vector<const Candidate*>& candidates,
                                      const FrontierOptions& opts) {
  const Candidate* baseline = nullptr;
  if (!opts.baselineId) return baseline;
  for (const Candidate* c : candidates) {
    if (c->id == *opts.baselineId) baseline = c;
  }
  if (!baseline && opts.baselinePool) {
    for (const auto& c : *opts.baselinePool) {
      if (c.id == *opts.baselineId) baseline = &c;
    }
  }
  if (!baseline) {
    return Error{"", "", "baseline", "no candidate has id '" + *opts.baselineId + "'"};
  }
  return baseline;
}

/// Each gate's threshold, baseline-relative ones resolved, and how reasons quote it.
struct Thresholds {
  std::vector<double> values;
  std::vector<std::string> notes;
};

Result<Thresholds> resolveThresholds(const FrontierOptions& opts, const Candidate* baseline) {
  Thresholds t;
  for (const auto& g : opts.gates) {
    if (!g.relativeToBaseline) {
      t.values.push_back(g.threshold);
      t.notes.push_back(sigFigs(g.threshold, 6));
      continue;
    }
    if (!baseline) {
      return Error{
          "", "", "baseline",
          "gate '" + g.text + "' is relative to the baseline; name the baseline ({--baseline})"};
    }
    const auto it = baseline->metrics.find(g.metric);
    if (it == baseline->metrics.end() || !std::isfinite(it->second.value)) {
      return Error{"", "candidate '" + baseline->id + "'", g.metric,
                   "the baseline has no value for the gated metric in '" + g.text + "'"};
    }
    t.values.push_back(it->second.value + g.threshold);
    t.notes.push_back(sigFigs(it->second.value + g.threshold, 6) + " (baseline " +
                      sigFigs(it->second.value, 6) + (g.threshold < 0 ? " - " : " + ") +
                      sigFigs(std::abs(g.threshold), 6) + ")");
  }
  return t;
}

const MetricValue* finiteMetric(const Candidate& c, const std::string& name) {
  const auto it = c.metrics.find(name);
  if (it == c.metrics.end() || !std::isfinite(it->second.value)) return nullptr;
  return &it->second;
}

/// Applies the gates to `c`: false when it is gated out or not scored (recorded in `r`);
/// `undecided` gets the first gate its interval crosses.
bool passesGates(const Candidate& c, const FrontierOptions& opts, const Thresholds& t,
                 FrontierResult& r, std::optional<GatedOutCandidate>& undecided) {
  for (std::size_t gi = 0; gi < opts.gates.size(); ++gi) {
    const Gate& g = opts.gates[gi];
    const MetricValue* mv = finiteMetric(c, g.metric);
    if (!mv) {
      r.notScored.push_back({c.id, "missing metric " + g.metric,
                             "no finite value for " + g.metric + ", needed by gate " + g.text});
      return false;
    }
    const GateOutcome outcome = gateOutcome(g.op, mv->value, mv->lo, mv->hi, t.values[gi]);
    if (outcome == GateOutcome::Fail) {
      std::string interval;
      if (mv->lo && mv->hi) {
        interval = " [" + sigFigs(*mv->lo, 6) + ", " + sigFigs(*mv->hi, 6) + "]";
      }
      r.gatedOut.push_back({c.id, g.text,
                            g.metric + " " + sigFigs(mv->value, 6) + interval + " fails " +
                                gateOpText(g.op) + " " + t.notes[gi]});
      return false;
    }
    if (outcome == GateOutcome::Undecided && !undecided) {
      undecided =
          GatedOutCandidate{c.id, g.text,
                            g.metric + " " + sigFigs(mv->value, 6) + " [" + sigFigs(*mv->lo, 6) +
                                ", " + sigFigs(*mv->hi, 6) + "] crosses " + gateOpText(g.op) + " " +
                                t.notes[gi] + ": the interval cannot decide"};
    }
  }
  return true;
}

/// `c`'s objectives oriented (larger is better) into v, lo, hi; false when one is missing
/// (recorded in `r` as not scored).
bool orientObjectives(const Candidate& c, const FrontierOptions& opts, std::vector<double>& v,
                      std::vector<double>& lo, std::vector<double>& hi, FrontierResult& r) {
  for (std::size_t k = 0; k < opts.objectives.size(); ++k) {
    const Objective& o = opts.objectives[k];
    const MetricValue* mv = finiteMetric(c, o.metric);
    if (!mv) {
      r.notScored.push_back(
          {c.id, "missing metric " + o.metric, "no finite value for objective " + o.metric});
      return false;
    }
    const double val = mv->value;
    double l = mv->lo && std::isfinite(*mv->lo) ? *mv->lo : val;
    double h = mv->hi && std::isfinite(*mv->hi) ? *mv->hi : val;
    if (o.direction == Direction::Max) {
      v[k] = val;
      lo[k] = l;
      hi[k] = h;
    } else {
      // Oriented: larger is better; the pessimistic end of a min metric is its upper bound.
      v[k] = -val;
      lo[k] = -h;
      hi[k] = -l;
    }
  }
  return true;
}

/// The candidates that pass every gate and carry every objective, oriented, in input order;
/// the others are recorded in `r` (gated out, undecided, not scored).
PassingPoints collectPassing(const std::vector<const Candidate*>& candidates,
                             const FrontierOptions& opts, const Thresholds& thresholds,
                             FrontierResult& r) {
  const std::size_t dims = opts.objectives.size();
  PassingPoints p;
  p.points.dims = dims;
  std::vector<double> v(dims), lo(dims), hi(dims);
  for (const Candidate* c : candidates) {
    std::optional<GatedOutCandidate> undecided;  // the first gate the interval crosses
    if (!passesGates(*c, opts, thresholds, r, undecided)) continue;
    if (!orientObjectives(*c, opts, v, lo, hi, r)) continue;
    if (undecided) {
      r.undecided.push_back(std::move(*undecided));
      continue;
    }
    p.points.add(v, lo, hi);
    p.candidates.push_back(c);
  }
  return p;
}

/// Passing point i's clear (or, not `clear`, point) dominators, at most `maxListed` (0: all).
DominatedCandidate dominatorsOf(const OrientedPoints& pts,
                                const std::vector<const Candidate*>& passing, std::size_t i,
                                bool clear, std::size_t maxListed) {
  DominatedCandidate d{passing.at(i)->id, {}, false};
  // One more than listed tells whether the list is cut.
  const std::size_t limit = maxListed == 0 ? 0 : maxListed + 1;
  auto by = clear ? clearDominatorsOf(pts, i, limit) : pointDominatorsOf(pts, i, limit);
  d.byTruncated = maxListed > 0 && by.size() > maxListed;
  if (d.byTruncated) by.resize(maxListed);
  for (std::size_t a : by) d.by.push_back(passing[a]->id);
  return d;
}

/// Sorts the candidates that passed (their points `pts`) into frontier, uncertain and
/// dominated, with their dominators when asked.
void classifyPassing(const OrientedPoints& pts, const std::vector<const Candidate*>& passing,
                     const FrontierOptions& opts, FrontierResult& r) {
  const auto classes = classifyPoints(pts);
  for (std::size_t i = 0; i < passing.size(); ++i) {
    const std::string& id = passing[i]->id;
    switch (classes[i]) {
      case PointClass::Frontier:
        r.frontier.push_back(id);
        break;
      case PointClass::Uncertain: {
        r.uncertain.push_back(id);
        if (opts.withDominators) {
          r.uncertainPointDominators.push_back(
              dominatorsOf(pts, passing, i, false, opts.maxDominatorsListed));
        }
        break;
      }
      case PointClass::Dominated: {
        r.dominated.push_back(opts.withDominators
                                  ? dominatorsOf(pts, passing, i, true, opts.maxDominatorsListed)
                                  : DominatedCandidate{id, {}, false});
        break;
      }
    }
  }
}

}  // namespace

Result<FrontierResult> computeFrontier(const std::vector<Candidate>& candidates,
                                       const FrontierOptions& opts) {
  std::vector<const Candidate*> all;
  all.reserve(candidates.size());
  for (const auto& c : candidates) all.push_back(&c);
  return computeFrontierOf(all, opts);
}

Result<FrontierResult> computeFrontierOf(const std::vector<const Candidate*>& candidates,
                                         const FrontierOptions& opts) {
  if (opts.objectives.empty()) {
    return Error{"", "", "objectives", "at least one objective is needed"};
  }
  if (auto e = duplicateId(candidates)) return *e;
  const auto baseline = findBaseline(candidates, opts);
  if (!baseline) return baseline.error();
  // Resolve baseline-relative thresholds once.
  const auto thresholds = resolveThresholds(opts, *baseline);
  if (!thresholds) return thresholds.error();

  FrontierResult r;
  r.objectives = opts.objectives;
  PassingPoints p = collectPassing(candidates, opts, *thresholds, r);
  classifyPassing(p.points, p.candidates, opts, r);
  return r;
}

Result<PassingPoints> passingPoints(const std::vector<const Candidate*>& candidates,
                                    const FrontierOptions& opts) {
  if (opts.objectives.empty()) {
    return Error{"", "", "objectives", "at least one objective is needed"};
  }
  const auto baseline = findBaseline({}, opts);
  if (!baseline) return baseline.error();
  const auto thresholds = resolveThresholds(opts, *baseline);
  if (!thresholds) return thresholds.error();
  FrontierResult scratch;
  return collectPassing(candidates, opts, *thresholds, scratch);
}

DominatedCandidate listDominators(const PassingPoints& p, std::size_t i, bool clear,
                                  std::size_t maxListed) {
  return dominatorsOf(p.points, p.candidates, i, clear, maxListed);
}

Json frontierToJson(const FrontierResult& r) {
  Json j;
  j["frontier"] = r.frontier;
  j["uncertain"] = r.uncertain;
  j["dominated"] = Json::array();
  for (const auto& d : r.dominated) {
    j["dominated"].push_back({{"id", d.id}, {"by", d.by}, {"by_truncated", d.byTruncated}});
  }
  const std::pair<const char*, const std::vector<GatedOutCandidate>*> lists[] = {
      {"gated_out", &r.gatedOut}, {"undecided", &r.undecided}, {"not_scored", &r.notScored}};
  for (const auto& [key, list] : lists) {
    j[key] = Json::array();
    for (const auto& g : *list) {
      j[key].push_back({{"id", g.id}, {"gate", g.gate}, {"reason", g.reason}});
    }
  }
  j["objectives"] = Json::array();
  for (const auto& o : r.objectives) {
    const auto info = lookupMetric(o.metric);
    j["objectives"].push_back({{"metric", o.metric},
                               {"direction", directionName(o.direction)},
                               {"readable", readableMetricName(o.metric)},
                               {"unit", info ? Json(info->unit) : Json(nullptr)},
                               {"description", info ? Json(info->description) : Json(nullptr)}});
  }
  j["uncertain_point_dominators"] = Json::array();
  for (const auto& d : r.uncertainPointDominators) {
    j["uncertain_point_dominators"].push_back(
        {{"id", d.id}, {"by", d.by}, {"by_truncated", d.byTruncated}});
  }
  return j;
}

}  // namespace qf
