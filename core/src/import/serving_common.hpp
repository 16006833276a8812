#pragma once
// What the serving readers share (vLLM bench serve, SGLang bench_serving, vLLM bench
// latency): key tables, the per-request arrays, the recomputed statistics.
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "import/formats.hpp"

namespace qf::serving {

inline constexpr double kMsPerS = 1000.0;

/// A file's key and the metric name it becomes.
struct MetricName {
  std::string_view key;
  std::string_view name;
};

/// Relative-or-absolute agreement for figures a file states and we recompute.
bool agrees(double a, double b);

/// "p99.9" -> "99.9"; empty when `stat` is not a percentile label.
std::string percentileLabel(std::string_view stat);

/// Records in the run's setup which metrics were read from the file as they stand and which
/// were recomputed from its raw arrays.
void recordMetricSources(ImportedRun& run, const std::set<std::string>& readNames,
                         const std::vector<std::string>& recomputed,
                         const std::vector<std::string>& checked = {});

/// "numbers", "lists of numbers", ... for messages.
const char* seriesKind(JsonSeries::Kind k);

/// Takes the member `key` of the object at `parentPointer` out of the document: the streamed
/// series when there is one, else the DOM array converted. nullopt when absent or null.
Result<std::optional<JsonSeries>> takeSeries(JsonDocument& doc, const Json* parent,
                                             const std::string& parentPointer,
                                             const std::string& key, const JsonReader& fr);

/// Where the recompute step puts its figures. A figure the file states is the tool's own and
/// is kept: when the per-request arrays agree it is listed in `checked`; when they differ the
/// recomputed value goes beside it as `<name>_recomputed` with a warning naming both (listed
/// in `names`). A figure the file does not state is filled from the arrays (listed in `names`).
struct RecomputeSink {
  ImportedRun& run;
  std::vector<std::string> names;    ///< metrics written from the arrays
  std::vector<std::string> checked;  ///< figures the file states that the arrays confirm
  void set(const std::string& name, double value) {
    const auto it = run.metrics.find(name);
    if (it == run.metrics.end()) {
      run.metrics[name] = value;
      names.push_back(name);
      return;
    }
    if (agrees(it->second, value)) {
      checked.push_back(name);
      return;
    }
    const std::string beside = name + "_recomputed";
    run.warnings.push_back(name + ": the file says " + formatNumber(it->second) +
                           ", the per-request arrays give " + formatNumber(value) +
                           " (numpy linear percentile); the file's figure is kept and the "
                           "recomputed one stored as " +
                           beside);
    run.metrics[beside] = value;
    names.push_back(beside);
  }
};

/// mean, median, std, percentiles of seconds `xs`, written in `unitScale` units.
void summarize(RecomputeSink& sink, const std::string& metric, std::vector<double>& xs,
               const std::vector<std::string>& labels, const std::string& unitSuffix,
               double unitScale, bool withMedianAndStd);

/// 50, 90, 99 and the extra labels a file names.
std::vector<std::string> percentileList(const std::set<std::string>& extra);

/// vLLM bench serve (`sglang` false) or SGLang bench_serving (`sglang` true).
Result<ImportedRun> importServing(ImportedDoc& d, const ImportContext& ctx, bool sglang);

/// Which serving tool wrote `doc`: 0 none, 1 vLLM, 2 SGLang (the two share most keys; the
/// telling ones are counted).
int servingFlavour(const JsonDocument& doc);

}  // namespace qf::serving
