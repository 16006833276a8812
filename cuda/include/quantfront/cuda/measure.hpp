#pragma once
/// Live kernel measurements on an attached NVIDIA GPU: HBM probes, streaming dequant per weight
/// scheme, cuBLASLt GEMMs (bf16, FP8 e4m3, INT8) and the project's fused W4A16 GEMM, each
/// checked against the host references (core/reference) before it is timed.
/// Plain C++: no CUDA headers. measure() never throws.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <quantfront/core/base/kernels.hpp>
#include <quantfront/core/base/records.hpp>
#include <quantfront/cuda/device.hpp>

namespace qf::cuda {

/// The kernel vocabulary (kinds, measurable schemes, record names) is core's:
/// qf::measurableSchemes(), qf::kernelName(); measure() writes nothing else.
using qf::KernelKind;
using qf::kernelName;
using qf::measurableScheme;
using qf::measurableSchemeIds;

/// What to measure.
struct MeasureConfig {
  /// One GEMM shape of the model: weights N×K (out features × in features), `count` of them per
  /// layer (the caller multiplies; measure() reports one record per distinct N×K).
  struct Shape {
    std::string name;  ///< e.g. "q_proj", "gate_up_proj", "lm_head"
    int64_t n = 0;     ///< output features
    int64_t k = 0;     ///< input features
    int count = 1;     ///< instances per layer (not used by the timing)
  };
  int device = 0;  ///< CUDA device index
  /// Scheme ids of qf::measurableSchemes() (model.md): "bf16" → gemm_bf16; "w8a8-fp8" →
  /// gemm_fp8; "w8a8-int8" → gemm_int8; "w4a16-g128" → dequant_ and gemm_w4a16-g128 (fused);
  /// "w4a16-g128-asym", "w8a16", "w8a16-fp8", "mxfp4" → dequant_ only. Empty = all of these.
  /// Unknown ids are reported as invalid records.
  std::vector<std::string> schemes;
  std::vector<int64_t> mList;        ///< GEMM row counts (tokens in the batch); empty = none
  std::vector<Shape> shapes;         ///< the model's layer GEMM shapes
  bool quick = false;                ///< shorter time caps (for smoke runs)
  bool hbm = true;                   ///< run hbm_copy and hbm_read
  bool dequant = true;               ///< run the streaming dequant kernels
  bool gemm = true;                  ///< run the GEMMs over shapes × mList
  int minSamples = 20;               ///< timed samples at least
  int maxSamples = 400;              ///< timed samples at most
  double maxRelNoise = 0.02;         ///< stop sampling once stddev/mean ≤ this (after minSamples)
  double maxSecondsPerRecord = 1.0;  ///< GPU time cap for one record's samples, seconds
  int64_t dequantWeights = int64_t{1} << 27;  ///< weights per streaming-dequant buffer set
  std::string commandLine;  ///< how the run was started (argv joined), stored with the results
};

/// One measured (or rejected) kernel configuration. Times in seconds; bytes and FLOPs are the
/// declared minimum traffic/work of one run, so rates are bytesMoved/medianS, flops/medianS.
struct MeasureRecord : KernelMeasurement {
  // Inherited: kind, kernel, scheme, device (as the runtime reports it), m/n/k, medianS,
  // minS, relNoise, samples, bytesMoved, flops, sourceFile (the .cu/.cpp that holds the
  // kernel or library call), energyJ (avgPowerW × medianS) and avgPowerW.
  std::string shape;      ///< shape names joined by '+' (GEMMs), else empty
  bool valid = true;      ///< false: check failed or unsupported; then not timed
  bool supported = true;  ///< false: the library has no kernel for this configuration
                          ///< (cuBLASLt status in `check`); valid is false too
  std::string check;  ///< e.g. "rel_err=3.1e-04" or "bit_exact 0/4736 mismatches" or why invalid
  // How the time was taken (docs/benchmarks.md, "Kernel timing").
  std::string timingMethod;       ///< "cuda_graph", or "stream_batch" where capture failed
  int64_t launchesPerSample = 0;  ///< launches in one timed sample (N); times are per launch
  // The board while the samples ran (NVML; zeros and "" where NVML is unavailable).
  double smClockMhz = 0;   ///< mean SM clock during the samples
  double memClockMhz = 0;  ///< mean memory clock during the samples
  std::string throttle;    ///< clock limits seen (power_cap, sw_thermal, hw_slowdown…); "" none
};

/// The GPU and software the records were measured on: the device as queryDevices() describes
/// it (index, name, SMs, compute capability, memory, bus width, L2) and what a measurement adds.
struct EnvironmentInfo : DeviceInfo {
  double smClockMhz = 0;             ///< max SM clock (cudaDevAttrClockRate), MHz
  double memoryClockMhz = 0;         ///< peak memory clock (cudaDevAttrMemoryClockRate), MHz
  int driverVersion = 0;             ///< cudaDriverGetVersion, e.g. 13000
  int runtimeVersion = 0;            ///< cudaRuntimeGetVersion
  int cublasLtVersion = 0;           ///< cublasLtGetVersion
  std::string uuid;                  ///< "GPU-…" (the runtime's UUID; NVML's where available)
  std::string pciBusId;              ///< e.g. "0000:41:00.0"
  std::string driver;                ///< NVML's driver version string, e.g. "580.159.03"
  double powerLimitW = 0;            ///< enforced board power limit (NVML), watts; 0 unknown
  int eccEnabled = -1;               ///< ECC on 1, off 0, unknown −1
  std::string nvml;                  ///< "ok", or why there are no power/energy figures
  int smemPerBlockOptinBytes = 0;    ///< cudaDevAttrMaxSharedMemoryPerBlockOptin
  int w4a16MaxCtaRows = 0;           ///< the fused kernel's largest CTA variant that fits it
  double nullKernelS = 0;            ///< empty kernel's per-launch time in a graph (baseline)
  double nullKernelRepeatNoise = 0;  ///< its spread over independent repeats
};

/// Everything measure() produced.
struct MeasureResult {
  std::vector<MeasureRecord> records;  ///< in measurement order
  EnvironmentInfo environment;         ///< filled when a device was opened
  std::string error;                   ///< empty on success; "no CUDA device found" without a GPU
  bool cancelled = false;              ///< the progress callback returned false
  /// True when there is no error and every record is valid.
  bool allValid() const {
    if (!error.empty()) return false;
    for (const MeasureRecord& r : records) {
      if (!r.valid) return false;
    }
    return true;
  }
  /// True when there is no error and no record failed a correctness check (records that are
  /// merely unsupported by the library do not count as failures).
  bool allChecksPassed() const {
    if (!error.empty()) return false;
    for (const MeasureRecord& r : records) {
      if (!r.valid && r.supported) return false;
    }
    return true;
  }
};

/// Called after each record with the fraction of planned work done (0..1]; return false to
/// cancel (measure() then returns what it has, cancelled = true). Called on the caller's thread.
using Progress = std::function<bool(const MeasureRecord&, double fractionDone)>;

/// Runs the measurements. Blocks (seconds to minutes); never throws: failures land in
/// MeasureResult::error (fatal) or in a record's valid/check (one configuration).
MeasureResult measure(const MeasureConfig& config, const Progress& progress = {});

}  // namespace qf::cuda
