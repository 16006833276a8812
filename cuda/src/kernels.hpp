#pragma once
// Launchers for the kernels in cuda/src/*.cu. Host-callable, no device code; every launcher
// checks the launch and throws CudaError. Not part of the public facade.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace qf::cuda::detail {

// ----- hbm_probe.cu -----------------------------------------------------------------------

/// Streams `bytes` (multiple of 16) from src with 16-byte loads and folds them into a value
/// that is written to *sink only when it matches an impossible pattern, so no load is dead.
void launchHbmRead(const void* src, std::size_t bytes, uint32_t* sink, int smCount,
                   cudaStream_t stream);
/// One launch of an empty kernel (1 block of 32 threads): timed in a graph it is the
/// null-kernel baseline subtracted from every record (docs/benchmarks.md, "Kernel timing").
void launchEmptyKernel(cudaStream_t stream);
/// Fills `words` 32-bit words with a hash of (index, seed) ANDed with mask, ORed with orBits.
void launchFillWords(uint32_t* dst, std::size_t words, uint32_t seed, uint32_t mask,
                     uint32_t orBits, cudaStream_t stream);
/// Fills count bf16 values uniform in [lo, hi).
void launchFillBf16(uint16_t* dst, std::size_t count, uint32_t seed, float lo, float hi,
                    cudaStream_t stream);
/// Counts 16-bit elements equal to `pattern` (the poison) into *count (zeroed here).
void launchCountPattern16(const uint16_t* data, std::size_t count, uint16_t pattern,
                          unsigned long long* result, cudaStream_t stream);
/// Counts 32-bit elements equal to `pattern` into *count (zeroed here).
void launchCountPattern32(const uint32_t* data, std::size_t count, uint32_t pattern,
                          unsigned long long* result, cudaStream_t stream);

// ----- dequant_kernels.cu -----------------------------------------------------------------

/// Weight formats the streaming dequant kernels read.
enum class DequantFormat { kInt4Sym, kInt4Asym, kInt8, kFp8, kMxfp4 };

/// One streaming dequant of an n×k weight matrix to row-major bf16.
struct DequantArgs {
  DequantFormat format = DequantFormat::kInt4Sym;
  const void* weights = nullptr;  ///< int4: packInt4Interleaved words; int8/fp8: [n][k] bytes;
                                  ///< mxfp4: [n][k/2] bytes (low nibble first)
  const void* scales =
      nullptr;  ///< int4: bf16 [n][k/128]; int8/fp8: bf16 [n]; mxfp4: e8m0 [n][k/32]
  const uint8_t* zeros = nullptr;  ///< int4 asym: [n][k/128] zero points 0..15
  uint16_t* out = nullptr;         ///< bf16 [n][k]
  int64_t n = 0;                   ///< rows
  int64_t k = 0;                   ///< columns: int4 % 128 == 0, int8/fp8 % 8, mxfp4 % 32
};
/// Units (8 weights) each dequant thread loads before converting any.
inline constexpr int kDequantUnroll = 4;
/// Threads of every streaming-dequant launch: 8 blocks of 256 per SM (2,048, the SM's limit).
inline int64_t dequantThreads(int smCount) {
  return int64_t{smCount} * 8 * 256;
}
/// Units one pass of the grid-stride loop covers: every thread's unrolled slots once. A check
/// over more units than this runs the unrolled slots, the loop's second pass and its tail.
inline int64_t dequantUnitsPerPass(int smCount) {
  return kDequantUnroll * dequantThreads(smCount);
}
/// Launches the streaming dequant; n·k/8 must be < 2^31.
void launchDequant(const DequantArgs& args, int smCount, cudaStream_t stream);
/// Bytes the dequant reads and writes: packed weights + scales (+ zeros) + bf16 output.
double dequantBytesMoved(DequantFormat format, int64_t n, int64_t k);

// ----- w4a16_gemm.cu ----------------------------------------------------------------------

/// C[m][n] = A[m][k]·W[n][k]ᵀ with W symmetric INT4 group-128 in the packInt4Mma layout.
struct W4a16GemmArgs {
  const uint16_t* a = nullptr;       ///< bf16 [m][k], 16-byte aligned
  const uint32_t* words = nullptr;   ///< packInt4Mma words
  const uint16_t* scales = nullptr;  ///< bf16 [kPad/128][nPad]
  uint16_t* c = nullptr;             ///< bf16 [m][n]
  void* workspace = nullptr;         ///< split-K tickets + fp32 slots (W4a16Plan::workspaceBytes),
                                     ///< zeroed once after allocation: every launch leaves the
                                     ///< tickets back at 0; the slots need no zeroing (each is
                                     ///< written before it is read)
  std::size_t workspaceBytes = 0;    ///< size of *workspace
  int64_t m = 0, n = 0, k = 0;       ///< logical shape: m ≥ 1, n ≥ 1, k % 8 == 0
  int64_t nPad = 0, kPad = 0;        ///< n rounded up to 8, k rounded up to 128
  int residentCtas = 1;              ///< from w4a16ResidentCtas: the grid never exceeds it
};
/// CTAs of the fused kernel for m rows that are resident at once on the current device
/// (cudaOccupancyMaxActiveBlocksPerMultiprocessor × smCount).
int w4a16ResidentCtas(int64_t m, int smCount);
/// How the fused kernel splits a shape over `residentCtas`: one wave of `ctas` CTAs, each
/// `groupsPerCta` (128-k group, 128-column block) units; blocks shared by several CTAs are
/// reduced inside the kernel through the workspace.
struct W4a16Plan {
  int ctas = 1;
  int groupsPerCta = 1;
  std::size_t workspaceBytes = 0;  ///< 0 when no block is shared
  double reductionBytes = 0;       ///< fp32 partial sums written and read back (mostly L2)
  int ctaRows = 8;                 ///< A rows per CTA (the variant that runs)
  int splitDepth = 1;              ///< most CTAs sharing one output block (maxCtasPerBlock)
};
W4a16Plan w4a16Plan(int64_t m, int64_t nPad, int64_t kPad, int residentCtas);
/// Sets the fused kernel's launch attributes on the current device, whose blocks may opt into
/// `smemPerBlockOptin` bytes of shared memory (cudaDevAttrMaxSharedMemoryPerBlockOptin): only
/// the CTA variants that fit are prepared and planned (largestRowsWithin), so an sm_86/sm_89
/// device runs m > 32 as 32-row CTAs instead of failing. Once, before any launch; returns the
/// largest variant's rows. Throws when not even the 8-row variant fits.
int prepareW4a16Gemm(int smemPerBlockOptin);
/// Launches the fused kernel (one launch, split-K included).
void launchW4a16Gemm(const W4a16GemmArgs& args, cudaStream_t stream);

}  // namespace qf::cuda::detail
