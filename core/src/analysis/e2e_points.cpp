// End-to-end calibration's points: measured figures resolved to engine inputs, repeats
// collapsed, the model's prediction of each, and the points no GPU could have measured
// (docs/model.md, "Calibration from end-to-end measurements").
#include <quantfront/core/analysis/calibration.hpp>
#include <quantfront/core/analysis/e2e_calibration.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/model/serving_model.hpp>

namespace qf {

namespace {

/// How far past the ideal roofline a measured point may be before it is refused.
constexpr double kFasterThanIdeal = 2.0;

/// Rows that give the same measurement (every field but the value and where it came from) are
/// one point: counted once, at the geometric mean of their values (the fit works in logs).
/// Counted apart, 1,000 copies of five rows outweighed the prior 200-fold and shrank every
/// spread as if they were independent runs.
void collapseRepeatedPoints(std::vector<PreparedPoint>& points, std::vector<std::string>& notes) {
  auto keyOf = [](const MeasuredPoint& p) {
    std::ostringstream k;
    k.precision(17);
    k << p.model << '|' << p.gpu << '|' << p.tp << '|' << p.scheme << '|' << p.schemeMoe << '|'
      << p.schemeLmHead << '|' << p.kvDtype << '|' << p.batch << '|' << p.inputLen << '|'
      << p.outputLen << '|' << static_cast<int>(p.metric) << '|' << static_cast<int>(p.load) << '|'
      << p.loadValue << '|' << p.maxBatch << '|' << p.tokenBudget << '|' << p.engine;
    return k.str();
  };
  std::map<std::string, std::size_t> first;  // key -> index in `kept`
  std::vector<PreparedPoint> kept;
  std::vector<double> logSum;
  std::vector<int> count;
  std::size_t repeats = 0;
  std::string example;
  for (auto& p : points) {
    const std::string key = keyOf(p.point);
    const auto [it, added] = first.emplace(key, kept.size());
    if (added) {
      logSum.push_back(std::log(p.point.value));
      count.push_back(1);
      kept.push_back(std::move(p));
      continue;
    }
    ++repeats;
    if (example.empty()) example = p.point.origin + " repeats " + kept[it->second].point.origin;
    logSum[it->second] += std::log(p.point.value);
    ++count[it->second];
  }
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (count[i] > 1) kept[i].point.value = std::exp(logSum[i] / count[i]);
  }
  points = std::move(kept);  // every point was moved into it
  if (repeats == 0) return;
  notes.push_back(std::to_string(repeats) + " row" + (repeats == 1 ? "" : "s") +
                  " repeat a point already given (" + example +
                  "): each point is counted once, at the geometric mean of its rows");
}

}  // namespace

Result<std::vector<PreparedPoint>> preparePoints(const std::vector<MeasuredPoint>& points,
                                                 const GpuSpec& gpu, const std::string& gpuArg,
                                                 std::vector<std::string>& notes,
                                                 const Catalog& cat) {
  std::vector<PreparedPoint> out;
  std::map<std::string, ModelArch> models;
  std::map<std::string, int> otherGpus;
  for (const auto& p : points) {
    auto bad = [&](const std::string& field, const std::string& msg) {
      const auto space = p.origin.rfind(" row ");
      return Error{space == std::string::npos ? p.origin : p.origin.substr(0, space),
                   space == std::string::npos ? "" : p.origin.substr(space + 1), field, msg};
    };
    // The point's GPU: the one the fit is for (by id, by the path given, or by a name the
    // catalog reads as that id), else another catalog GPU (left out), else an error.
    if (!sameIgnoringCase(p.gpu, gpuArg) && !sameGpu(p.gpu, gpu.id, cat)) {
      if (catalogGpuId(p.gpu, cat).empty()) {
        return bad("gpu", "'" + p.gpu + "' is neither {--gpu} nor a catalog GPU");
      }
      ++otherGpus[p.gpu];
      continue;
    }
    auto it = models.find(p.model);
    if (it == models.end()) {
      std::string path = p.model;
      std::error_code ec;
      if (!p.baseDir.empty() && std::filesystem::path(p.model).is_relative() &&
          std::filesystem::exists(std::filesystem::path(p.baseDir) / p.model, ec)) {
        path = (std::filesystem::path(p.baseDir) / p.model).string();
      }
      auto m = cat.resolveModel(path);
      if (!m) {
        return bad("model", "'" + p.model + "' is neither a catalog model id (" + cat.modelIds() +
                                ") nor a config.json path");
      }
      it = models.emplace(p.model, std::move(*m)).first;
    }
    // A mixed candidate (another scheme on the experts or the LM head) is priced as mixed.
    auto cands = p.schemeMoe.empty() && p.schemeLmHead.empty()
                     ? makeCandidates({p.scheme}, "", "", "", cat)
                     : makeCandidates({}, p.scheme, p.schemeMoe, p.schemeLmHead, cat);
    if (!cands) return bad("scheme", cands.error().message);
    PreparedPoint pp;
    pp.point = p;
    pp.candidate = cands->front();
    Scenario& s = pp.scenario;
    s.model = it->second;
    s.gpu = gpu;
    s.gpu.calibration.reset();
    s.tp = p.tp;
    s.kvBytesPerElement = kvBytesForDtype(p.kvDtype);
    s.maxModelLen = static_cast<std::int64_t>(p.inputLen + p.outputLen);
    if (auto e = checkRequestLength(s.model, p.inputLen, p.outputLen))
      return bad(e->field, e->message);
    cat.setFallbacks(s);
    // The measured checkpoints keep their LM head and embeddings unquantized (docs/model.md).
    s.checkpointLmHead = cat.checkpointLmHead();
    s.kvFreeFraction = kvFreeFractionOf(p.engine).value_or(0.0);
    // What the point leaves unset is its engine's admission default on this GPU (a cap
    // given above the default budget takes a budget that holds its decodes).
    if (pp.point.maxBatch <= 0 || pp.point.tokenBudget <= 0) {
      const auto d = engineAdmissionDefaults(p.engine, gpu);
      if (pp.point.maxBatch <= 0) pp.point.maxBatch = d.maxBatch;
      if (pp.point.tokenBudget <= 0)
        pp.point.tokenBudget = std::max(d.tokenBudget, static_cast<double>(pp.point.maxBatch));
    }
    if (auto e = validateScenario(s)) return bad(e->field, e->message);
    auto curve = buildStepCurve(s, countParams(s.model), pp.candidate);
    if (!curve) return bad("tp", curve.error().message);
    out.push_back(std::move(pp));
  }
  for (const auto& [name, n] : otherGpus) {
    notes.push_back(std::to_string(n) + " point" + (n == 1 ? "" : "s") + " on " + name +
                    " left out (the fit is for " + (gpu.id.empty() ? gpuArg : gpu.id) + ")");
  }
  collapseRepeatedPoints(out, notes);
  return out;
}

std::string pointsEngine(const std::vector<PreparedPoint>& points, bool* mixed) {
  std::set<std::string> keys;
  for (const auto& pp : points) keys.insert(engineConstantsKey(pp.point.engine));
  if (mixed) *mixed = keys.size() > 1;
  return keys.size() == 1 ? *keys.begin() : std::string();
}

double predictPoint(const PreparedPoint& pp, const Efficiency& eff) {
  if (pp.point.serving()) return predictServingPoint(pp, eff);
  Scenario s = pp.scenario;
  s.efficiency = eff;
  auto curve = buildStepCurve(s, countParams(s.model), pp.candidate);
  if (!curve) return std::nan("");
  const MeasuredPoint& p = pp.point;
  switch (p.metric) {
    case E2eMetric::PrefillMs:
      return curve->prefillSeconds(p.batch, p.inputLen) * 1e3;
    case E2eMetric::DecodeStepMs:
      // The run's middle decode step.
      return curve->decodeStepSeconds(p.batch, p.inputLen + std::floor(p.outputLen / 2)) * 1e3;
    default:
      break;
  }
  const auto x = predictStaticBatch(*curve, p.batch, p.inputLen, p.outputLen);
  switch (p.metric) {
    case E2eMetric::E2eLatencyS:
      return x.e2eLatencyS;
    case E2eMetric::TtftMs:
      return x.ttftMs;
    case E2eMetric::TpotMs:
      return x.tpotMs;
    case E2eMetric::OutputTokS:
      return x.outputTokensPerS;
    case E2eMetric::TotalTokS:
      return x.totalTokensPerS;
    default:
      return x.e2eLatencyS;
  }
}

std::optional<Error> implausiblePoint(const std::vector<PreparedPoint>& points) {
  // The ideal roofline (every constant at its datasheet value, no overhead) is the fastest
  // the GPU can run a point: one more than twice as fast was not measured on it (1 ns for a
  // whole batch pinned every constant at its bound, silently).
  for (const auto& pp : points) {
    const MeasuredPoint& p = pp.point;
    const double ideal = predictPoint(pp, Efficiency{});
    const bool rate = p.metric == E2eMetric::OutputTokS || p.metric == E2eMetric::TotalTokS;
    if (!(std::isfinite(ideal) && ideal > 0)) continue;
    if (rate ? p.value > kFasterThanIdeal * ideal : p.value * kFasterThanIdeal < ideal) {
      const std::string m = std::string(e2eMetricName(p.metric)) + " " + sigFigs(p.value, 6) +
                            " is more than " + sigFigs(kFasterThanIdeal, 6) + "x " +
                            (rate ? "above" : "below") + " what the datasheet roofline allows (" +
                            sigFigs(ideal, 6) + "): not a measurement on " + pp.scenario.gpu.name;
      const auto space = p.origin.rfind(" row ");
      return Error{space == std::string::npos ? p.origin : p.origin.substr(0, space),
                   space == std::string::npos ? "" : p.origin.substr(space + 1), "value", m};
    }
  }
  return std::nullopt;
}

}  // namespace qf
