#pragma once
/// Statistics for eval scores and serving measurements (spec: model.md "Statistics",
/// frontier.md "Statistics"). Proportions are fractions in [0, 1]; results are fractions too
/// (×100 for percentage points). Latencies are seconds.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/base/records.hpp>

namespace qf::stats {

/// z for a two-sided 95% interval, as the seed uses it.
inline constexpr double kZ95 = 1.96;
/// z for 80% power, as the seed uses it.
inline constexpr double kZ80 = 0.84;

/// Binomial standard error sqrt(p(1−p)/n). Preconditions: 0 ≤ p ≤ 1, n > 0.
double binomialSe(double p, double n);
/// Half-width of the 95% normal interval: 1.96·SE.
double ci95HalfWidth(double p, double n);
/// Smallest difference two independent runs resolve at 95%: 1.96·sqrt(2)·SE.
double minDetectableDiff(double p, double n);
/// Questions per arm to resolve δ at 95% confidence and the given power:
/// (z_{α/2} + z_β)²·2p(1−p)/δ². With power 0.8 this is the seed's (1.96+0.84)².
double samplesPerArm(double p, double delta, double power = 0.8);
/// Paired questions needed to resolve δ at 95% confidence and the given power when a
/// fraction `flipRate` of answers flips: (z_{α/2} + z_β)²·f/δ² (the paired SE sqrt(f/n)).
double pairedSamples(double flipRate, double delta, double power = 0.8);
/// Paired standard error sqrt(f/n) with f the flip rate.
double pairedSe(double flipRate, double n);
/// Smallest difference a paired comparison resolves at 95%: 1.96·sqrt(f/n).
double pairedMinDetectableDiff(double flipRate, double n);
/// Standard normal quantile (inverse CDF), |error| < 1e-9 on (0, 1).
double normalQuantile(double prob);

/// A closed interval [lo, hi].
struct Interval {
  double lo = 0;  ///< lower end
  double hi = 0;  ///< upper end
};

/// Wilson score interval for a proportion p observed over n trials, at two-sided z
/// (default 1.96 for 95%). Stays inside [0, 1], unlike p ± z·SE. Preconditions: n > 0.
Interval wilsonInterval(double p, double n, double z = kZ95);

/// Exact (Clopper-Pearson) interval for a proportion: k successes in n trials at the given
/// two-sided confidence. Never of zero width: 0 of n gives [0, 1 − (α/2)^(1/n)] (≈ 3.69/n at
/// 95%). Preconditions: 0 ≤ k ≤ n, n > 0, 0 < confidence < 1.
Interval clopperPearsonInterval(std::int64_t k, std::int64_t n, double confidence = 0.95);

/// Two independent runs (different question sets or seeds) of scores p1 over n1 and p2 over
/// n2: difference p2 − p1 with its normal 95% interval.
struct TwoRunDifference {
  double diff = 0;               ///< p2 − p1
  double se = 0;                 ///< sqrt(p1(1−p1)/n1 + p2(1−p2)/n2)
  Interval ci;                   ///< diff ± 1.96·se
  double minDetectableDiff = 0;  ///< 1.96·se: the smallest difference these runs resolve
};
/// Preconditions: p1, p2 in [0, 1]; n1, n2 > 0.
TwoRunDifference twoRunDifference(double p1, double n1, double p2, double n2);

/// McNemar's exact two-sided test on the discordant pairs: under H0 b ~ Binomial(b+c, 1/2);
/// p = min(1, 2·P(X ≤ min(b, c))). Exact for any b, c (log-space terms, no overflow).
/// b = c = 0 gives 1.
double mcnemarExactP(std::int64_t b, std::int64_t c);

/// Which pairs to compare in two lm-eval per-sample files.
struct PairOptions {
  /// The per-question metric; its values must be 0 or 1.
  std::string metric;               ///< empty: "exact_match" when present, else "acc"
  std::optional<std::string> task;  ///< only this task (default: every task)
  std::optional<std::string>
      filter;  ///< only this filter (default when several: strict-match, then none, then the first)
};

/// A paired comparison of two models on the same questions (A = reference, B = candidate).
struct PairedComparison {
  std::string metric;  ///< the 0/1 metric compared
  std::int64_t n = 0;  ///< joined questions
  std::int64_t bothRight = 0;
  std::int64_t bothWrong = 0;
  std::int64_t rightToWrong = 0;  ///< b: right in A, wrong in B
  std::int64_t wrongToRight = 0;  ///< c: wrong in A, right in B
  double scoreA = 0;              ///< fraction right in A over the joined questions
  double scoreB = 0;
  double flipRate = 0;  ///< (b + c)/n
  double mcnemarP = 1;  ///< exact two-sided p on b vs c
  double pairedSe = 0;  ///< sqrt(f/n), the seed's paired SE
  Interval flipRateCi;  ///< exact (Clopper-Pearson) 95% interval of the flip rate
  double diff = 0;      ///< scoreB − scoreA = (c − b)/n
  /// diff ± 1.96·pairedSe; with no discordant pair (b = c = 0) that would have zero width,
  /// so it is ±flipRateCi.hi instead (|diff| ≤ flip rate), and a warning says so.
  Interval diffCi;
  double minDetectableDiff = 0;  ///< 1.96·pairedSe (flipRateCi.hi when b = c = 0)
  std::int64_t onlyInA = 0;      ///< (task, filter, doc_id) keys without a partner
  std::int64_t onlyInB = 0;
  std::int64_t promptHashMismatches = 0;
  std::vector<std::string> warnings;  ///< prompt_hash differences, unmatched questions
};

/// Joins two per-sample sets on (task, filter, doc_id) and compares metric outcomes
/// (values must be 0 or 1). Errors: a doc_hash differs (the runs saw different questions),
/// a duplicate key in one file, a metric missing or not 0/1, no common questions, or
/// several filters for one task without `opts.filter`. `fileA`/`fileB` name the inputs.
Result<PairedComparison> comparePaired(const std::vector<SampleRecord>& a, const std::string& fileA,
                                       const std::vector<SampleRecord>& b, const std::string& fileB,
                                       const PairOptions& opts = {});

/// Small, fully specified PRNG (xoshiro256** seeded through splitmix64) so bootstrap
/// results are identical on every platform and compiler.
class Rng {
 public:
  /// Seeds the four state words from `seed` with splitmix64.
  explicit Rng(std::uint64_t seed);
  /// Next 64 random bits (inline: the bootstrap draws hundreds of millions).
  std::uint64_t next() {
    const std::uint64_t result = rotl(m_s[1] * 5, 7) * 9;
    const std::uint64_t t = m_s[1] << 17;
    m_s[2] ^= m_s[0];
    m_s[3] ^= m_s[1];
    m_s[1] ^= m_s[2];
    m_s[0] ^= m_s[3];
    m_s[2] ^= t;
    m_s[3] = rotl(m_s[3], 45);
    return result;
  }
  /// Uniform integer in [0, bound) without bias: the high word of next() × bound, rejecting
  /// the low words below 2^64 mod bound (Lemire, "Fast random integer generation in an
  /// interval", 2019: a division only when a low word is below bound). Precondition: bound > 0.
  std::uint64_t below(std::uint64_t bound) {
    __extension__ typedef unsigned __int128 Wide;
    Wide m = static_cast<Wide>(next()) * bound;
    auto low = static_cast<std::uint64_t>(m);
    if (low < bound) {
      const std::uint64_t threshold = (0 - bound) % bound;
      while (low < threshold) {
        m = static_cast<Wide>(next()) * bound;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t m_s[4];
};

/// The generator of bootstrap resample `rep` (0-based) of a computation seeded with `seed`:
/// every resample has a stream of its own, so resamples can be computed in any order, on any
/// number of threads, with the same result.
Rng resampleRng(std::uint64_t seed, int rep);

/// Default bootstrap seed; every result records the seed it used.
inline constexpr std::uint64_t kDefaultBootstrapSeed = 0x5146'726F'6E74'0001ull;

/// Bounds on BootstrapOptions::resamples; beyond 100,000 the interval does not move but
/// the run time does.
inline constexpr int kMinResamples = 10;
inline constexpr int kMaxResamples = 100'000;

/// How to bootstrap: the seed is recorded in every result.
struct BootstrapOptions {
  std::uint64_t seed = kDefaultBootstrapSeed;
  int resamples = 2000;      ///< number of bootstrap resamples (kMinResamples..kMaxResamples)
  double confidence = 0.95;  ///< two-sided level of the percentile interval
};

/// A point estimate with its bootstrap percentile interval.
struct BootstrapInterval {
  double estimate = 0;     ///< the statistic on the original data
  Interval ci;             ///< percentile interval of the resampled statistics
  std::uint64_t seed = 0;  ///< the seed used
  int resamples = 0;
  double confidence = 0;
};

/// Per-request latency metrics (seconds).
enum class LatencyMetric {
  Ttft,  ///< time to first token
  Tpot,  ///< time per output token after the first (requestTpotS)
  Itl,   ///< every inter-token gap of every request
  E2e    ///< end-to-end latency (requestLatencyS)
};
/// "ttft", "tpot", "itl", "e2e".
const char* latencyMetricName(LatencyMetric m);

/// End-to-end latency of a request: latencyS when set (> 0), else ttft + Σ itls.
double requestLatencyS(const RequestRecord& r);
/// TPOT of a request: (latency − ttft)/(output_len − 1) when latency is known and
/// output_len > 1, else the mean of its itls; nullopt when neither is available.
std::optional<double> requestTpotS(const RequestRecord& r);

/// True when a request succeeded and produced tokens (output_len > 0, or inter-token gaps
/// when the file gave no output lengths). Only these count toward goodput and latency
/// percentiles: a failed or empty request has no meaningful latency (vLLM records TTFT 0).
bool producedOutput(const RequestRecord& r);

/// Values of metric `m` over the requests that produced output (producedOutput; ITL: all gaps
/// flattened). Non-finite values are left out.
std::vector<double> latencyValues(const std::vector<RequestRecord>& requests, LatencyMetric m);

/// Service-level objectives a request must meet to count toward goodput (seconds; unset = no
/// limit). A request whose TPOT is undefined (one output token) meets the TPOT objective.
struct Slo {
  std::optional<double> ttftS;
  std::optional<double> tpotS;
  std::optional<double> e2eS;
};
/// True when a request that produced output (producedOutput) meets every set objective.
bool meetsSlo(const RequestRecord& r, const Slo& slo);
/// Goodput: requests that produced output and meet every objective, per second of run
/// duration.
/// Precondition: durationS > 0.
double goodputReqPerS(const std::vector<RequestRecord>& requests, const Slo& slo, double durationS);

/// Percentile q (0..100) of a latency metric with a bootstrap interval: the requests that
/// produced output are resampled with replacement (for ITL, each resampled request brings
/// all its gaps). Errors when no such request carries the metric or the options are out of
/// range.
Result<BootstrapInterval> bootstrapLatencyPercentile(const std::vector<RequestRecord>& requests,
                                                     LatencyMetric m, double q,
                                                     const BootstrapOptions& opts = {});
/// Several percentiles of one metric from the same resamples (each result equals what
/// bootstrapLatencyPercentile gives for that q with the same options). The values are sorted
/// once; each resample is a weight per request, and its order statistics are found by a pass
/// over the requests and a short walk (docs/statistics.md, "Serving bootstrap"):
/// O(total values · log) once plus O(resamples · requests) per metric.
Result<std::vector<BootstrapInterval>> bootstrapLatencyPercentiles(
    const std::vector<RequestRecord>& requests, LatencyMetric m, const std::vector<double>& qs,
    const BootstrapOptions& opts = {});
/// Goodput with a bootstrap interval (requests resampled, duration held fixed).
Result<BootstrapInterval> bootstrapGoodput(const std::vector<RequestRecord>& requests,
                                           const Slo& slo, double durationS,
                                           const BootstrapOptions& opts = {});

/// The percentiles wanted of one metric.
struct PercentileRequest {
  LatencyMetric metric{};
  std::vector<double> qs;  ///< percentiles, 0..100
};
/// Goodput wanted: the objectives and the run's duration (seconds, > 0).
struct GoodputRequest {
  Slo slo;
  double durationS = 0;
};
/// One run's bootstrap figures.
struct RunBootstrap {
  /// Per PercentileRequest, in order: its intervals (one per q), or why there are none.
  std::vector<Result<std::vector<BootstrapInterval>>> percentiles;
  std::optional<BootstrapInterval> goodput;  ///< when asked for
};
/// Every percentile and the goodput of one run at once. Each result equals what the
/// one-metric functions give with the same options; metrics carried by the same requests
/// (and goodput, when every request carries them) share their resamples' draws, which is
/// what a resample costs. Errors: options out of range, a percentile outside [0, 100], a
/// goodput without requests or with a non-positive duration.
Result<RunBootstrap> bootstrapRun(const std::vector<RequestRecord>& requests,
                                  const std::vector<PercentileRequest>& percentiles,
                                  const std::optional<GoodputRequest>& goodput,
                                  const BootstrapOptions& opts = {});

}  // namespace qf::stats
