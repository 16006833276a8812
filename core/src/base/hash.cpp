// SHA-256 (FIPS 180-4) for provenance: imported files are recorded with their digest.
#include <quantfront/core/base/hash.hpp>
#include <quantfront/core/base/sha256_path.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define QF_HAVE_X86_SHA 1
#endif

namespace qf {

namespace {

constexpr std::array<std::uint32_t, 64> kRoundConstants = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u,
    0xab1c5ed5u, 0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu,
    0x9bdc06a7u, 0xc19bf174u, 0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu,
    0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau, 0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u,
    0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u, 0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu,
    0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u, 0xa2bfe8a1u, 0xa81a664bu,
    0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u, 0x19a4c116u,
    0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u,
    0xc67178f2u};

constexpr std::uint32_t rotr(std::uint32_t x, int n) {
  return (x >> n) | (x << (32 - n));
}

/// The FIPS 180-4 compression function on `blocks` 64-byte blocks, portable C++.
void compressPortable(std::array<std::uint32_t, 8>& state, const unsigned char* data,
                      std::size_t blocks) {
  for (; blocks > 0; --blocks, data += 64) {
    std::array<std::uint32_t, 64> w{};
    for (std::size_t t = 0; t < 16; ++t) {
      w[t] = (std::uint32_t{data[4 * t]} << 24) | (std::uint32_t{data[4 * t + 1]} << 16) |
             (std::uint32_t{data[4 * t + 2]} << 8) | std::uint32_t{data[4 * t + 3]};
    }
    for (std::size_t t = 16; t < 64; ++t) {
      const std::uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
      const std::uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    std::uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    std::uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (std::size_t t = 0; t < 64; ++t) {
      const std::uint32_t bigSigma1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const std::uint32_t choose = (e & f) ^ (~e & g);
      const std::uint32_t t1 = h + bigSigma1 + choose + kRoundConstants[t] + w[t];
      const std::uint32_t bigSigma0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const std::uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
      const std::uint32_t t2 = bigSigma0 + majority;
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
  }
}

#ifdef QF_HAVE_X86_SHA
/// The same compression with the x86 SHA extensions (SHA-NI): the CPU runs two rounds per
/// sha256rnds2 and the message schedule with sha256msg1/msg2, about ten times the portable
/// speed. The state lives in two registers in the order the instructions want: ABEF and CDGH.
__attribute__((target("sha,sse4.1,ssse3"))) void compressShaExtensions(
    std::array<std::uint32_t, 8>& state, const unsigned char* data, std::size_t blocks) {
  // Byte order: message words are big-endian.
  const __m128i byteSwap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state.data()));
  __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state.data() + 4));
  const __m128i badc = _mm_shuffle_epi32(dcba, 0xB1);
  const __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
  __m128i abef = _mm_alignr_epi8(badc, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, badc, 0xF0);
  for (; blocks > 0; --blocks, data += 64) {
    const __m128i abefStart = abef;
    const __m128i cdghStart = cdgh;
    __m128i w[16];  // NOLINT(modernize-avoid-c-arrays): std::array drops the vector attributes
    for (std::size_t g = 0; g < 4; ++g) {
      w[g] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 16 * g)),
                              byteSwap);
    }
    for (std::size_t g = 4; g < 16; ++g) {
      // W[t] = σ1(W[t−2]) + W[t−7] + σ0(W[t−15]) + W[t−16], four words at a time.
      __m128i next = _mm_sha256msg1_epu32(w[g - 4], w[g - 3]);
      next = _mm_add_epi32(next, _mm_alignr_epi8(w[g - 1], w[g - 2], 4));
      w[g] = _mm_sha256msg2_epu32(next, w[g - 1]);
    }
    for (std::size_t g = 0; g < 16; ++g) {
      __m128i wk = _mm_add_epi32(
          w[g], _mm_loadu_si128(reinterpret_cast<const __m128i*>(kRoundConstants.data() + 4 * g)));
      // Two rounds return the new ABEF; the old ABEF is the new CDGH. Alternating the two
      // registers' roles leaves abef = ABEF and cdgh = CDGH after each pair.
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);  // rounds 4g, 4g+1
      wk = _mm_shuffle_epi32(wk, 0x0E);              // the two upper words to the bottom
      abef = _mm_sha256rnds2_epu32(abef, cdgh, wk);  // rounds 4g+2, 4g+3
    }
    abef = _mm_add_epi32(abef, abefStart);
    cdgh = _mm_add_epi32(cdgh, cdghStart);
  }
  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  dcba = _mm_blend_epi16(feba, dchg, 0xF0);
  hgfe = _mm_alignr_epi8(dchg, feba, 8);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state.data()), dcba);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state.data() + 4), hgfe);
}

bool cpuHasShaExtensions() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  const bool ssse3 = (c & (1u << 9)) != 0;
  const bool sse41 = (c & (1u << 19)) != 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  const bool sha = (b & (1u << 29)) != 0;
  return ssse3 && sse41 && sha;
}
#endif

bool shaExtensionsAvailable() {
#ifdef QF_HAVE_X86_SHA
  static const bool available = cpuHasShaExtensions();
  return available;
#else
  return false;
#endif
}

/// Incremental SHA-256: update() any number of times, then finish() once.
class Sha256 {
 public:
  explicit Sha256(Sha256Path path)
      : m_accelerated(path == Sha256Path::ShaExtensions && shaExtensionsAvailable()) {}

  void update(const unsigned char* data, std::size_t size) {
    m_totalBytes += size;
    if (m_bufferUsed > 0) {
      const std::size_t take = std::min(size, m_buffer.size() - m_bufferUsed);
      std::memcpy(m_buffer.data() + m_bufferUsed, data, take);
      m_bufferUsed += take;
      data += take;
      size -= take;
      if (m_bufferUsed < m_buffer.size()) return;
      compress(m_buffer.data(), 1);
      m_bufferUsed = 0;
    }
    if (size >= 64) {
      compress(data, size / 64);
      data += size / 64 * 64;
      size %= 64;
    }
    if (size > 0) {
      std::memcpy(m_buffer.data(), data, size);
      m_bufferUsed = size;
    }
  }

  /// Pads (a 1 bit, zeros, the 64-bit big-endian bit length) and returns lower-case hex.
  std::string finish() {
    const std::uint64_t bitLength = m_totalBytes * 8u;
    std::array<unsigned char, 128> tail{};
    std::memcpy(tail.data(), m_buffer.data(), m_bufferUsed);
    tail[m_bufferUsed] = 0x80;
    const std::size_t tailBlocks = m_bufferUsed < 56 ? 1 : 2;
    for (int i = 0; i < 8; ++i) {
      tail[tailBlocks * 64 - 1 - static_cast<std::size_t>(i)] =
          static_cast<unsigned char>(bitLength >> (8 * i));
    }
    compress(tail.data(), tailBlocks);
    static const char* const kHex = "0123456789abcdef";
    std::string out;
    out.reserve(64);
    for (const std::uint32_t word : m_state) {
      for (int shift = 28; shift >= 0; shift -= 4) out.push_back(kHex[(word >> shift) & 0xfu]);
    }
    return out;
  }

 private:
  void compress(const unsigned char* data, std::size_t blocks) {
#ifdef QF_HAVE_X86_SHA
    if (m_accelerated) {
      compressShaExtensions(m_state, data, blocks);
      return;
    }
#endif
    compressPortable(m_state, data, blocks);
  }

  std::array<std::uint32_t, 8> m_state = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                                          0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
  std::array<unsigned char, 64> m_buffer{};
  std::size_t m_bufferUsed = 0;
  std::uint64_t m_totalBytes = 0;
  bool m_accelerated = false;
};

}  // namespace

Sha256Path sha256ActivePath() {
  return shaExtensionsAvailable() ? Sha256Path::ShaExtensions : Sha256Path::Portable;
}

std::string sha256HexWith(std::string_view bytes, Sha256Path path) {
  Sha256 h(path);
  h.update(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  return h.finish();
}

std::string sha256Hex(std::string_view bytes) {
  Sha256 h(sha256ActivePath());
  h.update(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  return h.finish();
}

std::optional<std::string> sha256File(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  Sha256 h(sha256ActivePath());
  std::vector<char> buffer(1u << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::streamsize got = in.gcount();
    if (got > 0) {
      h.update(reinterpret_cast<const unsigned char*>(buffer.data()),
               static_cast<std::size_t>(got));
    }
  }
  if (in.bad()) return std::nullopt;
  return h.finish();
}

}  // namespace qf
