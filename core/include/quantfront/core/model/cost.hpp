#pragma once
/// Cost per query and deployment use cases (spec: shared/spec/frontier.md, "Cost" and
/// "Deployment use cases"; seed 001, arXiv:2411.02355 Tables 5, 6 and 9).
/// Prices are USD per hour for the whole deployment (per-GPU price × GPU count).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/model/engine.hpp>

namespace qf {

/// Synchronous serving (one query at a time): 3600 / (latency_s · price_per_hour).
/// Preconditions: latencyS > 0, pricePerHourUsd > 0.
double queriesPerUsdSync(double latencyS, double pricePerHourUsd);
/// Asynchronous serving at a sustained rate: qps · 3600 / price_per_hour.
double queriesPerUsdAsync(double queriesPerS, double pricePerHourUsd);
/// USD per query for a queries-per-USD figure (its reciprocal).
double costPerQueryUsd(double queriesPerUsd);
/// Cost reduction: baseline cost per query / candidate cost per query
/// (= candidate queries per USD / baseline queries per USD).
double costReduction(double baselineQueriesPerUsd, double candidateQueriesPerUsd);
/// Price of a deployment: per-GPU price per hour × GPU count; nullopt when the GPU has none.
std::optional<double> deploymentPricePerHour(const GpuSpec& gpu, int gpuCount);

/// A deployment use case: the prompt and output length of a typical request.
struct UseCase {
  std::string id;                  ///< e.g. "code-completion"
  std::string name;                ///< e.g. "Code completion"
  std::int64_t prefillTokens = 0;  ///< prompt tokens per request
  std::int64_t decodeTokens = 0;   ///< output tokens per request
  std::string citation;            ///< where the shape comes from
  std::string note;                ///< free text (e.g. "prefill-heavy")
};

/// Parses a use-case file {"format": "quantfront-use-cases", "version": 1,
/// "use_cases": [{"id", "name", "prefill_tokens", "decode_tokens", "citation", "note"?}]}.
Result<std::vector<UseCase>> parseUseCases(std::string_view text, const std::string& label);
/// The bundled presets (resources/catalog/use_cases.json): the seven use cases of seed 001.
Result<std::vector<UseCase>> bundledUseCases();
/// One bundled preset by id (case-insensitive); the error lists the known ids.
Result<UseCase> findUseCase(const std::string& id, const std::string& field = "use-case");

/// Modelled latency of one request (seconds).
struct RequestLatency {
  double prefillS = 0;                  ///< StepCurve::prefillSeconds of one prompt
  const char* prefillBound = "memory";  ///< "compute" when some kind's math exceeds its floor
  double decodeStepS = 0;               ///< t(batch) of the step-time curve
  double decodeS = 0;                   ///< output_tokens · decodeStepS
  double totalS = 0;                    ///< prefillS + decodeS
};

/// Request latency from the analytic engine: the prefill of one prompt on each scheme's real
/// path (StepCurve::prefillSeconds: GEMMs, dequant, causal attention, KV write, all-reduce,
/// t0) and `outputTokens` decode steps at `batch` concurrent sequences.
/// Preconditions: promptTokens ≥ 0, outputTokens ≥ 0, batch ≥ 1.
RequestLatency estimateRequestLatency(const StepCurve& curve, std::int64_t promptTokens,
                                      std::int64_t outputTokens, double batch = 1.0);

/// A use case on one candidate: latency, price and (when priced) synchronous queries per USD.
struct UseCaseEstimate {
  UseCase useCase;                        ///< the preset estimated
  RequestLatency latency;                 ///< modelled request latency
  std::optional<double> pricePerHourUsd;  ///< GPU price × TP
  std::optional<double> queriesPerUsd;    ///< synchronous, 3600/(latency·price)
};

/// Builds the candidate's step-time curve on the scenario and estimates the use case.
/// Errors: as buildStepCurve, or a use case with no tokens.
Result<UseCaseEstimate> estimateUseCase(const Scenario& s, const SchemeAssignment& cand,
                                        const UseCase& useCase, double batch = 1.0);

}  // namespace qf
