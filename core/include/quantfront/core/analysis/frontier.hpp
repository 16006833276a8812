#pragma once
/// Quality gates and the Pareto frontier with interval-aware ("clear") dominance
/// (spec: shared/spec/frontier.md, "Gates, then the frontier").
///
/// Terms, for candidates that pass every gate, over the chosen objectives:
/// - A *dominates* B: A is at least as good on every objective and strictly better on one.
///   Equal vectors do not dominate each other (both can be on the frontier).
/// - A *clearly dominates* B: A's pessimistic interval end is at least as good as B's
///   optimistic end on every objective, and strictly better on one. Without intervals the
///   two notions coincide.
/// - frontier: no candidate dominates it; uncertain: dominated, but not clearly by anyone;
///   dominated: clearly dominated by at least one candidate.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/base/records.hpp>

namespace qf {

/// Which way an objective improves.
enum class Direction { Max, Min };
/// "max" or "min".
const char* directionName(Direction d);

/// One objective: a metric name and its orientation.
struct Objective {
  std::string metric;                    ///< metric name as candidates carry it
  Direction direction = Direction::Max;  ///< which way is better
  bool operator==(const Objective&) const = default;
};

/// Orientation of well-known metric names: `score`, `recovery`, `throughput`, `goodput`,
/// `queries_per_usd`, `max_concurrency`, `cost_reduction`, `accuracy`, `exact_match`, `acc`,
/// `tokens_per_s`, `*_tok_s`, `*_req_s`, `*_per_s` → max; lm-eval task scores `<task>_<metric>`
/// by lmEvalMetricDirection (perplexities, bits per byte, invalid rates → min); names ending in
/// `_ms`, `_s`, `_gib`, `_gb`, or containing `usd_per`, `kl`, `flip_rate`, `energy`, `fallback` →
/// min. nullopt when unknown.
std::optional<Direction> knownDirection(const std::string& metric);

/// Parses "name:max,name:min,name" (a bare name takes knownDirection). Errors name `field`.
Result<std::vector<Objective>> parseObjectives(const std::string& spec,
                                               const std::string& field = "objectives");

/// Comparison of a gate.
enum class GateOp { Ge, Le, Gt, Lt, Eq };
/// ">=", "<=", ">", "<", "==".
const char* gateOpText(GateOp op);

/// A quality or service gate: `metric OP threshold` or `metric OP baseline±offset`.
struct Gate {
  std::string text;        ///< as written, without spaces
  std::string metric;      ///< the gated metric
  GateOp op = GateOp::Ge;  ///< comparison of the candidate's value against the threshold
  double threshold = 0;    ///< absolute threshold, or the offset added to the baseline's value
  bool relativeToBaseline = false;
};

/// Parses "recovery_pct>=99", "tpot_p99_ms < 70", "score>=baseline-0.5", "kl<=baseline+0.01",
/// "max_concurrency==64" (== compares with a relative tolerance of 1e-9).
Result<Gate> parseGate(const std::string& text, const std::string& field = "gate");

/// True when `value` passes a gate whose resolved threshold is `threshold`.
bool gatePasses(GateOp op, double value, double threshold);

/// A gate's outcome for one value with its interval.
enum class GateOutcome { Pass, Fail, Undecided };
/// "pass", "fail", "undecided".
const char* gateOutcomeName(GateOutcome o);
/// Pass or Fail when the whole interval [lo, hi] (widened to hold `value`) is on one side of
/// the threshold; Undecided when it crosses it — the figure cannot say yet whether the gate
/// holds. A value without an interval (lo, hi unset or not finite) decides by itself, and so
/// does an `==` gate.
GateOutcome gateOutcome(GateOp op, double value, std::optional<double> lo, std::optional<double> hi,
                        double threshold);

// ---- numeric core (points oriented so that larger is better on every coordinate) ----------

/// For each query point q (row-major, `dims` per point): does some point p in `dominators`
/// satisfy p ≥ q on every coordinate and p ≠ q? With the same set on both sides this is
/// ordinary Pareto dominance. 2 dims: O(n log n) sort and prefix maxima; 3 dims: O(n log n)
/// sweep over a staircase; otherwise sort-filter-skyline (presorted by coordinate sum, early
/// exit), exact for any dims and fast when the skyline is small. Preconditions: finite values.
std::vector<char> dominatedFlags(std::span<const double> dominators,
                                 std::span<const double> queries, std::size_t dims);

/// Candidates' objective values oriented so that larger is better.
struct OrientedPoints {
  std::size_t dims = 0;
  std::vector<double> value;        ///< n×dims point estimates
  std::vector<double> pessimistic;  ///< n×dims worse interval end (= value without interval)
  std::vector<double> optimistic;   ///< n×dims better interval end
  [[nodiscard]] std::size_t size() const { return dims == 0 ? 0 : value.size() / dims; }
  /// Appends one point; intervals are widened to contain the value when they do not.
  void add(std::span<const double> values, std::span<const double> lo = {},
           std::span<const double> hi = {});
};

/// Classification of one point.
enum class PointClass : std::uint8_t { Frontier, Uncertain, Dominated };
/// "frontier", "uncertain", "dominated".
const char* pointClassName(PointClass c);

/// Classifies every point: the benchmarked path (no dominator lists).
std::vector<PointClass> classifyPoints(const OrientedPoints& pts);

/// A dominates B (point estimates).
bool dominates(const OrientedPoints& pts, std::size_t a, std::size_t b);
/// A clearly dominates B (A's pessimistic ends against B's optimistic ends).
bool clearlyDominates(const OrientedPoints& pts, std::size_t a, std::size_t b);
/// The points that clearly dominate point i, ascending, at most `limit` of them (0: all);
/// O(n·dims) at worst, stopping at the limit.
std::vector<std::size_t> clearDominatorsOf(const OrientedPoints& pts, std::size_t i,
                                           std::size_t limit = 0);
/// The points that dominate point i on point estimates, ascending, at most `limit` (0: all).
std::vector<std::size_t> pointDominatorsOf(const OrientedPoints& pts, std::size_t i,
                                           std::size_t limit = 0);

// ---- candidates --------------------------------------------------------------------------

/// What computeFrontier evaluates.
struct FrontierOptions {
  std::vector<Objective> objectives;      ///< at least one
  std::vector<Gate> gates;                ///< applied first, in order
  std::optional<std::string> baselineId;  ///< for baseline-relative gates
  /// Where baselineId is looked up when it is not among the evaluated candidates (a frontier
  /// computed per group takes its baseline from all candidates); null: nowhere else.
  const std::vector<Candidate>* baselinePool = nullptr;
  bool withDominators = true;  ///< fill the `by` lists (O(n) per listed candidate)
  /// At most this many ids per `by` list (0: all). Lists of every dominator grow as n² on
  /// large inputs (10^5 rows: billions of ids); the first few say why a point is dominated.
  std::size_t maxDominatorsListed = kDefaultDominatorsListed;
  static constexpr std::size_t kDefaultDominatorsListed = 10;
};

/// A dominated candidate and the candidates that clearly dominate it.
struct DominatedCandidate {
  std::string id;
  std::vector<std::string> by;  ///< clear dominators, in input order (empty when not computed)
  bool byTruncated = false;     ///< more dominators exist than `by` lists
};

/// A candidate that failed a gate, or whose gate is undecided, or that is not scored on a
/// metric the gates or objectives need: the gate (or "missing metric X") and the reason.
struct GatedOutCandidate {
  std::string id;
  std::string gate;    ///< the gate's text, or "missing metric X"
  std::string reason;  ///< e.g. "score 0.71 < 0.745 (baseline 0.75 - 0.04)"
};

/// Frontier, uncertain band, dominated and gated-out candidates, each in input order.
struct FrontierResult {
  std::vector<Objective> objectives;          ///< as evaluated
  std::vector<std::string> frontier;          ///< ids nobody dominates
  std::vector<std::string> uncertain;         ///< ids dominated only within the uncertainty
  std::vector<DominatedCandidate> dominated;  ///< clearly dominated, with clear dominators
  std::vector<GatedOutCandidate> gatedOut;    ///< failed a gate: the whole interval fails
  /// Failed no gate, but a gate's interval crosses its threshold (the first such gate): the
  /// evidence cannot say yet; not classified on the frontier.
  std::vector<GatedOutCandidate> undecided;
  /// Lack (or hold a non-finite value for) a metric a gate or an objective needs: "missing
  /// metric X"; not scored, which is not failing.
  std::vector<GatedOutCandidate> notScored;
  /// For uncertain candidates: who dominates them on point estimates (when withDominators).
  std::vector<DominatedCandidate> uncertainPointDominators;
};

/// Applies the gates in order (the first clear failure gates a candidate out; else the first
/// undecided gate makes it undecided), then classifies the passing candidates. A candidate
/// missing an objective or gate metric (or holding a non-finite value) is not scored, with
/// "missing metric X". A baseline-relative gate's threshold is the baseline's point value.
/// Errors: no objectives, duplicate ids, a baseline gate without a baseline, an unknown
/// baseline id, or a baseline lacking a gated metric.
Result<FrontierResult> computeFrontier(const std::vector<Candidate>& candidates,
                                       const FrontierOptions& opts);
/// The same over candidates held elsewhere (a group of a larger list, without copying it).
Result<FrontierResult> computeFrontierOf(const std::vector<const Candidate*>& candidates,
                                         const FrontierOptions& opts);

/// The points computeFrontier classifies: the candidates that pass every gate (none
/// undecided) and carry every objective, in input order, with their oriented points.
struct PassingPoints {
  OrientedPoints points;
  std::vector<const Candidate*> candidates;  ///< point i is candidates[i]
};
/// The candidates computeFrontier(candidates, opts) would classify. A baseline-relative gate
/// finds its baseline in `opts.baselinePool` only. Errors as computeFrontier's.
Result<PassingPoints> passingPoints(const std::vector<const Candidate*>& candidates,
                                    const FrontierOptions& opts);
/// Passing point i's dominators as computeFrontier lists them with withDominators: its clear
/// dominators (`clear`: a dominated candidate's `by`) or its dominators on point estimates (an
/// uncertain candidate's), at most `maxListed` (0: all), in input order. O(n): what lets a
/// large candidate set be classified without lists and one candidate's list be read on demand.
DominatedCandidate listDominators(const PassingPoints& p, std::size_t i, bool clear,
                                  std::size_t maxListed);

/// {"frontier": [ids], "uncertain": [ids], "dominated": [{"id", "by": [ids], "by_truncated"}],
///  "gated_out": [{"id", "gate", "reason"}], "undecided": [...], "not_scored": [...] (the same
///  shape), "objectives": [{"metric", "direction"}],
///  "uncertain_point_dominators": [{"id", "by", "by_truncated"}]}; "by_truncated" is true
///  when the list stops at FrontierOptions::maxDominatorsListed.
Json frontierToJson(const FrontierResult& r);

/// Candidates read from a CSV file, with the metric columns in file order.
struct CandidateTable {
  std::vector<Candidate> candidates;       ///< one per row, in file order
  std::vector<std::string> metricColumns;  ///< numeric metric columns (not *_lo / *_hi)
};

/// CSV with header `id,<metric>,...`: optional `<metric>_lo` / `<metric>_hi` columns give
/// intervals; text columns `model`, `scheme`, `gpu`, `engine`, `notes` and integer `gpu_count`
/// fill the candidate; every other cell must be a finite number or empty (missing). Quoted
/// cells ("a,b", "" for a quote) are accepted. Errors name line, column and field.
Result<CandidateTable> parseCandidateCsv(std::string_view text, const std::string& label);
/// readFileBytes (64 MiB limit) + parseCandidateCsv.
Result<CandidateTable> readCandidateCsv(const std::string& path);

}  // namespace qf
