#pragma once
/// Host reference quantisers, dequantisers and weight packers for the weight-only schemes the
/// CUDA kernels measure (w4a16-g128, w4a16-g128-asym, w8a16, w8a16-fp8, mxfp4), plus a
/// bit-by-bit emulation of the INT4 → bf16 magic-number conversion the kernels run. A dequant
/// reference returns bf16 bits; the device kernels must match them bit for bit.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace qf::ref {

/// Weights per INT4 scale group along K.
inline constexpr int64_t kInt4GroupSize = 128;
/// Elements per MX block (one e8m0 scale each) along K.
inline constexpr int64_t kMxBlockSize = 32;

// ---------------------------------------------------------------------------------------------
// INT4 group-128

/// INT4 weights quantised in groups of 128 along K, row-major over the N×K weight matrix.
struct Int4Weights {
  int64_t n = 0;                 ///< rows (output features)
  int64_t k = 0;                 ///< columns (input features); the last group may be short
  bool asymmetric = false;       ///< zero points present (else the implicit zero is 8)
  std::vector<uint8_t> codes;    ///< [n][k] unsigned codes 0..15
  std::vector<uint16_t> scales;  ///< [n][groups()] bf16 bits
  std::vector<uint8_t> zeros;    ///< [n][groups()] zero points 0..15 (asymmetric only)
  /// Groups per row: ceil(k / 128).
  int64_t groups() const { return (k + kInt4GroupSize - 1) / kInt4GroupSize; }
  /// Zero point of (row, group): 8 when symmetric.
  uint8_t zero(int64_t row, int64_t group) const {
    return asymmetric ? zeros[static_cast<std::size_t>(row * groups() + group)] : uint8_t{8};
  }
};

/// Quantise row-major w[n][k]. Symmetric (GPTQ-style, code = round(w/s) + 8 clamped to 0..15,
/// s = absmax/7 stored as bf16) or asymmetric (s = (max − min)/15, zero = round(−min/s),
/// code = round(w/s) + zero). Codes are computed against the bf16-rounded scale.
Int4Weights quantizeInt4G128(const std::vector<float>& w, int64_t n, int64_t k, bool asymmetric);
/// Reference dequant: bf16((code − zero)·scale), one rounding; [n][k] bf16 bits.
std::vector<uint16_t> dequantInt4(const Int4Weights& q);

/// Nibble slot that holds element e (0..7) of an interleaved 32-bit word: even elements in
/// slots 0..3, odd ones in slots 4..7, so one mask-and-or picks elements (2p, 2p+1) from slots
/// p and p+4 (bits 4p and 16+4p) into the two halves of a bf16x2 register.
inline constexpr std::array<int, 8> kInt4SlotOfElement = {0, 4, 1, 5, 2, 6, 3, 7};

/// Row layout for the streaming dequant kernels: word w of row r holds elements k = 8w..8w+7 of
/// that row in the interleaved slot order above. Precondition: k % 8 == 0. [n][k/8] words.
std::vector<uint32_t> packInt4Interleaved(const std::vector<uint8_t>& codes, int64_t n, int64_t k);
/// Inverse of packInt4Interleaved: [n][k] codes.
std::vector<uint8_t> unpackInt4Interleaved(const std::vector<uint32_t>& words, int64_t n,
                                           int64_t k);

/// Symmetric INT4 weights in the fused W4A16 kernel's layout (see cuda/src/w4a16_gemm.cu).
/// words: [nPad/8 tiles][kPad/128 groups][32 lanes][4 words]. Lane L = 4g + t of the tile's
/// warp owns row n = 8·tile + g; its word w, pair p (slots p and p+4) holds the two k values
/// 16·(2w + p/2) + 8·(p%2) + 2t + {0, 1} of the group: exactly the mma.m16n8k16 B-fragment
/// registers b0/b1 for k-slices 2w and 2w+1. Padding rows/columns hold code 8 (value 0).
struct Int4MmaPacked {
  int64_t n = 0, k = 0;          ///< logical shape
  int64_t nPad = 0, kPad = 0;    ///< n rounded up to 8, k rounded up to 128
  std::vector<uint32_t> words;   ///< packed codes, layout above
  std::vector<uint16_t> scales;  ///< [kPad/128][nPad] bf16 bits (padding scale 0)
};
/// Pack symmetric weights for the fused kernel. Precondition: !q.asymmetric.
Int4MmaPacked packInt4Mma(const Int4Weights& q);
/// Inverse of packInt4Mma (codes and scales of the logical n×k region; symmetric).
Int4Weights unpackInt4Mma(const Int4MmaPacked& p);

/// `lop3.b32` emulated bit by bit: output bit i is bit (a_i·4 + b_i·2 + c_i) of lut.
uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint8_t lut);
/// Exponent-and-sign bits of bf16 128.0 in both halves: OR-ing a nibble n into the mantissa of
/// 128.0 gives exactly 128 + n, because a bf16 at exponent 2^7 has an ulp of 1.
inline constexpr uint32_t kBf16MagicPair = 0x43004300u;
/// Mask of the nibble that lands in each half's mantissa.
inline constexpr uint32_t kNibblePairMask = 0x000F000Fu;
/// lop3 truth table for (a & b) | c with a = 0xF0, b = 0xCC, c = 0xAA.
inline constexpr uint8_t kLutAndOr = static_cast<uint8_t>((0xF0 & 0xCC) | 0xAA);
/// The device conversion emulated: for p = 0..3, lop3(word >> 4p, mask, 0x43004300) gives the
/// bf16 pair (128 + slot p, 128 + slot p+4); subtracting bf16(128 + zero) gives code − zero
/// exactly; one bf16 multiply by the scale rounds once. Returns the 8 elements in natural order.
std::array<uint16_t, 8> emulateInt4MagicWord(uint32_t word, uint16_t scaleBf16, uint8_t zero = 8);

// ---------------------------------------------------------------------------------------------
// 8-bit per channel

/// INT8 weights with one bf16 scale per output row.
struct Int8Weights {
  int64_t n = 0, k = 0;          ///< shape
  std::vector<int8_t> q;         ///< [n][k], −127..127
  std::vector<uint16_t> scales;  ///< [n] bf16 bits
};
/// s = absmax/127 (bf16), q = round(w/s) clamped to ±127.
Int8Weights quantizeInt8PerChannel(const std::vector<float>& w, int64_t n, int64_t k);
/// bf16(q·s), [n][k] bf16 bits.
std::vector<uint16_t> dequantInt8(const Int8Weights& q);

/// FP8 e4m3 weights with one bf16 scale per output row.
struct Fp8Weights {
  int64_t n = 0, k = 0;          ///< shape
  std::vector<uint8_t> q;        ///< [n][k] e4m3 bits (never NaN)
  std::vector<uint16_t> scales;  ///< [n] bf16 bits; |s| < 256 (the device path folds 2^120 into s)
};
/// s = absmax/448 (bf16), q = e4m3(w/s) saturating.
Fp8Weights quantizeFp8PerChannel(const std::vector<float>& w, int64_t n, int64_t k);
/// bf16(e4m3(q)·s), [n][k] bf16 bits.
std::vector<uint16_t> dequantFp8(const Fp8Weights& q);
/// The device FP8 → bf16 path emulated: the e4m3 byte's sign goes to bit 15 and its 7 magnitude
/// bits to bits 10..4 of a bf16, which reads as value·2^-120 (e4m3 subnormals land on bf16
/// subnormals); one bf16 multiply by bf16(scale·2^120) rounds once. Precondition: |scale| < 256,
/// bits not NaN (0x7F/0xFF decode as ±480 here).
uint16_t emulateE4m3ShiftDequant(uint8_t bits, uint16_t scaleBf16);
/// Whole-tensor FP8 quantisation for the FP8 GEMM: returns e4m3 bits of w/scale with
/// scale = absmax/448 (written to `scale`, 1 when absmax is 0).
std::vector<uint8_t> quantizeE4m3PerTensor(const std::vector<float>& w, float& scale);
/// Whole-tensor INT8 quantisation for the INT8 GEMM: round(w/scale), scale = absmax/127.
std::vector<int8_t> quantizeInt8PerTensor(const std::vector<float>& w, float& scale);

// ---------------------------------------------------------------------------------------------
// MXFP4

/// MXFP4 weights: e2m1 elements, one e8m0 scale per 32 along K.
struct Mxfp4Weights {
  int64_t n = 0, k = 0;         ///< shape; k % 32 == 0
  std::vector<uint8_t> packed;  ///< [n][k/2] bytes, low nibble = even k (OCP MX order)
  std::vector<uint8_t> scales;  ///< [n][k/32] e8m0 bits
};
/// OCP MX quantisation: block scale from e8m0ScaleForE2m1Block, elements e2m1(w/scale).
Mxfp4Weights quantizeMxfp4(const std::vector<float>& w, int64_t n, int64_t k);
/// bf16(e2m1·2^(e−127)), [n][k] bf16 bits.
std::vector<uint16_t> dequantMxfp4(const Mxfp4Weights& q);

/// Count of positions where two bf16 arrays differ (two NaNs compare equal).
int64_t countBf16Mismatches(const std::vector<uint16_t>& got, const std::vector<uint16_t>& want);

}  // namespace qf::ref
