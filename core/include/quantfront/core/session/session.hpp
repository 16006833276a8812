#pragma once
/// Session files (spec: shared/spec/frontier.md "Session files"; docs/session-format.md):
/// one JSON document holding the scenario, the candidates with provenance on every number,
/// imported runs, kernel measurements and the view. Older versions migrate on load; newer
/// versions are refused. Saves are atomic: a crash never leaves a half-written session.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <quantfront/core/analysis/frontier.hpp>
#include <quantfront/core/base/error.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/base/records.hpp>
#include <quantfront/core/import/importers.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/scenario_spec.hpp>

namespace qf {

/// The value of the top-level "format" key of every session file.
inline constexpr const char* kSessionFormat = "quantfront-session";
/// The session version this build writes; it reads every version from 1 up to this one.
inline constexpr int kSessionVersion = 2;
/// Largest session file loadSession reads (bytes); larger files are refused before reading.
/// A session stores a run's per-request records in at most ~1.2× the bytes of the benchmark
/// file they came from (columns, times to kRequestSignificantDigits), so one file at the
/// import limit (ImportOptions::maxBytes, 512 MiB) still yields a session that opens.
inline constexpr std::uint64_t kMaxSessionFileBytes = 768ull * 1024 * 1024;
/// Significant digits of the per-request times a session stores (0.1 µs on a 1 s latency;
/// the statistics need far less).
inline constexpr int kRequestSignificantDigits = 7;
/// Deepest JSON nesting a session may have (arrays and objects); deeper input is refused.
inline constexpr std::size_t kMaxSessionJsonDepth = 64;

/// The Pareto plot's axes: metric names; `color` (third objective as colour/size) may be empty.
struct PlotAxes {
  std::string x;
  std::string y;
  std::string color;
};

/// What the window showed when the session was saved.
struct ViewState {
  std::vector<Objective> objectives;  ///< selected objectives, each oriented (frontier.hpp)
  std::vector<std::string> gates;     ///< gates as parseGate reads them, e.g. "recovery_pct>=99"
  PlotAxes axes;
  /// Candidates kept in the session but left out of the frontier, the plots and the report.
  std::vector<std::string> hidden;
  std::string tab = "step-time";  ///< "step-time", "throughput", "pareto", "candidates"
};

/// A whole session. Plain data: I/O is in the functions below.
struct Session {
  std::string title;  ///< free text, may be empty
  std::string notes;  ///< free text, may be empty
  ScenarioSpec scenario;
  std::vector<Candidate> candidates;
  std::vector<ImportedRun> importedRuns;
  std::vector<KernelMeasurement> kernelMeasurements;
  ViewState view;

  /// Not stored: what loading did besides reading (migration from an older version, unknown
  /// keys ignored). Empty for a current file read without remarks.
  std::vector<std::string> loadNotes;
  /// Not stored: the version the file had on disk (kSessionVersion for new sessions).
  int loadedVersion = kSessionVersion;
};

/// Parses a session document. `file` names the source in errors; every error names the JSON
/// pointer and the field. Version-1 documents are migrated (see loadNotes); documents of a
/// newer version or another format are refused.
Result<Session> parseSession(const Json& doc, const std::string& file);

/// Parses session bytes: refuses empty input, nesting deeper than kMaxSessionJsonDepth and
/// invalid JSON (with line and column), then parseSession.
Result<Session> parseSessionText(std::string_view text, const std::string& file);
/// The JSON step of parseSessionText: a leading UTF-8 byte-order mark skipped, nesting
/// deeper than kMaxSessionJsonDepth refused, then parsed (positions as line and column).
Result<Json> parseSessionJson(std::string_view text, const std::string& file);

/// Reads and parses a session file (at most `maxBytes`, checked before reading).
Result<Session> loadSession(const std::string& path, std::uint64_t maxBytes = kMaxSessionFileBytes);

/// The session as a version-kSessionVersion document. Non-finite numbers in imported runs
/// and kernel measurements are written as the strings "NaN", "Infinity", "-Infinity".
Json sessionToJson(const Session& s);

/// The bytes saveSessionAtomic writes: sessionToJson, indented, UTF-8, newline-terminated.
std::string sessionToText(const Session& s);

/// Checks what the file format cannot carry (metric values must be finite, candidate ids
/// unique and non-empty, published figures cited, ...): whatever the reader would refuse in
/// the saved file, checked on the Session itself (nothing is written or parsed). The error
/// names the position and field the reader would name; its `file` is empty.
std::optional<Error> validate(const Session& s);

/// validate(), with `file` naming the session in errors.
std::optional<Error> validateSession(const Session& s, const std::string& file);

/// Writes the session to `path` atomically: a temporary file in the same directory is
/// written, flushed and fsync'ed, then renamed over `path` (the directory is fsync'ed too).
/// On any failure the temporary file is removed and an existing `path` is left untouched.
/// A session that would not load back (validateSession fails) is refused, not written.
std::optional<Error> saveSessionAtomic(const Session& s, const std::string& path);

/// What mergeImport did with one ImportReport.
struct MergeResult {
  std::size_t runsAdded = 0;
  std::size_t measurementsAdded = 0;  ///< kernel measurements taken from nvbench runs
  bool duplicate = false;             ///< a run with the same SHA-256 was already in the session
  std::string duplicateOf;            ///< that run's source file, when duplicate
};

/// Appends the report's runs to the session. Runs are identified by the SHA-256 of their
/// file: a file already imported (same digest, whatever its name) adds nothing. Runs without
/// a digest of their own take the report's; runs without a source file take the report's.
/// A report whose runs are added also adds its kernel measurements
/// (ImportReport::kernelMeasurements).
MergeResult mergeImport(Session& s, const ImportReport& report);

/// The use-case part of a per-use-case metric name: the preset id with '-' as '_'
/// ("code-completion" → "code_completion", as in `queries_per_usd_code_completion`).
std::string useCaseMetricStem(const std::string& id);

/// Names of the modelled metrics refreshModelledMetrics writes, in order: memory_floor_ms,
/// step_ms_b1, step_ms_b64, weights_gib, max_concurrency, tokens_per_s_at_capacity, then for
/// each bundled use case (bundledUseCases(), in order; `<uc>` is its id with '-' as '_')
/// latency_<uc>_sync_s, queries_per_usd_<uc> and cost_reduction_pct_<uc>. The last two are
/// written only for a GPU with a price.
std::vector<std::string> modelledMetricNames();

/// The scenario a candidate runs on: the session scenario with the candidate's model, GPU and
/// GPU count (as TP); the scenario's edited GPU only when the candidate is on the GPU it was
/// edited from (ids compared ignoring case).
ScenarioSpec candidateScenarioSpec(const Candidate& c, const ScenarioSpec& scenario);

/// The analytic engine's figures for one candidate: its model, GPU, count (as TP) and
/// schemes, under the serving settings of `scenario` (max model length, KV dtype, memory
/// utilisation, reserve, context). Keys are modelledMetricNames(): per use case the latency
/// of one request served alone (batch 1, estimateRequestLatency), its synchronous queries
/// per USD at the GPU's price × count, and 100 × (1 − cost per query / the cost per query of
/// the same model in bf16 on the same GPUs, modelled alike) — 0 for a bf16 candidate. The
/// USD figures are left out when the GPU has no price; any name the candidate already carries
/// as a published or measured figure is left out too (that figure is kept). Every value has
/// provenance `modelled` and a note stating the inputs. Errors name the candidate.
Result<std::map<std::string, MetricValue>> modelledMetrics(const Candidate& c,
                                                           const ScenarioSpec& scenario,
                                                           const Catalog& cat = Catalog::bundled());

/// Recomputes every candidate's modelled metrics (replacing those with provenance
/// `modelled`; measured and published figures are kept). Candidates of one configuration
/// (model, GPU, count, schemes) are computed once. When the figures would add more than
/// `maxAddedBytes` to the saved session (estimated as they are computed, before anything
/// changes), the session is left as it was and the error gives the size it would reach.
/// Errors name the candidate.
std::optional<Error> refreshModelledMetrics(Session& s, const Catalog& cat = Catalog::bundled(),
                                            std::uint64_t maxAddedBytes = kMaxSessionFileBytes);

}  // namespace qf
