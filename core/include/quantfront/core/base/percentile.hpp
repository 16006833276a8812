#pragma once
/// The one percentile of the project: numpy's default method ("linear", as np.percentile,
/// which vLLM's and SGLang's benchmark scripts use). With x sorted and h = (n − 1)·pct/100,
/// the p-th percentile is x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]). The importers' recomputed
/// serving figures and the statistics' bootstrap intervals both go through it.
#include <cstddef>
#include <map>
#include <vector>

namespace qf {

/// Percentile `pct` (0–100, clamped) of `values`. Reorders `values`; NaN when empty. O(n).
double percentileLinear(std::vector<double>& values, double pct);

/// Median as np.median: the middle value, or the mean of the two middle values.
/// Reorders `values`; NaN when empty.
double medianOf(std::vector<double>& values);

/// Ranks ⌊h⌋ and ⌊h⌋ + 1 that percentile `pct` of `n` values needs (appended to `ranks`).
void addPercentileRanks(std::size_t n, double pct, std::vector<std::size_t>& ranks);

/// The order statistics of `v` at `ranks` (ranks ≥ v.size() are left out). Selecting in
/// ascending rank order, each step only partitions what lies above the previous rank: a few
/// passes over the data in all instead of a sort. Reorders `v`.
std::map<std::size_t, double> orderStatistics(std::vector<double>& v,
                                              std::vector<std::size_t> ranks);

/// Percentile `pct` of `n` values from their order statistics at the ranks
/// addPercentileRanks named (numpy's linear interpolation, evaluated as numpy does).
double percentileFromOrder(std::size_t n, double pct, const std::map<std::size_t, double>& order);

}  // namespace qf
