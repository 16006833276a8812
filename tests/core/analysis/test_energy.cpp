// Energy per token from measured GEMM energy (core/analysis/energy.hpp).
#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_test_macros.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include <quantfront/core/analysis/energy.hpp>
#include <quantfront/core/analysis/frontier.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/gemm_shapes.hpp>

#include "support/synthetic_measurements.hpp"

using namespace qf;
using namespace qf::testing;

TEST_CASE("energy per token sums the model's GEMM energy and divides by the batch",
          "[analysis][energy]") {
  auto model = Catalog::bundled().resolveModel("llama-3-8b");
  REQUIRE(model.ok());
  // A memory-bound board: each GEMM streams its bf16 weights at 4.8 TB/s drawing 700 W, the
  // same at M = 1 and M = 4. Llama-3-8B's decode GEMMs hold 7.5047e9 weights (the calibration
  // test's figure), so one step is 700 W × 2 B × 7.5047e9 / 4.8e12 B/s = 2.189 J.
  std::vector<KernelMeasurement> recs;
  for (const auto& s : decodeGemmShapes(*model)) {
    const double joules = 700.0 * 2.0 * static_cast<double>(s.n * s.k) / 4.8e12;
    for (const int64_t m : {1, 4}) {
      auto r = rec("gemm_bf16", "bf16", "GPU", m, s.n, s.k, 1e-3);  // the time plays no part
      r.energyJ = joules;
      r.avgPowerW = 700;
      recs.push_back(r);
    }
  }
  auto e = measuredEnergyPerToken(recs, "", *model, "bf16", {1, 4}, "m.json");
  REQUIRE(e.ok());
  REQUIRE(e->size() == 2);
  CHECK((*e)[0].joulesPerStep == Approx(2.1889).epsilon(1e-3));
  CHECK((*e)[0].joulesPerToken == Approx(2.1889).epsilon(1e-3));
  CHECK((*e)[1].joulesPerStep == Approx(2.1889).epsilon(1e-3));
  CHECK((*e)[1].joulesPerToken == Approx(2.1889 / 4).epsilon(1e-3));

  // Records measured without NVML carry no energy: one line naming the field.
  for (auto& r : recs) r.energyJ = 0;
  auto none = measuredEnergyPerToken(recs, "", *model, "bf16", {1}, "m.json");
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().field == "energy_j");
  CHECK(none.error().file == "m.json");
}

TEST_CASE("the frontier ranks energy per token smaller-is-better", "[analysis][energy]") {
  const auto d = knownDirection(kEnergyPerTokenMetric);
  REQUIRE(d.has_value());
  CHECK(*d == Direction::Min);
}
