// measure(): plans the records, checks each kernel against the host references
// (core/reference), then times it with rotating buffer sets so weights come from HBM, not L2.
#include "device_props.hpp"
#include "measure_run.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <set>
#include <utility>

namespace qf::cuda {

namespace measure_detail {

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
  cudaDeviceProp prop{};
  QF_CUDA_CHECK(cudaGetDeviceProperties(&prop, m_cfg.device));
  env.name = prop.name;
  if (prop.major < 8) {
    // bf16 mma.sync, cp.async and the bf16x2 conversions all start at compute capability 8.0.
    throw CudaError(env.name + " has compute capability " + std::to_string(prop.major) + "." +
                    std::to_string(prop.minor) +
                    "; measuring needs 8.0 or newer (A100, A10, L4, L40S, H100, H200)");
  }
  detail::describeEnvironment(prop, m_cfg.device, env);
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, m_cfg.device) == cudaSuccess) {
    env.smClockMhz = khz / 1000.0;
  }
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, m_cfg.device) == cudaSuccess) {
    env.memoryClockMhz = khz / 1000.0;
  }
  cudaGetLastError();  // an unsupported attribute is not an error here
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
  int optin = 0;
  QF_CUDA_CHECK(
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, m_cfg.device));
  env.smemPerBlockOptinBytes = optin;
  env.w4a16MaxCtaRows = detail::prepareW4a16Gemm(optin);
  // The null-kernel baseline: an empty kernel replayed in a graph as every record is; its
  // per-launch time is subtracted from each record's median and minimum, and recorded.
  {
    detail::TimingOptions o = timingOptions();
    o.onSampling = nullptr;
    o.baselineS = 0;
    const detail::TimingResult t =
        detail::timeRuns([this](int64_t) { detail::launchEmptyKernel(m_stream); }, o, m_stream);
    m_baselineS = t.medianS;
    env.nullKernelS = t.medianS;
    env.nullKernelRepeatNoise = t.repeatNoise;
  }
  upload(m_fp8Scales, std::vector<float>{kFp8WScale, kFp8AScale}, m_stream);
}

std::vector<std::string> Session::schemes() const {
  if (!m_cfg.schemes.empty()) return m_cfg.schemes;
  return measurableSchemeIds();
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
  r.repeatNoise = t.repeatNoise;
  r.baselineS = t.baselineS;
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
  o.baselineS = m_baselineS;
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

}  // namespace measure_detail

MeasureResult measure(const MeasureConfig& config, const Progress& progress) {
  MeasureResult result;
  try {
    measure_detail::Session session(config, progress, result);
    session.run();
  } catch (const std::exception& e) {
    result.error = e.what();
  } catch (...) {
    result.error = "unknown error";
  }
  return result;
}

}  // namespace qf::cuda
