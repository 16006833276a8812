#pragma once
// The deployment search's frontier of (latency, cost) points (deploy_search.cpp), apart so
// that the search stays one file of its loops. Internal to core/src/analysis.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include <quantfront/core/analysis/deploy_search.hpp>

namespace qf {

/// Non-dominated (latency, cost) points, both minimised; sorted by latency ascending, so
/// costs strictly descend. Insertion is O(log n + removed). The latencies and costs are kept
/// apart from the configurations, so that beats() (asked some 10^8 times by a per-kind
/// disaggregated search) reads two small arrays.
class DeployFrontier {
 public:
  void offer(const DeployConfig& c, double latency) {
    const double cost = c.usdPerMillionOutputTokens;
    if (beats(latency, cost)) return;  // dominated
    // First point with latency > this one's: everything before it is at most as slow.
    const std::size_t idx = after(latency);
    // Remove the points this one dominates: at least as slow and at least as dear.
    std::size_t end = idx;
    while (end < m_cost.size() && m_cost[end] >= cost) ++end;
    std::size_t begin = idx;
    // Equal latency and dearer, just before: dominated too.
    while (begin > 0 && m_lat[begin - 1] == latency) --begin;
    const auto b = static_cast<std::ptrdiff_t>(begin), e = static_cast<std::ptrdiff_t>(end);
    m_lat.erase(m_lat.begin() + b, m_lat.begin() + e);
    m_cost.erase(m_cost.begin() + b, m_cost.begin() + e);
    m_cfg.erase(m_cfg.begin() + b, m_cfg.begin() + e);
    m_lat.insert(m_lat.begin() + b, latency);
    m_cost.insert(m_cost.begin() + b, cost);
    m_cfg.insert(m_cfg.begin() + b, c);
    ++m_version;
  }
  /// Whether a point at most as slow and at most as dear as (latency, cost) is held: one
  /// offer() would turn away.
  [[nodiscard]] bool beats(double latency, double cost) const {
    const std::size_t idx = after(latency);
    return idx > 0 && m_cost[idx - 1] <= cost;
  }
  /// The least cost beats(latency, cost) turns away (+inf: none).
  [[nodiscard]] double costBeatenAt(double latency) const {
    const std::size_t idx = after(latency);
    return idx > 0 ? m_cost[idx - 1] : std::numeric_limits<double>::infinity();
  }
  /// Changes whenever a point joins (what beats() answers only grows between changes).
  [[nodiscard]] std::uint64_t version() const { return m_version; }
  std::vector<DeployConfig> take() { return std::move(m_cfg); }

 private:
  /// The index of the first point slower than `latency` (upper_bound).
  [[nodiscard]] std::size_t after(double latency) const {
    return static_cast<std::size_t>(std::upper_bound(m_lat.begin(), m_lat.end(), latency) -
                                    m_lat.begin());
  }
  std::vector<double> m_lat, m_cost;
  std::vector<DeployConfig> m_cfg;
  std::uint64_t m_version = 0;
};

}  // namespace qf
