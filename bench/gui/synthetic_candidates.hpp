#pragma once
// The GUI benchmarks' synthetic candidates: n of them over three schemes on one GPU, each with
// a score, a latency and a memory figure that trade off (more memory, higher score and
// latency), one in ten with 95% intervals on the score and the latency.
#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <quantfront/core/base/records.hpp>

namespace qf::bench {

inline MetricValue syntheticMetric(double v, std::optional<double> half = std::nullopt) {
  MetricValue m;
  m.value = v;
  m.provenance.kind = ProvenanceKind::Measured;
  m.provenance.sourceFile = "synthetic.json";
  if (half) {
    m.lo = v - *half;
    m.hi = v + *half;
  }
  return m;
}

/// Draws from `rng` (seeded by the caller, so what it draws next stays reproducible).
inline std::vector<Candidate> syntheticCandidates(int n, std::mt19937_64& rng) {
  std::normal_distribution<double> noise(0.0, 1.0);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Candidate> cands;
  cands.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    Candidate c;
    c.id = "cand-" + std::to_string(i);
    c.model = "llama-3.1-8b";
    c.schemeLinear = i % 3 == 0 ? "bf16" : i % 3 == 1 ? "w8a8-fp8" : "w4a16-g128";
    c.gpu = "h100-sxm";
    const double mem = 4 + 12 * u(rng);
    const double lat = 6 + 0.6 * mem + 2 * std::abs(noise(rng));
    const double score = 0.70 + 0.012 * mem - 0.01 * std::abs(noise(rng));
    const bool interval = i % 10 == 0;
    c.metrics["gsm8k_exact_match"] =
        syntheticMetric(score, interval ? std::optional<double>(0.01) : std::nullopt);
    c.metrics["tpot_p99_ms"] =
        syntheticMetric(lat, interval ? std::optional<double>(0.2) : std::nullopt);
    c.metrics["weights_gib"] = syntheticMetric(mem);
    cands.push_back(std::move(c));
  }
  return cands;
}

}  // namespace qf::bench
