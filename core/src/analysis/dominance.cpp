// Dominance over oriented points (larger is better in every coordinate): which points are
// dominated (2-d and 3-d sweeps, a skyline for more), and each point's class and dominators
// when points carry intervals.
#include <quantfront/core/analysis/frontier.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

namespace qf {

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

}  // namespace qf
