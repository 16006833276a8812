#pragma once
// What the session's reader, migration, writer and validation share (private to the session
// area): names, limits and small helpers.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/session/session.hpp>

namespace qf::sessionfile {

/// The provenance kind a session names "modelled", "measured" or "published".
inline std::optional<ProvenanceKind> kindFromName(const std::string& s) {
  if (s == "modelled") return ProvenanceKind::Modelled;
  if (s == "measured") return ProvenanceKind::Measured;
  if (s == "published") return ProvenanceKind::Published;
  return std::nullopt;
}

/// The JSON pointer of member `key` (or element `index`) under `parent`.
inline std::string child(const std::string& parent, const std::string& key) {
  return childPointer(parent, key);
}
inline std::string child(const std::string& parent, std::size_t index) {
  return child(parent, std::to_string(index));
}

/// 64 lower-case hex digits.
inline bool isSha256Hex(const std::string& s) {
  if (s.size() != 64) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

/// How a session writes the numbers JSON cannot hold.
inline constexpr std::string_view kNaNText = "NaN";
inline constexpr std::string_view kInfText = "Infinity";
inline constexpr std::string_view kNegInfText = "-Infinity";

/// Bounds of the integer fields.
inline constexpr std::int64_t kMaxTp = 1024;
inline constexpr std::int64_t kMaxTokens = 1ll << 40;
inline constexpr std::int64_t kMaxCount = std::numeric_limits<std::int64_t>::max();

/// Rewrites a version-1 document as version 2 in place, noting what changed; errors name the
/// version-1 file's own pointers.
std::optional<Error> migrateV1(const JsonReader& r, Json& doc);

}  // namespace qf::sessionfile
