// The serving bootstrap's shared-draw and windowed paths against their definition: each
// figure equals the one-metric functions' and a resample-by-resample copy, whatever the
// window width; the bounded draw's remainder equals the % operator.
#include <catch2/catch.hpp>

#include <cstdint>
#include <initializer_list>
#include <vector>

#include <quantfront/core/analysis/bootstrap_detail.hpp>
#include <quantfront/core/analysis/stats.hpp>
#include <quantfront/core/base/percentile.hpp>

using namespace qf;
using namespace qf::stats;

namespace {

/// numpy's linear percentile of a copy (the base function reorders its input).
double percentileOf(std::vector<double> values, double q) {
  return qf::percentileLinear(values, q);
}

/// A run with per-request ITL arrays of varied length, some failed and some empty requests.
std::vector<RequestRecord> syntheticRun(std::size_t n, std::uint64_t seed, bool withFailures) {
  std::vector<RequestRecord> reqs;
  Rng gen(seed);
  for (std::size_t i = 0; i < n; ++i) {
    RequestRecord r;
    r.ttftS = 0.02 + static_cast<double>(gen.below(20000)) / 1e5;
    const auto gaps = 1 + gen.below(40);
    for (std::uint64_t g = 0; g < gaps; ++g) {
      r.itlsS.push_back(0.01 + static_cast<double>(gen.below(100000)) / 1e7);
    }
    r.outputLen = static_cast<std::int64_t>(gaps) + 1;
    r.latencyS = r.ttftS + 0.015 * static_cast<double>(gaps);
    if (withFailures && i % 13 == 0) r.success = false;
    if (withFailures && i % 29 == 0) r.outputLen = 0, r.itlsS.clear();
    reqs.push_back(r);
  }
  return reqs;
}

const std::vector<double> kQs = {0, 25, 50, 90, 99, 100};
const LatencyMetric kAll[] = {LatencyMetric::Ttft, LatencyMetric::Tpot, LatencyMetric::Itl,
                              LatencyMetric::E2e};

}  // namespace

TEST_CASE("bounded draws are uniform and stay in range", "[stats][bootstrap]") {
  // Lemire's multiply-shift with rejection: every value of a small range about equally often
  // (chi-square over 7 cells, 70,000 draws: 99.9% quantile at 6 degrees of freedom is 22.5),
  // never outside [0, bound), also for bounds near 2^64.
  Rng rng(5);
  std::vector<int> cells(7, 0);
  for (int i = 0; i < 70'000; ++i) ++cells[rng.below(7)];
  double chi2 = 0;
  for (const int c : cells) chi2 += (c - 10'000.0) * (c - 10'000.0) / 10'000.0;
  CHECK(chi2 < 22.5);
  for (const std::uint64_t bound :
       std::initializer_list<std::uint64_t>{1, 2, (1ull << 63) + 12345, ~0ull}) {
    for (int i = 0; i < 2000; ++i) REQUIRE(rng.below(bound) < bound);
  }
  // The same seed gives the same stream; resample streams differ from each other.
  Rng a(9), b(9);
  for (int i = 0; i < 100; ++i) REQUIRE(a.below(1000) == b.below(1000));
  Rng r0 = resampleRng(9, 0), r1 = resampleRng(9, 1);
  int same = 0;
  for (int i = 0; i < 100; ++i) same += r0.below(1000) == r1.below(1000) ? 1 : 0;
  CHECK(same < 5);
}

TEST_CASE("one run's bootstrap equals the one-metric functions", "[stats][bootstrap]") {
  for (const bool failures : {false, true}) {
    INFO("with failed and empty requests: " << failures);
    const auto reqs = syntheticRun(700, 17, failures);
    BootstrapOptions o;
    o.resamples = 80;
    o.seed = 3;
    std::vector<PercentileRequest> wanted;
    for (const auto m : kAll) wanted.push_back({m, kQs});
    Slo slo;
    slo.ttftS = 0.12;
    auto run = bootstrapRun(reqs, wanted, GoodputRequest{slo, 30.0}, o);
    REQUIRE(run.ok());
    REQUIRE(run->percentiles.size() == 4);
    for (std::size_t w = 0; w < 4; ++w) {
      INFO(latencyMetricName(kAll[w]));
      auto alone = bootstrapLatencyPercentiles(reqs, kAll[w], kQs, o);
      REQUIRE(alone.ok());
      REQUIRE(run->percentiles[w].ok());
      for (std::size_t k = 0; k < kQs.size(); ++k) {
        CHECK((*run->percentiles[w])[k].estimate == (*alone)[k].estimate);
        CHECK((*run->percentiles[w])[k].ci.lo == (*alone)[k].ci.lo);
        CHECK((*run->percentiles[w])[k].ci.hi == (*alone)[k].ci.hi);
      }
    }
    auto gp = bootstrapGoodput(reqs, slo, 30.0, o);
    REQUIRE(gp.ok());
    REQUIRE(run->goodput.has_value());
    CHECK(run->goodput->ci.lo == gp->ci.lo);
    CHECK(run->goodput->ci.hi == gp->ci.hi);
    CHECK(run->goodput->estimate == gp->estimate);
    // The goodput's resamples by hand: count the good requests among n draws.
    std::vector<double> stats;
    for (int rep = 0; rep < o.resamples; ++rep) {
      Rng rng = resampleRng(o.seed, rep);
      std::int64_t good = 0;
      for (std::size_t i = 0; i < reqs.size(); ++i) {
        good += meetsSlo(reqs[rng.below(reqs.size())], slo) ? 1 : 0;
      }
      stats.push_back(static_cast<double>(good) / 30.0);
    }
    const double tail = (1.0 - o.confidence) / 2.0 * 100.0;  // as the interval is defined
    CHECK(run->goodput->ci.lo == percentileOf(stats, tail));
    CHECK(run->goodput->ci.hi == percentileOf(stats, 100 - tail));
  }
}

TEST_CASE("neither the window nor the threads change a bootstrap figure", "[stats][bootstrap]") {
  // Width 0 (64 positions) sends most resamples of the larger pools to the exact path, and
  // width 1000 keeps all in the window: both must equal a resample-by-resample copy.
  const auto reqs = syntheticRun(400, 23, true);
  BootstrapOptions o;
  o.resamples = 40;
  o.seed = 8;
  std::vector<PercentileRequest> wanted;
  for (const auto m : kAll) wanted.push_back({m, kQs});
  // Also on 1 and 3 threads: each resample has its own stream, so the split cannot matter.
  auto narrow = detail::bootstrapRunWithWindow(reqs, wanted, std::nullopt, o, 0.0, 3);
  auto wide = detail::bootstrapRunWithWindow(reqs, wanted, std::nullopt, o, 1000.0, 1);
  REQUIRE(narrow.ok());
  REQUIRE(wide.ok());
  for (std::size_t w = 0; w < 4; ++w) {
    const auto m = kAll[w];
    INFO(latencyMetricName(m));
    std::vector<const RequestRecord*> carriers;
    for (const auto& r : reqs) {
      if (!latencyValues({r}, m).empty()) carriers.push_back(&r);
    }
    std::vector<std::vector<double>> stats(kQs.size());
    for (int rep = 0; rep < o.resamples; ++rep) {
      Rng rng = resampleRng(o.seed, rep);
      std::vector<double> buf;
      for (std::size_t i = 0; i < carriers.size(); ++i) {
        const auto v = latencyValues({*carriers[rng.below(carriers.size())]}, m);
        buf.insert(buf.end(), v.begin(), v.end());
      }
      for (std::size_t k = 0; k < kQs.size(); ++k) stats[k].push_back(percentileOf(buf, kQs[k]));
    }
    for (std::size_t k = 0; k < kQs.size(); ++k) {
      INFO("q " << kQs[k]);
      const double tail = (1.0 - o.confidence) / 2.0 * 100.0;  // as the interval is defined
      for (const auto* res : {&narrow, &wide}) {
        const auto& bi = (*(*res)->percentiles[w])[k];
        CHECK(bi.ci.lo == percentileOf(stats[k], tail));
        CHECK(bi.ci.hi == percentileOf(stats[k], 100 - tail));
      }
    }
  }
}

TEST_CASE("one run's bootstrap refuses what it cannot compute", "[stats][bootstrap]") {
  const auto reqs = syntheticRun(50, 1, false);
  BootstrapOptions o;
  o.resamples = 20;
  CHECK_FALSE(bootstrapRun(reqs, {{LatencyMetric::Ttft, {101}}}, std::nullopt, o).ok());
  CHECK_FALSE(bootstrapRun(reqs, {}, GoodputRequest{Slo{}, 0.0}, o).ok());
  CHECK_FALSE(bootstrapRun({}, {}, GoodputRequest{Slo{}, 1.0}, o).ok());
  // A metric nobody carries is an error of that metric only; the others are computed.
  RequestRecord noItl;
  noItl.ttftS = 0.1;
  noItl.outputLen = 1;
  noItl.latencyS = 0.1;
  auto run = bootstrapRun({noItl, noItl}, {{LatencyMetric::Itl, {50}}, {LatencyMetric::Ttft, {50}}},
                          std::nullopt, o);
  REQUIRE(run.ok());
  CHECK_FALSE(run->percentiles[0].ok());
  REQUIRE(run->percentiles[1].ok());
  CHECK((*run->percentiles[1])[0].estimate == 0.1);
}
