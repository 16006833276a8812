// What every format reader shares: positions in messages, typed fields, setup text, the
// series streamed instead of parsed into a DOM, warnings.
#include <charconv>
#include <cmath>

#include <nlohmann/json.hpp>

#include "import/formats.hpp"

namespace qf {

std::string FieldReader::position(const std::string& pointer) const {
  std::string p = pointer.empty() ? std::string("/") : pointer;
  if (m_ctx.multiDoc) return "line " + std::to_string(m_line) + ", " + p;
  return p;
}

Error FieldReader::error(const std::string& pointer, const std::string& field,
                         const std::string& message) const {
  return Error{m_ctx.label, position(pointer), field, message};
}

namespace {
const char* typeName(const Json& v) {
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "something else";
}
}  // namespace

Result<std::optional<double>> FieldReader::number(const Json& obj, const std::string& objPointer,
                                                  const std::string& key) const {
  if (!obj.is_object()) return error(objPointer, key, "expected an object here");
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<double>();
  if (!it->is_number()) {
    return error(childPointer(objPointer, key), key,
                 std::string("expected a number, found ") + typeName(*it));
  }
  return std::optional<double>(it->get<double>());
}

Result<std::optional<double>> FieldReader::numberOrNumericString(const Json& obj,
                                                                 const std::string& objPointer,
                                                                 const std::string& key) const {
  if (!obj.is_object()) return error(objPointer, key, "expected an object here");
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<double>();
  if (it->is_number()) return std::optional<double>(it->get<double>());
  if (it->is_string()) {
    const auto& s = it->get_ref<const std::string&>();
    double v = 0;
    const char* first = s.data();
    const char* last = s.data() + s.size();
    if (first != last && *first == '+') ++first;
    const auto r = std::from_chars(first, last, v);
    if (r.ec == std::errc() && r.ptr == last && first != last) return std::optional<double>(v);
    if (s == "inf" || s == "Infinity") return std::optional<double>(HUGE_VAL);
    if (s == "-inf" || s == "-Infinity") return std::optional<double>(-HUGE_VAL);
    if (s == "nan" || s == "NaN" || s == "-nan") return std::optional<double>(std::nan(""));
    return error(childPointer(objPointer, key), key,
                 "expected a number written as a string, found \"" + s.substr(0, 40) + "\"");
  }
  return error(childPointer(objPointer, key), key,
               std::string("expected a number or a numeric string, found ") + typeName(*it));
}

std::string setupText(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_null()) return "none";
  if (value.is_number_integer()) {
    return value.is_number_unsigned() ? std::to_string(value.get<std::uint64_t>())
                                      : std::to_string(value.get<std::int64_t>());
  }
  if (value.is_number()) return formatNumber(value.get<double>());
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 2000) text = text.substr(0, 2000) + "...";
  return text;
}

const JsonSeriesKeys& importSeriesKeys() {
  static const JsonSeriesKeys keys = [] {
    JsonSeriesKeys k;
    k.numeric = {"ttfts",     "itls",        "input_lens", "output_lens",
                 "latencies", "queue_times", "start_times"};
    k.keptStrings = {"errors"};
    k.skippedStrings = {"generated_texts"};
    k.nestedObjects = {"details"};
    return k;
  }();
  return keys;
}

std::string warningText(const Error& e, const std::string& tail) {
  std::string out = e.position.empty() ? std::string() : e.position + ": ";
  if (!e.field.empty()) out += "field '" + e.field + "': ";
  return out + e.message + tail;
}

std::string joinNames(const std::vector<std::string>& names, std::size_t limit) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (limit > 0 && i == limit) {
      out += ", ... (" + std::to_string(names.size() - limit) + " more)";
      break;
    }
    if (i > 0) out += ", ";
    out += names[i];
  }
  return out;
}

bool hasKey(const JsonDocument& doc, const char* key) {
  return doc.dom.contains(key) || doc.series.count(std::string("/") + key) > 0;
}

bool isObjectKey(const JsonDocument& doc, const char* key) {
  const auto it = doc.dom.find(key);
  return it != doc.dom.end() && it->is_object();
}

}  // namespace qf
