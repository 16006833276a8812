// qfront calibrate POINTS.csv: the model's real-GPU constants fitted to end-to-end
// measurements (docs/model.md, "Calibration from end-to-end measurements").
#include <cmath>
#include <fstream>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/e2e_calibration.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/base/percentile.hpp>
#include <quantfront/core/base/version.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/session/atomic_file.hpp>

#include "cli.hpp"

namespace qf::cli {

namespace {

std::string num(double v, int precision) {
  std::ostringstream o;
  o << std::setprecision(precision) << v;
  return o.str();
}

}  // namespace

bool isMeasuredPointsFile(const std::string& path) {
  // The first line only: a session may be large.
  std::ifstream in(path, std::ios::binary);
  std::string first;
  if (!in || !std::getline(in, first)) return false;
  return isMeasuredPointsCsv(first);
}

int calibrateFromPoints(const std::string& file, const std::optional<std::string>& gpuArg,
                        const std::string& format, const std::optional<std::string>& outPath,
                        std::ostream& out, std::ostream& err) {
  if (!gpuArg) {
    return badArg(err, "gpu",
                  "a measured-points CSV needs the GPU the fit is for: --gpu ID|GPU.json");
  }
  auto text = readFileBytes(file);
  if (!text) return badInput(err, text.error());
  auto points = parseMeasuredPointsCsv(*text, file);
  if (!points) return badInput(err, points.error());
  return calibrateFromMeasuredPoints(*points, file, *gpuArg, {}, format, outPath, out, err);
}

int calibrateFromMeasuredPoints(const std::vector<MeasuredPoint>& points, const std::string& file,
                                const std::string& gpuArg, const std::vector<std::string>& notesIn,
                                const std::string& format,
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
                             std::to_string(prepared->size()) + " end-to-end points)";
  auto fit = fitEndToEnd(*prepared, file);
  if (!fit) return badInput(err, fit.error());
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
    if (outPath) j["written"] = *outPath;
    stampOutput(j);
    out << j.dump(2) << "\n";
    return kExitOk;
  }
  out << "end-to-end fit for " << gpu->name << " from " << prepared->size() << " points ("
      << fit->dof << " degrees of freedom)\n\n";
  out << std::left << std::setw(36) << "constant" << std::right << std::setw(14) << "value"
      << std::setw(14) << "spread (1s)"
      << "\n";
  for (const auto& c : fit->constants) {
    out << std::left << std::setw(36) << c.name << std::right << std::setw(14) << num(c.value, 4)
        << std::setw(14) << num(c.spread, 2) << "\n";
  }
  for (const auto& f : fit->fixed) {
    out << std::left << std::setw(36) << f << std::right << std::setw(14) << "-"
        << "   not determined: no point depends on it (datasheet value kept)\n";
  }
  out << "\nresidual spread " << num(100 * fit->sigmaLog, 3) << "% (log); median |error| "
      << num(fit->medianAbsErrorPct, 3)
      << "% (datasheet model: " << num(fit->datasheetMedianAbsErrorPct, 3) << "%)\n\n";
  out << std::left << std::setw(28) << "point" << std::setw(16) << "metric" << std::right
      << std::setw(13) << "measured" << std::setw(13) << "fitted" << std::setw(13) << "datasheet"
      << std::setw(10) << "error %"
      << "\n";
  for (const auto& r : fit->residuals) {
    out << std::left << std::setw(28) << r.origin << std::setw(16) << r.metric << std::right
        << std::setw(13) << num(r.measured, 5) << std::setw(13) << num(r.fitted, 5) << std::setw(13)
        << num(r.datasheet, 5) << std::setw(10) << num(100 * (r.fitted / r.measured - 1), 3)
        << (r.weight < 0.999 ? "  (down-weighted)" : "") << "\n";
  }
  if (outPath) out << "\nwrote " << *outPath << ": qfront model --gpu " << *outPath << " ...\n";
  return kExitOk;
}

namespace {

/// One point's prediction beside its measurement.
struct CheckedPoint {
  const PreparedPoint* point = nullptr;
  IntervalEstimate predicted;
  [[nodiscard]] double errorPct() const {
    return 100.0 * (predicted.value / point->point.value - 1.0);
  }
  [[nodiscard]] bool hasInterval() const { return predicted.high > predicted.low; }
  [[nodiscard]] bool inside() const {
    return point->point.value >= predicted.low && point->point.value <= predicted.high;
  }
};

/// Median |error|, interval coverage and extrapolations over a group of points.
struct CheckSummary {
  int points = 0, withInterval = 0, inside = 0, extrapolated = 0;
  double medianAbsErrorPct = 0, medianErrorPct = 0;
};

CheckSummary summarize(const std::vector<const CheckedPoint*>& rows) {
  CheckSummary s;
  std::vector<double> absErr, err;
  for (const auto* r : rows) {
    ++s.points;
    absErr.push_back(std::abs(r->errorPct()));
    err.push_back(r->errorPct());
    if (r->hasInterval()) {
      ++s.withInterval;
      if (r->inside()) ++s.inside;
    }
    if (r->predicted.extrapolated) ++s.extrapolated;
  }
  if (!absErr.empty()) {
    s.medianAbsErrorPct = medianOf(absErr);
    s.medianErrorPct = medianOf(err);
  }
  return s;
}

/// Latency-like metrics (smaller is better) against throughputs.
bool isThroughput(E2eMetric m) {
  return m == E2eMetric::OutputTokS || m == E2eMetric::TotalTokS;
}

Json summaryJson(const CheckSummary& s) {
  return {{"points", s.points},
          {"median_abs_error_pct", s.medianAbsErrorPct},
          {"median_error_pct", s.medianErrorPct},
          {"with_interval", s.withInterval},
          {"inside_interval", s.inside},
          {"extrapolated", s.extrapolated}};
}

std::string summaryText(const CheckSummary& s) {
  std::ostringstream o;
  o << s.points << " point" << (s.points == 1 ? "" : "s") << ", median |error| "
    << num(s.medianAbsErrorPct, 3) << "% (median signed " << num(s.medianErrorPct, 3) << "%)";
  if (s.withInterval > 0) {
    o << ", " << s.inside << " of " << s.withInterval << " inside the 80% interval";
  }
  if (s.extrapolated > 0) o << ", " << s.extrapolated << " extrapolated";
  return o.str();
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
  auto text = readFileBytes(file);
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
  // The constants as any other prediction takes them: the GPU file's calibration, else the
  // catalog's bundled defaults, or the ideal roofline with --datasheet. Nothing is fitted.
  const Efficiency eff = scenarioEfficiency(*gpu, datasheet, cat);
  std::vector<CheckedPoint> rows;
  for (const auto& pp : *prepared) {
    CheckedPoint r;
    r.point = &pp;
    const MeasuredPoint& p = pp.point;
    r.predicted = intervalFor([&pp](const Efficiency& e) { return predictPoint(pp, e); }, eff,
                              eff.calibrationExtra, 0.8, p.batch, p.inputLen, p.outputLen);
    if (!(r.predicted.value > 0)) {
      return badInput(err, Error{file, p.origin, e2eMetricName(p.metric),
                                 "the model has no prediction for these conditions"});
    }
    rows.push_back(r);
  }
  std::vector<const CheckedPoint*> all, latency, throughput;
  std::map<std::string, std::vector<const CheckedPoint*>> byMetric;
  for (const auto& r : rows) {
    all.push_back(&r);
    (isThroughput(r.point->point.metric) ? throughput : latency).push_back(&r);
    byMetric[e2eMetricName(r.point->point.metric)].push_back(&r);
  }
  const std::string roofline = datasheet ? "datasheet" : "calibrated";
  if (format == "json") {
    Json j;
    j["gpu"] = gpu->id.empty() ? gpu->name : gpu->id;
    j["roofline"] = roofline;
    j["constants_source"] = eff.source;
    j["all"] = summaryJson(summarize(all));
    j["latency"] = summaryJson(summarize(latency));
    j["throughput"] = summaryJson(summarize(throughput));
    Json per = Json::object();
    for (const auto& [name, group] : byMetric) per[name] = summaryJson(summarize(group));
    j["by_metric"] = per;
    Json list = Json::array();
    for (const auto& r : rows) {
      const MeasuredPoint& p = r.point->point;
      list.push_back({{"origin", p.origin},
                      {"metric", e2eMetricName(p.metric)},
                      {"measured", p.value},
                      {"predicted", r.predicted.value},
                      {"low", r.predicted.low},
                      {"high", r.predicted.high},
                      {"error_pct", r.errorPct()},
                      {"extrapolated", r.predicted.extrapolated}});
    }
    j["points"] = list;
    j["notes"] = notes;
    stampOutput(j);
    out << j.dump(2) << "\n";
    return kExitOk;
  }
  out << "check of " << gpu->name << " (" << roofline << ": " << eff.source << ") against "
      << rows.size() << " measured points; nothing fitted\n\n";
  out << std::left << std::setw(28) << "point" << std::setw(16) << "metric" << std::right
      << std::setw(13) << "measured" << std::setw(13) << "predicted" << std::setw(25)
      << "80% interval" << std::setw(10) << "error %"
      << "\n";
  for (const auto& r : rows) {
    const MeasuredPoint& p = r.point->point;
    const std::string interval =
        r.hasInterval() ? num(r.predicted.low, 4) + " - " + num(r.predicted.high, 4) : "-";
    out << std::left << std::setw(28) << p.origin << std::setw(16) << e2eMetricName(p.metric)
        << std::right << std::setw(13) << num(p.value, 5) << std::setw(13)
        << num(r.predicted.value, 5) << std::setw(25) << interval << std::setw(10)
        << num(r.errorPct(), 3) << (r.predicted.extrapolated ? "  (extrapolated)" : "") << "\n";
  }
  out << "\nall         " << summaryText(summarize(all)) << "\n";
  if (!latency.empty()) out << "latency     " << summaryText(summarize(latency)) << "\n";
  if (!throughput.empty()) out << "throughput  " << summaryText(summarize(throughput)) << "\n";
  for (const auto& [name, group] : byMetric) {
    out << "  " << std::left << std::setw(16) << name << summaryText(summarize(group)) << "\n";
  }
  return kExitOk;
}

}  // namespace qf::cli
