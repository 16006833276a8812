// Plans from model configs and session records from measurements (host code only).
#include <quantfront/cuda/measure_session.hpp>

#include <algorithm>
#include <map>
#include <set>

#include <quantfront/core/base/version.hpp>
#include <quantfront/core/model/gemm_shapes.hpp>

namespace qf::cuda {

std::vector<std::int64_t> defaultMList(bool quick) {
  if (quick) return {1, 4, 16, 64, 256, 1024, 4096};
  std::vector<std::int64_t> m;
  for (std::int64_t v = 1; v <= 4096; v *= 2) m.push_back(v);
  return m;
}

MeasureConfig planForModel(const ModelArch& model, const std::vector<std::string>& schemes,
                           const std::vector<std::int64_t>& mList, bool quick, int device) {
  MeasureConfig c;
  c.device = device;
  c.schemes = schemes;
  c.mList = mList;
  c.quick = quick;
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> seen;
  for (const auto& s : decodeGemmShapes(model)) {
    const auto key = std::make_pair(s.n, s.k);
    if (const auto it = seen.find(key); it != seen.end()) {
      c.shapes[it->second].name += "+" + s.name;
      continue;
    }
    seen.emplace(key, c.shapes.size());
    c.shapes.push_back(
        {s.name, s.n, s.k, static_cast<int>(std::min<std::int64_t>(s.count, 1 << 20))});
  }
  return c;
}

KernelMeasurement toKernelMeasurement(const MeasureRecord& r, const std::string& device,
                                      const std::string& sourceLabel) {
  KernelMeasurement k = r;  // the record's measured figures, without its check and board state
  if (k.device.empty()) k.device = device;
  k.sourceFile = sourceLabel + (r.sourceFile.empty() ? "" : " (" + r.sourceFile + ")");
  return k;
}

std::vector<KernelMeasurement> toKernelMeasurements(const MeasureResult& result,
                                                    const std::string& sourceLabel) {
  std::vector<KernelMeasurement> out;
  for (const auto& r : result.records) {
    if (r.valid) out.push_back(toKernelMeasurement(r, result.environment.name, sourceLabel));
  }
  return out;
}

std::string buildGitSha() {
  // 12 hex digits, as `git log --oneline` abbreviates, and "-dirty" when the tree had changes.
  std::string sha = gitCommit();
  if (sha != "unknown" && sha.size() > 12) sha.resize(12);
  return gitDirty() ? sha + "-dirty" : sha;
}

ImportedRun environmentRun(const MeasureResult& result, const MeasureConfig& config,
                           const std::string& modelName, const std::string& dateUtc) {
  const EnvironmentInfo& e = result.environment;
  ImportedRun run;
  run.format = kMeasureRunFormat;
  run.kind = RunKind::Kernels;
  run.sourceFile = kMeasureRunFormat;
  run.label = e.name + " " + dateUtc;
  run.setup["device"] = e.name;
  run.setup["device_index"] = std::to_string(e.index);
  run.setup["compute_capability"] = std::to_string(e.smMajor) + "." + std::to_string(e.smMinor);
  run.setup["sm_count"] = std::to_string(e.smCount);
  run.setup["sm_clock_mhz"] = std::to_string(static_cast<long long>(e.smClockMhz));
  run.setup["memory_clock_mhz"] = std::to_string(static_cast<long long>(e.memoryClockMhz));
  run.setup["memory_bus_bits"] = std::to_string(e.memoryBusBits);
  run.setup["l2_bytes"] = std::to_string(static_cast<long long>(e.l2Bytes));
  run.setup["driver_version"] = std::to_string(e.driverVersion);
  run.setup["cuda_runtime_version"] = std::to_string(e.runtimeVersion);
  run.setup["cublaslt_version"] = std::to_string(e.cublasLtVersion);
  run.setup["qfront_version"] = qfrontVersion();
  run.setup["git_sha"] = buildGitSha();
  run.setup["date_utc"] = dateUtc;
  run.setup["model"] = modelName;
  std::string schemes, ms;
  for (const auto& s : config.schemes) schemes += (schemes.empty() ? "" : ",") + s;
  for (const auto m : config.mList) ms += (ms.empty() ? "" : ",") + std::to_string(m);
  run.setup["schemes"] = schemes;
  run.setup["m_list"] = ms;
  run.setup["sweep"] = config.quick ? "quick" : "full";
  run.setup["gpu_uuid"] = e.uuid;
  run.setup["pci_bus_id"] = e.pciBusId;
  run.setup["driver"] = e.driver;
  run.setup["ecc"] = e.eccEnabled < 0 ? "unknown" : (e.eccEnabled == 1 ? "on" : "off");
  run.setup["nvml"] = e.nvml;
  run.setup["smem_per_block_optin_bytes"] = std::to_string(e.smemPerBlockOptinBytes);
  run.setup["w4a16_max_cta_rows"] = std::to_string(e.w4a16MaxCtaRows);
  if (e.nullKernelS > 0) run.metrics["null_kernel_us"] = e.nullKernelS * 1e6;
  if (e.powerLimitW > 0) run.metrics["power_limit_w"] = e.powerLimitW;
  if (!config.commandLine.empty()) run.setup["command_line"] = config.commandLine;
  if (!result.error.empty()) run.warnings.push_back("the run stopped early: " + result.error);
  std::size_t valid = 0, invalid = 0, unsupported = 0, throttled = 0;
  double smMin = 0, smMax = 0, memMin = 0, memMax = 0;
  for (const auto& r : result.records) {
    if (r.valid && r.smClockMhz > 0) {
      // Clocks while the samples ran, over every timed record.
      smMin = smMin == 0 ? r.smClockMhz : std::min(smMin, r.smClockMhz);
      smMax = std::max(smMax, r.smClockMhz);
      memMin = memMin == 0 ? r.memClockMhz : std::min(memMin, r.memClockMhz);
      memMax = std::max(memMax, r.memClockMhz);
    }
    if (r.valid && !r.throttle.empty()) {
      ++throttled;
      run.warnings.push_back(r.kernel + " m=" + std::to_string(r.m) + " n=" + std::to_string(r.n) +
                             " k=" + std::to_string(r.k) + ": clocks limited while timed (" +
                             r.throttle + ")");
    }
    if (r.valid) {
      ++valid;
    } else if (!r.supported) {
      ++unsupported;
    } else {
      ++invalid;
      run.warnings.push_back(r.kernel + " " + r.scheme + " m=" + std::to_string(r.m) +
                             " n=" + std::to_string(r.n) + " k=" + std::to_string(r.k) +
                             ": failed its check (" + r.check + "); not timed");
    }
  }
  run.metrics["valid_records"] = static_cast<double>(valid);
  run.metrics["invalid_records"] = static_cast<double>(invalid);
  run.metrics["unsupported_records"] = static_cast<double>(unsupported);
  run.metrics["memory_gib"] = e.memoryGib;
  run.metrics["throttled_records"] = static_cast<double>(throttled);
  if (smMax > 0) {
    run.metrics["sm_clock_timed_min_mhz"] = smMin;
    run.metrics["sm_clock_timed_max_mhz"] = smMax;
    run.metrics["memory_clock_timed_min_mhz"] = memMin;
    run.metrics["memory_clock_timed_max_mhz"] = memMax;
  }
  if (result.cancelled) run.warnings.push_back("measurement cancelled before the plan finished");
  return run;
}

MeasurementBatch measurementBatch(const MeasureResult& result, const MeasureConfig& config,
                                  const std::string& modelName, const std::string& dateUtc) {
  MeasurementBatch batch;
  batch.records = toKernelMeasurements(result, "qfront-measure " + dateUtc);
  batch.runs.push_back(environmentRun(result, config, modelName, dateUtc));
  batch.cancelled = result.cancelled;
  return batch;
}

}  // namespace qf::cuda
