// The frontier as front ends ask for it: objectives, gates, warnings, verdicts.
#include <quantfront/core/analysis/frontier_analysis.hpp>
#include <quantfront/core/analysis/metric_dictionary.hpp>
#include <quantfront/core/base/text.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_set>

namespace qf {

namespace {
std::string joinIds(const std::vector<std::string>& ids) {
  std::string s;
  for (const auto& id : ids) s += (s.empty() ? "" : ", ") + id;
  return s;
}

/// An uncertain candidate's verdict detail, from its dominators on point estimates.
std::string uncertainDetail(const DominatedCandidate& d) {
  return "point-dominated by " + joinIds(d.by) + ", not clearly";
}

/// A dominated candidate's verdict detail, from its clear dominators ("" when not listed).
std::string dominatedDetail(const DominatedCandidate& d) {
  return d.by.empty() ? std::string() : "by " + joinIds(d.by);
}

}  // namespace

std::vector<std::string> metricNamesOf(const std::vector<Candidate>& candidates) {
  std::vector<std::string> names;
  std::unordered_set<std::string> seen;
  for (const auto& c : candidates) {
    for (const auto& [name, value] : c.metrics) {
      if (seen.insert(name).second) names.push_back(name);
    }
  }
  return names;
}

ObjectiveChoice defaultObjectives(const std::vector<std::string>& metricNames) {
  ObjectiveChoice out;
  for (const auto& name : metricNames) {
    if (const auto d = knownDirection(name)) {
      out.objectives.push_back({name, *d});
    } else {
      out.warnings.push_back("metric '" + name +
                             "' has no known direction and is not an objective; name it in "
                             "{--objectives} as " +
                             name + ":max or " + name + ":min");
    }
  }
  return out;
}

std::vector<std::string> provenanceWarnings(const std::vector<Candidate>& candidates,
                                            const std::vector<Objective>& objectives) {
  std::vector<std::string> warnings;
  for (const auto& o : objectives) {
    std::set<ProvenanceKind> kinds;
    for (const auto& c : candidates) {
      if (const auto it = c.metrics.find(o.metric); it != c.metrics.end()) {
        kinds.insert(it->second.provenance.kind);
      }
    }
    if (kinds.size() > 1) {
      std::string names;
      for (auto k : kinds) names += (names.empty() ? "" : ", ") + std::string(provenanceName(k));
      warnings.push_back("objective '" + o.metric + "' mixes provenance kinds (" + names +
                         ") across candidates");
    }
  }
  return warnings;
}

Result<std::vector<Gate>> parseGateTexts(const std::vector<std::string>& texts,
                                         const std::string& source, const std::string& position) {
  std::vector<Gate> gates;
  for (const auto& text : texts) {
    for (const auto& raw : splitAt(text, ',')) {
      const std::string piece = trimmed(raw);
      if (piece.empty()) continue;
      auto g = parseGate(piece, position.empty() ? "gate" : "gates");
      if (!g) {
        Error e = g.error();
        if (!source.empty()) e.file = source;
        if (!position.empty()) e.position = position;
        return e;
      }
      gates.push_back(std::move(*g));
    }
  }
  return gates;
}

const char* verdictName(Verdict v) {
  switch (v) {
    case Verdict::Frontier:
      return "frontier";
    case Verdict::Uncertain:
      return "uncertain";
    case Verdict::Dominated:
      return "dominated";
    case Verdict::GatedOut:
      return "gated out";
    case Verdict::Undecided:
      return "undecided";
    case Verdict::NotScored:
      return "not scored";
  }
  return "";
}

std::map<std::string, CandidateVerdict> candidateVerdicts(const FrontierResult& r) {
  std::map<std::string, CandidateVerdict> out;
  for (const auto& id : r.frontier) out[id] = {Verdict::Frontier, ""};
  for (const auto& id : r.uncertain)
    out[id] = {Verdict::Uncertain, "within the uncertainty of others"};
  for (const auto& d : r.uncertainPointDominators) out[d.id].detail = uncertainDetail(d);
  for (const auto& d : r.dominated) out[d.id] = {Verdict::Dominated, dominatedDetail(d)};
  for (const auto& g : r.gatedOut) out[g.id] = {Verdict::GatedOut, g.gate + ": " + g.reason};
  for (const auto& g : r.undecided) out[g.id] = {Verdict::Undecided, g.gate + ": " + g.reason};
  for (const auto& g : r.notScored) out[g.id] = {Verdict::NotScored, g.gate + ": " + g.reason};
  return out;
}

std::optional<Error> gateProblem(const Gate& gate, const std::vector<Candidate>& candidates,
                                 const std::optional<std::string>& baselineId) {
  const bool carried = std::any_of(candidates.begin(), candidates.end(), [&](const Candidate& c) {
    return c.metrics.count(gate.metric) > 0;
  });
  if (!carried && !lookupMetric(gate.metric)) {
    return Error{"", "", "gate",
                 "gate '" + gate.text + "' names metric '" + gate.metric +
                     "', which no candidate carries and the metric dictionary does not know"};
  }
  if (!gate.relativeToBaseline) return std::nullopt;
  // computeFrontier resolves the threshold against the baseline before it looks at any
  // candidate: over none, it reports exactly what the gate lacks.
  FrontierOptions opts;
  opts.objectives = {{gate.metric, Direction::Max}};
  opts.gates = {gate};
  opts.baselineId = baselineId;
  opts.baselinePool = &candidates;
  auto r = computeFrontier({}, opts);
  if (!r) return r.error();
  return std::nullopt;
}

namespace {

/// A relative objective compares candidates against their own model's baseline: within one
/// group (`members` of each of `models`) it must not span several models; a warning where it
/// does.
void warnRelativeSpans(const std::vector<std::string>& models,
                       std::map<std::string, std::vector<const Candidate*>>& members,
                       FrontierAnalysis& a) {
  for (const auto& o : a.options.objectives) {
    if (!isRelativeMetric(o.metric)) continue;
    for (const auto& key : models) {
      std::vector<std::string> spanned;
      for (const Candidate* c : members[key]) {
        if (c->metrics.count(o.metric) &&
            std::find(spanned.begin(), spanned.end(), c->model) == spanned.end()) {
          spanned.push_back(c->model);
        }
      }
      if (spanned.size() > 1) {
        a.warnings.push_back("objective '" + o.metric +
                             "' is relative to each model's own baseline but compares " +
                             std::to_string(spanned.size()) + " models (" + joinIds(spanned) +
                             "); group by model to compare only candidates sharing a baseline");
      }
    }
  }
}

/// One group's lists appended to the merged result `m`.
void appendResult(const FrontierResult& r, FrontierResult& m) {
  m.frontier.insert(m.frontier.end(), r.frontier.begin(), r.frontier.end());
  m.uncertain.insert(m.uncertain.end(), r.uncertain.begin(), r.uncertain.end());
  m.dominated.insert(m.dominated.end(), r.dominated.begin(), r.dominated.end());
  m.gatedOut.insert(m.gatedOut.end(), r.gatedOut.begin(), r.gatedOut.end());
  m.undecided.insert(m.undecided.end(), r.undecided.begin(), r.undecided.end());
  m.notScored.insert(m.notScored.end(), r.notScored.begin(), r.notScored.end());
  m.uncertainPointDominators.insert(m.uncertainPointDominators.end(),
                                    r.uncertainPointDominators.begin(),
                                    r.uncertainPointDominators.end());
}

}  // namespace

Result<FrontierAnalysis> analyseFrontier(const std::vector<Candidate>& candidates,
                                         const FrontierQuery& query, const std::string& source) {
  FrontierAnalysis a;
  for (const auto& g : query.gates) {
    if (auto e = gateProblem(g, candidates, query.baselineId)) return e->from(source);
  }
  a.options.gates = query.gates;
  a.options.baselineId = query.baselineId;
  a.options.withDominators = query.withDominators;
  a.options.maxDominatorsListed = query.maxDominatorsListed;
  if (!query.objectives.empty()) {
    // An objective on a metric nobody has is a typo, refused as a gate's is: it would
    // otherwise gate every candidate out and leave an empty frontier without a word.
    for (const auto& o : query.objectives) {
      const bool carried =
          std::any_of(candidates.begin(), candidates.end(),
                      [&](const Candidate& c) { return c.metrics.count(o.metric) > 0; });
      if (!carried && !lookupMetric(o.metric)) {
        return Error{source, "", "objectives",
                     "objective metric '" + o.metric +
                         "' is carried by no candidate and the metric dictionary does not know it"};
      }
    }
    a.options.objectives = query.objectives;
  } else if (!query.savedObjectives.empty()) {
    a.options.objectives = query.savedObjectives;
  } else {
    ObjectiveChoice choice = defaultObjectives(query.metricNames.empty() ? metricNamesOf(candidates)
                                                                         : query.metricNames);
    a.options.objectives = std::move(choice.objectives);
    a.warnings = std::move(choice.warnings);
    if (a.options.objectives.empty()) {
      return Error{source, "", "objectives",
                   "no metric with a known direction; choose the objectives ({--objectives}, "
                   "NAME:max|min,...)"};
    }
  }
  for (auto& w : provenanceWarnings(candidates, a.options.objectives)) {
    a.warnings.push_back(std::move(w));
  }
  // Groups: by base model (candidates naming none join the default model's group) or one.
  a.groupBy = query.groupBy;
  std::vector<std::string> models;
  std::map<std::string, std::vector<const Candidate*>> members;
  std::map<std::string, std::size_t> indexOf;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    if (!indexOf.emplace(c.id, i).second) {
      return Error{source, "", "id", "candidate id '" + c.id + "' appears twice"};
    }
    const std::string key = query.groupBy == GroupBy::None
                                ? std::string()
                                : (c.model.empty() ? query.defaultModel : c.model);
    if (!members.count(key)) models.push_back(key);
    members[key].push_back(&c);
  }
  if (models.empty()) models.push_back(query.groupBy == GroupBy::None ? "" : query.defaultModel);

  warnRelativeSpans(models, members, a);
  const Candidate* baseline = nullptr;
  if (query.baselineId) {
    for (const auto& c : candidates) {
      if (c.id == *query.baselineId) baseline = &c;
    }
  }
  const bool relativeGate = std::any_of(query.gates.begin(), query.gates.end(),
                                        [](const Gate& g) { return g.relativeToBaseline; });

  FrontierOptions groupOptions = a.options;
  groupOptions.baselinePool = &candidates;
  for (const auto& key : models) {
    FrontierGroup g;
    g.model = key;
    for (const Candidate* c : members[key]) g.ids.push_back(c->id);
    if (baseline && relativeGate && query.groupBy == GroupBy::Model && baseline->model != key &&
        !(baseline->model.empty() && key == query.defaultModel)) {
      a.warnings.push_back("baseline-relative gates compare the " + key + " candidates with '" +
                           baseline->id + "', a candidate of another model (" + baseline->model +
                           ")");
    }
    auto r = computeFrontierOf(members[key], groupOptions);
    if (!r) return r.error().from(source);
    g.result = std::move(*r);
    a.groups.push_back(std::move(g));
  }

  // The merged lists, in input order (one group's already are).
  auto byInput = [&](auto& list, auto idOf) {
    if (a.groups.size() <= 1) return;
    std::stable_sort(list.begin(), list.end(), [&](const auto& x, const auto& y) {
      return indexOf[idOf(x)] < indexOf[idOf(y)];
    });
  };
  FrontierResult& m = a.result;
  m.objectives = a.options.objectives;
  for (const auto& g : a.groups) appendResult(g.result, m);
  const auto self = [](const std::string& id) -> const std::string& { return id; };
  const auto idField = [](const auto& x) -> const std::string& { return x.id; };
  byInput(m.frontier, self);
  byInput(m.uncertain, self);
  byInput(m.dominated, idField);
  byInput(m.gatedOut, idField);
  byInput(m.undecided, idField);
  byInput(m.notScored, idField);
  byInput(m.uncertainPointDominators, idField);
  a.verdicts = candidateVerdicts(a.result);
  return a;
}

DominatorLookup::DominatorLookup(const std::vector<Candidate>& candidates,
                                 const FrontierAnalysis& analysis)
    : m_candidates(candidates), m_analysis(analysis), m_passing(analysis.groups.size()) {
  for (const auto& c : candidates) m_byId.emplace(c.id, &c);
  for (std::size_t g = 0; g < analysis.groups.size(); ++g) {
    for (const auto& id : analysis.groups[g].ids) m_groupOf.emplace(id, g);
  }
}

DominatorLookup::~DominatorLookup() = default;

std::optional<std::string> DominatorLookup::detail(const std::string& id) {
  const auto v = m_analysis.verdicts.find(id);
  if (v == m_analysis.verdicts.end()) return std::nullopt;
  const bool clear = v->second.verdict == Verdict::Dominated;
  if (!clear && v->second.verdict != Verdict::Uncertain) return std::nullopt;
  const auto g = m_groupOf.find(id);
  if (g == m_groupOf.end()) return std::nullopt;
  Group& group = m_passing[g->second];
  if (!group.built) {
    // The group's candidates as analyseFrontier gave them to computeFrontier, in input order.
    std::vector<const Candidate*> members;
    for (const auto& memberId : m_analysis.groups[g->second].ids) {
      const auto c = m_byId.find(memberId);
      if (c != m_byId.end()) members.push_back(c->second);
    }
    FrontierOptions opts = m_analysis.options;
    opts.baselinePool = &m_candidates;
    auto passing = passingPoints(members, opts);
    group.built = true;
    if (!passing) return std::nullopt;
    group.points = std::move(*passing);
    for (std::size_t i = 0; i < group.points.candidates.size(); ++i) {
      group.indexOf.emplace(group.points.candidates[i]->id, i);
    }
  }
  const auto i = group.indexOf.find(id);
  if (i == group.indexOf.end()) return std::nullopt;
  const DominatedCandidate d =
      listDominators(group.points, i->second, clear, m_analysis.options.maxDominatorsListed);
  return clear ? dominatedDetail(d) : uncertainDetail(d);
}

namespace {
/// The attainment boundary of `pts` (x, y; larger is better on both): the non-dominated points
/// sorted by x, joined by steps, each end run out to `x0` (left) and `y0` (bottom).
std::vector<std::array<double, 2>> staircase(const std::vector<double>& pts, double x0, double y0) {
  const auto dominated = dominatedFlags(pts, pts, 2);
  std::vector<std::array<double, 2>> sky;
  for (std::size_t i = 0; i < dominated.size(); ++i) {
    if (!dominated[i]) sky.push_back({pts[2 * i], pts[2 * i + 1]});
  }
  // Ascending x, descending y; equal points (both kept as non-dominated) once.
  std::sort(sky.begin(), sky.end(),
            [](const auto& a, const auto& b) { return a[0] != b[0] ? a[0] < b[0] : a[1] > b[1]; });
  sky.erase(std::unique(sky.begin(), sky.end()), sky.end());
  std::vector<std::array<double, 2>> out;
  const auto vertex = [&](double x, double y) {
    if (out.empty() || out.back() != std::array<double, 2>{x, y}) out.push_back({x, y});
  };
  if (sky.empty()) return out;
  vertex(x0, sky.front()[1]);
  for (std::size_t i = 0; i < sky.size(); ++i) {
    if (i > 0) vertex(sky[i - 1][0], sky[i][1]);
    vertex(sky[i][0], sky[i][1]);
  }
  vertex(sky.back()[0], y0);
  return out;
}
}  // namespace

std::vector<UncertainBand> uncertainBands(const std::vector<Candidate>& candidates,
                                          const FrontierAnalysis& analysis) {
  std::vector<UncertainBand> bands;
  const auto& objectives = analysis.options.objectives;
  if (objectives.size() != 2) return bands;
  std::map<std::string, const Candidate*> byId;
  for (const auto& c : candidates) byId.emplace(c.id, &c);
  for (const auto& group : analysis.groups) {
    // The candidates not clearly dominated, oriented so that larger is better. A clearly
    // dominated one lies wholly under another's pessimistic end: it adds nothing.
    OrientedPoints pts;
    pts.dims = 2;
    std::vector<std::string> open = group.result.frontier;
    open.insert(open.end(), group.result.uncertain.begin(), group.result.uncertain.end());
    for (const auto& id : open) {
      const auto c = byId.find(id);
      if (c == byId.end()) continue;
      std::array<double, 2> v{}, lo{}, hi{};
      bool complete = true;
      for (std::size_t k = 0; k < 2; ++k) {
        const auto m = c->second->metrics.find(objectives[k].metric);
        if (m == c->second->metrics.end() || !std::isfinite(m->second.value)) {
          complete = false;
          break;
        }
        const double val = m->second.value;
        const double l = m->second.lo && std::isfinite(*m->second.lo) ? *m->second.lo : val;
        const double h = m->second.hi && std::isfinite(*m->second.hi) ? *m->second.hi : val;
        const bool max = objectives[k].direction == Direction::Max;
        v[k] = max ? val : -val;
        lo[k] = max ? l : -h;
        hi[k] = max ? h : -l;
      }
      if (complete) pts.add(v, lo, hi);
    }
    if (pts.size() == 0 || (pts.pessimistic == pts.value && pts.optimistic == pts.value)) continue;
    double x0 = pts.pessimistic[0], y0 = pts.pessimistic[1];
    for (std::size_t i = 1; i < pts.size(); ++i) {
      x0 = std::min(x0, pts.pessimistic[2 * i]);
      y0 = std::min(y0, pts.pessimistic[2 * i + 1]);
    }
    UncertainBand band;
    band.model = group.model;
    band.optimistic = staircase(pts.optimistic, x0, y0);
    band.pessimistic = staircase(pts.pessimistic, x0, y0);
    band.polygon = band.optimistic;
    band.polygon.insert(band.polygon.end(), band.pessimistic.rbegin(), band.pessimistic.rend());
    band.polygon.push_back(band.polygon.front());
    // Back to the metrics' own units.
    for (auto* line : {&band.optimistic, &band.pessimistic, &band.polygon}) {
      for (auto& p : *line) {
        for (std::size_t k = 0; k < 2; ++k) {
          if (objectives[k].direction == Direction::Min) p[k] = -p[k];
        }
      }
    }
    bands.push_back(std::move(band));
  }
  return bands;
}

const char* groupByName(GroupBy g) {
  return g == GroupBy::Model ? "model" : "none";
}

std::optional<GroupBy> parseGroupBy(const std::string& text) {
  if (text == "model") return GroupBy::Model;
  if (text == "none") return GroupBy::None;
  return std::nullopt;
}

Json frontierGroupsToJson(const FrontierAnalysis& a) {
  Json j;
  j["group_by"] = groupByName(a.groupBy);
  j["groups"] = Json::array();
  for (const auto& g : a.groups) {
    Json o = frontierToJson(g.result);
    o.erase("objectives");
    o["model"] = g.model;
    o["candidates"] = g.ids;
    j["groups"].push_back(std::move(o));
  }
  return j;
}

}  // namespace qf
