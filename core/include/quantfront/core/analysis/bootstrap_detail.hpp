#pragma once
/// Internals of the serving bootstrap that tests reach: the window width and the threads.
#include <cstdint>
#include <optional>
#include <vector>

#include <quantfront/core/analysis/stats.hpp>

namespace qf::stats::detail {

/// Half-width of the window searched first, in standard deviations of the resampled count
/// before the point estimate (plus 64 positions).
inline constexpr double kWindowWidthSd = 8.0;

/// bootstrapRun with another window half-width (a narrow one sends most resamples to the
/// exact fallback) and a given number of threads (0: as bootstrapRun chooses); neither may
/// change a result.
Result<RunBootstrap> bootstrapRunWithWindow(const std::vector<RequestRecord>& requests,
                                            const std::vector<PercentileRequest>& percentiles,
                                            const std::optional<GoodputRequest>& goodput,
                                            const BootstrapOptions& opts, double widthSd,
                                            int threads = 0);

}  // namespace qf::stats::detail
