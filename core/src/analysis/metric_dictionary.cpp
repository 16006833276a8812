// The metric dictionary: readable names, units and descriptions by exact name or pattern.
#include <quantfront/core/analysis/metric_dictionary.hpp>

#include <algorithm>
#include <array>
#include <cctype>

namespace qf {

namespace {

struct Entry {
  const char* name;
  const char* readable;
  const char* unit;
  const char* description;
  MetricCategory category;
};

// clang-format off
constexpr Entry kExact[] = {
    // The analytic engine (refreshModelledMetrics).
    {"memory_floor_ms", "Memory floor", "ms", "decode step time of the memory side at batch 1 (weights and KV streamed once; analytic engine)", MetricCategory::Latency},
    {"step_ms_b1", "Step time, batch 1", "ms", "decode step time at batch 1 with the TP all-reduce term (analytic engine)", MetricCategory::Latency},
    {"step_ms_b64", "Step time, batch 64", "ms", "decode step time at batch 64 with the TP all-reduce term (analytic engine)", MetricCategory::Latency},
    {"weights_gib", "Weights per GPU", "GiB", "weight bytes each GPU holds (analytic engine)", MetricCategory::Memory},
    {"max_concurrency", "Max concurrency", "sequences", "sequences of max_model_len tokens whose KV cache fits next to the weights (analytic engine)", MetricCategory::Capacity},
    {"tokens_per_s_at_capacity", "Decode throughput at capacity", "tok/s", "max_concurrency / step time at max_concurrency (analytic engine)", MetricCategory::Throughput},
    // Serving benchmarks (vLLM bench serve, SGLang bench_serving, vLLM bench latency / throughput).
    {"request_throughput_req_s", "Request throughput", "req/s", "completed requests per second of the benchmark run", MetricCategory::Throughput},
    {"request_goodput_req_s", "Goodput", "req/s", "requests per second that met every SLO of the run", MetricCategory::Throughput},
    {"output_throughput_tok_s", "Output throughput", "tok/s", "generated tokens per second over the run", MetricCategory::Throughput},
    {"total_token_throughput_tok_s", "Total token throughput", "tok/s", "prompt plus generated tokens per second over the run", MetricCategory::Throughput},
    {"input_throughput_tok_s", "Input throughput", "tok/s", "prompt tokens per second over the run", MetricCategory::Throughput},
    {"max_output_throughput_tok_s", "Peak output throughput", "tok/s", "highest generated tokens per second in any one second of the run", MetricCategory::Throughput},
    {"questions_per_s", "Questions per second", "q/s", "eval questions answered per second (vLLM gsm8k_eval)", MetricCategory::Throughput},
    {"latency_mean_ms", "Mean request latency", "ms", "mean end-to-end request latency the file reports", MetricCategory::Latency},
    {"latency_mean_s", "Mean batch latency", "s", "mean latency of one batch iteration (vLLM bench latency)", MetricCategory::Latency},
    {"latency_s", "Eval latency", "s", "wall time of the eval run (vLLM gsm8k_eval)", MetricCategory::Latency},
    {"accept_length_tokens", "Speculative accept length", "tokens", "mean accepted draft tokens per step (SGLang)", MetricCategory::Throughput},
    {"duration_s", "Run duration", "s", "wall time of the benchmark run", MetricCategory::Count},
    {"completed", "Completed requests", "", "requests that finished successfully", MetricCategory::Count},
    {"failed", "Failed requests", "", "requests that failed", MetricCategory::Count},
    {"total_input_tokens", "Prompt tokens", "tokens", "prompt tokens over the run", MetricCategory::Count},
    {"total_output_tokens", "Generated tokens", "tokens", "generated tokens over the run", MetricCategory::Count},
    {"total_output_tokens_retokenized", "Generated tokens (retokenized)", "tokens", "generated tokens counted by re-tokenizing the text (SGLang)", MetricCategory::Count},
    {"total_num_tokens", "Tokens", "tokens", "prompt plus generated tokens (vLLM bench throughput)", MetricCategory::Count},
    {"num_requests", "Requests", "", "requests in the run (vLLM bench throughput)", MetricCategory::Count},
    {"iterations", "Iterations", "", "timed iterations (vLLM bench latency)", MetricCategory::Count},
    {"max_concurrent_requests", "Peak concurrent requests", "", "most requests in flight at once during the run", MetricCategory::Count},
    {"concurrency", "Mean concurrency", "", "mean requests in flight (SGLang)", MetricCategory::Count},
    // Cost and published serving figures (seed 001).
    {"usd_per_hour", "Price", "USD/h", "price of the deployment per hour (GPU price x count)", MetricCategory::Cost},
    {"cost_reduction_sync", "Cost reduction vs BF16 (sync)", "x", "baseline cost per query / this candidate's, synchronous serving", MetricCategory::Cost},
    {"throughput_speedup_async", "Throughput speedup vs BF16 (async)", "x", "queries per second relative to the BF16 baseline, asynchronous serving", MetricCategory::Relative},
    // Published quality aggregates (the example session).
    {"open_llm_v1_score", "Open LLM Leaderboard V1", "score", "average of the Open LLM Leaderboard V1 tasks (0-100)", MetricCategory::Quality},
    {"open_llm_v2_score", "Open LLM Leaderboard V2", "score", "average of the Open LLM Leaderboard V2 tasks (0-100)", MetricCategory::Quality},
    {"real_world_avg_score", "Real-world average", "score", "average of Arena-Hard, HumanEval and MBPP", MetricCategory::Quality},
    {"bertscore", "BERTScore vs BF16", "", "BERTScore similarity of the outputs to the BF16 model's", MetricCategory::Quality},
    {"ruler_score", "RULER", "score", "RULER long-context average score", MetricCategory::Quality},
    // A deployment found by the search (candidateFromDeployment).
    {"deploy_ttft_ms", "TTFT (deployment search)", "ms", "mean time to first token of the deployment at the search's workload and load (analytic steady state)", MetricCategory::Latency},
    {"deploy_tpot_ms", "TPOT (deployment search)", "ms", "mean time per output token of the deployment at the search's workload and load (analytic steady state)", MetricCategory::Latency},
    {"deploy_output_tok_s", "Output throughput (deployment search)", "tok/s", "generated tokens per second of the whole deployment at the search's load (analytic steady state)", MetricCategory::Throughput},
    {"usd_per_million_output_tokens", "Cost per million output tokens", "USD", "deployment price per hour over its output tokens per hour, x 10^6 (deployment search)", MetricCategory::Cost},
    // Divergence from the baseline on the same prompts (qfront stats kl).
    {"kl_per_token_nats", "KL per token vs baseline", "nats", "mean KL(baseline || candidate) per generated token over the top-k logprobs, same prompts (qfront stats kl)", MetricCategory::Relative},
    {"token_flip_rate_pct", "Token flip rate", "%", "generated positions whose most likely token differs from the baseline's (qfront stats kl)", MetricCategory::Relative},
    {"choice_kl_nats", "KL over answer choices", "nats", "mean KL(baseline || candidate) over a multiple-choice task's answer choices (qfront stats kl)", MetricCategory::Relative},
    {"answer_flip_rate_pct", "Answer flip rate", "%", "multiple-choice questions whose most likely answer differs from the baseline's (qfront stats kl)", MetricCategory::Relative},
};
// clang-format on

/// lm-eval metric name, readable form, direction.
struct LmEvalMetric {
  const char* name;
  const char* readable;
  Direction direction;
};
// clang-format off
constexpr LmEvalMetric kLmEval[] = {
    {"prompt_level_strict_acc", "prompt-level strict accuracy", Direction::Max},
    {"prompt_level_loose_acc", "prompt-level loose accuracy", Direction::Max},
    {"inst_level_strict_acc", "instruction-level strict accuracy", Direction::Max},
    {"inst_level_loose_acc", "instruction-level loose accuracy", Direction::Max},
    {"word_perplexity", "word perplexity", Direction::Min},
    {"byte_perplexity", "byte perplexity", Direction::Min},
    {"bits_per_byte", "bits per byte", Direction::Min},
    {"invalid_rate", "invalid answer rate", Direction::Min},
    {"exact_match", "exact match", Direction::Max},
    {"brier_score", "Brier score", Direction::Min},
    {"perplexity", "perplexity", Direction::Min},
    {"acc_norm", "normalised accuracy", Direction::Max},
    {"accuracy", "accuracy", Direction::Max},
    {"pass_at_1", "pass@1", Direction::Max},
    {"rouge1", "ROUGE-1", Direction::Max},
    {"rouge2", "ROUGE-2", Direction::Max},
    {"rougeL", "ROUGE-L", Direction::Max},
    {"bleu", "BLEU", Direction::Max},
    {"chrf", "chrF", Direction::Max},
    {"mcc", "Matthews correlation", Direction::Max},
    {"acc", "accuracy", Direction::Max},
    {"mc1", "MC1 accuracy", Direction::Max},
    {"mc2", "MC2 accuracy", Direction::Max},
    {"ter", "TER", Direction::Min},
    {"f1", "F1", Direction::Max},
    {"em", "exact match", Direction::Max},
};
// clang-format on

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool startsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

/// "code_completion" → "code completion".
std::string spaced(std::string_view s) {
  std::string out(s);
  std::replace(out.begin(), out.end(), '_', ' ');
  return out;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

/// "p99.9" and "p99" are percentile labels.
bool isPercentileLabel(std::string_view s) {
  if (s.size() < 2 || s[0] != 'p') return false;
  bool dot = false;
  for (std::size_t i = 1; i < s.size(); ++i) {
    if (s[i] == '.' && !dot && i > 1 && i + 1 < s.size()) {
      dot = true;
    } else if (!std::isdigit(static_cast<unsigned char>(s[i]))) {
      return false;
    }
  }
  return true;
}

MetricInfo make(std::string_view name, std::string readable, std::string unit,
                std::string description, std::string rule, MetricCategory category) {
  MetricInfo m;
  m.name = std::string(name);
  m.readable = std::move(readable);
  m.unit = std::move(unit);
  m.description = std::move(description);
  m.rule = std::move(rule);
  m.category = category;
  m.direction = category == MetricCategory::Count ? std::nullopt : knownDirection(m.name);
  m.relative = isRelativeMetric(name);
  return m;
}

std::optional<MetricInfo> servingStatistic(std::string_view name) {
  // <ttft|tpot|itl|e2el>_<mean|median|std|pP>_ms
  if (!endsWith(name, "_ms")) return std::nullopt;
  const std::string_view body = name.substr(0, name.size() - 3);
  const auto us = body.find('_');
  if (us == std::string_view::npos) return std::nullopt;
  const std::string_view metric = body.substr(0, us), stat = body.substr(us + 1);
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kMetrics = {{
      {"ttft", "time to first token"},
      {"tpot", "time per output token after the first"},
      {"itl", "inter-token latency (every gap of every request)"},
      {"e2el", "end-to-end request latency"},
  }};
  const auto m = std::find_if(kMetrics.begin(), kMetrics.end(),
                              [&](const auto& p) { return p.first == metric; });
  if (m == kMetrics.end()) return std::nullopt;
  std::string statText;
  if (stat == "mean" || stat == "median") {
    statText = std::string(stat);
  } else if (stat == "std") {
    statText = "standard deviation";
  } else if (isPercentileLabel(stat)) {
    statText = std::string(stat);
  } else {
    return std::nullopt;
  }
  MetricInfo info = make(name, upper(metric) + " " + (stat == "std" ? "std" : statText), "ms",
                         statText + " " + std::string(m->second) + " over the run's requests",
                         "<ttft|tpot|itl|e2el>_<mean|median|std|pP>_ms", MetricCategory::Latency);
  if (stat == "std") info.direction.reset();  // a spread, not something to minimise blindly
  return info;
}

std::optional<MetricInfo> lmEvalScore(std::string_view name) {
  for (const auto& m : kLmEval) {
    const std::string suffix = std::string("_") + m.name;
    if (!endsWith(name, suffix) || name.size() == suffix.size()) continue;
    const std::string_view task = name.substr(0, name.size() - suffix.size());
    MetricInfo info = make(name, std::string(task) + ": " + m.readable, "",
                           std::string(m.readable) + " on " + std::string(task) +
                               " (lm-evaluation-harness task score; fraction 0-1)",
                           "<task>_<metric>", MetricCategory::Quality);
    info.direction = m.direction;
    return info;
  }
  return std::nullopt;
}

std::optional<MetricInfo> patternMatch(std::string_view name) {
  if (auto s = servingStatistic(name)) return s;
  if (endsWith(name, "_recomputed") && name.size() > 11) {
    // An importer's recomputation beside a file figure it disagrees with: a check, not a result.
    if (auto base = servingStatistic(name.substr(0, name.size() - 11))) {
      return make(name, base->readable + ", recomputed", base->unit,
                  base->description +
                      ", recomputed from the per-request arrays where the file's "
                      "figure disagrees",
                  "<statistic>_recomputed", MetricCategory::Count);
    }
  }
  if (startsWith(name, "latency_p") && endsWith(name, "_s")) {
    const std::string_view label = name.substr(8, name.size() - 10);
    if (isPercentileLabel(label)) {
      return make(name, "Batch latency " + std::string(label), "s",
                  std::string(label) + " of the batch latencies (vLLM bench latency)",
                  "latency_p<P>_s", MetricCategory::Latency);
    }
  }
  if (endsWith(name, "_recovery_pct") && name.size() > 13) {
    const std::string_view what = name.substr(0, name.size() - 13);
    return make(name, "Recovery, " + spaced(what), "%",
                "score on " + spaced(what) + " as a percentage of the baseline's (BF16) score",
                "<task>_recovery_pct", MetricCategory::Relative);
  }
  if (endsWith(name, "_delta") && name.size() > 6) {
    const std::string_view what = name.substr(0, name.size() - 6);
    return make(name, spaced(what) + " vs baseline", "", spaced(what) + " minus the baseline's",
                "<metric>_delta", MetricCategory::Relative);
  }
  if (endsWith(name, "_vs_baseline") && name.size() > 12) {
    const std::string_view what = name.substr(0, name.size() - 12);
    return make(name, spaced(what) + " vs baseline", "",
                spaced(what) + " relative to the baseline's", "<metric>_vs_baseline",
                MetricCategory::Relative);
  }
  if (startsWith(name, "queries_per_usd_") && name.size() > 16) {
    const std::string_view useCase = name.substr(16);
    std::string mode = "synchronous: one query at a time";
    std::string_view uc = useCase;
    if (endsWith(useCase, "_async")) {
      mode = "asynchronous: peak throughput";
      uc = useCase.substr(0, useCase.size() - 6);
    } else if (endsWith(useCase, "_sync")) {
      uc = useCase.substr(0, useCase.size() - 5);
    }
    return make(name, "Queries per USD, " + spaced(uc), "queries/USD",
                "queries served per US dollar for the " + spaced(uc) + " use case, " + mode,
                "queries_per_usd_<use case>[_sync|_async]", MetricCategory::Cost);
  }
  if (startsWith(name, "cost_reduction_pct_") && name.size() > 19) {
    const std::string_view uc = name.substr(19);
    return make(name, "Cost reduction vs BF16, " + spaced(uc), "%",
                "100 x (1 - cost per query / the same model's BF16 cost per query on the same "
                "GPUs), " +
                    spaced(uc) + " use case",
                "cost_reduction_pct_<use case>", MetricCategory::Cost);
  }
  if (startsWith(name, "latency_") && endsWith(name, "_sync_s") && name.size() > 15) {
    const std::string_view uc = name.substr(8, name.size() - 15);
    return make(name, "Request latency, " + spaced(uc), "s",
                "end-to-end latency of one " + spaced(uc) + " request served alone",
                "latency_<use case>_sync_s", MetricCategory::Latency);
  }
  if (endsWith(name, "_async_req_s") && name.size() > 12) {
    const std::string_view uc = name.substr(0, name.size() - 12);
    return make(name, "Peak queries per second, " + spaced(uc), "req/s",
                "queries per second at peak throughput for the " + spaced(uc) + " use case",
                "<use case>_async_req_s", MetricCategory::Throughput);
  }
  if (endsWith(name, "_score_pct") && name.size() > 10) {
    const std::string_view bench = name.substr(0, name.size() - 10);
    return make(name, spaced(bench), "%", spaced(bench) + " score in percent",
                "<benchmark>_score_pct", MetricCategory::Quality);
  }
  if (endsWith(name, "_score") && name.size() > 6) {
    const std::string_view bench = name.substr(0, name.size() - 6);
    return make(name, spaced(bench), "score", spaced(bench) + " score", "<benchmark>_score",
                MetricCategory::Quality);
  }
  return lmEvalScore(name);
}

}  // namespace

const char* metricCategoryName(MetricCategory c) {
  switch (c) {
    case MetricCategory::Quality:
      return "quality";
    case MetricCategory::Relative:
      return "relative";
    case MetricCategory::Latency:
      return "latency";
    case MetricCategory::Throughput:
      return "throughput";
    case MetricCategory::Memory:
      return "memory";
    case MetricCategory::Capacity:
      return "capacity";
    case MetricCategory::Cost:
      return "cost";
    case MetricCategory::Count:
      return "count";
  }
  return "";
}

std::optional<MetricInfo> lookupMetric(std::string_view name) {
  for (const auto& e : kExact) {
    if (name == e.name) return make(name, e.readable, e.unit, e.description, e.name, e.category);
  }
  return patternMatch(name);
}

std::string readableMetricName(std::string_view name) {
  const auto info = lookupMetric(name);
  if (!info) return std::string(name);
  return info->unit.empty() ? info->readable : info->readable + " (" + info->unit + ")";
}

bool isRelativeMetric(std::string_view name) {
  return name.find("recovery") != std::string_view::npos || endsWith(name, "_delta") ||
         endsWith(name, "_vs_baseline") || name.find("_vs_baseline_") != std::string_view::npos ||
         name.find("speedup") != std::string_view::npos ||
         name.find("cost_reduction") != std::string_view::npos;
}

const std::vector<MetricRule>& metricRules() {
  static const std::vector<MetricRule> rules = [] {
    std::vector<MetricRule> r;
    for (const auto& e : kExact)
      r.push_back({e.name, e.readable, e.unit, e.description, e.category});
    r.push_back({"<ttft|tpot|itl|e2el>_<mean|median|std|pP>_ms", "TTFT/TPOT/ITL/E2EL statistic",
                 "ms", "a statistic of the run's per-request latencies", MetricCategory::Latency});
    r.push_back({"<statistic>_recomputed", "<statistic>, recomputed", "ms",
                 "an importer's recomputation where the file's figure disagrees",
                 MetricCategory::Count});
    r.push_back({"latency_p<P>_s", "Batch latency pP", "s",
                 "percentile of the batch latencies (vLLM bench latency)",
                 MetricCategory::Latency});
    r.push_back({"<task>_recovery_pct", "Recovery, <task>", "%",
                 "score as a percentage of the baseline's score", MetricCategory::Relative});
    r.push_back({"<metric>_delta", "<metric> vs baseline", "", "difference from the baseline",
                 MetricCategory::Relative});
    r.push_back({"<metric>_vs_baseline", "<metric> vs baseline", "", "relative to the baseline",
                 MetricCategory::Relative});
    r.push_back({"queries_per_usd_<use case>[_sync|_async]", "Queries per USD, <use case>",
                 "queries/USD", "queries served per US dollar", MetricCategory::Cost});
    r.push_back({"cost_reduction_pct_<use case>", "Cost reduction vs BF16, <use case>", "%",
                 "cost per query saved against the same model's BF16", MetricCategory::Cost});
    r.push_back({"latency_<use case>_sync_s", "Request latency, <use case>", "s",
                 "one request served alone", MetricCategory::Latency});
    r.push_back({"<use case>_async_req_s", "Peak queries per second, <use case>", "req/s",
                 "queries per second at peak throughput", MetricCategory::Throughput});
    r.push_back({"<benchmark>_score_pct", "<benchmark>", "%", "benchmark score in percent",
                 MetricCategory::Quality});
    r.push_back(
        {"<benchmark>_score", "<benchmark>", "score", "benchmark score", MetricCategory::Quality});
    r.push_back({"<task>_<metric>", "<task>: <metric>", "",
                 "lm-evaluation-harness score (metric one of lmEvalMetricNames())",
                 MetricCategory::Quality});
    return r;
  }();
  return rules;
}

const std::vector<std::string>& lmEvalMetricNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& m : kLmEval) n.emplace_back(m.name);
    return n;
  }();
  return names;
}

std::optional<Direction> lmEvalMetricDirection(std::string_view name) {
  for (const auto& m : kLmEval) {
    const std::string suffix = std::string("_") + m.name;
    if (endsWith(name, suffix) && name.size() > suffix.size()) return m.direction;
  }
  return std::nullopt;
}

}  // namespace qf
