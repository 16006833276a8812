#pragma once
// Host helpers inside cuda/: error checks that throw (measure() catches them at the facade),
// RAII device buffers and events. Not part of the public facade.
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace qf::cuda::detail {

/// A CUDA runtime or library failure; never crosses measure().
struct CudaError : std::runtime_error {
  /// `code`: the runtime's error (cudaSuccess for a library or planning failure);
  /// `unsupported`: the library has no kernel for this configuration.
  explicit CudaError(const std::string& what, cudaError_t error = cudaSuccess,
                     bool noKernel = false)
      : std::runtime_error(what), code(error), unsupported(noKernel) {}
  cudaError_t code;
  bool unsupported;
};

/// Throws CudaError naming the call when e is not cudaSuccess.
inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw CudaError(std::string(what) + ": " + cudaGetErrorString(e), e);
}

/// True for the errors that leave the CUDA context unusable (every later call fails with the
/// same error until the process exits): a fault inside a kernel or an uncorrectable ECC error.
/// Out of memory, invalid arguments or a missing kernel image spoil only the call that got them.
inline bool isStickyError(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorAssert:
    case cudaErrorContextIsDestroyed:
    case cudaErrorDevicesUnavailable:
      return true;
    default:
      return false;
  }
}
/// Checks the last launch error (a launch itself returns nothing).
inline void checkLaunch(const char* what) {
  check(cudaGetLastError(), what);
}

#define QF_CUDA_CHECK(call) ::qf::cuda::detail::check((call), #call)

/// Owning device allocation (cudaMalloc), move-only.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  /// Allocates `bytes` (at least 1) of device memory; throws on failure.
  explicit DeviceBuffer(std::size_t bytes) : m_bytes(bytes) {
    check(cudaMalloc(&m_ptr, bytes == 0 ? 1 : bytes), "cudaMalloc");
  }
  ~DeviceBuffer() {
    if (m_ptr != nullptr) cudaFree(m_ptr);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : m_ptr(std::exchange(o.m_ptr, nullptr)), m_bytes(std::exchange(o.m_bytes, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      if (m_ptr != nullptr) cudaFree(m_ptr);
      m_ptr = std::exchange(o.m_ptr, nullptr);
      m_bytes = std::exchange(o.m_bytes, 0);
    }
    return *this;
  }
  /// Raw pointer.
  void* get() const { return m_ptr; }
  /// Typed pointer.
  template <class T>
  T* as() const {
    return static_cast<T*>(m_ptr);
  }
  /// Size in bytes.
  std::size_t bytes() const { return m_bytes; }

 private:
  void* m_ptr = nullptr;
  std::size_t m_bytes = 0;
};

}  // namespace qf::cuda::detail
