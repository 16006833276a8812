// HBM probes and data-preparation kernels: a read-only 16-byte streaming kernel, hash fills
// (random data on the device: timing on zeros is optimistic: some memory systems compress or
// short-cut zero pages) and poison scans.
#include "cuda_util.hpp"
#include "kernels.hpp"

#include <cuda_bf16.h>

namespace qf::cuda::detail {

namespace {

/// Loads per thread per iteration kept in flight before any is consumed: one 16-byte load
/// keeps too few bytes in flight per SM to cover HBM latency (Little's law: ~4.8 TB/s × ~1 µs
/// across 132 SMs is ~36 KB per SM); four per thread at 2048 threads/SM is 128 KB.
constexpr int kReadUnroll = 4;

__global__ void hbmReadKernel(const uint4* __restrict__ src, std::size_t count,
                              uint32_t* __restrict__ sink) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  uint32_t acc = 0;
  for (; i + (kReadUnroll - 1) * stride < count; i += kReadUnroll * stride) {
    uint4 v[kReadUnroll];
#pragma unroll
    for (int u = 0; u < kReadUnroll; ++u) v[u] = __ldcs(src + i + u * stride);  // evict-first
#pragma unroll
    for (int u = 0; u < kReadUnroll; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < count; i += stride) {
    const uint4 v = __ldcs(src + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  // The store depends on every loaded word, so no load is dead code; the pattern is (almost)
  // never met, so the probe writes nothing.
  if (acc == 0x9E3779B9u) *sink = acc;
}

__device__ __forceinline__ uint32_t hash32(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return static_cast<uint32_t>(x);
}

__global__ void fillWordsKernel(uint32_t* dst, std::size_t words, uint32_t seed, uint32_t mask,
                                uint32_t orBits) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words;
       i += stride) {
    dst[i] = (hash32((static_cast<uint64_t>(seed) << 40) ^ i) & mask) | orBits;
  }
}

__global__ void fillBf16Kernel(uint16_t* dst, std::size_t count, uint32_t seed, float lo,
                               float hi) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const float u = static_cast<float>(hash32((static_cast<uint64_t>(seed) << 40) ^ i) >> 8) *
                    (1.0f / 16777216.0f);
    dst[i] = __bfloat16_as_ushort(__float2bfloat16_rn(lo + (hi - lo) * u));
  }
}

template <class T>
__global__ void countPatternKernel(const T* data, std::size_t count, T pattern,
                                   unsigned long long* result) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    local += data[i] == pattern ? 1u : 0u;
  }
  if (local != 0) atomicAdd(result, local);
}

unsigned gridFor(std::size_t items, unsigned block, unsigned cap) {
  const std::size_t blocks = (items + block - 1) / block;
  return static_cast<unsigned>(blocks < cap ? (blocks == 0 ? 1 : blocks) : cap);
}

}  // namespace

void launchHbmRead(const void* src, std::size_t bytes, uint32_t* sink, int smCount,
                   cudaStream_t stream) {
  // A grid of a few resident blocks per SM: each thread then streams a long contiguous-by-warp
  // sequence, with no tail effect from millions of tiny blocks.
  const unsigned blocks = static_cast<unsigned>(smCount) * 8u;
  hbmReadKernel<<<blocks, 256, 0, stream>>>(static_cast<const uint4*>(src), bytes / 16, sink);
  checkLaunch("hbmReadKernel");
}

void launchFillWords(uint32_t* dst, std::size_t words, uint32_t seed, uint32_t mask,
                     uint32_t orBits, cudaStream_t stream) {
  fillWordsKernel<<<gridFor(words, 256, 65535), 256, 0, stream>>>(dst, words, seed, mask, orBits);
  checkLaunch("fillWordsKernel");
}

void launchFillBf16(uint16_t* dst, std::size_t count, uint32_t seed, float lo, float hi,
                    cudaStream_t stream) {
  fillBf16Kernel<<<gridFor(count, 256, 65535), 256, 0, stream>>>(dst, count, seed, lo, hi);
  checkLaunch("fillBf16Kernel");
}

void launchCountPattern16(const uint16_t* data, std::size_t count, uint16_t pattern,
                          unsigned long long* result, cudaStream_t stream) {
  QF_CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(unsigned long long), stream));
  countPatternKernel<uint16_t>
      <<<gridFor(count, 256, 4096), 256, 0, stream>>>(data, count, pattern, result);
  checkLaunch("countPatternKernel16");
}

void launchCountPattern32(const uint32_t* data, std::size_t count, uint32_t pattern,
                          unsigned long long* result, cudaStream_t stream) {
  QF_CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(unsigned long long), stream));
  countPatternKernel<uint32_t>
      <<<gridFor(count, 256, 4096), 256, 0, stream>>>(data, count, pattern, result);
  checkLaunch("countPatternKernel32");
}

namespace {
/// Does nothing: replayed in a graph, its per-launch time is the GPU-side gap between two
/// kernels of a graph, which every timed kernel pays on top of its own work.
__global__ void emptyKernel() {}
}  // namespace

void launchEmptyKernel(cudaStream_t stream) {
  emptyKernel<<<1, 32, 0, stream>>>();
  checkLaunch("emptyKernel");
}

}  // namespace qf::cuda::detail
