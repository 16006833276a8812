// bf16, FP8 e4m3, FP4 e2m1 and e8m0 host models against hand-written tables.
#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_test_macros.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include <cmath>
#include <cstdint>
#include <limits>

#include <quantfront/core/reference/numeric_formats.hpp>

using namespace qf::ref;

TEST_CASE("e2m1 decodes all 16 codes", "[reference][formats]") {
  const float table[16] = {0.0f,  0.5f,  1.0f,  1.5f,  2.0f,  3.0f,  4.0f,  6.0f,
                           -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};
  for (int code = 0; code < 16; ++code) {
    const float v = decodeE2m1(static_cast<uint8_t>(code));
    CHECK(v == table[code]);
    CHECK(std::signbit(v) == (code >= 8));
    CHECK(encodeE2m1(v) == code);
  }
  CHECK(encodeE2m1(0.25f) == 0x0);   // tie between 0 and 0.5: even code 0
  CHECK(encodeE2m1(0.75f) == 0x2);   // tie between 0.5 (odd) and 1.0 (even)
  CHECK(encodeE2m1(2.5f) == 0x4);    // tie between 2 (even) and 3
  CHECK(encodeE2m1(5.0f) == 0x6);    // tie between 4 (even) and 6
  CHECK(encodeE2m1(100.0f) == 0x7);  // saturates at 6
  CHECK(encodeE2m1(-7.0f) == 0xF);
}

TEST_CASE("e4m3 decodes a hand-written table", "[reference][formats]") {
  struct Row {
    uint8_t bits;
    float value;
  };
  const Row rows[] = {
      {0x00, 0.0f},         {0x01, 0.001953125f},  // 2^-9, smallest subnormal
      {0x07, 0.013671875f},                        // 7·2^-9, largest subnormal
      {0x08, 0.015625f},                           // 2^-6, smallest normal
      {0x38, 1.0f},         {0x39, 1.125f},       {0x3C, 1.5f},   {0x40, 2.0f},  {0x58, 16.0f},
      {0x77, 240.0f},       {0x78, 256.0f},       {0x7E, 448.0f}, {0xB8, -1.0f}, {0xFE, -448.0f},
  };
  for (const Row& r : rows) {
    INFO("bits " << int(r.bits));
    CHECK(decodeE4m3(r.bits) == r.value);
    CHECK(encodeE4m3(r.value) == r.bits);
  }
  CHECK(std::signbit(decodeE4m3(0x80)));
  CHECK(std::isnan(decodeE4m3(0x7F)));
  CHECK(std::isnan(decodeE4m3(0xFF)));
  CHECK(encodeE4m3(std::numeric_limits<float>::quiet_NaN()) == 0x7F);
  CHECK(encodeE4m3(1000.0f) == 0x7E);  // satfinite
  CHECK(encodeE4m3(-1e30f) == 0xFE);
  CHECK(encodeE4m3(464.0f) == 0x7E);         // tie 448/480 → even mantissa, 448
  CHECK(encodeE4m3(1.0625f) == 0x38);        // tie 1/1.125 → even
  CHECK(encodeE4m3(0.0009765625f) == 0x00);  // 2^-10: tie 0/2^-9 → even 0
  CHECK(encodeE4m3(1e-6f) == 0x00);
}

TEST_CASE("e4m3 encode/decode round trip over every finite code", "[reference][formats]") {
  for (int b = 0; b < 256; ++b) {
    const auto bits = static_cast<uint8_t>(b);
    if ((bits & 0x7F) == 0x7F) continue;
    INFO("bits " << b);
    CHECK(encodeE4m3(decodeE4m3(bits)) == bits);
  }
}

TEST_CASE("bf16 rounding, subnormals and overflow", "[reference][formats]") {
  CHECK(floatToBf16(1.0f) == 0x3F80);
  CHECK(floatToBf16(-2.0f) == 0xC000);
  CHECK(floatToBf16(1.0f + 0.00390625f) == 0x3F80);  // 1 + 2^-8: tie → even
  CHECK(floatToBf16(1.0f + 0.01171875f) == 0x3F82);  // 1 + 3·2^-8: tie → even (up)
  CHECK(floatToBf16(128.0f) == 0x4300);
  CHECK(floatToBf16(std::ldexp(1.0f, -133)) == 0x0001);             // smallest bf16 subnormal
  CHECK(floatToBf16(std::ldexp(1.0f, -134)) == 0x0000);             // tie with zero → even
  CHECK(floatToBf16(std::numeric_limits<float>::max()) == 0x7F80);  // rounds past bf16 max
  CHECK(bf16IsNan(floatToBf16(std::numeric_limits<float>::quiet_NaN())));
  CHECK(bf16ToFloat(uint16_t{0x7F7F}) == std::ldexp(255.0f, 120));
  CHECK(bf16Mul(0x3FC0, 0x4000) == 0x4040);  // 1.5·2 = 3
  CHECK(bf16Sub(0x430B, 0x4308) == 0x4040);  // 139 − 136 = 3
  CHECK(bf16Mul(0x0001, 0x3F00) == 0x0000);  // 2^-134: tie to even zero
  CHECK(bf16Mul(0x0003, 0x3F00) == 0x0002);  // 1.5 quanta: tie → even 2
}

TEST_CASE("e8m0 scales", "[reference][formats]") {
  CHECK(decodeE8m0(127) == 1.0f);
  CHECK(decodeE8m0(128) == 2.0f);
  CHECK(decodeE8m0(0) == std::ldexp(1.0f, -127));
  CHECK(std::isnan(decodeE8m0(0xFF)));
  CHECK(e8m0ScaleForE2m1Block(6.0f) == 127);  // floor(log2 6) = 2 → 2^0
  CHECK(e8m0ScaleForE2m1Block(1.0f) == 125);  // 2^-2: 1.0 → 4 in e2m1
  CHECK(e8m0ScaleForE2m1Block(0.0f) == 127);
}
