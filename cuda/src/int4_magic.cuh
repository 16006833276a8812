#pragma once
// Register-level INT4 → bf16 conversion shared by the streaming dequant kernel and the fused
// W4A16 GEMM. `__host__ __device__`: the device compiles the PTX below, the host (nvcc's host
// pass, or a plain C++ compiler in the host tests) compiles the exact emulation of those three
// instructions, so tests/cuda/test_device_source.cpp runs this very source.
//
// Why a magic number instead of I2F: integer→float conversion (I2F) issues at a quarter of the
// FP32/ALU rate on Ampere and Hopper (16 lanes/clk/SM against 64 for LOP3 and 128 for
// FFMA/HFMA2), and it converts one value per instruction. A bf16 whose exponent is 2^7 (bits
// 0x4300 = 128.0) has a mantissa ulp of exactly 1 (7 fraction bits), so OR-ing a 4-bit code n
// into its low mantissa bits yields the bf16 value 128 + n with no arithmetic at all. Two such
// halves share one 32-bit register (a bf16x2), so one LOP3 converts two codes. Subtracting
// bf16(128 + zero) then gives n − zero exactly (small integers), and one bf16x2 multiply applies
// the group scale with a single rounding — the same rounding as the scalar reference
// bf16((n − zero)·s).
//
// Why fma.rn.bf16x2 for the subtraction and the multiply: `sub`/`mul.rn.bf16x2` exist only from
// sm_90, `fma.rn.bf16x2` from sm_80 (A100). Each is exactly one fma with one rounding:
// a − b = fma(b, −1, a) (−1·b is exact) and a·b = fma(a, b, −0) (adding −0 changes nothing,
// and keeps the sign of a zero product, which +0 would not). Same instruction count (HFMA2).
#include <cstdint>

#if !defined(__CUDA_ARCH__)
#include <quantfront/core/reference/numeric_formats.hpp>

#include <cstring>
#endif

#if defined(__CUDACC__)
#define QF_HD __host__ __device__ __forceinline__
#else
#define QF_HD inline
#endif
#if defined(__CUDA_ARCH__)
#define QF_UNROLL _Pragma("unroll")  // the host compilers know no such pragma
#else
#define QF_UNROLL
#endif

namespace qf::cuda::kern {

/// (a & b) | c as a LOP3 truth table over the canonical operands a=0xF0, b=0xCC, c=0xAA.
inline constexpr int kLutAndOr = (0xF0 & 0xCC) | 0xAA;
/// bf16 128.0 in both halves of a bf16x2.
inline constexpr uint32_t kMagicPair = 0x43004300u;
/// The nibble of each half that lands in its mantissa.
inline constexpr uint32_t kNibblePairMask = 0x000F000Fu;
/// bf16 136.0 = 128 + 8 in both halves: the symmetric (GPTQ "uint4b8") zero point.
inline constexpr uint32_t kMagicPlusEightPair = 0x43084308u;
/// bf16 −1.0 and −0.0 in both halves (the fma forms of sub and mul).
inline constexpr uint32_t kMinusOnePair = 0xBF80BF80u;
inline constexpr uint32_t kMinusZeroPair = 0x80008000u;

/// One LOP3 for the truth table kLut. Written as inline PTX so the mask-and-merge is
/// guaranteed to be a single 3-input logic op rather than an AND followed by an OR (ptxas
/// usually fuses it, but the conversion's instruction count — c in the cost model — depends on
/// it). Host: bit i of kLut is the result for the input bits (a, b, c) = (i>>2, i>>1, i) & 1.
template <int kLut>
QF_HD uint32_t lop3(uint32_t a, uint32_t b, uint32_t c) {
#if defined(__CUDA_ARCH__)
  uint32_t r;
  asm("lop3.b32 %0, %1, %2, %3, %4;\n" : "=r"(r) : "r"(a), "r"(b), "r"(c), "n"(kLut));
  return r;
#else
  uint32_t r = 0;
  for (int i = 0; i < 8; ++i) {
    if (((kLut >> i) & 1) != 0) r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
  }
  return r;
#endif
}

/// bf16x2 a·b + c, one rounding per half (`fma.rn.bf16x2`, sm_80 and newer). Host: the exact
/// product of two bf16 (16 significant bits) plus c in double, rounded once to bf16; exact for
/// the two uses below (c = −0, or a product −1·b), where the double sum is exact.
QF_HD uint32_t fmaBf16x2(uint32_t a, uint32_t b, uint32_t c) {
#if defined(__CUDA_ARCH__)
  uint32_t r;
  asm("fma.rn.bf16x2 %0, %1, %2, %3;\n" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
#else
  uint32_t r = 0;
  for (int h = 0; h < 2; ++h) {
    const auto part = [h](uint32_t v) { return static_cast<uint16_t>(v >> (16 * h)); };
    const double v = qf::ref::bf16ToDouble(part(a)) * qf::ref::bf16ToDouble(part(b)) +
                     qf::ref::bf16ToDouble(part(c));
    r |= static_cast<uint32_t>(qf::ref::doubleToBf16(v)) << (16 * h);
  }
  return r;
#endif
}

/// bf16x2 a − b, one rounding: fma(b, −1, a).
QF_HD uint32_t subBf16x2(uint32_t a, uint32_t b) {
  return fmaBf16x2(b, kMinusOnePair, a);
}

/// bf16x2 a·b, one rounding: fma(a, b, −0).
QF_HD uint32_t mulBf16x2(uint32_t a, uint32_t b) {
  return fmaBf16x2(a, b, kMinusZeroPair);
}

/// Eight codes of an interleaved word (slot p holds element 2p, slot p+4 element 2p+1; see
/// qf::ref::kInt4SlotOfElement) → four bf16x2 (128 + code) pairs in element order. Because the
/// two codes of a pair sit 16 bits apart, one shift by 4p lines both up with the mask
/// 0x000F000F and a single LOP3 places them in both mantissas: 4 LOP3 + 3 shifts per 8 codes.
/// (bf16 has only 7 mantissa bits, so the fp16 trick of reading the high nibble in place as
/// 16·n does not fit: bit 7 of a bf16 is already exponent. Hence the shifts.)
QF_HD void int4ToBiasedBf16(uint32_t q, uint32_t (&pairs)[4]) {
  pairs[0] = lop3<kLutAndOr>(q, kNibblePairMask, kMagicPair);
  pairs[1] = lop3<kLutAndOr>(q >> 4, kNibblePairMask, kMagicPair);
  pairs[2] = lop3<kLutAndOr>(q >> 8, kNibblePairMask, kMagicPair);
  pairs[3] = lop3<kLutAndOr>(q >> 12, kNibblePairMask, kMagicPair);
}

/// code − zero for eight codes, exact (small integers are exact in bf16): 4 LOP3, 3 shifts and
/// 4 HFMA2 per 8 codes. The fused GEMM uses this form and applies the group scale to its fp32
/// partial sums instead (4 FFMA per m16 tile and group rather than 16 HFMA2 per lane's word
/// set).
QF_HD void int4ToCentredBf16(uint32_t q, uint32_t magicPlusZero, uint32_t (&out)[4]) {
  int4ToBiasedBf16(q, out);
  QF_UNROLL
  for (int p = 0; p < 4; ++p) out[p] = subBf16x2(out[p], magicPlusZero);
}

/// Full conversion: (code − zero)·scale for eight codes. magicPlusZero is bf16x2(128 + zero)
/// (0x43084308 when symmetric); scale2 is the group scale in both halves.
QF_HD void int4ToBf16(uint32_t q, uint32_t magicPlusZero, uint32_t scale2, uint32_t (&out)[4]) {
  int4ToBiasedBf16(q, out);
  QF_UNROLL
  for (int p = 0; p < 4; ++p) out[p] = mulBf16x2(subBf16x2(out[p], magicPlusZero), scale2);
}

/// The float of a bf16 bit pattern (exact: bf16 is the top half of an fp32).
QF_HD float bf16BitsToFloat(uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits << 16);
#else
  const uint32_t f = bits << 16;
  float out = 0;
  std::memcpy(&out, &f, sizeof out);
  return out;
#endif
}

/// A bf16 in both halves of a 32-bit register.
QF_HD uint32_t broadcastBf16(uint16_t v) {
  return static_cast<uint32_t>(v) * 0x00010001u;
}

}  // namespace qf::cuda::kern
