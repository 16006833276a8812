// Frontier classification (frontier / uncertain / dominated, no dominator lists) at scale:
// 10^6 candidates in 2-D and 10^5 in 3-D must each classify in under a second.
// The harness prints one JSON document: per case n, dims, distribution, the times of 3 runs.
// Usage: qf_bench_frontier [--repetitions N] [--axis case=NAME,...] [--axis scale=S]
//        (S multiplies every n; default 1)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/frontier.hpp>
#include <quantfront/core/analysis/stats.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/core/base/version.hpp>

#include "harness.hpp"

namespace {

double uniform01(qf::stats::Rng& rng) {
  return static_cast<double>(rng.next() >> 11) * 0x1.0p-53;
}

/// "uniform": independent coordinates; "anti": points near the plane Σx = const, so a large
/// share of them is on the frontier (the hard case for skyline methods).
qf::OrientedPoints makePoints(std::size_t n, std::size_t dims, const std::string& dist,
                              bool intervals, std::uint64_t seed) {
  qf::stats::Rng rng(seed);
  qf::OrientedPoints pts;
  pts.dims = dims;
  pts.value.reserve(n * dims);
  pts.pessimistic.reserve(n * dims);
  pts.optimistic.reserve(n * dims);
  std::vector<double> v(dims), lo(dims), hi(dims);
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0;
    for (std::size_t k = 0; k < dims; ++k) {
      v[k] = uniform01(rng);
      sum += v[k];
    }
    if (dist == "anti") {
      const double target = 0.5 * static_cast<double>(dims) + 0.01 * (uniform01(rng) - 0.5);
      for (auto& x : v) x *= target / sum;
    }
    for (std::size_t k = 0; k < dims; ++k) {
      const double w = intervals ? 0.002 * uniform01(rng) : 0.0;
      lo[k] = v[k] - w;
      hi[k] = v[k] + w;
    }
    pts.add(v, lo, hi);
  }
  return pts;
}

/// Peak resident set of this process so far (VmHWM), bytes; 0 when unknown.
double peakRssBytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) * 1024.0;
  }
  return 0;
}

/// computeFrontier on n candidates with 3 objectives and intervals, dominator lists as
/// `qfront frontier` asks for them (the default cap), then the JSON it prints: the path whose
/// memory used to grow as n² (every dominator of every candidate).
qf::Json candidateCase(std::size_t n) {
  const auto pts = makePoints(n, 3, "uniform", true, 77);
  std::vector<qf::Candidate> cands(n);
  const char* names[3] = {"score", "tpot_p99_ms", "throughput_tok_s"};
  for (std::size_t i = 0; i < n; ++i) {
    cands[i].id = "cand-" + std::to_string(i);
    for (std::size_t k = 0; k < 3; ++k) {
      qf::MetricValue mv;
      const double sign = k == 1 ? -1.0 : 1.0;  // tpot is minimised: un-orient it
      mv.value = sign * pts.value[i * 3 + k];
      mv.lo = std::min(sign * pts.pessimistic[i * 3 + k], sign * pts.optimistic[i * 3 + k]);
      mv.hi = std::max(sign * pts.pessimistic[i * 3 + k], sign * pts.optimistic[i * 3 + k]);
      cands[i].metrics[names[k]] = mv;
    }
  }
  qf::FrontierOptions o;
  o.objectives = {{"score", qf::Direction::Max},
                  {"tpot_p99_ms", qf::Direction::Min},
                  {"throughput_tok_s", qf::Direction::Max}};
  const auto t0 = std::chrono::steady_clock::now();
  auto r = qf::computeFrontier(cands, o);
  const auto t1 = std::chrono::steady_clock::now();
  const std::string text = qf::frontierToJson(*r).dump(2);
  const auto t2 = std::chrono::steady_clock::now();
  std::size_t truncated = 0;
  for (const auto& d : r->dominated) truncated += d.byTruncated ? 1 : 0;
  return {{"n", n},
          {"dims", 3},
          {"max_dominators_listed", o.maxDominatorsListed},
          {"compute_s", std::chrono::duration<double>(t1 - t0).count()},
          {"json_s", std::chrono::duration<double>(t2 - t1).count()},
          {"json_bytes", text.size()},
          {"peak_rss_mib", peakRssBytes() / 1048576.0},
          {"frontier", r->frontier.size()},
          {"uncertain", r->uncertain.size()},
          {"dominated", r->dominated.size()},
          {"dominated_lists_truncated", truncated}};
}

struct Case {
  std::size_t n, dims;
  const char* dist;
  bool intervals;
  double budgetS;  ///< the target's limit for this size, 0 when none
};

/// The cases by name ("1e6x2-anti+intervals"): 10^6 candidates in 2-D and 10^5 in 3-D must
/// each classify in under a second.
const std::vector<std::pair<std::string, Case>>& cases() {
  static const std::vector<std::pair<std::string, Case>> all = {
      {"1e6x2-uniform", {1'000'000, 2, "uniform", false, 1.0}},
      {"1e6x2-uniform+intervals", {1'000'000, 2, "uniform", true, 1.0}},
      {"1e6x2-anti+intervals", {1'000'000, 2, "anti", true, 1.0}},
      {"1e5x3-uniform", {100'000, 3, "uniform", false, 1.0}},
      {"1e5x3-uniform+intervals", {100'000, 3, "uniform", true, 1.0}},
      {"1e5x3-anti+intervals", {100'000, 3, "anti", true, 1.0}},
      {"1e5x5-uniform+intervals", {100'000, 5, "uniform", true, 0.0}},
      {"1e4x5-anti+intervals", {10'000, 5, "anti", true, 0.0}},
      {"1e4x8-uniform+intervals", {10'000, 8, "uniform", true, 0.0}},
  };
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  qf::bench::Suite suite(argc, argv);
  // First, while the process is small: its peak memory is the candidate path's.
  suite
      .add("candidates_with_dominator_lists",
           [](qf::bench::State& st) {
             const auto n = static_cast<std::size_t>(
                 std::max(1.0, std::round(st.number("candidates") * st.number("scale"))));
             qf::Json r;
             st.exec([&] { r = candidateCase(n); });
             st.set("result", r);
           })
      .about("computeFrontier with 3 objectives, intervals and dominator lists, then its JSON")
      .axis("candidates", {100'000})
      .axis("scale", {1.0})
      .repetitions(1);
  std::vector<qf::Json> names;
  for (const auto& [name, c] : cases()) names.emplace_back(name);
  suite
      .add("classify",
           [](qf::bench::State& st) {
             const std::string name = st.text("case");
             const auto it = std::find_if(cases().begin(), cases().end(),
                                          [&](const auto& c) { return c.first == name; });
             if (it == cases().end()) return st.fail("no case '" + name + "'");
             const Case& c = it->second;
             const double scale = st.number("scale");
             const auto n = static_cast<std::size_t>(
                 std::max(1.0, std::round(static_cast<double>(c.n) * scale)));
             const auto pts = makePoints(n, c.dims, c.dist, c.intervals, 1234 + c.dims);
             std::vector<qf::PointClass> cls;
             st.exec([&] { cls = qf::classifyPoints(pts); });
             std::size_t counts[3] = {0, 0, 0};
             for (auto k : cls) ++counts[static_cast<int>(k)];
             st.set("n", n);
             st.set("dims", c.dims);
             st.set("distribution", c.dist);
             st.set("intervals", c.intervals);
             st.set("frontier", counts[0]);
             st.set("uncertain", counts[1]);
             st.set("dominated", counts[2]);
             if (c.budgetS > 0 && scale == 1.0)
               st.set("under_budget", st.medianWallS() < c.budgetS);
           })
      .about("classifyPoints: frontier, uncertain, dominated (no dominator lists)")
      .axis("case", names)
      .axis("scale", {1.0})
      .repetitions(3);
  return suite.run(std::cout, std::cerr);
}
