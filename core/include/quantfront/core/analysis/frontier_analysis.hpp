#pragma once
/// What both front ends ask of the frontier, in one place: objectives chosen (given, saved or
/// the defaults of the metric names), gates parsed from their text, provenance-mixing
/// warnings, the frontier itself and each candidate's verdict. `qfront frontier` and the
/// window's Pareto view are thin callers of analyseFrontier.
#include <array>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <quantfront/core/analysis/frontier.hpp>
#include <quantfront/core/base/error.hpp>
#include <quantfront/core/base/records.hpp>

namespace qf {

/// Metric names the candidates carry, in first-seen order (candidates in order, each
/// candidate's metrics by name).
std::vector<std::string> metricNamesOf(const std::vector<Candidate>& candidates);

/// Objectives chosen by default, with a warning for every metric left out.
struct ObjectiveChoice {
  std::vector<Objective> objectives;
  std::vector<std::string> warnings;
};
/// Every metric among `metricNames` with a known direction (knownDirection), in order; the
/// others are named in warnings with the --objectives spelling that would include them.
ObjectiveChoice defaultObjectives(const std::vector<std::string>& metricNames);

/// One warning per objective whose values mix provenance kinds (modelled, measured,
/// published) across `candidates`: such an axis compares unlike numbers.
std::vector<std::string> provenanceWarnings(const std::vector<Candidate>& candidates,
                                            const std::vector<Objective>& objectives);

/// Gates from their texts; each text may hold several gates separated by commas. An error
/// names `source` and `position` (e.g. a session's "/view/gates") when the caller gives one.
Result<std::vector<Gate>> parseGateTexts(const std::vector<std::string>& texts,
                                         const std::string& source = {},
                                         const std::string& position = {});

/// Where a candidate ended up.
/// Undecided: a gate's interval crosses its threshold; NotScored: a metric the gates or
/// objectives need is missing (not a failure).
enum class Verdict { Frontier, Uncertain, Dominated, GatedOut, Undecided, NotScored };
/// "frontier", "uncertain", "dominated", "gated out", "undecided", "not scored".
const char* verdictName(Verdict v);

/// A candidate's verdict and why: who dominates it, or which gate it failed.
struct CandidateVerdict {
  Verdict verdict = Verdict::Frontier;
  std::string detail;  ///< "by a, b", "point-dominated by a, not clearly", "gate: reason", ""
};
/// Every classified candidate's verdict, by id.
std::map<std::string, CandidateVerdict> candidateVerdicts(const FrontierResult& result);

/// How candidates are grouped before the frontier: relative metrics (recovery, deltas) are
/// measured against each model's own baseline, so by default only candidates of one base model
/// are compared with each other.
enum class GroupBy { Model, None };
/// "model", "none".
const char* groupByName(GroupBy g);
/// "model" or "none"; nullopt otherwise.
std::optional<GroupBy> parseGroupBy(const std::string& text);

/// The frontier of one group of candidates.
struct FrontierGroup {
  std::string model;             ///< the group's base model ("" when not grouped)
  std::vector<std::string> ids;  ///< its candidates, in input order
  FrontierResult result;
};

/// The question: objectives (empty: `savedObjectives`, then the defaults), gates, baseline.
struct FrontierQuery {
  std::vector<Objective> objectives;       ///< chosen explicitly (a flag, the view's pickers)
  std::vector<Objective> savedObjectives;  ///< a session's saved objectives
  std::vector<std::string> metricNames;  ///< order of the default objectives (empty: metricNamesOf)
  std::vector<Gate> gates;
  std::optional<std::string> baselineId;
  bool withDominators = true;
  std::size_t maxDominatorsListed = FrontierOptions::kDefaultDominatorsListed;  ///< 0: all
  GroupBy groupBy = GroupBy::Model;  ///< one frontier per base model (default) or one for all
  /// Group of candidates that name no model (a session's scenario model; "" for a CSV).
  std::string defaultModel;
};

/// The answer: what was evaluated, the result, per-candidate verdicts and the warnings a
/// user must see (metrics without a direction, objectives mixing provenance).
struct FrontierAnalysis {
  FrontierOptions options;
  /// Every group's lists merged, each in input order (what a caller that ignores groups sees).
  FrontierResult result;
  GroupBy groupBy = GroupBy::Model;
  std::vector<FrontierGroup> groups;  ///< one per base model in first-seen order (one when None)
  std::map<std::string, CandidateVerdict> verdicts;
  std::vector<std::string> warnings;
};

/// Chooses the objectives, warns, computes the frontier of each group and the verdicts. Warns
/// when a relative objective (isRelativeMetric: recovery, `_delta`, `_vs_baseline`) spans
/// several base models within one group (--group-by none), and when a baseline-relative gate's
/// baseline belongs to another model than a group's. Errors name
/// `source` (the file or view the candidates came from) when the failure names no file.
Result<FrontierAnalysis> analyseFrontier(const std::vector<Candidate>& candidates,
                                         const FrontierQuery& query, const std::string& source);

/// One candidate's verdict detail read on demand, as analyseFrontier with withDominators
/// words it ("by a, b", "point-dominated by a, not clearly"), for an analysis run without
/// dominator lists: a large candidate set is classified in O(n log n) and a candidate's list
/// costs O(n) when someone asks for it (the first ask in a group orients its points once).
/// `candidates` and `analysis` (analyseFrontier's over them) must outlive the lookup.
class DominatorLookup {
 public:
  DominatorLookup(const std::vector<Candidate>& candidates, const FrontierAnalysis& analysis);
  ~DominatorLookup();
  DominatorLookup(const DominatorLookup&) = delete;
  DominatorLookup& operator=(const DominatorLookup&) = delete;
  /// The detail of a dominated or uncertain candidate; nullopt for any other.
  std::optional<std::string> detail(const std::string& id);

 private:
  struct Group {
    bool built = false;
    PassingPoints points;
    std::unordered_map<std::string, std::size_t> indexOf;
  };
  const std::vector<Candidate>& m_candidates;
  const FrontierAnalysis& m_analysis;
  std::unordered_map<std::string, const Candidate*> m_byId;
  std::unordered_map<std::string, std::size_t> m_groupOf;
  std::vector<Group> m_passing;  ///< per group of m_analysis, built on the first ask
};

/// Why `gate` cannot be applied to `candidates`: its metric is carried by no candidate and
/// unknown to the metric dictionary (a typo, not a reason to gate every candidate out), or it
/// is baseline-relative and `baselineId` is not given, names no candidate or names one that
/// lacks the metric. nullopt when it can be applied. analyseFrontier refuses a query holding
/// such a gate; the window's gate editor marks the gate's row and applies the others.
std::optional<Error> gateProblem(const Gate& gate, const std::vector<Candidate>& candidates,
                                 const std::optional<std::string>& baselineId);

/// The uncertain band of one group's frontier over two objectives, in the metrics' own units
/// (x: the first objective, y: the second). Two staircases bound it: what the candidates'
/// optimistic interval ends attain (the frontier computed on the optimistic ends) and what
/// their pessimistic ends attain (the frontier on the pessimistic ends). If every true value
/// lies in its interval, the true frontier lies between them. A frontier candidate's estimate
/// and optimistic end lie in the band: a pessimistic end beyond them would clearly dominate.
struct UncertainBand {
  std::string model;  ///< the group's base model (FrontierGroup::model)
  /// Staircase through the optimistic ends, from the end best on y to the end best on x;
  /// each end runs out to the group's worst pessimistic value on the other objective.
  std::vector<std::array<double, 2>> optimistic;
  /// Staircase through the pessimistic ends, in the same order and with the same ends.
  std::vector<std::array<double, 2>> pessimistic;
  /// Closed polygon (last vertex = first): the optimistic staircase, then the pessimistic one
  /// backwards.
  std::vector<std::array<double, 2>> polygon;
};
/// One band per group of `analysis` (computed by analyseFrontier over `candidates`) in which a
/// frontier or uncertain candidate has an interval on either objective, in group order (a
/// clearly dominated candidate lies under the band and adds nothing); none unless the analysis
/// has exactly two objectives. Interval ends are read as computeFrontier
/// reads them (a missing or non-finite end is the value; an interval is widened to hold it).
std::vector<UncertainBand> uncertainBands(const std::vector<Candidate>& candidates,
                                          const FrontierAnalysis& analysis);

/// {"group_by": "model"|"none", "groups": [{"model", "candidates": [ids], "frontier",
///  "uncertain", "dominated", "gated_out", "undecided", "not_scored",
///  "uncertain_point_dominators"}]}: the per-group
/// lists as frontierToJson writes them.
Json frontierGroupsToJson(const FrontierAnalysis& a);

}  // namespace qf
