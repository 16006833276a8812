#pragma once
// What the parts of measure() share: the kernels measured (GEMMs, dequant formats), the
// check constants, device copies, and the run (Session) whose probes measure.cpp,
// measure_hbm.cpp, measure_dequant.cpp and measure_gemm.cpp define.
#include <quantfront/cuda/device.hpp>
#include <quantfront/cuda/measure.hpp>

#include "cublaslt_gemm.hpp"
#include "cuda_util.hpp"
#include "kernels.hpp"
#include "nvml_sampler.hpp"
#include "timing.hpp"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace qf::cuda::measure_detail {

using detail::CudaError;
using detail::DeviceBuffer;

inline constexpr double kGemmTolerance = 1e-2;  ///< ‖C − C_ref‖/‖C_ref‖ bound for every GEMM
inline constexpr std::size_t kLtWorkspaceBytes = std::size_t{64} << 20;
inline constexpr uint8_t kPoisonByte = 0xFF;  ///< bf16 0xFFFF is a NaN
inline constexpr uint16_t kPoisonBf16 = 0xFFFF;
inline constexpr uint8_t kPoisonByteInt = 0x80;  ///< int32 0x80808080: no GEMM here produces it
inline constexpr uint32_t kPoisonInt32 = 0x80808080u;

enum class GemmKind { kBf16, kFp8, kInt8, kW4a16 };

struct GemmInfo {
  GemmKind kind;
  const char* scheme;
  const char* source;
};

inline const GemmInfo kGemms[] = {
    {GemmKind::kBf16, "bf16", "cuda/src/cublaslt_gemm.cpp"},
    {GemmKind::kFp8, "w8a8-fp8", "cuda/src/cublaslt_gemm.cpp"},
    {GemmKind::kInt8, "w8a8-int8", "cuda/src/cublaslt_gemm.cpp"},
    {GemmKind::kW4a16, "w4a16-g128", "cuda/src/w4a16_gemm.cu"},
};

struct DequantInfo {
  detail::DequantFormat format;
  const char* scheme;
};

inline const DequantInfo kDequants[] = {
    {detail::DequantFormat::kInt4Sym, "w4a16-g128"},
    {detail::DequantFormat::kInt4Asym, "w4a16-g128-asym"},
    {detail::DequantFormat::kInt8, "w8a16"},
    {detail::DequantFormat::kFp8, "w8a16-fp8"},
    {detail::DequantFormat::kMxfp4, "mxfp4"},
};

inline std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

template <class T>
void upload(DeviceBuffer& dst, const std::vector<T>& src, cudaStream_t stream) {
  dst = DeviceBuffer(src.size() * sizeof(T));
  QF_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.data(), src.size() * sizeof(T),
                                cudaMemcpyHostToDevice, stream));
}

template <class T>
std::vector<T> download(const void* src, std::size_t count, cudaStream_t stream) {
  std::vector<T> out(count);
  QF_CUDA_CHECK(
      cudaMemcpyAsync(out.data(), src, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
  QF_CUDA_CHECK(cudaStreamSynchronize(stream));
  return out;
}

/// The fused kernel's split-K workspace, zeroed once: its tickets start at 0 and every launch
/// leaves them at 0 again.
inline DeviceBuffer w4a16Workspace(const detail::W4a16Plan& plan, cudaStream_t stream) {
  DeviceBuffer ws(std::max<std::size_t>(plan.workspaceBytes, 16));
  QF_CUDA_CHECK(cudaMemsetAsync(ws.get(), 0, ws.bytes(), stream));
  return ws;
}

/// Device-resident operands of one GEMM kernel for one N×K shape (or one check case).
struct GemmWeights {
  DeviceBuffer w;       ///< bf16 / e4m3 / int8 [n][k], or packInt4Mma words
  DeviceBuffer scales;  ///< w4a16: bf16 [kPad/128][nPad]
  int64_t nPad = 0, kPad = 0;
};

inline constexpr float kFp8WScale = 0.02f, kFp8AScale = 0.05f;

inline detail::TimingOptions rotated(detail::TimingOptions o, int sets) {
  o.rotation = std::max(1, sets);
  return o;
}

class Session {
 public:
  Session(const MeasureConfig& config, const Progress& progress, MeasureResult& result)
      : m_cfg(config), m_progress(progress), m_result(result) {}
  ~Session() {
    if (m_lt != nullptr) cublasLtDestroy(m_lt);
    if (m_stream != nullptr) cudaStreamDestroy(m_stream);
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void run();

 private:
  // setup
  void openDevice();
  std::vector<std::string> schemes() const;
  bool wants(const std::string& scheme) const;
  MeasureRecord record(KernelKind kind, const std::string& scheme, const char* source) const;
  bool emit(const MeasureRecord& r);  // false: cancelled
  /// Runs `body`, which fills `r` (check, validity, timing), then emits r. A CUDA or library
  /// error inside marks r invalid with the error and the run goes on; a sticky one (the
  /// context is lost) is rethrown after r is emitted, so measure() returns what it measured.
  bool measured(MeasureRecord& r, const std::function<void()>& body);
  /// After a caught CUDA error with `code`: clears it, and throws when the context is lost.
  void stopIfSticky(cudaError_t code, const std::string& what);
  uint32_t seed() { return ++m_seed * 2654435761u; }
  detail::TimingOptions timingOptions();
  void setTiming(MeasureRecord& r, const detail::TimingResult& t) const;
  int rotationSets(double bytesPerSet, double budgetBytes) const;
  double freeBytes() const;

  // probes
  bool hbmProbes();
  bool dequantProbes();
  bool gemmProbes();

  /// Row `row` of a device dequant input set (k weights) dequantised on the host by the
  /// reference (core/reference), bf16 bits.
  std::vector<uint16_t> hostDequantRow(detail::DequantFormat format, const void* weights,
                                       const void* scales, const void* zeros, int64_t row,
                                       int64_t k);

  // GEMM helpers
  /// Full check on small awkward shapes; ok = false only on a wrong result (a shape cuBLASLt
  /// does not support is noted in the text and left to the per-record checks).
  std::string checkGemmKernel(const GemmInfo& g, bool& ok);
  void fillWeights(GemmKind kind, GemmWeights& gw, int64_t n, int64_t k);
  /// A planned cuBLASLt matmul for a library GEMM (check ok() before use).
  std::unique_ptr<detail::LtGemm> planLt(GemmKind kind, int64_t m, int64_t n, int64_t k);
  void launchGemm(GemmKind kind, const GemmWeights& gw, const detail::LtGemm* lt, const void* a,
                  void* c, DeviceBuffer& workspace, int64_t m, int64_t n, int64_t k,
                  int residentCtas);
  std::vector<float> hostWeightRow(GemmKind kind, const GemmWeights& gw,
                                   const std::vector<uint16_t>& w4Scales, int64_t row, int64_t k);
  /// Row `row` of a device [rows][k] operand as floats (FP8 values times fp8Scale).
  std::vector<float> hostRow(GemmKind kind, const void* a, int64_t row, int64_t k, float fp8Scale);
  /// The distinct N×K shapes of `all`, with the names of the shapes that share one joined.
  static std::vector<std::pair<std::pair<int64_t, int64_t>, std::string>> distinctShapes(
      const std::vector<MeasureConfig::Shape>& all);
  /// The kernel check of GEMM `g` on small awkward shapes (checkGemmKernel), or why it is
  /// skipped (`noPath`: no hardware path on this chip); `kernelOk` false when it failed.
  std::string gemmKernelCheck(const GemmInfo& g, bool& kernelOk, bool& noPath);
  /// `aSets` activation sets (random, M×K of `actElem` bytes) and output sets (M×N of `outElem`).
  void fillActivations(GemmKind kind, int aSets, int64_t m, int64_t n, int64_t k,
                       std::size_t actElem, std::size_t outElem, std::vector<DeviceBuffer>& acts,
                       std::vector<DeviceBuffer>& outs);
  /// Checks record `r`'s exact configuration: poisoned output, full unwritten-element scan, and
  /// ‖C − C_ref‖/‖C_ref‖ over sampled rows × columns against host dot products.
  void checkGemmRecord(MeasureRecord& r, GemmKind kind, const GemmWeights& gw,
                       const std::vector<uint16_t>& w4Scales, const detail::LtGemm* lt,
                       const DeviceBuffer& act, DeviceBuffer& out, DeviceBuffer& ws, int64_t m,
                       int64_t n, int64_t k, int residentCtas, bool intOut,
                       const std::string& kernelCheck);

  const MeasureConfig& m_cfg;
  const Progress& m_progress;
  MeasureResult& m_result;
  cudaStream_t m_stream = nullptr;
  cublasLtHandle_t m_lt = nullptr;
  DeviceBuffer m_ltWorkspace;
  DeviceBuffer m_counter;
  DeviceBuffer m_fp8Scales;  ///< [0] W scale, [1] A scale (device floats for cuBLASLt)
  int m_smCount = 0;
  double m_l2Bytes = 0;
  double m_baselineS = 0;  ///< the empty kernel's per-launch time in a graph (this session's)
  std::unique_ptr<detail::NvmlSampler> m_nvml;  ///< board power and clocks while timing
  detail::NvmlWindow m_window;                  ///< the last timed record's window
  uint32_t m_seed = 1;
  int64_t m_planned = 1;
  int64_t m_done = 0;
  bool m_cancelled = false;
};

}  // namespace qf::cuda::measure_detail
