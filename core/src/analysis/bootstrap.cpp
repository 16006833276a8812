// Bootstrap intervals for serving runs: latency percentiles (requests resampled with
// replacement, each bringing all its values) and goodput. docs/statistics.md, "Serving
// bootstrap", states the definition and why it is computed this way.
//
// A resample is a draw count (weight) per request. Its order statistics are found without
// copying or sorting anything per resample; the pooled values are sorted once. A metric with
// one value per request (TTFT, TPOT, E2E) sums the resample's weights per bucket of about
// sqrt(n) sorted positions (one pass over the requests), so every rank is a walk over the
// buckets and then inside one. A metric with several values per request (ITL) prepares, per
// percentile, a window of sorted positions around the point estimate with each request's
// count of values before it: the resample's count before the window is one pass over the
// requests it drew, and the rank is a short walk inside the window; a rank outside it (beyond
// 8 standard deviations of the resampled count, in practice never) takes the exact walk over
// per-block prefix counts. Metrics whose carriers are the same requests (and goodput, when
// every request carries them) share one set of draws: the draws are what a resample costs,
// and the same seed over the same number of carriers gives the same draws, so the results
// equal separate runs.
#include <quantfront/core/analysis/bootstrap_detail.hpp>
#include <quantfront/core/analysis/stats.hpp>
#include <quantfront/core/base/percentile.hpp>
#include <quantfront/core/base/version.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace qf::stats {

namespace {

/// Appends request r's finite values of metric m to out (none for a request without output).
void appendValues(const RequestRecord& r, LatencyMetric m, std::vector<double>& out) {
  if (!producedOutput(r)) return;
  auto push = [&out](double v) {
    if (std::isfinite(v)) out.push_back(v);
  };
  switch (m) {
    case LatencyMetric::Ttft:
      push(r.ttftS);
      break;
    case LatencyMetric::E2e:
      push(requestLatencyS(r));
      break;
    case LatencyMetric::Tpot:
      if (auto t = requestTpotS(r)) push(*t);
      break;
    case LatencyMetric::Itl:
      for (const double g : r.itlsS) push(g);
      break;
  }
}

std::optional<Error> checkOptions(const BootstrapOptions& o) {
  if (o.resamples < kMinResamples || o.resamples > kMaxResamples) {
    return Error{"", "", "resamples",
                 "must be between " + std::to_string(kMinResamples) + " and " +
                     std::to_string(kMaxResamples) + ", found " + std::to_string(o.resamples)};
  }
  if (!(o.confidence > 0 && o.confidence < 1)) {
    return Error{"", "", "confidence", "must lie strictly between 0 and 1"};
  }
  return std::nullopt;
}

BootstrapInterval finish(double estimate, std::vector<double>& stats, const BootstrapOptions& o) {
  BootstrapInterval bi;
  bi.estimate = estimate;
  bi.seed = o.seed;
  bi.resamples = o.resamples;
  bi.confidence = o.confidence;
  const double tail = (1.0 - o.confidence) / 2.0 * 100.0;
  bi.ci.lo = percentileLinear(stats, tail);
  bi.ci.hi = percentileLinear(stats, 100.0 - tail);
  return bi;
}

std::int64_t dot(const std::vector<std::int32_t>& w, const std::vector<std::int32_t>& c) {
  std::int64_t t = 0;
  for (std::size_t i = 0; i < w.size(); ++i) t += std::int64_t{w[i]} * c[i];
  return t;
}

/// The values of one metric pooled over the requests that carry it, sorted once, with the
/// request each value belongs to and, every `m_block` positions, how many values of each
/// request lie before (the exact path for a rank anywhere).
class PooledValues {
 public:
  PooledValues(const std::vector<RequestRecord>& requests, LatencyMetric m) {
    std::vector<double> vals;
    std::vector<std::pair<double, std::uint32_t>> all;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      vals.clear();
      appendValues(requests[i], m, vals);
      if (vals.empty()) continue;
      const auto owner = static_cast<std::uint32_t>(m_counts.size());
      m_counts.push_back(static_cast<std::int32_t>(vals.size()));
      m_requestIndex.push_back(i);
      for (const double v : vals) all.emplace_back(v, owner);
    }
    std::sort(all.begin(), all.end());
    m_values.reserve(all.size());
    m_owner.reserve(all.size());
    for (const auto& [v, o] : all) {
      m_values.push_back(v);
      m_owner.push_back(o);
    }
    m_single = all.size() == m_counts.size();
  }

  [[nodiscard]] std::size_t carriers() const { return m_counts.size(); }
  [[nodiscard]] const std::vector<std::size_t>& requestIndex() const { return m_requestIndex; }
  [[nodiscard]] const std::vector<double>& sorted() const { return m_values; }
  [[nodiscard]] const std::vector<std::uint32_t>& owner() const { return m_owner; }
  [[nodiscard]] const std::vector<std::int32_t>& counts() const { return m_counts; }
  /// True when every carrier has exactly one value (a resample then has `carriers` values).
  [[nodiscard]] bool single() const { return m_single; }

  /// Per carrier, how many of its values lie at sorted positions below each of `positions`
  /// (ascending), in one pass.
  [[nodiscard]] std::vector<std::vector<std::int32_t>> countsBefore(
      const std::vector<std::size_t>& positions) const {
    std::vector<std::vector<std::int32_t>> out;
    out.reserve(positions.size());
    std::vector<std::int32_t> running(m_counts.size(), 0);
    std::size_t j = 0;
    for (const std::size_t p : positions) {
      for (; j < p && j < m_owner.size(); ++j) ++running[m_owner[j]];
      out.push_back(running);
    }
    return out;
  }

  /// The resample's order statistics at ranks r and r + 1 (0-based; r + 1 only when below
  /// `count`), with weights `w`, by binary search over block boundaries and a walk in one.
  void orderAt(const std::vector<std::int32_t>& w, std::int64_t r, std::int64_t count,
               std::map<std::size_t, double>& out) const {
    buildBlocks();
    std::size_t b = 0;
    std::int64_t before = 0;
    if (m_blocks > 1) {
      std::size_t lo = 0, hi = m_blocks;  // weighted count before boundary lo is ≤ r
      while (hi - lo > 1) {
        const std::size_t mid = (lo + hi) / 2;
        const std::int64_t c = countBefore(w, mid);
        if (c <= r)
          lo = mid;
        else
          hi = mid;
      }
      b = lo;
      before = countBefore(w, lo);
    }
    walk(w, b * m_block, m_values.size(), before, r, count, out);
  }

  /// From sorted position `from` with `before` weighted values before it, walks to ranks r
  /// and r + 1 (r + 1 only when below `count`); false when `to` comes first.
  bool walk(const std::vector<std::int32_t>& w, std::size_t from, std::size_t to,
            std::int64_t before, std::int64_t r, std::int64_t count,
            std::map<std::size_t, double>& out) const {
    std::int64_t cum = before;
    const auto want = static_cast<std::size_t>(r);
    bool haveFirst = false;
    for (std::size_t j = from; j < to; ++j) {
      const std::int32_t wj = w[m_owner[j]];
      if (wj == 0) continue;
      cum += wj;
      if (!haveFirst) {
        if (cum > r) {
          out[want] = m_values[j];
          haveFirst = true;
          if (r + 1 >= count) return true;
          if (cum > r + 1) {
            out[want + 1] = m_values[j];
            return true;
          }
        }
      } else {
        out[want + 1] = m_values[j];
        return true;
      }
    }
    return false;
  }

 private:
  /// Blocks sized so that the prefix table stays within ~8M entries and the walk within one
  /// block stays short; built on the first exact lookup only.
  void buildBlocks() const {
    std::call_once(m_blocksBuilt, [this] { buildBlocksOnce(); });
  }
  void buildBlocksOnce() const {
    const std::size_t total = m_values.size(), n = m_counts.size();
    m_block = total;
    if (n > 0 && total > 16 * n) {
      const std::size_t maxBlocks =
          std::max<std::size_t>(1, std::min<std::size_t>(256, 8'000'000 / n));
      m_block = std::max<std::size_t>(64, (total + maxBlocks - 1) / maxBlocks);
    }
    m_blocks = m_block == 0 ? 0 : (total + m_block - 1) / m_block;
    if (m_blocks > 1) {
      m_prefix.assign((m_blocks + 1) * n, 0);
      std::vector<std::int32_t> running(n, 0);
      for (std::size_t j = 0; j < total; ++j) {
        if (j % m_block == 0) {
          std::copy(running.begin(), running.end(),
                    m_prefix.begin() + static_cast<std::ptrdiff_t>((j / m_block) * n));
        }
        ++running[m_owner[j]];
      }
      std::copy(running.begin(), running.end(),
                m_prefix.begin() + static_cast<std::ptrdiff_t>(m_blocks * n));
    }
  }

  std::int64_t countBefore(const std::vector<std::int32_t>& w, std::size_t boundary) const {
    const std::int32_t* p = m_prefix.data() + boundary * w.size();
    std::int64_t c = 0;
    for (std::size_t i = 0; i < w.size(); ++i) c += std::int64_t{w[i]} * p[i];
    return c;
  }

  std::vector<double> m_values;             ///< every value, ascending
  std::vector<std::uint32_t> m_owner;       ///< the carrier each value belongs to
  std::vector<std::int32_t> m_counts;       ///< values per carrier
  std::vector<std::size_t> m_requestIndex;  ///< the request each carrier is
  bool m_single = true;
  mutable std::once_flag m_blocksBuilt;
  mutable std::size_t m_block = 0;  ///< values per block
  mutable std::size_t m_blocks = 0;
  mutable std::vector<std::int32_t> m_prefix;  ///< (m_blocks + 1) × carriers
};

/// The sorted positions around one percentile's point estimate where a resample's rank is
/// looked for first, with each carrier's count of values before the window.
struct Window {
  std::size_t from = 0, to = 0;
  std::vector<std::int32_t> before;
};

/// One metric's percentiles: its pooled values, a window per percentile, the resampled
/// statistics.
struct MetricJob {
  LatencyMetric metric{};
  std::vector<double> qs;
  const PooledValues* pool = nullptr;
  std::vector<Window> windows;  ///< several values per carrier
  std::vector<std::vector<double>> stats;
  // One value per carrier: the resample's weights summed per bucket of 2^shift sorted
  // positions, from which every rank is a walk over buckets and then within one.
  std::vector<std::uint32_t> position;  ///< per carrier, the sorted position of its value
  unsigned shift = 0;
};

/// Prepares the bucketed search of a pool with one value per carrier: about sqrt(n)
/// positions per bucket, so a rank costs O(sqrt n) after an O(n) pass per resample.
void prepareBuckets(MetricJob& job) {
  const auto& owner = job.pool->owner();
  job.position.assign(owner.size(), 0);
  for (std::size_t j = 0; j < owner.size(); ++j) {
    job.position[owner[j]] = static_cast<std::uint32_t>(j);
  }
  job.shift = 4;
  while ((std::size_t{1} << (2 * job.shift)) < owner.size()) ++job.shift;
}

/// The resample's weights summed per bucket for every one-value-per-carrier job of a group
/// in one pass over the carriers; `buckets[s]` is job `singles[s]`'s.
void fillBuckets(const std::vector<MetricJob*>& singles, const std::vector<std::int32_t>& w,
                 std::vector<std::vector<std::int64_t>>& buckets) {
  buckets.resize(singles.size());
  for (std::size_t s = 0; s < singles.size(); ++s) {
    buckets[s].assign((singles[s]->position.size() >> singles[s]->shift) + 1, 0);
  }
  if (singles.size() == 3) {  // TTFT, TPOT and E2E, the usual case: unrolled
    const auto *p0 = singles[0]->position.data(), *p1 = singles[1]->position.data(),
               *p2 = singles[2]->position.data();
    const unsigned s0 = singles[0]->shift, s1 = singles[1]->shift, s2 = singles[2]->shift;
    auto *b0 = buckets[0].data(), *b1 = buckets[1].data(), *b2 = buckets[2].data();
    for (std::size_t i = 0; i < w.size(); ++i) {
      const std::int64_t wi = w[i];
      b0[p0[i] >> s0] += wi;
      b1[p1[i] >> s1] += wi;
      b2[p2[i] >> s2] += wi;
    }
    return;
  }
  for (std::size_t s = 0; s < singles.size(); ++s) {
    const auto& pos = singles[s]->position;
    const unsigned shift = singles[s]->shift;
    for (std::size_t i = 0; i < w.size(); ++i) buckets[s][pos[i] >> shift] += w[i];
  }
}

/// The statistics of every percentile of a one-value-per-carrier pool in resample `rep`,
/// from its bucket sums.
void resampleSingle(MetricJob& job, const std::vector<std::int32_t>& w, std::size_t rep,
                    const std::vector<std::int64_t>& buckets,
                    std::map<std::size_t, double>& order) {
  const auto count = static_cast<std::int64_t>(w.size());
  const std::size_t block = std::size_t{1} << job.shift;
  for (std::size_t k = 0; k < job.qs.size(); ++k) {
    std::vector<std::size_t> ranks;
    addPercentileRanks(static_cast<std::size_t>(count), job.qs[k], ranks);
    const auto r = static_cast<std::int64_t>(ranks.front());
    std::size_t b = 0;
    std::int64_t before = 0;
    while (b + 1 < buckets.size() && before + buckets[b] <= r) before += buckets[b++];
    order.clear();
    job.pool->walk(w, b * block, job.pool->sorted().size(), before, r, count, order);
    job.stats[k][rep] = percentileFromOrder(static_cast<std::size_t>(count), job.qs[k], order);
  }
}

std::vector<Window> makeWindows(const PooledValues& pool, const std::vector<double>& qs,
                                double widthSd) {
  const std::size_t total = pool.sorted().size();
  std::vector<std::size_t> centres;
  for (const double q : qs) {
    const double h = (static_cast<double>(total) - 1.0) * std::clamp(q, 0.0, 100.0) / 100.0;
    centres.push_back(std::min(static_cast<std::size_t>(std::floor(h)), total - 1));
  }
  std::vector<std::size_t> order(qs.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return centres[a] < centres[b]; });
  // The resampled count of values before a centre moves by Σ_i w_i (L_i − f·c_i) around
  // f·total; its standard deviation is sqrt(Σ_i (L_i − f·c_i)²) (multinomial weights with
  // mean 1), and one count is about one sorted position.
  std::vector<std::size_t> sortedCentres;
  for (const std::size_t k : order) sortedCentres.push_back(centres[k]);
  const auto atCentres = pool.countsBefore(sortedCentres);
  std::vector<Window> windows(qs.size());
  std::vector<std::size_t> starts(qs.size());
  for (std::size_t s = 0; s < order.size(); ++s) {
    const std::size_t k = order[s];
    const double f = static_cast<double>(centres[k]) / static_cast<double>(total);
    double var = 0;
    for (std::size_t i = 0; i < pool.carriers(); ++i) {
      const double d = atCentres[s][i] - f * pool.counts()[i];
      var += d * d;
    }
    const double half = widthSd * std::sqrt(var) + 64.0;
    const auto halfPos = static_cast<std::size_t>(std::min(half, static_cast<double>(total)));
    windows[k].from = centres[k] > halfPos ? centres[k] - halfPos : 0;
    windows[k].to = std::min(total, centres[k] + halfPos + 2);
    starts[s] = windows[k].from;
  }
  // Starts in the order of the centres are ascending too (same half-width rule would not
  // guarantee it), so sort them for the one-pass count.
  std::vector<std::size_t> startOrder(order.size());
  for (std::size_t k = 0; k < startOrder.size(); ++k) startOrder[k] = k;
  std::sort(startOrder.begin(), startOrder.end(),
            [&](std::size_t a, std::size_t b) { return windows[a].from < windows[b].from; });
  std::vector<std::size_t> startPositions;
  for (const std::size_t k : startOrder) startPositions.push_back(windows[k].from);
  auto before = pool.countsBefore(startPositions);
  for (std::size_t s = 0; s < startOrder.size(); ++s) {
    windows[startOrder[s]].before = std::move(before[s]);
  }
  return windows;
}

/// The statistics of every percentile of a pool with several values per carrier in one
/// resample: the resample's count and its counts before each window in one pass over the
/// carriers (skipping the ~37% a resample does not draw), then a walk in each window.
void resampleWindows(MetricJob& job, const std::vector<std::int32_t>& w, std::size_t rep,
                     std::map<std::size_t, double>& order) {
  const std::size_t nq = job.qs.size();
  std::vector<std::int64_t> before(nq, 0);
  std::int64_t count = 0;
  const auto& counts = job.pool->counts();
  for (std::size_t i = 0; i < w.size(); ++i) {
    const std::int64_t wi = w[i];
    if (wi == 0) continue;
    count += wi * counts[i];
    for (std::size_t k = 0; k < nq; ++k) before[k] += wi * job.windows[k].before[i];
  }
  for (std::size_t k = 0; k < nq; ++k) {
    std::vector<std::size_t> ranks;
    addPercentileRanks(static_cast<std::size_t>(count), job.qs[k], ranks);
    const auto r = static_cast<std::int64_t>(ranks.front());
    const Window& win = job.windows[k];
    order.clear();
    if (before[k] > r || !job.pool->walk(w, win.from, win.to, before[k], r, count, order)) {
      order.clear();
      job.pool->orderAt(w, r, count, order);
    }
    job.stats[k][rep] = percentileFromOrder(static_cast<std::size_t>(count), job.qs[k], order);
  }
}

/// Worker threads for `resamples` resamples of `draws` draws each: one for small work (a
/// thread costs more than it saves), else one per core the process may use (its CPU affinity:
/// under `taskset` or in a container's CPU set the machine's count overstated it), at most 8.
/// The figures do not depend on it: each resample has its own stream.
int bootstrapThreads(int resamples, std::size_t draws) {
  const double work = static_cast<double>(resamples) * static_cast<double>(draws);
  if (work < 4e6) return 1;
  return static_cast<int>(std::clamp<unsigned>(usableCores(), 1, 8));
}

}  // namespace

namespace {

/// The percentiles asked for lie in [0, 100]; goodput needs a duration and requests.
std::optional<Error> checkInputs(const std::vector<RequestRecord>& requests,
                                 const std::vector<PercentileRequest>& percentiles,
                                 const std::optional<GoodputRequest>& goodput,
                                 const BootstrapOptions& opts) {
  if (auto e = checkOptions(opts)) return *e;
  for (const auto& p : percentiles) {
    for (const double q : p.qs) {
      if (!(q >= 0 && q <= 100)) return Error{"", "", "percentile", "must lie in [0, 100]"};
    }
  }
  if (goodput) {
    if (!(goodput->durationS > 0) || !std::isfinite(goodput->durationS)) {
      return Error{"", "", "duration", "run duration must be a positive number of seconds"};
    }
    if (requests.empty()) {
      return Error{"", "", "requests", "no per-request records; nothing to bootstrap"};
    }
  }
  return std::nullopt;
}

/// One job per metric some request carries (its values pooled into `pools`); `out` gets a
/// slot per percentile request, an error where no request carries the metric. Only requests
/// that carry a metric take part in its resamples, so none comes out empty.
std::vector<MetricJob> metricJobs(const std::vector<RequestRecord>& requests,
                                  const std::vector<PercentileRequest>& percentiles,
                                  const BootstrapOptions& opts, double widthSd,
                                  std::vector<std::unique_ptr<PooledValues>>& pools,
                                  RunBootstrap& out) {
  std::vector<MetricJob> jobs;
  for (const auto& p : percentiles) {
    auto pool = std::make_unique<PooledValues>(requests, p.metric);
    if (pool->carriers() == 0) {
      out.percentiles.emplace_back(
          Error{"", "", latencyMetricName(p.metric),
                "no request that produced output carries this metric; nothing to bootstrap"});
      continue;
    }
    out.percentiles.emplace_back(std::vector<BootstrapInterval>{});
    MetricJob job;
    job.metric = p.metric;
    job.qs = p.qs;
    job.pool = pool.get();
    if (pool->single()) {
      prepareBuckets(job);
    } else {
      job.windows = makeWindows(*pool, p.qs, widthSd);
    }
    job.stats.assign(p.qs.size(), std::vector<double>(static_cast<std::size_t>(opts.resamples)));
    jobs.push_back(std::move(job));
    pools.push_back(std::move(pool));
  }
  return jobs;
}

}  // namespace

namespace detail {

Result<RunBootstrap> bootstrapRunWithWindow(const std::vector<RequestRecord>& requests,
                                            const std::vector<PercentileRequest>& percentiles,
                                            const std::optional<GoodputRequest>& goodput,
                                            const BootstrapOptions& opts, double widthSd,
                                            int threadsWanted) {
  if (auto e = checkInputs(requests, percentiles, goodput, opts)) return *e;
  RunBootstrap out;
  std::vector<std::unique_ptr<PooledValues>> pools;
  std::vector<MetricJob> jobs = metricJobs(requests, percentiles, opts, widthSd, pools, out);
  // Groups of jobs over the same carriers share their draws; goodput's carriers are every
  // request (index −1 stands for it).
  std::vector<std::vector<int>> groups;
  std::vector<const std::vector<std::size_t>*> groupCarriers;
  std::vector<std::size_t> allRequests(requests.size());
  for (std::size_t i = 0; i < allRequests.size(); ++i) allRequests[i] = i;
  auto place = [&](int job, const std::vector<std::size_t>& carriers) {
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (*groupCarriers[g] == carriers) {
        groups[g].push_back(job);
        return;
      }
    }
    groups.push_back({job});
    groupCarriers.push_back(&carriers);
  };
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    place(static_cast<int>(j), jobs[j].pool->requestIndex());
  }
  std::vector<std::int32_t> good;
  std::vector<double> goodputStats;
  if (goodput) {
    good.resize(requests.size());
    for (std::size_t i = 0; i < requests.size(); ++i) {
      good[i] = meetsSlo(requests[i], goodput->slo) ? 1 : 0;
    }
    goodputStats.assign(static_cast<std::size_t>(opts.resamples), 0.0);
    place(-1, allRequests);
  }
  // Resample `rep` draws from its own stream (resampleRng), so resamples can run on several
  // threads and give the same figures whatever their number.
  auto work = [&](int from, int to) {
    std::map<std::size_t, double> order;
    std::vector<std::vector<std::int64_t>> buckets;
    std::vector<std::int32_t> w;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const std::size_t n = groupCarriers[g]->size();
      std::vector<MetricJob*> singles;
      for (const int j : groups[g]) {
        if (j >= 0 && jobs[static_cast<std::size_t>(j)].pool->single()) {
          singles.push_back(&jobs[static_cast<std::size_t>(j)]);
        }
      }
      w.resize(n);
      for (int rep = from; rep < to; ++rep) {
        Rng rng = resampleRng(opts.seed, rep);
        std::fill(w.begin(), w.end(), 0);
        for (std::size_t i = 0; i < n; ++i) ++w[rng.below(n)];
        const auto slot = static_cast<std::size_t>(rep);
        fillBuckets(singles, w, buckets);
        for (std::size_t s = 0; s < singles.size(); ++s) {
          resampleSingle(*singles[s], w, slot, buckets[s], order);
        }
        for (const int j : groups[g]) {
          if (j < 0) {
            goodputStats[slot] = static_cast<double>(dot(w, good)) / goodput->durationS;
          } else if (!jobs[static_cast<std::size_t>(j)].pool->single()) {
            resampleWindows(jobs[static_cast<std::size_t>(j)], w, slot, order);
          }
        }
      }
    }
  };
  std::size_t drawsPerResample = 0;
  for (const auto* c : groupCarriers) drawsPerResample += c->size();
  const int threads = std::min(
      opts.resamples,
      threadsWanted > 0 ? threadsWanted : bootstrapThreads(opts.resamples, drawsPerResample));
  if (threads <= 1) {
    work(0, opts.resamples);
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back(work, opts.resamples * t / threads, opts.resamples * (t + 1) / threads);
    }
    for (auto& th : pool) th.join();
  }
  std::size_t j = 0;
  for (auto& res : out.percentiles) {
    if (!res.ok()) continue;
    MetricJob& job = jobs[j++];
    for (std::size_t k = 0; k < job.qs.size(); ++k) {
      std::vector<double> all = job.pool->sorted();
      res->push_back(finish(percentileLinear(all, job.qs[k]), job.stats[k], opts));
    }
  }
  if (goodput) {
    out.goodput =
        finish(goodputReqPerS(requests, goodput->slo, goodput->durationS), goodputStats, opts);
  }
  return out;
}

}  // namespace detail

std::vector<double> latencyValues(const std::vector<RequestRecord>& requests, LatencyMetric m) {
  std::vector<double> out;
  out.reserve(requests.size());
  for (const auto& r : requests) appendValues(r, m, out);
  return out;
}

Result<RunBootstrap> bootstrapRun(const std::vector<RequestRecord>& requests,
                                  const std::vector<PercentileRequest>& percentiles,
                                  const std::optional<GoodputRequest>& goodput,
                                  const BootstrapOptions& opts) {
  return detail::bootstrapRunWithWindow(requests, percentiles, goodput, opts,
                                        detail::kWindowWidthSd);
}

Result<std::vector<BootstrapInterval>> bootstrapLatencyPercentiles(
    const std::vector<RequestRecord>& requests, LatencyMetric m, const std::vector<double>& qs,
    const BootstrapOptions& opts) {
  auto run = bootstrapRun(requests, {PercentileRequest{m, qs}}, std::nullopt, opts);
  if (!run) return run.error();
  return run->percentiles.front();
}

Result<BootstrapInterval> bootstrapLatencyPercentile(const std::vector<RequestRecord>& requests,
                                                     LatencyMetric m, double q,
                                                     const BootstrapOptions& opts) {
  auto all = bootstrapLatencyPercentiles(requests, m, {q}, opts);
  if (!all) return all.error();
  return all->front();
}

Result<BootstrapInterval> bootstrapGoodput(const std::vector<RequestRecord>& requests,
                                           const Slo& slo, double durationS,
                                           const BootstrapOptions& opts) {
  auto run = bootstrapRun(requests, {}, GoodputRequest{slo, durationS}, opts);
  if (!run) return run.error();
  return *run->goodput;
}

}  // namespace qf::stats
