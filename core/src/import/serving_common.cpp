// What vLLM bench serve and SGLang bench_serving share: key names, the per-request arrays,
// and the serving statistics recomputed from them (numpy's percentile, as the tools do).
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

#include <quantfront/core/base/percentile.hpp>

#include "import/serving_common.hpp"

namespace qf {

namespace serving {

/// Records in the run's setup which metrics were read from the file as they stand and which
/// were recomputed from its raw arrays.
void recordMetricSources(ImportedRun& run, const std::set<std::string>& readNames,
                         const std::vector<std::string>& recomputed,
                         const std::vector<std::string>& checked) {
  std::vector<std::string> readOnly;
  for (const auto& name : readNames) {
    if (std::find(recomputed.begin(), recomputed.end(), name) == recomputed.end()) {
      readOnly.push_back(name);
    }
  }
  run.setup["metrics_read"] = joinNames(readOnly);
  run.setup["metrics_recomputed"] = joinNames(recomputed);
  run.setup["metrics_checked"] = joinNames(checked);
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
                                 const JsonReader& fr) {
  if (!v.is_array()) {
    return fr.error(pointer, key,
                    std::string("expected an array, found ") + JsonReader::describe(v));
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
    return fr.error(childPointer(pointer, "0"), key,
                    std::string("expected numbers, lists of numbers or strings, found ") +
                        JsonReader::describe(first));
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    const Json& e = v[i];
    const std::string ptr = childPointer(pointer, std::to_string(i));
    switch (s.kind) {
      case JsonSeries::Kind::Numbers:
        if (!e.is_number()) {
          return fr.error(ptr, key,
                          std::string("expected a number, found ") + JsonReader::describe(e));
        }
        s.values.push_back(e.get<double>());
        break;
      case JsonSeries::Kind::NumberLists:
        if (!e.is_array()) {
          return fr.error(
              ptr, key,
              std::string("expected a list of numbers, found ") + JsonReader::describe(e));
        }
        for (std::size_t j = 0; j < e.size(); ++j) {
          if (!e[j].is_number()) {
            return fr.error(childPointer(ptr, std::to_string(j)), key,
                            std::string("expected a number, found ") + JsonReader::describe(e[j]));
          }
          s.values.push_back(e[j].get<double>());
        }
        s.offsets.push_back(s.values.size());
        break;
      case JsonSeries::Kind::Strings:
        if (!e.is_string() && !e.is_null()) {
          return fr.error(ptr, key,
                          std::string("expected a string, found ") + JsonReader::describe(e));
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
                                             const std::string& key, const JsonReader& fr) {
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
                                const std::string& key, const JsonReader& fr) {
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
                                   const std::string& parentPointer, const JsonReader& fr,
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

  // A time below zero is no measurement (a NaN is a request the file marks as not timed
  // and is left out of the statistics later, with a warning).
  auto negativeTime = [&](double v, const char* key, std::size_t i) -> std::optional<Error> {
    if (!(std::isfinite(v) && v < 0)) return std::nullopt;
    return fr.error(childPointer(childPointer(parentPointer, key), std::to_string(i)), key,
                    "expected a time in seconds >= 0, found " + formatNumber(v));
  };
  run.requests.assign(n, RequestRecord{});
  const std::vector<double>& ttftValues = (**ttfts).values;
  for (std::size_t i = 0; i < n; ++i) {
    RequestRecord& r = run.requests[i];
    r.ttftS = ttftValues[i];
    if (auto e = negativeTime(r.ttftS, "ttfts", i)) return *e;
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
      if (auto e = negativeTime(r.latencyS, "latencies", i)) return *e;
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

/// True for the latency statistics of a serving run (TTFT, TPOT, ITL, E2E in ms).
bool isLatencyMetric(const std::string& name) {
  for (const char* prefix : {"ttft_", "tpot_", "itl_", "e2el_", "latency_"}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

/// A run in which no request completed has no latencies (vLLM writes 0.0 for every latency
/// statistic then): those figures are dropped and the failures named. A file without its
/// duration, request count or throughput says so.
void checkCompleteness(ImportedRun& run, const RequestArrays& arrays,
                       std::set<std::string>& readNames, std::vector<std::string>& recomputed,
                       std::vector<std::string>& checked) {
  auto stated = [&](const char* name) -> std::optional<double> {
    const auto it = run.metrics.find(name);
    if (it == run.metrics.end()) return std::nullopt;
    return it->second;
  };
  const auto completed = stated("completed");
  const auto failed = stated("failed");
  std::size_t successes = 0;
  for (const auto& r : run.requests) successes += r.success ? 1 : 0;
  const bool noneFromArrays =
      arrays.present && arrays.errorsKnown && !run.requests.empty() && successes == 0;
  const bool noneStated = completed && *completed == 0;
  if (noneStated || noneFromArrays) {
    std::vector<std::string> dropped;
    for (auto it = run.metrics.begin(); it != run.metrics.end();) {
      if (isLatencyMetric(it->first)) {
        dropped.push_back(it->first);
        readNames.erase(it->first);
        it = run.metrics.erase(it);
      } else {
        ++it;
      }
    }
    recomputed.erase(std::remove_if(recomputed.begin(), recomputed.end(), isLatencyMetric),
                     recomputed.end());
    checked.erase(std::remove_if(checked.begin(), checked.end(), isLatencyMetric), checked.end());
    double total = 0;
    if (failed && *failed > 0) {
      total = *failed + completed.value_or(0);
    } else if (noneFromArrays) {
      total = static_cast<double>(run.requests.size());
    }
    std::string msg = total > 0 ? "all " + formatNumber(total) + " requests failed"
                                : std::string("no request completed ('completed' is 0)");
    msg += dropped.empty() ? ": the run has no latency figures"
                           : ": the latency figures (" + joinNames(dropped, 6) +
                                 ") describe no request and were not imported";
    run.warnings.push_back(msg);
    run.setup["all_requests_failed"] = "true";
  }
  for (const auto& [name, key, what] :
       {std::tuple{"duration_s", "duration", "the run's duration"},
        std::tuple{"completed", "completed", "the number of completed requests"},
        std::tuple{"request_throughput_req_s", "request_throughput", "the request throughput"}}) {
    if (!run.metrics.count(name)) {
      run.warnings.push_back(std::string("the file has no '") + key + "' (" + what +
                             "): it is missing from this run");
    }
  }
}

/// The keys of a serving object that are neither setup nor metrics nor per-request arrays.
struct KeyReport {
  std::vector<std::string> keptAsSetup;
  std::vector<std::string> ignored;
};

/// A warning for each member of the file the import read but does not use (the streamed
/// series, the per-request texts and times, unknown keys), then the series released.
void noteUnusedMembers(ImportedRun& run, ImportedDoc& d, const KeyReport& keys) {
  for (const auto& [pointer, s] : d.doc.series) {
    run.warnings.push_back("skipped '" + pointer.substr(1) + "' (" + std::to_string(s.count) +
                           " entries): not used by the import");
  }
  for (const char* key : {"generated_texts", "queue_times", "start_times"}) {
    if (d.doc.dom.contains(key)) {
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
}

int servingFlavour(const JsonDocument& doc) {
  int vllm = 0, sglang = 0, serving = 0;
  for (const char* key : {"request_throughput", "mean_ttft_ms", "median_ttft_ms", "completed",
                          "duration", "ttfts", "output_throughput", "total_input_tokens"}) {
    if (hasKey(doc, key)) ++serving;
  }
  for (const char* key :
       {"date", "model_id", "tokenizer_id", "num_prompts", "burstiness", "request_goodput",
        "request_goodput:", "failed", "total_token_throughput", "max_output_tokens_per_s",
        "best_of", "use_beam_search", "endpoint_type", "label", "mean_e2el_ms"}) {
    if (hasKey(doc, key)) ++vllm;
  }
  for (const char* key :
       {"dataset_name", "random_input_len", "random_output_len", "random_range_ratio",
        "sharegpt_output_len", "total_output_tokens_retokenized", "accept_length", "concurrency",
        "mean_e2e_latency_ms", "median_e2e_latency_ms", "p95_itl_ms"}) {
    if (hasKey(doc, key)) ++sglang;
  }
  if (isObjectKey(doc, "details")) sglang += 2;
  const auto rate = doc.dom.find("request_rate");
  if (rate != doc.dom.end() && rate->is_number() && !std::isfinite(rate->get<double>()))
    sglang += 2;
  if (serving == 0 && vllm + sglang < 2) return 0;
  if (serving == 0 && !hasKey(doc, "mean_ttft_ms") && vllm + sglang < 3) return 0;
  return sglang > vllm ? 2 : 1;
}

Result<ImportedRun> importServing(ImportedDoc& d, const ImportContext& ctx, bool sglang) {
  ImportedRun run;
  run.format = sglang ? importformat::kSglangServing : importformat::kVllmServe;
  run.sourceFile = ctx.label;
  run.sha256 = ctx.sha256;
  const JsonReader fr = fieldReader(ctx, d.line);
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
      auto num = fr.optNumber(o, "", key, false, false);
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

  std::vector<std::string> recomputed, checked;
  if (arrays->present) {
    for (const char* standard : {"50", "90", "99"}) percentileLabels.erase(standard);
    recomputed = recomputeServingMetrics(run, percentileLabels, arrays->latencyKnown, &checked);
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
  checkCompleteness(run, *arrays, readNames, recomputed, checked);
  recordMetricSources(run, readNames, recomputed, checked);

  noteUnusedMembers(run, d, keys);

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
             percentileFromOrder(count, pcts[i], order) * unitScale);
  }
}

std::vector<std::string> percentileList(const std::set<std::string>& extra) {
  std::vector<std::string> labels = {"50", "90", "99"};
  for (const auto& e : extra) {
    if (std::find(labels.begin(), labels.end(), e) == labels.end()) labels.push_back(e);
  }
  return labels;
}

}  // namespace serving

using namespace serving;

std::vector<std::string> recomputeServingMetrics(ImportedRun& run,
                                                 const std::set<std::string>& extraPercentiles,
                                                 bool latencyKnown,
                                                 std::vector<std::string>* checked) {
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
  RecomputeSink sink{run, {}, {}};
  const auto labels = percentileList(extraPercentiles);
  summarize(sink, "ttft", ttft, labels, "_ms", kMsPerS, true);
  summarize(sink, "tpot", tpot, labels, "_ms", kMsPerS, true);
  summarize(sink, "itl", itl, labels, "_ms", kMsPerS, true);
  summarize(sink, "e2el", e2el, labels, "_ms", kMsPerS, true);
  if (checked) *checked = sink.checked;
  return sink.names;
}

}  // namespace qf
