// vLLM `bench throughput --output-json` (spec: shared/spec/formats.md).
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

Result<ImportedRun> importVllmThroughput(ImportedDoc& d, const ImportContext& ctx) {
  ImportedRun run;
  run.format = importformat::kVllmThroughput;
  run.sourceFile = ctx.label;
  run.sha256 = ctx.sha256;
  const JsonReader fr = fieldReader(ctx, d.line);
  const Json& o = d.doc.dom;
  if (!o.is_object()) return fr.error("", "", "expected a JSON object");
  // clang-format off
  static constexpr MetricName kNames[] = {
      {"elapsed_time", "duration_s"},
      {"num_requests", "num_requests"},
      {"total_num_tokens", "total_num_tokens"},
      {"total_output_tokens", "total_output_tokens"},
      {"requests_per_second", "request_throughput_req_s"},
      {"tokens_per_second", "total_token_throughput_tok_s"},
      {"output_tokens_per_second", "output_throughput_tok_s"},
  };
  // clang-format on
  std::vector<std::string> kept, ignored;
  for (auto it = o.begin(); it != o.end(); ++it) {
    const std::string& key = it.key();
    const MetricName* m = nullptr;
    for (const auto& candidate : kNames) {
      if (candidate.key == key) m = &candidate;
    }
    if (m) {
      auto v = fr.optNumber(o, "", key, false, false);
      if (!v) return v.error();
      if (v->has_value()) run.metrics[std::string(m->name)] = **v;
    } else if (it.value().is_primitive()) {
      run.setup[key] = setupText(it.value());
      kept.push_back(key);
    } else {
      ignored.push_back(key);
    }
  }
  if (!kept.empty())
    run.warnings.push_back("unknown keys kept as setup text: " + joinNames(kept, 20));
  if (!ignored.empty()) {
    run.warnings.push_back("unknown keys ignored (not scalars): " + joinNames(ignored, 20));
  }
  if (run.metrics.empty()) return fr.error("", "", "no throughput figures found");
  return run;
}

bool detect(const JsonDocument& doc) {
  return hasKey(doc, "elapsed_time") &&
         (hasKey(doc, "requests_per_second") || hasKey(doc, "tokens_per_second"));
}

}  // namespace

FormatReader vllmThroughputReader() {
  return {.name = importformat::kVllmThroughput,
          .kind = RunKind::Throughput,
          .tool = "vLLM bench throughput",
          .detect = &detect,
          .read = &readEachValue<&importVllmThroughput>};
}

}  // namespace qf
