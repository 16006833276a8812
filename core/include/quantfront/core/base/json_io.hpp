#pragma once
/// Reading JSON files from users: size limits, line/column positions on parse errors,
/// typed field access that reports the JSON pointer of a bad field.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>
#include <quantfront/core/base/error.hpp>

namespace qf {

using Json = nlohmann::json;

/// Largest file the readers accept by default (bytes); larger files are refused, not read.
inline constexpr std::uint64_t kDefaultMaxFileBytes = 512ull * 1024 * 1024;

/// Reads a whole file into memory. Refuses files larger than maxBytes.
Result<std::string> readFileBytes(const std::string& path,
                                  std::uint64_t maxBytes = kDefaultMaxFileBytes);

/// Parses `text` as one JSON document. `fileLabel` names it in errors.
/// When `allowNonFinite` is set, the bare tokens Infinity, -Infinity and NaN (as Python's
/// json module writes them) are accepted as numbers; nothing else non-standard is.
Result<Json> parseJson(std::string_view text, const std::string& fileLabel,
                       bool allowNonFinite = false);

/// readFileBytes + parseJson.
Result<Json> readJsonFile(const std::string& path, bool allowNonFinite = false,
                          std::uint64_t maxBytes = kDefaultMaxFileBytes);

/// JSON pointer of `key` under `pointer` ("/" or "" is the root), with RFC 6901 escaping
/// of '~' and '/'.
std::string childPointer(const std::string& pointer, const std::string& key);

/// "line L, column C" (1-based) of byte offset `offset` in `text`.
std::string lineColumn(std::string_view text, std::size_t offset);

/// Rewrites bare Infinity/-Infinity/NaN tokens outside strings to sentinel strings that
/// decodeNonFinite() turns back into doubles. Exposed for the importers.
std::string escapeNonFinite(std::string_view text);
/// Replaces the sentinel strings written by escapeNonFinite with ±inf/NaN numbers.
void decodeNonFinite(Json& j);

/// Typed access with errors that name file, JSON pointer and field.
class JsonReader {
 public:
  /// `root` is the document the pointers refer to (kept for call-site clarity only).
  JsonReader(const Json& /*root*/, std::string file) : m_file(std::move(file)) {}
  [[nodiscard]] const std::string& file() const { return m_file; }
  /// Error at JSON pointer `pointer`, naming `field`.
  [[nodiscard]] Error error(const std::string& pointer, const std::string& field,
                            const std::string& message) const {
    return Error{m_file, pointer.empty() ? std::string("/") : pointer, field, message};
  }
  /// Required finite number at obj[key]; `pointer` is obj's JSON pointer.
  Result<double> number(const Json& obj, const std::string& pointer, const std::string& key,
                        bool positive = false) const;
  /// Optional finite number: nullopt when the key is absent or null.
  Result<std::optional<double>> optNumber(const Json& obj, const std::string& pointer,
                                          const std::string& key, bool positive = false) const;
  /// Required non-negative integer.
  Result<std::int64_t> integer(const Json& obj, const std::string& pointer,
                               const std::string& key) const;
  Result<std::optional<std::int64_t>> optInteger(const Json& obj, const std::string& pointer,
                                                 const std::string& key) const;
  Result<std::string> string(const Json& obj, const std::string& pointer,
                             const std::string& key) const;
  /// number() into `out`; the error when there is one.
  std::optional<Error> readNumber(double& out, const Json& obj, const std::string& pointer,
                                  const std::string& key, bool positive = false) const;
  /// optNumber() into `out` when present (else `out` is left as it is); the error, if any.
  std::optional<Error> readOptNumber(double& out, const Json& obj, const std::string& pointer,
                                     const std::string& key, bool positive = false) const;

 private:
  std::string m_file;
};

}  // namespace qf
