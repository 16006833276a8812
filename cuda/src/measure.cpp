// measure(): plans the records, checks each kernel against the host references
// (core/reference), then times it with rotating buffer sets so weights come from HBM, not L2.
#include <quantfront/cuda/device.hpp>
#include <quantfront/cuda/measure.hpp>

#include <quantfront/core/reference/gemm_reference.hpp>
#include <quantfront/core/reference/numeric_formats.hpp>
#include <quantfront/core/reference/quantize.hpp>

#include "cublaslt_gemm.hpp"
#include "cuda_util.hpp"
#include "kernels.hpp"
#include "nvml_sampler.hpp"
#include "timing.hpp"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <set>
#include <utility>

namespace qf::cuda {

namespace {

using detail::CudaError;
using detail::DeviceBuffer;

constexpr double kGemmTolerance = 1e-2;  ///< ‖C − C_ref‖/‖C_ref‖ bound for every GEMM
constexpr std::size_t kLtWorkspaceBytes = std::size_t{64} << 20;
constexpr uint8_t kPoisonByte = 0xFF;  ///< bf16 0xFFFF is a NaN
constexpr uint16_t kPoisonBf16 = 0xFFFF;
constexpr uint8_t kPoisonByteInt = 0x80;  ///< int32 0x80808080: no GEMM here produces it
constexpr uint32_t kPoisonInt32 = 0x80808080u;

enum class GemmKind { kBf16, kFp8, kInt8, kW4a16 };

struct GemmInfo {
  GemmKind kind;
  const char* scheme;
  const char* source;
};

const GemmInfo kGemms[] = {
    {GemmKind::kBf16, "bf16", "cuda/src/cublaslt_gemm.cpp"},
    {GemmKind::kFp8, "w8a8-fp8", "cuda/src/cublaslt_gemm.cpp"},
    {GemmKind::kInt8, "w8a8-int8", "cuda/src/cublaslt_gemm.cpp"},
    {GemmKind::kW4a16, "w4a16-g128", "cuda/src/w4a16_gemm.cu"},
};

struct DequantInfo {
  detail::DequantFormat format;
  const char* scheme;
};

const DequantInfo kDequants[] = {
    {detail::DequantFormat::kInt4Sym, "w4a16-g128"},
    {detail::DequantFormat::kInt4Asym, "w4a16-g128-asym"},
    {detail::DequantFormat::kInt8, "w8a16"},
    {detail::DequantFormat::kFp8, "w8a16-fp8"},
    {detail::DequantFormat::kMxfp4, "mxfp4"},
};

std::string fmt(const char* format, double v) {
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

/// The fused kernel's split-K workspace, zeroed once: its locks start at 0 and every launch
/// leaves them at 0 again.
DeviceBuffer w4a16Workspace(const detail::W4a16Plan& plan, cudaStream_t stream) {
  DeviceBuffer ws(std::max<std::size_t>(plan.workspaceBytes, 16));
  QF_CUDA_CHECK(cudaMemsetAsync(ws.get(), 0, ws.bytes(), stream));
  return ws;
}

/// Bytes one GEMM run moves at minimum: W, A and C once each.
double gemmBytes(GemmKind kind, int64_t m, int64_t n, int64_t k) {
  const double mn = static_cast<double>(m) * static_cast<double>(n);
  const double mk = static_cast<double>(m) * static_cast<double>(k);
  const double nk = static_cast<double>(n) * static_cast<double>(k);
  switch (kind) {
    case GemmKind::kBf16:
      return 2 * nk + 2 * mk + 2 * mn;
    case GemmKind::kFp8:
      return nk + mk + 2 * mn;
    case GemmKind::kInt8:
      return nk + mk + 4 * mn;
    case GemmKind::kW4a16:
      return nk / 2 + 2 * nk / 128 + 2 * mk + 2 * mn;
  }
  return 0;
}

/// Device-resident operands of one GEMM kernel for one N×K shape (or one check case).
struct GemmWeights {
  DeviceBuffer w;       ///< bf16 / e4m3 / int8 [n][k], or packInt4Mma words
  DeviceBuffer scales;  ///< w4a16: bf16 [kPad/128][nPad]
  int64_t nPad = 0, kPad = 0;
};

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
  std::unique_ptr<detail::NvmlSampler> m_nvml;  ///< board power and clocks while timing
  detail::NvmlWindow m_window;                  ///< the last timed record's window
  uint32_t m_seed = 1;
  int64_t m_planned = 1;
  int64_t m_done = 0;
  bool m_cancelled = false;
};

constexpr float kFp8WScale = 0.02f, kFp8AScale = 0.05f;

/// The runtime's device UUID as NVML and nvidia-smi print it: "GPU-xxxxxxxx-xxxx-…".
std::string uuidText(const cudaUUID_t& u) {
  std::string out = "GPU-";
  char hex[3];
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    std::snprintf(hex, sizeof hex, "%02x",
                  static_cast<unsigned>(static_cast<unsigned char>(u.bytes[i])));
    out += hex;
  }
  return out;
}

void Session::openDevice() {
  std::string why;
  const std::vector<DeviceInfo> devices = queryDevices(why);
  if (devices.empty()) throw CudaError("no CUDA device found");
  if (m_cfg.device < 0 || m_cfg.device >= static_cast<int>(devices.size())) {
    throw CudaError("CUDA device " + std::to_string(m_cfg.device) + " does not exist (" +
                    std::to_string(devices.size()) + " found)");
  }
  QF_CUDA_CHECK(cudaSetDevice(m_cfg.device));
  EnvironmentInfo& env = m_result.environment;
  env.device = m_cfg.device;
  cudaDeviceProp prop{};
  QF_CUDA_CHECK(cudaGetDeviceProperties(&prop, m_cfg.device));
  env.name = prop.name;
  if (prop.major < 8) {
    // bf16 mma.sync, cp.async and the bf16x2 conversions all start at compute capability 8.0.
    throw CudaError(env.name + " has compute capability " + std::to_string(prop.major) + "." +
                    std::to_string(prop.minor) +
                    "; measuring needs 8.0 or newer (A100, A10, L4, L40S, H100, H200)");
  }
  env.smCount = prop.multiProcessorCount;
  env.smMajor = prop.major;
  env.smMinor = prop.minor;
  env.memoryGib = static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
  env.l2Bytes = prop.l2CacheSize;
  env.memoryBusBits = prop.memoryBusWidth;
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, m_cfg.device) == cudaSuccess) {
    env.smClockMhz = khz / 1000.0;
  }
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, m_cfg.device) == cudaSuccess) {
    env.memoryClockMhz = khz / 1000.0;
  }
  cudaGetLastError();  // an unsupported attribute is not an error here
  env.eccEnabled = prop.ECCEnabled != 0 ? 1 : 0;
  env.uuid = uuidText(prop.uuid);
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, m_cfg.device) == cudaSuccess) env.pciBusId = bus;
  m_nvml = std::make_unique<detail::NvmlSampler>(env.pciBusId);
  if (m_nvml->available()) {
    const detail::NvmlStatic st = m_nvml->staticInfo();
    if (!st.uuid.empty()) env.uuid = st.uuid;
    env.driver = st.driver;
    env.powerLimitW = st.powerLimitW;
    if (st.eccEnabled >= 0) env.eccEnabled = st.eccEnabled;
    env.nvml = "ok";
  } else {
    env.nvml = m_nvml->why();
    m_nvml.reset();
  }
  QF_CUDA_CHECK(cudaDriverGetVersion(&env.driverVersion));
  QF_CUDA_CHECK(cudaRuntimeGetVersion(&env.runtimeVersion));
  env.cublasLtVersion = static_cast<int>(cublasLtGetVersion());
  m_smCount = env.smCount;
  m_l2Bytes = env.l2Bytes;
  QF_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
  const cublasStatus_t s = cublasLtCreate(&m_lt);
  if (s != CUBLAS_STATUS_SUCCESS)
    throw CudaError(std::string("cublasLtCreate: ") + cublasLtGetStatusString(s));
  m_ltWorkspace = DeviceBuffer(kLtWorkspaceBytes);
  m_counter = DeviceBuffer(sizeof(unsigned long long));
  detail::prepareW4a16Gemm();
  upload(m_fp8Scales, std::vector<float>{kFp8WScale, kFp8AScale}, m_stream);
}

std::vector<std::string> Session::schemes() const {
  if (!m_cfg.schemes.empty()) return m_cfg.schemes;
  return measurableSchemeIds();
}

/// `o` for a launch function that cycles `sets` buffer sets.
detail::TimingOptions rotated(detail::TimingOptions o, int sets) {
  o.rotation = std::max(1, sets);
  return o;
}

/// The timed figures of `t` and the board's state during the samples into record `r`.
void Session::setTiming(MeasureRecord& r, const detail::TimingResult& t) const {
  r.avgPowerW = m_window.avgPowerW;
  r.energyJ = m_window.avgPowerW * t.medianS;
  r.smClockMhz = m_window.avgSmClockMhz;
  r.memClockMhz = m_window.avgMemClockMhz;
  r.throttle = detail::throttleText(m_window.throttleReasons);
  r.medianS = t.medianS;
  r.minS = t.minS;
  r.relNoise = t.relNoise;
  r.samples = t.samples;
  r.timingMethod = t.method;
  r.launchesPerSample = t.launchesPerSample;
}

bool Session::wants(const std::string& scheme) const {
  const auto s = schemes();
  return std::find(s.begin(), s.end(), scheme) != s.end();
}

MeasureRecord Session::record(KernelKind kind, const std::string& scheme,
                              const char* source) const {
  MeasureRecord r;
  r.kind = kind;
  r.kernel = kernelName(kind, scheme);
  r.scheme = scheme;
  r.device = m_result.environment.name;
  r.sourceFile = source;
  return r;
}

bool Session::emit(const MeasureRecord& r) {
  m_result.records.push_back(r);
  ++m_done;
  const double fraction =
      std::min(1.0, static_cast<double>(m_done) / static_cast<double>(m_planned));
  if (m_progress && !m_progress(m_result.records.back(), fraction)) m_cancelled = true;
  return !m_cancelled;
}

void Session::stopIfSticky(cudaError_t code, const std::string& what) {
  cudaGetLastError();  // a non-sticky error is cleared by reading it
  // A sticky error fails every later call, the synchronisation too; work already enqueued by
  // the failed record finishes here before the next record allocates.
  const cudaError_t after = cudaDeviceSynchronize();
  if (detail::isStickyError(code) || after != cudaSuccess) {
    const cudaError_t why = detail::isStickyError(code) ? code : after;
    throw CudaError(std::string("the CUDA context was lost (") + cudaGetErrorName(why) +
                        "), the run stopped after: " + what,
                    why);
  }
}

bool Session::measured(MeasureRecord& r, const std::function<void()>& body) {
  std::string error;
  cudaError_t code = cudaSuccess;
  bool unsupported = false;
  try {
    body();
    return emit(r);
  } catch (const CudaError& e) {
    error = e.what();
    code = e.code;
    unsupported = e.unsupported;
  } catch (const std::bad_alloc&) {
    error = "host memory exhausted";
  }
  if (m_nvml != nullptr) m_nvml->stop();  // an error inside the timed window
  r.valid = false;
  r.supported = !unsupported;
  r.medianS = r.minS = r.relNoise = 0;
  r.samples = 0;
  r.check = (r.check.empty() ? std::string() : r.check + "; ") + "error: " + error;
  try {
    stopIfSticky(code, r.kernel + " m=" + std::to_string(r.m) + " n=" + std::to_string(r.n) +
                           " k=" + std::to_string(r.k));
  } catch (const CudaError&) {
    emit(r);
    throw;
  }
  return emit(r);
}

detail::TimingOptions Session::timingOptions() {
  detail::TimingOptions o;
  o.onSampling = [this](bool sampling) {
    if (m_nvml == nullptr) return;
    if (sampling) {
      m_window = {};
      m_nvml->start();
    } else {
      m_window = m_nvml->stop();
    }
  };
  o.minSamples = std::max(1, m_cfg.minSamples);
  o.maxSamples = std::max(o.minSamples, m_cfg.maxSamples);
  o.maxRelNoise = m_cfg.maxRelNoise;
  o.maxSeconds =
      m_cfg.quick ? std::min(0.25, m_cfg.maxSecondsPerRecord) : m_cfg.maxSecondsPerRecord;
  o.warmupS = m_cfg.quick ? 0.02 : 0.05;
  return o;
}

double Session::freeBytes() const {
  std::size_t freeB = 0, totalB = 0;
  QF_CUDA_CHECK(cudaMemGetInfo(&freeB, &totalB));
  return static_cast<double>(freeB);
}

int Session::rotationSets(double bytesPerSet, double budgetBytes) const {
  // Enough sets that consecutive runs touch ≥ 4× the L2 before a set comes back, so every run
  // reads its weights from HBM (H200: 60 MB L2 — a 4096×4096 bf16 weight fits in it).
  const double want = std::ceil(4.0 * m_l2Bytes / std::max(bytesPerSet, 1.0));
  const double fit = std::floor(budgetBytes / std::max(bytesPerSet, 1.0));
  return static_cast<int>(std::max(1.0, std::min({std::max(want, 2.0), 64.0, fit})));
}

// ---------------------------------------------------------------------------------------------
// HBM

bool Session::hbmProbes() {
  // ≥ 8× L2 and ≥ 1 GiB per buffer so the probe measures HBM, capped by free memory.
  const double target = std::max(8.0 * m_l2Bytes, 1024.0 * 1024.0 * 1024.0);
  const double capped = std::min(target, freeBytes() / 4.0);
  const std::size_t bytes = static_cast<std::size_t>(capped) / (1 << 20) * (1 << 20);
  DeviceBuffer src, dst;
  const detail::TimingOptions opt = timingOptions();

  // hbm_copy: check three 1 MiB windows after one copy, then time the copy.
  MeasureRecord copy = record(KernelKind::HbmCopy, "", "cuda/src/measure.cpp");
  copy.n = static_cast<int64_t>(bytes);
  copy.bytesMoved = 2.0 * static_cast<double>(bytes);
  const bool go = measured(copy, [&] {
    MeasureRecord& r = copy;
    src = DeviceBuffer(bytes);
    dst = DeviceBuffer(bytes);
    detail::launchFillWords(src.as<uint32_t>(), bytes / 4, seed(), 0xFFFFFFFFu, 0u, m_stream);
    QF_CUDA_CHECK(cudaMemsetAsync(dst.get(), kPoisonByte, bytes, m_stream));
    QF_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, m_stream));
    const std::size_t window = std::size_t{1} << 20;
    int equal = 0;
    for (const std::size_t off : {std::size_t{0}, bytes / 2, bytes - window}) {
      const auto a = download<uint8_t>(src.as<uint8_t>() + off, window, m_stream);
      const auto b = download<uint8_t>(dst.as<uint8_t>() + off, window, m_stream);
      equal += a == b ? 1 : 0;
    }
    r.valid = equal == 3;
    r.check = "windows_equal=" + std::to_string(equal) + "/3";
    if (r.valid) {
      const auto t = detail::timeRuns(
          [&](int64_t) {
            QF_CUDA_CHECK(
                cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, m_stream));
          },
          opt, m_stream);
      setTiming(r, t);
    }
  });
  if (!go) return false;

  // hbm_read: the kernel writes *sink only when a thread's XOR equals the marker, so a buffer of
  // zeros with the marker planted at the first, a middle and the last 16-byte vector proves that
  // those vectors (including the grid-stride tail) are read.
  MeasureRecord read = record(KernelKind::HbmRead, "", "cuda/src/hbm_probe.cu");
  read.n = static_cast<int64_t>(bytes);
  read.bytesMoved = static_cast<double>(bytes);
  return measured(read, [&] {
    MeasureRecord& r = read;
    if (src.get() == nullptr) throw CudaError("no buffers (hbm_copy could not allocate them)");
    DeviceBuffer sink(sizeof(uint32_t));
    int found = 0;
    const std::size_t vectors = bytes / 16;
    for (const std::size_t v : {std::size_t{0}, vectors / 2 + 3, vectors - 1}) {
      QF_CUDA_CHECK(cudaMemsetAsync(dst.get(), 0, bytes, m_stream));
      const uint32_t marker = 0x9E3779B9u;
      QF_CUDA_CHECK(cudaMemcpyAsync(dst.as<uint8_t>() + v * 16, &marker, 4, cudaMemcpyHostToDevice,
                                    m_stream));
      QF_CUDA_CHECK(cudaMemsetAsync(sink.get(), 0, 4, m_stream));
      detail::launchHbmRead(dst.get(), bytes, sink.as<uint32_t>(), m_smCount, m_stream);
      found += download<uint32_t>(sink.get(), 1, m_stream)[0] == marker ? 1 : 0;
    }
    r.valid = found == 3;
    r.check = "planted_markers_found=" + std::to_string(found) + "/3";
    if (r.valid) {
      DeviceBuffer sink2(sizeof(uint32_t));
      const auto t = detail::timeRuns(
          [&](int64_t) {
            detail::launchHbmRead(src.get(), bytes, sink2.as<uint32_t>(), m_smCount, m_stream);
          },
          opt, m_stream);
      setTiming(r, t);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Streaming dequant

bool Session::dequantProbes() {
  for (const DequantInfo& d : kDequants) {
    if (!wants(d.scheme)) continue;
    MeasureRecord rec = record(KernelKind::Dequant, d.scheme, "cuda/src/dequant_kernels.cu");
    const bool go = measured(rec, [&] {
      MeasureRecord& r = rec;
      const bool isInt4 = d.format == detail::DequantFormat::kInt4Sym ||
                          d.format == detail::DequantFormat::kInt4Asym;

      // 1. Bit-exact check with the timed launch configuration (the same grid, from the SM
      //    count) over 1.5 passes of its grid-stride loop: every unrolled slot, the loop's
      //    second pass and a partial tail run, as they do when timed. Odd row count, nine
      //    groups per row.
      {
        const int64_t k = 1152;
        const int64_t n = (detail::dequantUnitsPerPass(m_smCount) * 3 / 2 * 8 / k) | 1;
        const std::vector<float> w = ref::randomUniform(n * k, seed(), -1.0f, 1.0f);
        std::vector<uint16_t> want;
        DeviceBuffer dw, ds, dz;
        detail::DequantArgs args;
        args.format = d.format;
        args.n = n;
        args.k = k;
        if (isInt4) {
          const auto q =
              ref::quantizeInt4G128(w, n, k, d.format == detail::DequantFormat::kInt4Asym);
          want = ref::dequantInt4(q);
          upload(dw, ref::packInt4Interleaved(q.codes, n, k), m_stream);
          upload(ds, q.scales, m_stream);
          if (q.asymmetric) upload(dz, q.zeros, m_stream);
        } else if (d.format == detail::DequantFormat::kInt8) {
          const auto q = ref::quantizeInt8PerChannel(w, n, k);
          want = ref::dequantInt8(q);
          upload(dw, q.q, m_stream);
          upload(ds, q.scales, m_stream);
        } else if (d.format == detail::DequantFormat::kFp8) {
          const auto q = ref::quantizeFp8PerChannel(w, n, k);
          want = ref::dequantFp8(q);
          upload(dw, q.q, m_stream);
          upload(ds, q.scales, m_stream);
        } else {
          const auto q = ref::quantizeMxfp4(w, n, k);
          want = ref::dequantMxfp4(q);
          upload(dw, q.packed, m_stream);
          upload(ds, q.scales, m_stream);
        }
        DeviceBuffer out(static_cast<std::size_t>(n * k) * 2);
        QF_CUDA_CHECK(cudaMemsetAsync(out.get(), kPoisonByte, out.bytes(), m_stream));
        args.weights = dw.get();
        args.scales = ds.get();
        args.zeros = dz.as<uint8_t>();
        args.out = out.as<uint16_t>();
        detail::launchDequant(args, m_smCount, m_stream);
        const auto got = download<uint16_t>(out.get(), static_cast<std::size_t>(n * k), m_stream);
        const int64_t bad = ref::countBf16Mismatches(got, want);
        r.valid = bad == 0;
        r.check = "bit_exact mismatches=" + std::to_string(bad) + "/" + std::to_string(n * k) +
                  " (timed grid, " + std::to_string(n * k / 8) + " units = 1.5 loop passes)";
      }

      // 2. Timing on device-generated random data, rotating buffer sets.
      const int64_t k = 4096;
      const int64_t n = std::max<int64_t>(1, m_cfg.dequantWeights / k);
      r.n = n;
      r.k = k;
      r.bytesMoved = detail::dequantBytesMoved(d.format, n, k);
      if (r.valid) {
        const int sets = rotationSets(r.bytesMoved, freeBytes() * 0.5);
        struct Set {
          DeviceBuffer w, s, z, out;
        };
        std::vector<Set> bufs(static_cast<std::size_t>(sets));
        const std::size_t weights = static_cast<std::size_t>(n * k);
        for (Set& b : bufs) {
          std::size_t wBytes = weights, sCount = 0;
          uint32_t mask = 0xFFFFFFFFu, orBits = 0;
          switch (d.format) {
            case detail::DequantFormat::kInt4Sym:
            case detail::DequantFormat::kInt4Asym:
              wBytes = weights / 2;
              sCount = weights / 128;
              break;
            case detail::DequantFormat::kInt8:
              sCount = static_cast<std::size_t>(n);
              break;
            case detail::DequantFormat::kFp8:
              sCount = static_cast<std::size_t>(n);
              mask = 0xBFBFBFBFu;  // exponent ≤ 7: no NaN codes
              break;
            case detail::DequantFormat::kMxfp4:
              wBytes = weights / 2;
              break;
          }
          b.w = DeviceBuffer(wBytes);
          detail::launchFillWords(b.w.as<uint32_t>(), wBytes / 4, seed(), mask, orBits, m_stream);
          if (d.format == detail::DequantFormat::kMxfp4) {
            b.s = DeviceBuffer(weights / 32);
            detail::launchFillWords(b.s.as<uint32_t>(), weights / 32 / 4, seed(), 0x03030303u,
                                    0x7C7C7C7Cu, m_stream);
          } else {
            b.s = DeviceBuffer(sCount * 2);
            detail::launchFillBf16(b.s.as<uint16_t>(), sCount, seed(), 0.001f, 0.01f, m_stream);
          }
          if (d.format == detail::DequantFormat::kInt4Asym) {
            b.z = DeviceBuffer(weights / 128);
            detail::launchFillWords(b.z.as<uint32_t>(), weights / 128 / 4, seed(), 0x0F0F0F0Fu, 0u,
                                    m_stream);
          }
          b.out = DeviceBuffer(weights * 2);
        }
        const auto t = detail::timeRuns(
            [&](int64_t run) {
              const Set& b = bufs[static_cast<std::size_t>(run % sets)];
              detail::DequantArgs args;
              args.format = d.format;
              args.weights = b.w.get();
              args.scales = b.s.get();
              args.zeros = b.z.as<uint8_t>();
              args.out = b.out.as<uint16_t>();
              args.n = n;
              args.k = k;
              detail::launchDequant(args, m_smCount, m_stream);
            },
            rotated(timingOptions(), sets), m_stream);
        setTiming(r, t);
        // 3. Spot check of what was timed: three rows of buffer set 0 (the first, a middle one
        //    and the last, which the grid-stride loop's tail writes) against the host
        //    reference computed from that set's own device-generated inputs.
        int64_t bad = 0;
        for (const int64_t row : {int64_t{0}, n / 2 + 1, n - 1}) {
          bad += ref::countBf16Mismatches(
              download<uint16_t>(bufs[0].out.as<uint16_t>() + row * k, static_cast<std::size_t>(k),
                                 m_stream),
              hostDequantRow(d.format, bufs[0].w.get(), bufs[0].s.get(), bufs[0].z.get(), row, k));
        }
        r.check += " timed_rows_mismatches=" + std::to_string(bad) + "/" + std::to_string(3 * k);
        if (bad != 0) r.valid = false;
      }
    });
    if (!go) return false;
  }
  return true;
}

std::vector<uint16_t> Session::hostDequantRow(detail::DequantFormat format, const void* weights,
                                              const void* scales, const void* zeros, int64_t row,
                                              int64_t k) {
  const auto ku = static_cast<std::size_t>(k);
  const auto* wb = static_cast<const uint8_t*>(weights);
  const auto* sb = static_cast<const uint8_t*>(scales);
  // INT8 and FP8: one byte per weight, one bf16 scale per row.
  const auto perChannelRow = [&](auto q) {
    q.n = 1;
    q.k = k;
    q.q = download<typename decltype(q.q)::value_type>(wb + row * k, ku, m_stream);
    q.scales = download<uint16_t>(sb + row * 2, 1, m_stream);
    return q;
  };
  switch (format) {
    case detail::DequantFormat::kInt4Sym:
    case detail::DequantFormat::kInt4Asym: {
      ref::Int4Weights q;
      q.n = 1;
      q.k = k;
      q.asymmetric = format == detail::DequantFormat::kInt4Asym;
      const auto groups = static_cast<std::size_t>(q.groups());
      q.codes =
          ref::unpackInt4Interleaved(download<uint32_t>(wb + row * k / 2, ku / 8, m_stream), 1, k);
      q.scales = download<uint16_t>(sb + row * q.groups() * 2, groups, m_stream);
      if (q.asymmetric) {
        q.zeros = download<uint8_t>(static_cast<const uint8_t*>(zeros) + row * q.groups(), groups,
                                    m_stream);
      }
      return ref::dequantInt4(q);
    }
    case detail::DequantFormat::kInt8:
      return ref::dequantInt8(perChannelRow(ref::Int8Weights{}));
    case detail::DequantFormat::kFp8:
      return ref::dequantFp8(perChannelRow(ref::Fp8Weights{}));
    case detail::DequantFormat::kMxfp4: {
      ref::Mxfp4Weights q;
      q.n = 1;
      q.k = k;
      q.packed = download<uint8_t>(wb + row * k / 2, ku / 2, m_stream);
      q.scales = download<uint8_t>(sb + row * k / 32, ku / 32, m_stream);
      return ref::dequantMxfp4(q);
    }
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// GEMMs

void Session::fillWeights(GemmKind kind, GemmWeights& gw, int64_t n, int64_t k) {
  const std::size_t nk = static_cast<std::size_t>(n * k);
  switch (kind) {
    case GemmKind::kBf16:
      gw.w = DeviceBuffer(nk * 2);
      detail::launchFillBf16(gw.w.as<uint16_t>(), nk, seed(), -1.0f, 1.0f, m_stream);
      break;
    case GemmKind::kFp8:
      gw.w = DeviceBuffer((nk + 3) / 4 * 4);
      detail::launchFillWords(gw.w.as<uint32_t>(), (nk + 3) / 4, seed(), 0xBFBFBFBFu, 0u, m_stream);
      break;
    case GemmKind::kInt8:
      gw.w = DeviceBuffer((nk + 3) / 4 * 4);
      detail::launchFillWords(gw.w.as<uint32_t>(), (nk + 3) / 4, seed(), 0xFFFFFFFFu, 0u, m_stream);
      break;
    case GemmKind::kW4a16: {
      gw.nPad = (n + 7) / 8 * 8;
      gw.kPad = (k + 127) / 128 * 128;
      const std::size_t words = static_cast<std::size_t>(gw.nPad * gw.kPad / 8);
      gw.w = DeviceBuffer(words * 4);
      detail::launchFillWords(gw.w.as<uint32_t>(), words, seed(), 0xFFFFFFFFu, 0u, m_stream);
      const std::size_t scales = static_cast<std::size_t>(gw.kPad / 128 * gw.nPad);
      gw.scales = DeviceBuffer(scales * 2);
      detail::launchFillBf16(gw.scales.as<uint16_t>(), scales, seed(), 0.001f, 0.01f, m_stream);
      break;
    }
  }
}

std::unique_ptr<detail::LtGemm> Session::planLt(GemmKind kind, int64_t m, int64_t n, int64_t k) {
  const detail::LtKind lk = kind == GemmKind::kBf16  ? detail::LtKind::kBf16
                            : kind == GemmKind::kFp8 ? detail::LtKind::kFp8
                                                     : detail::LtKind::kInt8;
  return std::make_unique<detail::LtGemm>(m_lt, lk, m, n, k, m_ltWorkspace.get(), kLtWorkspaceBytes,
                                          m_fp8Scales.as<float>(), m_fp8Scales.as<float>() + 1);
}

void Session::launchGemm(GemmKind kind, const GemmWeights& gw, const detail::LtGemm* lt,
                         const void* a, void* c, DeviceBuffer& workspace, int64_t m, int64_t n,
                         int64_t k, int residentCtas) {
  if (kind == GemmKind::kW4a16) {
    detail::W4a16GemmArgs p;
    p.a = static_cast<const uint16_t*>(a);
    p.words = gw.w.as<uint32_t>();
    p.scales = gw.scales.as<uint16_t>();
    p.c = static_cast<uint16_t*>(c);
    p.workspace = workspace.get();
    p.workspaceBytes = workspace.bytes();
    p.m = m;
    p.n = n;
    p.k = k;
    p.nPad = gw.nPad;
    p.kPad = gw.kPad;
    p.residentCtas = residentCtas;
    detail::launchW4a16Gemm(p, m_stream);
    return;
  }
  const cublasStatus_t s = lt->run(a, gw.w.get(), c, m_stream);
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw CudaError(std::string("cublasLtMatmul: ") + cublasLtGetStatusName(s), cudaSuccess,
                    s == CUBLAS_STATUS_NOT_SUPPORTED);
  }
}

/// Builds host inputs for one check case, uploads them, runs the kernel once into a poisoned
/// output and returns ‖C − C_ref‖/‖C_ref‖ (inf on NaN or an unwritten element).
std::string Session::checkGemmKernel(const GemmInfo& g, bool& ok) {
  // M = 1, 3, 118 (118: not a multiple of 16, more than one 64-row slice for the fused
  // kernel); N, K not multiples of 128. cuBLASLt needs 16-byte aligned leading dimensions for
  // FP8 (k % 16) and bf16 outputs (n % 8); the fused kernel takes any n and k % 8 == 0.
  const bool fused = g.kind == GemmKind::kW4a16;
  const int64_t n = fused ? 1003 : 1008;
  const int64_t k = fused ? 1064 : 1040;
  double worst = 0;
  ok = true;
  std::string detailText;
  for (const int64_t m : {int64_t{1}, int64_t{3}, int64_t{118}}) {
    const std::vector<float> a = ref::randomUniform(m * k, seed());
    const std::vector<float> w = ref::randomUniform(n * k, seed());
    std::vector<float> want;
    GemmWeights gw;
    DeviceBuffer da, dc, ws;
    std::unique_ptr<detail::LtGemm> lt;
    const std::size_t mn = static_cast<std::size_t>(m * n);
    int resident = 1;
    switch (g.kind) {
      case GemmKind::kBf16: {
        const auto ab = ref::floatToBf16(a), wb = ref::floatToBf16(w);
        want = ref::gemmReference(ref::bf16ToFloat(ab), ref::bf16ToFloat(wb), m, n, k);
        upload(da, ab, m_stream);
        upload(gw.w, wb, m_stream);
        break;
      }
      case GemmKind::kFp8: {
        float sa = 0, sw = 0;
        const auto aq = ref::quantizeE4m3PerTensor(a, sa), wq = ref::quantizeE4m3PerTensor(w, sw);
        std::vector<float> ad(aq.size()), wd(wq.size());
        for (std::size_t i = 0; i < aq.size(); ++i) ad[i] = ref::decodeE4m3(aq[i]);
        for (std::size_t i = 0; i < wq.size(); ++i) wd[i] = ref::decodeE4m3(wq[i]);
        want = ref::gemmReference(ad, wd, m, n, k);
        for (float& v : want) v *= sa * sw;
        upload(da, aq, m_stream);
        upload(gw.w, wq, m_stream);
        QF_CUDA_CHECK(cudaMemcpyAsync(m_fp8Scales.get(), std::vector<float>{sw, sa}.data(), 8,
                                      cudaMemcpyHostToDevice, m_stream));
        QF_CUDA_CHECK(cudaStreamSynchronize(m_stream));
        break;
      }
      case GemmKind::kInt8: {
        float sa = 0, sw = 0;
        const auto aq = ref::quantizeInt8PerTensor(a, sa), wq = ref::quantizeInt8PerTensor(w, sw);
        want = ref::gemmReference(std::vector<float>(aq.begin(), aq.end()),
                                  std::vector<float>(wq.begin(), wq.end()), m, n, k);
        upload(da, aq, m_stream);
        upload(gw.w, wq, m_stream);
        break;
      }
      case GemmKind::kW4a16: {
        const auto ab = ref::floatToBf16(a);
        const auto q = ref::quantizeInt4G128(w, n, k, false);
        want = ref::gemmReference(ref::bf16ToFloat(ab), ref::bf16ToFloat(ref::dequantInt4(q)), m, n,
                                  k);
        const auto packed = ref::packInt4Mma(q);
        upload(da, ab, m_stream);
        upload(gw.w, packed.words, m_stream);
        upload(gw.scales, packed.scales, m_stream);
        gw.nPad = packed.nPad;
        gw.kPad = packed.kPad;
        resident = detail::w4a16ResidentCtas(m, m_smCount);
        ws = w4a16Workspace(detail::w4a16Plan(m, gw.nPad, gw.kPad, resident), m_stream);
        break;
      }
    }
    if (!fused) {
      lt = planLt(g.kind, m, n, k);
      if (!lt->ok()) {
        detailText += " (m=" + std::to_string(m) + " unsupported: " + lt->why() + ")";
        continue;
      }
    }
    const bool intOut = lt != nullptr && lt->outputBytes() == 4;
    dc = DeviceBuffer(mn * (intOut ? 4 : 2));
    // The fused kernel twice: the second launch finds the workspace as the first left it (its
    // split-K locks back at 0), as every launch of a timed graph does; its output is checked.
    for (int launch = 0; launch < (fused ? 2 : 1); ++launch) {
      QF_CUDA_CHECK(
          cudaMemsetAsync(dc.get(), intOut ? kPoisonByteInt : kPoisonByte, dc.bytes(), m_stream));
      launchGemm(g.kind, gw, lt.get(), da.get(), dc.get(), ws, m, n, k, resident);
    }
    std::vector<float> got(mn);
    int64_t poisoned = 0;
    if (intOut) {
      const auto raw = download<int32_t>(dc.get(), mn, m_stream);
      for (std::size_t i = 0; i < mn; ++i) {
        poisoned += static_cast<uint32_t>(raw[i]) == kPoisonInt32 ? 1 : 0;
        got[i] = static_cast<float>(raw[i]);
      }
    } else {
      const auto raw = download<uint16_t>(dc.get(), mn, m_stream);
      for (std::size_t i = 0; i < mn; ++i) poisoned += raw[i] == kPoisonBf16 ? 1 : 0;
      got = ref::bf16ToFloat(raw);
    }
    const double err = poisoned > 0 ? INFINITY : ref::relativeError(got, want);
    worst = std::max(worst, err);
    if (!(err < kGemmTolerance)) {
      ok = false;
      detailText += " FAIL m=" + std::to_string(m) + fmt(" rel_err=%.2e", err) +
                    " unwritten=" + std::to_string(poisoned);
    }
  }
  return "check_shapes(m=1,3,118 n=" + std::to_string(n) + " k=" + std::to_string(k) + ")" +
         fmt(" max_rel_err=%.2e", worst) + detailText;
}

std::vector<float> Session::hostRow(GemmKind kind, const void* a, int64_t row, int64_t k,
                                    float fp8Scale) {
  const std::size_t ku = static_cast<std::size_t>(k);
  std::vector<float> out(ku);
  if (kind == GemmKind::kBf16 || kind == GemmKind::kW4a16) {
    const auto raw = download<uint16_t>(static_cast<const uint16_t*>(a) + row * k, ku, m_stream);
    out = ref::bf16ToFloat(raw);
  } else {
    const auto raw = download<uint8_t>(static_cast<const uint8_t*>(a) + row * k, ku, m_stream);
    for (std::size_t i = 0; i < ku; ++i) {
      out[i] = kind == GemmKind::kFp8 ? ref::decodeE4m3(raw[i]) * fp8Scale
                                      : static_cast<float>(static_cast<int8_t>(raw[i]));
    }
  }
  return out;
}

std::vector<float> Session::hostWeightRow(GemmKind kind, const GemmWeights& gw,
                                          const std::vector<uint16_t>& w4Scales, int64_t row,
                                          int64_t k) {
  if (kind == GemmKind::kW4a16) {
    // Copy the row's 8-row tile (contiguous in the packed layout) and unpack it on the host.
    const int64_t groups = gw.kPad / 128;
    const int64_t tile = row / 8;
    ref::Int4MmaPacked p;
    p.n = 8;
    p.k = gw.kPad;
    p.nPad = 8;
    p.kPad = gw.kPad;
    p.words = download<uint32_t>(gw.w.as<uint32_t>() + tile * groups * 128,
                                 static_cast<std::size_t>(groups * 128), m_stream);
    p.scales.resize(static_cast<std::size_t>(groups * 8));
    for (int64_t g = 0; g < groups; ++g) {
      for (int64_t r = 0; r < 8; ++r) {
        p.scales[static_cast<std::size_t>(g * 8 + r)] =
            w4Scales[static_cast<std::size_t>(g * gw.nPad + tile * 8 + r)];
      }
    }
    const auto deq = ref::bf16ToFloat(ref::dequantInt4(ref::unpackInt4Mma(p)));
    const auto begin = deq.begin() + static_cast<std::ptrdiff_t>((row % 8) * gw.kPad);
    return std::vector<float>(begin, begin + static_cast<std::ptrdiff_t>(k));
  }
  return hostRow(kind, gw.w.get(), row, k, kFp8WScale);
}

bool Session::gemmProbes() {
  // Distinct N×K shapes, names joined.
  std::vector<std::pair<std::pair<int64_t, int64_t>, std::string>> shapes;
  for (const MeasureConfig::Shape& s : m_cfg.shapes) {
    auto it = std::find_if(shapes.begin(), shapes.end(),
                           [&](const auto& e) { return e.first == std::make_pair(s.n, s.k); });
    if (it == shapes.end()) {
      shapes.push_back({{s.n, s.k}, s.name});
    } else {
      it->second += "+" + s.name;
    }
  }
  const detail::TimingOptions opt = timingOptions();
  for (const GemmInfo& g : kGemms) {
    if (!wants(g.scheme)) continue;
    bool kernelOk = true;
    bool noPath = false;  // the chip has no hardware path for this GEMM: skipped, with a note
    std::string kernelCheck;
    const auto& env = m_result.environment;
    if (g.kind == GemmKind::kFp8 && env.smMajor * 10 + env.smMinor < 89) {
      // FP8 tensor cores start at compute capability 8.9 (L4/L40S, H100/H200); an A100 or A10
      // has none, and cuBLASLt would only report NOT_SUPPORTED for every shape.
      kernelOk = false;
      noPath = true;
      kernelCheck = "skipped: compute capability " + std::to_string(env.smMajor) + "." +
                    std::to_string(env.smMinor) + " has no FP8 tensor cores (8.9 or newer)";
    }
    if (!noPath) {
      try {
        kernelCheck = checkGemmKernel(g, kernelOk);
      } catch (const CudaError& e) {
        kernelOk = false;
        kernelCheck = std::string("check_shapes error: ") + e.what();
        stopIfSticky(e.code, kernelCheck);
      }
    }
    QF_CUDA_CHECK(cudaMemcpyAsync(m_fp8Scales.get(),
                                  std::vector<float>{kFp8WScale, kFp8AScale}.data(), 8,
                                  cudaMemcpyHostToDevice, m_stream));
    QF_CUDA_CHECK(cudaStreamSynchronize(m_stream));
    const std::size_t actElem = (g.kind == GemmKind::kBf16 || g.kind == GemmKind::kW4a16) ? 2 : 1;
    for (const auto& [nk, names] : shapes) {
      const auto [n, k] = nk;
      double wBytes = gemmBytes(g.kind, 0, n, k);
      std::vector<GemmWeights> wsets;
      std::vector<uint16_t> w4Scales;
      int nSets = 0;
      std::string weightError;  // the shape's weights could not be set up (out of memory, say)
      if (kernelOk) {
        try {
          nSets = rotationSets(wBytes, freeBytes() * 0.4);
          wsets.resize(static_cast<std::size_t>(nSets));
          for (GemmWeights& gw : wsets) fillWeights(g.kind, gw, n, k);
          if (g.kind == GemmKind::kW4a16) {
            w4Scales =
                download<uint16_t>(wsets[0].scales.get(), wsets[0].scales.bytes() / 2, m_stream);
          }
        } catch (const CudaError& e) {
          wsets.clear();
          weightError = std::string("weights for ") + names + ": " + e.what();
          stopIfSticky(e.code, weightError);
        }
      }
      for (const int64_t m : m_cfg.mList) {
        MeasureRecord rec = record(KernelKind::Gemm, g.scheme, g.source);
        rec.shape = names;
        rec.m = m;
        rec.n = n;
        rec.k = k;
        rec.flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
        rec.bytesMoved = gemmBytes(g.kind, m, n, k);
        const bool go = measured(rec, [&] {
          MeasureRecord& r = rec;
          if (!kernelOk) {
            r.valid = false;
            r.supported = !noPath;
            r.check = kernelCheck;
            return;
          }
          if (!weightError.empty()) throw CudaError(weightError);
          std::unique_ptr<detail::LtGemm> lt;
          if (g.kind != GemmKind::kW4a16) {
            lt = planLt(g.kind, m, n, k);
            if (!lt->ok()) {
              r.valid = false;
              r.supported = false;
              r.check = "unsupported: " + lt->why();
              return;
            }
          }
          const bool intOut = lt != nullptr && lt->outputBytes() == 4;
          const std::size_t outElem = intOut ? 4 : 2;
          if (g.kind == GemmKind::kInt8 && !intOut) {
            r.bytesMoved -= 2.0 * static_cast<double>(m) * static_cast<double>(n);  // bf16 out
          }
          // Activation/output sets: as many as the weight sets while memory allows.
          const double aoBytes =
              static_cast<double>(m) * static_cast<double>(k * static_cast<int64_t>(actElem) +
                                                           n * static_cast<int64_t>(outElem));
          // A divisor of nSets, so one graph of whole weight rotations also rotates these evenly.
          int aSets = std::max(1, std::min(nSets, rotationSets(aoBytes, freeBytes() * 0.5)));
          while (nSets % aSets != 0) --aSets;
          std::vector<DeviceBuffer> acts, outs;
          for (int i = 0; i < aSets; ++i) {
            const std::size_t aCount = static_cast<std::size_t>(m * k);
            DeviceBuffer a(aCount * actElem);
            if (actElem == 2) {
              detail::launchFillBf16(a.as<uint16_t>(), aCount, seed(), -1.0f, 1.0f, m_stream);
            } else {
              const std::size_t words = aCount / 4;  // tail bytes stay uninitialised-free below
              QF_CUDA_CHECK(cudaMemsetAsync(a.get(), 0x11, a.bytes(), m_stream));
              detail::launchFillWords(a.as<uint32_t>(), words, seed(),
                                      g.kind == GemmKind::kFp8 ? 0xBFBFBFBFu : 0xFFFFFFFFu, 0u,
                                      m_stream);
            }
            acts.push_back(std::move(a));
            outs.emplace_back(static_cast<std::size_t>(m * n) * outElem);
          }
          int resident = 1;
          detail::W4a16Plan plan;
          DeviceBuffer ws;
          if (g.kind == GemmKind::kW4a16) {
            resident = detail::w4a16ResidentCtas(m, m_smCount);
            plan = detail::w4a16Plan(m, wsets[0].nPad, wsets[0].kPad, resident);
            ws = w4a16Workspace(plan, m_stream);
            // Split-K partial sums are written and read back inside the kernel (fp32, mostly
            // in L2): counted, so the record's bandwidth is everything the run moved.
            r.bytesMoved += plan.reductionBytes;
          }
          // Check this exact configuration: poisoned output, full unwritten-element scan, and
          // ‖C − C_ref‖/‖C_ref‖ over sampled rows × columns against host dot products.
          {
            void* c = outs[0].get();
            QF_CUDA_CHECK(cudaMemsetAsync(c, intOut ? kPoisonByteInt : kPoisonByte, outs[0].bytes(),
                                          m_stream));
            launchGemm(g.kind, wsets[0], lt.get(), acts[0].get(), c, ws, m, n, k, resident);
            const std::size_t mn = static_cast<std::size_t>(m * n);
            if (intOut) {
              detail::launchCountPattern32(static_cast<const uint32_t*>(c), mn, kPoisonInt32,
                                           m_counter.as<unsigned long long>(), m_stream);
            } else {
              detail::launchCountPattern16(static_cast<const uint16_t*>(c), mn, kPoisonBf16,
                                           m_counter.as<unsigned long long>(), m_stream);
            }
            const auto unwritten = download<unsigned long long>(m_counter.get(), 1, m_stream)[0];
            std::mt19937_64 rng(seed());
            std::set<int64_t> rows{0, m - 1}, cols{0, n - 1};
            while (static_cast<int64_t>(rows.size()) < std::min<int64_t>(m, 6))
              rows.insert(static_cast<int64_t>(rng() % static_cast<uint64_t>(m)));
            while (static_cast<int64_t>(cols.size()) < std::min<int64_t>(n, 8))
              cols.insert(static_cast<int64_t>(rng() % static_cast<uint64_t>(n)));
            std::map<int64_t, std::vector<float>> wRows;
            for (const int64_t j : cols) wRows[j] = hostWeightRow(g.kind, wsets[0], w4Scales, j, k);
            std::vector<float> got, want;
            for (const int64_t i : rows) {
              const std::vector<float> aRow = hostRow(g.kind, acts[0].get(), i, k, kFp8AScale);
              std::vector<float> cRow(static_cast<std::size_t>(n));
              if (intOut) {
                const auto raw = download<int32_t>(static_cast<const int32_t*>(c) + i * n,
                                                   static_cast<std::size_t>(n), m_stream);
                for (std::size_t j = 0; j < raw.size(); ++j) cRow[j] = static_cast<float>(raw[j]);
              } else {
                cRow = ref::bf16ToFloat(download<uint16_t>(static_cast<const uint16_t*>(c) + i * n,
                                                           static_cast<std::size_t>(n), m_stream));
              }
              for (const int64_t j : cols) {
                const auto one = ref::gemmReference(aRow, wRows[j], 1, 1, k);
                want.push_back(one[0]);
                got.push_back(cRow[static_cast<std::size_t>(j)]);
              }
            }
            const double err = ref::relativeError(got, want);
            r.valid = unwritten == 0 && err < kGemmTolerance;
            r.check = (lt != nullptr ? lt->describe() + " " : std::string()) +
                      fmt("rel_err=%.2e", err) + " sampled=" + std::to_string(got.size()) +
                      " unwritten=" + std::to_string(unwritten) + "; " + kernelCheck +
                      (g.kind == GemmKind::kW4a16
                           ? " ctas=" + std::to_string(plan.ctas) +
                                 " groups_per_cta=" + std::to_string(plan.groupsPerCta)
                           : "");
          }
          if (r.valid) {
            const auto t = detail::timeRuns(
                [&](int64_t run) {
                  const auto wi = static_cast<std::size_t>(run % nSets);
                  const auto ai = static_cast<std::size_t>(run % aSets);
                  launchGemm(g.kind, wsets[wi], lt.get(), acts[ai].get(), outs[ai].get(), ws, m, n,
                             k, resident);
                },
                rotated(opt, nSets), m_stream);
            setTiming(r, t);
          }
        });
        if (!go) return false;
      }
    }
  }
  return true;
}

void Session::run() {
  openDevice();
  // Plan: count records for the progress fraction.
  int64_t planned = m_cfg.hbm ? 2 : 0;
  if (m_cfg.dequant) {
    for (const DequantInfo& d : kDequants) planned += wants(d.scheme) ? 1 : 0;
  }
  std::set<std::pair<int64_t, int64_t>> distinct;
  for (const auto& s : m_cfg.shapes) distinct.insert({s.n, s.k});
  if (m_cfg.gemm) {
    for (const GemmInfo& g : kGemms) {
      if (wants(g.scheme)) planned += static_cast<int64_t>(distinct.size() * m_cfg.mList.size());
    }
  }
  m_planned = std::max<int64_t>(planned, 1);
  for (const std::string& s : schemes()) {
    if (measurableScheme(s) == nullptr) {
      MeasureRecord r = record(KernelKind::Other, s, "cuda/src/measure.cpp");
      r.kernel = "unknown";
      r.valid = false;
      r.check = "unknown scheme id";
      m_result.records.push_back(r);
    }
  }
  const bool finished = (!m_cfg.hbm || hbmProbes()) && (!m_cfg.dequant || dequantProbes()) &&
                        (!m_cfg.gemm || gemmProbes());
  m_result.cancelled = !finished && m_cancelled;
  QF_CUDA_CHECK(cudaStreamSynchronize(m_stream));
}

}  // namespace

MeasureResult measure(const MeasureConfig& config, const Progress& progress) {
  MeasureResult result;
  try {
    Session session(config, progress, result);
    session.run();
  } catch (const std::exception& e) {
    result.error = e.what();
  } catch (...) {
    result.error = "unknown error";
  }
  return result;
}

}  // namespace qf::cuda
