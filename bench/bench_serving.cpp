// Serving under load and the deployment search at scale:
//   - the simulation of 10^4 requests (saturated and at a rate: an axis) must take well under
//     a second;
//   - a search over at least 10^6 configurations must answer in under 1 s on one core, with
//     memory bounded by the frontier (peak RSS barely above the process's baseline).
// The harness prints JSON: per case the times of 3 runs (wall and CPU), the space, peak RSS.
//   qf_bench_serving [--repetitions N] [--axis rate=max,40]
#include <iostream>
#include <limits>
#include <string>

#include <quantfront/core/analysis/deploy_search.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/model/serving_model.hpp>

#include "harness.hpp"

int main(int argc, char** argv) {
  qf::bench::Suite suite(argc, argv);
  // Llama-3.1-8B, W8A8-FP8 on one H100, 1024 -> 128 tokens, batch cap 256.
  suite
      .add("simulation",
           [](qf::bench::State& st) {
             qf::ScenarioSpec spec;
             spec.model = "llama-3.1-8b";
             auto s = qf::resolveScenario(spec);
             auto c = qf::makeCandidates({"w8a8-fp8"}, "", "", "");
             if (!s || !c) return st.fail("the scenario does not resolve");
             auto eng = qf::engineServing(*s, c->front());
             if (!eng) return st.fail(eng.error().str());
             qf::ServingLimits lim;
             lim.kvCapacityTokens = eng->kvCapacityTokens;
             qf::SimOptions o;
             o.input.mean = 1024;
             o.output.mean = 128;
             o.requests = 10000;
             o.requestsPerS = st.axis("rate").is_string() ? std::numeric_limits<double>::infinity()
                                                          : st.number("rate");
             std::size_t steps = 0;
             bool ok = true;
             st.exec([&] {
               auto r = qf::simulateServing(eng->steps, lim, o);
               ok = ok && r.ok();
               if (r) steps = r->steps;
             });
             if (!ok) return st.fail("the simulation refused its options");
             st.set("requests", o.requests);
             st.set("steps", steps);
           })
      .about("10^4 requests of Llama-3.1-8B W8A8-FP8 on one H100, 1024 -> 128 tokens, cap 256")
      .axis("rate", {"max", 40.0});
  // Qwen3-30B-A3B (MoE: three layer kinds), every catalog GPU, 1-16 GPUs, every scheme per
  // kind, two KV dtypes, 17 batch caps, saturated RAG.
  suite
      .add("search",
           [](qf::bench::State& st) {
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
             bool ok = true;
             st.exec([&] {
               auto r = qf::searchDeployments(sp, o);
               ok = ok && r.ok();
               if (r) last = std::move(*r);
             });
             if (!ok) return st.fail("the search refused its space");
             st.set("model", "qwen3-30b-a3b");
             st.set("space", last.space);
             st.set("evaluated", last.evaluated);
             st.set("feasible", last.feasible);
             st.set("frontier", last.frontier.size());
             st.set("configurations_per_cpu_s",
                    static_cast<double>(last.evaluated) / st.medianCpuS());
           })
      .about(
          "Qwen3-30B-A3B, every catalog GPU x 1-16, every scheme per kind, 2 KV dtypes, "
          "17 batch caps, saturated RAG, TPOT <= 50 ms");
  return suite.run(std::cout, std::cerr);
}
