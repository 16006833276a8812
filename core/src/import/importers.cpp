// importFile / importBytes: size limits, JSON vs JSON lines, format detection from content,
// dispatch to the per-format readers, and the report of what was read and skipped.
#include <nlohmann/json.hpp>
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/import/importers.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>

#include <quantfront/core/base/hash.hpp>
#include <quantfront/core/base/json_io.hpp>
#include "import/formats.hpp"

namespace qf {

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

/// The values of a file, and how many non-blank values (or lines) it held.
struct ScannedValues {
  std::vector<ImportedDoc> docs;
  std::size_t valuesSeen = 0;
  std::vector<std::string> lineWarnings;  ///< bad lines skipped (recovery only)
};

/// Scanning: the whole text as one document (compact or pretty-printed) or several values in
/// a row (JSON lines, --append-result). Fails on the first syntax error.
Result<ScannedValues> scanValues(std::string_view text, std::size_t first, JsonScanner& scanner) {
  ScannedValues out;
  std::size_t pos = first;
  std::size_t countedTo = 0, countedLine = 1;  // incremental line numbers
  while (pos < text.size()) {
    auto doc = scanner.parseValue(pos, text.size());
    if (!doc) return doc.error();
    countedLine +=
        lineOf(text.substr(countedTo, doc->beginOffset - countedTo), doc->beginOffset - countedTo) -
        1;
    countedTo = doc->beginOffset;
    const std::size_t nlBefore = text.rfind('\n', doc->beginOffset);
    const std::size_t lineStart = nlBefore == std::string_view::npos ? 0 : nlBefore + 1;
    pos = skipJsonWhitespace(text, doc->endOffset, text.size());
    out.docs.push_back(ImportedDoc{std::move(*doc), countedLine, lineStart});
  }
  out.valuesSeen = out.docs.size();
  return out;
}

/// Recovery: one value per line, bad lines skipped with a warning (at most kMaxLineWarnings
/// named). Only cancellation fails here; whether anything useful was recovered is the
/// caller's to judge.
Result<ScannedValues> recoverLines(std::string_view text, std::size_t start, std::size_t first,
                                   const std::string& label, JsonScanner& scanner) {
  ScannedValues out;
  std::size_t lineNumber = lineOf(text, first);
  const std::size_t nl = text.rfind('\n', first);
  std::size_t begin = nl == std::string_view::npos ? start : nl + 1;
  while (begin < text.size()) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    const std::size_t valueStart = skipJsonWhitespace(text, begin, end);
    if (valueStart < end) {
      ++out.valuesSeen;
      auto doc = scanner.parseValue(valueStart, end, begin, lineNumber);
      if (!doc) {
        if (doc.error().isCancelled()) return doc.error();
        out.lineWarnings.push_back(warningText(doc.error(), "; line skipped"));
      } else {
        const std::size_t rest = skipJsonWhitespace(text, doc->endOffset, end);
        if (rest < end) {
          const Error e{label, lineColumnFrom(text, begin, lineNumber, rest), "",
                        "unexpected " + describeByte(text, rest) +
                            " after the JSON value (one value per line expected)"};
          out.lineWarnings.push_back(warningText(e, "; line skipped"));
        } else {
          out.docs.push_back(ImportedDoc{std::move(*doc), lineNumber, begin});
        }
      }
    }
    begin = end + 1;
    ++lineNumber;
  }
  if (out.lineWarnings.size() > kMaxLineWarnings) {
    const std::size_t more = out.lineWarnings.size() - kMaxLineWarnings;
    out.lineWarnings.resize(kMaxLineWarnings);
    out.lineWarnings.push_back(std::to_string(more) + " more bad lines skipped");
  }
  return out;
}

/// Choosing: the file's format is that of the first value whose format is recognised.
Result<const FormatReader*> chooseFormat(std::string_view text, const std::string& label,
                                         const std::vector<ImportedDoc>& docs) {
  for (const auto& d : docs) {
    if (const FormatReader* r = d.reader) {
      if (r->refusal) {
        return Error{label,
                     lineColumnFrom(text, docs.front().lineStart, docs.front().line,
                                    docs.front().doc.beginOffset),
                     "format", r->refusal};
      }
      return r;
    }
  }
  const ImportedDoc& head = docs.front();
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

Result<ImportReport> importText(std::string_view text, const std::string& label,
                                const ImportOptions& opts) {
  ImportReport report;
  report.file = label;
  report.sha256 = sha256Hex(text);
  if (opts.progress && !opts.progress(0.1)) return Error::cancelled(label);

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

  // Any syntax error in the whole-text reading is fatal unless reading line by line
  // recovers values of a known format: then the file is JSON lines with some bad lines.
  auto scanned = scanValues(text, first, scanner);
  if (!scanned) {
    const Error wholeError = scanned.error();
    if (wholeError.isCancelled()) return wholeError;
    scanned = recoverLines(text, start, first, label, scanner);
    if (!scanned) return scanned.error();
    for (auto& d : scanned->docs) d.reader = detectReader(d.doc);
    const bool recovered = std::any_of(scanned->docs.begin(), scanned->docs.end(),
                                       [](const ImportedDoc& d) { return d.reader != nullptr; });
    if (!recovered) return wholeError;
    report.warnings = std::move(scanned->lineWarnings);
  }
  std::vector<ImportedDoc>& docs = scanned->docs;
  // Each value's format, detected once (recovery has done it already).
  for (auto& d : docs) {
    if (!d.reader) d.reader = detectReader(d.doc);
  }

  auto chosen = chooseFormat(text, label, docs);
  if (!chosen) return chosen.error();
  const FormatReader& reader = **chosen;
  report.format = reader.name;
  ImportContext ctx{label, report.sha256, scanned->valuesSeen > 1};

  // Keep the values of this format; refuse bare NaN/Infinity where the format may not have it.
  std::vector<ImportedDoc*> mine;
  ReadOutcome outcome{{}, report.warnings, std::nullopt, {}};
  for (auto& d : docs) {
    const FormatReader* r = d.reader;
    if (r != &reader) {
      Error e{
          label, lineColumnFrom(text, d.lineStart, d.line, d.doc.beginOffset), "format",
          r == nullptr
              ? std::string("value of an unknown format (file is ").append(reader.name).append(")")
              : std::string("value looks like ")
                    .append(r->name)
                    .append(", not ")
                    .append(reader.name)};
      if (!outcome.firstError) outcome.firstError = e;
      report.warnings.push_back(warningText(e, "; skipped"));
      continue;
    }
    if (d.doc.nonFiniteOffset && !reader.allowsNonFinite) {
      Error e{label, lineColumnFrom(text, d.lineStart, d.line, *d.doc.nonFiniteOffset),
              d.doc.nonFiniteField,
              "bare NaN or Infinity is not valid JSON (only SGLang bench_serving files may "
              "carry it); expected a number"};
      if (!outcome.firstError) outcome.firstError = e;
      report.warnings.push_back(warningText(e, "; value skipped"));
      continue;
    }
    mine.push_back(&d);
  }
  if (!mine.empty()) reader.read(mine, ctx, outcome);
  report.runs = std::move(outcome.runs);
  for (ImportedRun& run : report.runs) {  // what the runs are is the format's to say
    run.format = reader.name;
    run.kind = reader.kind;
  }
  report.kernelMeasurements = std::move(outcome.kernelMeasurements);
  if (report.runs.empty()) {
    if (outcome.firstError) return *outcome.firstError;
    return Error{label, "", "format", std::string("no ") + reader.name + " results could be read"};
  }
  if (opts.progress && !opts.progress(1.0)) return Error::cancelled(label);
  return report;
}

}  // namespace

Result<ImportReport> importBytes(std::string_view bytes, const std::string& label,
                                 const ImportOptions& opts) {
  if (bytes.size() > opts.maxBytes) {
    return Error{label, "", "",
                 words("input is ", bytes.size(), " bytes, larger than the ", opts.maxBytes,
                       "-byte import limit; refusing to import it")};
  }
  return importText(bytes, label, opts);
}

Result<ImportReport> importFile(const std::string& path, const ImportOptions& opts) {
  if (opts.progress && !opts.progress(0.0)) return Error::cancelled(path);
  auto bytes = readFileBytes(path, opts.maxBytes);  // refuses by size before reading
  if (!bytes) return bytes.error();
  return importText(*bytes, path, opts);
}

}  // namespace qf
