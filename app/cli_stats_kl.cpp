// qfront stats kl A B: mean per-token KL divergence and flip rates between two runs of the
// same prompts, optionally written as measured metrics of a candidate.
#include <filesystem>
#include <iomanip>
#include <limits>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/divergence.hpp>
#include <quantfront/core/base/hash.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/base/version.hpp>
#include <quantfront/core/session/session.hpp>

#include "cli.hpp"
#include "shell.hpp"

namespace qf::cli {

namespace {

constexpr OptionSpec kKlOptions[] = {
    {"--session", "SESSION",
     "also add the figures to candidate --candidate of SESSION as measured metrics "
     "(kl_per_token_nats with its interval, token_flip_rate_pct, choice_kl_nats, "
     "answer_flip_rate_pct), written atomically under the session's writer lock"},
    {"--candidate", "ID", "the candidate of --session the figures are of (the two go together)"},
    {"--format", "json|table", "output format (default json)", oneOf("json|table")},
};

const CommandSpec& klStatsCommand() {
  static const CommandSpec command{
      "qfront",
      "stats kl",
      R"(usage: qfront stats kl A.jsonl B.jsonl [--session SESSION --candidate ID]
                       [--format json|table])",
      R"(Compares two runs of the same prompts through their log-probabilities, A the baseline:
  generations  OpenAI-compatible completions or chat responses with logprobs (top-k
               alternatives per token: "logprobs": true, "top_logprobs": 5), one response
               per line, bare or as `vllm run-batch` output lines ({"custom_id", "response":
               {"body": ...}}). Prompts pair by custom_id, prompt_id or doc_id, else by order
               (blank lines skipped).
               Per token position, KL(A || B) over A's top-k tokens plus one bucket for the
               rest (a token missing from B's list gets B's smallest listed probability), while
               both runs produced the same tokens; after the first difference the contexts
               differ and later positions are left out (counted).
  multiple choice  lm-evaluation-harness samples_<task>.jsonl of a loglikelihood task
               (resps hold each choice's log-likelihood): KL over the answer choices.
Reports the mean KL per token (nats) with a 95% bootstrap interval over prompts, its 99th
percentile, the token flip rate (positions whose most likely token differs), the prompts
whose generations differ, and for multiple choice the mean KL per question and the answer
flip rate (questions whose most likely choice differs).)",
      {kKlOptions},
      "Exit status: 0 on success, 2 on bad input (one line naming file, line and field).\n",
      // Any number: the count is checked after, in words ("expected two files").
      std::numeric_limits<std::size_t>::max()};
  return command;
}

/// The figures as candidate metrics, each citing both files.
std::map<std::string, MetricValue> divergenceMetrics(const stats::Divergence& d,
                                                     const std::string& fileA,
                                                     const std::string& fileB) {
  Provenance p;
  p.kind = ProvenanceKind::Measured;
  p.sourceFile = fileB;
  p.sha256 = sha256File(fileB).value_or("");
  p.note = "qfront stats kl against the baseline run " + fileA;
  std::map<std::string, MetricValue> m;
  if (d.positions > 0) {
    // n counts prompts: the interval resamples prompts, not positions.
    MetricValue kl{d.meanTokenKl,
                   d.meanTokenKlCi ? std::optional(d.meanTokenKlCi->lo) : std::nullopt,
                   d.meanTokenKlCi ? std::optional(d.meanTokenKlCi->hi) : std::nullopt,
                   static_cast<double>(d.prompts), p};
    m["kl_per_token_nats"] = kl;
    m["token_flip_rate_pct"] = MetricValue{100 * d.tokenFlipRate, std::nullopt, std::nullopt,
                                           static_cast<double>(d.positions), p};
  }
  if (d.choiceQuestions > 0) {
    m["choice_kl_nats"] = MetricValue{d.meanChoiceKl, std::nullopt, std::nullopt,
                                      static_cast<double>(d.choiceQuestions), p};
    m["answer_flip_rate_pct"] = MetricValue{100 * d.answerFlipRate, std::nullopt, std::nullopt,
                                            static_cast<double>(d.choiceQuestions), p};
  }
  return m;
}

int addToCandidate(const std::string& sessionPath, const std::string& id,
                   const std::map<std::string, MetricValue>& metrics, std::ostream& err) {
  int rc = kExitOk;
  auto lock = lockForUpdate(sessionPath, "qfront stats kl", err, rc);
  if (!lock) return rc;
  auto session = loadSession(sessionPath);
  if (!session) return badInput(err, session.error());
  auto c = std::find_if(session->candidates.begin(), session->candidates.end(),
                        [&](const Candidate& k) { return k.id == id; });
  if (c == session->candidates.end()) {
    std::string ids;
    for (const auto& k : session->candidates) ids += (ids.empty() ? "" : ", ") + k.id;
    return badArg(err, "candidate",
                  "no candidate '" + id + "' in " + sessionPath + " (candidates: " + ids + ")");
  }
  for (const auto& [name, v] : metrics) c->metrics[name] = v;
  if (auto e = saveSessionAtomic(*session, sessionPath)) return badInput(err, *e);
  return kExitOk;
}

}  // namespace

int cmdStatsKl(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  int rc = kExitOk;
  const auto parsed = parseCommand(klStatsCommand(), args, out, err, rc);
  if (!parsed) return rc;
  const std::optional<std::string> sessionOpt = parsed->value("--session");
  const std::optional<std::string> candidateOpt = parsed->value("--candidate");
  const std::vector<std::string>& files = parsed->positionals();
  if (files.size() != 2) {
    return badArg(err, "files",
                  "expected two files A.jsonl B.jsonl, found " + std::to_string(files.size()));
  }
  const std::string fmt = parsed->value("--format").value_or("json");
  if (sessionOpt.has_value() != candidateOpt.has_value()) {
    return badArg(err, sessionOpt ? "candidate" : "session",
                  "--session and --candidate go together (the candidate the figures are of)");
  }
  if (sessionOpt) {
    std::error_code ec;
    if (!std::filesystem::exists(*sessionOpt, ec)) {
      return badArg(err, "session", "no session file '" + *sessionOpt + "'");
    }
  }
  auto sa = stats::readLogprobSamples(files[0]);
  if (!sa) return badInput(err, sa.error());
  auto sb = stats::readLogprobSamples(files[1]);
  if (!sb) return badInput(err, sb.error());
  auto d = stats::compareDivergence(*sa, files[0], *sb, files[1]);
  if (!d) return badInput(err, d.error());
  for (const auto& w : d->warnings) err << "qfront: warning: " << w << "\n";
  if (sessionOpt) {
    const int r =
        addToCandidate(*sessionOpt, *candidateOpt, divergenceMetrics(*d, files[0], files[1]), err);
    if (r != kExitOk) return r;
  }
  if (fmt == "json") {
    Json j{{"file_a", files[0]},
           {"file_b", files[1]},
           {"prompts", d->prompts},
           {"positions", d->positions},
           {"positions_after_divergence", d->positionsAfter},
           {"diverged_prompts", d->diverged},
           {"kl_per_token_nats",
            d->positions
                ? Json{{"mean", d->meanTokenKl},
                       {"ci95", d->meanTokenKlCi ? Json{d->meanTokenKlCi->lo, d->meanTokenKlCi->hi}
                                                 : Json(nullptr)},
                       {"p99", d->p99TokenKl}}
                : Json(nullptr)},
           {"token_flip_rate", d->positions ? Json(d->tokenFlipRate) : Json(nullptr)},
           {"choice_questions", d->choiceQuestions},
           {"choice_kl_nats", d->choiceQuestions ? Json(d->meanChoiceKl) : Json(nullptr)},
           {"answer_flip_rate", d->choiceQuestions ? Json(d->answerFlipRate) : Json(nullptr)},
           {"unmatched", d->unmatched}};
    if (sessionOpt) j["written"] = {{"session", *sessionOpt}, {"candidate", *candidateOpt}};
    writeJsonOutput(out, std::move(j));
    return kExitOk;
  }
  out << "KL(A || B), A = " << files[0] << ", B = " << files[1] << "\n";
  if (d->positions > 0) {
    out << "  prompts " << d->prompts << ", positions compared " << d->positions << " ("
        << d->diverged << " prompts diverge; " << d->positionsAfter
        << " positions after a divergence left out)\n"
        << "  mean KL per token  " << sigFigs(d->meanTokenKl, 3) << " nats  "
        << (d->meanTokenKlCi ? "[" + sigFigs(d->meanTokenKlCi->lo, 3) + ", " +
                                   sigFigs(d->meanTokenKlCi->hi, 3) + "]"
                             : std::string("(no interval: one prompt)"))
        << "   p99 " << sigFigs(d->p99TokenKl, 3) << "\n"
        << "  token flip rate    " << sigFigs(100 * d->tokenFlipRate, 3) << "%\n";
  }
  if (d->choiceQuestions > 0) {
    out << "  questions " << d->choiceQuestions << ": mean KL over choices "
        << sigFigs(d->meanChoiceKl, 3) << " nats, answer flip rate "
        << sigFigs(100 * d->answerFlipRate, 3) << "%\n";
  }
  if (sessionOpt) out << "added to candidate " << *candidateOpt << " of " << *sessionOpt << "\n";
  return kExitOk;
}

}  // namespace qf::cli
