// The session's static-batch runs as end-to-end measured points (e2e_evidence.hpp).
#include <quantfront/core/analysis/calibration.hpp>
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/base/percentile.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/session/attach_runs.hpp>
#include <quantfront/core/session/e2e_evidence.hpp>
#include <quantfront/core/session/serving.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

#include "import/formats.hpp"

namespace qf {

namespace {

std::optional<double> setupNumber(const ImportedRun& run, const std::string& key) {
  const auto it = run.setup.find(key);
  if (it == run.setup.end()) return std::nullopt;
  double v = 0;
  const char* first = it->second.data();
  const char* last = first + it->second.size();
  const auto [p, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || p != last || !std::isfinite(v) || v <= 0) return std::nullopt;
  return v;
}

std::optional<double> metric(const ImportedRun& run, const std::string& name) {
  const auto it = run.metrics.find(name);
  if (it == run.metrics.end() || !std::isfinite(it->second) || it->second <= 0) return std::nullopt;
  return it->second;
}

/// The batch and lengths stamped at import (or stated by the file), when all three are.
std::optional<StaticBatch> stamped(const ImportedRun& run) {
  const auto b = setupNumber(run, kBatchSetupKey);
  const auto i = setupNumber(run, kInputLenSetupKey);
  const auto o = setupNumber(run, kOutputLenSetupKey);
  if (!b || !i || !o) return std::nullopt;
  return StaticBatch{*b, *i, *o};
}

/// A count as the importers write it: a whole number in plain digits (never "1e+05").
std::string formatCount(double v) {
  if (std::floor(v) == v && std::abs(v) < 9.0e15) {
    return std::to_string(static_cast<long long>(v));
  }
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace

std::size_t stampStaticBatch(std::vector<ImportedRun>& runs, const StaticBatch& b) {
  std::size_t n = 0;
  for (auto& run : runs) {
    const bool timedBatch = run.kind == RunKind::Latency || run.kind == RunKind::Throughput;
    bool stamped = false;
    if (timedBatch && b.batch > 0) {
      run.setup[kBatchSetupKey] = formatCount(b.batch);
      run.setup[kInputLenSetupKey] = formatCount(b.inputLen);
      run.setup[kOutputLenSetupKey] = formatCount(b.outputLen);
      stamped = true;
    }
    if ((timedBatch || run.kind == RunKind::DecodeSweep) && b.tp > 0) {
      run.setup[kTpSetupKey] = std::to_string(b.tp);
      stamped = true;
    }
    if (stamped) ++n;
  }
  return n;
}

namespace {

/// The run's tensor-parallel degree: stamped at import, else the file's own key.
std::optional<int> statedTp(const ImportedRun& run) {
  for (const char* key : {kTpSetupKey, "tensor_parallel_size", "tp_size", "tp"}) {
    const auto v = setupNumber(run, key);
    if (v && std::floor(*v) == *v && *v <= 1024) return static_cast<int>(*v);
  }
  return std::nullopt;
}

/// The engine a serving run's benchmark drove: its `backend` when that names one (SGLang's
/// bench_serving also drives vLLM and TensorRT-LLM servers), else the tool's own engine.
std::string servedBy(const ImportedRun& run) {
  const auto it = run.setup.find("backend");
  const std::string backend = it == run.setup.end() ? "" : asciiLower(it->second);
  if (backend.find("sglang") != std::string::npos) return "sglang";
  if (backend.find("vllm") != std::string::npos) return "vllm";
  if (backend.find("trt") != std::string::npos || backend.find("tensorrt") != std::string::npos)
    return "trtllm";
  return run.format == importformat::kSglangServing ? "sglang" : "vllm";
}

/// The figures of a serving run a fit reads, and the rows' metrics they become.
constexpr std::pair<const char*, E2eMetric> kServingFigures[] = {
    {"output_throughput_tok_s", E2eMetric::OutputTokS},
    {"ttft_median_ms", E2eMetric::TtftP50Ms},
    {"ttft_p99_ms", E2eMetric::TtftP99Ms},
    {"tpot_median_ms", E2eMetric::TpotP50Ms},
    {"tpot_p99_ms", E2eMetric::TpotP99Ms},
    {"itl_median_ms", E2eMetric::ItlP50Ms},
    {"itl_p99_ms", E2eMetric::ItlP99Ms}};

/// A serving run (`vllm bench serve`, SGLang `bench_serving`) as serving rows: its offered load,
/// its mean prompt and output lengths, and what it measured (throughput, TTFT/TPOT/ITL median
/// and p99). The server's batch cap and token budget are not in the file: the engine's own
/// defaults on the run's GPU stand in (the caller notes it once). True when it gave a point.
template <class Emit>
bool servingPoints(const ImportedRun& run, const MeasuredPoint& base,
                   std::vector<std::string>& notes, Emit& emit) {
  const auto load = offeredLoadOf(run);
  if (!load) {
    notes.push_back(run.sourceFile + ": " + load.error().message + "; not fitted");
    return false;
  }
  const auto done = metric(run, "completed");
  const auto in = metric(run, "total_input_tokens");
  const auto outTok = metric(run, "total_output_tokens");
  if (!done || !in || !outTok) {
    notes.push_back(run.sourceFile +
                    ": states no completed count or token totals, so its request shape is "
                    "unknown; not fitted");
    return false;
  }
  MeasuredPoint p = base;
  p.batch = 0;
  // The server the benchmark drove: its admission defaults on the run's GPU stand in for the
  // batch cap and token budget its file does not state (preparePoints).
  if (p.engine.empty()) p.engine = servedBy(run);
  p.inputLen = std::max(1.0, std::round(*in / *done));
  p.outputLen = std::max(1.0, std::round(*outTok / *done));
  if (load->kind == LoadKind::Concurrency) {
    p.load = PointLoad::Concurrency;
    p.loadValue = std::max(1.0, std::round(load->value));
  } else if (std::isinf(load->value)) {
    p.load = PointLoad::Max;
  } else {
    p.load = PointLoad::Rate;
    p.loadValue = load->value;
  }
  p.origin = base.origin + " at " + offeredLoadText(*load);
  bool any = false;
  for (const auto& [key, m] : kServingFigures) {
    const auto v = metric(run, key);
    if (!v) continue;
    const bool ttft = m == E2eMetric::TtftP50Ms || m == E2eMetric::TtftP99Ms;
    // Every request sent at once: its TTFT says how many were sent, not how fast they ran.
    if (ttft && p.load == PointLoad::Max) continue;
    if (p.outputLen < 2 && !ttft && m != E2eMetric::OutputTokS) continue;
    p.metric = m;
    p.value = *v;
    emit(p);
    any = true;
  }
  return any;
}

/// A bench_one_batch sweep as static points: per batch, its prefill and its decode step.
template <class Emit>
void decodeSweepPoints(const ImportedRun& run, const MeasuredPoint& base,
                       std::vector<std::string>& notes, Emit& emit) {
  const auto in = setupNumber(run, "input_len");
  const auto outLen = setupNumber(run, "output_len");
  if (!in || !outLen) {
    notes.push_back(run.sourceFile + ": the rows state no input_len/output_len; not fitted");
    return;
  }
  for (const auto& [batch, stepS] : run.decodeStepByBatch) {
    const std::string prefix = "bs" + formatCount(batch) + "/";
    MeasuredPoint p = base;
    p.batch = batch;
    p.inputLen = *in;
    p.outputLen = *outLen;
    p.origin = base.origin + " bs " + formatCount(batch);
    if (const auto pre = metric(run, prefix + "prefill_latency_ms")) {
      p.metric = E2eMetric::PrefillMs;
      p.value = *pre;
      emit(p);
    }
    if (stepS > 0 && std::isfinite(stepS)) {
      p.metric = E2eMetric::DecodeStepMs;
      p.value = stepS * 1e3;
      emit(p);
    }
  }
}

/// Whether two catalog models are priced alike: the same shapes (Llama-3-8B and
/// Llama-3.1-8B are; their context lengths differ, which a fit does not read).
bool sameShapes(const std::string& a, const std::string& b, const Catalog& cat) {
  if (a == b) return true;
  const auto x = cat.resolveModel(a);
  const auto y = cat.resolveModel(b);
  if (!x || !y) return false;
  return x->layers == y->layers && x->hidden == y->hidden && x->intermediate == y->intermediate &&
         x->heads == y->heads && x->kvHeads == y->kvHeads && x->headDim == y->headDim &&
         x->vocab == y->vocab && x->experts == y->experts &&
         x->expertsPerToken == y->expertsPerToken && x->expertWidth == y->expertWidth;
}

/// What makes a serving run attached to a candidate unfit to calibrate from: no offered load,
/// a model of its own whose shapes are not the candidate's (both known to the catalog), or a
/// figure the fit would read that its own per-request records put more than 2% away (the
/// importer kept both).
std::optional<Error> servingRunDefect(const ImportedRun& run, const std::string& candidateModel,
                                      const std::string& candidateId, const Catalog& cat) {
  if (const auto load = offeredLoadOf(run); !load) return load.error();
  const std::string named = runModelName(run);
  const std::string model = named.empty() ? "" : catalogModelFromName(named, cat);
  if (!model.empty() && !candidateModel.empty() && !sameShapes(model, candidateModel, cat)) {
    const bool byId = run.setup.count("model_id") && !run.setup.at("model_id").empty();
    return Error{run.sourceFile, "", byId ? "model_id" : "label",
                 "the run is of '" + named + "' (" + model + ") but attached to candidate '" +
                     candidateId + "' of " + candidateModel +
                     ": one fit prices each run as its candidate's model; attach it to a "
                     "candidate of " +
                     model};
  }
  for (const auto& figure : kServingFigures) {
    const std::string key = figure.first;
    const auto stated = metric(run, key);
    const auto records = metric(run, key + "_recomputed");
    // Percentile methods part by well under 2% on a run's hundreds of requests.
    if (stated && records && std::abs(*stated - *records) > 0.02 * std::abs(*records)) {
      return Error{run.sourceFile, "", key,
                   "the file says " + sigFigs(*stated, 6) + ", its per-request records give " +
                       sigFigs(*records, 6) +
                       ": a calibration cannot tell which the server did; re-export the run"};
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<MeasuredPoint> measuredPointsFromSession(const Session& s, const std::string& file,
                                                     std::vector<std::string>& notes,
                                                     const Catalog& cat,
                                                     std::vector<Error>* defects) {
  std::vector<MeasuredPoint> out;
  bool servingRows = false;
  for (const auto& run : s.importedRuns) {
    const bool staticBatch = run.kind == RunKind::Latency || run.kind == RunKind::Throughput ||
                             run.kind == RunKind::DecodeSweep;
    if (!staticBatch && run.kind != RunKind::Serving) continue;
    if (run.kind == RunKind::Serving && allRequestsFailed(run)) {
      notes.push_back(run.sourceFile + ": " + failedRunText(run) + "; not fitted");
      continue;
    }
    const auto id = run.setup.find(kCandidateSetupKey);
    const auto c = id == run.setup.end()
                       ? s.candidates.end()
                       : std::find_if(s.candidates.begin(), s.candidates.end(),
                                      [&](const Candidate& k) { return k.id == id->second; });
    if (c == s.candidates.end()) {
      notes.push_back(run.sourceFile +
                      ": not attached to a candidate, so its model, GPU and scheme are unknown; "
                      "not fitted (attach it, or import with {--candidate})");
      continue;
    }
    MeasuredPoint base;
    const std::string catalogId = catalogModelFromName(c->model, cat);
    base.model = catalogId.empty() ? c->model : catalogId;
    const std::string gpuId = catalogGpuId(c->gpu, cat);
    base.gpu = gpuId.empty() ? c->gpu : gpuId;
    const auto tp = statedTp(run);
    base.tp = tp ? *tp : std::max(1, c->gpuCount);
    // A point of this run, with (once per run) the note that its TP was assumed.
    bool tpNoted = tp || base.tp == 1;
    auto emit = [&](const MeasuredPoint& p) {
      if (!tpNoted) {
        notes.push_back(
            run.sourceFile + ": its TP is not stated; taken as the candidate's " +
            std::to_string(base.tp) +
            " GPUs (give the run's GPU count, {--tp}, when it used fewer, as replicas do)");
        tpNoted = true;
      }
      out.push_back(p);
    };
    base.scheme = c->schemeLinear.empty() ? Catalog::bundled().baselineSchemeId() : c->schemeLinear;
    base.schemeMoe = c->schemeMoe;
    base.schemeLmHead = c->schemeLmHead;
    base.origin = file + ": " + run.sourceFile;
    base.candidate = c->id;
    if (run.kind == RunKind::Serving) {
      if (defects) {
        if (auto e = servingRunDefect(run, catalogId, c->id, cat)) {
          defects->push_back(std::move(*e));
          continue;
        }
      }
      servingRows = servingPoints(run, base, notes, emit) || servingRows;
      continue;
    }
    if (run.kind == RunKind::DecodeSweep) {
      decodeSweepPoints(run, base, notes, emit);
      continue;
    }
    const auto b = stamped(run);
    if (!b) {
      notes.push_back(run.sourceFile +
                      ": its file states no batch or lengths; import it with {--batch}, "
                      "{--input-len} and {--output-len} to fit it");
      continue;
    }
    MeasuredPoint p = base;
    p.batch = b->batch;
    p.inputLen = b->inputLen;
    p.outputLen = b->outputLen;
    if (run.kind == RunKind::Latency) {
      const auto v = metric(run, "latency_p50_s") ? metric(run, "latency_p50_s")
                                                  : metric(run, "latency_mean_s");
      if (!v) {
        notes.push_back(run.sourceFile + ": no latency figure; not fitted");
        continue;
      }
      p.metric = E2eMetric::E2eLatencyS;
      p.value = *v;
    } else {
      const auto v = metric(run, "total_token_throughput_tok_s");
      if (!v) {
        notes.push_back(run.sourceFile + ": no tokens_per_second figure; not fitted");
        continue;
      }
      p.metric = E2eMetric::TotalTokS;
      p.value = *v;
    }
    emit(p);
  }
  if (servingRows) {
    notes.push_back(
        "serving runs: the server's batch cap and token budget are not in their files; the "
        "engine's own defaults on the run's GPU stand in (vLLM: 1024 sequences and 8192 "
        "tokens a step on a GPU of >= 70 GiB other than the A100, else 256 and 2048)");
  }
  return out;
}

double E2eComparison::datasheetErrorPct() const {
  return 100.0 * (datasheet / point.value - 1.0);
}

double E2eComparison::calibratedErrorPct() const {
  return 100.0 * (calibrated.value / point.value - 1.0);
}

E2eComparison comparePoint(const PreparedPoint& pp, const Efficiency& eff, double level) {
  const MeasuredPoint& p = pp.point;
  E2eComparison row;
  row.point = p;
  row.datasheet = predictPoint(pp, Efficiency{});
  row.calibrationSource = eff.source;
  row.calibrated = intervalFor([&pp](const Efficiency& e) { return predictPoint(pp, e); }, eff,
                               eff.calibrationExtra, level, p.batch, p.inputLen, p.outputLen);
  return row;
}

std::vector<E2eComparison> compareEndToEnd(const Session& s, const std::string& file,
                                           std::vector<std::string>& notes, const Catalog& cat,
                                           double level) {
  std::vector<E2eComparison> out;
  const std::vector<MeasuredPoint> points = measuredPointsFromSession(s, file, notes, cat);
  for (const auto& p : points) {
    // The candidate's GPU as the session models it: the scenario's edited copy for the GPU
    // it was edited from (as the candidate metrics do), else the catalog's.
    const bool edited = s.scenario.gpuSpec && sameGpu(p.gpu, s.scenario.gpu, cat);
    ScenarioSpec gpuOnly;
    gpuOnly.gpu = p.gpu;
    if (edited) gpuOnly.gpuSpec = s.scenario.gpuSpec;
    auto gpu = scenarioGpu(gpuOnly, cat);
    if (!gpu) {
      notes.push_back(p.origin + ": " + gpu.error().message + "; not compared");
      continue;
    }
    std::vector<std::string> unused;
    auto prepared = preparePoints({p}, *gpu, p.gpu, unused, cat);
    if (!prepared || prepared->empty()) {
      notes.push_back(p.origin + ": " +
                      (prepared ? std::string("its GPU does not resolve")
                                : prepared.error().field + ": " + prepared.error().message) +
                      "; not compared");
      continue;
    }
    E2eComparison row =
        comparePoint(prepared->front(), scenarioEfficiency(*gpu, false, cat, p.engine), level);
    if (!(row.datasheet > 0) || !(row.calibrated.value > 0)) {
      notes.push_back(p.origin + ": the model has no " + e2eMetricName(p.metric) +
                      " for these conditions; not compared");
      continue;
    }
    out.push_back(std::move(row));
  }
  return out;
}

E2eErrorSummary summarizeE2e(const std::vector<E2eComparison>& rows) {
  E2eErrorSummary out;
  std::vector<double> ds, cal, signedCal;
  for (const auto& r : rows) {
    ds.push_back(std::abs(r.datasheetErrorPct()));
    cal.push_back(std::abs(r.calibratedErrorPct()));
    signedCal.push_back(r.calibratedErrorPct());
    if (r.calibrated.high > r.calibrated.low) {
      ++out.withInterval;
      if (r.point.value >= r.calibrated.low && r.point.value <= r.calibrated.high)
        ++out.insideInterval;
    }
    if (r.calibrated.extrapolated) ++out.extrapolated;
  }
  out.datasheetMedianPct = ds.empty() ? 0 : medianOf(ds);
  out.calibratedMedianPct = cal.empty() ? 0 : medianOf(cal);
  out.calibratedMedianSignedPct = signedCal.empty() ? 0 : medianOf(signedCal);
  return out;
}

}  // namespace qf

namespace qf {

namespace {

/// Median |predict / measured − 1| in % over `points` under `eff` (unpriceable points skipped).
double medianAbsErrorPct(const std::vector<PreparedPoint>& points, const Efficiency& eff) {
  std::vector<double> errs;
  for (const auto& p : points) {
    const double v = predictPoint(p, eff);
    if (std::isfinite(v) && v > 0 && p.point.value > 0)
      errs.push_back(std::abs(v / p.point.value - 1) * 100);
  }
  if (errs.empty()) return std::nan("");
  std::sort(errs.begin(), errs.end());
  const std::size_t n = errs.size();
  return n % 2 ? errs[n / 2] : 0.5 * (errs[n / 2 - 1] + errs[n / 2]);
}

}  // namespace

Result<SessionCalibration> calibrateSession(const Session& s, const std::string& file,
                                            const std::string& sourceLabel,
                                            const std::string& gpuArg, const Catalog& cat) {
  SessionCalibration out;
  std::vector<Error> defects;
  const std::vector<MeasuredPoint> points =
      measuredPointsFromSession(s, file, out.notes, cat, &defects);
  if (!defects.empty()) return defects.front();
  if (points.empty()) {
    return Error{file, "", "runs",
                 "no imported end-to-end run the model can price" +
                     (out.notes.empty() ? std::string(" (import vLLM or SGLang benchmark runs "
                                                      "and attach them to candidates)")
                                        : " (" + out.notes.front() + ")")};
  }
  out.gpuId = gpuArg;
  if (out.gpuId.empty()) {
    for (const auto& p : points) {
      if (out.gpuId.empty()) out.gpuId = p.gpu;
      if (!sameGpu(p.gpu, out.gpuId, cat)) {
        return Error{file, "", "gpu",
                     "the session's end-to-end runs are on several GPUs ('" + out.gpuId + "', '" +
                         p.gpu + "'): choose the one to calibrate"};
      }
    }
  }
  // The GPU as the session models it: the scenario's edited copy for the GPU it was edited
  // from, else the catalog's.
  ScenarioSpec gpuOnly;
  gpuOnly.gpu = out.gpuId;
  if (s.scenario.gpuSpec && sameGpu(out.gpuId, s.scenario.gpu, cat))
    gpuOnly.gpuSpec = s.scenario.gpuSpec;
  auto gpu = scenarioGpu(gpuOnly, cat);
  if (!gpu) return gpu.error();
  auto prepared = preparePoints(points, *gpu, out.gpuId, out.notes, cat);
  if (!prepared) return prepared.error();
  if (prepared->empty()) {
    return Error{file, "", "gpu", "no end-to-end run is on " + gpu->name + " to calibrate it"};
  }
  out.points = prepared->size();
  const std::string source = sourceLabel + " (" + std::to_string(prepared->size()) +
                             " end-to-end points, " + utcTimestamp().substr(0, 10) + ")";
  out.prior = scenarioEfficiency(*gpu, false, cat, pointsEngine(*prepared));
  auto fit = fitEndToEnd(*prepared, source, out.prior);
  if (!fit) return fit.error();
  out.fit = std::move(*fit);
  out.gpu = *gpu;
  out.gpu.calibration = e2eCalibrationBlock(out.fit, source);

  // Held out: every other measurement fitted from the same prior, the rest scored against the
  // prior. A measurement is one run at one batch or load (a decode sweep's prefill and decode
  // figures of one batch stay together: split point by point, one half would hold every
  // prefill figure and the other every decode step).
  if (prepared->size() >= 4) {
    std::vector<PreparedPoint> even, odd;
    std::map<std::string, std::size_t> group;
    for (const auto& pp : *prepared) {
      const auto& p = pp.point;
      std::ostringstream key;
      key.precision(17);
      key << p.origin << '|' << p.batch << '|' << p.loadValue << '|' << static_cast<int>(p.load);
      const auto it = group.emplace(key.str(), group.size()).first;
      (it->second % 2 == 0 ? even : odd).push_back(pp);
    }
    // Only its constants are scored: no cross-validation of its own.
    auto half = fitEndToEnd(even, source, out.prior, false);
    if (half) {
      SessionCalibration::HeldOut h;
      h.fitted = even.size();
      h.scored = odd.size();
      h.priorMedianPct = medianAbsErrorPct(odd, out.prior);
      h.calibratedMedianPct = medianAbsErrorPct(odd, half->efficiency);
      if (std::isfinite(h.priorMedianPct) && std::isfinite(h.calibratedMedianPct)) out.heldOut = h;
    }
  }
  return out;
}

}  // namespace qf
