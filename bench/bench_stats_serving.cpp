// The serving bootstrap at scale (what `qfront stats serving` computes per run): p50/p90/p99
// of TTFT, TPOT, ITL and end-to-end latency plus goodput, 2,000 resamples, over n requests
// with 1–64 inter-token gaps each. Target: 200,000 requests in under 5 s, linear in requests.
// Prints one JSON document: per n the median seconds of 3 runs and seconds per 10^5 requests.
//
// Usage: qf_bench_stats_serving [n ...]   (default 25000 50000 100000 200000)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/stats.hpp>
#include <quantfront/core/base/version.hpp>

namespace {

std::vector<qf::RequestRecord> makeRun(std::size_t n) {
  qf::stats::Rng gen(20261201);
  std::vector<qf::RequestRecord> reqs(n);
  for (auto& r : reqs) {
    r.ttftS = 0.02 + static_cast<double>(gen.below(500000)) / 1e6;
    const auto gaps = 1 + gen.below(64);
    r.itlsS.reserve(gaps);
    for (std::uint64_t g = 0; g < gaps; ++g) {
      r.itlsS.push_back(0.008 + static_cast<double>(gen.below(30000)) / 1e6);
    }
    r.outputLen = static_cast<std::int64_t>(gaps) + 1;
    r.latencyS = r.ttftS;
    for (const double g : r.itlsS) r.latencyS += g;
  }
  return reqs;
}

}  // namespace

int main(int argc, char** argv) {
  qf::setCommandLine(argc, argv);
  std::vector<std::size_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
  if (sizes.empty()) sizes = {25'000, 50'000, 100'000, 200'000};
  nlohmann::json cases = nlohmann::json::array();
  for (const std::size_t n : sizes) {
    const auto reqs = makeRun(n);
    std::vector<qf::stats::PercentileRequest> wanted;
    for (const auto m : {qf::stats::LatencyMetric::Ttft, qf::stats::LatencyMetric::Tpot,
                         qf::stats::LatencyMetric::Itl, qf::stats::LatencyMetric::E2e}) {
      wanted.push_back({m, {50, 90, 99}});
    }
    qf::stats::Slo slo;
    slo.ttftS = 0.3;
    slo.tpotS = 0.025;
    std::vector<double> secs;
    double checksum = 0;
    for (int rep = 0; rep < 3; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      auto run = qf::stats::bootstrapRun(reqs, wanted, qf::stats::GoodputRequest{slo, 600.0});
      secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      if (!run) {
        std::cerr << run.error().str() << "\n";
        return 1;
      }
      checksum = (*run->percentiles[2])[2].ci.hi;
    }
    std::sort(secs.begin(), secs.end());
    cases.push_back({{"requests", n},
                     {"resamples", 2000},
                     {"median_s", secs[1]},
                     {"s_per_100k_requests", secs[1] / static_cast<double>(n) * 1e5},
                     {"itl_p99_ci_hi_s", checksum}});
  }
  qf::writeJsonOutput(
      std::cout,
      nlohmann::json{{"bench", "stats_serving"}, {"target_s_at_200k", 5.0}, {"cases", cases}});
  return 0;
}
