// Statistics against the seed's figures, hand-computed exact tests, and the lm-eval reader.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/stats.hpp>
#include <quantfront/core/base/percentile.hpp>
#include <quantfront/core/import/importers.hpp>

using namespace qf;
using namespace qf::stats;
using Catch::Detail::Approx;

namespace {

const std::string kData = QF_TEST_DATA_DIR;
const std::string kA = kData + "/stats/bf16/samples_gsm8k_2024-11-01T10-00-00.123456.jsonl";
const std::string kB = kData + "/stats/w4a16/samples_gsm8k_2024-11-02T11-30-00.654321.jsonl";

double roundTo(double v, int decimals) {
  const double s = std::pow(10.0, decimals);
  return std::round(v * s) / s;
}

SampleRecord rec(std::string task, std::string filter, std::int64_t doc, double em,
                 std::string docHash = "h", std::string promptHash = "p") {
  SampleRecord r;
  r.task = std::move(task);
  r.filter = std::move(filter);
  r.docId = doc;
  r.docHash = std::move(docHash);
  r.promptHash = std::move(promptHash);
  r.metrics["exact_match"] = em;
  return r;
}

/// Exact two-sided McNemar p by a different route: each term from lgamma, summed directly.
double mcnemarDirect(std::int64_t b, std::int64_t c) {
  const std::int64_t n = b + c, k = std::min(b, c);
  if (2 * k >= n) return 1.0;
  double sum = 0;
  for (std::int64_t i = 0; i <= k; ++i) {
    const double nd = static_cast<double>(n), id = static_cast<double>(i);
    sum += std::exp(std::lgamma(nd + 1) - std::lgamma(id + 1) - std::lgamma(nd - id + 1) -
                    nd * std::log(2.0));
  }
  return std::min(1.0, 2 * sum);
}

}  // namespace

namespace {
/// numpy's linear percentile of a copy (the base function reorders its input).
double percentileOf(std::vector<double> values, double q) {
  return qf::percentileLinear(values, q);
}
}  // namespace

TEST_CASE("seed figures: p = 0.80, n = 1319", "[stats]") {
  // model.md: SE 1.10 pp, ±2.16 pp, 3.1 pp.
  CHECK(roundTo(binomialSe(0.80, 1319) * 100, 2) == Approx(1.10));
  CHECK(roundTo(ci95HalfWidth(0.80, 1319) * 100, 2) == Approx(2.16));
  CHECK(roundTo(minDetectableDiff(0.80, 1319) * 100, 1) == Approx(3.1));
  // 1 pp needs ~25,000 per arm: (1.96 + 0.84)²·2·0.8·0.2/0.01² = 25,088.
  CHECK(samplesPerArm(0.80, 0.01) == Approx(25088).epsilon(1e-9));
  CHECK(std::abs(samplesPerArm(0.80, 0.01) - 25000) < 0.01 * 25000);
  // f = 0.10 → paired SE 0.87 pp, resolving 1.7 pp.
  CHECK(roundTo(pairedSe(0.10, 1319) * 100, 2) == Approx(0.87));
  CHECK(roundTo(pairedMinDetectableDiff(0.10, 1319) * 100, 1) == Approx(1.7));
  // The paired design needs far fewer questions for the same δ.
  CHECK(pairedSamples(0.10, 0.01) == Approx(7.84 * 0.10 / 1e-4));
  CHECK(pairedSamples(0.10, 0.01) < samplesPerArm(0.80, 0.01));
}

TEST_CASE("power other than 0.8 uses the normal quantile", "[stats]") {
  CHECK(normalQuantile(0.9) == Approx(1.2815515655).epsilon(1e-9));
  const double z = 1.96 + normalQuantile(0.9);
  CHECK(samplesPerArm(0.5, 0.05, 0.9) == Approx(z * z * 2 * 0.25 / 0.0025));
}

TEST_CASE("Wilson interval", "[stats]") {
  // Hand-computed: centre (p + z²/2n)/(1 + z²/n), half z/(1 + z²/n)·sqrt(p(1−p)/n + z²/4n²).
  const auto w = wilsonInterval(0.80, 1319);
  CHECK(w.lo == Approx(0.7775554853).epsilon(1e-9));
  CHECK(w.hi == Approx(0.8207020838).epsilon(1e-9));
  // 0 of 10: [0, z²/(n + z²)] = [0, 0.27754].
  const auto z0 = wilsonInterval(0.0, 10);
  CHECK(z0.lo == Approx(0.0).margin(1e-15));
  CHECK(z0.hi == Approx(3.8416 / 13.8416));
  // Stays inside [0, 1] where the normal interval does not.
  const auto one = wilsonInterval(1.0, 5);
  CHECK(one.hi == Approx(1.0));
  CHECK(one.lo > 0.5);
  CHECK(one.lo < 1.0);
}

TEST_CASE("two independent runs: difference and smallest resolvable difference", "[stats]") {
  const auto d = twoRunDifference(0.80, 1319, 0.80, 1319);
  CHECK(d.diff == Approx(0.0).margin(1e-15));
  CHECK(d.minDetectableDiff == Approx(minDetectableDiff(0.80, 1319)));
  const auto e = twoRunDifference(0.78, 1000, 0.82, 1000);
  CHECK(e.diff == Approx(0.04));
  CHECK(e.se == Approx(std::sqrt(0.78 * 0.22 / 1000 + 0.82 * 0.18 / 1000)));
  CHECK(e.ci.lo == Approx(0.04 - 1.96 * e.se));
  CHECK(e.ci.hi == Approx(0.04 + 1.96 * e.se));
  CHECK(e.ci.lo > 0);  // 4 pp over 1000 questions each is resolved
}

TEST_CASE("McNemar exact p against hand-computed values", "[stats]") {
  // b = 10, c = 2: 2·(1 + 12 + 66)/4096.
  CHECK(mcnemarExactP(10, 2) == Approx(0.03857421875).epsilon(1e-12));
  CHECK(mcnemarExactP(2, 10) == Approx(0.03857421875).epsilon(1e-12));
  // b = 3, c = 17: 2·(1 + 20 + 190 + 1140)/2^20.
  CHECK(mcnemarExactP(3, 17) == Approx(0.0025768280029296875).epsilon(1e-12));
  // b = 0, c = 5: 2/32.
  CHECK(mcnemarExactP(0, 5) == Approx(0.0625).epsilon(1e-12));
  CHECK(mcnemarExactP(0, 0) == 1.0);
  CHECK(mcnemarExactP(7, 7) == 1.0);
  CHECK(mcnemarExactP(7, 8) == 1.0);
  // Large counts (exact values from integer arithmetic): no overflow, no underflow.
  CHECK(mcnemarExactP(60, 40) == Approx(0.05688793364098079).epsilon(1e-10));
  CHECK(mcnemarExactP(5000, 4800) == Approx(0.04440414879984629).epsilon(1e-8));
  CHECK(mcnemarExactP(1000000, 0) == 0.0);
  for (std::int64_t b : {1, 4, 25, 130, 999}) {
    for (std::int64_t c : {0, 3, 50, 700}) {
      CHECK(mcnemarExactP(b, c) == Approx(mcnemarDirect(b, c)).epsilon(1e-9));
    }
  }
}

TEST_CASE("percentile interpolates like numpy", "[stats]") {
  const std::vector<double> v = {10, 1, 9, 2, 8, 3, 7, 4, 6, 5};
  CHECK(percentileOf(v, 50) == Approx(5.5));
  CHECK(percentileOf(v, 99) == Approx(9.91));
  CHECK(percentileOf(v, 0) == 1);
  CHECK(percentileOf(v, 100) == 10);
  CHECK(percentileOf({3.0}, 90) == 3.0);
  CHECK(std::isnan(percentileOf({}, 50)));
}

TEST_CASE("Rng is xoshiro256** seeded by splitmix64 (same bits everywhere)", "[stats]") {
  Rng r(42);
  CHECK(r.next() == 0x15780b2e0c2ec716ull);
  CHECK(r.next() == 0x6104d9866d113a7eull);
  CHECK(r.next() == 0xae17533239e499a1ull);
  Rng u(7);
  std::vector<int> hist(6, 0);
  for (int i = 0; i < 60000; ++i) ++hist[u.below(6)];
  for (int h : hist) CHECK(std::abs(h - 10000) < 500);
}

TEST_CASE("request TPOT, latency and goodput against SLOs", "[stats]") {
  RequestRecord a;  // latency known: TPOT = (1.0 − 0.2)/(9 − 1) = 0.1
  a.ttftS = 0.2;
  a.latencyS = 1.0;
  a.outputLen = 9;
  RequestRecord b;  // no latency: mean of itls, latency = ttft + Σ itls
  b.ttftS = 0.5;
  b.itlsS = {0.02, 0.04, 0.06};
  b.outputLen = 4;
  RequestRecord c;  // one output token: TPOT undefined, passes the TPOT objective
  c.ttftS = 0.1;
  c.latencyS = 0.1;
  c.outputLen = 1;
  RequestRecord d = a;
  d.success = false;
  CHECK(*requestTpotS(a) == Approx(0.1));
  CHECK(*requestTpotS(b) == Approx(0.04));
  CHECK(!requestTpotS(c).has_value());
  CHECK(requestLatencyS(b) == Approx(0.62));

  Slo slo;
  slo.ttftS = 0.3;
  slo.tpotS = 0.05;
  CHECK(!meetsSlo(a, slo));  // TPOT 0.1 > 0.05
  CHECK(!meetsSlo(b, slo));  // TTFT 0.5 > 0.3
  CHECK(meetsSlo(c, slo));
  CHECK(!meetsSlo(d, slo));  // failed requests never count
  const std::vector<RequestRecord> reqs = {a, b, c, d};
  CHECK(goodputReqPerS(reqs, slo, 2.0) == Approx(0.5));
  Slo loose;
  loose.tpotS = 0.2;
  CHECK(goodputReqPerS(reqs, loose, 2.0) == Approx(1.5));  // a, b, c
  Slo e2e;
  e2e.e2eS = 0.7;
  CHECK(goodputReqPerS(reqs, e2e, 1.0) == Approx(2.0));  // b (0.62) and c

  const auto itl = latencyValues(reqs, LatencyMetric::Itl);
  CHECK(itl.size() == 3);
  const auto tpot = latencyValues(reqs, LatencyMetric::Tpot);
  CHECK(tpot.size() == 2);  // a and b; c has none, d failed
}

TEST_CASE("bootstrap intervals are reproducible and recorded", "[stats]") {
  std::vector<RequestRecord> reqs;
  Rng gen(123);
  for (int i = 0; i < 500; ++i) {
    RequestRecord r;
    r.ttftS = 0.05 + static_cast<double>(gen.below(1000)) / 1000.0 * 0.2;
    r.outputLen = 64;
    r.latencyS = r.ttftS + 63 * (0.02 + static_cast<double>(gen.below(1000)) / 1000.0 * 0.02);
    r.itlsS = {0.02, 0.03};
    reqs.push_back(r);
  }
  BootstrapOptions o;
  o.resamples = 400;
  auto p99 = bootstrapLatencyPercentile(reqs, LatencyMetric::Ttft, 99, o);
  REQUIRE(p99.ok());
  CHECK(p99->seed == kDefaultBootstrapSeed);
  CHECK(p99->resamples == 400);
  CHECK(p99->estimate == Approx(percentileOf(latencyValues(reqs, LatencyMetric::Ttft), 99)));
  CHECK(p99->ci.lo <= p99->estimate);
  CHECK(p99->ci.hi >= p99->estimate);
  CHECK(p99->ci.hi > p99->ci.lo);
  auto again = bootstrapLatencyPercentile(reqs, LatencyMetric::Ttft, 99, o);
  REQUIRE(again.ok());
  CHECK(again->ci.lo == p99->ci.lo);
  CHECK(again->ci.hi == p99->ci.hi);
  BootstrapOptions other = o;
  other.seed = 99;
  auto diff = bootstrapLatencyPercentile(reqs, LatencyMetric::Ttft, 50, other);
  REQUIRE(diff.ok());
  CHECK(diff->seed == 99);
  CHECK(diff->estimate < p99->estimate);

  Slo slo;
  slo.ttftS = 0.15;
  auto gp = bootstrapGoodput(reqs, slo, 10.0, o);
  REQUIRE(gp.ok());
  CHECK(gp->estimate == Approx(goodputReqPerS(reqs, slo, 10.0)));
  CHECK(gp->ci.lo < gp->estimate);
  CHECK(gp->ci.hi > gp->estimate);
  // Binomial sanity: the 95% interval of a count is about ±1.96·sqrt(n·q(1−q)).
  const double q = gp->estimate * 10.0 / 500.0;
  const double halfExpected = 1.96 * std::sqrt(500 * q * (1 - q)) / 10.0;
  CHECK((gp->ci.hi - gp->ci.lo) / 2 == Approx(halfExpected).epsilon(0.2));

  BootstrapOptions bad = o;
  bad.resamples = 3;
  CHECK(!bootstrapGoodput(reqs, slo, 10.0, bad).ok());
  CHECK(!bootstrapGoodput(reqs, slo, 0.0, o).ok());
  CHECK(!bootstrapLatencyPercentile({}, LatencyMetric::E2e, 99, o).ok());
}

TEST_CASE("lm-eval per-sample reader", "[stats]") {
  auto a = readLmEvalSamples(kA);
  REQUIRE(a.ok());
  CHECK(a->size() == 80);             // 40 questions × 2 filters
  CHECK(a->front().task == "gsm8k");  // from the file name
  CHECK(a->front().filter == "strict-match");
  CHECK(a->front().metrics.count("exact_match") == 1);
  CHECK(a->front().docHash.size() == 64);
  CHECK(a->front().target == "#### 0");

  // A "task" key wins over the file name; bools count as 0/1; without "metrics", numbers do.
  auto b = parseLmEvalSamples(
      "{\"task\": \"mmlu_anatomy\", \"doc_id\": 3, \"target\": 2, \"filter\": \"none\", "
      "\"metrics\": [\"acc\", \"bleu\"], \"acc\": true, \"bleu\": [\"x\", \"y\"]}\n\n"
      "{\"doc_id\": 4.0, \"acc\": 0, \"acc_norm\": 1}\r\n",
      "samples_mmlu_high_school_math_2024-01-01T00-00-00.000000.jsonl");
  REQUIRE(b.ok());
  REQUIRE(b->size() == 2);
  CHECK((*b)[0].task == "mmlu_anatomy");
  CHECK((*b)[0].target == "2");
  CHECK((*b)[0].metrics.at("acc") == 1.0);
  CHECK((*b)[0].metrics.count("bleu") == 0);
  CHECK((*b)[1].task == "mmlu_high_school_math");
  CHECK((*b)[1].docId == 4);
  CHECK((*b)[1].filter == "none");
  CHECK((*b)[1].metrics.at("acc_norm") == 1.0);

  auto bad =
      readLmEvalSamples(kData + "/stats/bad_line/samples_gsm8k_2024-11-04T00-00-00.000000.jsonl");
  REQUIRE(!bad.ok());
  CHECK(bad.error().position.rfind("line 3, column ", 0) == 0);
  auto noId = parseLmEvalSamples("{\"filter\": \"none\"}\n", "x.jsonl");
  REQUIRE(!noId.ok());
  CHECK(noId.error().field == "doc_id");
  CHECK(noId.error().position == "line 1, column 1");
  auto notObj = parseLmEvalSamples("{\"doc_id\": 1}\n[1, 2]\n", "x.jsonl");
  REQUIRE(!notObj.ok());
  CHECK(notObj.error().position.rfind("line 2", 0) == 0);
  CHECK(!parseLmEvalSamples("\n\n", "x.jsonl").ok());
  CHECK(!readLmEvalSamples(kData + "/stats/no_such_file.jsonl").ok());
}

TEST_CASE("paired comparison of two lm-eval files", "[stats]") {
  auto a = readLmEvalSamples(kA);
  auto b = readLmEvalSamples(kB);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  PairOptions o;
  o.filter = "strict-match";
  auto pc = comparePaired(*a, kA, *b, kB, o);
  REQUIRE(pc.ok());
  CHECK(pc->metric == "exact_match");
  CHECK(pc->n == 40);
  CHECK(pc->rightToWrong == 10);
  CHECK(pc->wrongToRight == 2);
  CHECK(pc->bothRight == 20);
  CHECK(pc->bothWrong == 8);
  CHECK(pc->flipRate == Approx(12.0 / 40));
  CHECK(pc->mcnemarP == Approx(0.03857421875).epsilon(1e-12));
  CHECK(pc->pairedSe == Approx(std::sqrt(0.3 / 40)));
  CHECK(pc->diff == Approx(-8.0 / 40));
  CHECK(pc->scoreA == Approx(30.0 / 40));
  CHECK(pc->scoreB == Approx(22.0 / 40));
  CHECK(pc->diffCi.hi == Approx(-0.2 + 1.96 * std::sqrt(0.3 / 40)));
  CHECK(pc->warnings.empty());

  o.filter = "flexible-extract";
  auto flex = comparePaired(*a, kA, *b, kB, o);
  REQUIRE(flex.ok());
  CHECK(flex->rightToWrong == 3);
  CHECK(flex->wrongToRight == 1);

  // Two filters and none chosen: pair on strict-match (never count a question twice) and say so.
  auto both = comparePaired(*a, kA, *b, kB, {});
  REQUIRE(both.ok());
  CHECK(both->n == 40);
  CHECK(both->rightToWrong == pc->rightToWrong);
  CHECK(both->wrongToRight == pc->wrongToRight);
  REQUIRE(both->warnings.size() == 1);
  CHECK(both->warnings[0].find("strict-match") != std::string::npos);
}

TEST_CASE("paired comparison refuses different questions and warns on different prompts",
          "[stats]") {
  const std::string bad =
      kData + "/stats/w4a16_badhash/samples_gsm8k_2024-11-02T11-30-00.654321.jsonl";
  auto a = readLmEvalSamples(kA);
  auto b = readLmEvalSamples(bad);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  PairOptions o;
  o.filter = "strict-match";
  auto r = comparePaired(*a, kA, *b, bad, o);
  REQUIRE(!r.ok());
  CHECK(r.error().field == "doc_hash");
  CHECK(r.error().file == kA);
  CHECK(r.error().message.find(bad) != std::string::npos);
  CHECK(r.error().position.find("doc_id 7") != std::string::npos);

  const std::string pr =
      kData + "/stats/w4a16_prompt/samples_gsm8k_2024-11-03T09-00-00.000001.jsonl";
  auto c = readLmEvalSamples(pr);
  REQUIRE(c.ok());
  auto w = comparePaired(*a, kA, *c, pr, o);
  REQUIRE(w.ok());
  CHECK(w->promptHashMismatches == 3);
  REQUIRE(w->warnings.size() == 1);
  CHECK(w->warnings[0].find("prompt_hash") != std::string::npos);
  CHECK(w->rightToWrong == 10);
}

TEST_CASE("paired comparison: joins, defaults and errors", "[stats]") {
  std::vector<SampleRecord> a = {rec("t", "none", 1, 1), rec("t", "none", 2, 0),
                                 rec("t", "none", 3, 1), rec("u", "none", 1, 1)};
  std::vector<SampleRecord> b = {rec("t", "none", 3, 0), rec("t", "none", 2, 1),
                                 rec("t", "none", 9, 1), rec("u", "none", 1, 1)};
  auto pc = comparePaired(a, "a", b, "b");
  REQUIRE(pc.ok());
  CHECK(pc->n == 3);  // (t,2), (t,3), (u,1)
  CHECK(pc->rightToWrong == 1);
  CHECK(pc->wrongToRight == 1);
  CHECK(pc->bothRight == 1);
  CHECK(pc->onlyInA == 1);
  CHECK(pc->onlyInB == 1);
  CHECK(pc->warnings.size() == 1);
  PairOptions onlyU;
  onlyU.task = "u";
  auto u = comparePaired(a, "a", b, "b", onlyU);
  REQUIRE(u.ok());
  CHECK(u->n == 1);

  // acc is the fallback metric.
  std::vector<SampleRecord> accA = {rec("t", "none", 1, 1)}, accB = {rec("t", "none", 1, 0)};
  accA[0].metrics = {{"acc", 1.0}};
  accB[0].metrics = {{"acc", 0.0}};
  auto acc = comparePaired(accA, "a", accB, "b");
  REQUIRE(acc.ok());
  CHECK(acc->metric == "acc");
  CHECK(acc->rightToWrong == 1);

  std::vector<SampleRecord> frac = {rec("t", "none", 1, 0.5)};
  auto f = comparePaired(frac, "a", frac, "b");
  REQUIRE(!f.ok());
  CHECK(f.error().field == "exact_match");

  std::vector<SampleRecord> dup = {rec("t", "none", 1, 1), rec("t", "none", 1, 0)};
  auto d = comparePaired(dup, "a", frac, "b");
  REQUIRE(!d.ok());
  CHECK(d.error().field == "doc_id");

  std::vector<SampleRecord> other = {rec("v", "none", 1, 1)};
  auto none = comparePaired(a, "a", other, "b");
  REQUIRE(!none.ok());
  CHECK(none.error().message.find("no (task, filter, doc_id) in common") != std::string::npos);

  PairOptions m;
  m.metric = "f1";
  auto missing = comparePaired(a, "a", b, "b", m);
  REQUIRE(!missing.ok());
  CHECK(missing.error().field == "f1");
}

namespace {
/// P(X <= k), X ~ Binomial(n, p), by direct summation of the terms (test-side reference).
double binomCdfRef(int k, int n, double p) {
  double sum = 0;
  for (int i = 0; i <= k; ++i) {
    sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) +
                    i * std::log(p) + (n - i) * std::log1p(-p));
  }
  return sum;
}
}  // namespace

TEST_CASE("Clopper-Pearson exact interval", "[stats]") {
  // 0 of n: the upper end solves (1 − p)^n = 0.025, about 3.69/n.
  const auto zero = clopperPearsonInterval(0, 100);
  CHECK(zero.lo == 0.0);
  CHECK(zero.hi == Approx(1.0 - std::pow(0.025, 1.0 / 100)).epsilon(1e-12));
  CHECK(clopperPearsonInterval(0, 10000).hi * 10000 == Approx(-std::log(0.025)).epsilon(1e-3));
  const auto all = clopperPearsonInterval(100, 100);
  CHECK(all.hi == 1.0);
  CHECK(all.lo == Approx(std::pow(0.025, 1.0 / 100)).epsilon(1e-12));
  // 5 of 20: each end is where the tail it bounds holds 2.5% (R's binom.test gives
  // [0.0866, 0.4910]).
  const auto mid = clopperPearsonInterval(5, 20);
  CHECK(1.0 - binomCdfRef(4, 20, mid.lo) == Approx(0.025).epsilon(1e-9));
  CHECK(binomCdfRef(5, 20, mid.hi) == Approx(0.025).epsilon(1e-9));
  CHECK(mid.lo == Approx(0.0866).margin(1e-4));
  CHECK(mid.hi == Approx(0.4910).margin(1e-4));
}

TEST_CASE("paired comparison without discordant pairs has an interval of honest width", "[stats]") {
  std::vector<SampleRecord> a;
  for (int i = 0; i < 50; ++i) a.push_back(rec("t", "none", i, i % 3 == 0 ? 0 : 1));
  auto pc = comparePaired(a, "a", a, "b");
  REQUIRE(pc.ok());
  CHECK(pc->rightToWrong == 0);
  CHECK(pc->wrongToRight == 0);
  CHECK(pc->diff == 0);
  // |diff| ≤ flip rate ≤ its exact 95% upper bound 1 − 0.025^(1/50) ≈ 0.0712.
  const double bound = 1.0 - std::pow(0.025, 1.0 / 50);
  CHECK(pc->flipRateCi.hi == Approx(bound).epsilon(1e-12));
  CHECK(pc->diffCi.lo == Approx(-bound).epsilon(1e-12));
  CHECK(pc->diffCi.hi == Approx(bound).epsilon(1e-12));
  CHECK(pc->minDetectableDiff == Approx(bound).epsilon(1e-12));
  REQUIRE(pc->warnings.size() == 1);
  CHECK(pc->warnings[0].find("no discordant pairs") != std::string::npos);
  // With flips the normal interval stays as it was, and the flip rate gets its exact interval.
  std::vector<SampleRecord> b = a;
  b[0].metrics["exact_match"] = 1;  // doc 0 was wrong in a
  auto one = comparePaired(a, "a", b, "b");
  REQUIRE(one.ok());
  CHECK(one->wrongToRight == 1);
  CHECK(one->diffCi.hi == Approx(0.02 + 1.96 * std::sqrt(0.02 / 50)));
  CHECK(one->flipRateCi.lo > 0);
  CHECK(one->flipRateCi.hi > 0.02);
}

TEST_CASE("failed and empty requests count toward neither goodput nor percentiles", "[stats]") {
  RequestRecord ok;
  ok.ttftS = 0.2;
  ok.latencyS = 0.5;
  ok.outputLen = 4;
  RequestRecord empty;  // vLLM: success, output_len 0, ttft left at 0.0
  empty.outputLen = 0;
  RequestRecord failed = ok;
  failed.success = false;
  RequestRecord noLengths;  // the file gave no output lengths: gaps show tokens came
  noLengths.ttftS = 0.3;
  noLengths.itlsS = {0.05, 0.05};
  CHECK(producedOutput(ok));
  CHECK_FALSE(producedOutput(empty));
  CHECK_FALSE(producedOutput(failed));
  CHECK(producedOutput(noLengths));

  const std::vector<RequestRecord> reqs = {ok, empty, empty, empty, failed};
  Slo impossible;
  impossible.ttftS = 0.001e-3;  // 0.001 ms: no real request meets it
  CHECK(goodputReqPerS(reqs, impossible, 1.0) == 0.0);
  CHECK(goodputReqPerS(reqs, Slo{}, 1.0) == 1.0);  // only `ok`
  CHECK(latencyValues(reqs, LatencyMetric::Ttft) == std::vector<double>{0.2});
  BootstrapOptions o;
  o.resamples = 50;
  auto p50 = bootstrapLatencyPercentile(reqs, LatencyMetric::Ttft, 50, o);
  REQUIRE(p50.ok());
  CHECK(p50->estimate == 0.2);
  CHECK(p50->ci.lo == 0.2);  // the empty requests' 0 s never enter a resample
  auto gp = bootstrapGoodput(reqs, impossible, 1.0, o);
  REQUIRE(gp.ok());
  CHECK(gp->ci.hi == 0.0);
  CHECK_FALSE(bootstrapLatencyPercentile({empty, failed}, LatencyMetric::Ttft, 50, o).ok());
}

TEST_CASE("bootstrap percentiles equal a resample-by-resample copy", "[stats]") {
  // Reference: copy each resample's pooled values and take numpy's percentile, as the
  // definition says; the implementation weighs sorted values instead and must agree exactly.
  std::vector<RequestRecord> reqs;
  Rng gen(7);
  for (int i = 0; i < 300; ++i) {
    RequestRecord r;
    r.ttftS = static_cast<double>(gen.below(5000)) / 1e4;
    const auto gaps = 1 + gen.below(80);  // ~12,000 gaps: the blocked path
    for (std::uint64_t g = 0; g < gaps; ++g) {
      r.itlsS.push_back(static_cast<double>(gen.below(100000)) / 1e6);
    }
    r.outputLen = static_cast<std::int64_t>(gaps) + 1;
    r.success = i % 17 != 0;
    reqs.push_back(r);
  }
  BootstrapOptions o;
  o.resamples = 60;
  o.seed = 11;
  const std::vector<double> qs = {0, 37.5, 50, 90, 99, 99.9, 100};
  for (auto m : {LatencyMetric::Itl, LatencyMetric::Ttft, LatencyMetric::Tpot}) {
    INFO(latencyMetricName(m));
    auto got = bootstrapLatencyPercentiles(reqs, m, qs, o);
    REQUIRE(got.ok());
    std::vector<const RequestRecord*> carriers;
    for (const auto& r : reqs) {
      if (!latencyValues({r}, m).empty()) carriers.push_back(&r);
    }
    std::vector<std::vector<double>> stats(qs.size());
    for (int rep = 0; rep < o.resamples; ++rep) {
      Rng rng = resampleRng(o.seed, rep);  // each resample draws from its own stream
      std::vector<double> buf;
      for (std::size_t i = 0; i < carriers.size(); ++i) {
        const auto v = latencyValues({*carriers[rng.below(carriers.size())]}, m);
        buf.insert(buf.end(), v.begin(), v.end());
      }
      for (std::size_t k = 0; k < qs.size(); ++k) stats[k].push_back(percentileOf(buf, qs[k]));
    }
    for (std::size_t k = 0; k < qs.size(); ++k) {
      INFO("q " << qs[k]);
      const double tail = (1.0 - o.confidence) / 2.0 * 100.0;  // as the interval is defined
      CHECK((*got)[k].ci.lo == percentileOf(stats[k], tail));
      CHECK((*got)[k].ci.hi == percentileOf(stats[k], 100 - tail));
      CHECK((*got)[k].estimate == percentileOf(latencyValues(reqs, m), qs[k]));
    }
  }
  BootstrapOptions tooMany = o;
  tooMany.resamples = kMaxResamples + 1;
  auto refused = bootstrapLatencyPercentiles(reqs, LatencyMetric::Ttft, qs, tooMany);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().field == "resamples");
}
