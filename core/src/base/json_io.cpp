#include <nlohmann/json.hpp>
#include <quantfront/core/base/json_io.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <quantfront/core/base/resources.hpp>

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
    std::ostringstream msg;
    msg << "file is " << size << " bytes, larger than the " << maxBytes
        << "-byte limit for this kind of file; refusing to load it";
    return Error{path, "", "", msg.str()};
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

Result<Json> parseJson(std::string_view text, const std::string& fileLabel, bool allowNonFinite) {
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
    Json j = Json::parse(src.begin(), src.end());
    if (allowNonFinite) decodeNonFinite(j);
    return j;
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

Result<std::optional<double>> JsonReader::optNumber(const Json& obj, const std::string& pointer,
                                                    const std::string& key, bool positive) const {
  if (!obj.is_object()) return error(pointer, key, "expected an object here");
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<double>{};
  const std::string ptr = childPointer(pointer, key);
  if (!it->is_number()) {
    return error(ptr, key, std::string("expected a number, found ") + it->type_name());
  }
  const double v = it->get<double>();
  if (!std::isfinite(v)) return error(ptr, key, "expected a finite number, found NaN or infinity");
  if (positive && !(v > 0)) {
    std::ostringstream msg;
    msg << "must be positive, found " << v;
    return error(ptr, key, msg.str());
  }
  return std::optional<double>{v};
}

Result<double> JsonReader::number(const Json& obj, const std::string& pointer,
                                  const std::string& key, bool positive) const {
  auto v = optNumber(obj, pointer, key, positive);
  if (!v) return v.error();
  if (!v->has_value()) return error(childPointer(pointer, key), key, "required number is missing");
  return **v;
}

Result<std::optional<std::int64_t>> JsonReader::optInteger(const Json& obj,
                                                           const std::string& pointer,
                                                           const std::string& key) const {
  if (!obj.is_object()) return error(pointer, key, "expected an object here");
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<std::int64_t>{};
  const std::string ptr = childPointer(pointer, key);
  if (it->is_number_integer()) {
    const auto v = it->get<std::int64_t>();
    if (v < 0) return error(ptr, key, "must not be negative, found " + std::to_string(v));
    return std::optional<std::int64_t>{v};
  }
  if (it->is_number_float()) {
    const double d = it->get<double>();
    if (std::isfinite(d) && d >= 0 && std::floor(d) == d && d < 9.0e15) {
      return std::optional<std::int64_t>{static_cast<std::int64_t>(d)};
    }
  }
  return error(ptr, key, std::string("expected a non-negative integer, found ") + it->dump());
}

Result<std::int64_t> JsonReader::integer(const Json& obj, const std::string& pointer,
                                         const std::string& key) const {
  auto v = optInteger(obj, pointer, key);
  if (!v) return v.error();
  if (!v->has_value()) return error(childPointer(pointer, key), key, "required integer is missing");
  return **v;
}

Result<std::string> JsonReader::string(const Json& obj, const std::string& pointer,
                                       const std::string& key) const {
  if (!obj.is_object()) return error(pointer, key, "expected an object here");
  const auto it = obj.find(key);
  const std::string ptr = childPointer(pointer, key);
  if (it == obj.end() || it->is_null()) return error(ptr, key, "required string is missing");
  if (!it->is_string())
    return error(ptr, key, std::string("expected a string, found ") + it->type_name());
  return it->get<std::string>();
}

std::optional<std::string_view> bundledFile(std::string_view path) {
  for (const auto& f : embedded::files()) {
    if (path == f.path) return std::string_view(f.data, f.sizeBytes);
  }
  return std::nullopt;
}

std::vector<std::string> bundledFilesUnder(std::string_view prefix) {
  std::vector<std::string> out;
  for (const auto& f : embedded::files()) {
    if (std::string_view(f.path).starts_with(prefix)) out.emplace_back(f.path);
  }
  std::sort(out.begin(), out.end());
  return out;
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

}  // namespace qf
