#pragma once
/// Which SHA-256 code path hashes imported files (spec: hash.hpp for the digest itself).
/// sha256Hex uses the x86 SHA extensions where the CPU has them (a 100 MB benchmark file
/// hashes in well under 0.1 s) and portable C++ elsewhere; both give the same digest.
#include <string>
#include <string_view>

namespace qf {

/// A SHA-256 implementation.
enum class Sha256Path {
  Portable,       ///< plain C++ (FIPS 180-4 as written)
  ShaExtensions,  ///< x86 SHA-NI instructions
};

/// The path sha256Hex and sha256File take on this CPU.
Sha256Path sha256ActivePath();

/// Lower-case hex SHA-256 of `bytes` through `path`; ShaExtensions falls back to Portable on
/// a CPU without them.
std::string sha256HexWith(std::string_view bytes, Sha256Path path);

}  // namespace qf
