#pragma once
// Register-level INT4 → bf16 conversion shared by the streaming dequant kernel and the fused
// W4A16 GEMM. Host model: qf::ref::emulateInt4MagicWord (core/src/reference/quantize.cpp),
// checked bit for bit on the host for every byte and scale class.
//
// Why a magic number instead of I2F: integer→float conversion (I2F) issues at a quarter of the
// FP32/ALU rate on Hopper (16 lanes/clk/SM against 64 for LOP3 and 128 for FFMA/HFMA2), and it
// converts one value per instruction. A bf16 whose exponent is 2^7 (bits 0x4300 = 128.0) has a
// mantissa ulp of exactly 1 (7 fraction bits), so OR-ing a 4-bit code n into its low mantissa
// bits yields the bf16 value 128 + n with no arithmetic at all. Two such halves share one 32-bit
// register (a bf16x2), so one LOP3 converts two codes. Subtracting bf16(128 + zero) then gives
// n − zero exactly (small integers), and one bf16x2 multiply applies the group scale with a
// single rounding — the same rounding as the scalar reference bf16((n − zero)·s).
#include <cstdint>

namespace qf::cuda::kern {

/// (a & b) | c as a LOP3 truth table over the canonical operands a=0xF0, b=0xCC, c=0xAA.
inline constexpr int kLutAndOr = (0xF0 & 0xCC) | 0xAA;
/// bf16 128.0 in both halves of a bf16x2.
inline constexpr uint32_t kMagicPair = 0x43004300u;
/// The nibble of each half that lands in its mantissa.
inline constexpr uint32_t kNibblePairMask = 0x000F000Fu;
/// bf16 136.0 = 128 + 8 in both halves: the symmetric (GPTQ "uint4b8") zero point.
inline constexpr uint32_t kMagicPlusEightPair = 0x43084308u;

/// One LOP3 for (a & b) | c. Written as inline PTX so the mask-and-merge is guaranteed to be a
/// single 3-input logic op rather than an AND followed by an OR (ptxas usually fuses it, but
/// the conversion's instruction count — c in the cost model — depends on it).
template <int kLut>
__device__ __forceinline__ uint32_t lop3(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r;
  asm("lop3.b32 %0, %1, %2, %3, %4;\n" : "=r"(r) : "r"(a), "r"(b), "r"(c), "n"(kLut));
  return r;
}

/// bf16x2 a − b, one rounding (`sub.rn.bf16x2`, native on sm_90: what __hsub2 emits there).
__device__ __forceinline__ uint32_t subBf16x2(uint32_t a, uint32_t b) {
  uint32_t r;
  asm("sub.rn.bf16x2 %0, %1, %2;\n" : "=r"(r) : "r"(a), "r"(b));
  return r;
}

/// bf16x2 a·b, one rounding (`mul.rn.bf16x2`, native on sm_90: what __hmul2 emits there).
__device__ __forceinline__ uint32_t mulBf16x2(uint32_t a, uint32_t b) {
  uint32_t r;
  asm("mul.rn.bf16x2 %0, %1, %2;\n" : "=r"(r) : "r"(a), "r"(b));
  return r;
}

/// Eight codes of an interleaved word (slot p holds element 2p, slot p+4 element 2p+1; see
/// qf::ref::kInt4SlotOfElement) → four bf16x2 (128 + code) pairs in element order. Because the
/// two codes of a pair sit 16 bits apart, one shift by 4p lines both up with the mask
/// 0x000F000F and a single LOP3 places them in both mantissas: 4 LOP3 + 3 shifts per 8 codes.
/// (bf16 has only 7 mantissa bits, so the fp16 trick of reading the high nibble in place as
/// 16·n does not fit: bit 7 of a bf16 is already exponent. Hence the shifts.)
__device__ __forceinline__ void int4ToBiasedBf16(uint32_t q, uint32_t (&pairs)[4]) {
  pairs[0] = lop3<kLutAndOr>(q, kNibblePairMask, kMagicPair);
  pairs[1] = lop3<kLutAndOr>(q >> 4, kNibblePairMask, kMagicPair);
  pairs[2] = lop3<kLutAndOr>(q >> 8, kNibblePairMask, kMagicPair);
  pairs[3] = lop3<kLutAndOr>(q >> 12, kNibblePairMask, kMagicPair);
}

/// Full conversion: (code − zero)·scale for eight codes. magicPlusZero is bf16x2(128 + zero)
/// (0x43084308 when symmetric); scale2 is the group scale in both halves.
__device__ __forceinline__ void int4ToBf16(uint32_t q, uint32_t magicPlusZero, uint32_t scale2,
                                           uint32_t (&out)[4]) {
  int4ToBiasedBf16(q, out);
#pragma unroll
  for (int p = 0; p < 4; ++p) out[p] = mulBf16x2(subBf16x2(out[p], magicPlusZero), scale2);
}

/// A bf16 in both halves of a 32-bit register.
__device__ __forceinline__ uint32_t broadcastBf16(uint16_t v) {
  return static_cast<uint32_t>(v) * 0x00010001u;
}

}  // namespace qf::cuda::kern
