#pragma once
// What measure() records of a device, read from the same runtime properties as queryDevices
// (device_query.cu): the one place that reads cudaDeviceProp.
#include <cuda_runtime.h>

#include <quantfront/cuda/measure.hpp>

namespace qf::cuda::detail {

/// The name, SMs, compute capability, memory, bus width and L2 of `prop` (device `index`).
DeviceInfo describeDevice(const cudaDeviceProp& prop, int index);

/// describeDevice's fields, ECC and the UUID of `prop` into `env`.
void describeEnvironment(const cudaDeviceProp& prop, int index, EnvironmentInfo& env);

}  // namespace qf::cuda::detail
