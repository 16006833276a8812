#pragma once
// What measure() records of a device, read from the same runtime properties as queryDevices
// (device_query.cu): the one place that reads cudaDeviceProp.
#include <cuda_runtime.h>

#include <quantfront/cuda/measure.hpp>

namespace qf::cuda::detail {

/// SMs, compute capability, memory, L2, bus width, ECC and the UUID of `prop` into `env`.
void describeDevice(const cudaDeviceProp& prop, EnvironmentInfo& env);

}  // namespace qf::cuda::detail
