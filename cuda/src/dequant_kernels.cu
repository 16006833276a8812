// Streaming dequant kernels: packed weights + scales → row-major bf16, one pass. They measure
// how close each format's conversion gets to the copy bandwidth when nothing else competes for
// issue slots. Every output is bit-exact against the host references in
// core/src/reference/quantize.cpp (checked before timing, see measure.cpp).
//
// Work unit: 8 consecutive weights of a row → one 16-byte bf16 store. A warp's 32 stores cover
// 512 contiguous bytes (full 32-byte sectors, fully coalesced); the packed reads are 4 bytes
// (int4, mxfp4) or 8 bytes (8-bit) per lane, also contiguous across the warp. The bf16 output
// dominates the bytes (2 of the 2.5 bytes per INT4 weight), so this is a write-bandwidth probe.
#include "cuda_util.hpp"
#include "int4_magic.cuh"
#include "kernels.hpp"

#include <quantfront/core/reference/quantize.hpp>

#include <cuda_bf16.h>

namespace qf::cuda::detail {

// The device conversion and the host emulation must agree on every constant (this also proves
// the reference headers compile in nvcc's host pass).
static_assert(kern::kLutAndOr == qf::ref::kLutAndOr);
static_assert(kern::kMagicPair == qf::ref::kBf16MagicPair);
static_assert(kern::kNibblePairMask == qf::ref::kNibblePairMask);
static_assert(qf::ref::kInt4GroupSize == 128 && qf::ref::kMxBlockSize == 32);

namespace {

using kern::broadcastBf16;
using kern::int4ToBf16;
using kern::kMagicPlusEightPair;
using kern::mulBf16x2;

/// Units each thread loads before converting any: several independent loads in flight per
/// thread so the memory system sees enough concurrent requests (Little's law: bytes in flight =
/// bandwidth × latency).
constexpr int kUnroll = kDequantUnroll;

/// Two fp32 → bf16x2 with one rounding each (cvt.rn.bf16x2.f32).
__device__ __forceinline__ uint32_t packBf16x2(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&v);
}

/// INT8 → fp32 without I2F: PRMT drops the byte (sign flipped, so it reads as q + 128) into the
/// low mantissa bits of 2^23 (0x4B000000), where the fp32 ulp is exactly 1; one FADD of
/// −(2^23 + 128) leaves q exactly. PRMT and FADD both issue at full rate, I2F at a quarter.
__device__ __forceinline__ float int8ToFloat(uint32_t flippedWord, int byte) {
  const uint32_t bits =
      __byte_perm(flippedWord, 0x4B000000u, 0x7650u + static_cast<uint32_t>(byte));
  return __uint_as_float(bits) - 8388736.0f;
}

/// FP8 e4m3 pair → bf16x2 without a conversion instruction: sign to bit 15, the 7 magnitude
/// bits to bits 10..4. The bf16 then reads as value·2^-120 (exponent bias 127 vs 7), and e4m3
/// subnormals land exactly on bf16 subnormals, so no special case. The 2^120 is folded into
/// the per-channel scale (|scale| < 256 keeps it finite). PRMT first gathers the two bytes of
/// the pair into the high byte of each 16-bit half.
__device__ __forceinline__ uint32_t e4m3PairToScaledBf16(uint32_t word, uint32_t selector) {
  const uint32_t r = __byte_perm(word, 0u, selector);
  return (r & 0x80008000u) | ((r >> 4) & 0x07F007F0u);
}

/// e2m1 → fp32 through the exponent field: magnitude bits (e1 e0 m) placed at fp32 bits
/// 24..22 read as value·2^-126 (e2m1 bias 1 vs fp32 127; code 1, the subnormal 0.5, lands on
/// an fp32 subnormal, which FMUL handles exactly because the build does not flush to zero).
__device__ __forceinline__ float e2m1ToFloat(uint32_t nibble) {
  const uint32_t bits = ((nibble & 0x8u) << 28) | ((nibble & 0x7u) << 22);
  return __uint_as_float(bits) * 0x1p126f;
}

/// e8m0 → fp32 scale 2^(e−127): the byte is the fp32 exponent field; 0 → 2^-127 (subnormal),
/// 0xFF → NaN.
__device__ __forceinline__ float e8m0ToFloat(uint32_t e) {
  if (e == 0) return __uint_as_float(0x00400000u);
  if (e == 0xFFu) return __uint_as_float(0x7FC00000u);
  return __uint_as_float(e << 23);
}

template <DequantFormat kFormat>
__global__ void dequantKernel(const void* __restrict__ weights, const void* __restrict__ scales,
                              const uint8_t* __restrict__ zeros, uint4* __restrict__ out,
                              uint32_t units, uint32_t unitsPerRow) {
  const uint32_t stride = gridDim.x * blockDim.x;
  for (uint32_t base = blockIdx.x * blockDim.x + threadIdx.x; base < units;
       base += kUnroll * stride) {
    // Packed input: 4 bytes per unit (int4, mxfp4) or 8 (8-bit formats). Streaming loads
    // (evict-first): each byte is read once, so it should not displace anything in L2.
    uint2 raw[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const uint32_t i = base + u * stride;
      if (i < units) {
        if constexpr (kFormat == DequantFormat::kInt8 || kFormat == DequantFormat::kFp8) {
          raw[u] = __ldcs(static_cast<const uint2*>(weights) + i);
        } else {
          raw[u].x = __ldcs(static_cast<const uint32_t*>(weights) + i);
          raw[u].y = 0;
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const uint32_t i = base + u * stride;
      if (i >= units) break;
      const uint32_t row = i / unitsPerRow;
      const uint32_t col8 = i - row * unitsPerRow;
      uint32_t o[4];
      if constexpr (kFormat == DequantFormat::kInt4Sym || kFormat == DequantFormat::kInt4Asym) {
        // 16 units (128 weights) per group; scales [n][k/128].
        const uint32_t groupsPerRow = unitsPerRow / 16;
        const uint32_t g = row * groupsPerRow + col8 / 16;
        const uint32_t scale2 = broadcastBf16(static_cast<const uint16_t*>(scales)[g]);
        uint32_t magic = kMagicPlusEightPair;
        if constexpr (kFormat == DequantFormat::kInt4Asym) {
          // bf16(128 + zero) in both halves: the zero point rides in the same mantissa slot as
          // the code, so one exact subtraction removes bias and zero together (c = 2.5: the
          // symmetric 2 plus this per-group setup amortised, see model.md).
          magic = 0x43004300u | (static_cast<uint32_t>(zeros[g]) * 0x00010001u);
        }
        int4ToBf16(raw[u].x, magic, scale2, o);
      } else if constexpr (kFormat == DequantFormat::kInt8) {
        const float s =
            __bfloat162float(__ushort_as_bfloat16(static_cast<const uint16_t*>(scales)[row]));
        const uint32_t lo = raw[u].x ^ 0x80808080u;
        const uint32_t hi = raw[u].y ^ 0x80808080u;
        o[0] = packBf16x2(int8ToFloat(lo, 0) * s, int8ToFloat(lo, 1) * s);
        o[1] = packBf16x2(int8ToFloat(lo, 2) * s, int8ToFloat(lo, 3) * s);
        o[2] = packBf16x2(int8ToFloat(hi, 0) * s, int8ToFloat(hi, 1) * s);
        o[3] = packBf16x2(int8ToFloat(hi, 2) * s, int8ToFloat(hi, 3) * s);
      } else if constexpr (kFormat == DequantFormat::kFp8) {
        const float s =
            __bfloat162float(__ushort_as_bfloat16(static_cast<const uint16_t*>(scales)[row]));
        // scale·2^120 is exact (power-of-two multiply) and finite for |scale| < 256.
        const uint32_t scale2 =
            broadcastBf16(__bfloat16_as_ushort(__float2bfloat16_rn(s * 0x1p120f)));
        // Selectors put bytes (0,1) resp. (2,3) into bits 8..15 and 24..31 (zeros elsewhere).
        o[0] = mulBf16x2(e4m3PairToScaledBf16(raw[u].x, 0x1404u), scale2);
        o[1] = mulBf16x2(e4m3PairToScaledBf16(raw[u].x, 0x3424u), scale2);
        o[2] = mulBf16x2(e4m3PairToScaledBf16(raw[u].y, 0x1404u), scale2);
        o[3] = mulBf16x2(e4m3PairToScaledBf16(raw[u].y, 0x3424u), scale2);
      } else {
        // MXFP4: one e8m0 scale per 32 weights = per 4 units; scales [n][k/32] are contiguous.
        const float s = e8m0ToFloat(static_cast<const uint8_t*>(scales)[i / 4]);
        const uint32_t q = raw[u].x;
#pragma unroll
        for (int p = 0; p < 4; ++p) {
          // Both products are exact in fp32 (e2m1 has 2 significant bits); one rounding to bf16.
          o[p] = packBf16x2(e2m1ToFloat(q >> (8 * p)) * s, e2m1ToFloat(q >> (8 * p + 4)) * s);
        }
      }
      __stcs(out + i, make_uint4(o[0], o[1], o[2], o[3]));
    }
  }
}

}  // namespace

double dequantBytesMoved(DequantFormat format, int64_t n, int64_t k) {
  const double weights = static_cast<double>(n) * static_cast<double>(k);
  const double out = 2.0 * weights;
  switch (format) {
    case DequantFormat::kInt4Sym:
      return weights / 2 + 2.0 * weights / 128 + out;
    case DequantFormat::kInt4Asym:
      return weights / 2 + 3.0 * weights / 128 + out;  // bf16 scale + one zero byte per group
    case DequantFormat::kInt8:
    case DequantFormat::kFp8:
      return weights + 2.0 * static_cast<double>(n) + out;
    case DequantFormat::kMxfp4:
      return weights / 2 + weights / 32 + out;
  }
  return 0;
}

void launchDequant(const DequantArgs& a, int smCount, cudaStream_t stream) {
  const int64_t units64 = a.n * a.k / 8;
  if (units64 <= 0 || units64 >= (int64_t{1} << 31)) throw CudaError("launchDequant: size");
  const auto units = static_cast<uint32_t>(units64);
  const auto unitsPerRow = static_cast<uint32_t>(a.k / 8);
  auto* out = reinterpret_cast<uint4*>(a.out);
  // Enough resident blocks to fill every SM (8 × 256 threads = 2048, the SM's thread limit).
  const unsigned blocks = static_cast<unsigned>(dequantThreads(smCount) / 256);
  switch (a.format) {
    case DequantFormat::kInt4Sym:
      dequantKernel<DequantFormat::kInt4Sym>
          <<<blocks, 256, 0, stream>>>(a.weights, a.scales, a.zeros, out, units, unitsPerRow);
      break;
    case DequantFormat::kInt4Asym:
      dequantKernel<DequantFormat::kInt4Asym>
          <<<blocks, 256, 0, stream>>>(a.weights, a.scales, a.zeros, out, units, unitsPerRow);
      break;
    case DequantFormat::kInt8:
      dequantKernel<DequantFormat::kInt8>
          <<<blocks, 256, 0, stream>>>(a.weights, a.scales, a.zeros, out, units, unitsPerRow);
      break;
    case DequantFormat::kFp8:
      dequantKernel<DequantFormat::kFp8>
          <<<blocks, 256, 0, stream>>>(a.weights, a.scales, a.zeros, out, units, unitsPerRow);
      break;
    case DequantFormat::kMxfp4:
      dequantKernel<DequantFormat::kMxfp4>
          <<<blocks, 256, 0, stream>>>(a.weights, a.scales, a.zeros, out, units, unitsPerRow);
      break;
  }
  checkLaunch("dequantKernel");
}

}  // namespace qf::cuda::detail
