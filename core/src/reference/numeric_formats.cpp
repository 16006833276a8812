// Bit-exact host models of bf16, FP8 e4m3, FP4 e2m1 and e8m0 (see numeric_formats.hpp).
#include <quantfront/core/reference/numeric_formats.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace qf::ref {

namespace {

uint32_t floatBits(float f) {
  uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float bitsFloat(uint32_t u) {
  float f = 0;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// |a| rounded once (nearest even) to a binary format with `mantBits` fraction bits whose
/// smallest normal exponent is `minExp` (below it the quantum stays 2^(minExp − mantBits)).
/// No overflow handling: callers clamp or check.
double roundMagnitude(double a, int mantBits, int minExp) {
  if (a == 0.0) return 0.0;
  int e = 0;
  std::frexp(a, &e);  // a = f·2^e, f in [0.5, 1): the leading bit has weight 2^(e−1)
  const int quantumExp = std::max(e - 1, minExp) - mantBits;
  const double scaled = std::ldexp(a, -quantumExp);       // exact: power-of-two scaling
  return std::ldexp(std::nearbyint(scaled), quantumExp);  // nearbyint: ties to even
}

}  // namespace

float bf16ToFloat(uint16_t bits) {
  return bitsFloat(static_cast<uint32_t>(bits) << 16);
}

double bf16ToDouble(uint16_t bits) {
  return static_cast<double>(bf16ToFloat(bits));
}

bool bf16IsNan(uint16_t bits) {
  return (bits & 0x7F80u) == 0x7F80u && (bits & 0x007Fu) != 0;
}

uint16_t doubleToBf16(double value) {
  if (std::isnan(value)) return static_cast<uint16_t>(std::signbit(value) ? 0xFFC0u : 0x7FC0u);
  const uint16_t sign = std::signbit(value) ? 0x8000u : 0u;
  const double r = roundMagnitude(std::fabs(value), 7, -126);
  if (r >= std::ldexp(1.0, 128)) return static_cast<uint16_t>(sign | 0x7F80u);
  // r is a bf16 value, hence exactly a float whose low 16 bits are zero.
  const uint32_t u = floatBits(static_cast<float>(r));
  return static_cast<uint16_t>(sign | (u >> 16));
}

uint16_t floatToBf16(float value) {
  return doubleToBf16(static_cast<double>(value));
}

uint16_t bf16Mul(uint16_t a, uint16_t b) {
  return doubleToBf16(bf16ToDouble(a) * bf16ToDouble(b));
}

uint16_t bf16Sub(uint16_t a, uint16_t b) {
  return doubleToBf16(bf16ToDouble(a) - bf16ToDouble(b));
}

std::vector<float> bf16ToFloat(const std::vector<uint16_t>& bits) {
  std::vector<float> out(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) out[i] = bf16ToFloat(bits[i]);
  return out;
}

std::vector<uint16_t> floatToBf16(const std::vector<float>& values) {
  std::vector<uint16_t> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) out[i] = floatToBf16(values[i]);
  return out;
}

float decodeE4m3(uint8_t bits) {
  const bool negative = (bits & 0x80u) != 0;
  const int exponent = (bits >> 3) & 0xF;
  const int mantissa = bits & 0x7;
  if (exponent == 0xF && mantissa == 0x7) return std::numeric_limits<float>::quiet_NaN();
  double v = 0;
  if (exponent == 0) {
    v = std::ldexp(static_cast<double>(mantissa), -9);  // subnormal: m/8 · 2^-6
  } else {
    v = std::ldexp(1.0 + mantissa / 8.0, exponent - 7);
  }
  return static_cast<float>(negative ? -v : v);
}

uint8_t encodeE4m3(float value) {
  if (std::isnan(value)) return 0x7F;
  const uint8_t sign = std::signbit(value) ? 0x80u : 0u;
  double r = roundMagnitude(std::fabs(static_cast<double>(value)), 3, -6);
  r = std::min(r, static_cast<double>(kE4m3Max));  // satfinite
  if (r == 0.0) return sign;
  int e = 0;
  std::frexp(r, &e);
  const int exponent = e - 1;
  if (exponent < -6) {
    const int mantissa = static_cast<int>(std::ldexp(r, 9));
    return static_cast<uint8_t>(sign | mantissa);
  }
  const int mantissa = static_cast<int>((std::ldexp(r, -exponent) - 1.0) * 8.0);
  return static_cast<uint8_t>(sign | ((exponent + 7) << 3) | mantissa);
}

float decodeE2m1(uint8_t nibble) {
  static constexpr float kMagnitude[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  const float m = kMagnitude[nibble & 0x7];
  return (nibble & 0x8) != 0 ? -m : m;
}

uint8_t encodeE2m1(float value) {
  if (std::isnan(value)) return 0x7;
  const uint8_t sign = std::signbit(value) ? 0x8u : 0u;
  double r = roundMagnitude(std::fabs(static_cast<double>(value)), 1, 0);
  r = std::min(r, static_cast<double>(kE2m1Max));
  static constexpr double kMagnitude[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
  for (uint8_t i = 0; i < 8; ++i) {
    if (kMagnitude[i] == r) return static_cast<uint8_t>(sign | i);
  }
  return static_cast<uint8_t>(sign | 0x7u);  // unreachable: r is on the e2m1 grid
}

float decodeE8m0(uint8_t bits) {
  if (bits == 0xFF) return std::numeric_limits<float>::quiet_NaN();
  return static_cast<float>(std::ldexp(1.0, static_cast<int>(bits) - 127));
}

uint8_t e8m0ScaleForE2m1Block(float absMax) {
  if (!(absMax > 0.0f) || std::isinf(absMax)) return 127;
  int e = 0;
  std::frexp(static_cast<double>(absMax), &e);
  // floor(log2(absMax)) = e − 1; e2m1's largest exponent is 2 (6 = 1.5·2^2).
  const int shared = std::clamp(e - 1 - 2, -127, 127);
  return static_cast<uint8_t>(shared + 127);
}

}  // namespace qf::ref
