// qfront calibrate: the analytic model's bandwidth, tensor rates and dequant cost fitted to a
// session's kernel measurements; qfront merge: sessions of many GPU nodes into one.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/calibration.hpp>
#include <quantfront/core/analysis/calibration_bounds.hpp>
#include <quantfront/core/analysis/energy.hpp>
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/base/version.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/session/atomic_file.hpp>
#include <quantfront/core/session/e2e_evidence.hpp>
#include <quantfront/core/session/session.hpp>
#include <quantfront/core/session/session_merge.hpp>

#include "cli.hpp"
#include "shell.hpp"

namespace qf::cli {

namespace {

constexpr OptionSpec kCalibrateOptions[] = {
    {"--gpu", "ID|PATH",
     "the datasheet GPU the efficiencies are relative to (default: the\n"
     "catalog GPU the device name stands for, e.g. NVIDIA H100 80GB HBM3 →\n"
     "h100-sxm)"},
    {"--device", "NAME",
     "which device's records to fit when the session holds several (a\n"
     "merged fleet); records of two devices are never mixed in one fit"},
    {"--model", "ID|PATH",
     "model for the measured step time (default: the session's scenario model)"},
    {"--format", "table|json", "output format (default table)", oneOf("table|json")},
    {"-o", "GPU.json",
     "write the calibrated GPU file (not SESSION itself; checked with the\n"
     "reader qfront model --gpu uses before it is written): the datasheet\n"
     "GPU as --gpu reads it plus a \"calibration\" block (source, device,\n"
     "bandwidth_efficiency, compute_efficiency {path or scheme: fraction},\n"
     "dequant_s_per_weight {scheme: s}, fits with residuals), for qfront\n"
     "model --gpu GPU.json"},
    {"--check", "",
     "predict each point of POINTS.csv with the GPU's constants as they are\n"
     "(nothing fitted), with the median |error|"},
    {"--datasheet", "",
     "POINTS.csv: fit freely from the ideal roofline instead of the GPU's\n"
     "calibration as the prior"},
};

const CommandSpec& calibrateCommand() {
  static const CommandSpec command{
      "qfront",
      "calibrate",
      R"(usage: qfront calibrate SESSION [--gpu ID|GPU.json] [--device NAME] [--model ID|CONFIG.json]
                        [--format table|json] [-o GPU.json]
       qfront calibrate POINTS.csv --gpu ID|GPU.json [--datasheet] [--format table|json] [-o GPU.json]
       qfront calibrate POINTS.csv --gpu ID|GPU.json --check [--datasheet] [--format table|json]
)",
      R"(POINTS.csv, detected by its header
  model,gpu,tp,scheme,kv_dtype,batch,input_len,output_len,metric,value,unit
(metric e2e_latency_s [s], ttft_ms, tpot_ms, decode_step_ms, prefill_ms [ms], output_tok_s,
total_tok_s [tok/s]; model a catalog id or a config.json path relative to the CSV), fits the
per-step overhead, bandwidth efficiency, compute efficiency per tensor path and dequant cost
per kernel class by robust least squares on ln(predicted/measured), prints each with its
spread and every point's residual. The GPU's calibration (its file's block, else the bundled
defaults) is the prior: each constant moves only as far as the points determine it
(--datasheet: a free fit from the ideal roofline, refused (exit 2) when the points cannot
determine it). Rows of another GPU are left out with a note. -o writes the GPU file with the
fitted "calibration" block. After `unit`, optional columns by name: load (a request rate in
req/s, cN clients, or max: a serving row, whose batch may be empty; metrics ttft_p50_ms,
ttft_p99_ms, tpot_p50_ms, tpot_p99_ms, itl_p50_ms, itl_p99_ms, output_tok_s of the
deployment, and the means), max_batch and token_budget (the server's limits; default: the
engine's own on the GPU), engine (vllm, sglang or trtllm: how the server sized its KV pool);
other columns (a source, a note) are carried, not read. A session's vllm bench serve
and SGLang bench_serving runs are serving rows at their offered load; one without its request
rate, of a model other than its candidate's, or whose figures its own per-request records
contradict exits 2 naming it.

With --check nothing is fitted: each point is predicted with the GPU's constants as every
other command takes them (the GPU file's calibration block, else the catalog's bundled
defaults; --datasheet: the ideal roofline), with its 80% interval where the constants carry a
fit, and the median |error| is printed for all points, for latencies, for throughputs and per
metric: how well a calibration predicts points it was not fitted to.

Fits the analytic model to the kernel measurements in SESSION (qfront-measure, or nvbench
files imported with qfront import), one device at a time:
  bandwidth  β from the hbm_copy / hbm_read probes (bytes moved over the median time);
  tensor     P per path from the GEMMs at M >= 1024 (gemm_bf16, gemm_fp8, gemm_int8), and
             per scheme for our own kernels (gemm_w4a16-g128);
  dequant    seconds per weight per scheme from the streaming dequant kernels;
each by robust least squares (Huber-weighted, relative residuals), with the spread of the
records around the fit. Records no GPU could produce against the datasheet (a time outside
1e-7..3600 s, a rate above 2x its peak) are left out with a warning naming each; a fit that
still cannot be made exits 2. Also the measured step time of the model per scheme: the sum over
its decode GEMMs of the measured time at M = B, at each measured B.

)",
      {kCalibrateOptions},
      R"(Exit status: 0 on success, 2 on bad input (one line naming file, position and field).
)",
      16};
  return command;
}

constexpr OptionSpec kMergeOptions[] = {
    {"-o", "OUT.json", "the merged session (created, or added to when it exists)"},
};

const CommandSpec& mergeCommand() {
  static const CommandSpec command{
      "qfront",
      "merge",
      R"(usage: qfront merge SESSION... -o OUT.json
)",
      R"(Combines sessions into OUT.json (created, or added to when it exists; written atomically,
under the same lock qfront import takes): kernel measurements keep their device (qfront
calibrate --device picks one) and are keyed by kernel, scheme, device and shape, every record
kept but an exact copy of one already there; a record with a NaN, infinite or non-positive
time is refused when its session is read, naming it. Imported runs are added once (same
file digest, or the same measurement run, is a duplicate), candidates by id (an id already in
OUT.json keeps OUT.json's figures, with a warning). The scenario and view
of OUT.json (or of the first session when OUT.json is new) stay. For a fleet: each node runs
qfront-measure --out node-$HOST.json (scripts/measure-fleet.sbatch), then
  qfront merge node-*.json -o fleet.json && qfront calibrate fleet.json --device "NVIDIA H100 80GB HBM3"

)",
      {kMergeOptions},
      R"(Exit status: 0 on success, 2 on bad input.
)",
      1000000};
  return command;
}

/// True when `a` and `b` name the same file (through links too), or the same path when
/// either does not exist yet.
bool sameFile(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec) && !ec) return true;
  return std::filesystem::weakly_canonical(a, ec) == std::filesystem::weakly_canonical(b, ec);
}

Json fitJson(const FittedValue& f, double value) {
  return Json{{"value", value}, {"rel_spread", f.relSpread}, {"records", f.records}};
}

/// What the calibration prints: the fit, the GPU file written, the measured steps and energy.
struct CalibrationReport {
  const Calibration& cal;
  const GpuSpec& gpu;
  const Json& gpuJson;
  const std::vector<std::pair<std::string, std::vector<MeasuredStep>>>& steps;
  const std::vector<std::pair<std::string, std::vector<MeasuredEnergy>>>& energy;
  const std::optional<ModelArch>& model;
  const std::optional<std::string>& written;  ///< the GPU file written (-o)
};

void printCalibrationJson(const CalibrationReport& r, std::ostream& out) {
  Json j;
  j["device"] = r.cal.device;
  j["gpu"] = r.gpu.name;
  if (r.cal.bandwidthBytesPerS) {
    j["bandwidth_tbs"] = fitJson(*r.cal.bandwidthBytesPerS, r.cal.bandwidthBytesPerS->value / 1e12);
  }
  j["tensor_tflops"] = Json::object();
  for (const auto& [key, f] : r.cal.peakFlopsPerS)
    j["tensor_tflops"][key] = fitJson(f, f.value / 1e12);
  j["dequant_s_per_weight"] = Json::object();
  for (const auto& [key, f] : r.cal.dequantSecondsPerWeight) {
    j["dequant_s_per_weight"][key] = fitJson(f, f.value);
  }
  j["kernel_bandwidth_efficiency"] = Json::object();
  for (const auto& [key, f] : r.cal.kernelBandwidthEff) {
    j["kernel_bandwidth_efficiency"][key] = fitJson(f, f.value);
  }
  j["streaming_dequant_probe_s_per_weight"] = Json::object();
  for (const auto& [key, f] : r.cal.streamingDequantSPerWeight) {
    j["streaming_dequant_probe_s_per_weight"][key] = fitJson(f, f.value);
  }
  j["calibration"] = r.gpuJson.at("calibration");
  j["measured_step"] = Json::array();
  for (const auto& [scheme, st] : r.steps) {
    Json s{{"scheme", scheme}, {"model", r.model ? r.model->name : ""}, {"points", Json::array()}};
    for (const auto& p : st) {
      s["points"].push_back(
          {{"batch", p.batch}, {"step_ms", p.stepS * 1e3}, {"spread_ms", p.spreadS * 1e3}});
    }
    j["measured_step"].push_back(s);
  }
  if (!r.energy.empty()) {
    j["measured_energy"] = Json::array();
    for (const auto& [scheme, es] : r.energy) {
      Json s{{"scheme", scheme}, {"metric", kEnergyPerTokenMetric}, {"points", Json::array()}};
      for (const auto& p : es) {
        s["points"].push_back({{"batch", p.batch},
                               {"j_per_step", p.joulesPerStep},
                               {"j_per_token", p.joulesPerToken}});
      }
      j["measured_energy"].push_back(s);
    }
  }
  j["warnings"] = r.cal.warnings;
  if (r.written) j["written"] = *r.written;
  writeJsonOutput(out, std::move(j));
}

void printCalibrationTable(const CalibrationReport& r, std::ostream& out) {
  out << "device   " << r.cal.device << "   (datasheet: " << r.gpu.name << ")\n";
  if (r.cal.bandwidthBytesPerS) {
    const auto& f = *r.cal.bandwidthBytesPerS;
    out << "bandwidth  " << fixedDecimals(f.value / 1e12, 3) << " TB/s ± "
        << fixedDecimals(100 * f.relSpread, 1) << "%  (" << f.records << " records; datasheet "
        << fixedDecimals(r.gpu.hbmBandwidthTBps, 2)
        << " TB/s: " << fixedDecimals(100 * f.value / r.gpu.bandwidthBytesPerS(), 1) << "%)\n";
  }
  for (const auto& [key, f] : r.cal.peakFlopsPerS) {
    const auto path = tensorPathFromName(key);
    const TensorPath p = path ? *path : TensorPath::Bf16;
    out << "tensor " << std::left << std::setw(11) << key << std::right
        << fixedDecimals(f.value / 1e12, 1) << " TFLOP/s ± " << fixedDecimals(100 * f.relSpread, 1)
        << "%  (" << f.records << " records";
    if (r.gpu.hasPath(p)) {
      out << "; " << fixedDecimals(100 * f.value / r.gpu.peakFlopsPerS(p), 1) << "% of the "
          << tensorPathName(p) << " peak";
    }
    out << ")\n";
  }
  for (const auto& [key, f] : r.cal.kernelBandwidthEff) {
    out << "decode bw " << std::left << std::setw(14) << key << std::right
        << fixedDecimals(f.value, 3) << " of the probes' bandwidth ± "
        << fixedDecimals(100 * f.relSpread, 1) << "%  (" << f.records
        << " records at M <= " << kDecodeMaxM << ")\n";
  }
  for (const auto& [key, f] : r.cal.dequantSecondsPerWeight) {
    out << "dequant " << std::left << std::setw(16) << key << std::right << scientific(f.value, 3)
        << " s/weight ± " << fixedDecimals(100 * f.relSpread, 1)
        << "%  (the fused kernel's time beyond its weight read, " << f.records
        << " records at M <= " << kDecodeMaxM << ")\n";
  }
  for (const auto& [key, f] : r.cal.streamingDequantSPerWeight) {
    out << "probe   " << std::left << std::setw(16) << ("dequant_" + key) << std::right
        << scientific(f.value, 3)
        << " s/weight  (streaming kernel, write-bound: reported, not priced; " << f.records
        << " records)\n";
  }
  for (const auto& [scheme, st] : r.steps) {
    out << "\nmeasured step time, " << (r.model ? r.model->name : "") << ", " << scheme
        << " (sum of its decode GEMMs at M = B)\n";
    for (const auto& p : st) {
      out << "  B " << std::setw(5) << p.batch << "  " << fixedDecimals(p.stepS * 1e3, 3)
          << " ms ± " << fixedDecimals(p.spreadS * 1e3, 3) << "\n";
    }
  }
  for (const auto& [scheme, es] : r.energy) {
    out << "\nmeasured GEMM energy, " << (r.model ? r.model->name : "") << ", " << scheme
        << " (board joules of its decode GEMMs at M = B, NVML)\n";
    for (const auto& p : es) {
      out << "  B " << std::setw(5) << p.batch << "  " << fixedDecimals(p.joulesPerStep, 4)
          << " J/step  " << fixedDecimals(p.joulesPerToken, 4) << " J/token\n";
    }
  }
}

/// The options a kernel-record fit reads, as given.
struct KernelFitArgs {
  const std::optional<std::string>&deviceOpt, &gpuOpt, &modelOpt, &outOpt;
};

/// `qfront calibrate SESSION` on a session's kernel records: the device's constants fitted,
/// the measured step time (and energy) per scheme, the GPU file written with -o.
int calibrateFromKernelRecords(const Session& session, const std::string& file,
                               const KernelFitArgs& a, const std::string& format, std::ostream& out,
                               std::ostream& err) {
  const auto& [deviceOpt, gpuOpt, modelOpt, outOpt] = a;
  // The device whose records are fitted: --device, else the only one.
  const auto devices = measuredDevices(session.kernelMeasurements);
  std::string device = deviceOpt.value_or(devices.size() == 1 ? devices.front() : "");
  if (std::find(devices.begin(), devices.end(), device) == devices.end()) {
    // None, several without a choice, or one without records: calibrate() says which.
    auto none = calibrate(session.kernelMeasurements, device, file);
    return badInput(err, none ? Error{file, "", "device", "no device to fit"} : none.error());
  }

  const auto& catalog = Catalog::bundled();
  std::string gpuId = gpuOpt.value_or(catalogGpuForDevice(device));
  if (gpuId.empty()) {
    return badArg(err, "gpu",
                  "no catalog GPU for device '" + device +
                      "'; give the datasheet with --gpu ID|GPU.json (" + catalog.gpuIds() + ")");
  }
  auto gpu = catalog.resolveGpu(gpuId);
  if (!gpu) return badInput(err, gpu.error());
  // Records no GPU could produce are left out, with a warning each, before the fit.
  const RecordScreen screen = screenRecords(session.kernelMeasurements, device, *gpu);
  auto cal = calibrate(screen.kept, device, file);
  if (!cal) return badInput(err, cal.error());
  cal->warnings.insert(cal->warnings.begin(), screen.warnings.begin(), screen.warnings.end());

  // The measured step time per scheme that has GEMM records, at each measured M.
  const std::string modelId = modelOpt.value_or(session.scenario.model);
  std::optional<ModelArch> model;
  if (!modelId.empty()) {
    auto m = catalog.resolveModel(modelId);
    if (!m) return badInput(err, m.error());
    model = std::move(*m);
  }
  const std::vector<double> batches =
      measuredGemmBatches(session.kernelMeasurements, cal->device, "");
  const std::vector<std::string> schemes =
      measuredGemmSchemes(session.kernelMeasurements, cal->device);
  std::vector<std::pair<std::string, std::vector<MeasuredStep>>> steps;
  if (model) {
    for (const auto& s : schemes) {
      auto st =
          measuredStepTimes(session.kernelMeasurements, cal->device, *model, s, batches, file);
      if (!st) return badInput(err, st.error());
      if (!st->empty()) steps.emplace_back(s, std::move(*st));
    }
  }
  // Joules per token where the records carry NVML energy (none: nothing is shown).
  std::vector<std::pair<std::string, std::vector<MeasuredEnergy>>> energy;
  for (const auto& [scheme, st] : steps) {
    auto e = measuredEnergyPerToken(session.kernelMeasurements, cal->device, *model, scheme,
                                    batches, file);
    if (e && !e->empty()) energy.emplace_back(scheme, std::move(*e));
  }

  const Json gpuJson = calibratedGpuJson(*gpu, *cal, file);
  // What is written must read back: checked with the reader qfront model --gpu uses.
  if (auto back = parseGpu(gpuJson, outOpt.value_or(file), "/"); !back) {
    Error e = back.error();
    e.message = "the calibrated GPU would not read back: " + e.message + "; nothing written";
    return badInput(err, e);
  }
  if (outOpt) {
    if (auto e = writeFileAtomic(*outOpt, gpuJson.dump(2) + "\n")) return badInput(err, *e);
  }
  for (const auto& w : cal->warnings) err << "qfront: warning: " << file << ": " << w << "\n";

  const CalibrationReport report{*cal, *gpu, gpuJson, steps, energy, model, outOpt};
  if (format == "json") {
    printCalibrationJson(report, out);
    return kExitOk;
  }
  printCalibrationTable(report, out);
  if (outOpt) out << "\nwrote " << *outOpt << ": qfront model --gpu " << *outOpt << " ...\n";
  return kExitOk;
}

}  // namespace

int cmdCalibrate(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  int rc = kExitOk;
  const auto parsed = parseCommand(calibrateCommand(), argv, out, err, rc);
  if (!parsed) return rc;
  const auto gpuOpt = parsed->value("--gpu"), deviceOpt = parsed->value("--device"),
             modelOpt = parsed->value("--model"), formatOpt = parsed->value("--format"),
             outOpt = parsed->value("-o");
  const bool check = parsed->flag("--check");
  const bool datasheet = parsed->flag("--datasheet");
  const std::vector<std::string>& files = parsed->positionals();
  if (files.size() != 1) {
    return badArg(err, "SESSION", "expected one session, found " + std::to_string(files.size()));
  }
  const std::string format = formatOpt.value_or("table");  // its table checks the value
  if (outOpt) {
    const std::filesystem::path p(*outOpt);
    std::error_code ec;
    const auto folder = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
    if (!std::filesystem::is_directory(folder, ec)) {
      return badArg(err, "o", "folder '" + folder.string() + "' does not exist");
    }
    if (sameFile(*outOpt, files[0])) {
      return badArg(err, "o",
                    "-o '" + *outOpt +
                        "' is the measured session itself; writing the GPU file "
                        "there would replace the measurements. Choose another file");
    }
  }
  // A measured-points CSV: the end-to-end fit instead of the kernel-record fit.
  const bool pointsFile = isMeasuredPointsFile(files[0]);
  if (check && !pointsFile) {
    return badArg(err, "check", "--check takes a measured-points CSV, not a session");
  }
  if (check && outOpt) return badArg(err, "o", "--check fits nothing, so writes no GPU file");
  // A CSV names its model and GPU on every row: --device and --model would be ignored.
  if (pointsFile && (deviceOpt || modelOpt)) {
    return badArg(err, deviceOpt ? "device" : "model",
                  std::string(deviceOpt ? "--device" : "--model") +
                      " picks kernel records of a session; a measured-points CSV names the "
                      "model and GPU on each row");
  }
  if (pointsFile && check) return checkPointsFile(files[0], gpuOpt, datasheet, format, out, err);
  if (pointsFile) return calibrateFromPoints(files[0], gpuOpt, datasheet, format, outOpt, out, err);
  auto session = loadSession(files[0]);
  if (!session) return badInput(err, session.error());
  // A session without kernel records: the end-to-end fit of its static-batch runs.
  if (session->kernelMeasurements.empty()) {
    std::vector<std::string> notes;
    std::vector<Error> defects;
    const auto points =
        measuredPointsFromSession(*session, files[0], notes, Catalog::bundled(), &defects);
    if (!defects.empty()) return badInput(err, defects.front());
    if (!points.empty()) {
      std::string gpuArg = gpuOpt.value_or("");
      if (gpuArg.empty()) {
        for (const auto& p : points) {
          if (gpuArg.empty()) gpuArg = p.gpu;
          if (!sameGpu(p.gpu, gpuArg, Catalog::bundled())) {
            return badArg(err, "gpu",
                          "the session's end-to-end runs are on several GPUs ('" + gpuArg + "', '" +
                              p.gpu + "'); give the one to fit with --gpu ID|GPU.json");
          }
        }
      }
      return calibrateFromMeasuredPoints(points, files[0], gpuArg, notes, datasheet, format, outOpt,
                                         out, err);
    }
    for (const auto& n : notes) err << "qfront: note: " << files[0] << ": " << n << "\n";
  }
  if (datasheet) {
    return badArg(err, "datasheet",
                  "--datasheet sets the prior of an end-to-end fit; kernel records are fitted "
                  "against the datasheet already");
  }
  return calibrateFromKernelRecords(*session, files[0], {deviceOpt, gpuOpt, modelOpt, outOpt},
                                    format, out, err);
}

int cmdMerge(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  int rc = kExitOk;
  const auto parsed = parseCommand(mergeCommand(), argv, out, err, rc);
  if (!parsed) return rc;
  const auto outOpt = parsed->value("-o");
  if (!outOpt) return badArg(err, "o", "give the merged session with -o OUT.json");
  const std::vector<std::string>& files = parsed->positionals();
  if (files.empty()) return badArg(err, "SESSION", "give at least one session to merge");
  // Every input is read before anything is written.
  std::vector<Session> inputs;
  for (const auto& f : files) {
    auto s = loadSession(f);
    if (!s) return badInput(err, s.error());
    inputs.push_back(std::move(*s));
  }
  auto lock = lockForUpdate(*outOpt, "qfront merge", err, rc);
  if (!lock) return rc;
  Session merged;
  std::error_code ec;
  std::size_t first = 0;
  if (std::filesystem::exists(std::filesystem::symlink_status(*outOpt, ec))) {
    auto s = loadSession(*outOpt);
    if (!s) return badInput(err, s.error());
    merged = std::move(*s);
  } else {
    merged = inputs.front();
    first = 1;
  }
  SessionMergeResult total;
  for (std::size_t i = first; i < inputs.size(); ++i) {
    const auto r = mergeSession(merged, inputs[i]);
    total.measurementsAdded += r.measurementsAdded;
    total.measurementsDuplicate += r.measurementsDuplicate;
    total.runsAdded += r.runsAdded;
    total.runsDuplicate += r.runsDuplicate;
    total.candidatesAdded += r.candidatesAdded;
    for (const auto& w : r.warnings) err << "qfront: warning: " << files[i] << ": " << w << "\n";
  }
  if (auto e = saveSessionAtomic(merged, *outOpt)) return badInput(err, *e);
  out << "merged " << files.size() << " sessions into " << *outOpt << ": "
      << merged.kernelMeasurements.size() << " kernel measurements (" << total.measurementsDuplicate
      << " duplicates left out) from " << measuredDevices(merged.kernelMeasurements).size()
      << " devices, " << merged.importedRuns.size() << " imported runs, "
      << merged.candidates.size() << " candidates\n";
  return kExitOk;
}

}  // namespace qf::cli
