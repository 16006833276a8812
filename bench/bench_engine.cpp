// Engine benchmark: every built-in scheme × 4,096 batch points, with all crossovers, on one
// core, per model (an axis). The harness prints JSON: wall and CPU time over the repetitions.
//   qf_bench_engine [--repetitions N] [--axis model=ID,...]
#include <iostream>
#include <vector>

#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/scenario_spec.hpp>

#include "harness.hpp"

int main(int argc, char** argv) {
  qf::bench::Suite suite(argc, argv);
  const qf::Catalog& cat = qf::Catalog::bundled();
  std::vector<std::string> ids;
  for (const auto& s : cat.schemes()) ids.push_back(s.id);
  std::vector<double> batches;
  for (int i = 1; i <= 4096; ++i) batches.push_back(i);
  suite.set("schemes", ids.size());
  suite.set("points_per_scheme", batches.size());
  suite
      .add("engine",
           [&](qf::bench::State& st) {
             qf::ScenarioSpec spec;
             spec.model = st.text("model");
             spec.gpu = "h100-sxm";
             auto scen = qf::resolveScenario(spec);
             auto cands = qf::makeCandidates(ids, "", "", "");
             if (!scen || !cands) return st.fail("the scenario does not resolve");
             std::size_t crossovers = 0;
             bool ok = true;
             st.exec([&] {
               auto rep = qf::runEngine(*scen, *cands, batches);
               ok = ok && rep.ok();
               if (rep) crossovers = rep->crossovers.size();
             });
             if (!ok) return st.fail("the engine refused the scenario");
             st.set("crossovers", crossovers);
           })
      .about("every built-in scheme x 4096 batch points + crossovers, on an H100 SXM")
      .axis("model", {"llama-3-8b", "qwen3-30b-a3b", "deepseek-v3"})
      .repetitions(201);
  return suite.run(std::cout, std::cerr);
}
