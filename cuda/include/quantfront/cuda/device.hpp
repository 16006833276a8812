#pragma once
/// Device query for the status line and measurement records. Plain C++: no CUDA headers.
#include <string>
#include <vector>

namespace qf::cuda {

/// One CUDA device as the runtime reports it.
struct DeviceInfo {
  int index = 0;
  std::string name;
  int smMajor = 0, smMinor = 0;
  int smCount = 0;
  double memoryGib = 0;      ///< total device memory
  double memoryBusBits = 0;  ///< memory bus width
  double l2CacheBytes = 0;
};

/// Devices visible to this process; empty (with `why` set) when there is no driver or GPU.
std::vector<DeviceInfo> queryDevices(std::string& why);

}  // namespace qf::cuda
