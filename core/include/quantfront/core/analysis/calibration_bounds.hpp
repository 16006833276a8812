#pragma once
/// Physical bounds on kernel records before a calibration fit: a record whose time, bytes or
/// FLOPs no GPU could produce (a median of 1e-300 s, a copy implying 1e21 TB/s) would drag a
/// least-squares fit anywhere, or make it impossible, without a word. screenRecords() leaves
/// such records out of the fit, with a warning naming each one by its position.
#include <cstddef>
#include <string>
#include <vector>

#include <quantfront/core/base/records.hpp>
#include <quantfront/core/model/hardware.hpp>

namespace qf {

/// Shortest and longest time one kernel record may report (seconds). A GPU kernel launch
/// alone takes microseconds; a benchmark of one kernel does not run for hours.
inline constexpr double kMinKernelSeconds = 1e-7;
inline constexpr double kMaxKernelSeconds = 3600;
/// A record may imply at most this multiple of the datasheet's bandwidth or tensor peak
/// (datasheets are rounded, boost clocks vary: measured figures stay well within 2x).
inline constexpr double kMaxRateOverDatasheet = 2.0;
/// ... and at least this fraction of it (a slower record measured something else).
inline constexpr double kMinRateOverDatasheet = 1e-4;
/// Weights a dequant kernel may stream per byte of the datasheet's bandwidth: it reads at
/// least 1/8 byte per weight (a 1-bit code; 4-bit codes are half a byte).
inline constexpr double kMaxWeightsPerByte = 8.0;

/// The records a fit on `datasheet` may use, and what was left out.
struct RecordScreen {
  std::vector<KernelMeasurement> kept;  ///< every record of other devices, and the plausible
  std::vector<std::string> warnings;    ///< one per record left out, naming its position
  std::size_t refused = 0;
};

/// Checks `device`'s records against `datasheet`'s peaks: time within [kMinKernelSeconds,
/// kMaxKernelSeconds]; a copy/read probe's bytes over its time, a GEMM's FLOPs over its time
/// (against the fastest tensor path the GPU has) and a dequant kernel's weights over its time
/// within [kMinRateOverDatasheet, kMaxRateOverDatasheet] of the datasheet. Records of other
/// devices are kept as they are. Warnings name `/kernel_measurements/<i>` of `source`.
RecordScreen screenRecords(const std::vector<KernelMeasurement>& records, const std::string& device,
                           const GpuSpec& datasheet);

}  // namespace qf
