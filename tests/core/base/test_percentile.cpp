// numpy's linear percentile (core/src/base/percentile.cpp): hand-computed cases.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include <quantfront/core/base/percentile.hpp>

using namespace qf;
using Catch::Detail::Approx;

TEST_CASE("percentileLinear follows numpy's linear interpolation", "[base]") {
  // Sorted {10, 10, 10, 20, 20, 20, 30, 30, 50}, n = 9.
  std::vector<double> x = {30, 10, 20, 50, 10, 20, 30, 10, 20};
  // p99: h = 8·0.99 = 7.92 → x[7] + 0.92·(x[8] − x[7]) = 30 + 0.92·20 = 48.4.
  CHECK(percentileLinear(x, 99) == Approx(48.4).epsilon(1e-12));
  // p90: h = 7.2 → 30 + 0.2·20 = 34.
  CHECK(percentileLinear(x, 90) == Approx(34.0).epsilon(1e-12));
  // p50: h = 4 → x[4] = 20 exactly.
  CHECK(percentileLinear(x, 50) == 20.0);
  CHECK(percentileLinear(x, 0) == 10.0);
  CHECK(percentileLinear(x, 100) == 50.0);
  // p99.9 of 1..10: h = 9·0.999 = 8.991 → 9 + 0.991 = 9.991.
  std::vector<double> y = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  CHECK(percentileLinear(y, 99.9) == Approx(9.991).epsilon(1e-12));
  // Median as np.median: the mean of the two middle values for even n.
  std::vector<double> z = {4, 1, 3, 2};
  CHECK(medianOf(z) == 2.5);
  std::vector<double> one = {7};
  CHECK(percentileLinear(one, 99) == 7.0);
  std::vector<double> none;
  CHECK(std::isnan(percentileLinear(none, 50)));
}
