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
}  // namespace qf
