// SHA-256 for provenance (imported files are recorded with their digest), from OpenSSL's
// libcrypto (EVP): its SHA-256 uses the CPU's SHA instructions where there are any.
#include <quantfront/core/base/hash.hpp>

#include <openssl/evp.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

namespace qf {

namespace {

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
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * len);
    for (unsigned int i = 0; i < len; ++i) {
      out.push_back(kHex[digest[i] >> 4]);
      out.push_back(kHex[digest[i] & 0x0f]);
    }
    return out;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> m_ctx;
  bool m_ok = false;
};

}  // namespace

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
