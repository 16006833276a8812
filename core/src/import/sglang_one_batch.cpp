// SGLang `bench_one_batch` result lines (spec: shared/spec/formats.md).
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "import/serving_common.hpp"

namespace qf {

using namespace serving;

namespace {

/// One result line, read.
struct Row {
  std::size_t line = 0;
  std::string runName;
  std::int64_t batch = 0, inputLen = -1, outputLen = -1;
  std::map<std::string, double> metrics;
  std::optional<double> decodeStepS;
  std::map<std::string, std::string> extra;
};

struct ScaledName {
  std::string_view key;
  std::string_view name;
  double scale;
};
// clang-format off
constexpr ScaledName kNames[] = {
    {"prefill_latency", "prefill_latency_ms", kMsPerS},
    {"prefill_throughput", "prefill_throughput_tok_s", 1.0},
    {"median_decode_latency", "decode_step_ms", kMsPerS},
    {"median_decode_throughput", "decode_throughput_tok_s", 1.0},
    {"total_latency", "total_latency_s", 1.0},
    {"overall_throughput", "overall_throughput_tok_s", 1.0},
};
// clang-format on

/// A result line's batch, lengths and figures (keys it does not know kept as setup text).
Result<Row> readRow(const ImportedDoc& d, const ImportContext& ctx) {
  const JsonReader fr = fieldReader(ctx, d.line);
  const Json& o = d.doc.dom;
  Row row;
  row.line = d.line;
  if (!o.is_object()) return fr.error("", "", "expected a JSON object");
  const auto name = o.find("run_name");
  if (name != o.end() && !name->is_null()) row.runName = setupText(*name);
  auto intField = [&](const char* key, bool required) -> Result<std::int64_t> {
    auto v = fr.optNumber(o, "", key, false, false);
    if (!v) return v.error();
    if (!v->has_value()) {
      if (required) return fr.error(childPointer("", key), key, "required number is missing");
      return std::int64_t{-1};
    }
    const double x = **v;
    if (!std::isfinite(x) || x < 0 || std::floor(x) != x || x > 9.0e15) {
      return fr.error(childPointer("", key), key,
                      "expected a non-negative whole number, found " + formatNumber(x));
    }
    return static_cast<std::int64_t>(x);
  };
  auto batch = intField("batch_size", true);
  if (!batch) return batch.error();
  row.batch = *batch;
  auto in = intField("input_len", false);
  if (!in) return in.error();
  row.inputLen = *in;
  auto outLen = intField("output_len", false);
  if (!outLen) return outLen.error();
  row.outputLen = *outLen;
  for (const auto& m : kNames) {
    const std::string key(m.key);
    auto v = fr.optNumber(o, "", key, false, false);
    if (!v) return v.error();
    if (!v->has_value()) continue;
    if (!std::isfinite(**v)) {
      return fr.error(childPointer("", key), key, "expected a finite number");
    }
    row.metrics[std::string(m.name)] = **v * m.scale;
    if (m.key == "median_decode_latency") row.decodeStepS = **v;
  }
  for (auto it = o.begin(); it != o.end(); ++it) {
    const std::string& key = it.key();
    if (key == "run_name" || key == "batch_size" || key == "input_len" || key == "output_len") {
      continue;
    }
    bool known = false;
    for (const auto& m : kNames) known = known || m.key == key;
    if (!known) row.extra[key] = setupText(it.value());
  }
  return row;
}

/// The runs a file's lines make: one per run name and lengths, a new one where a batch size
/// repeats (a second series).
struct Runs {
  std::vector<ImportedRun> runs;
  std::vector<std::set<std::int64_t>> batchesPerRun;
  std::map<std::tuple<std::string, std::int64_t, std::int64_t>, std::size_t> openRun;

  /// Adds `row` to its run (opened here when none takes it).
  void add(const Row& row, const ImportContext& ctx) {
    const auto groupKey = std::make_tuple(row.runName, row.inputLen, row.outputLen);
    auto open = openRun.find(groupKey);
    if (open == openRun.end() || batchesPerRun[open->second].count(row.batch)) {
      ImportedRun run;
      run.format = importformat::kSglangOneBatch;
      run.sourceFile = ctx.label;
      run.sha256 = ctx.sha256;
      run.label = row.runName;
      run.setup["run_name"] = row.runName;
      run.setup["input_len"] = row.inputLen >= 0 ? std::to_string(row.inputLen) : "unknown";
      run.setup["output_len"] = row.outputLen >= 0 ? std::to_string(row.outputLen) : "unknown";
      run.setup["first_line"] = std::to_string(row.line);
      runs.push_back(std::move(run));
      batchesPerRun.emplace_back();
      openRun[groupKey] = runs.size() - 1;
      open = openRun.find(groupKey);
    }
    ImportedRun& run = runs[open->second];
    batchesPerRun[open->second].insert(row.batch);
    const std::string prefix = "bs" + std::to_string(row.batch) + "/";
    for (const auto& [name, value] : row.metrics) run.metrics[prefix + name] = value;
    if (row.decodeStepS) {
      run.decodeStepByBatch.emplace_back(static_cast<double>(row.batch), *row.decodeStepS);
    } else if (row.outputLen == 1) {
      run.warnings.push_back("line " + std::to_string(row.line) + ": batch " +
                             std::to_string(row.batch) +
                             " has output_len 1, so no decode step was measured (decode keys "
                             "absent)");
    } else {
      run.warnings.push_back("line " + std::to_string(row.line) + ": batch " +
                             std::to_string(row.batch) +
                             ": median_decode_latency missing; no decode step for this batch");
    }
    for (const auto& [key, text] : row.extra) {
      run.setup[prefix + key] = text;
    }
    if (!row.extra.empty()) {
      std::vector<std::string> names;
      for (const auto& [key, text] : row.extra) names.push_back(key);
      run.warnings.push_back("line " + std::to_string(row.line) +
                             ": unknown keys kept as setup text: " + joinNames(names, 20));
    }
  }
};

Result<std::vector<ImportedRun>> importSglangOneBatch(std::vector<ImportedDoc*>& docs,
                                                      const ImportContext& ctx,
                                                      std::vector<std::string>& warnings) {
  Runs r;
  std::optional<Error> firstError;
  for (ImportedDoc* d : docs) {
    auto row = readRow(*d, ctx);
    if (!row) {
      if (!firstError) firstError = row.error();
      warnings.push_back(row.error().position + ": " +
                         (row.error().field.empty() ? "" : "field '" + row.error().field + "': ") +
                         row.error().message + "; line skipped");
      continue;
    }
    r.add(*row, ctx);
  }
  std::vector<ImportedRun>& runs = r.runs;
  if (runs.empty()) {
    if (firstError) return *firstError;
    return Error{ctx.label, "", "", "no bench_one_batch rows found"};
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto& run = runs[i];
    std::sort(run.decodeStepByBatch.begin(), run.decodeStepByBatch.end());
    std::vector<std::string> batches;
    for (const auto b : r.batchesPerRun[i]) batches.push_back(std::to_string(b));
    run.setup["batch_sizes"] = joinNames(batches);
  }
  return std::move(runs);
}

bool detect(const JsonDocument& doc) {
  return hasKey(doc, "median_decode_latency") || hasKey(doc, "prefill_latency") ||
         (hasKey(doc, "run_name") && hasKey(doc, "batch_size"));
}

/// The lines of one file form series of batch sizes: read them together.
void readAll(std::vector<ImportedDoc*>& docs, const ImportContext& ctx, ReadOutcome& out) {
  auto runs = importSglangOneBatch(docs, ctx, out.warnings);
  if (runs) {
    out.runs = std::move(*runs);
  } else if (!out.firstError) {
    out.firstError = runs.error();
  }
}

}  // namespace

FormatReader sglangOneBatchReader() {
  return {.name = importformat::kSglangOneBatch,
          .kind = RunKind::DecodeSweep,
          .tool = "SGLang bench_one_batch",
          .detect = &detect,
          .read = &readAll};
}

}  // namespace qf
