#pragma once
/// Evidence becomes candidates: the runs imported into a session (vLLM / SGLang serving
/// results, lm-eval scores, ...) turned into measured metrics of candidates, with intervals
/// where the files give them, recovery against a baseline derived per task, and the modelled
/// figures filled where the candidate's model and GPU resolve. `qfront import --candidate`
/// and the window's import call attachRunsToCandidates.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <quantfront/core/analysis/stats.hpp>
#include <quantfront/core/base/error.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/session/session.hpp>

namespace qf {

/// How runs become candidates.
struct AttachOptions {
  /// Every run becomes metrics of this candidate (created when missing). Unset: one
  /// candidate per distinct model the runs name, with the model name as its id.
  std::optional<std::string> candidateId;
  std::string model;   ///< catalog model id when the files name none (or none the catalog knows)
  std::string scheme;  ///< scheme id when the model name gives no unambiguous hint
  std::string gpu;     ///< GPU id (the files do not say); empty: the session scenario's GPU
  std::optional<int> gpuCount;  ///< GPUs per candidate (default 1)
  /// Candidate whose scores recovery is computed against; unset: per model, the candidate of
  /// that model whose linear scheme is bf16.
  std::optional<std::string> baselineId;
  /// SHA-256 digests of the runs to attach; empty: every run in the session.
  std::vector<std::string> runDigests;
  /// Serving percentiles from per-request arrays get a bootstrap interval with these options.
  stats::BootstrapOptions bootstrap;
  /// When the session has no saved objectives: save the measured quality and latency ones.
  bool setViewObjectives = true;
  /// Attach even when a run's model (as its file names it, else `model`) is not the model of
  /// the existing candidate it would go to; otherwise that is an error naming both.
  bool allowModelMismatch = false;
};

/// A run whose model is not the model of the candidate it was asked to go to.
struct ModelMismatch {
  std::string sourceFile;      ///< the run's file
  std::string runModel;        ///< the model the file names (or `--model`)
  std::string candidateId;     ///< the existing candidate
  std::string candidateModel;  ///< its model
};

/// The runs attachRunsToCandidates(s, opts) would put on an existing candidate of another
/// model. Models compare as catalog ids when the catalog knows the name (the organisation,
/// "Meta-" and quantization suffixes do not count), else as names ignoring case. A run whose
/// file names no model is compared by `opts.model` when given, else not at all.
std::vector<ModelMismatch> findModelMismatches(const Session& s, const AttachOptions& opts,
                                               const Catalog& cat = Catalog::bundled());
/// One line naming the file, both models and the candidate.
std::string describeMismatch(const ModelMismatch& m);

/// What attachRunsToCandidates did.
struct AttachReport {
  std::vector<std::string> created;  ///< candidate ids created, in order
  std::vector<std::string> updated;  ///< existing candidates that received metrics
  std::size_t metricsAttached = 0;   ///< measured metrics written (not counting recovery)
  std::size_t recoveryDerived = 0;   ///< `<task>_recovery_pct` figures derived
  std::vector<std::string> notes;    ///< where model, scheme and GPU came from
  std::vector<std::string>
      warnings;  ///< runs skipped, metrics overwritten, modelled figures missing
};

/// A scheme hint read from a model or checkpoint name ("...-FP8", "quantized.w4a16", "GPTQ").
struct SchemeHint {
  std::string scheme;                ///< catalog scheme id; empty when none or ambiguous
  std::vector<std::string> matched;  ///< the hints found, e.g. {"fp8"}
  bool ambiguous = false;            ///< hints of different schemes were found
};
/// Reads the quantization hint of a checkpoint name by the catalog's name hints
/// (schemes.json "name_hints": fp8 → w8a8-fp8; w8a8 / int8 → w8a8-int8 unless fp8 is there;
/// w4a16 / gptq / awq / int4 → w4a16-g128; ...). Case-insensitive, at word boundaries.
SchemeHint schemeFromName(std::string_view name, const Catalog& cat = Catalog::bundled());

/// The catalog model a Hugging Face name refers to ("neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8"
/// → "llama-3.1-8b"): organisation, "Meta-" prefix, "-Instruct"/"-Chat" and quantization
/// suffixes are dropped and the rest compared with the catalog ids; "" when none matches.
std::string catalogModelFromName(std::string_view name, const Catalog& cat = Catalog::bundled());

/// The model a run names: vLLM / SGLang `model_id` (else its label), lm-eval `model_name` or
/// `pretrained=`; "" when the file names none.
std::string runModelName(const ImportedRun& run);

/// The candidate whose model (and, where the name gives one, scheme) the run names: the
/// candidate of catalogModelFromName(runModelName(run)) whose scheme is schemeFromName's (bf16
/// when the name hints none); "" when no candidate, or more than one, matches. What the window's
/// Attach dialog offers first, before the candidate on display.
std::string matchingCandidate(const ImportedRun& run, const std::vector<Candidate>& cands,
                              const Catalog& cat = Catalog::bundled());

/// The setup key under which attachRunsToCandidates records, on every run it attaches, the id
/// of the candidate the run's figures went to (saved with the run; see docs/session-format.md).
inline constexpr const char* kCandidateSetupKey = "quantfront/candidate";

/// Gives every serving latency percentile in `metrics` (`<m>_p<q>_ms`, m one of ttft, tpot, itl,
/// e2el, 0 < q < 100) a bootstrap percentile interval from the run's per-request records
/// (stats::bootstrapLatencyPercentiles with `boot`): lo and hi widened to include the value,
/// n the requests that produced output, and the interval's level, resamples and seed appended
/// to the provenance note. A run without per-request records leaves `metrics` as they are; a
/// metric the records cannot give is a warning naming the file.
void addServingIntervals(const ImportedRun& run, std::map<std::string, MetricValue>& metrics,
                         const stats::BootstrapOptions& boot, std::vector<std::string>& warnings);

/// Turns the session's runs (or those of opts.runDigests) into measured metrics of candidates.
/// Metric names are the runs' own (`tpot_p99_ms`, `output_throughput_tok_s`; lm-eval
/// `<task>_<metric>` from the task's primary filter: strict-match, else none, else the first
/// by name); bookkeeping counts are left out. lm-eval standard errors give 95% intervals
/// (value ± 1.96·stderr); serving percentiles get bootstrap intervals from per-request arrays.
/// Then `<task>_recovery_pct` is derived for every candidate of a model that has a baseline,
/// and the modelled figures are refreshed for the candidates touched (a model or GPU that
/// does not resolve is a warning). Every run attached records its candidate's id in its setup
/// under kCandidateSetupKey (replacing what an earlier attach recorded). A run attached before
/// to another candidate moves: its figures leave that candidate (re-attaching never copies).
/// A run whose requests all failed (allRequestsFailed) records its candidate but gives it no
/// figure (its 0.0 throughputs are not measurements), with a warning; nor is it a sweep's
/// lowest load. Errors: a candidate id or scheme that cannot be chosen; a run of another model than
/// the existing candidate's (findModelMismatches) unless opts.allowModelMismatch — the session is
/// then unchanged.
Result<AttachReport> attachRunsToCandidates(Session& s, const AttachOptions& opts,
                                            const Catalog& cat = Catalog::bundled());

/// Derives `<task>_recovery_pct` (100·score/baseline score, interval by the delta method on
/// the ratio when both scores have one) for every candidate holding measured lm-eval scores,
/// against `baselineId` for its model or that model's bf16 candidate. Published figures are
/// never replaced. Returns how many figures were written; warnings go to `warnings`.
std::size_t deriveRecovery(Session& s, const std::optional<std::string>& baselineId,
                           std::vector<std::string>& warnings);

/// The prefix of a provenance note that marks a figure derived from others (the note then
/// says how): "derived: ".
inline constexpr const char* kDerivedNotePrefix = "derived: ";
/// True when the provenance note marks the figure as derived rather than read or quoted.
bool isDerivedFigure(const Provenance& p);

}  // namespace qf
