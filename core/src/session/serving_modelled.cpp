// The serving model beside the measured sweeps: each candidate's analytic steady state at the
// sweeps' loads, and where one candidate's TPOT overtakes another's (serving.hpp).
#include <quantfront/core/analysis/deploy_search.hpp>
#include <quantfront/core/analysis/serving_intervals.hpp>
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/model/cost.hpp>
#include <quantfront/core/model/serving_model.hpp>
#include <quantfront/core/session/serving.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace qf {

namespace {

constexpr int kGridPoints = 40;

/// The mean prompt and output tokens of the group's successful requests; nullopt when its
/// runs carry no per-request lengths.
std::optional<ServingWorkload> groupWorkload(const Session& s, const ServingGroup& g) {
  double in = 0, out = 0, n = 0;
  for (const auto& p : g.points) {
    for (const auto& run : s.importedRuns) {
      if (run.sha256 != p.sha256 || run.sourceFile != p.sourceFile) continue;
      for (const auto& r : run.requests) {
        if (!r.success || r.inputLen <= 0 || r.outputLen <= 0) continue;
        in += static_cast<double>(r.inputLen);
        out += static_cast<double>(r.outputLen);
        n += 1;
      }
      break;
    }
  }
  if (n == 0) return std::nullopt;
  return ServingWorkload{in / n, out / n};
}

/// Log-spaced loads from lo to hi (both included); an infinite rate is appended when asked.
std::vector<double> loadGrid(double lo, double hi, bool withInfinity) {
  std::vector<double> out;
  if (lo > 0 && hi >= lo) {
    for (int i = 0; i < kGridPoints; ++i) {
      out.push_back(lo * std::pow(hi / lo, static_cast<double>(i) / (kGridPoints - 1)));
    }
  }
  if (withInfinity) out.push_back(std::numeric_limits<double>::infinity());
  return out;
}

struct Grid {
  std::vector<double> loads;
};

/// One grid per load kind spanning every group's points of that kind: request rates from half
/// the lowest finite rate to 1.5 × the highest (and ∞ when a run offered it); concurrencies
/// from 1 to 1.5 × the highest.
std::map<LoadKind, Grid> gridsOf(const ServingSweeps& sw) {
  std::map<LoadKind, double> lo, hi;
  std::map<LoadKind, bool> inf;
  for (const auto& g : sw.groups) {
    for (const auto& p : g.points) {
      const LoadKind k = p.load.kind;
      if (std::isinf(p.load.value)) {
        inf[k] = true;
        continue;
      }
      if (!(p.load.value > 0)) continue;
      lo[k] = lo.count(k) ? std::min(lo[k], p.load.value) : p.load.value;
      hi[k] = hi.count(k) ? std::max(hi[k], p.load.value) : p.load.value;
    }
  }
  std::map<LoadKind, Grid> out;
  for (const auto& [k, h] : hi) {
    const double l = k == LoadKind::Concurrency ? 1.0 : lo[k] / 2;
    out[k].loads = loadGrid(l, std::max(h * 1.5, l * 1.01), inf[k]);
  }
  for (const auto& [k, any] : inf) {
    if (any && !out.count(k)) out[k].loads = loadGrid(0, 0, true);
  }
  return out;
}

ModelledServingPoint pointAt(const StepTimeModel& m, const ServingLimits& lim,
                             const ServingWorkload& w, LoadKind kind, double load) {
  ModelledServingPoint p;
  p.load.kind = kind;
  p.load.value = load;
  const SteadyState sat = saturatedState(m, lim, w);
  SteadyState st;
  if (std::isinf(load)) {
    st = sat;
    p.saturated = true;
  } else if (kind == LoadKind::Concurrency) {
    st = stateAtConcurrency(m, lim, w, std::min(load, sat.concurrency));
    p.saturated = load >= sat.concurrency;
  } else {
    st = stateAtRate(m, lim, w, load);
    if (!st.stable) {
      st = sat;
      p.saturated = true;
    }
  }
  p.outputTokS = st.outputTokPerS;
  p.tpotMs = st.tpotS * 1e3;
  if (!p.saturated && std::isfinite(st.ttftS)) p.ttftMs = st.ttftS * 1e3;
  return p;
}

/// Each point's 80% intervals from the scenario's fit record, relative to the point's own
/// figures (a saturated rate is priced at the saturated state there and here alike).
void addIntervals(ModelledServingCurve& curve, const Scenario& scen, const SchemeAssignment& cand,
                  const ServingLimits& lim) {
  const auto rec = e2eFitRecord(scen.efficiency.calibrationExtra);
  if (!rec || rec->dof <= 0) return;
  ServingQuery q;
  q.scenario = scen;
  q.candidate = cand;
  q.inputLen = curve.inputTokens;
  q.outputLen = curve.outputTokens;
  q.maxBatch = lim.maxBatch;
  q.tokenBudget = lim.tokenBudget;
  auto around = [&](E2eMetric m, double value) -> std::optional<std::pair<double, double>> {
    const auto iv = servingIntervalAround(q, m, value, 0.8, &*rec);
    if (!iv || !(iv->high > iv->low)) return std::nullopt;
    return std::pair{iv->low, iv->high};
  };
  for (auto& p : curve.points) {
    if (std::isinf(p.load.value) || p.saturated) {
      q.load = PointLoad::Max;
    } else if (p.load.kind == LoadKind::Concurrency) {
      q.load = PointLoad::Concurrency;
      q.loadValue = std::max(1.0, std::round(p.load.value));
    } else {
      q.load = PointLoad::Rate;
      q.loadValue = p.load.value;
    }
    p.outputTokSInterval = around(E2eMetric::OutputTokS, p.outputTokS);
    p.tpotMsInterval = around(E2eMetric::TpotMs, p.tpotMs);
    if (p.ttftMs && q.load != PointLoad::Max)
      p.ttftMsInterval = around(E2eMetric::TtftMs, *p.ttftMs);
  }
}

Result<ModelledServingCurve> curveOf(const Candidate& c, const Session& s, bool datasheet,
                                     const ServingWorkload& w, LoadKind kind, const Grid& grid,
                                     const Catalog& cat) {
  ScenarioSpec spec = candidateScenarioSpec(c, s.scenario);
  spec.datasheet = datasheet;
  // The model must hold one request of the workload.
  spec.maxModelLen = std::max<std::int64_t>(
      spec.maxModelLen, static_cast<std::int64_t>(std::ceil(w.inputTokens + w.outputTokens)));
  auto scen = resolveScenario(spec, cat);
  if (!scen) return scen.error();
  auto cands = makeCandidates({}, c.schemeLinear.empty() ? cat.baselineSchemeId() : c.schemeLinear,
                              c.schemeMoe, c.schemeLmHead, cat);
  if (!cands) return cands.error();
  auto eng = engineServing(*scen, cands->front());
  if (!eng) return eng.error();
  if (eng->kvCapacityTokens < w.inputTokens + w.outputTokens) {
    return Error{"", "", "gpu", "the weights leave no room for one request's KV cache"};
  }
  const auto admission = engineAdmissionDefaults(spec.engine, scen->gpu, eng->kvCapacityTokens,
                                                 static_cast<double>(scen->maxModelLen));
  ServingLimits lim;
  lim.maxBatch = admission.maxBatch;
  lim.tokenBudget = admission.tokenBudget;
  lim.kvCapacityTokens = eng->kvCapacityTokens;
  if (auto e = validateServing(lim, w)) return *e;
  ModelledServingCurve curve;
  curve.maxBatch = lim.maxBatch;
  curve.tokenBudget = lim.tokenBudget;
  curve.limitsRule = admission.rule;
  curve.datasheet = datasheet;
  curve.constants =
      scen->efficiency.source.empty()
          ? std::string(datasheet ? "datasheet roofline" : "datasheet (no calibration)")
          : scen->efficiency.source;
  curve.inputTokens = w.inputTokens;
  curve.outputTokens = w.outputTokens;
  for (double load : grid.loads) curve.points.push_back(pointAt(eng->steps, lim, w, kind, load));
  if (!datasheet) addIntervals(curve, *scen, cands->front(), lim);
  return curve;
}

/// Sign changes of TPOT(a) − TPOT(b) along the shared grid, placed by linear interpolation in
/// log load; ∞ is never a crossing point.
void addOvertakes(ServingSweeps& sw) {
  for (std::size_t i = 0; i < sw.groups.size(); ++i) {
    for (std::size_t j = i + 1; j < sw.groups.size(); ++j) {
      const auto& a = sw.groups[i];
      const auto& b = sw.groups[j];
      if (a.modelled.empty() || b.modelled.empty()) continue;
      const auto& ca = a.modelled.front().points;
      const auto& cb = b.modelled.front().points;
      if (ca.size() != cb.size() || a.loadKind != b.loadKind) continue;
      for (std::size_t k = 1; k < ca.size(); ++k) {
        const double x0 = ca[k - 1].load.value, x1 = ca[k].load.value;
        if (std::isinf(x1) || ca[k].load.kind != a.loadKind) continue;
        const double d0 = ca[k - 1].tpotMs - cb[k - 1].tpotMs;
        const double d1 = ca[k].tpotMs - cb[k].tpotMs;
        if (!(d0 * d1 < 0)) continue;
        const double t = d0 / (d0 - d1);
        ServingOvertake o;
        o.kind = a.loadKind;
        o.load = std::exp(std::log(x0) + t * (std::log(x1) - std::log(x0)));
        // Past the crossing the one whose TPOT is now lower is ahead.
        o.ahead = d1 < 0 ? a.key : b.key;
        o.behind = d1 < 0 ? b.key : a.key;
        sw.overtakes.push_back(o);
      }
    }
  }
}

/// The scenario's workload for modelled-only curves, and words for it.
ServingWorkload scenarioWorkload(const ScenarioSpec& sc, std::string& words) {
  if (sc.inputLen > 0 && sc.outputLen > 0) {
    words = "the scenario's prompt and output tokens";
    return {static_cast<double>(sc.inputLen), static_cast<double>(sc.outputLen)};
  }
  if (!sc.useCase.empty()) {
    if (auto u = findUseCase(sc.useCase)) {
      words = "use case " + u->name;
      return {static_cast<double>(u->prefillTokens), static_cast<double>(u->decodeTokens)};
    }
  }
  words = "vLLM bench serve's random dataset";
  return {1024, 128};
}

}  // namespace

ServingSweeps scenarioServing(const Session& s, std::string* workload, const Catalog& cat) {
  ServingSweeps out;
  std::string words;
  const ServingWorkload w = scenarioWorkload(s.scenario, words);
  if (workload) {
    *workload = qf::words(static_cast<long long>(w.inputTokens), " → ",
                          static_cast<long long>(w.outputTokens), " tokens (", words, ")");
  }
  // The scenario's candidates: each uniform scheme, then the mixed one.
  std::vector<Candidate> cands;
  auto add = [&](const std::string& linear, const std::string& moe, const std::string& head) {
    Candidate c;
    c.model = s.scenario.model;
    c.gpu = s.scenario.gpu;
    c.gpuCount = s.scenario.tp;
    c.schemeLinear = linear;
    c.schemeMoe = moe;
    c.schemeLmHead = head;
    DeployConfig named;
    named.linear = linear;
    named.moe = moe;
    named.lmHead = head.empty() ? linear : head;
    c.id = named.schemeId();
    cands.push_back(std::move(c));
  };
  for (const auto& id : s.scenario.schemes) add(id, "", "");
  if (!s.scenario.mixedLinear.empty())
    add(s.scenario.mixedLinear, s.scenario.mixedMoe, s.scenario.mixedLmHead);
  // Each scheme's saturated rate sets the grid: every curve reaches its own saturation.
  double slowest = std::numeric_limits<double>::infinity(), fastest = 0;
  std::vector<std::optional<Grid>> ok(cands.size());
  const Grid probe{{std::numeric_limits<double>::infinity()}};
  for (std::size_t i = 0; i < cands.size(); ++i) {
    auto sat = curveOf(cands[i], s, false, w, LoadKind::RequestRate, probe, cat);
    if (!sat || sat->points.empty() || !(sat->points.front().outputTokS > 0)) {
      out.warnings.push_back(cands[i].id + ": no modelled serving curve (" +
                             (sat ? std::string("no throughput") : sat.error().message) + ")");
      continue;
    }
    const double rate = sat->points.front().outputTokS / w.outputTokens;
    slowest = std::min(slowest, rate);
    fastest = std::max(fastest, rate);
    ok[i] = Grid{};
  }
  if (!(fastest > 0)) return out;
  const Grid grid{loadGrid(slowest / 50, fastest * 1.5, false)};
  for (std::size_t i = 0; i < cands.size(); ++i) {
    if (!ok[i]) continue;
    ServingGroup g;
    g.key = cands[i].id + " (modelled)";
    g.groupedBy = "scenario";
    g.scheme = cands[i].schemeLinear;
    g.loadKind = LoadKind::RequestRate;
    for (bool datasheet : {false, true}) {
      auto curve = curveOf(cands[i], s, datasheet, w, LoadKind::RequestRate, grid, cat);
      if (!curve) {
        g.warnings.push_back(g.key + ": no modelled serving curve (" + curve.error().message + ")");
        break;
      }
      g.modelled.push_back(std::move(*curve));
    }
    out.groups.push_back(std::move(g));
  }
  addOvertakes(out);
  // The server's admission limits (the engine's defaults on the GPU) join the workload's words.
  if (workload && !out.groups.empty() && !out.groups.front().modelled.empty()) {
    const auto& c = out.groups.front().modelled.front();
    *workload += qf::words("; batch cap ", c.maxBatch, ", ", static_cast<long long>(c.tokenBudget),
                           " tokens a step (", c.limitsRule, ")");
  }
  return out;
}

void addModelledServing(ServingSweeps& sw, const Session& s, const Catalog& cat) {
  const auto grids = gridsOf(sw);
  for (auto& g : sw.groups) {
    const Candidate* c = nullptr;
    if (g.candidateId) {
      for (const auto& k : s.candidates) {
        if (k.id == *g.candidateId) c = &k;
      }
    }
    if (!c) continue;  // finishGroup already says it is attached to no candidate
    const auto grid = grids.find(g.loadKind);
    if (grid == grids.end()) continue;
    const auto w = groupWorkload(s, g);
    if (!w) {
      g.warnings.push_back(g.key +
                           ": its runs keep no per-request lengths: no modelled serving curve");
      continue;
    }
    for (bool datasheet : {false, true}) {
      auto curve = curveOf(*c, s, datasheet, *w, g.loadKind, grid->second, cat);
      if (!curve) {
        g.warnings.push_back(g.key + ": no modelled serving curve (" + curve.error().message + ")");
        break;
      }
      g.modelled.push_back(std::move(*curve));
    }
  }
  addOvertakes(sw);
}

}  // namespace qf
