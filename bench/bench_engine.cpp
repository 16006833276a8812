// Engine benchmark: every built-in scheme × 4,096 batch points, with all crossovers, on one
// core. Prints JSON: median and min wall time over repetitions, per model.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <vector>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/version.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/scenario_spec.hpp>

int main(int argc, char** argv) {
  qf::setCommandLine(argc, argv);
  const int reps = argc > 1 ? std::atoi(argv[1]) : 201;
  const qf::Catalog& cat = qf::Catalog::bundled();
  std::vector<std::string> ids;
  for (const auto& s : cat.schemes()) ids.push_back(s.id);
  std::vector<double> batches;
  for (int i = 1; i <= 4096; ++i) batches.push_back(i);
  qf::Json out;
  out["benchmark"] = "engine: all schemes x 4096 batch points + crossovers";
  out["repetitions"] = reps;
  out["schemes"] = ids.size();
  out["points_per_scheme"] = batches.size();
  for (const char* model : {"llama-3-8b", "qwen3-30b-a3b", "deepseek-v3"}) {
    qf::ScenarioSpec spec;
    spec.model = model;
    spec.gpu = "h100-sxm";
    auto scen = qf::resolveScenario(spec);
    auto cands = qf::makeCandidates(ids, "", "", "");
    if (!scen || !cands) return 1;
    std::vector<double> ms;
    std::size_t crossovers = 0;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      auto rep = qf::runEngine(*scen, *cands, batches);
      const auto t1 = std::chrono::steady_clock::now();
      if (!rep) return 1;
      crossovers = rep->crossovers.size();
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    out["results"].push_back({{"model", model},
                              {"median_ms", ms[ms.size() / 2]},
                              {"min_ms", ms.front()},
                              {"p90_ms", ms[ms.size() * 9 / 10]},
                              {"crossovers", crossovers}});
  }
  qf::writeJsonOutput(std::cout, std::move(out));
  return 0;
}
