#pragma once
/// Reference GEMM and error norms for the CUDA GEMM checks. Standard library only.
#include <cstdint>
#include <vector>

namespace qf::ref {

/// C = A·Wᵀ: a is row-major [m][k] (activations), w row-major [n][k] (weights), the result
/// row-major [m][n]. Products summed in double, stored as float.
std::vector<float> gemmReference(const std::vector<float>& a, const std::vector<float>& w,
                                 int64_t m, int64_t n, int64_t k);
/// ‖got − ref‖₂ / ‖ref‖₂; +inf when got has a NaN/inf, the sizes differ, or ref is all zero
/// while got is not.
double relativeError(const std::vector<float>& got, const std::vector<float>& ref);
/// count values uniform in [lo, hi), deterministic for a seed.
std::vector<float> randomUniform(int64_t count, uint64_t seed, float lo = -1.0f, float hi = 1.0f);

}  // namespace qf::ref
