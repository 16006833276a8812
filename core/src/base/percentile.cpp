// numpy's linear percentile, computed from order statistics (nth_element), never a full sort.
#include <quantfront/core/base/percentile.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace qf {

double percentileFromOrder(std::size_t n, double pct, const std::map<std::size_t, double>& order) {
  // As numpy: the quantile (pct / 100) times (n − 1), in that order (the other order differs
  // in the last bits and, sometimes, in the floor).
  const double h = (static_cast<double>(n) - 1.0) * (std::clamp(pct, 0.0, 100.0) / 100.0);
  const auto lo = std::min(static_cast<std::size_t>(std::floor(h)), n - 1);
  const double frac = h - static_cast<double>(lo);
  const double a = order.at(lo);
  if (lo + 1 >= n || frac == 0) return a;
  const double b = order.at(lo + 1);
  // numpy's _lerp: evaluated from the nearer end so that the result is monotone in frac.
  return frac >= 0.5 ? b - (b - a) * (1.0 - frac) : a + (b - a) * frac;
}

void addPercentileRanks(std::size_t n, double pct, std::vector<std::size_t>& ranks) {
  const double h = (static_cast<double>(n) - 1.0) * (std::clamp(pct, 0.0, 100.0) / 100.0);
  const auto lo = std::min(static_cast<std::size_t>(std::floor(h)), n - 1);
  ranks.push_back(lo);
  if (lo + 1 < n) ranks.push_back(lo + 1);
}

std::map<std::size_t, double> orderStatistics(std::vector<double>& v,
                                              std::vector<std::size_t> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::map<std::size_t, double> out;
  std::size_t from = 0;
  for (const std::size_t r : ranks) {
    if (r >= v.size()) break;
    std::nth_element(v.begin() + static_cast<std::ptrdiff_t>(from),
                     v.begin() + static_cast<std::ptrdiff_t>(r), v.end());
    out[r] = v[r];
    from = r + 1;
  }
  return out;
}

double percentileLinear(std::vector<double>& values, double pct) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::vector<std::size_t> ranks;
  addPercentileRanks(values.size(), pct, ranks);
  return percentileFromOrder(values.size(), pct, orderStatistics(values, ranks));
}

double medianOf(std::vector<double>& values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t n = values.size();
  if (n % 2 == 1) return orderStatistics(values, {n / 2}).at(n / 2);
  const auto order = orderStatistics(values, {n / 2 - 1, n / 2});
  return (order.at(n / 2 - 1) + order.at(n / 2)) / 2.0;
}

}  // namespace qf
