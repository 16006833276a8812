#pragma once
/// A candidate's metric as the Pareto plot and view read it.
#include <cmath>
#include <optional>
#include <string>

#include <quantfront/core/base/records.hpp>

namespace qf::ui {

/// Candidate `c`'s metric `name`; none when it is missing or not finite.
inline std::optional<MetricValue> metricOf(const Candidate& c, const std::string& name) {
  const auto it = c.metrics.find(name);
  if (it == c.metrics.end() || !std::isfinite(it->second.value)) return std::nullopt;
  return it->second;
}

}  // namespace qf::ui
