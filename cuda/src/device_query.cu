// Device query through the CUDA runtime. The kernels and cuBLASLt GEMMs of qfront-measure
// build on this facade; callers above cuda/ see only DeviceInfo.
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include <quantfront/cuda/device.hpp>

#include "device_props.hpp"

namespace qf::cuda {

std::vector<DeviceInfo> queryDevices(std::string& why) {
  std::vector<DeviceInfo> out;
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    // Without an NVIDIA driver the runtime reports an "insufficient driver": say what it means.
    why = err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice
              ? std::string("no NVIDIA driver or GPU visible to this process")
              : std::string(cudaGetErrorString(err));
    return out;
  }
  if (count == 0) {
    why = "no CUDA device";
    return out;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    out.push_back(detail::describeDevice(prop, i));
  }
  return out;
}

namespace detail {

namespace {

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

}  // namespace

DeviceInfo describeDevice(const cudaDeviceProp& prop, int index) {
  DeviceInfo d;
  d.index = index;
  d.name = prop.name;
  d.smMajor = prop.major;
  d.smMinor = prop.minor;
  d.smCount = prop.multiProcessorCount;
  d.memoryGib = static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
  d.memoryBusBits = prop.memoryBusWidth;
  d.l2Bytes = static_cast<double>(prop.l2CacheSize);
  return d;
}

void describeEnvironment(const cudaDeviceProp& prop, int index, EnvironmentInfo& env) {
  static_cast<DeviceInfo&>(env) = describeDevice(prop, index);
  env.eccEnabled = prop.ECCEnabled != 0 ? 1 : 0;
  env.uuid = uuidText(prop.uuid);
}

}  // namespace detail

}  // namespace qf::cuda
