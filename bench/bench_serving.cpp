// Serving under load and the deployment search at scale:
//   - the simulation of 10^4 requests (saturated and at a rate) must take well under a second;
//   - a search over at least 10^6 configurations must answer in under 1 s on one core, with
//     memory bounded by the frontier (peak RSS barely above the process's baseline).
// Prints one JSON document: per case the space, median seconds of 3 runs, peak RSS.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/deploy_search.hpp>
#include <quantfront/core/base/version.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/model/serving_model.hpp>

namespace {

double peakRssBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) * 1024.0;
  }
  return 0;
}

double cpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// Median wall and CPU seconds of 3 runs (the CPU time is what one core spends, whatever else
/// the machine runs).
template <class F>
std::pair<double, double> medianSeconds(F&& f) {
  std::vector<double> wall, cpu;
  for (int i = 0; i < 3; ++i) {
    const auto a = std::chrono::steady_clock::now();
    const double c = cpuSeconds();
    f();
    cpu.push_back(cpuSeconds() - c);
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[1], cpu[1]};
}

}  // namespace

int main(int argc, char** argv) {
  qf::setCommandLine(argc, argv);
  nlohmann::json out;
  const double rss0 = peakRssBytes();
  // The simulation: Llama-3.1-8B, W8A8-FP8 on one H100, 1024 -> 128 tokens, batch cap 256.
  {
    qf::ScenarioSpec spec;
    spec.model = "llama-3.1-8b";
    auto s = qf::resolveScenario(spec);
    auto c = qf::makeCandidates({"w8a8-fp8"}, "", "", "");
    if (!s || !c) return 1;
    auto eng = qf::engineServing(*s, c->front());
    if (!eng) return 1;
    qf::ServingLimits lim;
    lim.kvCapacityTokens = eng->kvCapacityTokens;
    for (const double rate : {std::numeric_limits<double>::infinity(), 40.0}) {
      qf::SimOptions o;
      o.input.mean = 1024;
      o.output.mean = 128;
      o.requests = 10000;
      o.requestsPerS = rate;
      qf::SimResult last;
      const auto [sec, cpu] =
          medianSeconds([&] { last = *qf::simulateServing(eng->steps, lim, o); });
      out["simulation"].push_back(
          {{"requests", o.requests},
           {"rate", std::isfinite(rate) ? nlohmann::json(rate) : nlohmann::json("max")},
           {"steps", last.steps},
           {"median_s", sec}});
    }
  }
  // The search: Qwen3-30B-A3B (MoE: three layer kinds), every catalog GPU, 1-16 GPUs, every
  // scheme per kind, two KV dtypes, 17 batch caps, saturated RAG.
  {
    const auto& cat = qf::Catalog::bundled();
    qf::DeploySpace sp;
    sp.model = *cat.resolveModel("qwen3-30b-a3b");
    sp.gpus = cat.gpus();
    sp.schemes = cat.schemes();
    sp.perKind = true;
    sp.maxGpus = 16;
    sp.catalog = &cat;
    qf::DeployOptions o;
    o.workload = {1024, 128};
    o.sloTpotMs = 50;
    qf::DeployResult last;
    const auto [sec, cpu] = medianSeconds([&] { last = *qf::searchDeployments(sp, o); });
    out["search"] = {{"model", "qwen3-30b-a3b"},
                     {"space", last.space},
                     {"evaluated", last.evaluated},
                     {"feasible", last.feasible},
                     {"frontier", last.frontier.size()},
                     {"median_s", sec},
                     {"median_cpu_s", cpu},
                     {"configurations_per_cpu_s", static_cast<double>(last.evaluated) / cpu}};
  }
  out["peak_rss_bytes"] = peakRssBytes();
  out["baseline_rss_bytes"] = rss0;
  qf::writeJsonOutput(std::cout, std::move(out));
  return 0;
}
