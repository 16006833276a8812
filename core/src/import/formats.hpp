#pragma once
/// The per-format layer of the importers: what every reader shares (positions, typed
/// fields, warnings) and the FormatReader each format file defines. `importFile` and
/// `importBytes` (importers.hpp) are the entry points.
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/base/json_scanner.hpp>
#include <quantfront/core/base/records.hpp>

namespace qf {

/// Format names as they appear in ImportReport::format and ImportedRun::format.
namespace importformat {
inline constexpr const char* kVllmServe = "vllm-serve";
inline constexpr const char* kVllmLatency = "vllm-latency";
inline constexpr const char* kVllmThroughput = "vllm-throughput";
inline constexpr const char* kSglangOneBatch = "sglang-one-batch";
inline constexpr const char* kSglangServing = "sglang-serving";
inline constexpr const char* kLmEvalResults = "lm-eval-results";
inline constexpr const char* kLmEvalSamples = "lm-eval-samples";
inline constexpr const char* kGsm8kEval = "gsm8k-eval";
inline constexpr const char* kNvbench = "nvbench";
}  // namespace importformat

/// The members every importer streams instead of building a DOM for them.
const JsonSeriesKeys& importSeriesKeys();

struct FormatReader;

/// One top-level JSON value of a file and where it starts.
struct ImportedDoc {
  JsonDocument doc;
  std::size_t line = 1;                  ///< 1-based line of the value's first character
  std::size_t lineStart = 0;             ///< byte offset where that line begins
  const FormatReader* reader = nullptr;  ///< its format, detected once (null: unknown)
};

/// What the readers need to know about the file.
struct ImportContext {
  std::string label;      ///< file name for messages and ImportedRun::sourceFile
  std::string sha256;     ///< hex digest of the whole file
  bool multiDoc = false;  ///< several values (JSON lines): positions name the line too
};

/// The field reader for the value of `ctx`'s file that starts on `line`: errors name the file,
/// the position (the JSON pointer, prefixed by the line when the file holds several values)
/// and the field.
JsonReader fieldReader(const ImportContext& ctx, std::size_t line);

/// "POSITION: field 'F': MESSAGE" + tail, for a warning about a value or line skipped.
std::string warningText(const Error& e, const std::string& tail);

/// "a, b, c": at most `limit` names (0: all), then ", ... (N more)".
std::string joinNames(const std::vector<std::string>& names, std::size_t limit = 0);

/// True when the top-level object `doc` has `key` (in its DOM or as a streamed array).
bool hasKey(const JsonDocument& doc, const char* key);
/// True when `doc`'s member `key` is an object.
bool isObjectKey(const JsonDocument& doc, const char* key);

/// A scalar as setup text: strings as they are, numbers shortest ("10", "0.5", "inf"),
/// booleans "true"/"false", null "none"; arrays and objects as compact JSON.
std::string setupText(const Json& value);

/// Serving figures recomputed from ImportedRun::requests, the way vLLM's and SGLang's
/// benchmark scripts compute them (successful requests only, milliseconds):
/// TTFT = ttft; TPOT = (latency − ttft)/(output_len − 1) for output_len > 1; ITL = every
/// inter-token gap pooled; E2EL = latency. For each metric M with data, writes M_mean_ms,
/// M_median_ms, M_std_ms (population, as np.std) and M_p<P>_ms for P in 50, 90, 99 and in
/// `extraPercentiles` (labels as the file spells them, e.g. "99.9"). A figure the file states
/// is kept as the tool's own: when the arrays give another value, that value is stored beside
/// it as `<name>_recomputed` with a warning naming both; when they agree, the name goes to
/// `checked`. Figures the file does not state are filled in. Returns the names written.
std::vector<std::string> recomputeServingMetrics(ImportedRun& run,
                                                 const std::set<std::string>& extraPercentiles,
                                                 bool latencyKnown,
                                                 std::vector<std::string>* checked = nullptr);

/// What reading the values of one format produced: runs, warnings for values skipped, and
/// the first error (returned when no run could be read).
struct ReadOutcome {
  std::vector<ImportedRun> runs;
  std::vector<std::string>& warnings;
  std::optional<Error> firstError;
  std::vector<KernelMeasurement> kernelMeasurements;  ///< nvbench: one per timed state
};

/// One file format: its name, how to recognise one top-level value of it from its keys, and
/// how to read the values of a file in that format. The registry (registry.cpp, formats.def)
/// lists them in detection order; the first whose `detect` accepts a value names its format.
struct FormatReader {
  const char* name = "";
  /// What this format's runs are; the importer stamps it on every run it reads.
  RunKind kind = RunKind::Unknown;
  /// The tool that writes the format, as provenance notes name it ("lm-evaluation-harness").
  const char* tool = "";
  bool (*detect)(const JsonDocument& doc) = nullptr;
  /// Reads every value of this format in the file (null when `refusal` is set).
  void (*read)(std::vector<ImportedDoc*>& docs, const ImportContext& ctx,
               ReadOutcome& out) = nullptr;
  /// Bare NaN/Infinity accepted (Python's json writes them; only SGLang bench_serving does).
  bool allowsNonFinite = false;
  /// Recognised but not imported: why, and what to use instead.
  const char* refusal = nullptr;
};

/// Every format, in detection order.
const std::vector<FormatReader>& formatReaders();
/// The reader whose format `doc` is, or null when none recognises it.
const FormatReader* detectReader(const JsonDocument& doc);
/// The reader of the format called `name` (ImportedRun::format), or null.
const FormatReader* readerNamed(std::string_view name);
/// The name of `doc`'s format; empty when none matches.
std::string detectFormat(const JsonDocument& doc);

/// `read` for formats with one run per value: `Fn` reads one value; a value that fails is
/// skipped with a warning when the file holds several (JSON lines), and its error is kept.
template <Result<ImportedRun> (*Fn)(ImportedDoc&, const ImportContext&)>
void readEachValue(std::vector<ImportedDoc*>& docs, const ImportContext& ctx, ReadOutcome& out) {
  for (ImportedDoc* d : docs) {
    Result<ImportedRun> run = Fn(*d, ctx);
    if (!run) {
      if (!out.firstError) out.firstError = run.error();
      if (ctx.multiDoc) out.warnings.push_back(warningText(run.error(), "; value skipped"));
      continue;
    }
    out.runs.push_back(std::move(*run));
    d->doc = JsonDocument{};  // free the value's DOM and arrays as soon as the run holds them
  }
}

}  // namespace qf
