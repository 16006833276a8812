#pragma once
/// Serving sweeps: a session's vLLM / SGLang serving runs grouped by candidate and ordered by
/// offered load, for the two regimes of seed 002 — batch-1 (the lowest load, latency-bound)
/// and saturated (the highest output throughput) — with the generated length beside every
/// latency (a candidate that stops early looks faster) and the modelled capacity of the
/// candidate for comparison. Lives beside the session: it needs the candidates, the model a
/// run names (runModelName) and the analytic engine (modelledMetrics).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/analysis/stats.hpp>
#include <quantfront/core/base/records.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/session/session.hpp>

namespace qf {

/// How a run's offered load is stated.
enum class LoadKind {
  RequestRate,  ///< requests per second (Poisson or gamma arrivals); +inf: all sent at once
  Concurrency   ///< at most this many requests in flight (request rate infinite or unset)
};
/// "request rate", "max concurrency".
const char* loadKindName(LoadKind k);

/// The offered load of one run: the request rate when it is finite, else the max concurrency,
/// else an infinite request rate (every request sent at once).
struct OfferedLoad {
  LoadKind kind = LoadKind::RequestRate;
  double value = 0;                      ///< req/s (may be +inf) or requests in flight
  std::optional<double> maxConcurrency;  ///< the cap a rate-limited run also had, if any
};
/// "4 req/s", "inf req/s", "concurrency 8", "4 req/s (max concurrency 16)".
std::string offeredLoadText(const OfferedLoad& load);
/// The offered load a serving run states: a finite request rate (with the max concurrency it
/// also had), else its max concurrency, else an infinite rate. Errors name the file and the
/// field when neither is stated or one is not a number.
Result<OfferedLoad> offeredLoadOf(const ImportedRun& run);

/// One serving run at one offered load.
struct ServingPoint {
  OfferedLoad load;
  std::optional<double> requestThroughputReqS;  ///< request_throughput_req_s
  std::optional<double> outputThroughputTokS;   ///< output_throughput_tok_s
  /// Goodput (req/s): under ServingOptions::slo, the requests that produced output and meet
  /// every objective per second of the run (from the per-request records); without an SLO,
  /// request_goodput_req_s when the file has it.
  std::optional<double> goodputReqS;
  bool goodputFromSlo = false;  ///< goodputReqS was computed under ServingOptions::slo
  /// TTFT and TPOT percentiles (ms), measured provenance. With per-request records: the
  /// file's figure (the importer recomputes it from the records; a run without it gets the
  /// records' numpy-linear percentile) and a 95% bootstrap interval (addServingIntervals).
  /// Without records: the file's own figure (p50 may be its median), no interval.
  std::optional<MetricValue> ttftP50Ms, ttftP99Ms, tpotP50Ms, tpotP99Ms;
  /// Generated length: output tokens per successful request. The mean comes from the records,
  /// else total_output_tokens / completed; the median needs the records.
  std::optional<double> meanOutputTokens;
  std::optional<double> medianOutputTokens;
  std::optional<double> completed;  ///< successful requests (the file's count, else the records')
  std::optional<double> failed;
  /// Most requests in flight at once (max_concurrent_requests), when the file says.
  std::optional<double> peakConcurrentRequests;
  std::size_t requestRecords = 0;  ///< per-request records the run carries (0: summary only)
  std::string sourceFile;
  std::string sha256;
  std::string format;  ///< "vllm-serve" or "sglang-serving"
};

/// The analytic engine's capacity for a candidate (provenance: modelled).
struct ModelledCapacity {
  double tokensPerS = 0;      ///< tokens_per_s_at_capacity
  double maxConcurrency = 0;  ///< max_concurrency (sequences the KV cache admits)
  std::string note;           ///< the engine's note on its inputs
};

/// The serving model at one offered load: the analytic steady state of the candidate's
/// deployment (docs/model.md, "Serving under load"), means over requests.
struct ModelledServingPoint {
  OfferedLoad load;
  double outputTokS = 0;
  std::optional<double> ttftMs;  ///< none at or past saturation (the queue grows without end)
  double tpotMs = 0;
  bool saturated = false;  ///< the load is at or past what the deployment serves
  /// The 80% intervals [low, high] of the three figures from the calibration's fit record
  /// (docs/model.md, Intervals); empty on the datasheet curve and without a record.
  std::optional<std::pair<double, double>> outputTokSInterval, ttftMsInterval, tpotMsInterval;
};

/// One modelled curve of a group's candidate at the group's workload (the mean prompt and
/// output tokens of its runs' requests).
struct ModelledServingCurve {
  bool datasheet = false;  ///< the ideal roofline; else the calibrated constants
  std::string constants;   ///< where the constants come from (Efficiency::source)
  double inputTokens = 0, outputTokens = 0;
  /// The server's batch cap and token budget: the scenario engine's own defaults on its GPU
  /// (engineAdmissionDefaults), as a server launched without them runs.
  int maxBatch = 0;
  double tokenBudget = 0;
  std::string limitsRule;
  std::vector<ModelledServingPoint> points;  ///< ascending load
};

/// Where one candidate's modelled (calibrated) TPOT falls below another's as the load grows:
/// below `load` `behind` is faster per token, above it `ahead` is.
struct ServingOvertake {
  std::string ahead, behind;  ///< group keys
  LoadKind kind = LoadKind::RequestRate;
  double load = 0;
};

/// Every serving run of one candidate (or model, or file), ordered by offered load.
struct ServingGroup {
  std::string key;        ///< what the runs share: candidate id, model name or file
  std::string groupedBy;  ///< "candidate" (recorded by the attach), "model" or "file"
  std::optional<std::string> candidateId;  ///< the session's candidate the key names, if any
  std::string scheme;                      ///< that candidate's linear scheme ("" if none)
  /// The load kind of most points (ties: request rate); the other kind's points are a second
  /// sweep, kept after these and named in `warnings` (mixedLoad), never merged into one axis.
  LoadKind loadKind = LoadKind::RequestRate;
  bool mixedLoad = false;
  /// Sorted by (kind: loadKind first, value): request rates ascending, inf last.
  std::vector<ServingPoint> points;
  /// Index in `points` of the batch-1 point: the lowest load of kind loadKind.
  std::optional<std::size_t> batch1;
  /// Index in `points` of the saturated point: the highest output throughput.
  std::optional<std::size_t> saturated;
  std::optional<ModelledCapacity> capacity;  ///< when the candidate resolves in the catalog
  /// The serving model beside the measurements: calibrated first, then the datasheet
  /// roofline, at loads spanning the sweeps' (ServingOptions::modelledCurves).
  std::vector<ModelledServingCurve> modelled;
  std::vector<std::string> warnings;  ///< points missing figures, mixed sweeps, ...
};

/// What servingSweeps found.
struct ServingSweeps {
  std::vector<ServingGroup> groups;   ///< in the order of their first run in the session
  std::vector<std::string> warnings;  ///< runs left out and why
  std::size_t runsUsed = 0;           ///< serving runs that became points
  /// Loads where one candidate's calibrated modelled TPOT overtakes another's (same load kind).
  std::vector<ServingOvertake> overtakes;
  /// Serving runs left out because every request failed (allRequestsFailed): their source
  /// files, in session order. A failed run is no 0 tok/s point; `warnings` says why too.
  std::vector<std::string> failedRuns;
};

/// Options of servingSweeps.
struct ServingOptions {
  stats::BootstrapOptions bootstrap;  ///< for the percentile intervals (95% by default)
  bool modelledCapacity = true;       ///< run the engine for each candidate's capacity
  bool modelledCurves = true;         ///< the serving model's curves beside each sweep
  /// Objectives a request must meet to count toward goodput. With any set, each run's goodput
  /// is computed from its per-request records and duration (stats::goodputReqPerS) instead of
  /// read from the file; a run without records keeps the file's own figure, with a warning.
  stats::Slo slo;
};

/// Groups the session's serving runs (vllm-serve, sglang-serving) by the candidate the attach
/// recorded (kCandidateSetupKey), else the model the run names (runModelName), else its file,
/// and turns each run into a ServingPoint. A run with neither a request rate nor a max
/// concurrency, or with an unreadable one, is left out with a warning, and so is a run whose
/// requests all failed (listed in failedRuns); vLLM latency and
/// throughput runs (one batch, no offered load) are left out with a note. The modelled
/// capacity comes from modelledMetrics(candidate, s.scenario, cat); a candidate that does not
/// resolve is a warning of its group.
ServingSweeps servingSweeps(const Session& s, const ServingOptions& opts = {},
                            const Catalog& cat = Catalog::bundled());

/// Adds the modelled curves of every group attached to a candidate (steady state of one
/// replica on the candidate's GPUs as TP, the scenario's KV dtype, memory and max model
/// length, vLLM's default batch cap and token budget) at loads spanning all groups of each
/// load kind, and the overtakes between them. A group it cannot model gets a warning.
void addModelledServing(ServingSweeps& sweeps, const Session& s,
                        const Catalog& cat = Catalog::bundled());

/// The serving model alone, for a session without serving runs: one group per scheme of the
/// scenario (its uniform schemes, then its mixed candidate), keyed "<scheme> (modelled)" and
/// grouped by "scenario", each with its modelled curves (calibrated and datasheet) and capacity
/// on the scenario's model, GPU and TP, at request rates from a fiftieth of the slowest
/// scheme's saturated rate to 1.5 × the fastest's, and the overtakes between them. The
/// workload: the scenario's static prompt and output tokens when set, else its use case's,
/// else 1,024 → 128 (vLLM bench serve's random dataset); `workload` says which.
/// A scheme the model cannot serve is a warning.
ServingSweeps scenarioServing(const Session& s, std::string* workload = nullptr,
                              const Catalog& cat = Catalog::bundled());

/// The point of one run (no grouping, no capacity): offered load, throughputs, latency
/// percentiles with intervals, generated length. Errors when the run is not a serving sweep
/// run (format) or states no offered load; problems with single figures go to `warnings`.
Result<ServingPoint> servingPoint(const ImportedRun& run, const stats::BootstrapOptions& boot,
                                  std::vector<std::string>& warnings, const stats::Slo& slo = {});

}  // namespace qf
