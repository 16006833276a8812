#include <quantfront/core/analysis/stats.hpp>
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/base/percentile.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <set>
#include <tuple>

namespace qf::stats {

double binomialSe(double p, double n) {
  return std::sqrt(p * (1.0 - p) / n);
}

double ci95HalfWidth(double p, double n) {
  return kZ95 * binomialSe(p, n);
}

double minDetectableDiff(double p, double n) {
  return kZ95 * std::sqrt(2.0) * binomialSe(p, n);
}

namespace {
/// z_β for a power level; the seed rounds z to 0.84 at 80% power, keep that exact figure.
double zForPower(double power) {
  return std::abs(power - 0.8) < 1e-12 ? kZ80 : normalQuantile(power);
}
}  // namespace

double samplesPerArm(double p, double delta, double power) {
  const double z = kZ95 + zForPower(power);
  return z * z * 2.0 * p * (1.0 - p) / (delta * delta);
}

double pairedSamples(double flipRate, double delta, double power) {
  const double z = kZ95 + zForPower(power);
  return z * z * flipRate / (delta * delta);
}

double pairedSe(double flipRate, double n) {
  return std::sqrt(flipRate / n);
}

double pairedMinDetectableDiff(double flipRate, double n) {
  return kZ95 * pairedSe(flipRate, n);
}

double normalQuantile(double prob) {
  if (!(prob > 0 && prob < 1)) return std::numeric_limits<double>::quiet_NaN();
  // Acklam's rational approximation, refined by one Halley step on erfc.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double pLow = 0.02425;
  double x = 0;
  if (prob < pLow) {
    const double q = std::sqrt(-2 * std::log(prob));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (prob <= 1 - pLow) {
    const double q = prob - 0.5;
    const double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log(1 - prob));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - prob;
  const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

Interval wilsonInterval(double p, double n, double z) {
  const double z2 = z * z;
  const double denom = 1.0 + z2 / n;
  const double centre = (p + z2 / (2.0 * n)) / denom;
  const double half = z / denom * std::sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n));
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

namespace {
/// P(X ≤ k) for X ~ Binomial(n, p), summed in log space (no overflow for large n).
double binomialCdf(std::int64_t k, std::int64_t n, double p) {
  if (k < 0) return 0.0;
  if (k >= n) return 1.0;
  if (p <= 0) return 1.0;
  if (p >= 1) return 0.0;
  const double nd = static_cast<double>(n);
  const double lp = std::log(p), lq = std::log1p(-p);
  double maxLog = -std::numeric_limits<double>::infinity();
  std::vector<double> logs;
  logs.reserve(static_cast<std::size_t>(k) + 1);
  for (std::int64_t i = 0; i <= k; ++i) {
    const double id = static_cast<double>(i);
    const double l = std::lgamma(nd + 1) - std::lgamma(id + 1) - std::lgamma(nd - id + 1) +
                     id * lp + (nd - id) * lq;
    logs.push_back(l);
    maxLog = std::max(maxLog, l);
  }
  double sum = 0;
  for (const double l : logs) sum += std::exp(l - maxLog);
  return std::min(1.0, std::exp(maxLog) * sum);
}

/// The p in (0, 1) where the monotone function f crosses `target` (bisection).
template <class F>
double solveMonotone(F f, double target, bool increasing) {
  double lo = 0.0, hi = 1.0;
  for (int it = 0; it < 200 && hi - lo > 1e-15; ++it) {
    const double mid = 0.5 * (lo + hi);
    const bool below = increasing ? f(mid) < target : f(mid) > target;
    (below ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}
}  // namespace

Interval clopperPearsonInterval(std::int64_t k, std::int64_t n, double confidence) {
  if (n <= 0 || k < 0 || k > n || !(confidence > 0 && confidence < 1)) {
    return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
  }
  const double tail = (1.0 - confidence) / 2.0;
  const double nd = static_cast<double>(n);
  Interval ci;
  // Lower end: P(X ≥ k; p) = tail; upper end: P(X ≤ k; p) = tail. Closed forms at the edges.
  if (k == 0) {
    ci.lo = 0.0;
  } else if (k == n) {
    ci.lo = std::pow(tail, 1.0 / nd);
  } else {
    ci.lo = solveMonotone([&](double p) { return 1.0 - binomialCdf(k - 1, n, p); }, tail, true);
  }
  if (k == n) {
    ci.hi = 1.0;
  } else if (k == 0) {
    ci.hi = -std::expm1(std::log(tail) / nd);
  } else {
    ci.hi = solveMonotone([&](double p) { return binomialCdf(k, n, p); }, tail, false);
  }
  return ci;
}

TwoRunDifference twoRunDifference(double p1, double n1, double p2, double n2) {
  TwoRunDifference d;
  d.diff = p2 - p1;
  d.se = std::sqrt(p1 * (1.0 - p1) / n1 + p2 * (1.0 - p2) / n2);
  d.ci = {d.diff - kZ95 * d.se, d.diff + kZ95 * d.se};
  d.minDetectableDiff = kZ95 * d.se;
  return d;
}

double mcnemarExactP(std::int64_t b, std::int64_t c) {
  if (b < 0 || c < 0) return std::numeric_limits<double>::quiet_NaN();
  const std::int64_t n = b + c;
  const std::int64_t k = std::min(b, c);
  // k = (n−1)/2 (odd n) already gives P(X ≤ k) = 1/2 exactly, so p = 1.
  if (n == 0 || 2 * k + 1 >= n) return 1.0;
  const double nd = static_cast<double>(n);
  const double kd = static_cast<double>(k);
  // log P(X = k) for X ~ Binomial(n, 1/2), then the lower tail as a sum of ratios
  // T(i−1)/T(i) = i/(n−i+1) ≤ 1 walking down from k: no overflow, no cancellation.
  const double logTk =
      std::lgamma(nd + 1) - std::lgamma(kd + 1) - std::lgamma(nd - kd + 1) - nd * std::log(2.0);
  double sum = 1.0;
  double term = 1.0;
  for (std::int64_t i = k; i >= 1; --i) {
    term *= static_cast<double>(i) / static_cast<double>(n - i + 1);
    sum += term;
    if (term < 1e-18 * sum) break;
  }
  return std::min(1.0, 2.0 * std::exp(logTk) * sum);
}

namespace {

using PairKey = std::tuple<std::string, std::string, std::int64_t>;

std::string describeKey(const PairKey& k) {
  return "task '" + std::get<0>(k) + "', filter '" + std::get<1>(k) + "', doc_id " +
         std::to_string(std::get<2>(k));
}

bool selected(const SampleRecord& r, const PairOptions& o) {
  if (o.task && r.task != *o.task) return false;
  if (o.filter && r.filter != *o.filter) return false;
  return true;
}

std::string joinSet(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out;
}

/// Indexes one file's records by key; errors on duplicates or on several filters per task.
Result<std::map<PairKey, const SampleRecord*>> indexRecords(const std::vector<SampleRecord>& recs,
                                                            const std::string& file,
                                                            const PairOptions& o) {
  std::map<PairKey, const SampleRecord*> idx;
  std::map<std::string, std::set<std::string>> filtersPerTask;
  for (const auto& r : recs) {
    if (!selected(r, o)) continue;
    filtersPerTask[r.task].insert(r.filter);
    PairKey key{r.task, r.filter, r.docId};
    if (!idx.emplace(key, &r).second) {
      return Error{file, describeKey(key), "doc_id",
                   "appears twice for the same task and filter; cannot pair it"};
    }
  }
  if (!o.filter) {
    for (const auto& [task, filters] : filtersPerTask) {
      if (filters.size() > 1) {
        return Error{file, "task '" + task + "'", "filter",
                     "has several filters (" + joinSet(filters) +
                         "); the same questions appear once per filter, so choose one with "
                         "{--filter}"};
      }
    }
  }
  return idx;
}

Result<bool> outcome(const SampleRecord& r, const std::string& metric, const std::string& file) {
  const PairKey key{r.task, r.filter, r.docId};
  const auto it = r.metrics.find(metric);
  if (it == r.metrics.end()) {
    return Error{file, describeKey(key), metric, "metric is missing on this question"};
  }
  const double v = it->second;
  if (std::abs(v) < 1e-9) return false;
  if (std::abs(v - 1.0) < 1e-9) return true;
  return Error{
      file, describeKey(key), metric,
      words("value ", v, " is not 0 or 1; paired flip statistics need right/wrong outcomes")};
}

}  // namespace

namespace {

/// The metric to pair on when none is given: exact_match, else acc, of the records in `index`.
template <class Index>
Result<std::string> defaultPairMetric(const Index& index, const std::string& file) {
  bool hasExact = false, hasAcc = false;
  for (const auto& [k, r] : index) {
    hasExact = hasExact || r->metrics.count("exact_match") > 0;
    hasAcc = hasAcc || r->metrics.count("acc") > 0;
  }
  if (hasExact) return std::string("exact_match");
  if (hasAcc) return std::string("acc");
  std::set<std::string> names;
  for (const auto& [k, r] : index) {
    for (const auto& [name, v] : r->metrics) names.insert(name);
  }
  return Error{file, "", "metric",
               "neither exact_match nor acc is present; choose one with {--metric} (found: " +
                   (names.empty() ? std::string("none") : joinSet(names)) + ")"};
}

}  // namespace

Result<PairedComparison> comparePaired(const std::vector<SampleRecord>& a, const std::string& fileA,
                                       const std::vector<SampleRecord>& b, const std::string& fileB,
                                       const PairOptions& optsIn) {
  // lm-eval writes each question once per filter (gsm8k: strict-match and flexible-extract).
  // Without --filter, pair on one of them, preferring strict-match, then none, and say so.
  PairOptions opts = optsIn;
  std::string filterNote;
  if (!opts.filter) {
    std::set<std::string> filters;
    for (const auto& r : a) {
      if (!opts.task || r.task == *opts.task) filters.insert(r.filter);
    }
    if (filters.size() > 1) {
      opts.filter = filters.count("strict-match") ? "strict-match"
                    : filters.count("none")       ? "none"
                                                  : *filters.begin();
      filterNote = "several filters (" + joinSet(filters) + "); paired on filter '" + *opts.filter +
                   "' (choose another with {--filter})";
    }
  }
  auto ia = indexRecords(a, fileA, opts);
  if (!ia) return ia.error();
  auto ib = indexRecords(b, fileB, opts);
  if (!ib) return ib.error();

  PairedComparison pc;
  if (!filterNote.empty()) pc.warnings.push_back(filterNote);
  pc.metric = opts.metric;
  if (pc.metric.empty()) {
    auto chosen = defaultPairMetric(*ia, fileA);
    if (!chosen) return chosen.error();
    pc.metric = *chosen;
  }

  std::string firstPromptMismatch;
  for (const auto& [key, ra] : *ia) {
    const auto itB = ib->find(key);
    if (itB == ib->end()) {
      ++pc.onlyInA;
      continue;
    }
    const SampleRecord* rb = itB->second;
    if (!ra->docHash.empty() && !rb->docHash.empty() && ra->docHash != rb->docHash) {
      return Error{fileA, describeKey(key), "doc_hash",
                   "differs from " + fileB + " ('" + ra->docHash + "' vs '" + rb->docHash +
                       "'): the two runs did not see the same question; refusing to pair"};
    }
    if (!ra->promptHash.empty() && !rb->promptHash.empty() && ra->promptHash != rb->promptHash) {
      if (pc.promptHashMismatches == 0) firstPromptMismatch = describeKey(key);
      ++pc.promptHashMismatches;
    }
    auto oa = outcome(*ra, pc.metric, fileA);
    if (!oa) return oa.error();
    auto ob = outcome(*rb, pc.metric, fileB);
    if (!ob) return ob.error();
    ++pc.n;
    if (*oa && *ob)
      ++pc.bothRight;
    else if (!*oa && !*ob)
      ++pc.bothWrong;
    else if (*oa)
      ++pc.rightToWrong;
    else
      ++pc.wrongToRight;
  }
  for (const auto& [key, rb] : *ib) {
    if (ia->find(key) == ia->end()) ++pc.onlyInB;
  }
  if (pc.n == 0) {
    std::set<std::string> tasksA, tasksB;
    for (const auto& [k, r] : *ia) tasksA.insert(std::get<0>(k) + "/" + std::get<1>(k));
    for (const auto& [k, r] : *ib) tasksB.insert(std::get<0>(k) + "/" + std::get<1>(k));
    return Error{fileA, "", "doc_id",
                 "no (task, filter, doc_id) in common with " + fileB + " (task/filter here: " +
                     (tasksA.empty() ? std::string("none") : joinSet(tasksA)) +
                     "; there: " + (tasksB.empty() ? std::string("none") : joinSet(tasksB)) + ")"};
  }
  const double n = static_cast<double>(pc.n);
  pc.scoreA = static_cast<double>(pc.bothRight + pc.rightToWrong) / n;
  pc.scoreB = static_cast<double>(pc.bothRight + pc.wrongToRight) / n;
  pc.flipRate = static_cast<double>(pc.rightToWrong + pc.wrongToRight) / n;
  pc.mcnemarP = mcnemarExactP(pc.rightToWrong, pc.wrongToRight);
  pc.pairedSe = pairedSe(pc.flipRate, n);
  pc.diff = static_cast<double>(pc.wrongToRight - pc.rightToWrong) / n;
  pc.diffCi = {pc.diff - kZ95 * pc.pairedSe, pc.diff + kZ95 * pc.pairedSe};
  pc.minDetectableDiff = kZ95 * pc.pairedSe;
  pc.flipRateCi = clopperPearsonInterval(pc.rightToWrong + pc.wrongToRight, pc.n);
  if (pc.rightToWrong + pc.wrongToRight == 0) {
    // No discordant pair: the normal interval collapses to a point. |diff| ≤ flip rate, and
    // the flip rate is below its exact upper bound (≈ 3.69/n) with 95% confidence.
    const double bound = pc.flipRateCi.hi;
    pc.diffCi = {-bound, bound};
    pc.minDetectableDiff = bound;
    pc.warnings.push_back(words("no discordant pairs among ", pc.n,
                                " questions: the flip rate is 0 with exact 95% upper bound ", bound,
                                ", so the difference interval is +/-", bound,
                                " (the normal interval would have zero width)"));
  }
  if (pc.promptHashMismatches > 0) {
    pc.warnings.push_back("prompt_hash differs on " + std::to_string(pc.promptHashMismatches) +
                          " of " + std::to_string(pc.n) +
                          " paired questions (first: " + firstPromptMismatch +
                          "): the prompts differ (few-shot examples or chat template?); paired "
                          "anyway");
  }
  if (pc.onlyInA > 0 || pc.onlyInB > 0) {
    pc.warnings.push_back(std::to_string(pc.onlyInA) + " question(s) only in " + fileA + " and " +
                          std::to_string(pc.onlyInB) + " only in " + fileB +
                          " were left out of the pairing");
  }
  return pc;
}

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

Rng::Rng(std::uint64_t seed) : m_s{} {
  std::uint64_t x = seed;
  for (auto& w : m_s) w = splitmix64(x);
}

Rng resampleRng(std::uint64_t seed, int rep) {
  // An odd constant apart per resample; the constructor's splitmix64 decorrelates them.
  return Rng(seed + 0x632B'E59B'D9B4'E019ull * (static_cast<std::uint64_t>(rep) + 1));
}

const char* latencyMetricName(LatencyMetric m) {
  switch (m) {
    case LatencyMetric::Ttft:
      return "ttft";
    case LatencyMetric::Tpot:
      return "tpot";
    case LatencyMetric::Itl:
      return "itl";
    case LatencyMetric::E2e:
      return "e2e";
  }
  return "?";
}

double requestLatencyS(const RequestRecord& r) {
  if (r.latencyS > 0) return r.latencyS;
  double t = r.ttftS;
  for (double g : r.itlsS) t += g;
  return t;
}

std::optional<double> requestTpotS(const RequestRecord& r) {
  if (r.latencyS > 0 && r.outputLen > 1) {
    return (r.latencyS - r.ttftS) / static_cast<double>(r.outputLen - 1);
  }
  if (!r.itlsS.empty()) {
    double sum = 0;
    for (double g : r.itlsS) sum += g;
    return sum / static_cast<double>(r.itlsS.size());
  }
  return std::nullopt;
}

bool producedOutput(const RequestRecord& r) {
  return r.success && (r.outputLen > 0 || !r.itlsS.empty());
}

bool meetsSlo(const RequestRecord& r, const Slo& slo) {
  if (!producedOutput(r)) return false;
  if (slo.ttftS && !(r.ttftS <= *slo.ttftS)) return false;
  if (slo.tpotS) {
    const auto t = requestTpotS(r);
    if (t && !(*t <= *slo.tpotS)) return false;
  }
  if (slo.e2eS && !(requestLatencyS(r) <= *slo.e2eS)) return false;
  return true;
}

double goodputReqPerS(const std::vector<RequestRecord>& requests, const Slo& slo,
                      double durationS) {
  std::int64_t good = 0;
  for (const auto& r : requests) good += meetsSlo(r, slo) ? 1 : 0;
  return static_cast<double>(good) / durationS;
}

}  // namespace qf::stats
