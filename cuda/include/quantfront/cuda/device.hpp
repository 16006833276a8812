#pragma once
/// Device query for the status line and measurement records. Plain C++: no CUDA headers.
#include <string>
#include <vector>

namespace qf::cuda {

/// One CUDA device as the runtime reports it: the one description of a device in cuda/ (the
/// device list and, extended, a measurement's EnvironmentInfo), filled in one place from
/// cudaDeviceProp (device_query.cu).
struct DeviceInfo {
  int index = 0;                 ///< CUDA device index
  std::string name;              ///< e.g. "NVIDIA H200"
  int smMajor = 0, smMinor = 0;  ///< compute capability
  int smCount = 0;               ///< multiprocessors
  double memoryGib = 0;          ///< total device memory, GiB
  int memoryBusBits = 0;         ///< memory bus width, bits
  double l2Bytes = 0;            ///< L2 cache, bytes
};

/// Devices visible to this process; empty (with `why` set) when there is no driver or GPU.
std::vector<DeviceInfo> queryDevices(std::string& why);

}  // namespace qf::cuda
