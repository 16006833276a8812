#pragma once
/// The answer first: what a review report's first page says, in words. Computed from the
/// engine report (the modelled regimes) and the frontier analysis of the candidates (verdicts,
/// gates, provenance), so the window's report and any other front end say the same.
#include <map>
#include <string>
#include <vector>

#include <quantfront/core/analysis/curve_intervals.hpp>
#include <quantfront/core/analysis/frontier_analysis.hpp>
#include <quantfront/core/base/records.hpp>
#include <quantfront/core/model/engine.hpp>

namespace qf {

struct ReviewSummary {
  std::string scenario;  ///< model, GPUs, schemes compared
  /// Per regime, the modelled recommendation among the schemes that fit and that the gates do
  /// not bar (a scheme whose candidates on this model, GPU and count all fail a gate or are
  /// undecided is "Not recommended, <scheme>: <why>" first): "synchronous (one request at a
  /// time, batch 1)" by step time, "saturated (every KV slot busy)" by tokens/s.
  std::vector<std::string> regimes;
  std::string doesNotFit;  ///< schemes whose weights exceed the memory budget ("" when none)
  std::string frontier;    ///< the candidates on the frontier, or why there are none
  /// What did not pass, one line per reason: gated out (each with its gate and why), undecided
  /// (each with the interval that crosses), not scored (grouped by the missing metric).
  std::vector<std::string> verdicts;
  /// The share of the objectives' figures that are measured, modelled and cited.
  std::string confidence;
};

/// The summary of `report` and of `cands` classed by `verdicts` over `objectives`. With
/// `intervals` (the report's), each regime's figures carry their 80% interval, and a scheme
/// whose interval overlaps the best one's is named as a tie with it: no recommendation
/// between them.
ReviewSummary summarizeReview(const EngineReport& report, const std::vector<Candidate>& cands,
                              const std::vector<Objective>& objectives,
                              const std::map<std::string, CandidateVerdict>& verdicts,
                              const ReportIntervals* intervals = nullptr);

}  // namespace qf
