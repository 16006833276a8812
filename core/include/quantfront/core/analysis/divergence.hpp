#pragma once
/// How far a quantized model's output distribution moved from the baseline's on the same
/// prompts: mean per-token KL divergence and flip rates, from per-sample files that carry
/// log-probabilities (docs/statistics.md, "Divergence between two runs").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <quantfront/core/analysis/stats.hpp>
#include <quantfront/core/base/error.hpp>

namespace qf::stats {

/// One generated position: the token produced, its log-probability, and the top-k
/// alternatives the run recorded (natural log).
struct TokenLogprobs {
  std::string token;
  double logprob = 0;
  std::vector<std::pair<std::string, double>> top;
};

/// One prompt's record: a generation with per-token log-probabilities (OpenAI-compatible
/// completions or chat responses with `logprobs`, bare or as `vllm run-batch` output lines),
/// or the per-choice log-likelihoods of an lm-eval multiple-choice sample.
struct LogprobSample {
  std::string key;  ///< custom_id / doc_id / "line N": what pairs it with the other run
  std::size_t line = 0;
  std::vector<TokenLogprobs> tokens;
  std::vector<double> choiceLoglik;  ///< lm-eval loglikelihood responses, one per choice
};

/// Reads a JSONL file of such records. Errors name the file, the line and the field (a line
/// without log-probabilities, a non-finite or positive log-probability, a duplicate key).
Result<std::vector<LogprobSample>> parseLogprobSamples(std::string_view text,
                                                       const std::string& label);
Result<std::vector<LogprobSample>> readLogprobSamples(const std::string& path);

/// Two runs compared prompt by prompt (A is the baseline: KL(A ‖ B)).
struct Divergence {
  std::size_t prompts = 0;         ///< paired prompts with generations
  std::size_t positions = 0;       ///< token positions compared
  std::size_t diverged = 0;        ///< prompts whose generated tokens differ somewhere
  std::size_t positionsAfter = 0;  ///< positions after a divergence, left out
  double meanTokenKl = 0;          ///< nats per compared position
  /// 95% bootstrap interval over prompts; none with fewer than two prompts (resampling one
  /// prompt gives a zero-width interval that claims a certainty nothing measured).
  std::optional<Interval> meanTokenKlCi;
  double p99TokenKl = 0;            ///< 99th percentile of the per-position KL
  double tokenFlipRate = 0;         ///< compared positions whose most likely token differs
  std::size_t choiceQuestions = 0;  ///< paired multiple-choice questions
  double meanChoiceKl = 0;          ///< nats per question over the answer choices
  double answerFlipRate = 0;        ///< questions whose most likely choice differs
  std::int64_t unmatched = 0;       ///< keys in only one of the files
  std::vector<std::string> warnings;
};

/// KL(p ‖ q) of one position from the two runs' top-k lists: the distributions coarsened to
/// A's top-k tokens plus one "rest" bucket. A token missing from B's list gets B's smallest
/// listed probability (an upper bound on it); each rest bucket is 1 − the listed mass
/// (at least 1e-12). By the data-processing inequality the coarsened KL does not exceed the
/// full one when the listed probabilities are exact.
double tokenKl(const TokenLogprobs& a, const TokenLogprobs& b);

/// Pairs the records by key and compares them. Generations are compared position by position
/// while both runs produced the same tokens (after the first difference the contexts differ,
/// so later positions are left out and counted). Errors: no common key, or records of one key
/// of different kinds (a generation against a multiple-choice sample).
Result<Divergence> compareDivergence(const std::vector<LogprobSample>& a, const std::string& fileA,
                                     const std::vector<LogprobSample>& b, const std::string& fileB,
                                     const BootstrapOptions& boot = {});

}  // namespace qf::stats
