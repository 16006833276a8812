// Host reference quantisers, dequantisers, packers and the INT4 magic-number emulation
// (see quantize.hpp). Every dequant rounds once, from an exact product, to bf16.
#include <quantfront/core/reference/quantize.hpp>

#include <quantfront/core/reference/numeric_formats.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace qf::ref {

namespace {

size_t idx(int64_t i) {
  return static_cast<size_t>(i);
}

/// A scale rounded to bf16, never zero or non-finite (an all-zero group gets scale 1).
uint16_t positiveScaleBf16(double s) {
  if (!(s > 0.0) || !std::isfinite(s)) return floatToBf16(1.0f);
  uint16_t bits = doubleToBf16(s);
  if (bf16ToFloat(bits) == 0.0f) bits = 0x0001;  // smallest subnormal rather than zero
  return bits;
}

int clampInt(double v, int lo, int hi) {
  return std::clamp(static_cast<int>(std::nearbyint(v)), lo, hi);
}

}  // namespace

Int4Weights quantizeInt4G128(const std::vector<float>& w, int64_t n, int64_t k, bool asymmetric) {
  if (static_cast<int64_t>(w.size()) != n * k)
    throw std::invalid_argument("quantizeInt4G128: size");
  Int4Weights q;
  q.n = n;
  q.k = k;
  q.asymmetric = asymmetric;
  const int64_t groups = q.groups();
  q.codes.resize(idx(n * k));
  q.scales.resize(idx(n * groups));
  if (asymmetric) q.zeros.resize(idx(n * groups));
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t k0 = g * kInt4GroupSize;
      const int64_t k1 = std::min(k, k0 + kInt4GroupSize);
      double lo = 0, hi = 0;  // range includes 0 so the zero point stays in 0..15
      for (int64_t c = k0; c < k1; ++c) {
        lo = std::min(lo, static_cast<double>(w[idx(r * k + c)]));
        hi = std::max(hi, static_cast<double>(w[idx(r * k + c)]));
      }
      const size_t gi = idx(r * groups + g);
      int zero = 8;
      double s = 0;
      if (asymmetric) {
        q.scales[gi] = positiveScaleBf16((hi - lo) / 15.0);
        s = bf16ToDouble(q.scales[gi]);
        zero = clampInt(-lo / s, 0, 15);
        q.zeros[gi] = static_cast<uint8_t>(zero);
      } else {
        q.scales[gi] = positiveScaleBf16(std::max(hi, -lo) / 7.0);
        s = bf16ToDouble(q.scales[gi]);
      }
      for (int64_t c = k0; c < k1; ++c) {
        q.codes[idx(r * k + c)] =
            static_cast<uint8_t>(clampInt(w[idx(r * k + c)] / s + zero, 0, 15));
      }
    }
  }
  return q;
}

std::vector<uint16_t> dequantInt4(const Int4Weights& q) {
  std::vector<uint16_t> out(idx(q.n * q.k));
  const int64_t groups = q.groups();
  for (int64_t r = 0; r < q.n; ++r) {
    for (int64_t c = 0; c < q.k; ++c) {
      const int64_t g = c / kInt4GroupSize;
      const int v = static_cast<int>(q.codes[idx(r * q.k + c)]) - q.zero(r, g);
      out[idx(r * q.k + c)] = doubleToBf16(v * bf16ToDouble(q.scales[idx(r * groups + g)]));
    }
  }
  return out;
}

std::vector<uint32_t> packInt4Interleaved(const std::vector<uint8_t>& codes, int64_t n, int64_t k) {
  if (k % 8 != 0) throw std::invalid_argument("packInt4Interleaved: k % 8 != 0");
  std::vector<uint32_t> words(idx(n * k / 8), 0u);
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t wi = 0; wi < k / 8; ++wi) {
      uint32_t word = 0;
      for (int e = 0; e < 8; ++e) {
        const uint32_t code = codes[idx(r * k + wi * 8 + e)] & 0xFu;
        word |= code << (4 * kInt4SlotOfElement[static_cast<size_t>(e)]);
      }
      words[idx(r * (k / 8) + wi)] = word;
    }
  }
  return words;
}

std::vector<uint8_t> unpackInt4Interleaved(const std::vector<uint32_t>& words, int64_t n,
                                           int64_t k) {
  std::vector<uint8_t> codes(idx(n * k));
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t wi = 0; wi < k / 8; ++wi) {
      const uint32_t word = words[idx(r * (k / 8) + wi)];
      for (int e = 0; e < 8; ++e) {
        codes[idx(r * k + wi * 8 + e)] =
            static_cast<uint8_t>((word >> (4 * kInt4SlotOfElement[static_cast<size_t>(e)])) & 0xFu);
      }
    }
  }
  return codes;
}

namespace {

/// k offset inside a 128-group of slot `slot` of word `word` for lane-in-quad t (layout in
/// quantize.hpp: pair p = slot % 4 feeds k-slice 2·word + p/2, register b(p%2), half slot/4).
int64_t mmaKInGroup(int word, int slot, int t) {
  const int p = slot % 4;
  const int h = slot / 4;
  return 16 * (2 * word + p / 2) + 8 * (p % 2) + 2 * t + h;
}

}  // namespace

Int4MmaPacked packInt4Mma(const Int4Weights& q) {
  if (q.asymmetric) throw std::invalid_argument("packInt4Mma: symmetric weights only");
  Int4MmaPacked p;
  p.n = q.n;
  p.k = q.k;
  p.nPad = (q.n + 7) / 8 * 8;
  p.kPad = q.groups() * kInt4GroupSize;
  const int64_t tiles = p.nPad / 8;
  const int64_t groups = p.kPad / kInt4GroupSize;
  p.words.assign(idx(tiles * groups * 32 * 4), 0u);
  p.scales.assign(idx(groups * p.nPad), 0u);
  for (int64_t tile = 0; tile < tiles; ++tile) {
    for (int64_t g = 0; g < groups; ++g) {
      for (int lane = 0; lane < 32; ++lane) {
        const int64_t row = tile * 8 + lane / 4;
        for (int w = 0; w < 4; ++w) {
          uint32_t word = 0;
          for (int slot = 0; slot < 8; ++slot) {
            const int64_t col = g * kInt4GroupSize + mmaKInGroup(w, slot, lane % 4);
            const uint32_t code =
                (row < q.n && col < q.k) ? q.codes[idx(row * q.k + col)] : uint32_t{8};
            word |= (code & 0xFu) << (4 * slot);
          }
          p.words[idx(((tile * groups + g) * 32 + lane) * 4 + w)] = word;
        }
      }
    }
  }
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t row = 0; row < q.n; ++row) {
      p.scales[idx(g * p.nPad + row)] = q.scales[idx(row * groups + g)];
    }
  }
  return p;
}

Int4Weights unpackInt4Mma(const Int4MmaPacked& p) {
  Int4Weights q;
  q.n = p.n;
  q.k = p.k;
  q.asymmetric = false;
  const int64_t groups = q.groups();
  q.codes.assign(idx(q.n * q.k), 0);
  q.scales.assign(idx(q.n * groups), 0);
  const int64_t tiles = p.nPad / 8;
  for (int64_t tile = 0; tile < tiles; ++tile) {
    for (int64_t g = 0; g < groups; ++g) {
      for (int lane = 0; lane < 32; ++lane) {
        const int64_t row = tile * 8 + lane / 4;
        if (row >= q.n) continue;
        for (int w = 0; w < 4; ++w) {
          const uint32_t word = p.words[idx(((tile * groups + g) * 32 + lane) * 4 + w)];
          for (int slot = 0; slot < 8; ++slot) {
            const int64_t col = g * kInt4GroupSize + mmaKInGroup(w, slot, lane % 4);
            if (col < q.k) {
              q.codes[idx(row * q.k + col)] = static_cast<uint8_t>((word >> (4 * slot)) & 0xFu);
            }
          }
        }
      }
    }
  }
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t row = 0; row < q.n; ++row) {
      q.scales[idx(row * groups + g)] = p.scales[idx(g * p.nPad + row)];
    }
  }
  return q;
}

uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint8_t lut) {
  uint32_t out = 0;
  for (int i = 0; i < 32; ++i) {
    const uint32_t sel = (((a >> i) & 1u) << 2) | (((b >> i) & 1u) << 1) | ((c >> i) & 1u);
    out |= ((static_cast<uint32_t>(lut) >> sel) & 1u) << i;
  }
  return out;
}

std::array<uint16_t, 8> emulateInt4MagicWord(uint32_t word, uint16_t scaleBf16, uint8_t zero) {
  // bf16(128 + zero): exponent 2^7, mantissa = zero (ulp 1 at this exponent).
  const uint16_t magicPlusZero = static_cast<uint16_t>(0x4300u | (zero & 0xFu));
  std::array<uint16_t, 8> out{};
  for (int p = 0; p < 4; ++p) {
    const uint32_t pair = lop3(word >> (4 * p), kNibblePairMask, kBf16MagicPair, kLutAndOr);
    const uint16_t halves[2] = {static_cast<uint16_t>(pair & 0xFFFFu),
                                static_cast<uint16_t>(pair >> 16)};
    for (int h = 0; h < 2; ++h) {
      const uint16_t centred = bf16Sub(halves[h], magicPlusZero);  // exact: small integers
      out[static_cast<size_t>(2 * p + h)] = bf16Mul(centred, scaleBf16);
    }
  }
  return out;
}

Int8Weights quantizeInt8PerChannel(const std::vector<float>& w, int64_t n, int64_t k) {
  Int8Weights q;
  q.n = n;
  q.k = k;
  q.q.resize(idx(n * k));
  q.scales.resize(idx(n));
  for (int64_t r = 0; r < n; ++r) {
    double amax = 0;
    for (int64_t c = 0; c < k; ++c) amax = std::max(amax, std::fabs(double{w[idx(r * k + c)]}));
    q.scales[idx(r)] = positiveScaleBf16(amax / 127.0);
    const double s = bf16ToDouble(q.scales[idx(r)]);
    for (int64_t c = 0; c < k; ++c) {
      q.q[idx(r * k + c)] = static_cast<int8_t>(clampInt(w[idx(r * k + c)] / s, -127, 127));
    }
  }
  return q;
}

std::vector<uint16_t> dequantInt8(const Int8Weights& q) {
  std::vector<uint16_t> out(idx(q.n * q.k));
  for (int64_t r = 0; r < q.n; ++r) {
    const double s = bf16ToDouble(q.scales[idx(r)]);
    for (int64_t c = 0; c < q.k; ++c) {
      out[idx(r * q.k + c)] = doubleToBf16(q.q[idx(r * q.k + c)] * s);
    }
  }
  return out;
}

Fp8Weights quantizeFp8PerChannel(const std::vector<float>& w, int64_t n, int64_t k) {
  Fp8Weights q;
  q.n = n;
  q.k = k;
  q.q.resize(idx(n * k));
  q.scales.resize(idx(n));
  for (int64_t r = 0; r < n; ++r) {
    double amax = 0;
    for (int64_t c = 0; c < k; ++c) amax = std::max(amax, std::fabs(double{w[idx(r * k + c)]}));
    q.scales[idx(r)] = positiveScaleBf16(amax / kE4m3Max);
    const double s = bf16ToDouble(q.scales[idx(r)]);
    for (int64_t c = 0; c < k; ++c) {
      q.q[idx(r * k + c)] = encodeE4m3(static_cast<float>(w[idx(r * k + c)] / s));
    }
  }
  return q;
}

std::vector<uint16_t> dequantFp8(const Fp8Weights& q) {
  std::vector<uint16_t> out(idx(q.n * q.k));
  for (int64_t r = 0; r < q.n; ++r) {
    const double s = bf16ToDouble(q.scales[idx(r)]);
    for (int64_t c = 0; c < q.k; ++c) {
      out[idx(r * q.k + c)] = doubleToBf16(double{decodeE4m3(q.q[idx(r * q.k + c)])} * s);
    }
  }
  return out;
}

uint16_t emulateE4m3ShiftDequant(uint8_t bits, uint16_t scaleBf16) {
  const uint16_t shifted = static_cast<uint16_t>(((bits & 0x80u) << 8) | ((bits & 0x7Fu) << 4));
  const uint16_t foldedScale = bf16Mul(scaleBf16, 0x7B80u);  // 0x7B80 = bf16 2^120, exact
  return bf16Mul(shifted, foldedScale);
}

std::vector<uint8_t> quantizeE4m3PerTensor(const std::vector<float>& w, float& scale) {
  float amax = 0;
  for (float v : w) amax = std::max(amax, std::fabs(v));
  scale = amax > 0 ? amax / kE4m3Max : 1.0f;
  std::vector<uint8_t> out(w.size());
  for (size_t i = 0; i < w.size(); ++i) out[i] = encodeE4m3(w[i] / scale);
  return out;
}

std::vector<int8_t> quantizeInt8PerTensor(const std::vector<float>& w, float& scale) {
  float amax = 0;
  for (float v : w) amax = std::max(amax, std::fabs(v));
  scale = amax > 0 ? amax / 127.0f : 1.0f;
  std::vector<int8_t> out(w.size());
  for (size_t i = 0; i < w.size(); ++i) {
    out[i] = static_cast<int8_t>(clampInt(double{w[i]} / scale, -127, 127));
  }
  return out;
}

Mxfp4Weights quantizeMxfp4(const std::vector<float>& w, int64_t n, int64_t k) {
  if (k % kMxBlockSize != 0) throw std::invalid_argument("quantizeMxfp4: k % 32 != 0");
  Mxfp4Weights q;
  q.n = n;
  q.k = k;
  q.packed.assign(idx(n * k / 2), 0);
  q.scales.resize(idx(n * k / kMxBlockSize));
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t b = 0; b < k / kMxBlockSize; ++b) {
      float amax = 0;
      for (int64_t c = b * kMxBlockSize; c < (b + 1) * kMxBlockSize; ++c) {
        amax = std::max(amax, std::fabs(w[idx(r * k + c)]));
      }
      const uint8_t e = e8m0ScaleForE2m1Block(amax);
      q.scales[idx(r * (k / kMxBlockSize) + b)] = e;
      const double scale = std::ldexp(1.0, int{e} - 127);
      for (int64_t c = b * kMxBlockSize; c < (b + 1) * kMxBlockSize; ++c) {
        const uint8_t code = encodeE2m1(static_cast<float>(w[idx(r * k + c)] / scale));
        q.packed[idx((r * k + c) / 2)] |= static_cast<uint8_t>(code << (4 * (c % 2)));
      }
    }
  }
  return q;
}

std::vector<uint16_t> dequantMxfp4(const Mxfp4Weights& q) {
  std::vector<uint16_t> out(idx(q.n * q.k));
  for (int64_t r = 0; r < q.n; ++r) {
    for (int64_t c = 0; c < q.k; ++c) {
      const uint8_t code =
          static_cast<uint8_t>((q.packed[idx((r * q.k + c) / 2)] >> (4 * (c % 2))) & 0xFu);
      const double scale = decodeE8m0(q.scales[idx(r * (q.k / kMxBlockSize) + c / kMxBlockSize)]);
      out[idx(r * q.k + c)] = doubleToBf16(double{decodeE2m1(code)} * scale);
    }
  }
  return out;
}

int64_t countBf16Mismatches(const std::vector<uint16_t>& got, const std::vector<uint16_t>& want) {
  if (got.size() != want.size()) return static_cast<int64_t>(std::max(got.size(), want.size()));
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] == want[i]) continue;
    if (bf16IsNan(got[i]) && bf16IsNan(want[i])) continue;
    ++bad;
  }
  return bad;
}

}  // namespace qf::ref
