// Frontier classification (frontier / uncertain / dominated, no dominator lists) at scale:
// 10^6 candidates in 2-D and 10^5 in 3-D must each classify in under a second.
// Prints one JSON document: per case n, dims, distribution, median seconds of 3 runs.
// Usage: qf_bench_frontier [--scale S] [--note TEXT]   (S multiplies every n; default 1)
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

std::string machineNote() {
  std::string model = "unknown CPU";
  std::ifstream cpu("/proc/cpuinfo");
  for (std::string line; std::getline(cpu, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) model = line.substr(colon + 2);
      break;
    }
  }
  return model + ", " + std::to_string(std::thread::hardware_concurrency()) +
         " hardware threads, single-threaded run";
}

}  // namespace

int main(int argc, char** argv) {
  qf::setCommandLine(argc, argv);
  double scale = 1.0;
  std::string note;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--scale" && i + 1 < argc) {
      scale = std::stod(argv[++i]);
    } else if (a == "--note" && i + 1 < argc) {
      note = argv[++i];
    } else {
      std::cerr << "usage: qf_bench_frontier [--scale S] [--note TEXT]\n";
      return 2;
    }
  }
  struct Case {
    std::size_t n, dims;
    const char* dist;
    bool intervals;
    double budgetS;  ///< the spec's limit for this size, 0 when none
  };
  const Case cases[] = {
      {1'000'000, 2, "uniform", false, 1.0}, {1'000'000, 2, "uniform", true, 1.0},
      {1'000'000, 2, "anti", true, 1.0},     {100'000, 3, "uniform", false, 1.0},
      {100'000, 3, "uniform", true, 1.0},    {100'000, 3, "anti", true, 1.0},
      {100'000, 5, "uniform", true, 0.0},    {10'000, 5, "anti", true, 0.0},
      {10'000, 8, "uniform", true, 0.0},
  };
  qf::Json out;
  out["benchmark"] = "frontier classification (classifyPoints: frontier, uncertain, dominated)";
  out["machine"] = machineNote();
  out["date"] = qf::utcTimestamp();
  out["note"] = note;
  out["runs_per_case"] = 3;
  // First, while the process is small: its peak memory is the candidate path's.
  const auto candidates = static_cast<std::size_t>(std::max(1.0, std::round(100'000.0 * scale)));
  out["candidates_with_dominator_lists"] = candidateCase(candidates);
  std::cerr << "computeFrontier " << candidates
            << " candidates: " << out["candidates_with_dominator_lists"].dump() << "\n";
  out["results"] = qf::Json::array();
  for (const auto& c : cases) {
    const auto n =
        static_cast<std::size_t>(std::max(1.0, std::round(static_cast<double>(c.n) * scale)));
    const auto pts = makePoints(n, c.dims, c.dist, c.intervals, 1234 + c.dims);
    std::vector<double> runs;
    std::vector<qf::PointClass> cls;
    for (int r = 0; r < 3; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      cls = qf::classifyPoints(pts);
      const auto t1 = std::chrono::steady_clock::now();
      runs.push_back(std::chrono::duration<double>(t1 - t0).count());
    }
    std::sort(runs.begin(), runs.end());
    std::size_t counts[3] = {0, 0, 0};
    for (auto k : cls) ++counts[static_cast<int>(k)];
    qf::Json row{{"n", n},
                 {"dims", c.dims},
                 {"distribution", c.dist},
                 {"intervals", c.intervals},
                 {"median_s", runs[1]},
                 {"runs_s", runs},
                 {"frontier", counts[0]},
                 {"uncertain", counts[1]},
                 {"dominated", counts[2]}};
    if (c.budgetS > 0 && scale == 1.0) row["under_budget"] = runs[1] < c.budgetS;
    out["results"].push_back(row);
    std::cerr << n << " x " << c.dims << "-D " << c.dist << (c.intervals ? " +intervals" : "")
              << ": median " << runs[1] << " s\n";
  }
  qf::writeJsonOutput(std::cout, std::move(out));
  return 0;
}
