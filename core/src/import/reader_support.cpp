// What every format reader shares: positions in messages, typed fields, setup text, the
// series streamed instead of parsed into a DOM, warnings.
#include <nlohmann/json.hpp>

#include "import/formats.hpp"

namespace qf {

JsonReader fieldReader(const ImportContext& ctx, std::size_t line) {
  return ctx.multiDoc ? JsonReader(ctx.label, line) : JsonReader(ctx.label);
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
