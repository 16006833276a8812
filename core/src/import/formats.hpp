#pragma once
/// The per-format layer of the importers (spec: shared/spec/formats.md): detection from
/// content, one reader per format, and the serving statistics recomputed from per-request
/// arrays. `importFile`/`importBytes` (importers.hpp) are the entry points; these pieces are
/// public so that tests and tools can use them one at a time.
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <quantfront/core/base/error.hpp>
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

/// One top-level JSON value of a file and where it starts.
struct ImportedDoc {
  JsonDocument doc;
  std::size_t line = 1;       ///< 1-based line of the value's first character
  std::size_t lineStart = 0;  ///< byte offset where that line begins
};

/// What the readers need to know about the file.
struct ImportContext {
  std::string label;      ///< file name for messages and ImportedRun::sourceFile
  std::string sha256;     ///< hex digest of the whole file
  bool multiDoc = false;  ///< several values (JSON lines): positions name the line too
};

/// Builds errors that name the file, the position (JSON pointer, prefixed by the line when
/// the file holds several values) and the field; reads typed fields.
class FieldReader {
 public:
  /// `ctx` must outlive the reader; `line` is where the value being read starts.
  FieldReader(const ImportContext& ctx, std::size_t line) : m_ctx(ctx), m_line(line) {}
  /// "line 3, /mean_ttft_ms" in a JSON-lines file, "/mean_ttft_ms" otherwise.
  [[nodiscard]] std::string position(const std::string& pointer) const;
  [[nodiscard]] Error error(const std::string& pointer, const std::string& field,
                            const std::string& message) const;
  /// Number at obj[key]; nullopt when absent or null; an error for any other type.
  /// Non-finite values pass through (only SGLang files can carry them).
  Result<std::optional<double>> number(const Json& obj, const std::string& objPointer,
                                       const std::string& key) const;
  /// Like number(), but also reads a number written as a string ("0.0010034", nvbench).
  Result<std::optional<double>> numberOrNumericString(const Json& obj,
                                                      const std::string& objPointer,
                                                      const std::string& key) const;

 private:
  const ImportContext& m_ctx;
  std::size_t m_line;
};


/// A scalar as setup text: strings as they are, numbers shortest ("10", "0.5", "inf"),
/// booleans "true"/"false", null "none"; arrays and objects as compact JSON.
std::string setupText(const Json& value);

/// Detects the format of one top-level value from its keys; empty when none matches.
std::string detectFormat(const JsonDocument& doc);

/// Percentile `pct` (0–100) with numpy's default method ("linear", as np.percentile, which
/// vLLM and SGLang use): with x sorted and h = (n − 1)·pct/100,
/// x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]). Reorders `values`; NaN when empty.
double percentileLinear(std::vector<double>& values, double pct);
/// Median as np.median: the middle value, or the mean of the two middle values.
/// Reorders `values`; NaN when empty.
double medianOf(std::vector<double>& values);

/// Serving figures recomputed from ImportedRun::requests, the way vLLM's and SGLang's
/// benchmark scripts compute them (successful requests only, milliseconds):
/// TTFT = ttft; TPOT = (latency − ttft)/(output_len − 1) for output_len > 1; ITL = every
/// inter-token gap pooled; E2EL = latency. For each metric M with data, writes M_mean_ms,
/// M_median_ms, M_std_ms (population, as np.std) and M_p<P>_ms for P in 50, 90, 99 and in
/// `extraPercentiles` (labels as the file spells them, e.g. "99.9"). A figure that was read
/// from the file and differs from the recomputed one gets a warning. Returns the names written.
std::vector<std::string> recomputeServingMetrics(ImportedRun& run,
                                                 const std::set<std::string>& extraPercentiles,
                                                 bool latencyKnown);

/// vLLM `bench serve --save-result` (2024 and current variants); one object.
/// Metrics: duration_s, completed, failed, total_input_tokens, total_output_tokens,
/// request_throughput_req_s, request_goodput_req_s (either spelling of the key),
/// output_throughput_tok_s, total_token_throughput_tok_s, input_throughput_tok_s,
/// max_output_throughput_tok_s, max_concurrent_requests, and M_mean_ms, M_median_ms, M_std_ms,
/// M_p<P>_ms for M in ttft, tpot, itl, e2el. With per-request arrays: `requests` filled and
/// the statistics recomputed; setup "metrics_recomputed" / "metrics_read" list which is which,
/// setup "e2el_source" says where end-to-end latency came from.
Result<ImportedRun> importVllmServe(ImportedDoc& doc, const ImportContext& ctx);
/// SGLang `bench_serving` output line (details at top level or under "details"). Same names
/// as vLLM (`*_e2e_latency_ms` → e2el_*), plus concurrency, accept_length_tokens,
/// total_output_tokens_retokenized. NaN values are skipped with a warning.
Result<ImportedRun> importSglangServing(ImportedDoc& doc, const ImportContext& ctx);
/// vLLM `bench latency --output-json`: latency_mean_s, latency_p<P>_s (file's percentiles and
/// 50/90/99 recomputed from `latencies`), iterations.
Result<ImportedRun> importVllmLatency(ImportedDoc& doc, const ImportContext& ctx);
/// vLLM `bench throughput --output-json`: duration_s, num_requests, total_num_tokens,
/// request_throughput_req_s, total_token_throughput_tok_s.
Result<ImportedRun> importVllmThroughput(ImportedDoc& doc, const ImportContext& ctx);
/// SGLang `bench_one_batch` lines, grouped into one run per (run_name, input_len, output_len)
/// series of batch sizes; metrics `bs<B>/prefill_latency_ms`, `bs<B>/prefill_throughput_tok_s`,
/// `bs<B>/decode_step_ms` (median decode latency), `bs<B>/decode_throughput_tok_s`,
/// `bs<B>/total_latency_s`, `bs<B>/overall_throughput_tok_s`; decodeStepByBatch holds
/// (batch, median decode step s) sorted by batch. A batch size seen again in the same group
/// starts a new run (an appended re-run). Bad lines are skipped with a warning appended to
/// `warnings`.
Result<std::vector<ImportedRun>> importSglangOneBatch(std::vector<ImportedDoc*>& docs,
                                                      const ImportContext& ctx,
                                                      std::vector<std::string>& warnings);
/// lm-evaluation-harness results_<date>.json: metrics `<task>/<metric>,<filter>` and
/// `<task>/<metric>_stderr,<filter>` as the file names them ("N/A" stderr left out, with a
/// warning), `<task>/n_samples` (effective) and `<task>/n_samples_original`; setup
/// `higher_is_better/<task>/<metric>`, `n-shot/<task>`, `version/<task>`, `config/<key>`.
Result<ImportedRun> importLmEvalResults(ImportedDoc& doc, const ImportContext& ctx);
/// vLLM tests/evals/gsm8k/gsm8k_eval.py --save-results: gsm8k/accuracy (fraction),
/// gsm8k/invalid_rate, gsm8k/n_samples, latency_s, questions_per_s, total_output_tokens,
/// output_throughput_tok_s. Warns that only unpaired statistics are possible.
Result<ImportedRun> importGsm8kEval(ImportedDoc& doc, const ImportContext& ctx);
/// NVIDIA nvbench --json: metrics `<benchmark>/<state>/<tag>` in nvbench's units (s, bytes/s);
/// setup `<benchmark>/<state>/device`, `.../axis/<name>`, `device/<id>/<field>`, and
/// "nvbench_states" (one state prefix per line) for nvbenchToMeasurements.
Result<ImportedRun> importNvbench(ImportedDoc& doc, const ImportContext& ctx);

}  // namespace qf
