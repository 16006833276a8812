// qf-cuda-check: the standalone GPU check. Runs quantfront::cuda's measure() on Llama-3-8B's
// GEMM shapes, writes every record as JSON, logs each record as it lands and prints a short
// summary table last. Plain C++ over the facade: no CUDA headers.
//
//   qf-cuda-check [--out measurements.json] [--quick|--full] [--device N]
//
// Exit codes: 0 all checks passed, 1 a correctness check failed or measure() reported an
// error, 2 no CUDA device (one line on stderr), 64 bad arguments.
#include <nlohmann/json.hpp>
#include <quantfront/core/base/version.hpp>
#include <quantfront/cuda/measure.hpp>
#include <quantfront/cuda/measure_session.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using qf::cuda::EnvironmentInfo;
using qf::cuda::MeasureConfig;
using qf::cuda::MeasureRecord;
using qf::cuda::MeasureResult;

/// Llama-3-8B: d=4096, f=14336, nh=32, nkv=8, hd=128, V=128256. k and v fused (2·8·128 rows).
std::vector<MeasureConfig::Shape> llama3_8bShapes() {
  return {{"q_proj", 4096, 4096, 1},     {"kv_proj", 2048, 4096, 1},
          {"o_proj", 4096, 4096, 1},     {"gate_up_proj", 14336, 4096, 2},
          {"down_proj", 4096, 14336, 1}, {"lm_head", 128256, 4096, 1}};
}

/// A finite number, or null (JSON has no NaN or infinity).
nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

/// Every record and the environment, written through qf::writeJsonOutput, so the file carries
/// the envelope every output of the project carries (version, commit, command line, machine).
void writeJson(std::ostream& os, const MeasureResult& r, const std::string& commandLine) {
  nlohmann::json records = nlohmann::json::array();
  for (const MeasureRecord& m : r.records) {
    nlohmann::json plan = nlohmann::json::object();
    for (const auto& [key, value] : m.plan) plan[key] = number(value);
    records.push_back({{"kernel", m.kernel},
                       {"scheme", m.scheme},
                       {"device", m.device},
                       {"shape", m.shape},
                       {"m", m.m},
                       {"n", m.n},
                       {"k", m.k},
                       {"median_s", number(m.medianS)},
                       {"min_s", number(m.minS)},
                       {"rel_noise", number(m.relNoise)},
                       {"repeat_noise", number(m.repeatNoise)},
                       {"baseline_s", number(m.baselineS)},
                       {"plan", plan},
                       {"samples", m.samples},
                       {"bytes_moved", number(m.bytesMoved)},
                       {"flops", number(m.flops)},
                       {"source_file", m.sourceFile},
                       {"valid", m.valid},
                       {"supported", m.supported},
                       {"check", m.check},
                       {"timing_method", m.timingMethod},
                       {"launches_per_sample", m.launchesPerSample},
                       {"energy_j", number(m.energyJ)},
                       {"avg_power_w", number(m.avgPowerW)},
                       {"sm_clock_mhz", number(m.smClockMhz)},
                       {"memory_clock_mhz", number(m.memClockMhz)},
                       {"throttle", m.throttle}});
  }
  const EnvironmentInfo& e = r.environment;
  const nlohmann::json environment{{"device", e.index},
                                   {"name", e.name},
                                   {"sm_count", e.smCount},
                                   {"sm_major", e.smMajor},
                                   {"sm_minor", e.smMinor},
                                   {"sm_clock_mhz", number(e.smClockMhz)},
                                   {"memory_clock_mhz", number(e.memoryClockMhz)},
                                   {"memory_bus_bits", e.memoryBusBits},
                                   {"memory_gib", number(e.memoryGib)},
                                   {"l2_bytes", number(e.l2Bytes)},
                                   {"driver_version", e.driverVersion},
                                   {"runtime_version", e.runtimeVersion},
                                   {"cublaslt_version", e.cublasLtVersion},
                                   {"uuid", e.uuid},
                                   {"pci_bus_id", e.pciBusId},
                                   {"driver", e.driver},
                                   {"power_limit_w", number(e.powerLimitW)},
                                   {"ecc", e.eccEnabled},
                                   {"nvml", e.nvml},
                                   {"smem_per_block_optin_bytes", e.smemPerBlockOptinBytes},
                                   {"w4a16_max_cta_rows", e.w4a16MaxCtaRows},
                                   {"null_kernel_s", number(e.nullKernelS)},
                                   {"null_kernel_repeat_noise", number(e.nullKernelRepeatNoise)},
                                   {"git_sha", qf::cuda::buildGitSha()},
                                   {"command_line", commandLine}};
  qf::writeJsonOutput(os, {{"kernel_measurements", records},
                           {"environment", environment},
                           {"error", r.error},
                           {"cancelled", r.cancelled}});
}

std::string logLine(const MeasureRecord& r, double fraction) {
  char buf[512];
  const double gbs = r.medianS > 0 ? r.bytesMoved / r.medianS / 1e9 : 0;
  const double tflops = r.medianS > 0 ? r.flops / r.medianS / 1e12 : 0;
  std::snprintf(buf, sizeof buf,
                "[%3.0f%%] %-20s %-14s m=%-5lld n=%-7lld k=%-6lld median=%10.2f us min=%10.2f us "
                "%8.1f GB/s %7.1f TFLOP/s noise=%5.2f%% repeats=%5.2f%% n=%lld N=%lld %s %.0fW "
                "%s  %s",
                100 * fraction, r.kernel.c_str(), r.shape.c_str(), static_cast<long long>(r.m),
                static_cast<long long>(r.n), static_cast<long long>(r.k), r.medianS * 1e6,
                r.minS * 1e6, gbs, tflops, 100 * r.relNoise, 100 * r.repeatNoise,
                static_cast<long long>(r.samples), static_cast<long long>(r.launchesPerSample),
                r.timingMethod.c_str(), r.avgPowerW, r.valid ? "ok" : "INVALID", r.check.c_str());
  return buf;
}

const MeasureRecord* find(const MeasureResult& r, const std::string& kernel, int64_t m, int64_t n,
                          int64_t k) {
  for (const MeasureRecord& x : r.records) {
    if (x.kernel == kernel && x.m == m && x.n == n && x.k == k && x.valid && x.medianS > 0)
      return &x;
  }
  return nullptr;
}

/// Per-layer time of a set of shapes (each times its count) for one kernel at one m; <0 if any
/// record is missing.
double layerTime(const MeasureResult& r, const std::string& kernel, int64_t m,
                 const std::vector<MeasureConfig::Shape>& shapes) {
  double t = 0;
  for (const auto& s : shapes) {
    const MeasureRecord* x = find(r, kernel, m, s.n, s.k);
    if (x == nullptr) return -1;
    t += s.count * x->medianS;
  }
  return t;
}

void printSummary(const MeasureResult& r, const std::vector<MeasureConfig::Shape>& shapes,
                  const std::vector<int64_t>& mList) {
  std::printf("\n==== qf-cuda-check summary: %s (%d SMs, sm_%d%d, L2 %.0f MB) ====\n",
              r.environment.name.c_str(), r.environment.smCount, r.environment.smMajor,
              r.environment.smMinor, r.environment.l2Bytes / 1e6);
  double copyGbs = 0;
  for (const MeasureRecord& x : r.records) {
    if (x.kernel == "hbm_copy" && x.valid && x.medianS > 0)
      copyGbs = x.bytesMoved / x.medianS / 1e9;
  }
  std::printf("%-28s %10s %10s\n", "streaming kernel", "GB/s", "% of copy");
  for (const MeasureRecord& x : r.records) {
    if (x.kernel.rfind("hbm_", 0) != 0 && x.kernel.rfind("dequant_", 0) != 0) continue;
    if (!x.valid || x.medianS <= 0) {
      std::printf("%-28s %10s %10s\n", x.kernel.c_str(), "INVALID", "");
      continue;
    }
    const double gbs = x.bytesMoved / x.medianS / 1e9;
    std::printf("%-28s %10.0f %9.0f%%\n", x.kernel.c_str(), gbs,
                copyGbs > 0 ? 100 * gbs / copyGbs : 0);
  }
  std::vector<MeasureConfig::Shape> mlp;
  for (const auto& s : shapes) {
    if (s.name == "gate_up_proj" || s.name == "down_proj") mlp.push_back(s);
  }
  std::printf("\nMLP (gate_up x2 + down) per layer, us      bf16   w4a16   speed-up\n");
  for (const int64_t m : {1, 4, 16, 64}) {
    const double tb = layerTime(r, "gemm_bf16", m, mlp);
    const double tw = layerTime(r, "gemm_w4a16-g128", m, mlp);
    if (tb > 0 && tw > 0) {
      std::printf("  M=%-5lld                              %8.1f %7.1f %8.2fx\n",
                  static_cast<long long>(m), tb * 1e6, tw * 1e6, tb / tw);
    } else {
      std::printf("  M=%-5lld                              (not measured or invalid)\n",
                  static_cast<long long>(m));
    }
  }
  std::printf("\nAll layer GEMMs per layer, us (M>=2048)   bf16     fp8   speed-up   int8\n");
  std::vector<MeasureConfig::Shape> layer;
  for (const auto& s : shapes) {
    if (s.name != "lm_head") layer.push_back(s);
  }
  for (const int64_t m : mList) {
    if (m < 2048) continue;
    const double tb = layerTime(r, "gemm_bf16", m, layer);
    const double tf = layerTime(r, "gemm_fp8", m, layer);
    const double ti = layerTime(r, "gemm_int8", m, layer);
    if (tb > 0 && tf > 0) {
      std::printf("  M=%-5lld                              %8.1f %7.1f %8.2fx %8.1f\n",
                  static_cast<long long>(m), tb * 1e6, tf * 1e6, tb / tf, ti > 0 ? ti * 1e6 : 0.0);
    }
  }
  int failed = 0, unsupported = 0;
  for (const MeasureRecord& x : r.records) {
    failed += !x.valid && x.supported ? 1 : 0;
    unsupported += x.supported ? 0 : 1;
  }
  std::printf("\nrecords: %zu, failed checks: %d, unsupported by cuBLASLt: %d%s%s\n",
              r.records.size(), failed, unsupported,
              r.error.empty() ? "" : ", error: ", r.error.c_str());
}

/// The targets of the first H100/H200 run, measured against their thresholds; printed last.
void printTargets(const MeasureResult& r, const std::vector<MeasureConfig::Shape>& shapes) {
  const auto verdict = [](bool measured, bool met) {
    return !measured ? "not measured" : (met ? "MET" : "MISSED");
  };
  double copyGbs = 0, dequantGbs = 0;
  for (const MeasureRecord& x : r.records) {
    if (!x.valid || x.medianS <= 0) continue;
    if (x.kernel == "hbm_copy") copyGbs = x.bytesMoved / x.medianS / 1e9;
    if (x.kernel == "dequant_w4a16-g128") dequantGbs = x.bytesMoved / x.medianS / 1e9;
  }
  std::vector<MeasureConfig::Shape> mlp, layer;
  for (const auto& s : shapes) {
    if (s.name == "gate_up_proj" || s.name == "down_proj") mlp.push_back(s);
    if (s.name != "lm_head") layer.push_back(s);
  }
  double worstW4 = 0;  // smallest fused/bf16 speed-up over M = 1, 4, 16
  bool w4Measured = true;
  for (const int64_t m : {1, 4, 16}) {
    const double tb = layerTime(r, "gemm_bf16", m, mlp),
                 tw = layerTime(r, "gemm_w4a16-g128", m, mlp);
    if (tb <= 0 || tw <= 0) {
      w4Measured = false;
      continue;
    }
    worstW4 = worstW4 == 0 ? tb / tw : std::min(worstW4, tb / tw);
  }
  double worstFp8 = 0;  // smallest fp8/bf16 speed-up at M ≥ 2048
  for (const MeasureRecord& x : r.records) {
    if (x.kernel != "gemm_bf16" || x.m < 2048) continue;
    const double tb = layerTime(r, "gemm_bf16", x.m, layer),
                 tf = layerTime(r, "gemm_fp8", x.m, layer);
    if (tb > 0 && tf > 0) worstFp8 = worstFp8 == 0 ? tb / tf : std::min(worstFp8, tb / tf);
  }
  // Worst noise of a GEMM record at M = 1 across independent repeats (each its own graph,
  // warm-up and samples), not the within-run figure the stopping rule drove down.
  double noiseM1 = -1;
  for (const MeasureRecord& x : r.records) {
    if (x.m == 1 && x.valid && x.kernel.rfind("gemm_", 0) == 0)
      noiseM1 = std::max(noiseM1, x.repeatNoise);
  }
  std::printf("\n==== targets ====\n");
  std::printf("%-52s %9s  %s\n", "target", "measured", "verdict");
  std::printf("%-52s %8.0f%%  %s\n", "dequant_w4a16-g128 >= 85% of copy bandwidth",
              copyGbs > 0 ? 100 * dequantGbs / copyGbs : 0,
              verdict(copyGbs > 0 && dequantGbs > 0, dequantGbs >= 0.85 * copyGbs));
  std::printf("%-52s %8.2fx  %s\n", "fused W4A16 >= 2.5x cuBLASLt bf16, MLP, M <= 16", worstW4,
              verdict(w4Measured && worstW4 > 0, worstW4 >= 2.5));
  std::printf("%-52s %8.2fx  %s\n", "FP8 >= 1.6x bf16, layer GEMMs, M >= 2048", worstFp8,
              verdict(worstFp8 > 0, worstFp8 >= 1.6));
  std::printf("%-52s %8.2f%%  %s\n", "noise across repeats <= 2% at M = 1 (worst GEMM)",
              noiseM1 < 0 ? 0 : 100 * noiseM1, verdict(noiseM1 >= 0, noiseM1 <= 0.02));
  std::printf("%-52s %8.2fus  %s\n", "null-kernel baseline (subtracted from every record)",
              r.environment.nullKernelS * 1e6, r.environment.nullKernelS > 0 ? "recorded" : "none");
}

}  // namespace

int main(int argc, char** argv) {
  qf::setCommandLine(argc, argv);
  std::string outPath = "measurements.json";
  bool quick = false;
  int device = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc) {
      outPath = argv[++i];
    } else if (a == "--quick") {
      quick = true;
    } else if (a == "--full") {
      quick = false;
    } else if (a == "--device" && i + 1 < argc) {
      device = std::atoi(argv[++i]);
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: qf-cuda-check [--out FILE.json] [--quick|--full] [--device N]\n");
      return 0;
    } else {
      std::fprintf(stderr, "qf-cuda-check: unknown argument '%s'\n", a.c_str());
      return 64;
    }
  }
  MeasureConfig cfg;
  cfg.commandLine = "qf-cuda-check";
  for (int i = 1; i < argc; ++i) cfg.commandLine += std::string(" ") + argv[i];
  cfg.device = device;
  cfg.quick = quick;
  cfg.shapes = llama3_8bShapes();
  cfg.mList = quick ? std::vector<int64_t>{1, 4, 16, 64, 256, 2048}
                    : std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
  if (quick) cfg.maxSecondsPerRecord = 0.25;

  const MeasureResult result = qf::cuda::measure(cfg, [](const MeasureRecord& r, double f) {
    std::printf("%s\n", logLine(r, f).c_str());
    std::fflush(stdout);
    return true;
  });
  if (result.error == "no CUDA device found") {
    std::fprintf(stderr, "no CUDA device found\n");
    return 2;
  }
  {
    std::ofstream os(outPath);
    writeJson(os, result, cfg.commandLine);
    if (!os) {
      std::fprintf(stderr, "qf-cuda-check: cannot write %s\n", outPath.c_str());
      return 1;
    }
  }
  std::printf("wrote %s\n", outPath.c_str());
  printSummary(result, cfg.shapes, cfg.mList);
  printTargets(result, cfg.shapes);
  return result.allChecksPassed() ? 0 : 1;
}
