#include <nlohmann/json.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/base/numbers.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

namespace qf {

std::string Error::str() const {
  std::string out = file;
  auto part = [&out](const std::string& text) { out += (out.empty() ? "" : ": ") + text; };
  if (!position.empty()) part(position);
  if (!field.empty()) part("field '" + field + "'");
  part(message);
  return out;
}

Result<std::string> readFileBytes(const std::string& path, std::uint64_t maxBytes) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    return Error{path, "", "", "file not found"};
  }
  if (std::filesystem::is_directory(status))
    return Error{path, "", "", "is a directory, not a file"};
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return Error{path, "", "", "cannot read file size: " + ec.message()};
  if (size > maxBytes) {
    return Error{path, "", "",
                 words("file is ", size, " bytes, larger than the ", maxBytes,
                       "-byte limit for this kind of file; refusing to load it")};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path, "", "", "cannot open file for reading"};
  std::string bytes(static_cast<std::size_t>(size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (static_cast<std::uint64_t>(in.gcount()) != size) {
    return Error{path, "", "", "short read: file changed while reading"};
  }
  return bytes;
}

std::string lineColumn(std::string_view text, std::size_t offset) {
  std::size_t line = 1, col = 1;
  const std::size_t end = std::min(offset, text.size());
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

namespace {
constexpr std::string_view kNanSentinel = "\x01qf:NaN";
constexpr std::string_view kPosInfSentinel = "\x01qf:+Inf";
constexpr std::string_view kNegInfSentinel = "\x01qf:-Inf";

bool startsWithToken(std::string_view text, std::size_t i, std::string_view token) {
  if (text.substr(i, token.size()) != token) return false;
  const std::size_t after = i + token.size();
  if (after < text.size()) {
    const char c = text[after];
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') return false;
  }
  return true;
}
}  // namespace

std::string escapeNonFinite(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      out.push_back(c);
      if (c == '\\' && i + 1 < text.size()) {
        out.push_back(text[++i]);
      } else if (c == '"') {
        inString = false;
      }
      continue;
    }
    if (c == '"') {
      inString = true;
      out.push_back(c);
    } else if (c == 'N' && startsWithToken(text, i, "NaN")) {
      out += "\"\\u0001qf:NaN\"";
      i += 2;
    } else if (c == 'I' && startsWithToken(text, i, "Infinity")) {
      out += "\"\\u0001qf:+Inf\"";
      i += 7;
    } else if (c == '-' && startsWithToken(text, i, "-Infinity")) {
      out += "\"\\u0001qf:-Inf\"";
      i += 8;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

void decodeNonFinite(Json& j) {
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s.size() > 1 && s[0] == '\x01') {
      if (s == kNanSentinel)
        j = std::numeric_limits<double>::quiet_NaN();
      else if (s == kPosInfSentinel)
        j = std::numeric_limits<double>::infinity();
      else if (s == kNegInfSentinel)
        j = -std::numeric_limits<double>::infinity();
    }
  } else if (j.is_structured()) {
    for (auto& child : j) decodeNonFinite(child);
  }
}

namespace {

struct DuplicateKey {
  std::string key;
};

struct TooLarge {
  std::uint64_t values = 0;
  std::string pointer;
};

/// nlohmann's DOM builder, refusing a key given twice in one object: nlohmann keeps the last
/// silently, so a GPU file's second "memory_gib" or a session's second "candidates" would win
/// unseen. (As fast as Json::parse; its callback form, which could see keys, is 1.7x slower.)
class StrictDom {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  explicit StrictDom(Json& root, std::uint64_t maxBytes) : m_root(root), m_maxBytes(maxBytes) {}
  bool null() { return put(Json(nullptr)); }
  bool boolean(bool v) { return put(Json(v)); }
  bool number_integer(number_integer_t v) { return put(Json(v)); }
  bool number_unsigned(number_unsigned_t v) { return put(Json(v)); }
  bool number_float(number_float_t v, const string_t& /*text*/) { return put(Json(v)); }
  bool string(string_t& v) { return put(Json(std::move(v))); }
  bool binary(binary_t& v) { return put(Json::binary(std::move(v))); }
  bool start_object(std::size_t /*size*/) {
    std::string name = slotName();
    m_stack.push_back(place(Json::object()));
    m_keys.push_back(std::move(name));
    return true;
  }
  bool key(string_t& k) {
    if (m_stack.back()->contains(k)) throw DuplicateKey{k};
    m_key = std::move(k);
    return true;
  }
  bool end_object() {
    m_stack.pop_back();
    m_keys.pop_back();
    return true;
  }
  bool start_array(std::size_t /*size*/) {
    std::string name = slotName();
    m_stack.push_back(place(Json::array()));
    m_keys.push_back(std::move(name));
    return true;
  }
  bool end_array() {
    m_stack.pop_back();
    m_keys.pop_back();
    return true;
  }
  template <class Exception>
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/, const Exception& e) {
    throw e;  // the concrete parse_error or out_of_range, as Json::parse throws it
  }

 private:
  // The key (or array index) the next value is placed under.
  std::string slotName() const {
    if (m_stack.empty()) return "";
    const Json& top = *m_stack.back();
    return top.is_array() ? std::to_string(top.size()) : m_key;
  }
  bool put(Json&& v) {
    place(std::move(v));
    return true;
  }
  Json* place(Json&& v) {
    // What the document costs in memory, counted as it grows (a value, its slot in an array
    // with the vector's spare room, or an object's tree node with its key, and a string's
    // characters): past the budget it is refused before the allocator fails.
    m_bytes += 24 + (v.is_string() ? v.get_ref<const std::string&>().size() : 0);
    if (!m_stack.empty() && m_stack.back()->is_object()) m_bytes += 64 + m_key.size();
    ++m_values;
    if (m_bytes > m_maxBytes) {
      std::string pointer;
      for (std::size_t i = 1; i < m_keys.size(); ++i) pointer = childPointer(pointer, m_keys[i]);
      throw TooLarge{m_values, pointer};
    }
    if (m_stack.empty()) {
      m_root = std::move(v);
      return &m_root;
    }
    Json& top = *m_stack.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    Json& slot = top[m_key];
    slot = std::move(v);
    return &slot;
  }
  Json& m_root;
  std::vector<Json*> m_stack;
  std::vector<std::string> m_keys;  // the key each open container sits under
  std::string m_key;
  std::uint64_t m_maxBytes;
  std::uint64_t m_bytes = 0;
  std::uint64_t m_values = 0;
};

/// Where a key given twice is given the second time: the second `"key":` in the text (a key
/// of the same name in an earlier object can make this the first repeat elsewhere; the name
/// and the line still lead to it).
std::string duplicateKeyPosition(std::string_view text, const std::string& key) {
  const std::string quoted = "\"" + key + "\"";
  int seen = 0;
  for (std::size_t at = text.find(quoted); at != std::string_view::npos;
       at = text.find(quoted, at + 1)) {
    std::size_t i = at + quoted.size();
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i < text.size() && text[i] == ':' && ++seen == 2) return lineColumn(text, at);
  }
  return "";
}

}  // namespace

Result<Json> parseJson(std::string_view text, const std::string& fileLabel, bool allowNonFinite,
                       std::uint64_t maxMemoryBytes) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return Error{fileLabel, "line 1, column 1", "", "file is empty; expected a JSON document"};
  }
  std::string escaped;
  std::string_view src = text;
  if (allowNonFinite) {
    escaped = escapeNonFinite(text);
    src = escaped;
  }
  try {
    Json j;
    StrictDom dom(j, maxMemoryBytes);
    Json::sax_parse(src.begin(), src.end(), &dom);
    if (allowNonFinite) decodeNonFinite(j);
    return j;
  } catch (const TooLarge& t) {
    return Error{fileLabel, t.pointer.empty() ? "" : t.pointer, "",
                 "the document would take more than " +
                     std::to_string(maxMemoryBytes / (1024 * 1024)) + " MiB in memory (" +
                     std::to_string(t.values) +
                     " JSON values read so far); refused before memory runs out"};
  } catch (const std::bad_alloc&) {
    return Error{fileLabel, "", "",
                 "out of memory reading " + std::to_string(text.size()) + " bytes of JSON"};
  } catch (const DuplicateKey& d) {
    return Error{fileLabel, duplicateKeyPosition(src, d.key), d.key,
                 "key '" + d.key + "' is given twice in one object; give it once"};
  } catch (const Json::out_of_range& e) {
    // A number beyond double ("1e400"): nlohmann names the token but not where it is.
    std::string what = e.what();
    std::string position;
    const auto q1 = what.find('\'');
    const auto q2 = q1 == std::string::npos ? q1 : what.find('\'', q1 + 1);
    if (q2 != std::string::npos) {
      const std::string token = what.substr(q1 + 1, q2 - q1 - 1);
      const auto at = token.empty() ? std::string_view::npos : src.find(token);
      if (at != std::string_view::npos) position = lineColumn(src, at);
      what = "number " + token + " is beyond the range of a double";
    }
    return Error{fileLabel, position, "", what};
  } catch (const Json::parse_error& e) {
    // e.byte is 1-based and points just past the offending character.
    const std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    std::string what = e.what();
    const auto cut = what.find("syntax error");
    if (cut != std::string::npos) what = what.substr(cut);
    if (!allowNonFinite) {
      // Name the field when the culprit is a bare NaN/Infinity (a Python json.dump habit).
      std::size_t tok = src.empty() ? 0 : std::min(offset, src.size() - 1);
      while (tok > 0 && std::isalpha(static_cast<unsigned char>(src[tok]))) --tok;
      if (tok < src.size() && !std::isalpha(static_cast<unsigned char>(src[tok]))) ++tok;
      if (tok > 0 && src[tok - 1] == '-') --tok;
      for (std::string_view bad : {"NaN", "Infinity", "-Infinity"}) {
        if (src.substr(tok, bad.size()) != bad) continue;
        std::string key;
        std::size_t i = tok;
        auto skipWs = [&] {
          while (i > 0 && std::isspace(static_cast<unsigned char>(src[i - 1]))) --i;
        };
        skipWs();
        if (i > 0 && src[i - 1] == ':') {
          --i;
          skipWs();
          if (i > 0 && src[i - 1] == '"') {
            const std::size_t end = --i;
            while (i > 0 && src[i - 1] != '"') --i;
            key = std::string(src.substr(i, end - i));
          }
        }
        return Error{fileLabel, lineColumn(src, tok), key,
                     std::string(bad) + " is not a number in JSON; expected a finite number"};
      }
    }
    return Error{fileLabel, lineColumn(src, offset), "", "not valid JSON: " + what};
  } catch (const Json::exception& e) {
    return Error{fileLabel, "", "", std::string("not readable as JSON: ") + e.what()};
  }
}

Result<Json> readJsonFile(const std::string& path, bool allowNonFinite, std::uint64_t maxBytes) {
  auto bytes = readFileBytes(path, maxBytes);
  if (!bytes) return bytes.error();
  return parseJson(*bytes, path, allowNonFinite);
}

std::string childPointer(const std::string& pointer, const std::string& key) {
  std::string out = pointer == "/" ? std::string() : pointer;
  out.push_back('/');
  for (const char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// JsonReader

namespace {
constexpr std::string_view kNaNText = "NaN";
constexpr std::string_view kInfText = "Infinity";
constexpr std::string_view kNegInfText = "-Infinity";
}  // namespace

std::optional<std::string> integerOutOfRange(std::int64_t v, std::int64_t lo, std::int64_t hi) {
  if (v >= lo && v <= hi) return std::nullopt;
  if (hi == std::numeric_limits<std::int64_t>::max()) {
    if (lo == 0) return "must not be negative, found " + std::to_string(v);
    return "must be at least " + std::to_string(lo) + ", found " + std::to_string(v);
  }
  return "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
}

Error JsonReader::missing(const std::string& pointer, const std::string& key,
                          const std::string& what) const {
  return error(childPointer(pointer, key), key, "required " + what + " is missing");
}

const Json* JsonReader::find(const Json& obj, const std::string& key) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string JsonReader::describe(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return "a number";
    default:
      return "an unsupported value";
  }
}

std::optional<Error> JsonReader::object(const Json& j, const std::string& pointer,
                                        const std::string& field,
                                        std::initializer_list<const char*> known) const {
  if (!j.is_object()) return error(pointer, field, "expected an object, found " + describe(j));
  for (auto it = j.begin(); it != j.end(); ++it) {
    const bool ok =
        std::any_of(known.begin(), known.end(), [&](const char* k) { return it.key() == k; });
    if (!ok) note("ignored unknown key " + childPointer(pointer, it.key()));
  }
  return std::nullopt;
}

Result<std::optional<double>> JsonReader::optNumber(const Json& obj, const std::string& pointer,
                                                    const std::string& key, bool positive,
                                                    bool finite) const {
  if (!obj.is_object()) return error(pointer, key, "expected an object here");
  const Json* v = find(obj, key);
  if (!v) return std::optional<double>{};
  const std::string ptr = childPointer(pointer, key);
  if (!v->is_number()) return error(ptr, key, "expected a number, found " + describe(*v));
  const double d = v->get<double>();
  if (finite && !std::isfinite(d)) {
    return error(ptr, key, "expected a finite number, found NaN or infinity");
  }
  if (positive && !(d > 0)) {
    return error(ptr, key, words("must be positive, found ", d));
  }
  return std::optional<double>{d};
}

Result<double> JsonReader::number(const Json& obj, const std::string& pointer,
                                  const std::string& key, bool positive) const {
  auto v = optNumber(obj, pointer, key, positive);
  if (!v) return v.error();
  if (!v->has_value()) return missing(pointer, key, "number");
  return **v;
}

Result<std::optional<double>> JsonReader::optNumberOrNumericString(const Json& obj,
                                                                   const std::string& pointer,
                                                                   const std::string& key) const {
  if (!obj.is_object()) return error(pointer, key, "expected an object here");
  const Json* v = find(obj, key);
  if (!v) return std::optional<double>();
  if (v->is_number()) return std::optional<double>(v->get<double>());
  const std::string ptr = childPointer(pointer, key);
  if (!v->is_string()) {
    return error(ptr, key, "expected a number or a numeric string, found " + describe(*v));
  }
  const auto& s = v->get_ref<const std::string&>();
  double d = 0;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (first != last && *first == '+') ++first;
  const auto r = std::from_chars(first, last, d);
  if (r.ec == std::errc() && r.ptr == last && first != last) return std::optional<double>(d);
  if (s == "inf" || s == "Infinity") return std::optional<double>(HUGE_VAL);
  if (s == "-inf" || s == "-Infinity") return std::optional<double>(-HUGE_VAL);
  if (s == "nan" || s == "NaN" || s == "-nan") return std::optional<double>(std::nan(""));
  return error(ptr, key,
               "expected a number written as a string, found \"" + s.substr(0, 40) + "\"");
}

Result<double> JsonReader::looseNumber(const Json& v, const std::string& pointer,
                                       const std::string& field) const {
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return error(pointer, field, "expected a number, found " + describe(v));
  const auto& s = v.get_ref<const std::string&>();
  if (s == kNaNText) return std::numeric_limits<double>::quiet_NaN();
  if (s == kInfText) return std::numeric_limits<double>::infinity();
  if (s == kNegInfText) return -std::numeric_limits<double>::infinity();
  return error(pointer, field,
               "expected a number (or \"NaN\", \"Infinity\", \"-Infinity\"), found the string '" +
                   s.substr(0, 40) + "'");
}

Result<std::optional<std::int64_t>> JsonReader::optInteger(const Json& obj,
                                                           const std::string& pointer,
                                                           const std::string& key, std::int64_t lo,
                                                           std::int64_t hi) const {
  if (!obj.is_object()) return error(pointer, key, "expected an object here");
  const Json* v = find(obj, key);
  if (!v) return std::optional<std::int64_t>{};
  const std::string ptr = childPointer(pointer, key);
  std::optional<std::int64_t> got;
  if (v->is_number_unsigned()) {
    const auto u = v->get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      got = static_cast<std::int64_t>(u);
    }
  } else if (v->is_number_integer()) {
    got = v->get<std::int64_t>();
  } else if (v->is_number_float()) {
    const double d = v->get<double>();
    if (!(std::isfinite(d) && std::floor(d) == d && std::abs(d) < 9.0e15)) {
      return error(ptr, key,
                   "expected an integer, found a non-integral number (" + v->dump() + ")");
    }
    got = static_cast<std::int64_t>(d);
  } else {
    return error(ptr, key, "expected an integer, found " + describe(*v));
  }
  if (!got) {
    return error(ptr, key,
                 "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
  }
  if (auto problem = integerOutOfRange(*got, lo, hi)) return error(ptr, key, *problem);
  return got;
}

Result<std::int64_t> JsonReader::integer(const Json& obj, const std::string& pointer,
                                         const std::string& key, std::int64_t lo,
                                         std::int64_t hi) const {
  auto v = optInteger(obj, pointer, key, lo, hi);
  if (!v) return v.error();
  if (!v->has_value()) return missing(pointer, key, "integer");
  return **v;
}

Result<std::optional<std::string>> JsonReader::optString(const Json& obj,
                                                         const std::string& pointer,
                                                         const std::string& key,
                                                         bool allowEmpty) const {
  if (!obj.is_object()) return error(pointer, key, "expected an object here");
  const Json* v = find(obj, key);
  if (!v) return std::optional<std::string>{};
  const std::string ptr = childPointer(pointer, key);
  if (!v->is_string()) return error(ptr, key, "expected a string, found " + describe(*v));
  if (!allowEmpty && v->get_ref<const std::string&>().empty()) {
    return error(ptr, key, "must not be empty");
  }
  return std::optional<std::string>{v->get<std::string>()};
}

Result<std::string> JsonReader::string(const Json& obj, const std::string& pointer,
                                       const std::string& key, bool allowEmpty) const {
  auto v = optString(obj, pointer, key, allowEmpty);
  if (!v) return v.error();
  if (!v->has_value()) return missing(pointer, key, "string");
  return std::move(**v);
}

Result<std::optional<bool>> JsonReader::optBoolean(const Json& obj, const std::string& pointer,
                                                   const std::string& key) const {
  if (!obj.is_object()) return error(pointer, key, "expected an object here");
  const Json* v = find(obj, key);
  if (!v) return std::optional<bool>{};
  if (!v->is_boolean()) {
    return error(childPointer(pointer, key), key, "expected true or false, found " + describe(*v));
  }
  return std::optional<bool>{v->get<bool>()};
}

Result<std::optional<std::vector<std::string>>> JsonReader::optStringList(
    const Json& obj, const std::string& pointer, const std::string& key,
    bool allowEmptyItems) const {
  using List = std::optional<std::vector<std::string>>;
  if (!obj.is_object()) return error(pointer, key, "expected an object here");
  const Json* v = find(obj, key);
  if (!v) return List{};
  const std::string ptr = childPointer(pointer, key);
  if (!v->is_array()) return error(ptr, key, "expected an array of strings, found " + describe(*v));
  std::vector<std::string> out;
  out.reserve(v->size());
  for (std::size_t i = 0; i < v->size(); ++i) {
    const Json& item = (*v)[i];
    const std::string ip = childPointer(ptr, std::to_string(i));
    if (!item.is_string()) return error(ip, key, "expected a string, found " + describe(item));
    if (!allowEmptyItems && item.get_ref<const std::string&>().empty()) {
      return error(ip, key, "must not be empty");
    }
    out.push_back(item.get<std::string>());
  }
  return List{std::move(out)};
}

std::optional<Error> JsonReader::readNumber(double& out, const Json& obj,
                                            const std::string& pointer, const std::string& key,
                                            bool positive) const {
  auto r = number(obj, pointer, key, positive);
  if (!r) return r.error();
  out = *r;
  return std::nullopt;
}

std::optional<Error> JsonReader::readOptNumber(double& out, const Json& obj,
                                               const std::string& pointer, const std::string& key,
                                               bool positive) const {
  auto r = optNumber(obj, pointer, key, positive);
  if (!r) return r.error();
  if (r->has_value()) out = **r;
  return std::nullopt;
}

std::optional<Error> JsonReader::readOptNumber(std::optional<double>& out, const Json& obj,
                                               const std::string& pointer,
                                               const std::string& key) const {
  auto r = optNumber(obj, pointer, key);
  if (!r) return r.error();
  if (r->has_value()) out = **r;
  return std::nullopt;
}

std::optional<Error> JsonReader::readLooseNumber(double& out, const Json& obj,
                                                 const std::string& pointer, const std::string& key,
                                                 bool required) const {
  const Json* v = find(obj, key);
  if (!v) return required ? std::optional<Error>(missing(pointer, key, "number")) : std::nullopt;
  auto r = looseNumber(*v, childPointer(pointer, key), key);
  if (!r) return r.error();
  out = *r;
  return std::nullopt;
}

std::optional<Error> JsonReader::readInteger(std::int64_t& out, const Json& obj,
                                             const std::string& pointer, const std::string& key,
                                             bool required, std::int64_t lo,
                                             std::int64_t hi) const {
  auto r = optInteger(obj, pointer, key, lo, hi);
  if (!r) return r.error();
  if (r->has_value()) {
    out = **r;
  } else if (required) {
    return missing(pointer, key, "integer");
  }
  return std::nullopt;
}

std::optional<Error> JsonReader::readString(std::string& out, const Json& obj,
                                            const std::string& pointer, const std::string& key,
                                            bool required, bool allowEmpty) const {
  auto r = optString(obj, pointer, key, allowEmpty);
  if (!r) return r.error();
  if (r->has_value()) {
    out = std::move(**r);
  } else if (required) {
    return missing(pointer, key, "string");
  }
  return std::nullopt;
}

std::optional<Error> JsonReader::readBoolean(bool& out, const Json& obj, const std::string& pointer,
                                             const std::string& key) const {
  auto r = optBoolean(obj, pointer, key);
  if (!r) return r.error();
  if (r->has_value()) out = **r;
  return std::nullopt;
}

std::optional<Error> JsonReader::readStringList(std::vector<std::string>& out, const Json& obj,
                                                const std::string& pointer, const std::string& key,
                                                bool required, bool allowEmptyItems) const {
  auto r = optStringList(obj, pointer, key, allowEmptyItems);
  if (!r) return r.error();
  if (r->has_value()) {
    out = std::move(**r);
  } else if (required) {
    return missing(pointer, key, "array");
  }
  return std::nullopt;
}

std::string JsonReader::stringOr(const Json& obj, const std::string& key,
                                 const std::string& fallback) {
  const Json* v = find(obj, key);
  return v && v->is_string() ? v->get<std::string>() : fallback;
}

double JsonReader::numberOr(const Json& obj, const std::string& key, double fallback) {
  const Json* v = find(obj, key);
  return v && v->is_number() ? v->get<double>() : fallback;
}

bool JsonReader::booleanOr(const Json& obj, const std::string& key, bool fallback) {
  const Json* v = find(obj, key);
  return v && v->is_boolean() ? v->get<bool>() : fallback;
}

}  // namespace qf
