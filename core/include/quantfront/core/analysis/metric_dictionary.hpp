#pragma once
/// The metric dictionary: a readable name, a unit and a one-line description for every metric
/// name QuantFront produces or reads (serving runs, lm-eval scores, the analytic engine's
/// modelled figures, cost), by exact name or by pattern (`<task>_<metric>`, `*_p99_ms`,
/// `<task>_recovery_pct`, `queries_per_usd_<use case>`). `qfront frontier` and the window
/// label their axes and columns from here; a gate naming a metric that is neither in the
/// dictionary nor carried by a candidate is an error rather than an empty frontier.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <quantfront/core/analysis/frontier.hpp>

namespace qf {

/// What kind of figure a metric is.
enum class MetricCategory {
  Quality,     ///< an eval score (absolute)
  Relative,    ///< relative to a baseline: recovery %, deltas, ratios vs a baseline
  Latency,     ///< a time (ms or s)
  Throughput,  ///< a rate (tokens, requests or queries per second)
  Memory,      ///< bytes (GiB)
  Capacity,    ///< sequences that fit
  Cost,        ///< money: queries per USD, cost reduction, price
  Count,       ///< bookkeeping: requests completed, tokens, run duration
};
/// "quality", "relative", "latency", "throughput", "memory", "capacity", "cost", "count".
const char* metricCategoryName(MetricCategory c);

/// What the dictionary says about one metric name.
struct MetricInfo {
  std::string name;         ///< the name looked up, e.g. "tpot_p99_ms"
  std::string readable;     ///< e.g. "TPOT p99"
  std::string unit;         ///< e.g. "ms", "%", "tok/s"; empty for a plain number
  std::string description;  ///< one line
  std::string rule;         ///< the entry or pattern that matched, e.g. "<latency>_p<P>_ms"
  MetricCategory category = MetricCategory::Quality;
  std::optional<Direction> direction;  ///< which way is better; nullopt for bookkeeping
  bool relative = false;               ///< compares against a baseline (isRelativeMetric)
};

/// The dictionary entry for `name` (exact names first, then patterns); nullopt when no entry
/// or pattern matches.
std::optional<MetricInfo> lookupMetric(std::string_view name);

/// "TPOT p99 (ms)" for "tpot_p99_ms"; the name itself when the dictionary does not know it.
std::string readableMetricName(std::string_view name);

/// True for metrics measured against a baseline: names containing `recovery`, ending in
/// `_delta` or `_vs_baseline` (or containing `_vs_baseline_`), `speedup` and cost-reduction
/// ratios. Such a figure compares only candidates that share the baseline (the same model).
bool isRelativeMetric(std::string_view name);

/// One row of the dictionary as documentation lists it.
struct MetricRule {
  std::string pattern;   ///< exact name or pattern, e.g. "<task>_<metric>"
  std::string readable;  ///< readable form of the pattern
  std::string unit;
  std::string description;
  MetricCategory category = MetricCategory::Quality;
};
/// Every entry and pattern, in lookup order (exact names first).
const std::vector<MetricRule>& metricRules();

/// The lm-evaluation-harness metric names the `<task>_<metric>` pattern recognises
/// (acc, acc_norm, exact_match, f1, mc1, mc2, ...), longest first.
const std::vector<std::string>& lmEvalMetricNames();

/// Direction of a `<task>_<metric>` name whose metric is one lm-evaluation-harness reports:
/// max for scores, min for perplexities, bits per byte, invalid rates and Brier scores;
/// nullopt when the name does not end in a known lm-eval metric.
std::optional<Direction> lmEvalMetricDirection(std::string_view name);

}  // namespace qf
