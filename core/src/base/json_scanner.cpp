// A strict, streaming JSON reader for the importers: a DOM for small members, flat vectors
// for the big per-request arrays, line/column on every error.
#include <nlohmann/json.hpp>
#include <quantfront/core/base/json_scanner.hpp>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

namespace qf {

namespace {

/// How often (bytes of input) the progress tick is called.
constexpr std::size_t kTickBytes = 4u << 20;

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isJsonSpace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/// True for a character that can start some JSON value (so an unexpected one there is a type
/// mismatch, not a syntax error).
bool startsValue(char c) {
  return c == '{' || c == '[' || c == '"' || c == 't' || c == 'f' || c == 'n' || c == '-' ||
         isDigit(c) || c == 'N' || c == 'I';
}

std::string hexByte(unsigned char c) {
  static const char* const kHex = "0123456789ABCDEF";
  std::string s = "0x";
  s.push_back(kHex[c >> 4]);
  s.push_back(kHex[c & 0xf]);
  return s;
}

void appendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

enum class SeriesOutcome { Parsed, Mismatch, Failed };

}  // namespace

std::size_t skipJsonWhitespace(std::string_view text, std::size_t offset, std::size_t end) {
  end = std::min(end, text.size());
  while (offset < end && isJsonSpace(text[offset])) ++offset;
  return offset;
}

std::string lineColumnFrom(std::string_view text, std::size_t lineStart, std::size_t line,
                           std::size_t offset) {
  offset = std::min(offset, text.size());
  lineStart = std::min(lineStart, offset);
  std::size_t begin = lineStart;
  for (std::size_t i = lineStart; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      begin = i + 1;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(offset - begin + 1);
}

std::string formatNumber(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, r.ptr);
}

struct JsonScanner::State {
  std::string_view text;
  std::size_t pos = 0;
  std::size_t end = 0;
  const std::string& label;
  const JsonSeriesKeys* keys = nullptr;
  const Tick& tick;
  std::size_t& lastTick;  ///< offset of the last tick, kept across values (JSON lines)
  std::optional<Error> error;
  std::vector<std::string> keyStack;
  std::size_t lineStart = 0;  ///< begins line `line`: positions count from here
  std::size_t line = 1;
  JsonDocument* doc = nullptr;

  State(std::string_view t, const std::string& l, const JsonSeriesKeys* k, const Tick& tk,
        std::size_t& last)
      : text(t), label(l), keys(k), tick(tk), lastTick(last) {}

  bool fail(std::size_t at, const std::string& message) {
    if (!error) {
      error = Error{label, where(at), keyStack.empty() ? std::string() : keyStack.back(), message};
    }
    return false;
  }

  std::string where(std::size_t at) const { return lineColumnFrom(text, lineStart, line, at); }

  std::string describe(std::size_t at) const {
    if (at >= end) return at >= text.size() ? "end of file" : "end of line";
    const auto c = static_cast<unsigned char>(text[at]);
    if (c >= 0x21 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
    return "byte " + hexByte(c);
  }

  SeriesOutcome failIncomplete() {
    incomplete(pos);
    return SeriesOutcome::Failed;
  }

  bool incomplete(std::size_t at) {
    return fail(at, std::string("unexpected ") + describe(at) +
                        ": the JSON value is incomplete (truncated file or line?)");
  }

  bool checkTick() {
    if (pos < lastTick) lastTick = pos;  // a second pass over the text starts again
    if (pos - lastTick < kTickBytes) return true;
    lastTick = pos;
    if (tick && !tick(pos)) {
      error = Error::cancelled(label);
      return false;
    }
    return true;
  }

  void skipSpace() {
    while (pos < end && isJsonSpace(text[pos])) ++pos;
  }

  bool literal(std::string_view word) {
    if (text.substr(pos, std::min(word.size(), end - pos)) != word) {
      return fail(pos, "unexpected " + describe(pos) + "; expected a JSON value");
    }
    pos += word.size();
    return true;
  }

  void noteNonFinite(std::size_t at) {
    if (!doc->nonFiniteOffset) {
      doc->nonFiniteOffset = at;
      doc->nonFiniteField = keyStack.empty() ? std::string() : keyStack.back();
    }
  }

  /// Validates a UTF-8 sequence at `at`; returns its length, or 0 when invalid.
  std::size_t utf8Length(std::size_t at) const {
    const auto byte = [&](std::size_t i) -> unsigned {
      return at + i < end ? static_cast<unsigned char>(text[at + i]) : 0u;
    };
    const unsigned c = byte(0);
    const auto cont = [&](std::size_t i) { return (byte(i) & 0xC0u) == 0x80u; };
    if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
    if (c == 0xE0) return (byte(1) >= 0xA0 && byte(1) <= 0xBF && cont(2)) ? 3 : 0;
    if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return (cont(1) && cont(2)) ? 3 : 0;
    if (c == 0xED) return (byte(1) >= 0x80 && byte(1) <= 0x9F && cont(2)) ? 3 : 0;
    if (c == 0xF0) return (byte(1) >= 0x90 && byte(1) <= 0xBF && cont(2) && cont(3)) ? 4 : 0;
    if (c >= 0xF1 && c <= 0xF3) return (cont(1) && cont(2) && cont(3)) ? 4 : 0;
    if (c == 0xF4) return (byte(1) >= 0x80 && byte(1) <= 0x8F && cont(2) && cont(3)) ? 4 : 0;
    return 0;
  }

  bool readHex4(std::size_t at, std::uint32_t& value) {
    if (at + 4 > end) return incomplete(end);
    value = 0;
    for (std::size_t i = 0; i < 4; ++i) {
      const int h = hexValue(text[at + i]);
      if (h < 0) return fail(at + i, "expected four hex digits after \\u in a string");
      value = value * 16 + static_cast<std::uint32_t>(h);
    }
    return true;
  }

  /// pos at the backslash.
  bool escape(std::string* out) {
    if (pos + 1 >= end) return incomplete(end);
    const char e = text[pos + 1];
    char plain = 0;
    switch (e) {
      case '"':
        plain = '"';
        break;
      case '\\':
        plain = '\\';
        break;
      case '/':
        plain = '/';
        break;
      case 'b':
        plain = '\b';
        break;
      case 'f':
        plain = '\f';
        break;
      case 'n':
        plain = '\n';
        break;
      case 'r':
        plain = '\r';
        break;
      case 't':
        plain = '\t';
        break;
      case 'u':
        break;
      default:
        return fail(pos, "invalid escape '\\" + std::string(1, e) + "' in a string");
    }
    if (e != 'u') {
      if (out) out->push_back(plain);
      pos += 2;
      return true;
    }
    std::uint32_t cp = 0;
    if (!readHex4(pos + 2, cp)) return false;
    pos += 6;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      std::uint32_t low = 0;
      if (pos + 1 < end && text[pos] == '\\' && text[pos + 1] == 'u') {
        if (!readHex4(pos + 2, low)) return false;
        if (low >= 0xDC00 && low <= 0xDFFF) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          pos += 6;
        } else {
          cp = 0xFFFD;  // lone high surrogate: replacement character
        }
      } else {
        cp = 0xFFFD;
      }
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
      cp = 0xFFFD;  // lone low surrogate
    }
    if (out) appendUtf8(*out, cp);
    return true;
  }

  /// pos at the opening quote. `out` null: validate and skip.
  bool string(std::string* out) {
    const std::size_t open = pos;
    ++pos;
    while (true) {
      const std::size_t start = pos;
      while (pos < end) {
        const auto c = static_cast<unsigned char>(text[pos]);
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
        ++pos;
      }
      if (out) out->append(text.data() + start, pos - start);
      if (pos >= end) {
        return fail(pos, "unexpected " + describe(pos) + " inside the string that starts at " +
                             where(open) + " (truncated file or line?)");
      }
      const auto c = static_cast<unsigned char>(text[pos]);
      if (c == '"') {
        ++pos;
        return true;
      }
      if (c == '\\') {
        if (!escape(out)) return false;
      } else if (c < 0x20) {
        return fail(pos, c == '\n' ? std::string("line break inside a string (truncated line?)")
                                   : "control character " + hexByte(c) +
                                         " inside a string must be escaped");
      } else {
        const std::size_t len = utf8Length(pos);
        if (len == 0) return fail(pos, "invalid UTF-8 (byte " + hexByte(c) + ") in a string");
        if (out) out->append(text.data() + pos, len);
        pos += len;
      }
    }
  }

  /// Validates the number token at pos; `stop` is one past it.
  bool numberToken(std::size_t& stop, bool& integral) {
    std::size_t p = pos;
    if (p < end && text[p] == '-') ++p;
    if (p >= end) return incomplete(p);
    if (text[p] == '0') {
      ++p;
    } else if (isDigit(text[p])) {
      while (p < end && isDigit(text[p])) ++p;
    } else {
      return fail(p, "expected a digit in a number, found " + describe(p));
    }
    integral = true;
    if (p < end && text[p] == '.') {
      ++p;
      if (p >= end || !isDigit(text[p])) {
        return fail(p, "expected a digit after the decimal point, found " + describe(p));
      }
      while (p < end && isDigit(text[p])) ++p;
      integral = false;
    }
    if (p < end && (text[p] == 'e' || text[p] == 'E')) {
      ++p;
      if (p < end && (text[p] == '+' || text[p] == '-')) ++p;
      if (p >= end || !isDigit(text[p])) {
        return fail(p, "expected a digit in the exponent, found " + describe(p));
      }
      while (p < end && isDigit(text[p])) ++p;
      integral = false;
    }
    stop = p;
    return true;
  }

  bool toDouble(std::size_t stop, double& value) {
    const char* first = text.data() + pos;
    const char* last = text.data() + stop;
    const auto r = std::from_chars(first, last, value);
    if (r.ec == std::errc::result_out_of_range) {
      // Underflow reads as a tiny number or zero (as Python does); overflow is refused.
      const std::string copy(first, last);
      value = std::strtod(copy.c_str(), nullptr);
      if (std::isinf(value)) return fail(pos, "number " + copy + " is out of range for a double");
    } else if (r.ec != std::errc() || r.ptr != last) {
      return fail(pos, "cannot read the number");
    }
    return true;
  }

  /// A number, or a bare NaN/Infinity/-Infinity (recorded), at pos.
  bool numberValue(double& value) {
    const char c = text[pos];
    if (c == 'N' || c == 'I' || (c == '-' && pos + 1 < end && text[pos + 1] == 'I')) {
      const std::size_t at = pos;
      if (c == 'N') {
        if (!literal("NaN")) return false;
        value = std::numeric_limits<double>::quiet_NaN();
      } else if (c == 'I') {
        if (!literal("Infinity")) return false;
        value = std::numeric_limits<double>::infinity();
      } else {
        if (!literal("-Infinity")) return false;
        value = -std::numeric_limits<double>::infinity();
      }
      noteNonFinite(at);
      return true;
    }
    std::size_t stop = 0;
    bool integral = false;
    if (!numberToken(stop, integral)) return false;
    if (!toDouble(stop, value)) return false;
    pos = stop;
    return true;
  }

  bool numberDom(Json& out) {
    const char c = text[pos];
    if (c == 'N' || c == 'I' || (c == '-' && pos + 1 < end && text[pos + 1] == 'I')) {
      double v = 0;
      if (!numberValue(v)) return false;
      out = v;
      return true;
    }
    std::size_t stop = 0;
    bool integral = false;
    if (!numberToken(stop, integral)) return false;
    if (integral) {
      const char* first = text.data() + pos;
      const char* last = text.data() + stop;
      std::int64_t i = 0;
      auto r = std::from_chars(first, last, i);
      if (r.ec == std::errc() && r.ptr == last) {
        out = i;
        pos = stop;
        return true;
      }
      std::uint64_t u = 0;
      r = std::from_chars(first, last, u);
      if (r.ec == std::errc() && r.ptr == last) {
        out = u;
        pos = stop;
        return true;
      }
    }
    double d = 0;
    if (!toDouble(stop, d)) return false;
    out = d;
    pos = stop;
    return true;
  }

  bool value(Json& out, int depth) {
    skipSpace();
    if (pos >= end) return incomplete(pos);
    if (!checkTick()) return false;
    const char c = text[pos];
    switch (c) {
      case '{':
        return object(out, depth + 1, nullptr);
      case '[':
        return array(out, depth + 1);
      case '"': {
        std::string s;
        if (!string(&s)) return false;
        out = std::move(s);
        return true;
      }
      case 't':
        if (!literal("true")) return false;
        out = true;
        return true;
      case 'f':
        if (!literal("false")) return false;
        out = false;
        return true;
      case 'n':
        if (!literal("null")) return false;
        out = nullptr;
        return true;
      default:
        if (c == '-' || isDigit(c) || c == 'N' || c == 'I') return numberDom(out);
        return fail(pos, "unexpected " + describe(pos) + "; expected a JSON value");
    }
  }

  bool array(Json& out, int depth) {
    if (depth > kMaxDepth) return fail(pos, "arrays and objects nested too deeply");
    ++pos;
    out = Json::array();
    skipSpace();
    if (pos < end && text[pos] == ']') {
      ++pos;
      return true;
    }
    while (true) {
      Json element;
      if (!value(element, depth)) return false;
      out.push_back(std::move(element));
      skipSpace();
      if (pos >= end) return incomplete(pos);
      if (text[pos] == ',') {
        ++pos;
        continue;
      }
      if (text[pos] == ']') {
        ++pos;
        return true;
      }
      return fail(pos, "expected ',' or ']' after an array element, found " + describe(pos));
    }
  }

  /// `seriesPrefix` non-null: members named in `keys` may be streamed (top level and nested
  /// series objects only).
  bool object(Json& out, int depth, const std::string* seriesPrefix) {
    if (depth > kMaxDepth) return fail(pos, "arrays and objects nested too deeply");
    ++pos;
    out = Json::object();
    skipSpace();
    if (pos < end && text[pos] == '}') {
      ++pos;
      return true;
    }
    while (true) {
      skipSpace();
      if (pos >= end) return incomplete(pos);
      if (text[pos] != '"') {
        return fail(pos, "expected a key in double quotes, found " + describe(pos));
      }
      std::string key;
      if (!string(&key)) return false;
      skipSpace();
      if (pos >= end) return incomplete(pos);
      if (text[pos] != ':') return fail(pos, "expected ':' after a key, found " + describe(pos));
      ++pos;
      skipSpace();
      if (pos >= end) {
        keyStack.push_back(key);
        return incomplete(pos);
      }
      keyStack.push_back(key);
      bool handled = false;
      if (seriesPrefix && keys) {
        const char c = text[pos];
        if (c == '[') {
          int mode = keys->numeric.count(key)          ? 0
                     : keys->keptStrings.count(key)    ? 1
                     : keys->skippedStrings.count(key) ? 2
                                                       : -1;
          if (mode >= 0) {
            const auto outcome = series(*seriesPrefix + "/" + key, mode);
            if (outcome == SeriesOutcome::Failed) return false;
            handled = outcome == SeriesOutcome::Parsed;
          }
        } else if (c == '{' && seriesPrefix->empty() && keys->nestedObjects.count(key)) {
          const std::string nested = "/" + key;
          Json sub;
          if (!object(sub, depth + 1, &nested)) return false;
          out[key] = std::move(sub);
          handled = true;
        }
      }
      if (!handled) {
        Json v;
        if (!value(v, depth)) return false;
        out[key] = std::move(v);
      }
      keyStack.pop_back();
      skipSpace();
      if (pos >= end) return incomplete(pos);
      if (text[pos] == ',') {
        ++pos;
        continue;
      }
      if (text[pos] == '}') {
        ++pos;
        return true;
      }
      return fail(pos, "expected ',' or '}' after an object member, found " + describe(pos));
    }
  }

  /// One number element of a streamed array.
  SeriesOutcome seriesNumber(std::vector<double>& values) {
    skipSpace();
    if (pos >= end) return failIncomplete();
    const char c = text[pos];
    if (c == '-' || isDigit(c) || c == 'N' || c == 'I') {
      double v = 0;
      if (!numberValue(v)) return SeriesOutcome::Failed;
      values.push_back(v);
      return SeriesOutcome::Parsed;
    }
    if (startsValue(c)) return SeriesOutcome::Mismatch;
    fail(pos, "unexpected " + describe(pos) + "; expected a JSON value");
    return SeriesOutcome::Failed;
  }

  /// After an element: ',' (true, more follow) or ']' (false, done); sets `failed` otherwise.
  bool nextElement(bool& failed) {
    skipSpace();
    failed = false;
    if (pos >= end) {
      failed = true;
      incomplete(pos);
      return false;
    }
    if (text[pos] == ',') {
      ++pos;
      return true;
    }
    if (text[pos] == ']') {
      ++pos;
      return false;
    }
    failed = true;
    fail(pos, "expected ',' or ']' after an array element, found " + describe(pos));
    return false;
  }

  /// pos at '['. mode 0: numbers or lists of numbers; 1: strings kept; 2: strings counted.
  SeriesOutcome series(const std::string& pointer, int mode) {
    const std::size_t start = pos;
    JsonSeries s;
    s.byteOffset = start;
    ++pos;
    skipSpace();
    if (pos >= end) return failIncomplete();
    if (text[pos] == ']') {
      ++pos;
      doc->series[pointer] = std::move(s);
      return SeriesOutcome::Parsed;
    }
    const char first = text[pos];
    if (mode == 0) {
      s.kind = first == '[' ? JsonSeries::Kind::NumberLists : JsonSeries::Kind::Numbers;
    } else {
      s.kind = JsonSeries::Kind::Strings;
    }
    if (s.kind == JsonSeries::Kind::NumberLists) s.offsets.push_back(0);
    auto mismatch = [&]() {
      pos = start;
      return SeriesOutcome::Mismatch;
    };
    while (true) {
      if (!checkTick()) return SeriesOutcome::Failed;
      skipSpace();
      if (pos >= end) return failIncomplete();
      const char c = text[pos];
      if (s.kind == JsonSeries::Kind::Numbers) {
        const auto o = seriesNumber(s.values);
        if (o == SeriesOutcome::Mismatch) return mismatch();
        if (o == SeriesOutcome::Failed) return o;
      } else if (s.kind == JsonSeries::Kind::NumberLists) {
        if (c != '[') {
          if (startsValue(c)) return mismatch();
          fail(pos, "unexpected " + describe(pos) + "; expected a JSON value");
          return SeriesOutcome::Failed;
        }
        ++pos;
        skipSpace();
        if (pos < end && text[pos] == ']') {
          ++pos;
        } else {
          while (true) {
            const auto o = seriesNumber(s.values);
            if (o == SeriesOutcome::Mismatch) return mismatch();
            if (o == SeriesOutcome::Failed) return o;
            bool failed = false;
            if (!nextElement(failed)) {
              if (failed) return SeriesOutcome::Failed;
              break;
            }
          }
        }
        s.offsets.push_back(s.values.size());
      } else {
        if (c == '"') {
          if (mode == 1) {
            std::string str;
            if (!string(&str)) return SeriesOutcome::Failed;
            s.strings.push_back(std::move(str));
          } else if (!string(nullptr)) {
            return SeriesOutcome::Failed;
          }
        } else if (c == 'n') {
          if (!literal("null")) return SeriesOutcome::Failed;
          if (mode == 1) s.strings.emplace_back();
        } else if (startsValue(c)) {
          return mismatch();
        } else {
          fail(pos, "unexpected " + describe(pos) + "; expected a JSON value");
          return SeriesOutcome::Failed;
        }
      }
      ++s.count;
      bool failed = false;
      if (!nextElement(failed)) {
        if (failed) return SeriesOutcome::Failed;
        break;
      }
    }
    doc->series[pointer] = std::move(s);
    return SeriesOutcome::Parsed;
  }
};

JsonScanner::JsonScanner(std::string_view text, std::string label, const JsonSeriesKeys* keys,
                         Tick tick)
    : m_text(text), m_label(std::move(label)), m_keys(keys), m_tick(std::move(tick)) {}

Result<JsonDocument> JsonScanner::parseValue(std::size_t offset, std::size_t end,
                                             std::size_t lineStart, std::size_t line) {
  State st(m_text, m_label, m_keys, m_tick, m_lastTick);
  st.lineStart = lineStart;
  st.line = line;
  JsonDocument doc;
  st.doc = &doc;
  st.end = std::min(end, m_text.size());
  st.pos = skipJsonWhitespace(m_text, offset, st.end);
  doc.beginOffset = st.pos;
  bool ok = false;
  if (st.pos < st.end && m_text[st.pos] == '{') {
    const std::string topPrefix;
    ok = st.object(doc.dom, 1, &topPrefix);
  } else {
    ok = st.value(doc.dom, 0);
  }
  if (!ok) return *st.error;
  doc.endOffset = st.pos;
  return doc;
}

}  // namespace qf
