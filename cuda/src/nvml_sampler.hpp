#pragma once
// Board power, clocks and throttle reasons from NVML while a record is timed. Not part of the
// public facade.
//
// NVML is loaded at run time (dlopen "libnvidia-ml.so.1", the driver's library) rather than
// linked: the library ships with the driver, not the toolkit, and linking the toolkit's stub
// would make every binary refuse to start on a machine whose driver lacks it (containers that
// mount only libcuda, WSL). Without NVML the measurements still run; the records then carry no
// energy and the environment says why. The few entry points used are declared here (NVML's C
// ABI has been stable since 2012; the toolkit here ships no nvml.h).
#include <cstdint>
#include <memory>
#include <string>

namespace qf::cuda::detail {

/// What NVML says about the device once, outside timing.
struct NvmlStatic {
  std::string uuid;        ///< "GPU-…"
  std::string driver;      ///< e.g. "580.159.03"
  double powerLimitW = 0;  ///< enforced power limit
  int eccEnabled = -1;     ///< 1 on, 0 off, -1 unknown (not supported)
};

/// Averages over one timed window (sampled every ~5 ms by a background thread).
struct NvmlWindow {
  int samples = 0;               ///< power readings taken
  double avgPowerW = 0;          ///< mean board power
  double energyJ = 0;            ///< from the energy counter where supported, else power·time
  double seconds = 0;            ///< wall time of the window
  double avgSmClockMhz = 0;      ///< mean SM clock
  double avgMemClockMhz = 0;     ///< mean memory clock
  uint64_t throttleReasons = 0;  ///< OR of the clock-event reason bits seen (NVML's masks)
};

/// Human-readable names of the throttle bits that matter for a measurement (power cap,
/// thermal, hardware slowdown, power brake), comma-separated; "" when none.
std::string throttleText(uint64_t reasons);

/// One NVML session for one CUDA device (matched by PCI bus id).
class NvmlSampler {
 public:
  /// `pciBusId` as cudaDeviceGetPCIBusId writes it ("0000:41:00.0").
  explicit NvmlSampler(const std::string& pciBusId);
  ~NvmlSampler();
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;

  /// False when NVML could not be loaded or the device not found; why() says which.
  bool available() const;
  const std::string& why() const { return m_why; }
  NvmlStatic staticInfo() const;
  /// Starts sampling in the background (no-op when unavailable).
  void start();
  /// Stops sampling and returns the window's averages (zeros when unavailable).
  NvmlWindow stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
  std::string m_why;
};

}  // namespace qf::cuda::detail
