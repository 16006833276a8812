#pragma once
/// A fast, strict JSON reader for the importers (spec: shared/spec/formats.md).
///
/// Benchmark files can be hundreds of megabytes of numbers (per-request arrays of a detailed
/// vLLM run). This reader builds an ordinary `Json` DOM for the small members of a top-level
/// object but streams the big per-request arrays (`ttfts`, `itls`, ...) straight into flat
/// vectors, and reports every error with line and column. It accepts RFC 8259 JSON; the bare
/// tokens NaN, Infinity and -Infinity (Python's json module writes them) are parsed as numbers
/// but their first position is recorded so that formats which must be strict can refuse them.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/error.hpp>
#include <quantfront/core/base/json_io.hpp>

namespace qf {

/// A top-level per-request array read compactly.
struct JsonSeries {
  enum class Kind {
    Empty,        ///< `[]`
    Numbers,      ///< `[1.5, 2, ...]`: one value per element
    NumberLists,  ///< `[[0.01, 0.02], [], ...]`: values flattened, `offsets` has count + 1 entries
    Strings,      ///< `["", "error text", null, ...]`
  };
  Kind kind = Kind::Empty;
  std::size_t count = 0;             ///< elements in the array
  std::vector<double> values;        ///< Numbers and NumberLists
  std::vector<std::size_t> offsets;  ///< NumberLists: element i is values[offsets[i], offsets[i+1])
  std::vector<std::string> strings;  ///< Strings, when kept (null reads as "")
  std::size_t byteOffset = 0;        ///< where the array starts in the text
};

/// One parsed top-level JSON value.
struct JsonDocument {
  Json dom;                                    ///< the value, without the streamed members
  std::map<std::string, JsonSeries> series;    ///< streamed members by JSON pointer ("/ttfts")
  std::size_t beginOffset = 0;                 ///< byte offset of the value's first character
  std::size_t endOffset = 0;                   ///< one past its last character
  std::optional<std::size_t> nonFiniteOffset;  ///< first bare NaN/Infinity, if any
  std::string nonFiniteField;                  ///< the key it was found under
};

/// Which members of a top-level object (and of objects under `nestedObjects` keys) are
/// streamed, and whether the strings of a string array are kept.
struct JsonSeriesKeys {
  std::set<std::string, std::less<>> numeric;         ///< number arrays / arrays of number arrays
  std::set<std::string, std::less<>> keptStrings;     ///< string arrays kept in full
  std::set<std::string, std::less<>> skippedStrings;  ///< string arrays only counted
  std::set<std::string, std::less<>> nestedObjects;   ///< e.g. "details" (SGLang)
};

/// Parses JSON values from `text[begin, end)`. `label` names the source in errors; error
/// positions are line and column in the whole `text`.
class JsonScanner {
 public:
  /// Called every few megabytes with the current byte offset; return false to cancel.
  using Tick = std::function<bool(std::size_t offset)>;

  /// `text` must outlive the scanner; `keys` (may be null: nothing streamed) likewise.
  JsonScanner(std::string_view text, std::string label, const JsonSeriesKeys* keys = nullptr,
              Tick tick = {});

  /// Parses one value starting at `offset` (leading whitespace skipped); stops after it,
  /// never reading at or past `end`. Errors name the line, column and the innermost key.
  /// `lineStart` (at or before `offset`) begins line number `line`: positions are counted
  /// from there, so that reading a file line by line stays linear in its size.
  Result<JsonDocument> parseValue(std::size_t offset, std::size_t end, std::size_t lineStart = 0,
                                  std::size_t line = 1);

  /// Maximum nesting of arrays and objects accepted (deeper input is refused, not recursed).
  static constexpr int kMaxDepth = 256;

 private:
  struct State;
  std::string_view m_text;
  std::string m_label;
  const JsonSeriesKeys* m_keys;
  Tick m_tick;
  std::size_t m_lastTick = 0;
};

/// Offset of the first character at or after `offset` that is not JSON whitespace.
std::size_t skipJsonWhitespace(std::string_view text, std::size_t offset, std::size_t end);

/// "line L, column C" of byte `offset`, counting from `lineStart`, which begins line `line`
/// (1-based); the same as lineColumn(text, offset) when lineStart = 0 and line = 1.
std::string lineColumnFrom(std::string_view text, std::size_t lineStart, std::size_t line,
                           std::size_t offset);

/// Shortest decimal text that reads back as `value` ("10", "0.5", "inf", "nan").
std::string formatNumber(double value);

}  // namespace qf
