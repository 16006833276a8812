#pragma once
/// Device query for the status line and measurement records. Plain C++: no CUDA headers.
#include <string>
#include <vector>

#include <quantfront/core/base/device.hpp>

namespace qf::cuda {

/// One CUDA device as the runtime reports it: core's device description (the device list
/// and, extended, a measurement's EnvironmentInfo), filled in one place from cudaDeviceProp
/// (device_query.cu).
using DeviceInfo = qf::DeviceDescription;

/// Devices visible to this process; empty (with `why` set) when there is no driver or GPU.
std::vector<DeviceInfo> queryDevices(std::string& why);

}  // namespace qf::cuda
