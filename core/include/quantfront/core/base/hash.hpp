#pragma once
/// SHA-256 for provenance (imported files are recorded with their digest).
#include <optional>
#include <string>
#include <string_view>

namespace qf {
/// Lower-case hex SHA-256 of `bytes`.
std::string sha256Hex(std::string_view bytes);
/// Lower-case hex SHA-256 of a file's contents, streamed; nullopt when unreadable.
std::optional<std::string> sha256File(const std::string& path);
/// Which implementation sha256Hex and sha256File use: "openssl" (libcrypto's EVP, with the
/// CPU's SHA instructions where it has them) where the build found libcrypto, else "portable"
/// (FIPS 180-4 in plain C++: a bare GPU box without OpenSSL's headers still builds core).
const char* sha256Backend();

namespace detail {
/// The portable FIPS 180-4 implementation, whatever sha256Backend() says (for its tests).
std::string sha256HexPortable(std::string_view bytes);
}  // namespace detail
}  // namespace qf
