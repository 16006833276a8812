// importFile / importBytes: size limits, JSON vs JSON lines, format detection from content,
// dispatch to the per-format readers, and the report of what was read and skipped.
#include <nlohmann/json.hpp>
#include <quantfront/core/import/importers.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include <quantfront/core/base/hash.hpp>
#include "import/formats.hpp"
#include <quantfront/core/base/json_io.hpp>

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

std::string detectFormat(const JsonDocument& doc) {
  const Json& o = doc.dom;
  if (!o.is_object()) return {};
  auto has = [&](const char* key) {
    return o.contains(key) || doc.series.count(std::string("/") + key) > 0;
  };
  auto isObject = [&](const char* key) {
    const auto it = o.find(key);
    return it != o.end() && it->is_object();
  };
  if (has("doc_id") && (has("resps") || has("filtered_resps") || has("doc_hash"))) {
    return importformat::kLmEvalSamples;
  }
  if (isObject("results") &&
      (has("versions") || has("config") || has("n-shot") || has("higher_is_better") ||
       has("configs") || has("n-samples") || has("lm_eval_version") || has("model_name"))) {
    return importformat::kLmEvalResults;
  }
  {
    const auto b = o.find("benchmarks");
    if (b != o.end() && b->is_array() && (has("devices") || has("meta"))) {
      return importformat::kNvbench;
    }
  }
  if (has("accuracy") &&
      (has("invalid_rate") || has("questions_per_second") || has("num_questions"))) {
    return importformat::kGsm8kEval;
  }
  if (has("elapsed_time") && (has("requests_per_second") || has("tokens_per_second"))) {
    return importformat::kVllmThroughput;
  }
  if (has("avg_latency") || (has("latencies") && isObject("percentiles") && !has("ttfts"))) {
    return importformat::kVllmLatency;
  }
  if (has("median_decode_latency") || has("prefill_latency") ||
      (has("run_name") && has("batch_size"))) {
    return importformat::kSglangOneBatch;
  }
  // Serving benchmarks: vLLM's and SGLang's outputs share most keys; count the telling ones.
  int vllm = 0, sglang = 0, serving = 0;
  for (const char* key : {"request_throughput", "mean_ttft_ms", "median_ttft_ms", "completed",
                          "duration", "ttfts", "output_throughput", "total_input_tokens"}) {
    if (has(key)) ++serving;
  }
  for (const char* key :
       {"date", "model_id", "tokenizer_id", "num_prompts", "burstiness", "request_goodput",
        "request_goodput:", "failed", "total_token_throughput", "max_output_tokens_per_s",
        "best_of", "use_beam_search", "endpoint_type", "label", "mean_e2el_ms"}) {
    if (has(key)) ++vllm;
  }
  for (const char* key :
       {"dataset_name", "random_input_len", "random_output_len", "random_range_ratio",
        "sharegpt_output_len", "total_output_tokens_retokenized", "accept_length", "concurrency",
        "mean_e2e_latency_ms", "median_e2e_latency_ms", "p95_itl_ms"}) {
    if (has(key)) ++sglang;
  }
  if (isObject("details")) sglang += 2;
  const auto rate = o.find("request_rate");
  if (rate != o.end() && rate->is_number() && !std::isfinite(rate->get<double>())) sglang += 2;
  if (serving == 0 && vllm + sglang < 2) return {};
  if (serving == 0 && !has("mean_ttft_ms") && vllm + sglang < 3) return {};
  return sglang > vllm ? importformat::kSglangServing : importformat::kVllmServe;
}

namespace {

/// Bad lines of a JSON-lines file named one by one; the rest are counted.
constexpr std::size_t kMaxLineWarnings = 50;

std::string keyList(const Json& o) {
  std::vector<std::string> keys;
  for (auto it = o.begin(); it != o.end() && keys.size() < 12; ++it) keys.push_back(it.key());
  std::string out;
  for (std::size_t i = 0; i < keys.size(); ++i) out += (i ? ", " : "") + keys[i];
  if (o.size() > keys.size()) out += ", ...";
  return out;
}

std::string warningText(const Error& e, const std::string& tail) {
  std::string out = e.position.empty() ? std::string() : e.position + ": ";
  if (!e.field.empty()) out += "field '" + e.field + "': ";
  return out + e.message + tail;
}

std::string describeByte(std::string_view text, std::size_t at) {
  const auto c = static_cast<unsigned char>(text[at]);
  if (c >= 0x21 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
  static const char* const kHex = "0123456789ABCDEF";
  return std::string("byte 0x") + kHex[c >> 4] + kHex[c & 0xf];
}

std::size_t lineOf(std::string_view text, std::size_t offset) {
  return static_cast<std::size_t>(
             std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n')) +
         1;
}

Result<ImportReport> importText(std::string_view text, const std::string& label,
                                const ImportOptions& opts) {
  ImportReport report;
  report.file = label;
  report.sha256 = sha256Hex(text);
  if (opts.progress && !opts.progress(0.1)) return Error{label, "", "", "cancelled"};

  std::size_t start = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") start = 3;  // a UTF-8 byte-order mark
  const std::size_t first = skipJsonWhitespace(text, start, text.size());
  if (first >= text.size()) {
    return Error{label, "line 1, column 1", "",
                 "file is empty: expected a JSON benchmark or eval result"};
  }
  if (text[first] != '{' && text[first] != '[') {
    return Error{label, lineColumn(text, first), "format",
                 "unknown format: expected a JSON object ('{') or JSON lines, found " +
                     describeByte(text, first)};
  }

  const double sizeBytes = static_cast<double>(std::max<std::size_t>(text.size(), 1));
  JsonScanner::Tick tick;
  if (opts.progress) {
    // Never backwards: a second, line-by-line pass restarts the offsets.
    tick = [&opts, sizeBytes, reported = 0.1](std::size_t offset) mutable {
      reported = std::max(reported, 0.1 + 0.8 * static_cast<double>(offset) / sizeBytes);
      return opts.progress(reported);
    };
  }
  JsonScanner scanner(text, label, &importSeriesKeys(), tick);

  // Whole-text reading first: one document (compact or pretty-printed) or several values in
  // a row (JSON lines, --append-result). Any syntax error there is fatal unless reading line
  // by line (one value per line, bad lines skipped) recovers values of a known format: then
  // the file is JSON lines with some bad lines.
  std::vector<ImportedDoc> docs;
  std::size_t valuesSeen = 0;
  std::optional<Error> wholeError;
  {
    std::size_t pos = first;
    std::size_t countedTo = 0, countedLine = 1;  // incremental line numbers
    while (pos < text.size()) {
      auto doc = scanner.parseValue(pos, text.size());
      if (!doc) {
        wholeError = doc.error();
        break;
      }
      countedLine += lineOf(text.substr(countedTo, doc->beginOffset - countedTo),
                            doc->beginOffset - countedTo) -
                     1;
      countedTo = doc->beginOffset;
      const std::size_t nlBefore = text.rfind('\n', doc->beginOffset);
      const std::size_t lineStart = nlBefore == std::string_view::npos ? 0 : nlBefore + 1;
      pos = skipJsonWhitespace(text, doc->endOffset, text.size());
      docs.push_back(ImportedDoc{std::move(*doc), countedLine, lineStart});
    }
    valuesSeen = docs.size();
  }
  if (wholeError) {
    if (wholeError->message == "cancelled") return *wholeError;
    docs.clear();
    std::vector<std::string> lineWarnings;
    std::size_t lineNumber = lineOf(text, first);
    const std::size_t nl = text.rfind('\n', first);
    std::size_t begin = nl == std::string_view::npos ? start : nl + 1;
    valuesSeen = 0;
    while (begin < text.size()) {
      const std::size_t end = std::min(text.find('\n', begin), text.size());
      const std::size_t valueStart = skipJsonWhitespace(text, begin, end);
      if (valueStart < end) {
        ++valuesSeen;
        auto doc = scanner.parseValue(valueStart, end, begin, lineNumber);
        if (!doc) {
          if (doc.error().message == "cancelled") return doc.error();
          lineWarnings.push_back(warningText(doc.error(), "; line skipped"));
        } else {
          const std::size_t rest = skipJsonWhitespace(text, doc->endOffset, end);
          if (rest < end) {
            const Error e{label, lineColumnFrom(text, begin, lineNumber, rest), "",
                          "unexpected " + describeByte(text, rest) +
                              " after the JSON value (one value per line expected)"};
            lineWarnings.push_back(warningText(e, "; line skipped"));
          } else {
            docs.push_back(ImportedDoc{std::move(*doc), lineNumber, begin});
          }
        }
      }
      begin = end + 1;
      ++lineNumber;
    }
    const bool recovered = std::any_of(docs.begin(), docs.end(), [](const ImportedDoc& d) {
      return !detectFormat(d.doc).empty();
    });
    if (!recovered) return *wholeError;
    if (lineWarnings.size() > kMaxLineWarnings) {
      const std::size_t more = lineWarnings.size() - kMaxLineWarnings;
      lineWarnings.resize(kMaxLineWarnings);
      lineWarnings.push_back(std::to_string(more) + " more bad lines skipped");
    }
    report.warnings = std::move(lineWarnings);
  }

  // The file's format: that of the first value whose format is recognised.
  std::string format;
  for (const auto& d : docs) {
    format = detectFormat(d.doc);
    if (!format.empty()) break;
  }
  const ImportedDoc& head = docs.front();
  if (format.empty()) {
    const std::string where = lineColumnFrom(text, head.lineStart, head.line, head.doc.beginOffset);
    if (!head.doc.dom.is_object()) {
      return Error{label, where, "format",
                   std::string("unknown format: the top-level JSON value is ") +
                       (head.doc.dom.is_array() ? "an array" : "not an object") +
                       "; none of the supported benchmark or eval files is"};
    }
    return Error{label, where, "format",
                 "unknown format: not a vLLM bench serve/latency/throughput, SGLang "
                 "bench_serving/bench_one_batch, lm-eval results, gsm8k_eval or nvbench JSON "
                 "file (keys: " +
                     keyList(head.doc.dom) + ")"};
  }
  if (format == importformat::kLmEvalSamples) {
    return Error{label, lineColumnFrom(text, head.lineStart, head.line, head.doc.beginOffset),
                 "format", "per-sample lm-eval file: use `qfront stats paired`"};
  }
  report.format = format;
  ImportContext ctx{label, report.sha256, valuesSeen > 1};

  // Keep the values of this format; refuse bare NaN/Infinity outside SGLang bench_serving.
  std::vector<ImportedDoc*> mine;
  std::optional<Error> firstError;
  for (auto& d : docs) {
    const std::string f = detectFormat(d.doc);
    if (f != format) {
      Error e{label, lineColumnFrom(text, d.lineStart, d.line, d.doc.beginOffset), "format",
              f.empty()
                  ? std::string("value of an unknown format (file is ").append(format) + ")"
                  : std::string("value looks like ").append(f).append(", not ").append(format)};
      if (!firstError) firstError = e;
      report.warnings.push_back(warningText(e, "; skipped"));
      continue;
    }
    if (d.doc.nonFiniteOffset && format != importformat::kSglangServing) {
      Error e{label, lineColumnFrom(text, d.lineStart, d.line, *d.doc.nonFiniteOffset),
              d.doc.nonFiniteField,
              "bare NaN or Infinity is not valid JSON (only SGLang bench_serving files may "
              "carry it); expected a number"};
      if (!firstError) firstError = e;
      report.warnings.push_back(warningText(e, "; value skipped"));
      continue;
    }
    mine.push_back(&d);
  }

  if (format == importformat::kSglangOneBatch) {
    if (!mine.empty()) {
      auto runs = importSglangOneBatch(mine, ctx, report.warnings);
      if (runs) {
        report.runs = std::move(*runs);
      } else if (!firstError) {
        firstError = runs.error();
      }
    }
  } else {
    for (ImportedDoc* d : mine) {
      Result<ImportedRun> run = Error{};
      if (format == importformat::kVllmServe)
        run = importVllmServe(*d, ctx);
      else if (format == importformat::kSglangServing)
        run = importSglangServing(*d, ctx);
      else if (format == importformat::kVllmLatency)
        run = importVllmLatency(*d, ctx);
      else if (format == importformat::kVllmThroughput)
        run = importVllmThroughput(*d, ctx);
      else if (format == importformat::kLmEvalResults)
        run = importLmEvalResults(*d, ctx);
      else if (format == importformat::kGsm8kEval)
        run = importGsm8kEval(*d, ctx);
      else if (format == importformat::kNvbench)
        run = importNvbench(*d, ctx);
      if (!run) {
        if (!firstError) firstError = run.error();
        if (ctx.multiDoc) report.warnings.push_back(warningText(run.error(), "; value skipped"));
        continue;
      }
      report.runs.push_back(std::move(*run));
      // Free the per-request arrays' source as soon as the run holds them.
      d->doc = JsonDocument{};
    }
  }
  if (report.runs.empty()) {
    if (firstError) return *firstError;
    return Error{label, "", "format", "no " + format + " results could be read"};
  }
  if (opts.progress && !opts.progress(1.0)) return Error{label, "", "", "cancelled"};
  return report;
}

}  // namespace

Result<ImportReport> importBytes(std::string_view bytes, const std::string& label,
                                 const ImportOptions& opts) {
  if (bytes.size() > opts.maxBytes) {
    std::ostringstream msg;
    msg << "input is " << bytes.size() << " bytes, larger than the " << opts.maxBytes
        << "-byte import limit; refusing to import it";
    return Error{label, "", "", msg.str()};
  }
  return importText(bytes, label, opts);
}

Result<ImportReport> importFile(const std::string& path, const ImportOptions& opts) {
  if (opts.progress && !opts.progress(0.0)) return Error{path, "", "", "cancelled"};
  auto bytes = readFileBytes(path, opts.maxBytes);  // refuses by size before reading
  if (!bytes) return bytes.error();
  return importText(*bytes, path, opts);
}

}  // namespace qf
