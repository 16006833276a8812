// The serving bootstrap at scale (what `qfront stats serving` computes per run): p50/p90/p99
// of TTFT, TPOT, ITL and end-to-end latency plus goodput, 2,000 resamples, over n requests
// (an axis) with 1–64 inter-token gaps each. Target: 200,000 requests in under 5 s, linear in
// requests. The harness prints JSON: per n the times of 3 runs and seconds per 10^5 requests.
//   qf_bench_stats_serving [--repetitions N] [--axis requests=N,...]
#include <cstdint>
#include <iostream>
#include <vector>

#include <quantfront/core/analysis/stats.hpp>

#include "harness.hpp"

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
  qf::bench::Suite suite(argc, argv);
  suite.set("target_s_at_200k", 5.0);
  suite
      .add("stats_serving",
           [](qf::bench::State& st) {
             const auto n = static_cast<std::size_t>(st.number("requests"));
             const auto reqs = makeRun(n);
             std::vector<qf::stats::PercentileRequest> wanted;
             for (const auto m : {qf::stats::LatencyMetric::Ttft, qf::stats::LatencyMetric::Tpot,
                                  qf::stats::LatencyMetric::Itl, qf::stats::LatencyMetric::E2e}) {
               wanted.push_back({m, {50, 90, 99}});
             }
             qf::stats::Slo slo;
             slo.ttftS = 0.3;
             slo.tpotS = 0.025;
             double checksum = 0;
             std::string failure;
             st.exec([&] {
               auto run =
                   qf::stats::bootstrapRun(reqs, wanted, qf::stats::GoodputRequest{slo, 600.0});
               if (!run) {
                 failure = run.error().str();
                 return;
               }
               checksum = (*run->percentiles[2])[2].ci.hi;
             });
             if (!failure.empty()) return st.fail(failure);
             st.set("resamples", 2000);
             st.set("s_per_100k_requests", st.medianWallS() / static_cast<double>(n) * 1e5);
             st.set("itl_p99_ci_hi_s", checksum);
           })
      .about("bootstrap of p50/p90/p99 TTFT, TPOT, ITL, E2E and goodput, 2,000 resamples")
      .axis("requests", {25'000, 50'000, 100'000, 200'000})
      .repetitions(3);
  return suite.run(std::cout, std::cerr);
}
