// Reference GEMM (C = A·Wᵀ) and error norms for the CUDA GEMM checks.
#include <quantfront/core/reference/gemm_reference.hpp>

#include <cmath>
#include <limits>
#include <random>

namespace qf::ref {

std::vector<float> gemmReference(const std::vector<float>& a, const std::vector<float>& w,
                                 int64_t m, int64_t n, int64_t k) {
  std::vector<float> c(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    const float* aRow = a.data() + i * k;
    for (int64_t j = 0; j < n; ++j) {
      const float* wRow = w.data() + j * k;
      double sum = 0;
      for (int64_t kk = 0; kk < k; ++kk) {
        sum += static_cast<double>(aRow[kk]) * static_cast<double>(wRow[kk]);
      }
      c[static_cast<size_t>(i * n + j)] = static_cast<float>(sum);
    }
  }
  return c;
}

double relativeError(const std::vector<float>& got, const std::vector<float>& ref) {
  const double inf = std::numeric_limits<double>::infinity();
  if (got.size() != ref.size()) return inf;
  double diff = 0, norm = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) return inf;
    const double d = static_cast<double>(got[i]) - static_cast<double>(ref[i]);
    diff += d * d;
    norm += static_cast<double>(ref[i]) * static_cast<double>(ref[i]);
  }
  if (norm == 0) return diff == 0 ? 0.0 : inf;
  return std::sqrt(diff / norm);
}

std::vector<float> randomUniform(int64_t count, uint64_t seed, float lo, float hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> out(static_cast<size_t>(count));
  for (float& v : out) v = dist(rng);
  return out;
}

}  // namespace qf::ref
