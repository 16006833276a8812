#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/frontier.hpp>
#include <quantfront/core/analysis/metric_dictionary.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

namespace qf {

const char* directionName(Direction d) {
  return d == Direction::Max ? "max" : "min";
}

namespace {

std::vector<std::string> splitOn(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  out.push_back(cur);
  return out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

bool contains(const std::string& s, std::string_view part) {
  return s.find(part) != std::string::npos;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// Finite number, optional leading '+'; nullopt otherwise.
std::optional<double> toNumber(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string fmtNumber(double v) {
  std::ostringstream o;
  o << std::setprecision(6) << v;
  return o.str();
}

}  // namespace

std::optional<Direction> knownDirection(const std::string& metricName) {
  // lm-eval task scores first: `<task>_brier_score` and `<task>_invalid_rate` are lower-is-better
  // although the rules below would read `score` as a maximum.
  if (const auto d = lmEvalMetricDirection(metricName)) return d;
  const std::string m = lower(metricName);
  const auto tokens = splitOn(m, '_');
  const auto hasToken = [&](std::string_view t) {
    return std::find(tokens.begin(), tokens.end(), t) != tokens.end();
  };
  // Larger is better. Checked first: `throughput_tok_s` ends in `_s` but is a rate.
  for (std::string_view part : {"score", "recovery", "throughput", "goodput", "queries_per_usd",
                                "max_concurrency", "cost_reduction", "accuracy", "exact_match"}) {
    if (contains(m, part)) return Direction::Max;
  }
  if (hasToken("acc") || contains(m, "tokens_per_s") || m.ends_with("_tok_s") ||
      m.ends_with("_req_s") || m.ends_with("_per_s") || m.ends_with("_tokens_s")) {
    return Direction::Max;
  }
  // Smaller is better.
  for (std::string_view suffix : {"_ms", "_s", "_us", "_gib", "_gb"}) {
    if (m.ends_with(suffix)) return Direction::Min;
  }
  for (std::string_view part : {"usd_per", "flip_rate", "energy", "fallback"}) {
    if (contains(m, part)) return Direction::Min;
  }
  if (hasToken("kl")) return Direction::Min;
  // A time unit followed by a qualifier: step_ms_b1, ttft_ms_p99, latency_s_mean.
  if (hasToken("ms") || hasToken("us") || hasToken("latency") || hasToken("gib")) {
    return Direction::Min;
  }
  return std::nullopt;
}

Result<std::vector<Objective>> parseObjectives(const std::string& spec, const std::string& field) {
  std::vector<Objective> out;
  std::set<std::string> seen;
  for (const auto& raw : splitOn(spec, ',')) {
    const std::string item = trim(raw);
    if (item.empty()) return Error{"", "", field, "empty objective in '" + spec + "'"};
    Objective o;
    const auto colon = item.rfind(':');
    if (colon == std::string::npos) {
      o.metric = item;
      const auto d = knownDirection(item);
      if (!d) {
        return Error{"", "", field,
                     "no known direction for metric '" + item + "'; write " + item + ":max or " +
                         item + ":min"};
      }
      o.direction = *d;
    } else {
      o.metric = trim(item.substr(0, colon));
      const std::string dir = lower(trim(item.substr(colon + 1)));
      if (dir == "max")
        o.direction = Direction::Max;
      else if (dir == "min")
        o.direction = Direction::Min;
      else {
        return Error{"", "", field,
                     "direction must be max or min, found '" + dir + "' in '" + item + "'"};
      }
      if (o.metric.empty()) return Error{"", "", field, "missing metric name in '" + item + "'"};
      if (o.metric.find(':') != std::string::npos) {
        return Error{"", "", field,
                     "one direction per objective (NAME:max or NAME:min), found '" + item + "'"};
      }
    }
    if (!seen.insert(o.metric).second) {
      return Error{"", "", field, "metric '" + o.metric + "' is listed twice"};
    }
    out.push_back(std::move(o));
  }
  return out;
}

const char* gateOpText(GateOp op) {
  switch (op) {
    case GateOp::Ge:
      return ">=";
    case GateOp::Le:
      return "<=";
    case GateOp::Gt:
      return ">";
    case GateOp::Lt:
      return "<";
    case GateOp::Eq:
      return "==";
  }
  return "?";
}

Result<Gate> parseGate(const std::string& textIn, const std::string& field) {
  std::string text;
  for (char c : textIn) {
    if (!std::isspace(static_cast<unsigned char>(c))) text.push_back(c);
  }
  Gate g;
  g.text = text;
  struct OpText {
    std::string_view text;
    GateOp op;
  };
  static constexpr OpText kOps[] = {{">=", GateOp::Ge},
                                    {"<=", GateOp::Le},
                                    {"==", GateOp::Eq},
                                    {">", GateOp::Gt},
                                    {"<", GateOp::Lt}};
  std::size_t at = std::string::npos, len = 0;
  for (const auto& o : kOps) {
    const auto p = text.find(o.text);
    if (p != std::string::npos) {
      at = p;
      len = o.text.size();
      g.op = o.op;
      break;
    }
  }
  const std::string usage = "; expected NAME>=X, NAME<X, NAME==X, or NAME>=baseline-X";
  if (at == std::string::npos) {
    return Error{"", "", field, "no comparison (>=, <=, >, <, ==) in '" + textIn + "'" + usage};
  }
  g.metric = text.substr(0, at);
  const std::string rhs = text.substr(at + len);
  if (g.metric.empty())
    return Error{"", "", field, "missing metric name in '" + textIn + "'" + usage};
  if (rhs.empty()) return Error{"", "", field, "missing threshold in '" + textIn + "'" + usage};
  if (rhs.find_first_of("<>=") != std::string::npos) {
    return Error{"", "", field, "more than one comparison in '" + textIn + "'" + usage};
  }
  const std::string rl = lower(rhs);
  if (rl.starts_with("baseline")) {
    g.relativeToBaseline = true;
    const std::string rest = rhs.substr(8);
    if (rest.empty()) {
      g.threshold = 0;
    } else if (rest[0] == '+' || rest[0] == '-') {
      const auto v = toNumber(std::string_view(rest).substr(1));
      if (!v) {
        return Error{"", "", field,
                     "'" + rest.substr(1) + "' after baseline" + rest[0] +
                         " is not a finite number in '" + textIn + "'"};
      }
      g.threshold = rest[0] == '-' ? -*v : *v;
    } else {
      return Error{"", "", field,
                   "expected baseline, baseline+X or baseline-X, found '" + rhs + "'"};
    }
    return g;
  }
  const auto v = toNumber(rhs);
  if (!v)
    return Error{"", "", field, "'" + rhs + "' is not a finite number in '" + textIn + "'" + usage};
  g.threshold = *v;
  return g;
}

bool gatePasses(GateOp op, double value, double threshold) {
  switch (op) {
    case GateOp::Ge:
      return value >= threshold;
    case GateOp::Le:
      return value <= threshold;
    case GateOp::Gt:
      return value > threshold;
    case GateOp::Lt:
      return value < threshold;
    case GateOp::Eq:
      return std::abs(value - threshold) <=
             1e-9 * std::max({1.0, std::abs(value), std::abs(threshold)});
  }
  return false;
}

const char* gateOutcomeName(GateOutcome o) {
  switch (o) {
    case GateOutcome::Pass:
      return "pass";
    case GateOutcome::Fail:
      return "fail";
    case GateOutcome::Undecided:
      return "undecided";
  }
  return "";
}

GateOutcome gateOutcome(GateOp op, double value, std::optional<double> lo, std::optional<double> hi,
                        double threshold) {
  const bool passes = gatePasses(op, value, threshold);
  if (op == GateOp::Eq || !lo || !hi || !std::isfinite(*lo) || !std::isfinite(*hi)) {
    return passes ? GateOutcome::Pass : GateOutcome::Fail;
  }
  const double low = std::min(*lo, value), high = std::max(*hi, value);
  const bool lowPasses = gatePasses(op, low, threshold);
  if (lowPasses != gatePasses(op, high, threshold)) return GateOutcome::Undecided;
  return lowPasses ? GateOutcome::Pass : GateOutcome::Fail;
}

// ---- numeric core --------------------------------------------------------------------------

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// q with coordinate k moved to the next representable value up: "p_k > q_k" becomes
/// "p_k ≥ bumped_k". False when q_k is +inf (nothing is larger).
bool bumpUp(double& x) {
  if (x == kInf) return false;
  x = std::nextafter(x, kInf);
  return true;
}

/// 2 dims: "∃p: p ≥ q, p ≠ q" = "max y over p.x > q.x is ≥ q.y" or "max y over p.x ≥ q.x
/// is > q.y". The dominators sorted by x descending reduce to their staircase (the points
/// that raise the running maximum of y): x non-increasing, y increasing, usually small
/// enough to stay in cache. Each query is then two binary searches on it; the queries
/// need no sorting.
std::vector<char> flags2d(std::span<const double> P, std::span<const double> Q) {
  const std::size_t nP = P.size() / 2, nQ = Q.size() / 2;
  std::vector<std::pair<double, double>> ps(nP);
  for (std::size_t i = 0; i < nP; ++i) ps[i] = {P[2 * i], P[2 * i + 1]};
  std::sort(ps.begin(), ps.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<double> sx, sy;
  double m = -kInf;
  for (const auto& [x, y] : ps) {
    if (y > m) {
      m = y;
      sx.push_back(x);
      sy.push_back(y);
    }
  }
  ps.clear();
  ps.shrink_to_fit();
  std::vector<char> out(nQ, 0);
  for (std::size_t i = 0; i < nQ; ++i) {
    const double qx = Q[2 * i], qy = Q[2 * i + 1];
    const auto gt = static_cast<std::size_t>(
        std::partition_point(sx.begin(), sx.end(), [qx](double x) { return x > qx; }) - sx.begin());
    if (gt > 0 && sy[gt - 1] >= qy) {
      out[i] = 1;
      continue;
    }
    const auto ge = static_cast<std::size_t>(
        std::partition_point(sx.begin() + static_cast<std::ptrdiff_t>(gt), sx.end(),
                             [qx](double x) { return x >= qx; }) -
        sx.begin());
    out[i] = static_cast<char>(ge > 0 && sy[ge - 1] > qy);
  }
  return out;
}

/// 3 dims: offline sweep in descending x. The inserted dominators' (y, z) projections are
/// kept as a staircase (y ascending, z strictly descending, none weakly dominating another);
/// the first step at or right of y holds the largest z among dominators with that y or more.
std::vector<char> flags3d(std::span<const double> P, std::span<const double> Q) {
  const std::size_t nP = P.size() / 3, nQ = Q.size() / 3;
  struct Pt {
    double x, y, z;
    std::size_t idx;
  };
  std::vector<Pt> ps(nP);
  for (std::size_t i = 0; i < nP; ++i) ps[i] = {P[3 * i], P[3 * i + 1], P[3 * i + 2], i};
  std::sort(ps.begin(), ps.end(), [](const Pt& a, const Pt& b) { return a.x > b.x; });
  std::vector<Pt> qs;
  qs.reserve(3 * nQ);
  for (std::size_t i = 0; i < nQ; ++i) {
    for (int k = 0; k < 3; ++k) {
      double c[3] = {Q[3 * i], Q[3 * i + 1], Q[3 * i + 2]};
      if (bumpUp(c[k])) qs.push_back({c[0], c[1], c[2], i});
    }
  }
  std::sort(qs.begin(), qs.end(), [](const Pt& a, const Pt& b) { return a.x > b.x; });
  std::map<double, double> stairs;
  const auto insert = [&](double y, double z) {
    auto it = stairs.lower_bound(y);
    if (it != stairs.end() && it->second >= z) return;  // weakly dominated already
    if (it != stairs.end() && it->first == y) {
      it->second = z;
    } else {
      it = stairs.emplace_hint(it, y, z);
    }
    while (it != stairs.begin()) {
      const auto prev = std::prev(it);
      if (prev->second > z) break;
      stairs.erase(prev);
    }
  };
  std::vector<char> out(nQ, 0);
  std::size_t j = 0;
  for (const auto& q : qs) {
    while (j < nP && ps[j].x >= q.x) {
      insert(ps[j].y, ps[j].z);
      ++j;
    }
    if (out[q.idx]) continue;
    const auto it = stairs.lower_bound(q.y);
    if (it != stairs.end() && it->second >= q.z) out[q.idx] = 1;
  }
  return out;
}

bool weaklyAboveAndDifferent(const double* p, const double* q, std::size_t dims) {
  bool diff = false;
  for (std::size_t k = 0; k < dims; ++k) {
    if (p[k] < q[k]) return false;
    diff = diff || p[k] > q[k];
  }
  return diff;
}

double rowSum(const double* p, std::size_t dims) {
  double s = 0;
  for (std::size_t k = 0; k < dims; ++k) s += p[k];
  return s;
}

/// Any dims: sort-filter-skyline. Only the dominators' skyline matters (dominance is
/// transitive). Ordering by coordinate sum, descending, puts every dominator before what it
/// dominates (rounding is monotone, so p ≥ q implies fl(Σp) ≥ fl(Σq); ties go lexicographic).
std::vector<char> flagsSkyline(std::span<const double> P, std::span<const double> Q,
                               std::size_t dims) {
  const std::size_t nP = P.size() / dims, nQ = Q.size() / dims;
  std::vector<double> sums(nP);
  for (std::size_t i = 0; i < nP; ++i) sums[i] = rowSum(&P[i * dims], dims);
  std::vector<std::size_t> order(nP);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (sums[a] != sums[b]) return sums[a] > sums[b];
    return std::lexicographical_compare(&P[b * dims], &P[b * dims] + dims, &P[a * dims],
                                        &P[a * dims] + dims);
  });
  std::vector<std::size_t> sky;
  for (std::size_t i : order) {
    const double* p = &P[i * dims];
    bool dominated = false;
    for (std::size_t s : sky) {
      if (weaklyAboveAndDifferent(&P[s * dims], p, dims)) {
        dominated = true;
        break;
      }
    }
    if (!dominated) sky.push_back(i);
  }
  std::vector<char> out(nQ, 0);
  if (P.data() == Q.data() && nP == nQ) {
    // Same set: a point is dominated exactly when the filter did not admit it.
    std::fill(out.begin(), out.end(), 1);
    for (std::size_t s : sky) out[s] = 0;
    return out;
  }
  for (std::size_t i = 0; i < nQ; ++i) {
    const double* q = &Q[i * dims];
    const double sq = rowSum(q, dims);
    for (std::size_t s : sky) {
      if (sums[s] < sq) break;  // no later skyline point can be ≥ q everywhere
      if (weaklyAboveAndDifferent(&P[s * dims], q, dims)) {
        out[i] = 1;
        break;
      }
    }
  }
  return out;
}

}  // namespace

std::vector<char> dominatedFlags(std::span<const double> dominators,
                                 std::span<const double> queries, std::size_t dims) {
  if (dims == 0) return {};
  const std::size_t nQ = queries.size() / dims;
  if (dominators.size() < dims) return std::vector<char>(nQ, 0);
  if (dims == 2) return flags2d(dominators, queries);
  if (dims == 3) return flags3d(dominators, queries);
  return flagsSkyline(dominators, queries, dims);
}

void OrientedPoints::add(std::span<const double> values, std::span<const double> lo,
                         std::span<const double> hi) {
  for (std::size_t k = 0; k < dims; ++k) {
    const double v = values[k];
    const double l = k < lo.size() ? std::min(lo[k], v) : v;
    const double h = k < hi.size() ? std::max(hi[k], v) : v;
    value.push_back(v);
    pessimistic.push_back(l);
    optimistic.push_back(h);
  }
}

const char* pointClassName(PointClass c) {
  switch (c) {
    case PointClass::Frontier:
      return "frontier";
    case PointClass::Uncertain:
      return "uncertain";
    case PointClass::Dominated:
      return "dominated";
  }
  return "?";
}

std::vector<PointClass> classifyPoints(const OrientedPoints& pts) {
  const std::size_t n = pts.size();
  std::vector<PointClass> out(n, PointClass::Frontier);
  if (n == 0) return out;
  const auto pointDom = dominatedFlags(pts.value, pts.value, pts.dims);
  const bool noIntervals = pts.pessimistic == pts.value && pts.optimistic == pts.value;
  const auto clearDom =
      noIntervals ? pointDom : dominatedFlags(pts.pessimistic, pts.optimistic, pts.dims);
  for (std::size_t i = 0; i < n; ++i) {
    if (clearDom[i])
      out[i] = PointClass::Dominated;
    else if (pointDom[i])
      out[i] = PointClass::Uncertain;
  }
  return out;
}

bool dominates(const OrientedPoints& pts, std::size_t a, std::size_t b) {
  return weaklyAboveAndDifferent(&pts.value[a * pts.dims], &pts.value[b * pts.dims], pts.dims);
}

bool clearlyDominates(const OrientedPoints& pts, std::size_t a, std::size_t b) {
  return weaklyAboveAndDifferent(&pts.pessimistic[a * pts.dims], &pts.optimistic[b * pts.dims],
                                 pts.dims);
}

std::vector<std::size_t> clearDominatorsOf(const OrientedPoints& pts, std::size_t i,
                                           std::size_t limit) {
  std::vector<std::size_t> out;
  for (std::size_t a = 0; a < pts.size() && (limit == 0 || out.size() < limit); ++a) {
    if (clearlyDominates(pts, a, i)) out.push_back(a);
  }
  return out;
}

std::vector<std::size_t> pointDominatorsOf(const OrientedPoints& pts, std::size_t i,
                                           std::size_t limit) {
  std::vector<std::size_t> out;
  for (std::size_t a = 0; a < pts.size() && (limit == 0 || out.size() < limit); ++a) {
    if (dominates(pts, a, i)) out.push_back(a);
  }
  return out;
}

// ---- candidates ----------------------------------------------------------------------------

Result<FrontierResult> computeFrontier(const std::vector<Candidate>& candidates,
                                       const FrontierOptions& opts) {
  if (opts.objectives.empty()) {
    return Error{"", "", "objectives", "at least one objective is needed"};
  }
  {
    std::set<std::string> ids;
    for (const auto& c : candidates) {
      if (!ids.insert(c.id).second) {
        return Error{"", "", "id", "candidate id '" + c.id + "' appears twice"};
      }
    }
  }
  const Candidate* baseline = nullptr;
  if (opts.baselineId) {
    for (const auto& c : candidates) {
      if (c.id == *opts.baselineId) baseline = &c;
    }
    if (!baseline && opts.baselinePool) {
      for (const auto& c : *opts.baselinePool) {
        if (c.id == *opts.baselineId) baseline = &c;
      }
    }
    if (!baseline) {
      return Error{"", "", "baseline", "no candidate has id '" + *opts.baselineId + "'"};
    }
  }
  // Resolve baseline-relative thresholds once.
  std::vector<double> thresholds;
  std::vector<std::string> thresholdNotes;
  for (const auto& g : opts.gates) {
    if (!g.relativeToBaseline) {
      thresholds.push_back(g.threshold);
      thresholdNotes.push_back(fmtNumber(g.threshold));
      continue;
    }
    if (!baseline) {
      return Error{"", "", "baseline",
                   "gate '" + g.text + "' is relative to the baseline; name it with --baseline ID"};
    }
    const auto it = baseline->metrics.find(g.metric);
    if (it == baseline->metrics.end() || !std::isfinite(it->second.value)) {
      return Error{"", "candidate '" + baseline->id + "'", g.metric,
                   "the baseline has no value for the gated metric in '" + g.text + "'"};
    }
    thresholds.push_back(it->second.value + g.threshold);
    thresholdNotes.push_back(fmtNumber(it->second.value + g.threshold) + " (baseline " +
                             fmtNumber(it->second.value) + (g.threshold < 0 ? " - " : " + ") +
                             fmtNumber(std::abs(g.threshold)) + ")");
  }

  FrontierResult r;
  r.objectives = opts.objectives;
  const std::size_t dims = opts.objectives.size();
  OrientedPoints pts;
  pts.dims = dims;
  std::vector<const Candidate*> passing;
  std::vector<double> v(dims), lo(dims), hi(dims);
  for (const auto& c : candidates) {
    const auto metricOf = [&](const std::string& name) -> const MetricValue* {
      const auto it = c.metrics.find(name);
      if (it == c.metrics.end() || !std::isfinite(it->second.value)) return nullptr;
      return &it->second;
    };
    bool out = false;
    std::optional<GatedOutCandidate> undecided;  // the first gate the interval crosses
    for (std::size_t gi = 0; gi < opts.gates.size() && !out; ++gi) {
      const Gate& g = opts.gates[gi];
      const MetricValue* mv = metricOf(g.metric);
      if (!mv) {
        r.notScored.push_back({c.id, "missing metric " + g.metric,
                               "no finite value for " + g.metric + ", needed by gate " + g.text});
        out = true;
        continue;
      }
      const GateOutcome outcome = gateOutcome(g.op, mv->value, mv->lo, mv->hi, thresholds[gi]);
      if (outcome == GateOutcome::Fail) {
        std::string interval;
        if (mv->lo && mv->hi) {
          interval = " [" + fmtNumber(*mv->lo) + ", " + fmtNumber(*mv->hi) + "]";
        }
        r.gatedOut.push_back({c.id, g.text,
                              g.metric + " " + fmtNumber(mv->value) + interval + " fails " +
                                  gateOpText(g.op) + " " + thresholdNotes[gi]});
        out = true;
      } else if (outcome == GateOutcome::Undecided && !undecided) {
        undecided =
            GatedOutCandidate{c.id, g.text,
                              g.metric + " " + fmtNumber(mv->value) + " [" + fmtNumber(*mv->lo) +
                                  ", " + fmtNumber(*mv->hi) + "] crosses " + gateOpText(g.op) +
                                  " " + thresholdNotes[gi] + ": the interval cannot decide"};
      }
    }
    if (out) continue;
    for (std::size_t k = 0; k < dims && !out; ++k) {
      const Objective& o = opts.objectives[k];
      const MetricValue* mv = metricOf(o.metric);
      if (!mv) {
        r.notScored.push_back(
            {c.id, "missing metric " + o.metric, "no finite value for objective " + o.metric});
        out = true;
        break;
      }
      const double val = mv->value;
      double l = mv->lo && std::isfinite(*mv->lo) ? *mv->lo : val;
      double h = mv->hi && std::isfinite(*mv->hi) ? *mv->hi : val;
      if (o.direction == Direction::Max) {
        v[k] = val;
        lo[k] = l;
        hi[k] = h;
      } else {
        // Oriented: larger is better; the pessimistic end of a min metric is its upper bound.
        v[k] = -val;
        lo[k] = -h;
        hi[k] = -l;
      }
    }
    if (out) continue;
    if (undecided) {
      r.undecided.push_back(std::move(*undecided));
      continue;
    }
    pts.add(v, lo, hi);
    passing.push_back(&c);
  }

  const auto classes = classifyPoints(pts);
  const std::size_t cap = opts.maxDominatorsListed;
  const std::size_t listLimit = cap == 0 ? 0 : cap + 1;
  for (std::size_t i = 0; i < passing.size(); ++i) {
    const std::string& id = passing[i]->id;
    switch (classes[i]) {
      case PointClass::Frontier:
        r.frontier.push_back(id);
        break;
      case PointClass::Uncertain: {
        r.uncertain.push_back(id);
        if (opts.withDominators) {
          DominatedCandidate d{id, {}, false};
          // One more than listed tells whether the list is cut.
          auto by = pointDominatorsOf(pts, i, listLimit);
          d.byTruncated = cap > 0 && by.size() > cap;
          if (d.byTruncated) by.resize(cap);
          for (std::size_t a : by) d.by.push_back(passing[a]->id);
          r.uncertainPointDominators.push_back(std::move(d));
        }
        break;
      }
      case PointClass::Dominated: {
        DominatedCandidate d{id, {}, false};
        if (opts.withDominators) {
          auto by = clearDominatorsOf(pts, i, listLimit);
          d.byTruncated = cap > 0 && by.size() > cap;
          if (d.byTruncated) by.resize(cap);
          for (std::size_t a : by) d.by.push_back(passing[a]->id);
        }
        r.dominated.push_back(std::move(d));
        break;
      }
    }
  }
  return r;
}

Json frontierToJson(const FrontierResult& r) {
  Json j;
  j["frontier"] = r.frontier;
  j["uncertain"] = r.uncertain;
  j["dominated"] = Json::array();
  for (const auto& d : r.dominated) {
    j["dominated"].push_back({{"id", d.id}, {"by", d.by}, {"by_truncated", d.byTruncated}});
  }
  const std::pair<const char*, const std::vector<GatedOutCandidate>*> lists[] = {
      {"gated_out", &r.gatedOut}, {"undecided", &r.undecided}, {"not_scored", &r.notScored}};
  for (const auto& [key, list] : lists) {
    j[key] = Json::array();
    for (const auto& g : *list) {
      j[key].push_back({{"id", g.id}, {"gate", g.gate}, {"reason", g.reason}});
    }
  }
  j["objectives"] = Json::array();
  for (const auto& o : r.objectives) {
    const auto info = lookupMetric(o.metric);
    j["objectives"].push_back({{"metric", o.metric},
                               {"direction", directionName(o.direction)},
                               {"readable", readableMetricName(o.metric)},
                               {"unit", info ? Json(info->unit) : Json(nullptr)},
                               {"description", info ? Json(info->description) : Json(nullptr)}});
  }
  j["uncertain_point_dominators"] = Json::array();
  for (const auto& d : r.uncertainPointDominators) {
    j["uncertain_point_dominators"].push_back(
        {{"id", d.id}, {"by", d.by}, {"by_truncated", d.byTruncated}});
  }
  return j;
}

// ---- CSV -----------------------------------------------------------------------------------

namespace {

struct CsvCell {
  std::string text;
  std::size_t column = 1;  ///< 1-based character column where the cell starts
};

struct CsvRow {
  std::vector<CsvCell> cells;
  std::size_t line = 1;
};

/// Splits CSV text into rows of cells (RFC 4180 quoting; CRLF tolerated; blank lines skipped).
Result<std::vector<CsvRow>> splitCsv(std::string_view text, const std::string& label) {
  std::vector<CsvRow> rows;
  std::size_t i = 0, line = 1;
  if (text.starts_with("\xEF\xBB\xBF")) i = 3;  // UTF-8 byte-order mark
  std::size_t lineStart = i;
  while (i < text.size()) {
    CsvRow row;
    row.line = line;
    bool blank = true;
    for (;;) {
      CsvCell cell;
      cell.column = i - lineStart + 1;
      if (i < text.size() && text[i] == '"') {
        blank = false;
        const std::size_t openLine = line, openCol = cell.column;
        ++i;
        for (;;) {
          if (i >= text.size()) {
            return Error{label,
                         "line " + std::to_string(openLine) + ", column " + std::to_string(openCol),
                         "", "quoted cell is not closed"};
          }
          if (text[i] == '"') {
            if (i + 1 < text.size() && text[i + 1] == '"') {
              cell.text.push_back('"');
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          if (text[i] == '\n') {
            ++line;
            lineStart = i + 1;
          }
          cell.text.push_back(text[i++]);
        }
        if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
          return Error{
              label,
              "line " + std::to_string(line) + ", column " + std::to_string(i - lineStart + 1), "",
              "unexpected character after a closing quote"};
        }
      } else {
        while (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
          cell.text.push_back(text[i++]);
        }
        if (!trim(cell.text).empty()) blank = false;
      }
      row.cells.push_back(std::move(cell));
      if (i < text.size() && text[i] == ',') {
        blank = false;
        ++i;
        continue;
      }
      break;
    }
    if (i < text.size() && text[i] == '\r') ++i;
    if (i < text.size() && text[i] == '\n') ++i;
    ++line;
    lineStart = i;
    if (!blank) rows.push_back(std::move(row));
  }
  return rows;
}

std::string pos(std::size_t line, std::size_t column) {
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

/// Length of the well-formed UTF-8 sequence at text[i] (RFC 3629: no overlong forms, no
/// surrogates, nothing above U+10FFFF); 0 when the bytes there are not one.
std::size_t utf8SequenceLength(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < len; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return len;
}

/// The first byte that is not valid UTF-8, as an error naming its line and column (byte
/// columns, as the other CSV errors count them); nullopt when the text is valid UTF-8.
std::optional<Error> checkUtf8(std::string_view text, const std::string& label) {
  std::size_t line = 1, lineStart = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++line;
      lineStart = ++i;
      continue;
    }
    if (c < 0x80) {
      ++i;
      continue;
    }
    const std::size_t len = utf8SequenceLength(text, i);
    if (len == 0) {
      static const char* const kHex = "0123456789ABCDEF";
      const std::string hex = std::string("0x") + kHex[c >> 4] + kHex[c & 0xF];
      return Error{label, pos(line, i - lineStart + 1), line == 1 ? "header" : "",
                   "invalid UTF-8 (byte " + hex +
                       "); a candidates CSV must be UTF-8 text (re-save it as UTF-8)"};
    }
    i += len;
  }
  return std::nullopt;
}

}  // namespace

Result<CandidateTable> parseCandidateCsv(std::string_view text, const std::string& label) {
  if (auto bad = checkUtf8(text, label)) return *bad;
  auto rowsR = splitCsv(text, label);
  if (!rowsR) return rowsR.error();
  auto& rows = *rowsR;
  if (rows.empty())
    return Error{label, "line 1, column 1", "", "file is empty; expected a header id,<metric>,..."};
  const CsvRow& header = rows.front();
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& c : header.cells) {
    const std::string name = trim(c.text);
    if (name.empty())
      return Error{label, pos(header.line, c.column), "", "empty column name in the header"};
    if (!seen.insert(name).second) {
      return Error{label, pos(header.line, c.column), name, "column appears twice in the header"};
    }
    names.push_back(name);
  }
  if (names.front() != "id") {
    return Error{label, pos(header.line, 1), names.front(),
                 "the first column must be 'id' (header id,<metric>,...)"};
  }
  // Column roles.
  enum class Role { Id, Text, GpuCount, Metric, Lo, Hi };
  static const std::set<std::string> kText = {"model", "scheme", "gpu", "engine", "notes"};
  std::vector<Role> roles(names.size(), Role::Metric);
  std::vector<std::string> base(names.size());
  roles[0] = Role::Id;
  for (std::size_t k = 1; k < names.size(); ++k) {
    const std::string& n = names[k];
    base[k] = n;
    if (kText.count(n)) {
      roles[k] = Role::Text;
    } else if (n == "gpu_count") {
      roles[k] = Role::GpuCount;
    } else if ((n.ends_with("_lo") || n.ends_with("_hi")) && n.size() > 3 &&
               seen.count(n.substr(0, n.size() - 3))) {
      roles[k] = n.ends_with("_lo") ? Role::Lo : Role::Hi;
      base[k] = n.substr(0, n.size() - 3);
    }
  }
  CandidateTable table;
  for (std::size_t k = 1; k < names.size(); ++k) {
    if (roles[k] == Role::Metric) table.metricColumns.push_back(names[k]);
  }
  std::set<std::string> ids;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const CsvRow& row = rows[r];
    if (row.cells.size() != names.size()) {
      const std::size_t col = row.cells.size() > names.size() ? row.cells[names.size()].column
                                                              : row.cells.back().column;
      const std::string field =
          row.cells.size() > names.size() ? std::string() : names[row.cells.size()];
      return Error{label, pos(row.line, col), field,
                   "row has " + std::to_string(row.cells.size()) + " cells but the header has " +
                       std::to_string(names.size())};
    }
    Candidate c;
    c.id = trim(row.cells[0].text);
    if (c.id.empty())
      return Error{label, pos(row.line, row.cells[0].column), "id", "empty candidate id"};
    if (!ids.insert(c.id).second) {
      return Error{label, pos(row.line, row.cells[0].column), "id",
                   "candidate id '" + c.id + "' appears twice"};
    }
    std::map<std::string, std::pair<std::optional<double>, std::optional<double>>> bounds;
    std::map<std::string, std::size_t> boundCol;
    for (std::size_t k = 1; k < names.size(); ++k) {
      const std::string cellText = trim(row.cells[k].text);
      const std::string where = pos(row.line, row.cells[k].column);
      if (roles[k] == Role::Text) {
        if (names[k] == "model")
          c.model = cellText;
        else if (names[k] == "scheme")
          c.schemeLinear = cellText;
        else if (names[k] == "gpu")
          c.gpu = cellText;
        else if (names[k] == "engine")
          c.engine = cellText;
        else
          c.notes = cellText;
        continue;
      }
      if (cellText.empty()) continue;  // missing value
      const auto v = toNumber(cellText);
      if (!v) {
        const std::string l = lower(cellText);
        const bool nonFinite = l == "nan" || l == "inf" || l == "-inf" || l == "infinity" ||
                               l == "-infinity" || l == "+inf";
        return Error{label, where, names[k],
                     nonFinite ? "'" + cellText +
                                     "' is not a finite number; leave the cell empty "
                                     "for a missing value"
                               : "expected a number, found '" + cellText + "'"};
      }
      if (roles[k] == Role::GpuCount) {
        if (*v < 1 || std::floor(*v) != *v || *v > 1e6) {
          return Error{label, where, names[k],
                       "expected a positive integer, found '" + cellText + "'"};
        }
        c.gpuCount = static_cast<int>(*v);
      } else if (roles[k] == Role::Metric) {
        MetricValue mv;
        mv.value = *v;
        mv.provenance.kind = ProvenanceKind::Measured;
        mv.provenance.sourceFile = label;
        c.metrics[names[k]] = mv;
      } else {
        auto& b = bounds[base[k]];
        (roles[k] == Role::Lo ? b.first : b.second) = *v;
        boundCol[base[k] + (roles[k] == Role::Lo ? "_lo" : "_hi")] = row.cells[k].column;
      }
    }
    for (const auto& entry : bounds) {
      const std::string& metric = entry.first;
      const auto& b = entry.second;
      const auto it = c.metrics.find(metric);
      const auto colOf = [&](const char* suffix) {
        return pos(row.line, boundCol[metric + suffix]);
      };
      if (it == c.metrics.end()) {
        return Error{label, colOf(b.first ? "_lo" : "_hi"), metric + (b.first ? "_lo" : "_hi"),
                     "an interval bound is given but the value of " + metric + " is missing"};
      }
      if (b.first && *b.first > it->second.value) {
        return Error{label, colOf("_lo"), metric + "_lo",
                     "lower bound " + fmtNumber(*b.first) + " is above the value " +
                         fmtNumber(it->second.value)};
      }
      if (b.second && *b.second < it->second.value) {
        return Error{label, colOf("_hi"), metric + "_hi",
                     "upper bound " + fmtNumber(*b.second) + " is below the value " +
                         fmtNumber(it->second.value)};
      }
      it->second.lo = b.first;
      it->second.hi = b.second;
    }
    table.candidates.push_back(std::move(c));
  }
  return table;
}

Result<CandidateTable> readCandidateCsv(const std::string& path) {
  auto bytes = readFileBytes(path, 64ull * 1024 * 1024);
  if (!bytes) return bytes.error();
  return parseCandidateCsv(*bytes, path);
}

}  // namespace qf
