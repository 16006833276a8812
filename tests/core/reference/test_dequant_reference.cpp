// INT4 magic-number emulation, packers and per-scheme dequant references.
#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_test_macros.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <quantfront/core/reference/gemm_reference.hpp>
#include <quantfront/core/reference/numeric_formats.hpp>
#include <quantfront/core/reference/quantize.hpp>

using namespace qf::ref;

namespace {

/// Scales the conversion must handle: ordinary, tiny, subnormal, huge, negative.
const uint16_t kScales[] = {
    0x3F80,  // 1
    0x3C00,  // 2^-7
    0x3B4D,  // a typical GPTQ group scale (~0.0031)
    0x0001,  // smallest subnormal
    0x0005,  // subnormal
    0x0080,  // smallest normal
    0x7F7F,  // largest finite: products of |v| ≥ 2 overflow to inf
    0x7000,  // huge
    0xBF80,  // −1
    0xC2F7,  // −123.5
    0x3E2B,  // 0.167
};

uint8_t codeOfElement(uint32_t word, int element) {
  return static_cast<uint8_t>((word >> (4 * kInt4SlotOfElement[static_cast<size_t>(element)])) &
                              0xFu);
}

std::vector<float> randomWeights(int64_t count, uint64_t seed) {
  std::vector<float> w = randomUniform(count, seed, -1.0f, 1.0f);
  for (size_t i = 0; i < w.size(); i += 61) w[i] *= 8.0f;  // a few outliers per group
  return w;
}

}  // namespace

TEST_CASE("lop3 emulation follows the truth-table convention", "[reference][int4]") {
  CHECK(lop3(0xFFFFFFFFu, 0u, 0u, 0xF0) == 0xFFFFFFFFu);  // 0xF0 selects a
  CHECK(lop3(0u, 0x12345678u, 0u, 0xCC) == 0x12345678u);  // 0xCC selects b
  CHECK(lop3(0u, 0u, 0x9ABCDEF0u, 0xAA) == 0x9ABCDEF0u);  // 0xAA selects c
  CHECK(kLutAndOr == 0xEA);
  std::mt19937 rng(7);
  for (int i = 0; i < 1000; ++i) {
    const auto a = static_cast<uint32_t>(rng()), b = static_cast<uint32_t>(rng()),
               c = static_cast<uint32_t>(rng());
    CHECK(lop3(a, b, c, kLutAndOr) == ((a & b) | c));
  }
}

TEST_CASE("INT4 magic-number conversion equals integer arithmetic for every byte and scale",
          "[reference][int4]") {
  std::mt19937 rng(11);
  int64_t checked = 0;
  for (int byte = 0; byte < 256; ++byte) {
    for (int position = 0; position < 4; ++position) {
      // The byte under test at one of the four byte positions, random codes elsewhere, so each
      // of the 8 nibble slots sees all 16 codes paired with every neighbour.
      const uint32_t fill = static_cast<uint32_t>(rng()) & ~(0xFFu << (8 * position));
      const uint32_t word = fill | (static_cast<uint32_t>(byte) << (8 * position));
      for (const uint16_t scale : kScales) {
        for (int zero = 0; zero < 16; ++zero) {
          const auto got = emulateInt4MagicWord(word, scale, static_cast<uint8_t>(zero));
          for (int e = 0; e < 8; ++e) {
            const int value = int{codeOfElement(word, e)} - zero;
            const uint16_t want = doubleToBf16(value * bf16ToDouble(scale));
            if (got[static_cast<size_t>(e)] != want) {
              FAIL("word " << word << " scale " << scale << " zero " << zero << " element " << e
                           << ": got " << got[static_cast<size_t>(e)] << " want " << want);
            }
            ++checked;
          }
        }
      }
    }
  }
  CHECK(checked == 256 * 4 * 11 * 16 * 8);
}

TEST_CASE("INT4 symmetric default zero is 8 (bf16 136 = 0x4308)", "[reference][int4]") {
  const uint32_t word = 0x76543210u;  // slot s holds code s
  const auto got = emulateInt4MagicWord(word, 0x3F80);
  // element e sits in slot kInt4SlotOfElement[e]: elements 0..7 hold codes 0,4,1,5,2,6,3,7.
  const int codes[8] = {0, 4, 1, 5, 2, 6, 3, 7};
  for (int e = 0; e < 8; ++e) {
    CHECK(bf16ToFloat(got[static_cast<size_t>(e)]) == static_cast<float>(codes[e] - 8));
  }
}

TEST_CASE("FP8 shift-and-fold dequant equals decode times scale", "[reference][fp8]") {
  const uint16_t scales[] = {0x3F80, 0x3B4D, 0x0080, 0x0001, 0x437F, 0xC2F7, 0x3E2B};
  for (const uint16_t scale : scales) {
    for (int b = 0; b < 256; ++b) {
      const auto bits = static_cast<uint8_t>(b);
      if ((bits & 0x7F) == 0x7F) continue;
      const uint16_t want = doubleToBf16(double{decodeE4m3(bits)} * bf16ToDouble(scale));
      INFO("byte " << b << " scale " << scale);
      CHECK(emulateE4m3ShiftDequant(bits, scale) == want);
    }
  }
}

TEST_CASE("INT4 interleaved row packing round-trips", "[reference][int4]") {
  std::mt19937 rng(3);
  for (const auto& [n, k] : {std::pair<int64_t, int64_t>{1, 8}, {3, 8}, {37, 264}, {5, 4096}}) {
    std::vector<uint8_t> codes(static_cast<size_t>(n * k));
    for (auto& c : codes) c = static_cast<uint8_t>(rng() & 0xF);
    const auto words = packInt4Interleaved(codes, n, k);
    CHECK(static_cast<int64_t>(words.size()) == n * k / 8);
    CHECK(unpackInt4Interleaved(words, n, k) == codes);
  }
}

TEST_CASE("INT4 mma packing round-trips on awkward sizes", "[reference][int4]") {
  for (const auto& [n, k] :
       {std::pair<int64_t, int64_t>{1, 128}, {7, 200}, {13, 392}, {37, 1064}, {64, 256}}) {
    INFO("n " << n << " k " << k);
    const auto q =
        quantizeInt4G128(randomWeights(n * k, static_cast<uint64_t>(n * 1000 + k)), n, k, false);
    const auto packed = packInt4Mma(q);
    CHECK(packed.nPad % 8 == 0);
    CHECK(packed.kPad % 128 == 0);
    CHECK(packed.words.size() == static_cast<size_t>(packed.nPad / 8 * packed.kPad / 128 * 128));
    const auto back = unpackInt4Mma(packed);
    CHECK(back.codes == q.codes);
    CHECK(back.scales == q.scales);
  }
}

TEST_CASE("a host walk of the mma fragments over the packed layout reproduces A·Wᵀ",
          "[reference][int4]") {
  // Written from the PTX fragment layout of mma.m16n8k16 (B: lane 4g+t holds column g, rows
  // 2t, 2t+1 in b0 and 2t+8, 2t+9 in b1), independently of packInt4Mma's index function.
  const int64_t m = 3, n = 13, k = 392;
  const auto q = quantizeInt4G128(randomWeights(n * k, 5), n, k, false);
  const auto packed = packInt4Mma(q);
  const auto a = randomUniform(m * k, 6);
  const auto want = gemmReference(a, bf16ToFloat(dequantInt4(q)), m, n, k);
  std::vector<float> got(static_cast<size_t>(m * n), 0.0f);
  const int64_t groups = packed.kPad / 128;
  for (int64_t tile = 0; tile < packed.nPad / 8; ++tile) {
    for (int64_t g = 0; g < groups; ++g) {
      for (int lane = 0; lane < 32; ++lane) {
        const int64_t col = tile * 8 + lane / 4;
        const int t = lane % 4;
        const uint16_t scale = packed.scales[static_cast<size_t>(g * packed.nPad + col)];
        for (int w = 0; w < 4; ++w) {
          const uint32_t word =
              packed.words[static_cast<size_t>(((tile * groups + g) * 32 + lane) * 4 + w)];
          const auto v = emulateInt4MagicWord(word, scale);  // pairs p = 0..3 → v[2p], v[2p+1]
          for (int p = 0; p < 4; ++p) {
            const int64_t slice = 2 * w + p / 2;  // k-slice of 16 inside the group
            const int64_t kRow = g * 128 + slice * 16 + (p % 2 == 0 ? 2 * t : 2 * t + 8);
            for (int h = 0; h < 2; ++h) {
              if (col >= n || kRow + h >= k) continue;
              for (int64_t i = 0; i < m; ++i) {
                got[static_cast<size_t>(i * n + col)] +=
                    a[static_cast<size_t>(i * k + kRow + h)] *
                    bf16ToFloat(v[static_cast<size_t>(2 * p + h)]);
              }
            }
          }
        }
      }
    }
  }
  CHECK(relativeError(got, want) < 1e-5);
}

TEST_CASE("INT4 quantisers stay within half a step", "[reference][int4]") {
  const int64_t n = 9, k = 300;
  const auto w = randomWeights(n * k, 9);
  for (const bool asym : {false, true}) {
    const auto q = quantizeInt4G128(w, n, k, asym);
    const auto d = bf16ToFloat(dequantInt4(q));
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t c = 0; c < k; ++c) {
        const double s = bf16ToDouble(q.scales[static_cast<size_t>(r * q.groups() + c / 128)]);
        const double err = std::fabs(double{d[static_cast<size_t>(r * k + c)]} -
                                     w[static_cast<size_t>(r * k + c)]);
        INFO("asym " << asym << " r " << r << " c " << c);
        CHECK(err <= 0.5 * s * 1.01 + std::fabs(double{w[static_cast<size_t>(r * k + c)]}) / 128.0);
      }
    }
  }
}

TEST_CASE("8-bit and MXFP4 quantise/dequant round trips", "[reference][dequant]") {
  const int64_t n = 6, k = 256;
  const auto w = randomWeights(n * k, 12);
  const auto i8 = dequantInt8(quantizeInt8PerChannel(w, n, k));
  const auto f8 = dequantFp8(quantizeFp8PerChannel(w, n, k));
  const auto mx = dequantMxfp4(quantizeMxfp4(w, n, k));
  CHECK(relativeError(bf16ToFloat(i8), w) < 0.03);
  CHECK(relativeError(bf16ToFloat(f8), w) < 0.05);
  CHECK(relativeError(bf16ToFloat(mx), w) < 0.2);
  const auto q = quantizeMxfp4(w, n, k);
  CHECK(q.packed.size() == static_cast<size_t>(n * k / 2));
  CHECK(q.scales.size() == static_cast<size_t>(n * k / 32));
  // First element of row 0 is the low nibble of byte 0.
  const float first = decodeE2m1(q.packed[0] & 0xF) * decodeE8m0(q.scales[0]);
  CHECK(bf16ToFloat(mx[0]) == first);
}

TEST_CASE("countBf16Mismatches treats NaNs as equal", "[reference][dequant]") {
  CHECK(countBf16Mismatches({0x7FC0, 0x3F80}, {0x7FFF, 0x3F80}) == 0);
  CHECK(countBf16Mismatches({0x3F80, 0x3F81}, {0x3F80, 0x3F80}) == 1);
}
