// qfront calibrate POINTS.csv: the model's real-GPU constants fitted to end-to-end
// measurements (docs/model.md, "Calibration from end-to-end measurements").
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/e2e_calibration.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/base/version.hpp>
#include <quantfront/core/model/catalog.hpp>
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

}  // namespace qf::cli
