#pragma once
/// The root of an increasing function, bracketed by false position with the Illinois step
/// (the end that stays twice running has its value halved): a handful of evaluations where
/// bisection takes 60. Used where a serving model solves for the concurrency that completes a
/// rate (docs/model.md, "Serving under load").
#include <algorithm>

namespace qf {

/// A bracket [lo, hi] of a root: f(lo) < 0 ≤ f(hi).
struct RootBracket {
  double lo = 0, hi = 0;
};

/// Narrows [lo, hi] (f(lo) = fLo < 0, f(hi) = fHi > 0, f increasing) until hi − lo is at most
/// relTol · max(1, hi), f is 0 at a point (then hi is that point), or maxIter evaluations are
/// spent. f(x) < 0 moves lo to x, anything else hi. A point false position proposes outside
/// (lo, hi) is replaced by the midpoint.
template <class F>
RootBracket illinoisBracket(F&& f, double lo, double hi, double fLo, double fHi, double relTol,
                            int maxIter) {
  int kept = 0;  // which end stayed last time: -1 low, +1 high
  for (int i = 0; i < maxIter && hi - lo > relTol * std::max(1.0, hi); ++i) {
    double mid = (lo * fHi - hi * fLo) / (fHi - fLo);
    if (!(mid > lo && mid < hi)) mid = 0.5 * (lo + hi);
    const double v = f(mid);
    if (v == 0) return {lo, mid};
    if (v < 0) {
      lo = mid;
      fLo = v;
      if (kept == 1) fHi *= 0.5;
      kept = 1;
    } else {
      hi = mid;
      fHi = v;
      if (kept == -1) fLo *= 0.5;
      kept = -1;
    }
  }
  return {lo, hi};
}

}  // namespace qf
