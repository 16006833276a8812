// qfront stats: binomial, power, two-run difference and paired statistics for eval scores.
#include <charconv>
#include <cmath>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/stats.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/import/importers.hpp>

#include <quantfront/core/base/version.hpp>

#include <quantfront/core/base/json_scanner.hpp>

#include "cli.hpp"
#include "shell.hpp"

namespace qf::cli {

namespace {

constexpr const char* kStatsHelp =
    R"(usage: qfront stats <binomial|power|diff|paired|serving|kl> [options]

Sample-size and significance statistics for eval scores. Every proportion, on input and
output, is a fraction in [0, 1] (0.80, not 80); multiply by 100 for percentage points.

  binomial --p P --n N                 SE, 95% normal and Wilson intervals, and the smallest
                                       difference two independent runs of N questions resolve
  power --p P --delta D [--power 0.8] [--flip-rate F]
                                       questions per arm to resolve a difference D at 95%
                                       confidence and the given power; with --flip-rate, also
                                       the paired count (same questions, flip rate F)
  diff --p1 P1 --n1 N1 --p2 P2 --n2 N2 difference of two independent runs with its 95% CI
  paired A.jsonl B.jsonl [--metric M] [--task T] [--filter F]
                                       paired comparison of two lm-eval per-sample files
                                       (A = reference, B = candidate)
  serving FILE [--slo-ttft-ms X] [--slo-tpot-ms Y] [--slo-e2e-ms Z] [--seed S] [--resamples R]
                                       p50/p90/p99 of TTFT, TPOT, ITL and E2E latency with
                                       seeded bootstrap intervals, and goodput against the
                                       SLOs, from a serving benchmark's per-request arrays
  kl A.jsonl B.jsonl [--session S --candidate ID]
                                       mean per-token KL divergence and flip rates of two
                                       runs of the same prompts, from their logprobs

Each takes --format json|table (default json). Run `qfront stats <sub-command> --help`.
Exit status: 0 on success, 2 on bad input (one line naming the file and field).
)";

constexpr OptionSpec kBinomialOptions[] = {
    {"--p", "P", "score as a fraction in [0, 1]", {}, true},
    {"--n", "N", "number of questions (> 0)", {}, true},
    {"--format", "json|table", "output format (default json)", {}, true},
};

const CommandSpec& binomialStatsCommand() {
  static const CommandSpec command{
      "qfront",
      "stats binomial",
      R"(usage: qfront stats binomial --p P --n N [--format json|table]
)",
      R"(A score p measured on n questions (binomial model).
)",
      {kBinomialOptions},
      R"(JSON keys (fractions): p, n, se = sqrt(p(1-p)/n), ci = [p - 1.96 se, p + 1.96 se],
ci_half_width = 1.96 se, wilson = Wilson 95% score interval [lo, hi],
min_detectable_diff = 1.96 sqrt(2) se (the smallest difference two independent runs of
n questions resolve at 95%), n_per_arm_for_1pp = questions per arm to resolve 0.01 at
80% power.
Example: --p 0.80 --n 1319 gives se 0.0110, ci_half_width 0.0216, min_detectable_diff 0.0306.
)",
      0};
  return command;
}

constexpr OptionSpec kPowerOptions[] = {
    {"--p", "P", "expected score, a fraction in [0, 1]", {}, true},
    {"--delta", "D", "difference to resolve, a fraction in (0, 1] (0.01 = 1 pp)", {}, true},
    {"--power", "X", "statistical power in (0, 1) (default 0.8)", {}, true},
    {"--flip-rate",
     "F",
     "also give the paired count (same questions in both runs):\n(1.96 + z_power)^2 * F / delta^2",
     {},
     true},
    {"--format", "json|table", "output format (default json)", {}, true},
};

const CommandSpec& powerStatsCommand() {
  static const CommandSpec command{
      "qfront",
      "stats power",
      R"(usage: qfront stats power --p P --delta D [--power 0.8] [--flip-rate F] [--format json|table]
)",
      R"(Questions per arm for two independent runs to resolve a difference delta at 95% confidence
(two-sided) and the given power: (1.96 + z_power)^2 * 2 p (1-p) / delta^2, with z_power = 0.84
at the default 0.8 (as the seed rounds it).
)",
      {kPowerOptions},
      R"(JSON keys: p, delta, power, z_alpha, z_beta, n_per_arm (rounded up), n_per_arm_exact,
and with --flip-rate: flip_rate, n_paired, n_paired_exact.
Example: --p 0.80 --delta 0.01 gives n_per_arm 25088 (~25,000 per arm).
)",
      0};
  return command;
}

constexpr OptionSpec kDiffOptions[] = {
    {"--p1", "P1", "the first run's score, a fraction in [0, 1]", {}, true},
    {"--n1", "N1", "its number of questions (> 0)", {}, true},
    {"--p2", "P2", "the second run's score, a fraction in [0, 1]", {}, true},
    {"--n2", "N2", "its number of questions (> 0)", {}, true},
    {"--format", "json|table", "output format (default json)", {}, true},
};

const CommandSpec& diffStatsCommand() {
  static const CommandSpec command{
      "qfront",
      "stats diff",
      R"(usage: qfront stats diff --p1 P1 --n1 N1 --p2 P2 --n2 N2 [--format json|table]
)",
      R"(Two independent runs (different questions, seeds or samples): the difference p2 - p1 with
se = sqrt(p1(1-p1)/n1 + p2(1-p2)/n2).
)",
      {kDiffOptions},
      R"(JSON keys (fractions): p1, n1, p2, n2, diff, se, diff_ci = [diff - 1.96 se, diff + 1.96 se],
min_detectable_diff = 1.96 se, significant (true when diff_ci excludes 0).
)",
      0};
  return command;
}

constexpr OptionSpec kPairedOptions[] = {
    {"--metric",
     "M",
     "per-question 0/1 metric (default exact_match when present, else acc)",
     {},
     true},
    {"--task", "T", "only this task", {}, true},
    {"--filter",
     "F",
     "only this filter (required when a task has several, e.g. gsm8k's\nstrict-match and "
     "flexible-extract)",
     {},
     true},
    {"--format", "json|table", "output format (default json)", {}, true},
};

const CommandSpec& pairedStatsCommand() {
  static const CommandSpec command{
      "qfront",
      "stats paired",
      R"(usage: qfront stats paired A.jsonl B.jsonl [--metric M] [--task T] [--filter F] [--format json|table]
)",
      R"(Pairs two lm-evaluation-harness per-sample files (--log_samples: samples_<task>_<date>.jsonl)
on (task, filter, doc_id). A is the reference (e.g. bf16), B the candidate.
Refuses to pair when a doc_hash differs (the runs saw different questions); warns when a
prompt_hash differs. The task comes from a "task" key, else from the file name.
)",
      {kPairedOptions},
      R"(JSON keys (fractions): file_a, file_b, metric, n, score_a, score_b, wilson_a, wilson_b,
both_right, both_wrong, flips_right_to_wrong (b), flips_wrong_to_right (c),
flip_rate = (b + c)/n, flip_rate_ci (exact Clopper-Pearson 95% interval),
mcnemar_p (exact two-sided binomial test on b vs c),
paired_se = sqrt(flip_rate/n), diff = score_b - score_a, diff_ci = diff +/- 1.96 paired_se
(with no discordant pair, b = c = 0: +/- the upper end of flip_rate_ci, since |diff| is at
most the flip rate; a warning says so), min_detectable_diff = 1.96 paired_se (then that bound), only_in_a, only_in_b, prompt_hash_mismatches, warnings.
Warnings are also printed on stderr.
)",
      1000};
  return command;
}

std::optional<double> toNumber(const std::string& s) {
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

/// The last value given for `name` (the statistics commands let a later value win).
std::optional<std::string> lastValue(const ParsedOptions& p, std::string_view name) {
  const auto v = p.values(name);
  return v.empty() ? std::nullopt : std::optional<std::string>(v.back());
}

/// A fraction in [lo, hi] from option `field`; reports and returns nullopt otherwise.
std::optional<double> fraction(const std::optional<std::string>& text, const std::string& field,
                               bool required, double lo, double hi, bool openLo, std::ostream& err,
                               int& rc) {
  if (!text) {
    if (required) rc = badArg(err, field, "--" + field + " is required");
    return std::nullopt;
  }
  const auto v = toNumber(*text);
  const bool inRange = v && (openLo ? *v > lo : *v >= lo) && *v <= hi;
  if (!inRange) {
    std::string m = words("expected a fraction in ", openLo ? "(" : "[", lo, ", ", hi, "]");
    if (v && *v > 1 && *v <= 100) m += words(" (give ", *v / 100, " for ", *v, "%)");
    m += ", found '" + *text + "'";
    rc = badArg(err, field, m);
    return std::nullopt;
  }
  return v;
}

std::optional<double> count(const std::optional<std::string>& text, const std::string& field,
                            std::ostream& err, int& rc) {
  if (!text) {
    rc = badArg(err, field, "--" + field + " is required");
    return std::nullopt;
  }
  const auto v = toNumber(*text);
  if (!v || !(*v > 0) || *v > 1e15) {
    rc = badArg(err, field, "expected a positive number of questions, found '" + *text + "'");
    return std::nullopt;
  }
  return v;
}

bool formatOk(const std::optional<std::string>& f, bool& json, std::ostream& err, int& rc) {
  const std::string v = f.value_or("json");
  if (v != "json" && v != "table") {
    rc = badArg(err, "format", "expected json or table, found '" + v + "'");
    return false;
  }
  json = v == "json";
  return true;
}

std::string interval(const stats::Interval& i) {
  return "[" + fixedDecimals(i.lo, 4) + ", " + fixedDecimals(i.hi, 4) + "]";
}
Json jsonInterval(const stats::Interval& i) {
  return Json::array({i.lo, i.hi});
}

void row(std::ostream& out, const std::string& label, const std::string& value,
         const std::string& note = {}) {
  out << "  " << std::left << std::setw(24) << label << std::setw(20) << value << note << "\n";
}

int cmdBinomial(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  int parseRc = kExitOk;
  const auto parsed = parseCommand(binomialStatsCommand(), args, out, err, parseRc);
  if (!parsed) return parseRc;
  const auto p = lastValue(*parsed, "--p");
  const auto n = lastValue(*parsed, "--n");
  const auto format = lastValue(*parsed, "--format");
  int rc = kExitOk;
  bool json = true;
  if (!formatOk(format, json, err, rc)) return rc;
  const auto pv = fraction(p, "p", true, 0, 1, false, err, rc);
  if (!pv) return rc;
  const auto nv = count(n, "n", err, rc);
  if (!nv) return rc;
  const double se = stats::binomialSe(*pv, *nv);
  const double half = stats::ci95HalfWidth(*pv, *nv);
  const auto wilson = stats::wilsonInterval(*pv, *nv);
  const double mdd = stats::minDetectableDiff(*pv, *nv);
  const double n1pp = std::ceil(stats::samplesPerArm(*pv, 0.01) - 1e-9);
  if (json) {
    Json j{{"p", *pv},
           {"n", *nv},
           {"se", se},
           {"ci", Json::array({*pv - half, *pv + half})},
           {"ci_half_width", half},
           {"wilson", jsonInterval(wilson)},
           {"min_detectable_diff", mdd},
           {"n_per_arm_for_1pp", n1pp}};
    writeJsonOutput(out, std::move(j));
  } else {
    out << "binomial  p = " << fixedDecimals(*pv, 4) << ", n = " << *nv << "\n";
    row(out, "SE", fixedDecimals(se, 4), "(" + percentagePoints(se) + ")");
    row(out, "95% CI (normal)", interval({*pv - half, *pv + half}),
        "(+/- " + percentagePoints(half) + ")");
    row(out, "95% CI (Wilson)", interval(wilson));
    row(out, "min detectable diff", fixedDecimals(mdd, 4),
        "(" + percentagePoints(mdd) + ", two independent runs)");
    row(out, "n per arm for 1 pp", std::to_string(static_cast<long long>(n1pp)), "(80% power)");
  }
  return kExitOk;
}

/// The most questions per arm a power answer may ask for (beyond it, no eval exists).
constexpr double kMaxSamplesPerArm = 1e12;

int cmdPower(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  int parseRc = kExitOk;
  const auto parsed = parseCommand(powerStatsCommand(), args, out, err, parseRc);
  if (!parsed) return parseRc;
  const auto p = lastValue(*parsed, "--p");
  const auto delta = lastValue(*parsed, "--delta");
  const auto power = lastValue(*parsed, "--power");
  const auto flip = lastValue(*parsed, "--flip-rate");
  const auto format = lastValue(*parsed, "--format");
  int rc = kExitOk;
  bool json = true;
  if (!formatOk(format, json, err, rc)) return rc;
  const auto pv = fraction(p, "p", true, 0, 1, false, err, rc);
  if (!pv) return rc;
  const auto dv = fraction(delta, "delta", true, 0, 1, true, err, rc);
  if (!dv) return rc;
  double powerV = 0.8;
  if (power) {
    const auto v = toNumber(*power);
    if (!v || !(*v > 0 && *v < 1))
      return badArg(err, "power", "expected a number in (0, 1), found '" + *power + "'");
    powerV = *v;
  }
  std::optional<double> flipV;
  if (flip) {
    flipV = fraction(flip, "flip-rate", true, 0, 1, true, err, rc);
    if (!flipV) return rc;
  }
  const double exact = stats::samplesPerArm(*pv, *dv, powerV);
  const double nArm = std::ceil(exact - 1e-9);
  // A difference so small that no eval could resolve it is an impossible request, not a
  // null in the output.
  if (!(std::isfinite(exact) && exact <= kMaxSamplesPerArm)) {
    return badArg(err, "delta",
                  "delta " + *delta + " needs more than " + formatNumber(kMaxSamplesPerArm) +
                      " questions per arm (" + formatNumber(exact) +
                      "); no eval resolves a difference that small");
  }
  const double zBeta = std::abs(powerV - 0.8) < 1e-12 ? stats::kZ80 : stats::normalQuantile(powerV);
  Json j{
      {"p", *pv},        {"delta", *dv},      {"power", powerV},         {"z_alpha", stats::kZ95},
      {"z_beta", zBeta}, {"n_per_arm", nArm}, {"n_per_arm_exact", exact}};
  if (flipV) {
    const double pe = stats::pairedSamples(*flipV, *dv, powerV);
    if (!(std::isfinite(pe) && pe <= kMaxSamplesPerArm)) {
      return badArg(err, "delta",
                    "delta " + *delta + " needs more than " + formatNumber(kMaxSamplesPerArm) +
                        " paired questions (" + formatNumber(pe) +
                        "); no eval resolves a difference that small");
    }
    j["flip_rate"] = *flipV;
    j["n_paired"] = std::ceil(pe - 1e-9);
    j["n_paired_exact"] = pe;
  }
  if (json) {
    writeJsonOutput(out, std::move(j));
  } else {
    out << "power  p = " << fixedDecimals(*pv, 4) << ", delta = " << fixedDecimals(*dv, 4) << " ("
        << percentagePoints(*dv) << "), power = " << powerV << "\n";
    row(out, "questions per arm", std::to_string(static_cast<long long>(nArm)),
        "(two independent runs)");
    if (flipV) {
      row(out, "paired questions",
          std::to_string(static_cast<long long>(j["n_paired"].get<double>())),
          "(same questions, flip rate " + fixedDecimals(*flipV, 4) + ")");
    }
  }
  return kExitOk;
}

int cmdDiff(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  int parseRc = kExitOk;
  const auto parsed = parseCommand(diffStatsCommand(), args, out, err, parseRc);
  if (!parsed) return parseRc;
  const auto p1 = lastValue(*parsed, "--p1");
  const auto n1 = lastValue(*parsed, "--n1");
  const auto p2 = lastValue(*parsed, "--p2");
  const auto n2 = lastValue(*parsed, "--n2");
  const auto format = lastValue(*parsed, "--format");
  int rc = kExitOk;
  bool json = true;
  if (!formatOk(format, json, err, rc)) return rc;
  const auto pv1 = fraction(p1, "p1", true, 0, 1, false, err, rc);
  if (!pv1) return rc;
  const auto nv1 = count(n1, "n1", err, rc);
  if (!nv1) return rc;
  const auto pv2 = fraction(p2, "p2", true, 0, 1, false, err, rc);
  if (!pv2) return rc;
  const auto nv2 = count(n2, "n2", err, rc);
  if (!nv2) return rc;
  const auto d = stats::twoRunDifference(*pv1, *nv1, *pv2, *nv2);
  const bool significant = d.ci.lo > 0 || d.ci.hi < 0;
  if (json) {
    Json j{{"p1", *pv1},
           {"n1", *nv1},
           {"p2", *pv2},
           {"n2", *nv2},
           {"diff", d.diff},
           {"se", d.se},
           {"diff_ci", jsonInterval(d.ci)},
           {"min_detectable_diff", d.minDetectableDiff},
           {"significant", significant}};
    writeJsonOutput(out, std::move(j));
  } else {
    out << "two independent runs  p1 = " << fixedDecimals(*pv1, 4) << " (n " << *nv1
        << "), p2 = " << fixedDecimals(*pv2, 4) << " (n " << *nv2 << ")\n";
    row(out, "diff p2 - p1", fixedDecimals(d.diff, 4), "(" + percentagePoints(d.diff) + ")");
    row(out, "SE", fixedDecimals(d.se, 4), "(" + percentagePoints(d.se) + ")");
    row(out, "95% CI", interval(d.ci), significant ? "excludes 0" : "includes 0: not resolved");
    row(out, "min detectable diff", fixedDecimals(d.minDetectableDiff, 4),
        "(" + percentagePoints(d.minDetectableDiff) + ")");
  }
  return kExitOk;
}

int cmdPaired(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  int parseRc = kExitOk;
  const auto parsed = parseCommand(pairedStatsCommand(), args, out, err, parseRc);
  if (!parsed) return parseRc;
  const auto metric = lastValue(*parsed, "--metric");
  const auto task = lastValue(*parsed, "--task");
  const auto filter = lastValue(*parsed, "--filter");
  const auto format = lastValue(*parsed, "--format");
  const std::vector<std::string>& files = parsed->positionals();
  if (files.size() != 2) {
    return badArg(
        err, "files",
        "expected two per-sample files A.jsonl B.jsonl, found " + std::to_string(files.size()));
  }
  int rc = kExitOk;
  bool json = true;
  if (!formatOk(format, json, err, rc)) return rc;
  auto sa = readLmEvalSamples(files[0]);
  if (!sa) return badInput(err, sa.error());
  auto sb = readLmEvalSamples(files[1]);
  if (!sb) return badInput(err, sb.error());
  stats::PairOptions po;
  po.metric = metric.value_or("");
  po.task = task;
  po.filter = filter;
  auto pc = stats::comparePaired(*sa, files[0], *sb, files[1], po);
  if (!pc) return badInput(err, pc.error());
  for (const auto& w : pc->warnings) err << "qfront: warning: " << w << "\n";
  const double n = static_cast<double>(pc->n);
  const auto wa = stats::wilsonInterval(pc->scoreA, n);
  const auto wb = stats::wilsonInterval(pc->scoreB, n);
  if (json) {
    Json j{{"file_a", files[0]},
           {"file_b", files[1]},
           {"metric", pc->metric},
           {"n", pc->n},
           {"score_a", pc->scoreA},
           {"score_b", pc->scoreB},
           {"wilson_a", jsonInterval(wa)},
           {"wilson_b", jsonInterval(wb)},
           {"both_right", pc->bothRight},
           {"both_wrong", pc->bothWrong},
           {"flips_right_to_wrong", pc->rightToWrong},
           {"flips_wrong_to_right", pc->wrongToRight},
           {"flip_rate", pc->flipRate},
           {"flip_rate_ci", jsonInterval(pc->flipRateCi)},
           {"mcnemar_p", pc->mcnemarP},
           {"paired_se", pc->pairedSe},
           {"se", pc->pairedSe},
           {"diff", pc->diff},
           {"diff_ci", jsonInterval(pc->diffCi)},
           {"min_detectable_diff", pc->minDetectableDiff},
           {"only_in_a", pc->onlyInA},
           {"only_in_b", pc->onlyInB},
           {"prompt_hash_mismatches", pc->promptHashMismatches},
           {"warnings", pc->warnings}};
    writeJsonOutput(out, std::move(j));
  } else {
    out << "paired  A = " << files[0] << "\n        B = " << files[1] << "\n  metric " << pc->metric
        << ", " << pc->n << " questions paired\n";
    row(out, "score A", fixedDecimals(pc->scoreA, 4), "Wilson " + interval(wa));
    row(out, "score B", fixedDecimals(pc->scoreB, 4), "Wilson " + interval(wb));
    row(out, "right -> wrong (b)", std::to_string(pc->rightToWrong));
    row(out, "wrong -> right (c)", std::to_string(pc->wrongToRight));
    row(out, "flip rate", fixedDecimals(pc->flipRate, 4),
        "(" + percentagePoints(pc->flipRate) + ", exact 95% " + interval(pc->flipRateCi) + ")");
    row(out, "McNemar exact p", sigFigs(pc->mcnemarP, 4));
    row(out, "diff B - A", fixedDecimals(pc->diff, 4), "(" + percentagePoints(pc->diff) + ")");
    row(out, "paired SE", fixedDecimals(pc->pairedSe, 4),
        "(" + percentagePoints(pc->pairedSe) + ")");
    row(out, "95% CI of diff", interval(pc->diffCi));
    row(out, "min detectable diff", fixedDecimals(pc->minDetectableDiff, 4),
        "(" + percentagePoints(pc->minDetectableDiff) + ")");
  }
  return kExitOk;
}

constexpr OptionSpec kServingOptions[] = {
    {"--slo-ttft-ms", "X", "goodput counts requests with TTFT <= X ...", {}, true},
    {"--slo-tpot-ms", "Y", "... TPOT <= Y ...", {}, true},
    {"--slo-e2e-ms", "Z", "... and end-to-end latency <= Z", {}, true},
    {"--seed", "S", "the bootstrap's seed (default 5856494188361940993)", {}, true},
    {"--resamples", "R", "bootstrap resamples, 10 to 100000 (default 2000)", {}, true},
    {"--format", "json|table", "output format (default json)", {}, true},
};

const CommandSpec& servingStatsCommand() {
  static const CommandSpec command{
      "qfront",
      "stats serving",
      R"(usage: qfront stats serving FILE [--slo-ttft-ms X] [--slo-tpot-ms Y] [--slo-e2e-ms Z]
                            [--seed S] [--resamples R] [--format json|table]
)",
      R"(Reads a serving benchmark with per-request arrays (vLLM bench serve --save-detailed or a 2024
result file, SGLang bench_serving with details) and reports, per run, the p50/p90/p99 of TTFT,
TPOT, ITL and end-to-end latency in ms, each with a 95% bootstrap percentile interval
(requests resampled with replacement; the seed is fixed and printed, default 5856494188361940993),
and goodput (requests meeting every given SLO per second of the run) with its interval.
Only requests that succeeded and produced tokens count: failed and empty (output_len 0)
requests are left out of the percentiles, their intervals and goodput; the JSON says how many
(requests_failed, requests_empty). --resamples is 10 to 100000 (default 2000).
)",
      {kServingOptions},
      "Exit status: 0 on success, 2 on bad input.\n",
      1000};
  return command;
}

/// One serving run's latency percentiles and goodput, each with its bootstrap interval: the
/// run's JSON, and its lines added to `table`. Errors name `file`: a duration no measurement
/// has, a bootstrap that cannot run.
Result<Json> servingRunStats(const ImportedRun& run, const std::string& file, const stats::Slo& slo,
                             const stats::BootstrapOptions& bo, std::ostringstream& table) {
  std::size_t failedCount = 0, emptyCount = 0;
  for (const auto& r : run.requests) {
    if (!r.success) {
      ++failedCount;
    } else if (!stats::producedOutput(r)) {
      ++emptyCount;
    }
  }
  Json jr{{"label", run.label},
          {"format", run.format},
          {"requests", run.requests.size()},
          {"requests_failed", failedCount},
          {"requests_empty", emptyCount}};
  table << run.label << " (" << run.format << ", " << run.requests.size() << " requests)\n";
  if (failedCount + emptyCount > 0) {
    table << "  (" << failedCount << " failed and " << emptyCount << " empty requests left out)\n";
  }
  const std::vector<double> qs = {50.0, 90.0, 99.0};
  const stats::LatencyMetric kMetrics[] = {stats::LatencyMetric::Ttft, stats::LatencyMetric::Tpot,
                                           stats::LatencyMetric::Itl, stats::LatencyMetric::E2e};
  std::vector<stats::PercentileRequest> wanted;
  for (const auto m : kMetrics) wanted.push_back({m, qs});
  const auto dur = run.metrics.find("duration_s");
  if (dur != run.metrics.end()) {
    // A run lasts at least as long as its slowest request: a duration of 0, a negative one
    // or 1e-300 s is not a measurement (it gave a goodput of 6.3e301 req/s, or none).
    double slowest = 0;
    for (const auto& q : run.requests) {
      if (q.success && std::isfinite(q.latencyS)) slowest = std::max(slowest, q.latencyS);
    }
    if (!(std::isfinite(dur->second) && dur->second > 0 && dur->second >= 0.999 * slowest)) {
      return Error{file, "", "duration",
                   words("the run's duration ", dur->second,
                         " s is not positive or is shorter than its slowest request (", slowest,
                         " s): goodput would be meaningless")};
    }
  }
  const bool haveDuration = dur != run.metrics.end() && dur->second > 0;
  std::optional<stats::GoodputRequest> gp;
  if (haveDuration) gp = stats::GoodputRequest{slo, dur->second};
  // One set of resamples for every figure of the run (the draws are what a resample costs).
  auto boot = stats::bootstrapRun(run.requests, wanted, gp, bo);
  if (!boot) return Error{file, "", boot.error().field, boot.error().message};
  Json lat = Json::object();
  for (std::size_t w = 0; w < wanted.size(); ++w) {
    const auto m = wanted[w].metric;
    Json pm = Json::object();
    const auto& all = boot->percentiles[w];
    if (!all) continue;
    for (std::size_t k = 0; k < qs.size(); ++k) {
      const auto* bi = &(*all)[k];
      const double q = qs[k];
      const std::string key = "p" + std::to_string(static_cast<int>(q));
      pm[key] = {{"ms", bi->estimate * 1e3}, {"ci_ms", {bi->ci.lo * 1e3, bi->ci.hi * 1e3}}};
      table << "  " << std::left << std::setw(5) << stats::latencyMetricName(m) << std::setw(4)
            << key << std::right << std::setw(12) << fixedDecimals(bi->estimate * 1e3, 2)
            << " ms  [" << fixedDecimals(bi->ci.lo * 1e3, 2) << ", "
            << fixedDecimals(bi->ci.hi * 1e3, 2) << "]\n";
    }
    if (!pm.empty()) lat[stats::latencyMetricName(m)] = pm;
  }
  jr["latency"] = lat;
  if (boot->goodput) {
    const auto& g = *boot->goodput;
    jr["goodput_req_s"] = {{"value", g.estimate}, {"ci", {g.ci.lo, g.ci.hi}}};
    table << "  goodput " << fixedDecimals(g.estimate, 3) << " req/s  ["
          << fixedDecimals(g.ci.lo, 3) << ", " << fixedDecimals(g.ci.hi, 3) << "]\n";
  } else {
    jr["goodput_req_s"] = nullptr;
    table << "  goodput: the file has no run duration\n";
  }
  return jr;
}

int cmdServingStats(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  int parseRc = kExitOk;
  const auto parsed = parseCommand(servingStatsCommand(), args, out, err, parseRc);
  if (!parsed) return parseRc;
  const auto ttft = lastValue(*parsed, "--slo-ttft-ms");
  const auto tpot = lastValue(*parsed, "--slo-tpot-ms");
  const auto e2e = lastValue(*parsed, "--slo-e2e-ms");
  const auto seed = lastValue(*parsed, "--seed");
  const auto resamples = lastValue(*parsed, "--resamples");
  const auto format = lastValue(*parsed, "--format");
  const std::vector<std::string>& files = parsed->positionals();
  if (files.size() != 1) {
    return badArg(err, "file",
                  "expected one serving result file, found " + std::to_string(files.size()));
  }
  int rc = kExitOk;
  bool json = true;
  if (!formatOk(format, json, err, rc)) return rc;
  stats::Slo slo;
  for (auto [opt, dst, name] :
       {std::tuple{&ttft, &slo.ttftS, "slo-ttft-ms"}, std::tuple{&tpot, &slo.tpotS, "slo-tpot-ms"},
        std::tuple{&e2e, &slo.e2eS, "slo-e2e-ms"}}) {
    if (!*opt) continue;
    const auto v = parseNumber(**opt);
    if (!v || *v <= 0)
      return badArg(err, name, "expected a positive number of ms, found '" + **opt + "'");
    *dst = *v / 1e3;
  }
  stats::BootstrapOptions bo;
  if (seed) {
    const auto v = parseInt(*seed);
    if (!v || *v < 0)
      return badArg(err, "seed", "expected a non-negative integer, found '" + *seed + "'");
    bo.seed = static_cast<std::uint64_t>(*v);
  }
  if (resamples) {
    const auto v = parseInt(*resamples);
    if (!v || *v < stats::kMinResamples || *v > stats::kMaxResamples) {
      return badArg(err, "resamples",
                    "expected a whole number of resamples from " +
                        std::to_string(stats::kMinResamples) + " to " +
                        std::to_string(stats::kMaxResamples) +
                        " (more does not narrow the interval, only slows the run), found '" +
                        *resamples + "'");
    }
    bo.resamples = static_cast<int>(*v);
  }
  auto rep = importFile(files[0]);
  if (!rep) return badInput(err, rep.error());
  Json runs = Json::array();
  std::ostringstream table;
  int withRequests = 0;
  for (const auto& run : rep->runs) {
    if (run.kind != RunKind::Serving || run.requests.empty()) continue;
    ++withRequests;
    auto jr = servingRunStats(run, files[0], slo, bo, table);
    if (!jr) return badInput(err, jr.error());
    runs.push_back(std::move(*jr));
  }
  if (withRequests == 0) {
    return badInput(err, Error{files[0], "", "requests",
                               "no per-request arrays in this " + rep->format +
                                   " file (vLLM: run with --save-detailed)"});
  }
  if (json) {
    Json j{{"file", files[0]},
           {"seed", bo.seed},
           {"resamples", bo.resamples},
           {"confidence", bo.confidence},
           {"slo_ms",
            {{"ttft", slo.ttftS ? Json(*slo.ttftS * 1e3) : Json(nullptr)},
             {"tpot", slo.tpotS ? Json(*slo.tpotS * 1e3) : Json(nullptr)},
             {"e2e", slo.e2eS ? Json(*slo.e2eS * 1e3) : Json(nullptr)}}},
           {"runs", runs}};
    writeJsonOutput(out, std::move(j));
  } else {
    out << "seed " << bo.seed << ", " << bo.resamples << " resamples, 95% percentile intervals\n"
        << table.str();
  }
  return kExitOk;
}

}  // namespace

int cmdStats(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  if (argv.empty() || argv.front() == "--help" || argv.front() == "-h") {
    out << kStatsHelp;
    return argv.empty() ? kExitBadInput : kExitOk;
  }
  const std::string sub = argv.front();
  const std::vector<std::string> rest(argv.begin() + 1, argv.end());
  if (sub == "binomial") return cmdBinomial(rest, out, err);
  if (sub == "power") return cmdPower(rest, out, err);
  if (sub == "diff") return cmdDiff(rest, out, err);
  if (sub == "paired") return cmdPaired(rest, out, err);
  if (sub == "serving") return cmdServingStats(rest, out, err);
  if (sub == "kl") return cmdStatsKl(rest, out, err);
  return badArg(
      err, "command",
      "unknown stats sub-command '" + sub +
          "' (expected binomial, power, diff, paired, serving or kl; see qfront stats --help)");
}

}  // namespace qf::cli
