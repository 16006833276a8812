// qfront calibrate POINTS.csv: the model's real-GPU constants fitted to end-to-end
// measurements (docs/model.md, "Calibration from end-to-end measurements").
#include <fstream>
#include <iomanip>
#include <map>
#include <ostream>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/e2e_calibration.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/core/base/version.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/session/atomic_file.hpp>
#include <quantfront/core/session/e2e_evidence.hpp>

#include "cli.hpp"

namespace qf::cli {

namespace {}  // namespace

bool isMeasuredPointsFile(const std::string& path) {
  // The first line only: a session may be large.
  std::ifstream in(path, std::ios::binary);
  std::string first;
  if (!in || !std::getline(in, first)) return false;
  return isMeasuredPointsCsv(first);
}

int calibrateFromPoints(const std::string& file, const std::optional<std::string>& gpuArg,
                        bool datasheet, const std::string& format,
                        const std::optional<std::string>& outPath, std::ostream& out,
                        std::ostream& err) {
  if (!gpuArg) {
    return badArg(err, "gpu",
                  "a measured-points CSV needs the GPU the fit is for: --gpu ID|GPU.json");
  }
  auto text = readFileBytes(file, kMaxMeasuredPointsBytes);
  if (!text) return badInput(err, text.error());
  auto points = parseMeasuredPointsCsv(*text, file);
  if (!points) return badInput(err, points.error());
  return calibrateFromMeasuredPoints(*points, file, *gpuArg, {}, datasheet, format, outPath, out,
                                     err);
}

int calibrateFromMeasuredPoints(const std::vector<MeasuredPoint>& points, const std::string& file,
                                const std::string& gpuArg, const std::vector<std::string>& notesIn,
                                bool datasheet, const std::string& format,
                                const std::optional<std::string>& outPath, std::ostream& out,
                                std::ostream& err) {
  const Catalog& cat = Catalog::bundled();
  auto gpu = cat.resolveGpu(gpuArg);
  if (!gpu) return badInput(err, gpu.error());
  std::vector<std::string> notes = notesIn;
  auto prepared = preparePoints(points, *gpu, gpuArg, notes, cat);
  if (!prepared) return badInput(err, prepared.error());
  for (const auto& n : notes) err << "qfront: note: " << file << ": " << n << "\n";
  const std::string source = "qfront calibrate on " + file + " (" +
                             std::to_string(prepared->size()) + " end-to-end points, " +
                             utcTimestamp().substr(0, 10) + ")";
  // The prior: the GPU's own calibration (its file's block, else the catalog's bundled
  // defaults), which pulls each constant as far as the points leave it undetermined; with
  // --datasheet the ideal roofline, from which the fit is free.
  bool mixedEngines = false;
  const std::string engine = pointsEngine(*prepared, &mixedEngines);
  if (mixedEngines && !gpu->calibration && !datasheet) {
    err << "qfront: note: " << file
        << ": TensorRT-LLM points beside other engines' in one fit: it starts from the "
           "constants vLLM's and SGLang's figures take\n";
  }
  const Efficiency prior = scenarioEfficiency(*gpu, datasheet, cat, engine);
  auto fit = fitEndToEnd(*prepared, file, prior);
  if (!fit) return badInput(err, fit.error());
  for (const auto& w : fit->warnings) err << "qfront: warning: " << file << ": " << w << "\n";
  GpuSpec calibrated = *gpu;
  calibrated.calibration = e2eCalibrationBlock(*fit, source);
  const Json gpuJson = gpuToJson(calibrated);
  if (outPath) {
    if (auto e = writeFileAtomic(*outPath, gpuJson.dump(2) + "\n")) return badInput(err, *e);
  }
  if (format == "json") {
    Json j;
    j["gpu"] = gpu->id.empty() ? gpu->name : gpu->id;
    j["points"] = prepared->size();
    j["calibration"] = gpuJson.at("calibration");
    j["notes"] = notes;
    j["warnings"] = fit->warnings;
    j["prior"] = prior.source;
    if (outPath) j["written"] = *outPath;
    writeJsonOutput(out, std::move(j));
    return kExitOk;
  }
  out << "end-to-end fit for " << gpu->name << " from " << prepared->size() << " points ("
      << fit->dof << " degrees of freedom)\n\n";
  out << std::left << std::setw(36) << "constant" << std::right << std::setw(14) << "value"
      << std::setw(14) << "spread (1s)"
      << "\n";
  for (const auto& c : fit->constants) {
    out << std::left << std::setw(36) << c.name << std::right << std::setw(14)
        << sigFigs(c.value, 4) << std::setw(14) << sigFigs(c.spread, 2) << "\n";
  }
  for (const auto& f : fit->held) {
    out << std::left << std::setw(36) << f << std::right << std::setw(14)
        << sigFigs(e2eConstantValue(fit->efficiency, f), 4) << "   held: implausible as fitted\n";
  }
  for (const auto& f : fit->fixed) {
    out << std::left << std::setw(36) << f << std::right << std::setw(14) << "-"
        << "   not determined by these points (prior kept: "
        << (prior.source.empty() ? std::string("datasheet") : prior.source) << ")\n";
  }
  for (const auto& w : fit->warnings) out << "warning: " << w << "\n";
  out << "\nresidual spread " << sigFigs(100 * fit->sigmaLog, 3) << "% (log); median |error| "
      << sigFigs(fit->medianAbsErrorPct, 3)
      << "% (datasheet model: " << sigFigs(fit->datasheetMedianAbsErrorPct, 3) << "%)\n";
  if (fit->priorPct > 0) {
    out << "each point predicted by a fit of the others: median |error| "
        << sigFigs(fit->crossValidatedPct, 3)
        << "% (the prior's on them: " << sigFigs(fit->priorPct, 3) << "%)\n";
  }
  out << "\n";
  out << std::left << std::setw(28) << "point" << std::setw(16) << "metric" << std::right
      << std::setw(13) << "measured" << std::setw(13) << "fitted" << std::setw(13) << "datasheet"
      << std::setw(10) << "error %"
      << "\n";
  for (const auto& r : fit->residuals) {
    out << std::left << std::setw(28) << r.origin << std::setw(16) << r.metric << std::right
        << std::setw(13) << sigFigs(r.measured, 5) << std::setw(13) << sigFigs(r.fitted, 5)
        << std::setw(13) << sigFigs(r.datasheet, 5) << std::setw(10)
        << sigFigs(100 * (r.fitted / r.measured - 1), 3)
        << (r.weight < 0.999 ? "  (down-weighted)" : "") << "\n";
  }
  if (outPath) out << "\nwrote " << *outPath << ": qfront model --gpu " << *outPath << " ...\n";
  return kExitOk;
}

namespace {

/// Latency-like metrics (smaller is better) against throughputs.
bool isThroughput(E2eMetric m) {
  return m == E2eMetric::OutputTokS || m == E2eMetric::TotalTokS;
}

/// The constants under check are E2eComparison's "calibrated" side (the datasheet's too with
/// --datasheet).
Json summaryJson(const std::vector<E2eComparison>& rows) {
  const E2eErrorSummary s = summarizeE2e(rows);
  return {{"points", rows.size()},
          {"median_abs_error_pct", s.calibratedMedianPct},
          {"median_error_pct", s.calibratedMedianSignedPct},
          {"with_interval", s.withInterval},
          {"inside_interval", s.insideInterval},
          {"extrapolated", s.extrapolated}};
}

std::string summaryText(const std::vector<E2eComparison>& rows) {
  const E2eErrorSummary s = summarizeE2e(rows);
  std::string o = words(rows.size(), " point", rows.size() == 1 ? "" : "s", ", median |error| ",
                        sigFigs(s.calibratedMedianPct, 3), "% (median signed ",
                        sigFigs(s.calibratedMedianSignedPct, 3), "%)");
  if (s.withInterval > 0) {
    o += words(", ", s.insideInterval, " of ", s.withInterval, " inside the 80% interval");
  }
  if (s.extrapolated > 0) o += words(", ", s.extrapolated, " extrapolated");
  return o;
}

}  // namespace

int checkPointsFile(const std::string& file, const std::optional<std::string>& gpuArg,
                    bool datasheet, const std::string& format, std::ostream& out,
                    std::ostream& err) {
  if (!gpuArg) {
    return badArg(err, "gpu",
                  "--check needs the GPU whose constants are checked: --gpu ID|GPU.json");
  }
  const Catalog& cat = Catalog::bundled();
  auto gpu = cat.resolveGpu(*gpuArg);
  if (!gpu) return badInput(err, gpu.error());
  auto text = readFileBytes(file, kMaxMeasuredPointsBytes);
  if (!text) return badInput(err, text.error());
  auto points = parseMeasuredPointsCsv(*text, file);
  if (!points) return badInput(err, points.error());
  std::vector<std::string> notes;
  auto prepared = preparePoints(*points, *gpu, *gpuArg, notes, cat);
  if (!prepared) return badInput(err, prepared.error());
  for (const auto& n : notes) err << "qfront: note: " << file << ": " << n << "\n";
  if (prepared->empty()) {
    return badInput(err, Error{file, "", "gpu", "holds no point on " + *gpuArg + " to check"});
  }
  if (auto e = implausiblePoint(*prepared)) return badInput(err, *e);
  // The constants as any other prediction takes them: the GPU file's calibration, else the
  // catalog's bundled defaults, or the ideal roofline with --datasheet. Nothing is fitted.
  // Each point with its engine's constants where the GPU's are the bundled ones.
  std::map<std::string, Efficiency> byEngine;
  std::string constantsSource;
  auto effOf = [&](const MeasuredPoint& p) -> const Efficiency& {
    const std::string key = engineConstantsKey(p.engine);
    auto it = byEngine.find(key);
    if (it == byEngine.end()) {
      it = byEngine.emplace(key, scenarioEfficiency(*gpu, datasheet, cat, key)).first;
      if (constantsSource.find(it->second.source) == std::string::npos)
        constantsSource += (constantsSource.empty() ? "" : " | ") + it->second.source;
    }
    return it->second;
  };
  std::vector<E2eComparison> rows, latency, throughput;
  std::map<std::string, std::vector<E2eComparison>> byMetric;
  std::map<int, std::vector<E2eComparison>> byTp;
  for (const auto& pp : *prepared) {
    E2eComparison r = comparePoint(pp, effOf(pp.point), 0.8);
    if (!(r.calibrated.value > 0)) {
      return badInput(err, Error{file, pp.point.origin, e2eMetricName(pp.point.metric),
                                 "the model has no prediction for these conditions"});
    }
    (isThroughput(pp.point.metric) ? throughput : latency).push_back(r);
    byMetric[e2eMetricName(pp.point.metric)].push_back(r);
    byTp[pp.point.tp].push_back(r);
    rows.push_back(std::move(r));
  }
  const std::string roofline = datasheet ? "datasheet" : "calibrated";
  if (format == "json") {
    Json j;
    j["gpu"] = gpu->id.empty() ? gpu->name : gpu->id;
    j["roofline"] = roofline;
    j["constants_source"] = constantsSource;
    j["all"] = summaryJson(rows);
    j["latency"] = summaryJson(latency);
    j["throughput"] = summaryJson(throughput);
    Json per = Json::object();
    for (const auto& [name, group] : byMetric) per[name] = summaryJson(group);
    j["by_metric"] = per;
    Json perTp = Json::object();
    for (const auto& [tp, group] : byTp) perTp[std::to_string(tp)] = summaryJson(group);
    j["by_tp"] = perTp;
    Json list = Json::array();
    for (const auto& r : rows) {
      list.push_back({{"origin", r.point.origin},
                      {"metric", e2eMetricName(r.point.metric)},
                      {"tp", r.point.tp},
                      {"load", loadText(r.point)},
                      {"measured", r.point.value},
                      {"predicted", r.calibrated.value},
                      {"low", r.calibrated.low},
                      {"high", r.calibrated.high},
                      {"error_pct", r.calibratedErrorPct()},
                      {"extrapolated", r.calibrated.extrapolated}});
    }
    j["points"] = list;
    j["notes"] = notes;
    writeJsonOutput(out, std::move(j));
    return kExitOk;
  }
  out << "check of " << gpu->name << " (" << roofline << ": " << constantsSource << ") against "
      << rows.size() << " measured points; nothing fitted\n\n";
  out << std::left << std::setw(28) << "point" << std::setw(16) << "metric" << std::right
      << std::setw(13) << "measured" << std::setw(13) << "predicted" << std::setw(25)
      << "80% interval" << std::setw(10) << "error %"
      << "\n";
  for (const auto& r : rows) {
    const IntervalEstimate& c = r.calibrated;
    const std::string interval =
        c.high > c.low ? sigFigs(c.low, 4) + " - " + sigFigs(c.high, 4) : "-";
    out << std::left << std::setw(28) << r.point.origin << std::setw(16)
        << e2eMetricName(r.point.metric) << std::right << std::setw(13) << sigFigs(r.point.value, 5)
        << std::setw(13) << sigFigs(c.value, 5) << std::setw(25) << interval << std::setw(10)
        << sigFigs(r.calibratedErrorPct(), 3) << (c.extrapolated ? "  (extrapolated)" : "") << "\n";
  }
  out << "\nall         " << summaryText(rows) << "\n";
  if (!latency.empty()) out << "latency     " << summaryText(latency) << "\n";
  if (!throughput.empty()) out << "throughput  " << summaryText(throughput) << "\n";
  for (const auto& [name, group] : byMetric) {
    out << "  " << std::left << std::setw(16) << name << summaryText(group) << "\n";
  }
  for (const auto& [tp, group] : byTp) {
    out << "  " << std::left << std::setw(16) << ("TP " + std::to_string(tp)) << summaryText(group)
        << "\n";
  }
  return kExitOk;
}

}  // namespace qf::cli
