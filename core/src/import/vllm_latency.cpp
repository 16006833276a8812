// vLLM `bench latency --output-json` (spec: shared/spec/formats.md).
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/numbers.hpp>

#include "import/serving_common.hpp"

namespace qf {

using namespace serving;

namespace {

namespace {
/// A batch's end-to-end latency a benchmark can have measured: above a microsecond, below
/// eleven days. 0, a negative, 1e-300 or 1e308 s is a broken file, not a figure to attach.
constexpr double kMinLatencyS = 1e-6;
constexpr double kMaxLatencyS = 1e6;
bool plausibleLatency(double s) {
  return s > kMinLatencyS && s < kMaxLatencyS;
}
std::string implausible(double s) {
  return words("a latency of ", s, " s is not one a benchmark measured; expected seconds between ",
               kMinLatencyS, " and ", kMaxLatencyS);
}
}  // namespace

Result<ImportedRun> importVllmLatency(ImportedDoc& d, const ImportContext& ctx) {
  ImportedRun run;
  run.format = importformat::kVllmLatency;
  run.sourceFile = ctx.label;
  run.sha256 = ctx.sha256;
  const JsonReader fr = fieldReader(ctx, d.line);
  const Json& o = d.doc.dom;
  if (!o.is_object()) return fr.error("", "", "expected a JSON object");
  std::set<std::string> readNames;
  std::set<std::string> labels;
  std::vector<std::string> kept, ignored;
  for (auto it = o.begin(); it != o.end(); ++it) {
    const std::string& key = it.key();
    if (key == "latencies") continue;
    if (key == "avg_latency") {
      auto v = fr.optNumber(o, "", key, false, false);
      if (!v) return v.error();
      if (v->has_value() && !plausibleLatency(**v)) return fr.error("", key, implausible(**v));
      if (v->has_value()) {
        run.metrics["latency_mean_s"] = **v;
        readNames.insert("latency_mean_s");
      }
    } else if (key == "percentiles") {
      const Json& p = it.value();
      if (!p.is_object()) {
        return fr.error("/percentiles", key,
                        std::string("expected an object {\"50\": seconds, ...}, found ") +
                            JsonReader::describe(p));
      }
      for (auto pit = p.begin(); pit != p.end(); ++pit) {
        const std::string label = percentileLabel("p" + pit.key());
        if (label.empty()) {
          return fr.error(childPointer("/percentiles", pit.key()), pit.key(),
                          "expected a percentile such as \"99\" as the key");
        }
        auto v = fr.optNumber(p, "/percentiles", pit.key(), false, false);
        if (!v) return v.error();
        if (!v->has_value()) continue;
        if (!plausibleLatency(**v)) {
          return fr.error(childPointer("/percentiles", pit.key()), pit.key(), implausible(**v));
        }
        const std::string name = "latency_p" + label + "_s";
        run.metrics[name] = **v;
        readNames.insert(name);
        labels.insert(label);
      }
    } else if (it.value().is_primitive()) {
      run.setup[key] = setupText(it.value());
      kept.push_back(key);
    } else {
      ignored.push_back(key);
    }
  }
  auto lat = takeSeries(d.doc, &o, "", "latencies", fr);
  if (!lat) return lat.error();
  std::vector<std::string> recomputed, checked;
  if (lat->has_value()) {
    JsonSeries& s = **lat;
    if (s.kind != JsonSeries::Kind::Numbers && s.kind != JsonSeries::Kind::Empty) {
      return fr.error("/latencies", "latencies",
                      std::string("expected a list of seconds, found ") + seriesKind(s.kind));
    }
    run.metrics["iterations"] = static_cast<double>(s.count);
    std::vector<double> xs;
    for (std::size_t i = 0; i < s.values.size(); ++i) {
      const double x = s.values[i];
      if (!std::isfinite(x)) continue;
      if (!plausibleLatency(x)) {
        return fr.error(childPointer("/latencies", std::to_string(i)), "latencies", implausible(x));
      }
      xs.push_back(x);
    }
    RecomputeSink sink{run, {}, {}};
    std::vector<std::string> order = {"50", "90", "99"};
    for (const auto& l : labels) {
      if (std::find(order.begin(), order.end(), l) == order.end()) order.push_back(l);
    }
    summarize(sink, "latency", xs, order, "_s", 1.0, false);
    recomputed = sink.names;
    recomputed.push_back("iterations");
    checked = sink.checked;
  }
  recordMetricSources(run, readNames, recomputed, checked);
  run.warnings.push_back(
      "the file does not record batch size, input or output length (they "
      "were command-line options): note them with the run");
  if (!kept.empty())
    run.warnings.push_back("unknown keys kept as setup text: " + joinNames(kept, 20));
  if (!ignored.empty()) {
    run.warnings.push_back("unknown keys ignored (not scalars): " + joinNames(ignored, 20));
  }
  if (run.metrics.empty()) return fr.error("", "", "no latency figures found");
  return run;
}

bool detect(const JsonDocument& doc) {
  return hasKey(doc, "avg_latency") ||
         (hasKey(doc, "latencies") && isObjectKey(doc, "percentiles") && !hasKey(doc, "ttfts"));
}

}  // namespace

FormatReader vllmLatencyReader() {
  return {.name = importformat::kVllmLatency,
          .kind = RunKind::Latency,
          .tool = "vLLM bench latency",
          .detect = &detect,
          .read = &readEachValue<&importVllmLatency>};
}

}  // namespace qf
