// NVML sampling during timed records (see nvml_sampler.hpp for why NVML is loaded at run time).
#include "nvml_sampler.hpp"

#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace qf::cuda::detail {

namespace {

// The NVML C ABI subset used here (names and values as in NVML's nvml.h).
using NvmlReturn = int;  // nvmlReturn_t; 0 = NVML_SUCCESS
using NvmlDevice = struct NvmlDeviceOpaque*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kClockSm = 1;   // NVML_CLOCK_SM
constexpr int kClockMem = 2;  // NVML_CLOCK_MEM
// nvmlClocksEventReason* / nvmlClocksThrottleReason* bits.
constexpr uint64_t kReasonSwPowerCap = 0x4, kReasonHwSlowdown = 0x8, kReasonSwThermal = 0x20,
                   kReasonHwThermal = 0x40, kReasonPowerBrake = 0x80;

struct NvmlApi {
  void* lib = nullptr;
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  NvmlReturn (*byPciBusId)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*uuid)(NvmlDevice, char*, unsigned) = nullptr;
  NvmlReturn (*driverVersion)(char*, unsigned) = nullptr;
  NvmlReturn (*powerUsage)(NvmlDevice, unsigned*) = nullptr;        // mW
  NvmlReturn (*powerLimit)(NvmlDevice, unsigned*) = nullptr;        // mW
  NvmlReturn (*energy)(NvmlDevice, unsigned long long*) = nullptr;  // mJ since load
  NvmlReturn (*clock)(NvmlDevice, int, unsigned*) = nullptr;        // MHz
  NvmlReturn (*reasons)(NvmlDevice, unsigned long long*) = nullptr;
  NvmlReturn (*ecc)(NvmlDevice, int*, int*) = nullptr;

  template <class F>
  bool bind(F& fn, const char* name) {
    fn = reinterpret_cast<F>(dlsym(lib, name));
    return fn != nullptr;
  }
};

}  // namespace

std::string throttleText(uint64_t reasons) {
  std::string out;
  const auto add = [&](uint64_t bit, const char* name) {
    if ((reasons & bit) == 0) return;
    if (!out.empty()) out += ",";
    out += name;
  };
  add(kReasonSwPowerCap, "power_cap");
  add(kReasonHwSlowdown, "hw_slowdown");
  add(kReasonSwThermal, "sw_thermal");
  add(kReasonHwThermal, "hw_thermal");
  add(kReasonPowerBrake, "power_brake");
  return out;
}

struct NvmlSampler::Impl {
  NvmlApi api;
  NvmlDevice device = nullptr;
  bool initialised = false;
  std::thread thread;
  std::atomic<bool> running{false};
  std::mutex mutex;
  // Accumulated by the thread, read after join.
  int samples = 0;
  double powerSum = 0, smSum = 0, memSum = 0;
  int clockSamples = 0;
  uint64_t reasons = 0;
  unsigned long long energyStart = 0;
  bool energyOk = false;
  std::chrono::steady_clock::time_point started;

  void sampleOnce() {
    unsigned mw = 0, sm = 0, mem = 0;
    if (api.powerUsage(device, &mw) == kNvmlSuccess) {
      powerSum += mw * 1e-3;
      ++samples;
    }
    if (api.clock(device, kClockSm, &sm) == kNvmlSuccess &&
        api.clock(device, kClockMem, &mem) == kNvmlSuccess) {
      smSum += sm;
      memSum += mem;
      ++clockSamples;
    }
    unsigned long long r = 0;
    if (api.reasons != nullptr && api.reasons(device, &r) == kNvmlSuccess) reasons |= r;
  }
};

NvmlSampler::NvmlSampler(const std::string& pciBusId) : m_impl(std::make_unique<Impl>()) {
  NvmlApi& a = m_impl->api;
  a.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (a.lib == nullptr) {
    m_why = "NVML not loaded (libnvidia-ml.so.1 not found): no power or energy figures";
    return;
  }
  const bool bound = a.bind(a.init, "nvmlInit_v2") && a.bind(a.shutdown, "nvmlShutdown") &&
                     a.bind(a.byPciBusId, "nvmlDeviceGetHandleByPciBusId_v2") &&
                     a.bind(a.uuid, "nvmlDeviceGetUUID") &&
                     a.bind(a.driverVersion, "nvmlSystemGetDriverVersion") &&
                     a.bind(a.powerUsage, "nvmlDeviceGetPowerUsage") &&
                     a.bind(a.powerLimit, "nvmlDeviceGetEnforcedPowerLimit") &&
                     a.bind(a.clock, "nvmlDeviceGetClockInfo") &&
                     a.bind(a.ecc, "nvmlDeviceGetEccMode");
  // Optional: the energy counter (Volta and newer) and the clock-event reasons (renamed in
  // newer drivers; the older name still resolves there).
  a.bind(a.energy, "nvmlDeviceGetTotalEnergyConsumption");
  if (!a.bind(a.reasons, "nvmlDeviceGetCurrentClocksEventReasons")) {
    a.bind(a.reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  }
  if (!bound) {
    m_why = "NVML too old (a needed entry point is missing): no power or energy figures";
    return;
  }
  if (a.init() != kNvmlSuccess) {
    m_why = "NVML did not initialise: no power or energy figures";
    return;
  }
  m_impl->initialised = true;
  if (a.byPciBusId(pciBusId.c_str(), &m_impl->device) != kNvmlSuccess) {
    m_impl->device = nullptr;
    m_why = "NVML does not know the device at PCI " + pciBusId + ": no power or energy figures";
  }
}

NvmlSampler::~NvmlSampler() {
  if (m_impl->running) stop();
  if (m_impl->initialised) m_impl->api.shutdown();
  if (m_impl->api.lib != nullptr) dlclose(m_impl->api.lib);
}

bool NvmlSampler::available() const {
  return m_impl->device != nullptr;
}

NvmlStatic NvmlSampler::staticInfo() const {
  NvmlStatic s;
  if (!available()) return s;
  NvmlApi& a = m_impl->api;
  char buf[96] = {};
  if (a.uuid(m_impl->device, buf, sizeof buf) == kNvmlSuccess) s.uuid = buf;
  char drv[96] = {};
  if (a.driverVersion(drv, sizeof drv) == kNvmlSuccess) s.driver = drv;
  unsigned mw = 0;
  if (a.powerLimit(m_impl->device, &mw) == kNvmlSuccess) s.powerLimitW = mw * 1e-3;
  int current = 0, pending = 0;
  if (a.ecc(m_impl->device, &current, &pending) == kNvmlSuccess) s.eccEnabled = current != 0;
  return s;
}

void NvmlSampler::start() {
  if (!available() || m_impl->running) return;
  Impl& im = *m_impl;
  im.samples = im.clockSamples = 0;
  im.powerSum = im.smSum = im.memSum = 0;
  im.reasons = 0;
  im.energyOk =
      im.api.energy != nullptr && im.api.energy(im.device, &im.energyStart) == kNvmlSuccess;
  im.started = std::chrono::steady_clock::now();
  im.running = true;
  im.thread = std::thread([&im] {
    while (im.running.load()) {
      im.sampleOnce();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
}

NvmlWindow NvmlSampler::stop() {
  NvmlWindow w;
  if (!available() || !m_impl->running) return w;
  Impl& im = *m_impl;
  im.running = false;
  im.thread.join();
  im.sampleOnce();  // at least one reading, also for windows shorter than the period
  w.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - im.started).count();
  w.samples = im.samples;
  w.avgPowerW = im.samples > 0 ? im.powerSum / im.samples : 0;
  if (im.clockSamples > 0) {
    w.avgSmClockMhz = im.smSum / im.clockSamples;
    w.avgMemClockMhz = im.memSum / im.clockSamples;
  }
  w.throttleReasons = im.reasons;
  unsigned long long energyEnd = 0;
  if (im.energyOk && im.api.energy(im.device, &energyEnd) == kNvmlSuccess &&
      energyEnd > im.energyStart) {
    w.energyJ = static_cast<double>(energyEnd - im.energyStart) * 1e-3;
    if (w.seconds > 0) w.avgPowerW = w.energyJ / w.seconds;  // the counter is exact, prefer it
  } else {
    w.energyJ = w.avgPowerW * w.seconds;
  }
  return w;
}

}  // namespace qf::cuda::detail
