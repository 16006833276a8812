// Reference GEMM C = A·Wᵀ on a hand-computed case, and the error norm.
#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_test_macros.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include <cmath>
#include <limits>
#include <vector>

#include <quantfront/core/reference/gemm_reference.hpp>

using namespace qf::ref;

TEST_CASE("gemmReference computes A·Wᵀ on a 2x3 case by hand", "[reference][gemm]") {
  // A is 2×2, W is 3×2 (N×K), C is 2×3.
  const std::vector<float> a = {1, 2,  //
                                3, -1};
  const std::vector<float> w = {1,    0,  //
                                0.5f, 4,  //
                                -2,   3};
  const std::vector<float> c = gemmReference(a, w, 2, 3, 2);
  const std::vector<float> want = {1, 8.5f,  4,  //
                                   3, -2.5f, -9};
  CHECK(c == want);
}

TEST_CASE("relativeError is the 2-norm ratio and rejects NaN", "[reference][gemm]") {
  CHECK(relativeError({3, 4}, {3, 4}) == 0.0);
  CHECK(std::fabs(relativeError({3, 5}, {3, 4}) - 0.2) < 1e-12);
  CHECK(std::isinf(relativeError({std::numeric_limits<float>::quiet_NaN(), 4}, {3, 4})));
  CHECK(std::isinf(relativeError({1}, {1, 2})));
}

TEST_CASE("randomUniform is deterministic per seed", "[reference][gemm]") {
  CHECK(randomUniform(16, 1) == randomUniform(16, 1));
  CHECK(randomUniform(16, 1) != randomUniform(16, 2));
}
