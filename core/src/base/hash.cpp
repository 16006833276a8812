// SHA-256 for provenance (imported files are recorded with their digest). Two implementations
// of one digest: OpenSSL's libcrypto (EVP) where the build found it — it uses the CPU's SHA
// instructions, which the import benchmark's 100 MB file needs (docs/benchmarks.md) — and a
// portable FIPS 180-4 one in plain C++, so core builds on a machine without OpenSSL's headers
// (the bare GPU box cuda/'s standalone build targets). The tests check both on the standard
// vectors.
#include <quantfront/core/base/hash.hpp>

#if QF_HAVE_OPENSSL
#include <openssl/evp.h>
#endif

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <new>
#include <vector>

namespace qf {

namespace {

std::string toHex(const unsigned char* digest, std::size_t len) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * len);
  for (std::size_t i = 0; i < len; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 0x0f]);
  }
  return out;
}

/// FIPS 180-4 SHA-256: 64-byte blocks, big-endian words, 64 rounds.
class PortableSha256 {
 public:
  void update(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    m_bits += static_cast<std::uint64_t>(n) * 8;
    if (m_used > 0) {
      const std::size_t take = std::min(n, m_block.size() - m_used);
      std::memcpy(m_block.data() + m_used, p, take);
      m_used += take;
      p += take;
      n -= take;
      if (m_used < m_block.size()) return;
      compress(m_block.data());
      m_used = 0;
    }
    for (; n >= 64; n -= 64, p += 64) compress(p);
    if (n > 0) {
      std::memcpy(m_block.data(), p, n);
      m_used = n;
    }
  }
  std::optional<std::string> finish() {
    const std::uint64_t bits = m_bits;
    const unsigned char one = 0x80;
    update(&one, 1);
    const unsigned char zero = 0;
    while (m_used != 56) update(&zero, 1);
    unsigned char len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
    update(len, 8);
    unsigned char digest[32];
    for (int i = 0; i < 8; ++i) {
      for (int j = 0; j < 4; ++j)
        digest[4 * i + j] = static_cast<unsigned char>(m_h[i] >> (24 - 8 * j));
    }
    return toHex(digest, sizeof digest);
  }

 private:
  static std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
  void compress(const unsigned char* block) {
    static constexpr std::uint32_t kK[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2};
    std::uint32_t w[64];
    for (int i = 0; i < 16; ++i) {
      w[i] = (std::uint32_t{block[4 * i]} << 24) | (std::uint32_t{block[4 * i + 1]} << 16) |
             (std::uint32_t{block[4 * i + 2]} << 8) | std::uint32_t{block[4 * i + 3]};
    }
    for (int i = 16; i < 64; ++i) {
      const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::uint32_t a = m_h[0], b = m_h[1], c = m_h[2], d = m_h[3];
    std::uint32_t e = m_h[4], f = m_h[5], g = m_h[6], h = m_h[7];
    for (int i = 0; i < 64; ++i) {
      const std::uint32_t t1 =
          h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kK[i] + w[i];
      const std::uint32_t t2 =
          (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    m_h[0] += a;
    m_h[1] += b;
    m_h[2] += c;
    m_h[3] += d;
    m_h[4] += e;
    m_h[5] += f;
    m_h[6] += g;
    m_h[7] += h;
  }

  std::uint32_t m_h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                          0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::array<unsigned char, 64> m_block{};
  std::size_t m_used = 0;
  std::uint64_t m_bits = 0;
};

#if QF_HAVE_OPENSSL
/// An EVP digest context for SHA-256, freed on every path out.
class Sha256 {
 public:
  Sha256() : m_ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free) {
    m_ok = m_ctx && EVP_DigestInit_ex(m_ctx.get(), EVP_sha256(), nullptr) == 1;
  }
  void update(const void* data, std::size_t n) {
    if (m_ok && n > 0) m_ok = EVP_DigestUpdate(m_ctx.get(), data, n) == 1;
  }
  /// Lower-case hex digest; nullopt when libcrypto failed (out of memory).
  std::optional<std::string> finish() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (!m_ok || EVP_DigestFinal_ex(m_ctx.get(), digest, &len) != 1) return std::nullopt;
    return toHex(digest, len);
  }

 private:
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> m_ctx;
  bool m_ok = false;
};
#else
using Sha256 = PortableSha256;
#endif

}  // namespace

const char* sha256Backend() {
  return QF_HAVE_OPENSSL ? "openssl" : "portable";
}

std::string detail::sha256HexPortable(std::string_view bytes) {
  PortableSha256 h;
  h.update(bytes.data(), bytes.size());
  return *h.finish();
}

std::string sha256Hex(std::string_view bytes) {
  Sha256 h;
  h.update(bytes.data(), bytes.size());
  auto hex = h.finish();
  if (!hex) throw std::bad_alloc();  // libcrypto fails only when it cannot allocate
  return *hex;
}

std::optional<std::string> sha256File(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  Sha256 h;
  std::vector<char> buffer(1u << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::streamsize got = in.gcount();
    if (got > 0) h.update(buffer.data(), static_cast<std::size_t>(got));
  }
  if (in.bad()) return std::nullopt;
  return h.finish();
}

}  // namespace qf
