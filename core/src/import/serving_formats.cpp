// Serving and latency benchmarks: vLLM bench serve / latency / throughput, SGLang
// bench_serving and bench_one_batch (spec: shared/spec/formats.md).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>

#include "import/formats.hpp"

namespace qf {

namespace {

constexpr double kMsPerS = 1000.0;

std::string joinNames(const std::vector<std::string>& names, std::size_t limit = 0) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (limit > 0 && i == limit) {
      out += ", ... (" + std::to_string(names.size() - limit) + " more)";
      break;
    }
    if (i > 0) out += ", ";
    out += names[i];
  }
  return out;
}

/// Records in the run's setup which metrics were read from the file as they stand and which
/// were recomputed from its raw arrays.
void recordMetricSources(ImportedRun& run, const std::set<std::string>& readNames,
                         const std::vector<std::string>& recomputed) {
  std::vector<std::string> readOnly;
  for (const auto& name : readNames) {
    if (std::find(recomputed.begin(), recomputed.end(), name) == recomputed.end()) {
      readOnly.push_back(name);
    }
  }
  run.setup["metrics_read"] = joinNames(readOnly);
  run.setup["metrics_recomputed"] = joinNames(recomputed);
}

/// Relative-or-absolute agreement for figures a file states and we recompute.
bool agrees(double a, double b) {
  return std::abs(a - b) <= 1e-6 * std::max(std::abs(a), std::abs(b)) + 1e-9;
}

/// "p99.9" → "99.9"; empty when `stat` is not a percentile label.
std::string percentileLabel(std::string_view stat) {
  if (stat.size() < 2 || stat[0] != 'p') return {};
  bool dot = false;
  for (std::size_t i = 1; i < stat.size(); ++i) {
    const char c = stat[i];
    if (c == '.' && !dot && i > 1 && i + 1 < stat.size()) {
      dot = true;
    } else if (c < '0' || c > '9') {
      return {};
    }
  }
  return std::string(stat.substr(1));
}

/// `mean_ttft_ms` → {"ttft_mean_ms", "mean"};
/// `p99.9_e2e_latency_ms` → {"e2el_p99.9_ms", "p99.9"}.
struct StatKey {
  std::string name;
  std::string stat;
};
std::optional<StatKey> parseStatKey(std::string_view key) {
  if (key.size() < 4 || key.substr(key.size() - 3) != "_ms") return std::nullopt;
  key.remove_suffix(3);
  const auto us = key.find('_');
  if (us == std::string_view::npos) return std::nullopt;
  const std::string_view stat = key.substr(0, us);
  std::string_view metric = key.substr(us + 1);
  if (stat != "mean" && stat != "median" && stat != "std" && percentileLabel(stat).empty()) {
    return std::nullopt;
  }
  if (metric == "e2e_latency") metric = "e2el";
  if (metric != "ttft" && metric != "tpot" && metric != "itl" && metric != "e2el") {
    return std::nullopt;
  }
  return StatKey{std::string(metric) + "_" + std::string(stat) + "_ms", std::string(stat)};
}

struct MetricName {
  std::string_view key;
  std::string_view name;
};

// clang-format off
constexpr MetricName kVllmMetrics[] = {
    {"duration", "duration_s"},
    {"completed", "completed"},
    {"failed", "failed"},
    {"total_input_tokens", "total_input_tokens"},
    {"total_output_tokens", "total_output_tokens"},
    {"request_throughput", "request_throughput_req_s"},
    {"request_goodput", "request_goodput_req_s"},
    {"request_goodput:", "request_goodput_req_s"},
    {"output_throughput", "output_throughput_tok_s"},
    {"total_token_throughput", "total_token_throughput_tok_s"},
    {"input_throughput", "input_throughput_tok_s"},
    {"max_output_tokens_per_s", "max_output_throughput_tok_s"},
    {"max_concurrent_requests", "max_concurrent_requests"},
    {"mean_latency_ms", "latency_mean_ms"},
};
constexpr MetricName kSglangMetrics[] = {
    {"duration", "duration_s"},
    {"completed", "completed"},
    {"total_input_tokens", "total_input_tokens"},
    {"total_output_tokens", "total_output_tokens"},
    {"total_output_tokens_retokenized", "total_output_tokens_retokenized"},
    {"request_throughput", "request_throughput_req_s"},
    {"input_throughput", "input_throughput_tok_s"},
    {"output_throughput", "output_throughput_tok_s"},
    {"total_throughput", "total_token_throughput_tok_s"},
    {"max_output_tokens_per_s", "max_output_throughput_tok_s"},
    {"concurrency", "concurrency"},
    {"max_concurrent_requests", "max_concurrent_requests"},
    {"accept_length", "accept_length_tokens"},
};
// clang-format on

const std::set<std::string, std::less<>> kVllmSetup = {"date",
                                                       "backend",
                                                       "endpoint_type",
                                                       "label",
                                                       "model_id",
                                                       "tokenizer_id",
                                                       "num_prompts",
                                                       "request_rate",
                                                       "burstiness",
                                                       "max_concurrency",
                                                       "best_of",
                                                       "use_beam_search",
                                                       "ramp_up_strategy",
                                                       "ramp_up_start_rps",
                                                       "ramp_up_end_rps"};
const std::set<std::string, std::less<>> kSglangSetup = {"backend",
                                                         "dataset_name",
                                                         "request_rate",
                                                         "max_concurrency",
                                                         "sharegpt_output_len",
                                                         "random_input_len",
                                                         "random_output_len",
                                                         "random_range_ratio",
                                                         "model_id",
                                                         "tokenizer_id",
                                                         "date"};
/// Per-request members: read by readRequests, never taken as setup.
const std::set<std::string, std::less<>> kRequestKeys = {
    "ttfts",     "itls",        "input_lens",  "output_lens",    "errors",
    "latencies", "queue_times", "start_times", "generated_texts"};

std::optional<std::string_view> metricFor(std::string_view key, bool sglang) {
  if (sglang) {
    for (const auto& m : kSglangMetrics) {
      if (m.key == key) return m.name;
    }
  } else {
    for (const auto& m : kVllmMetrics) {
      if (m.key == key) return m.name;
    }
  }
  return std::nullopt;
}

const char* jsonKind(const Json& v) {
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  if (v.is_boolean()) return "a boolean";
  return "null";
}

const char* seriesKind(JsonSeries::Kind k) {
  switch (k) {
    case JsonSeries::Kind::Empty:
      return "an empty list";
    case JsonSeries::Kind::Numbers:
      return "a list of numbers";
    case JsonSeries::Kind::NumberLists:
      return "a list of lists";
    case JsonSeries::Kind::Strings:
      return "a list of strings";
  }
  return "a list";
}

/// An array that the scanner kept in the DOM (its elements were not of one streamable kind)
/// turned into a series, or an error naming the first element that does not fit.
Result<JsonSeries> seriesFromDom(const Json& v, const std::string& pointer, const std::string& key,
                                 const FieldReader& fr) {
  if (!v.is_array()) {
    return fr.error(pointer, key, std::string("expected an array, found ") + jsonKind(v));
  }
  JsonSeries s;
  s.count = v.size();
  if (v.empty()) return s;
  const Json& first = v.front();
  if (first.is_number()) {
    s.kind = JsonSeries::Kind::Numbers;
  } else if (first.is_array()) {
    s.kind = JsonSeries::Kind::NumberLists;
    s.offsets.push_back(0);
  } else if (first.is_string() || first.is_null()) {
    s.kind = JsonSeries::Kind::Strings;
  } else {
    return fr.error(
        childPointer(pointer, "0"), key,
        std::string("expected numbers, lists of numbers or strings, found ") + jsonKind(first));
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    const Json& e = v[i];
    const std::string ptr = childPointer(pointer, std::to_string(i));
    switch (s.kind) {
      case JsonSeries::Kind::Numbers:
        if (!e.is_number()) {
          return fr.error(ptr, key, std::string("expected a number, found ") + jsonKind(e));
        }
        s.values.push_back(e.get<double>());
        break;
      case JsonSeries::Kind::NumberLists:
        if (!e.is_array()) {
          return fr.error(ptr, key,
                          std::string("expected a list of numbers, found ") + jsonKind(e));
        }
        for (std::size_t j = 0; j < e.size(); ++j) {
          if (!e[j].is_number()) {
            return fr.error(childPointer(ptr, std::to_string(j)), key,
                            std::string("expected a number, found ") + jsonKind(e[j]));
          }
          s.values.push_back(e[j].get<double>());
        }
        s.offsets.push_back(s.values.size());
        break;
      case JsonSeries::Kind::Strings:
        if (!e.is_string() && !e.is_null()) {
          return fr.error(ptr, key, std::string("expected a string, found ") + jsonKind(e));
        }
        s.strings.push_back(e.is_string() ? e.get<std::string>() : std::string());
        break;
      case JsonSeries::Kind::Empty:
        break;
    }
  }
  return s;
}

/// Takes the member `key` of the object at `parentPointer` out of the document: the streamed
/// series when there is one, else the DOM array converted. nullopt when absent or null.
Result<std::optional<JsonSeries>> takeSeries(JsonDocument& doc, const Json* parent,
                                             const std::string& parentPointer,
                                             const std::string& key, const FieldReader& fr) {
  const std::string pointer = childPointer(parentPointer, key);
  const auto it = doc.series.find(pointer);
  if (it != doc.series.end()) {
    JsonSeries s = std::move(it->second);
    doc.series.erase(it);
    return std::optional<JsonSeries>(std::move(s));
  }
  if (parent && parent->is_object()) {
    const auto m = parent->find(key);
    if (m != parent->end() && !m->is_null()) {
      auto s = seriesFromDom(*m, pointer, key, fr);
      if (!s) return s.error();
      return std::optional<JsonSeries>(std::move(*s));
    }
  }
  return std::optional<JsonSeries>();
}

/// A token count from a lengths array: finite, non-negative, integral.
Result<std::int64_t> tokenCount(double v, const std::string& pointer, std::size_t i,
                                const std::string& key, const FieldReader& fr) {
  if (!std::isfinite(v) || v < 0 || std::floor(v) != v || v > 9.0e15) {
    return fr.error(childPointer(pointer, std::to_string(i)), key,
                    "expected a non-negative whole number of tokens, found " + formatNumber(v));
  }
  return static_cast<std::int64_t>(v);
}

/// What readRequests found.
struct RequestArrays {
  bool present = false;       ///< a `ttfts` array was there
  bool latencyKnown = false;  ///< from `latencies`, or ttft + sum(itls)
  std::string latencySource;
  std::size_t failed = 0;
  bool errorsKnown = false;
  std::map<std::string, std::size_t> errorCounts;
  std::vector<std::string> notes;
};

/// Fills run.requests from the per-request arrays of the object at `parentPointer`.
Result<RequestArrays> readRequests(JsonDocument& doc, const Json* parent,
                                   const std::string& parentPointer, const FieldReader& fr,
                                   ImportedRun& run) {
  RequestArrays out;
  auto take = [&](const char* key) { return takeSeries(doc, parent, parentPointer, key, fr); };
  auto ttfts = take("ttfts");
  if (!ttfts) return ttfts.error();
  if (!ttfts->has_value()) return out;
  out.present = true;
  auto itls = take("itls");
  if (!itls) return itls.error();
  auto inputLens = take("input_lens");
  if (!inputLens) return inputLens.error();
  auto outputLens = take("output_lens");
  if (!outputLens) return outputLens.error();
  auto errors = take("errors");
  if (!errors) return errors.error();
  auto latencies = take("latencies");
  if (!latencies) return latencies.error();
  const std::size_t n = (**ttfts).count;

  auto check = [&](const std::optional<JsonSeries>& s, const char* key, JsonSeries::Kind want,
                   const char* wantText) -> std::optional<Error> {
    if (!s) return std::nullopt;
    const std::string pointer = childPointer(parentPointer, key);
    if (s->kind != want && s->kind != JsonSeries::Kind::Empty) {
      return fr.error(pointer, key,
                      std::string("expected ") + wantText + ", found " + seriesKind(s->kind));
    }
    if (s->count != n) {
      return fr.error(pointer, key,
                      "has " + std::to_string(s->count) + " entries but 'ttfts' has " +
                          std::to_string(n) + " (one per request)");
    }
    return std::nullopt;
  };
  using K = JsonSeries::Kind;
  if (auto e = check(*ttfts, "ttfts", K::Numbers, "a list of seconds (one per request)")) return *e;
  if (auto e = check(*itls, "itls", K::NumberLists,
                     "a list of lists of inter-token gaps in seconds (one list per request)")) {
    return *e;
  }
  if (auto e = check(*inputLens, "input_lens", K::Numbers, "a list of token counts")) return *e;
  if (auto e = check(*outputLens, "output_lens", K::Numbers, "a list of token counts")) return *e;
  if (auto e = check(*errors, "errors", K::Strings, "a list of error strings (\"\" = success)")) {
    return *e;
  }
  if (auto e = check(*latencies, "latencies", K::Numbers, "a list of seconds")) return *e;

  run.requests.assign(n, RequestRecord{});
  const std::vector<double>& ttftValues = (**ttfts).values;
  for (std::size_t i = 0; i < n; ++i) {
    RequestRecord& r = run.requests[i];
    r.ttftS = ttftValues[i];
    if (*itls && (**itls).kind == K::NumberLists) {
      const auto& s = **itls;
      r.itlsS.assign(s.values.begin() + static_cast<std::ptrdiff_t>(s.offsets[i]),
                     s.values.begin() + static_cast<std::ptrdiff_t>(s.offsets[i + 1]));
    }
    if (*inputLens && (**inputLens).kind == K::Numbers) {
      auto v = tokenCount((**inputLens).values[i], childPointer(parentPointer, "input_lens"), i,
                          "input_lens", fr);
      if (!v) return v.error();
      r.inputLen = *v;
    }
    if (*outputLens && (**outputLens).kind == K::Numbers) {
      auto v = tokenCount((**outputLens).values[i], childPointer(parentPointer, "output_lens"), i,
                          "output_lens", fr);
      if (!v) return v.error();
      r.outputLen = *v;
    }
    if (*errors && (**errors).kind == K::Strings) {
      const std::string& msg = (**errors).strings[i];
      r.success = msg.empty();
      if (!r.success) {
        ++out.failed;
        if (out.errorCounts.size() < 64 || out.errorCounts.count(msg)) {
          ++out.errorCounts[msg.substr(0, 200)];
        }
      }
    }
    if (*latencies && (**latencies).kind == K::Numbers) {
      r.latencyS = (**latencies).values[i];
    } else {
      double sum = r.ttftS;
      for (const double g : r.itlsS) sum += g;
      r.latencyS = sum;
    }
  }
  out.errorsKnown = errors->has_value();
  if (*latencies) {
    out.latencyKnown = true;
    out.latencySource = "latencies";
  } else if (*itls) {
    out.latencyKnown = true;
    out.latencySource = "ttft + sum(itls)";
  } else {
    out.latencySource = "unknown";
    out.notes.push_back(
        "no 'latencies' or 'itls' array: end-to-end latency and TPOT cannot be "
        "recomputed; the file's figures are kept");
    for (auto& r : run.requests) r.latencyS = 0;
  }
  if (!*itls) out.notes.push_back("no 'itls' array: ITL cannot be recomputed");
  if (!*errors) {
    out.notes.push_back("no 'errors' array: every request is taken as successful");
  }
  return out;
}

/// The keys of a serving object that are neither setup nor metrics nor per-request arrays.
struct KeyReport {
  std::vector<std::string> keptAsSetup;
  std::vector<std::string> ignored;
};

Result<ImportedRun> importServing(ImportedDoc& d, const ImportContext& ctx, bool sglang) {
  ImportedRun run;
  run.format = sglang ? importformat::kSglangServing : importformat::kVllmServe;
  run.sourceFile = ctx.label;
  run.sha256 = ctx.sha256;
  const FieldReader fr(ctx, d.line);
  const Json& o = d.doc.dom;
  if (!o.is_object()) return fr.error("", "", "expected a JSON object");
  const auto& setupKeys = sglang ? kSglangSetup : kVllmSetup;
  std::set<std::string> percentileLabels;
  std::set<std::string> readNames;
  KeyReport keys;
  for (auto it = o.begin(); it != o.end(); ++it) {
    const std::string& key = it.key();
    const Json& v = it.value();
    if (kRequestKeys.count(key) || (sglang && key == "details")) continue;
    if (setupKeys.count(key)) {
      run.setup[key] = setupText(v);
      continue;
    }
    std::optional<std::string> name;
    if (const auto m = metricFor(key, sglang)) {
      name = std::string(*m);
    } else if (const auto s = parseStatKey(key)) {
      name = s->name;
      const std::string label = percentileLabel(s->stat);
      if (!label.empty()) percentileLabels.insert(label);
    }
    if (name) {
      auto num = fr.number(o, "", key);
      if (!num) return num.error();
      if (!num->has_value()) continue;  // null: not measured (goodput without SLOs)
      if (!std::isfinite(**num)) {
        run.warnings.push_back("'" + key + "' is " + formatNumber(**num) + ": not imported");
        continue;
      }
      run.metrics[*name] = **num;
      readNames.insert(*name);
      continue;
    }
    if (v.is_primitive()) {
      run.setup[key] = setupText(v);
      keys.keptAsSetup.push_back(key);
    } else {
      keys.ignored.push_back(key);
    }
  }

  // Per-request arrays: top level, or under "details" (SGLang).
  auto arrays = readRequests(d.doc, &o, "", fr, run);
  if (!arrays) return arrays.error();
  if (!arrays->present && sglang) {
    const auto det = o.find("details");
    const Json* detObj = (det != o.end() && det->is_object()) ? &*det : nullptr;
    arrays = readRequests(d.doc, detObj, "/details", fr, run);
    if (!arrays) return arrays.error();
  }
  for (const auto& note : arrays->notes) run.warnings.push_back(note);

  std::vector<std::string> recomputed;
  if (arrays->present) {
    for (const char* standard : {"50", "90", "99"}) percentileLabels.erase(standard);
    recomputed = recomputeServingMetrics(run, percentileLabels, arrays->latencyKnown);
    run.setup["e2el_source"] = arrays->latencySource;
    const auto successes = static_cast<double>(run.requests.size() - arrays->failed);
    if (arrays->errorsKnown) {
      const auto completedIt = run.metrics.find("completed");
      if (completedIt != run.metrics.end() && completedIt->second != successes) {
        run.warnings.push_back("'completed' says " + formatNumber(completedIt->second) +
                               " but the 'errors' array has " + formatNumber(successes) +
                               " successful requests");
      }
      if (!run.metrics.count("failed")) {
        run.metrics["failed"] = static_cast<double>(arrays->failed);
        recomputed.push_back("failed");
      }
    }
    if (arrays->failed > 0) {
      std::vector<std::pair<std::size_t, std::string>> byCount;
      for (const auto& [msg, count] : arrays->errorCounts) byCount.emplace_back(count, msg);
      std::sort(byCount.begin(), byCount.end(), std::greater<>());
      run.warnings.push_back(
          std::to_string(arrays->failed) + " of " + std::to_string(run.requests.size()) +
          " requests failed; most common error (" + std::to_string(byCount.front().first) +
          "x): \"" + byCount.front().second + "\"");
    }
  }
  recordMetricSources(run, readNames, recomputed);

  // Members read but not used.
  for (const auto& [pointer, s] : d.doc.series) {
    run.warnings.push_back("skipped '" + pointer.substr(1) + "' (" + std::to_string(s.count) +
                           " entries): not used by the import");
  }
  for (const char* key : {"generated_texts", "queue_times", "start_times"}) {
    if (o.contains(key)) {
      run.warnings.push_back(std::string("skipped '") + key + "': not used by the import");
    }
  }
  if (!keys.keptAsSetup.empty()) {
    run.warnings.push_back("unknown keys kept as setup text: " + joinNames(keys.keptAsSetup, 20));
  }
  if (!keys.ignored.empty()) {
    run.warnings.push_back("unknown keys ignored (not scalars): " + joinNames(keys.ignored, 20));
  }
  d.doc.series.clear();

  // The label as the file states it.
  auto setupValue = [&](const char* key) -> std::string {
    const auto it = run.setup.find(key);
    if (it == run.setup.end() || it->second == "none" || it->second.empty()) return {};
    return it->second;
  };
  for (const char* key : {"label", "model_id", "tokenizer_id", "backend"}) {
    run.label = setupValue(key);
    if (!run.label.empty()) break;
  }
  if (run.metrics.empty() && run.requests.empty()) {
    return fr.error("", "", "no serving figures found (no duration, throughput or latency keys)");
  }
  return run;
}

/// One value from a (possibly reordered) sample for the recompute step.
struct RecomputeSink {
  ImportedRun& run;
  std::vector<std::string> names;
  void set(const std::string& name, double value) {
    const auto it = run.metrics.find(name);
    if (it != run.metrics.end() && !agrees(it->second, value)) {
      std::ostringstream msg;
      msg << name << ": the file says " << formatNumber(it->second)
          << ", the per-request arrays give " << formatNumber(value)
          << " (numpy linear percentile); the recomputed value is used";
      run.warnings.push_back(msg.str());
    }
    run.metrics[name] = value;
    names.push_back(name);
  }
};

/// numpy's linear percentile from the order statistics at ranks ⌊h⌋ and ⌊h⌋ + 1.
double lerpPercentile(std::size_t n, double pct, const std::map<std::size_t, double>& order) {
  const double h = (static_cast<double>(n) - 1.0) * std::clamp(pct, 0.0, 100.0) / 100.0;
  const auto lo = std::min(static_cast<std::size_t>(std::floor(h)), n - 1);
  const double frac = h - static_cast<double>(lo);
  const double a = order.at(lo);
  if (lo + 1 >= n || frac == 0) return a;
  const double b = order.at(lo + 1);
  return frac >= 0.5 ? b - (b - a) * (1.0 - frac) : a + (b - a) * frac;
}

/// Ranks ⌊h⌋ and ⌊h⌋ + 1 a percentile needs.
void addPercentileRanks(std::size_t n, double pct, std::vector<std::size_t>& ranks) {
  const double h = (static_cast<double>(n) - 1.0) * std::clamp(pct, 0.0, 100.0) / 100.0;
  const auto lo = std::min(static_cast<std::size_t>(std::floor(h)), n - 1);
  ranks.push_back(lo);
  if (lo + 1 < n) ranks.push_back(lo + 1);
}

/// The order statistics of `v` at `ranks`. Selecting in ascending rank order, each step only
/// partitions what lies above the previous rank: a few passes over the data in all, instead
/// of a full pass (or a sort) per percentile. Reorders `v`.
std::map<std::size_t, double> orderStatistics(std::vector<double>& v,
                                              std::vector<std::size_t> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::map<std::size_t, double> out;
  std::size_t from = 0;
  for (const std::size_t r : ranks) {
    if (r >= v.size()) break;
    std::nth_element(v.begin() + static_cast<std::ptrdiff_t>(from),
                     v.begin() + static_cast<std::ptrdiff_t>(r), v.end());
    out[r] = v[r];
    from = r + 1;
  }
  return out;
}

/// mean, median, std, percentiles of seconds `xs`, written in `unitScale` units.
void summarize(RecomputeSink& sink, const std::string& metric, std::vector<double>& xs,
               const std::vector<std::string>& labels, const std::string& unitSuffix,
               double unitScale, bool withMedianAndStd) {
  if (xs.empty()) return;
  const std::size_t count = xs.size();
  double sum = 0;
  for (const double x : xs) sum += x;
  const double n = static_cast<double>(count);
  const double mean = sum / n;
  double sq = 0;
  for (const double x : xs) sq += (x - mean) * (x - mean);
  std::vector<std::size_t> ranks = {count / 2};
  if (count % 2 == 0) ranks.push_back(count / 2 - 1);
  std::vector<double> pcts;
  for (const auto& label : labels) {
    pcts.push_back(std::stod(label));
    addPercentileRanks(count, pcts.back(), ranks);
  }
  const auto order = orderStatistics(xs, ranks);
  sink.set(metric + "_mean" + unitSuffix, mean * unitScale);
  if (withMedianAndStd) {
    const double median = count % 2 == 1 ? order.at(count / 2)
                                         : (order.at(count / 2 - 1) + order.at(count / 2)) / 2.0;
    sink.set(metric + "_median" + unitSuffix, median * unitScale);
    sink.set(metric + "_std" + unitSuffix, std::sqrt(sq / n) * unitScale);
  }
  for (std::size_t i = 0; i < labels.size(); ++i) {
    sink.set(std::string(metric).append("_p").append(labels[i]).append(unitSuffix),
             lerpPercentile(count, pcts[i], order) * unitScale);
  }
}

std::vector<std::string> percentileList(const std::set<std::string>& extra) {
  std::vector<std::string> labels = {"50", "90", "99"};
  for (const auto& e : extra) {
    if (std::find(labels.begin(), labels.end(), e) == labels.end()) labels.push_back(e);
  }
  return labels;
}

}  // namespace

double percentileLinear(std::vector<double>& values, double pct) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::vector<std::size_t> ranks;
  addPercentileRanks(values.size(), pct, ranks);
  return lerpPercentile(values.size(), pct, orderStatistics(values, ranks));
}

double medianOf(std::vector<double>& values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t n = values.size();
  if (n % 2 == 1) return orderStatistics(values, {n / 2}).at(n / 2);
  const auto order = orderStatistics(values, {n / 2 - 1, n / 2});
  return (order.at(n / 2 - 1) + order.at(n / 2)) / 2.0;
}

std::vector<std::string> recomputeServingMetrics(ImportedRun& run,
                                                 const std::set<std::string>& extraPercentiles,
                                                 bool latencyKnown) {
  std::vector<double> ttft, tpot, itl, e2el;
  std::size_t gaps = 0;
  std::size_t skippedNonFinite = 0;
  for (const auto& r : run.requests) {
    if (r.success) gaps += r.itlsS.size();
  }
  itl.reserve(gaps);
  for (const auto& r : run.requests) {
    if (!r.success) continue;
    if (!std::isfinite(r.ttftS) || (latencyKnown && !std::isfinite(r.latencyS))) {
      ++skippedNonFinite;
      continue;
    }
    ttft.push_back(r.ttftS);
    if (latencyKnown) {
      e2el.push_back(r.latencyS);
      if (r.outputLen > 1) {
        tpot.push_back((r.latencyS - r.ttftS) / static_cast<double>(r.outputLen - 1));
      }
    }
    for (const double g : r.itlsS) {
      if (std::isfinite(g)) itl.push_back(g);
    }
  }
  if (skippedNonFinite > 0) {
    run.warnings.push_back(std::to_string(skippedNonFinite) +
                           " requests with a non-finite ttft or latency left out of the "
                           "recomputed statistics");
  }
  RecomputeSink sink{run, {}};
  const auto labels = percentileList(extraPercentiles);
  summarize(sink, "ttft", ttft, labels, "_ms", kMsPerS, true);
  summarize(sink, "tpot", tpot, labels, "_ms", kMsPerS, true);
  summarize(sink, "itl", itl, labels, "_ms", kMsPerS, true);
  summarize(sink, "e2el", e2el, labels, "_ms", kMsPerS, true);
  return sink.names;
}

Result<ImportedRun> importVllmServe(ImportedDoc& doc, const ImportContext& ctx) {
  return importServing(doc, ctx, false);
}

Result<ImportedRun> importSglangServing(ImportedDoc& doc, const ImportContext& ctx) {
  return importServing(doc, ctx, true);
}

Result<ImportedRun> importVllmLatency(ImportedDoc& d, const ImportContext& ctx) {
  ImportedRun run;
  run.format = importformat::kVllmLatency;
  run.sourceFile = ctx.label;
  run.sha256 = ctx.sha256;
  const FieldReader fr(ctx, d.line);
  const Json& o = d.doc.dom;
  if (!o.is_object()) return fr.error("", "", "expected a JSON object");
  std::set<std::string> readNames;
  std::set<std::string> labels;
  std::vector<std::string> kept, ignored;
  for (auto it = o.begin(); it != o.end(); ++it) {
    const std::string& key = it.key();
    if (key == "latencies") continue;
    if (key == "avg_latency") {
      auto v = fr.number(o, "", key);
      if (!v) return v.error();
      if (v->has_value()) {
        run.metrics["latency_mean_s"] = **v;
        readNames.insert("latency_mean_s");
      }
    } else if (key == "percentiles") {
      const Json& p = it.value();
      if (!p.is_object()) {
        return fr.error(
            "/percentiles", key,
            std::string("expected an object {\"50\": seconds, ...}, found ") + jsonKind(p));
      }
      for (auto pit = p.begin(); pit != p.end(); ++pit) {
        const std::string label = percentileLabel("p" + pit.key());
        if (label.empty()) {
          return fr.error(childPointer("/percentiles", pit.key()), pit.key(),
                          "expected a percentile such as \"99\" as the key");
        }
        auto v = fr.number(p, "/percentiles", pit.key());
        if (!v) return v.error();
        if (!v->has_value()) continue;
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
  std::vector<std::string> recomputed;
  if (lat->has_value()) {
    JsonSeries& s = **lat;
    if (s.kind != JsonSeries::Kind::Numbers && s.kind != JsonSeries::Kind::Empty) {
      return fr.error("/latencies", "latencies",
                      std::string("expected a list of seconds, found ") + seriesKind(s.kind));
    }
    run.metrics["iterations"] = static_cast<double>(s.count);
    std::vector<double> xs;
    for (const double x : s.values) {
      if (std::isfinite(x)) xs.push_back(x);
    }
    RecomputeSink sink{run, {}};
    std::vector<std::string> order = {"50", "90", "99"};
    for (const auto& l : labels) {
      if (std::find(order.begin(), order.end(), l) == order.end()) order.push_back(l);
    }
    summarize(sink, "latency", xs, order, "_s", 1.0, false);
    recomputed = sink.names;
    recomputed.push_back("iterations");
  }
  recordMetricSources(run, readNames, recomputed);
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

Result<ImportedRun> importVllmThroughput(ImportedDoc& d, const ImportContext& ctx) {
  ImportedRun run;
  run.format = importformat::kVllmThroughput;
  run.sourceFile = ctx.label;
  run.sha256 = ctx.sha256;
  const FieldReader fr(ctx, d.line);
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
      auto v = fr.number(o, "", key);
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

Result<std::vector<ImportedRun>> importSglangOneBatch(std::vector<ImportedDoc*>& docs,
                                                      const ImportContext& ctx,
                                                      std::vector<std::string>& warnings) {
  struct Row {
    std::size_t line = 0;
    std::string runName;
    std::int64_t batch = 0, inputLen = -1, outputLen = -1;
    std::map<std::string, double> metrics;
    std::optional<double> decodeStepS;
    std::map<std::string, std::string> extra;
  };
  std::vector<ImportedRun> runs;
  std::vector<std::set<std::int64_t>> batchesPerRun;
  std::map<std::tuple<std::string, std::int64_t, std::int64_t>, std::size_t> openRun;
  std::optional<Error> firstError;
  struct ScaledName {
    std::string_view key;
    std::string_view name;
    double scale;
  };
  // clang-format off
  static constexpr ScaledName kNames[] = {
      {"prefill_latency", "prefill_latency_ms", kMsPerS},
      {"prefill_throughput", "prefill_throughput_tok_s", 1.0},
      {"median_decode_latency", "decode_step_ms", kMsPerS},
      {"median_decode_throughput", "decode_throughput_tok_s", 1.0},
      {"total_latency", "total_latency_s", 1.0},
      {"overall_throughput", "overall_throughput_tok_s", 1.0},
  };
  // clang-format on
  for (ImportedDoc* d : docs) {
    const FieldReader fr(ctx, d->line);
    const Json& o = d->doc.dom;
    auto rowOrError = [&]() -> Result<Row> {
      Row row;
      row.line = d->line;
      if (!o.is_object()) return fr.error("", "", "expected a JSON object");
      const auto name = o.find("run_name");
      if (name != o.end() && !name->is_null()) row.runName = setupText(*name);
      auto intField = [&](const char* key, bool required) -> Result<std::int64_t> {
        auto v = fr.number(o, "", key);
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
        auto v = fr.number(o, "", key);
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
    };
    auto row = rowOrError();
    if (!row) {
      if (!firstError) firstError = row.error();
      warnings.push_back(row.error().position + ": " +
                         (row.error().field.empty() ? "" : "field '" + row.error().field + "': ") +
                         row.error().message + "; line skipped");
      continue;
    }
    const auto groupKey = std::make_tuple(row->runName, row->inputLen, row->outputLen);
    auto open = openRun.find(groupKey);
    if (open == openRun.end() || batchesPerRun[open->second].count(row->batch)) {
      ImportedRun run;
      run.format = importformat::kSglangOneBatch;
      run.sourceFile = ctx.label;
      run.sha256 = ctx.sha256;
      run.label = row->runName;
      run.setup["run_name"] = row->runName;
      run.setup["input_len"] = row->inputLen >= 0 ? std::to_string(row->inputLen) : "unknown";
      run.setup["output_len"] = row->outputLen >= 0 ? std::to_string(row->outputLen) : "unknown";
      run.setup["first_line"] = std::to_string(row->line);
      runs.push_back(std::move(run));
      batchesPerRun.emplace_back();
      openRun[groupKey] = runs.size() - 1;
      open = openRun.find(groupKey);
    }
    ImportedRun& run = runs[open->second];
    batchesPerRun[open->second].insert(row->batch);
    const std::string prefix = "bs" + std::to_string(row->batch) + "/";
    for (const auto& [name, value] : row->metrics) run.metrics[prefix + name] = value;
    if (row->decodeStepS) {
      run.decodeStepByBatch.emplace_back(static_cast<double>(row->batch), *row->decodeStepS);
    } else if (row->outputLen == 1) {
      run.warnings.push_back("line " + std::to_string(row->line) + ": batch " +
                             std::to_string(row->batch) +
                             " has output_len 1, so no decode step was measured (decode keys "
                             "absent)");
    } else {
      run.warnings.push_back("line " + std::to_string(row->line) + ": batch " +
                             std::to_string(row->batch) +
                             ": median_decode_latency missing; no decode step for this batch");
    }
    for (const auto& [key, text] : row->extra) {
      run.setup[prefix + key] = text;
    }
    if (!row->extra.empty()) {
      std::vector<std::string> names;
      for (const auto& [key, text] : row->extra) names.push_back(key);
      run.warnings.push_back("line " + std::to_string(row->line) +
                             ": unknown keys kept as setup text: " + joinNames(names, 20));
    }
  }
  if (runs.empty()) {
    if (firstError) return *firstError;
    return Error{ctx.label, "", "", "no bench_one_batch rows found"};
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto& run = runs[i];
    std::sort(run.decodeStepByBatch.begin(), run.decodeStepByBatch.end());
    std::vector<std::string> batches;
    for (const auto b : batchesPerRun[i]) batches.push_back(std::to_string(b));
    run.setup["batch_sizes"] = joinNames(batches);
  }
  return runs;
}

}  // namespace qf
