#pragma once
/// Reading JSON files from users: size limits, line/column positions on parse errors,
/// typed field access that reports the JSON pointer of a bad field.
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>
#include <quantfront/core/base/error.hpp>

namespace qf {

using Json = nlohmann::json;

/// Largest file the readers accept by default (bytes); larger files are refused, not read.
inline constexpr std::uint64_t kDefaultMaxFileBytes = 512ull * 1024 * 1024;

/// Reads a whole file into memory. Refuses files larger than maxBytes.
Result<std::string> readFileBytes(const std::string& path,
                                  std::uint64_t maxBytes = kDefaultMaxFileBytes);

/// What a parsed document may take in memory (estimated as it is built): 2 GiB, which a
/// session at its size limit (text mostly notes, about 1.8x in memory) and a detailed
/// benchmark result of 512 MB (arrays of numbers, about 1.7x) stay under, and which a file
/// of 10^8 zeros (24 bytes each in memory for 2 in the text) reaches long before it ends.
inline constexpr std::uint64_t kMaxJsonMemoryBytes = 2ull * 1024 * 1024 * 1024;

/// Parses `text` as one JSON document. `fileLabel` names it in errors.
/// When `allowNonFinite` is set, the bare tokens Infinity, -Infinity and NaN (as Python's
/// json module writes them) are accepted as numbers; nothing else non-standard is.
/// A document that would take more than `maxMemoryBytes` in memory is refused with the
/// pointer of the container being filled, before memory runs out.
Result<Json> parseJson(std::string_view text, const std::string& fileLabel,
                       bool allowNonFinite = false,
                       std::uint64_t maxMemoryBytes = kMaxJsonMemoryBytes);

/// readFileBytes + parseJson.
Result<Json> readJsonFile(const std::string& path, bool allowNonFinite = false,
                          std::uint64_t maxBytes = kDefaultMaxFileBytes);

/// JSON pointer of `key` under `pointer` ("/" or "" is the root), with RFC 6901 escaping
/// of '~' and '/'.
std::string childPointer(const std::string& pointer, const std::string& key);

/// "line L, column C" (1-based) of byte offset `offset` in `text`.
std::string lineColumn(std::string_view text, std::size_t offset);

/// Why the integer `v` may not stand where one from `lo` to `hi` is expected (the message
/// JsonReader's integer fields give), or nullopt when it may.
std::optional<std::string> integerOutOfRange(std::int64_t v, std::int64_t lo, std::int64_t hi);

/// Rewrites bare Infinity/-Infinity/NaN tokens outside strings to sentinel strings that
/// decodeNonFinite() turns back into doubles. Exposed for the importers.
std::string escapeNonFinite(std::string_view text);
/// Replaces the sentinel strings written by escapeNonFinite with ±inf/NaN numbers.
void decodeNonFinite(Json& j);

/// The one typed field reader: every error names the file, the position (the JSON pointer,
/// prefixed by "line N, " when the value is one of several in a JSON-lines file) and the
/// field. Results carry either the value or that error; the read*() forms store the value
/// into a variable and return the error, if any. Members that are null count as absent.
class JsonReader {
 public:
  /// `root` is the document the pointers refer to (kept for call-site clarity only).
  JsonReader(const Json& /*root*/, std::string file) : m_file(std::move(file)) {}
  /// A reader for `file`; unknown keys found by object() are noted in `notes` when given.
  explicit JsonReader(std::string file, std::vector<std::string>* notes = nullptr)
      : m_file(std::move(file)), m_notes(notes) {}
  /// A reader for one value of a JSON-lines file, starting on 1-based `line`.
  JsonReader(std::string file, std::size_t line)
      : m_file(std::move(file)), m_linePrefix("line " + std::to_string(line) + ", ") {}

  [[nodiscard]] const std::string& file() const { return m_file; }
  /// "line 3, /mean_ttft_ms" for a value of a JSON-lines file, "/mean_ttft_ms" otherwise
  /// ("/" for the root).
  [[nodiscard]] std::string position(const std::string& pointer) const {
    return m_linePrefix + (pointer.empty() ? std::string("/") : pointer);
  }
  /// Error at JSON pointer `pointer`, naming `field`.
  [[nodiscard]] Error error(const std::string& pointer, const std::string& field,
                            const std::string& message) const {
    return Error{m_file, position(pointer), field, message};
  }
  /// "required WHAT is missing" at obj[key], `pointer` being obj's pointer.
  [[nodiscard]] Error missing(const std::string& pointer, const std::string& key,
                              const std::string& what) const;
  /// Adds a load note (nothing when the reader keeps none).
  void note(std::string text) const {
    if (m_notes) m_notes->push_back(std::move(text));
  }

  /// The member `key` of `obj`, or nullptr when `obj` is no object or the member is absent
  /// or null.
  static const Json* find(const Json& obj, const std::string& key);
  /// "a string", "an array", "a number", "null", ... for messages.
  static std::string describe(const Json& v);

  /// Requires `j` to be an object; notes keys not in `known` (they are ignored).
  std::optional<Error> object(const Json& j, const std::string& pointer, const std::string& field,
                              std::initializer_list<const char*> known) const;

  /// Optional number at obj[key]: nullopt when absent or null. Finite unless `finite` is
  /// false (values decoded from NaN/Infinity tokens then pass through); > 0 when `positive`.
  Result<std::optional<double>> optNumber(const Json& obj, const std::string& pointer,
                                          const std::string& key, bool positive = false,
                                          bool finite = true) const;
  /// Required finite number at obj[key]; `pointer` is obj's JSON pointer.
  Result<double> number(const Json& obj, const std::string& pointer, const std::string& key,
                        bool positive = false) const;
  /// Like optNumber() (non-finite allowed), but also reads a number written as a string
  /// ("0.0010034", "inf", "nan", as nvbench writes them).
  Result<std::optional<double>> optNumberOrNumericString(const Json& obj,
                                                         const std::string& pointer,
                                                         const std::string& key) const;
  /// The value `v` (at `pointer`, reported as `field`) as a number that may also be one of
  /// the strings "NaN", "Infinity", "-Infinity" (data from other tools' files can hold them;
  /// JSON cannot).
  Result<double> looseNumber(const Json& v, const std::string& pointer,
                             const std::string& field) const;
  /// Optional integer from `lo` to `hi` (an integral float below 9e15 counts).
  Result<std::optional<std::int64_t>> optInteger(
      const Json& obj, const std::string& pointer, const std::string& key, std::int64_t lo = 0,
      std::int64_t hi = std::numeric_limits<std::int64_t>::max()) const;
  /// Required integer from `lo` to `hi`.
  Result<std::int64_t> integer(const Json& obj, const std::string& pointer, const std::string& key,
                               std::int64_t lo = 0,
                               std::int64_t hi = std::numeric_limits<std::int64_t>::max()) const;
  /// Optional string; not empty unless `allowEmpty`.
  Result<std::optional<std::string>> optString(const Json& obj, const std::string& pointer,
                                               const std::string& key,
                                               bool allowEmpty = true) const;
  /// Required string.
  Result<std::string> string(const Json& obj, const std::string& pointer, const std::string& key,
                             bool allowEmpty = true) const;
  /// Optional true or false.
  Result<std::optional<bool>> optBoolean(const Json& obj, const std::string& pointer,
                                         const std::string& key) const;
  /// Optional array of strings; items not empty unless `allowEmptyItems`.
  Result<std::optional<std::vector<std::string>>> optStringList(const Json& obj,
                                                                const std::string& pointer,
                                                                const std::string& key,
                                                                bool allowEmptyItems) const;

  /// number() into `out`; the error when there is one.
  std::optional<Error> readNumber(double& out, const Json& obj, const std::string& pointer,
                                  const std::string& key, bool positive = false) const;
  /// optNumber() into `out` when present (else `out` is left as it is); the error, if any.
  std::optional<Error> readOptNumber(double& out, const Json& obj, const std::string& pointer,
                                     const std::string& key, bool positive = false) const;
  std::optional<Error> readOptNumber(std::optional<double>& out, const Json& obj,
                                     const std::string& pointer, const std::string& key) const;
  /// looseNumber() of obj[key] into `out`; absent: an error when `required`, else unchanged.
  std::optional<Error> readLooseNumber(double& out, const Json& obj, const std::string& pointer,
                                       const std::string& key, bool required) const;
  /// An integer from `lo` to `hi` into `out`; absent: an error when `required`, else unchanged.
  std::optional<Error> readInteger(
      std::int64_t& out, const Json& obj, const std::string& pointer, const std::string& key,
      bool required, std::int64_t lo = 0,
      std::int64_t hi = std::numeric_limits<std::int64_t>::max()) const;
  /// A string into `out`; absent: an error when `required`, else `out` unchanged.
  std::optional<Error> readString(std::string& out, const Json& obj, const std::string& pointer,
                                  const std::string& key, bool required,
                                  bool allowEmpty = true) const;
  /// An optional boolean into `out` (unchanged when absent).
  std::optional<Error> readBoolean(bool& out, const Json& obj, const std::string& pointer,
                                   const std::string& key) const;
  /// A string array into `out` (replaced); absent: an error when `required`, else unchanged.
  std::optional<Error> readStringList(std::vector<std::string>& out, const Json& obj,
                                      const std::string& pointer, const std::string& key,
                                      bool required, bool allowEmptyItems) const;

  /// Lenient look-ups for files whose odd values are not errors (quantization_config): the
  /// member when it has the type, else `fallback`.
  static std::string stringOr(const Json& obj, const std::string& key,
                              const std::string& fallback = {});
  static double numberOr(const Json& obj, const std::string& key, double fallback);
  static bool booleanOr(const Json& obj, const std::string& key, bool fallback);

 private:
  std::string m_file;
  std::string m_linePrefix;
  std::vector<std::string>* m_notes = nullptr;
};

}  // namespace qf
