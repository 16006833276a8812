// lm-evaluation-harness per-sample JSONL (`--log_samples`): one JSON object per line, one line
// per (doc_id, filter). Spec: shared/spec/formats.md, "lm-evaluation-harness".
#include <cmath>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/import/importers.hpp>

#include "import/formats.hpp"

namespace qf {

namespace {

/// Per-sample files can be large (the full document and prompt sit on every line).
constexpr std::uint64_t kMaxSamplesFileBytes = 2ull * 1024 * 1024 * 1024;

/// Task from a file name "samples_<task>_<date>.jsonl"; empty when the name has another shape.
/// The date (e.g. 2024-06-11T14-57-26.912355) has no underscore; the task may have several.
std::string taskFromFileName(const std::string& label) {
  const std::string name = std::filesystem::path(label).filename().string();
  constexpr std::string_view kPrefix = "samples_";
  constexpr std::string_view kSuffix = ".jsonl";
  if (name.size() <= kPrefix.size() + kSuffix.size() || !name.starts_with(kPrefix) ||
      !name.ends_with(kSuffix)) {
    return {};
  }
  const std::string stem =
      name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  const auto cut = stem.rfind('_');
  if (cut == std::string::npos || cut == 0) return {};
  return stem.substr(0, cut);
}

std::string position(std::size_t line, std::size_t column) {
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

bool hasNonFiniteToken(std::string_view s) {
  return s.find("NaN") != std::string_view::npos || s.find("Infinity") != std::string_view::npos;
}

}  // namespace

Result<std::vector<SampleRecord>> parseLmEvalSamples(std::string_view bytes,
                                                     const std::string& label) {
  std::vector<SampleRecord> out;
  const std::string fileTask = taskFromFileName(label);
  std::size_t lineNo = 0;
  std::size_t start = 0;
  while (start < bytes.size()) {
    std::size_t end = bytes.find('\n', start);
    if (end == std::string_view::npos) end = bytes.size();
    std::string_view line = bytes.substr(start, end - start);
    start = end + 1;
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;

    // Python's json module writes bare NaN/Infinity; accept those (and only those).
    std::string escaped;
    std::string_view src = line;
    if (hasNonFiniteToken(line)) {
      escaped = escapeNonFinite(line);
      src = escaped;
    }
    Json j;
    try {
      j = Json::parse(src.begin(), src.end());
    } catch (const Json::parse_error& e) {
      std::string what = e.what();
      const auto cut = what.find("syntax error");
      if (cut != std::string::npos) what = what.substr(cut);
      return Error{label, position(lineNo, e.byte > 0 ? e.byte : 1), "", "not valid JSON: " + what};
    }
    if (!escaped.empty()) decodeNonFinite(j);
    if (!j.is_object()) {
      return Error{label, position(lineNo, 1), "",
                   std::string("expected one JSON object per line, found ") + j.type_name()};
    }
    const auto at = [&](const std::string& field, const std::string& msg) {
      return Error{label, position(lineNo, 1), field, msg};
    };
    SampleRecord r;
    const auto id = j.find("doc_id");
    if (id == j.end()) return at("doc_id", "required integer is missing");
    if (id->is_number_integer()) {
      r.docId = id->get<std::int64_t>();
    } else if (id->is_number_float() && std::isfinite(id->get<double>()) &&
               std::floor(id->get<double>()) == id->get<double>() &&
               std::abs(id->get<double>()) < 9.0e15) {
      r.docId = static_cast<std::int64_t>(id->get<double>());
    } else {
      return at("doc_id", "expected an integer, found " + id->dump());
    }
    const auto str = [&](const char* key, std::string& dst) -> std::optional<Error> {
      const auto it = j.find(key);
      if (it == j.end() || it->is_null()) return std::nullopt;
      if (!it->is_string()) {
        return at(key, std::string("expected a string, found ") + it->type_name());
      }
      dst = it->get<std::string>();
      return std::nullopt;
    };
    if (auto e = str("task", r.task)) return *e;
    if (r.task.empty()) r.task = fileTask;
    r.filter = "none";
    if (auto e = str("filter", r.filter)) return *e;
    if (auto e = str("doc_hash", r.docHash)) return *e;
    if (auto e = str("prompt_hash", r.promptHash)) return *e;
    if (const auto t = j.find("target"); t != j.end() && !t->is_null()) {
      r.target = t->is_string() ? t->get<std::string>() : t->dump();
    }
    // Metric names come from "metrics"; without that list, every top-level number but doc_id.
    const auto names = j.find("metrics");
    const auto take = [&](const std::string& key, const Json& v) {
      if (v.is_boolean())
        r.metrics[key] = v.get<bool>() ? 1.0 : 0.0;
      else if (v.is_number())
        r.metrics[key] = v.get<double>();
    };
    if (names != j.end() && !names->is_null()) {
      if (!names->is_array()) {
        return at("metrics",
                  std::string("expected a list of metric names, found ") + names->type_name());
      }
      for (const auto& n : *names) {
        if (!n.is_string())
          return at("metrics", "expected metric names as strings, found " + n.dump());
        const std::string key = n.get<std::string>();
        const auto v = j.find(key);
        // Corpus-level metrics (bleu, ...) keep per-sample lists; they are not per-question scores.
        if (v != j.end()) take(key, *v);
      }
    } else {
      for (const auto& [key, v] : j.items()) {
        if (key != "doc_id") take(key, v);
      }
    }
    out.push_back(std::move(r));
  }
  if (out.empty()) {
    return Error{label, "line 1, column 1", "",
                 "no sample lines found; expected lm-eval per-sample JSONL"};
  }
  return out;
}

Result<std::vector<SampleRecord>> readLmEvalSamples(const std::string& path) {
  auto bytes = readFileBytes(path, kMaxSamplesFileBytes);
  if (!bytes) return bytes.error();
  return parseLmEvalSamples(*bytes, path);
}

namespace {
bool detect(const JsonDocument& doc) {
  return hasKey(doc, "doc_id") &&
         (hasKey(doc, "resps") || hasKey(doc, "filtered_resps") || hasKey(doc, "doc_hash"));
}
}  // namespace

FormatReader lmEvalSamplesReader() {
  return {.name = importformat::kLmEvalSamples,
          .kind = RunKind::EvalSamples,
          .tool = "lm-evaluation-harness",
          .detect = &detect,
          .refusal = "per-sample lm-eval file: use `qfront stats paired`"};
}

}  // namespace qf
