#pragma once
/// Bit-exact host models of the number formats the CUDA kernels read and write: bf16, FP8 e4m3
/// (the OCP "fn" variant: no infinities, 0x7F/0xFF are NaN, largest finite 448), FP4 e2m1 and
/// the MX e8m0 block scale. Standard library only, so g++ and the nvcc host pass both compile
/// it (the kernels' correctness checks call these functions).
#include <cstdint>
#include <vector>

namespace qf::ref {

/// bf16 bits → float (exact: bf16 is the top half of an IEEE binary32).
float bf16ToFloat(uint16_t bits);
/// bf16 bits → double (exact).
double bf16ToDouble(uint16_t bits);
/// float → bf16 bits, one round-to-nearest-even; NaN stays a quiet NaN, overflow gives ±inf.
uint16_t floatToBf16(float value);
/// double → bf16 bits with ONE rounding (nearest even), bf16 subnormals included (quantum
/// 2^-133); |value| ≥ 2^128·(1 − 2^-9) gives ±inf. Models what bf16 hardware does to an exact
/// intermediate.
uint16_t doubleToBf16(double value);
/// True when the bf16 bits are a NaN.
bool bf16IsNan(uint16_t bits);
/// a·b rounded once to bf16, as Hopper's `mul.rn.bf16x2` does (the product of two bf16
/// significands is exact in double, so one rounding here is the hardware's one rounding).
uint16_t bf16Mul(uint16_t a, uint16_t b);
/// a − b rounded once to bf16, as `sub.rn.bf16x2` does. Exact-then-round whenever the operands'
/// exponents differ by less than 45 (always the case in the dequant paths that use it).
uint16_t bf16Sub(uint16_t a, uint16_t b);
/// Element-wise bf16ToFloat.
std::vector<float> bf16ToFloat(const std::vector<uint16_t>& bits);
/// Element-wise floatToBf16.
std::vector<uint16_t> floatToBf16(const std::vector<float>& values);

/// Largest finite FP8 e4m3 magnitude.
inline constexpr float kE4m3Max = 448.0f;
/// FP8 e4m3 bits → value: bias 7, 3 mantissa bits, subnormal quantum 2^-9; 0x7F and 0xFF NaN.
float decodeE4m3(uint8_t bits);
/// value → FP8 e4m3 bits: round to nearest even, saturating to ±448 (the "satfinite" mode the
/// cuBLASLt scale path assumes); NaN → 0x7F.
uint8_t encodeE4m3(float value);

/// Largest FP4 e2m1 magnitude.
inline constexpr float kE2m1Max = 6.0f;
/// FP4 e2m1 (low 4 bits used) → value: ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}.
float decodeE2m1(uint8_t nibble);
/// value → FP4 e2m1 code (0..15): round to nearest even, saturating to ±6; NaN → +6 (e2m1
/// has no NaN; the quantiser never passes one).
uint8_t encodeE2m1(float value);

/// MX e8m0 scale bits → 2^(bits − 127); 0xFF is NaN; 0x00 is 2^-127.
float decodeE8m0(uint8_t bits);
/// OCP MX v1.0 shared scale for a block whose largest magnitude is absMax, for e2m1 elements:
/// 2^(floor(log2(absMax)) − 2) as e8m0 bits, clamped to [2^-127, 2^127]; absMax 0 → 2^0.
uint8_t e8m0ScaleForE2m1Block(float absMax);

}  // namespace qf::ref
