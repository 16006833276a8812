// The metric dictionary: every metric name the project writes has a readable name and a unit.
#include <catch2/catch.hpp>

#include <quantfront/core/analysis/frontier_analysis.hpp>
#include <quantfront/core/analysis/metric_dictionary.hpp>
#include <quantfront/core/base/resources.hpp>
#include <quantfront/core/import/importers.hpp>
#include <quantfront/core/session/session.hpp>

using namespace qf;

namespace {
const std::string kData = QF_TEST_DATA_DIR;
}  // namespace

TEST_CASE("metric dictionary: serving statistics by pattern", "[analysis][dictionary]") {
  const auto p99 = lookupMetric("tpot_p99_ms");
  REQUIRE(p99.has_value());
  CHECK(p99->readable == "TPOT p99");
  CHECK(p99->unit == "ms");
  CHECK(p99->category == MetricCategory::Latency);
  CHECK(p99->direction == Direction::Min);
  CHECK(readableMetricName("tpot_p99_ms") == "TPOT p99 (ms)");
  const auto p999 = lookupMetric("e2el_p99.9_ms");
  REQUIRE(p999.has_value());
  CHECK(p999->rule == "<ttft|tpot|itl|e2el>_<mean|median|std|pP>_ms");
  // Not a statistic: no dictionary entry, and the name is its own readable form.
  CHECK_FALSE(lookupMetric("tpot_99_ms").has_value());
  CHECK_FALSE(lookupMetric("foo_p99_ms").has_value());
  CHECK(readableMetricName("tpot_99_ms") == "tpot_99_ms");
}

TEST_CASE("metric dictionary: lm-eval scores, recovery and cost", "[analysis][dictionary]") {
  const auto em = lookupMetric("gsm8k_exact_match");
  REQUIRE(em.has_value());
  CHECK(em->rule == "<task>_<metric>");
  CHECK(em->readable == "gsm8k: exact match");
  CHECK(em->direction == Direction::Max);
  CHECK(em->category == MetricCategory::Quality);
  const auto accNorm = lookupMetric("arc_challenge_acc_norm");
  REQUIRE(accNorm.has_value());
  CHECK(accNorm->readable == "arc_challenge: normalised accuracy");
  // Lower-is-better lm-eval metrics, although "score" would read as a maximum.
  CHECK(knownDirection("wikitext_word_perplexity") == Direction::Min);
  CHECK(knownDirection("arc_easy_brier_score") == Direction::Min);
  CHECK(knownDirection("gsm8k_invalid_rate") == Direction::Min);

  const auto rec = lookupMetric("gsm8k_recovery_pct");
  REQUIRE(rec.has_value());
  CHECK(rec->relative);
  CHECK(rec->unit == "%");
  CHECK(rec->direction == Direction::Max);
  CHECK(isRelativeMetric("score_delta"));
  CHECK(isRelativeMetric("kl_vs_baseline"));
  CHECK_FALSE(isRelativeMetric("gsm8k_exact_match"));

  const auto q = lookupMetric("queries_per_usd_code_completion");
  REQUIRE(q.has_value());
  CHECK(q->category == MetricCategory::Cost);
  CHECK(q->direction == Direction::Max);
  const auto cr = lookupMetric("cost_reduction_pct_rag");
  REQUIRE(cr.has_value());
  CHECK(cr->direction == Direction::Max);
  CHECK(cr->unit == "%");
  // Bookkeeping counts have no direction.
  const auto done = lookupMetric("completed");
  REQUIRE(done.has_value());
  CHECK(done->category == MetricCategory::Count);
  CHECK_FALSE(done->direction.has_value());
}

TEST_CASE("metric dictionary: every metric the project writes has an entry",
          "[analysis][dictionary]") {
  // Modelled figures.
  for (const auto& name : modelledMetricNames()) {
    INFO(name);
    const auto info = lookupMetric(name);
    REQUIRE(info.has_value());
    CHECK_FALSE(info->description.empty());
    CHECK(info->direction.has_value());
  }
  // A serving run's summary metrics (names with a '/' are per-task or per-batch run data).
  for (const char* file : {"/import/vllm_serve_summary.json", "/import/vllm_serve_detailed.json",
                           "/import/sglang_serving.jsonl", "/import/vllm_latency.json",
                           "/import/vllm_throughput.json", "/import/gsm8k_eval.json"}) {
    auto rep = importFile(kData + file);
    REQUIRE(rep.ok());
    for (const auto& run : rep->runs) {
      for (const auto& [name, value] : run.metrics) {
        if (name.find('/') != std::string::npos) continue;
        INFO(file << ": " << name);
        CHECK(lookupMetric(name).has_value());
      }
    }
  }
  // The bundled example session.
  auto example = parseSessionText(*bundledFile("sessions/llama-3.1-8b-70b.json"), "example");
  REQUIRE(example.ok());
  for (const auto& c : example->candidates) {
    for (const auto& [name, m] : c.metrics) {
      INFO(c.id << ": " << name);
      CHECK(lookupMetric(name).has_value());
    }
  }
  // The listing covers exact names and patterns.
  CHECK(metricRules().size() > 30);
  CHECK(std::find(lmEvalMetricNames().begin(), lmEvalMetricNames().end(), "exact_match") !=
        lmEvalMetricNames().end());
}

TEST_CASE("a gate naming an unknown metric is an error naming the gate", "[analysis][dictionary]") {
  Candidate a;
  a.id = "a";
  a.metrics["tpot_p99_ms"].value = 40;
  a.metrics["gsm8k_exact_match"].value = 0.8;
  FrontierQuery q;
  q.gates = *parseGateTexts({"tpot_p99ms<70"});
  auto r = analyseFrontier({a}, q, "s.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().file == "s.json");
  CHECK(r.error().message.find("gate 'tpot_p99ms<70'") != std::string::npos);
  // A known metric no candidate carries leaves everyone not scored, visibly (not an error).
  q.gates = *parseGateTexts({"ttft_p99_ms<200"});
  auto known = analyseFrontier({a}, q, "s.json");
  REQUIRE(known.ok());
  CHECK(known->result.gatedOut.empty());
  REQUIRE(known->result.notScored.size() == 1);
  CHECK(known->result.notScored[0].gate == "missing metric ttft_p99_ms");
  // A metric a candidate carries is fine even when the dictionary does not know it.
  a.metrics["house_metric"].value = 3;
  q.gates = *parseGateTexts({"house_metric>=1"});
  auto carried = analyseFrontier({a}, q, "s.json");
  REQUIRE(carried.ok());
  CHECK(carried->result.frontier == std::vector<std::string>{"a"});
}
