// Dominance and point classes (core/src/analysis/dominance.cpp) against brute force, with
// ties and intervals.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/frontier.hpp>
#include <quantfront/core/analysis/frontier_analysis.hpp>
#include <quantfront/core/analysis/stats.hpp>

using namespace qf;

namespace {

bool bruteGe(const std::vector<double>& p, std::size_t a, const std::vector<double>& q,
             std::size_t b, std::size_t dims) {
  bool strict = false;
  for (std::size_t k = 0; k < dims; ++k) {
    if (p[a * dims + k] < q[b * dims + k]) return false;
    if (p[a * dims + k] > q[b * dims + k]) strict = true;
  }
  return strict;
}

/// O(n²) reference: the definition in frontier.md, spelled out.
std::vector<PointClass> bruteClassify(const OrientedPoints& pts) {
  const std::size_t n = pts.size(), d = pts.dims;
  std::vector<PointClass> out(n, PointClass::Frontier);
  for (std::size_t b = 0; b < n; ++b) {
    bool point = false, clear = false;
    for (std::size_t a = 0; a < n; ++a) {
      if (a == b) continue;
      point = point || bruteGe(pts.value, a, pts.value, b, d);
      clear = clear || bruteGe(pts.pessimistic, a, pts.optimistic, b, d);
    }
    out[b] = clear ? PointClass::Dominated : point ? PointClass::Uncertain : PointClass::Frontier;
  }
  return out;
}

/// Random points on a coarse grid (many ties and exact duplicates) with random intervals,
/// some of zero width.
OrientedPoints randomPoints(std::size_t n, std::size_t dims, std::uint64_t seed, int grid,
                            bool intervals) {
  stats::Rng rng(seed);
  OrientedPoints pts;
  pts.dims = dims;
  std::vector<double> v(dims), lo(dims), hi(dims);
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && rng.below(10) == 0) {
      // An exact copy of an earlier point.
      const std::size_t j = rng.below(i);
      for (std::size_t k = 0; k < dims; ++k) {
        v[k] = pts.value[j * dims + k];
        lo[k] = pts.pessimistic[j * dims + k];
        hi[k] = pts.optimistic[j * dims + k];
      }
    } else {
      for (std::size_t k = 0; k < dims; ++k) {
        v[k] = static_cast<double>(rng.below(static_cast<std::uint64_t>(grid))) - grid / 2.0;
        const double w = intervals ? static_cast<double>(rng.below(3)) * 0.5 : 0.0;
        lo[k] = v[k] - w;
        hi[k] = v[k] + (intervals ? static_cast<double>(rng.below(3)) * 0.5 : 0.0);
      }
    }
    pts.add(v, lo, hi);
  }
  return pts;
}

}  // namespace

TEST_CASE("frontier classification equals brute force (2, 3, 5 dims, ties, intervals)",
          "[frontier]") {
  for (std::size_t dims : {1u, 2u, 3u, 4u, 5u, 8u}) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      for (bool intervals : {false, true}) {
        const int grid = seed % 2 == 0 ? 5 : 40;
        const auto pts = randomPoints(150 + 40 * seed, dims, seed * 1000 + dims, grid, intervals);
        const auto fast = classifyPoints(pts);
        const auto slow = bruteClassify(pts);
        INFO("dims " << dims << " seed " << seed << " intervals " << intervals);
        REQUIRE(fast.size() == slow.size());
        std::size_t mismatches = 0, frontier = 0, uncertain = 0;
        for (std::size_t i = 0; i < fast.size(); ++i) {
          mismatches += fast[i] != slow[i] ? 1 : 0;
          frontier += slow[i] == PointClass::Frontier ? 1 : 0;
          uncertain += slow[i] == PointClass::Uncertain ? 1 : 0;
        }
        CHECK(mismatches == 0);
        CHECK(frontier > 0);
        if (!intervals) CHECK(uncertain == 0);
      }
    }
  }
}

TEST_CASE("dominatedFlags with different dominator and query sets equals brute force",
          "[frontier]") {
  for (std::size_t dims : {2u, 3u, 5u}) {
    stats::Rng rng(dims);
    std::vector<double> P, Q;
    for (int i = 0; i < 300 * static_cast<int>(dims); ++i) {
      P.push_back(static_cast<double>(rng.below(8)));
      Q.push_back(static_cast<double>(rng.below(8)) + (rng.below(2) ? 0.5 : 0.0));
    }
    const auto flags = dominatedFlags(P, Q, dims);
    const std::size_t nP = P.size() / dims, nQ = Q.size() / dims;
    std::size_t mismatches = 0, dominated = 0;
    for (std::size_t q = 0; q < nQ; ++q) {
      bool any = false;
      for (std::size_t p = 0; p < nP && !any; ++p) any = bruteGe(P, p, Q, q, dims);
      mismatches += (flags[q] != 0) != any ? 1 : 0;
      dominated += any ? 1 : 0;
    }
    INFO("dims " << dims);
    CHECK(mismatches == 0);
    CHECK(dominated > 0);
    CHECK(dominated < nQ);
  }
}

TEST_CASE("ties, duplicates and values one ulp apart", "[frontier]") {
  OrientedPoints pts;
  pts.dims = 2;
  const double x = 1.0, xUp = std::nextafter(1.0, 2.0);
  pts.add(std::vector<double>{x, 5});
  pts.add(std::vector<double>{x, 5});    // equal vector: both on the frontier
  pts.add(std::vector<double>{xUp, 5});  // one ulp better on x: dominates both
  pts.add(std::vector<double>{0, 9});
  const auto c = classifyPoints(pts);
  CHECK(c[0] == PointClass::Dominated);
  CHECK(c[1] == PointClass::Dominated);
  CHECK(c[2] == PointClass::Frontier);
  CHECK(c[3] == PointClass::Frontier);
  OrientedPoints twins;
  twins.dims = 3;
  twins.add(std::vector<double>{1, 2, 3});
  twins.add(std::vector<double>{1, 2, 3});
  const auto t = classifyPoints(twins);
  CHECK(t[0] == PointClass::Frontier);
  CHECK(t[1] == PointClass::Frontier);
  CHECK(clearDominatorsOf(twins, 0).empty());
}

TEST_CASE("uncertain band: dominated on points, not clearly", "[frontier]") {
  OrientedPoints pts;
  pts.dims = 2;
  // A beats B on both points, but B's interval on objective 0 reaches above A's lower end.
  pts.add(std::vector<double>{10, 10}, std::vector<double>{9, 10}, std::vector<double>{11, 10});
  pts.add(std::vector<double>{9.5, 9}, std::vector<double>{9, 9}, std::vector<double>{10, 9});
  // C is clearly below A: its optimistic end is under A's pessimistic end everywhere.
  pts.add(std::vector<double>{7, 8}, std::vector<double>{6, 7}, std::vector<double>{8, 9});
  const auto c = classifyPoints(pts);
  CHECK(c[0] == PointClass::Frontier);
  CHECK(c[1] == PointClass::Uncertain);
  CHECK(c[2] == PointClass::Dominated);
  CHECK(dominates(pts, 0, 1));
  CHECK(!clearlyDominates(pts, 0, 1));
  // Both A and B clear C: B's pessimistic (9, 9) still beats C's optimistic (8, 9).
  CHECK(clearDominatorsOf(pts, 2) == std::vector<std::size_t>{0, 1});
  CHECK(pointDominatorsOf(pts, 1) == std::vector<std::size_t>{0});
  // Intervals that do not contain the value are widened to contain it.
  OrientedPoints w;
  w.dims = 1;
  w.add(std::vector<double>{5}, std::vector<double>{6}, std::vector<double>{4});
  CHECK(w.pessimistic[0] == 5);
  CHECK(w.optimistic[0] == 5);
}

TEST_CASE("frontier scales: 2-D sweep on 200k points agrees with the skyline method",
          "[frontier]") {
  // Large-n cross-check between two independent code paths (brute force is too slow here).
  stats::Rng rng(2024);
  const std::size_t n = 200000;
  std::vector<double> pts2(2 * n), pts3(3 * n);
  for (auto& v : pts2) v = static_cast<double>(rng.below(1u << 20));
  for (std::size_t i = 0; i < n; ++i) {
    pts3[3 * i] = pts2[2 * i];
    pts3[3 * i + 1] = pts2[2 * i + 1];
    pts3[3 * i + 2] = 0;  // a constant third objective changes nothing
  }
  const auto f2 = dominatedFlags(pts2, pts2, 2);
  const auto f3 = dominatedFlags(pts3, pts3, 3);
  std::vector<double> pts4(4 * n);
  for (std::size_t i = 0; i < n; ++i) {
    pts4[4 * i] = pts2[2 * i];
    pts4[4 * i + 1] = pts2[2 * i + 1];
  }
  const auto f4 = dominatedFlags(pts4, pts4, 4);
  CHECK(f2 == f3);
  CHECK(f2 == f4);
  const auto onFront = std::count(f2.begin(), f2.end(), 0);
  CHECK(onFront >= 1);
  CHECK(onFront < 100);
}
