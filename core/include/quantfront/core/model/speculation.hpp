#pragma once
/// Speculative decoding (docs/model.md, "Speculative decoding"): each step a draft proposes k
/// tokens per sequence, one target pass verifies all k + 1 positions, and the sequence keeps
/// the accepted prefix plus the target's own next token. With a per-token acceptance α
/// (independent positions) a step yields τ = (1 − α^(k+1)) / (1 − α) tokens per sequence
/// (k + 1 at α = 1). The target's GEMMs run at M = B·(k + 1), so a scheme whose advantage is
/// the small-M weight read (W4A16) loses it k + 1 times sooner in B.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/model/serving_model.hpp>

namespace qf {

/// Draft tokens per step at most: beyond this the verify pass is a prefill, not a decode.
inline constexpr int kMaxDraftTokens = 15;

/// What speculates, and how well.
struct Speculation {
  int draftTokens = 0;      ///< k, draft tokens proposed per sequence per step (1..15)
  double acceptance = 1.0;  ///< α, the probability a draft token is accepted, in (0, 1]
};

/// The draft's cost: its own step times (a smaller model's engine, or the target's scaled to
/// its MTP layers), times `scale`, and the memory it takes from the KV pool.
struct SpeculativeDraft {
  StepTimeModel steps;
  double scale = 1.0;          ///< multiplies the draft's step and prefill times
  double weightsGib = 0;       ///< the draft's weights on the replica, all GPUs together
  double kvBytesPerToken = 0;  ///< the draft's KV per token, all GPUs together (replicas counted)
  std::string label;           ///< the draft model's id, or "mtp"
};

/// An error naming the option when k is outside 1..kMaxDraftTokens or α outside (0, 1].
std::optional<Error> validateSpeculation(const Speculation& s);

/// τ = (1 − α^(k+1)) / (1 − α): tokens one step yields per sequence, on average.
double expectedTokensPerStep(const Speculation& s);

/// The acceptance α at which k draft tokens yield `tokensPerStep` tokens a step (the inverse
/// of expectedTokensPerStep, by bisection to 1e-12): what a measured mean accept length (SGLang
/// bench_serving's accept_length, the bonus token included) says of α. Nullopt unless
/// 1 < tokensPerStep ≤ k + 1.
std::optional<double> acceptanceForTokensPerStep(double tokensPerStep, int draftTokens);

/// One real speculative step of `batch` sequences at `context`, seconds: the target's GEMMs at
/// M = batch·(k + 1), its attention once per sequence (the k + 1 queries share the KV read),
/// and k draft steps.
double speculativeStepS(const StepTimeModel& target, const SpeculativeDraft& draft,
                        const Speculation& s, double batch, double context);

/// The target's step times under speculation, for the serving models: decodeStepS is the time
/// per accepted token (a real step over τ), prefill adds the draft's prefill, and mixed steps
/// price their prompt chunks at the GEMMs' margin above the B·(k + 1) verify tokens.
StepTimeModel speculativeSteps(const StepTimeModel& target, const SpeculativeDraft& draft,
                               const Speculation& s);

/// The replica's serving with speculation: steps as speculativeSteps, and the KV pool less the
/// draft's weights, each token holding the target's and the draft's KV. Errors (field
/// "spec-draft") when the draft leaves no room for one token.
Result<EngineServing> speculativeServing(const EngineServing& target, const SpeculativeDraft& draft,
                                         const Speculation& s);

/// The draft of MTP heads (DeepSeek-V3's multi-token prediction, one extra decoder layer):
/// each draft token costs one of the target's `layers` layers, so the target's steps scaled
/// by 1/layers; its weights and KV are one layer's share (the target on `tp` GPUs).
SpeculativeDraft mtpDraft(const EngineServing& target, int layers, int tp);

/// A draft model's cost from its own engine on the same replica (`tp` GPUs).
SpeculativeDraft modelDraft(const EngineServing& draft, const std::string& id, int tp);

/// The step time per accepted token of every scheme of an engine report under speculation,
/// at the report's batches and the scenario's context, and where two schemes' per-token times
/// cross (docs/model.md, "Speculative decoding").
struct SpeculativeCurves {
  double tokensPerStep = 1;
  std::vector<std::vector<double>> perTokenS;  ///< [scheme][point], at each point's batch
  std::vector<CrossoverReport> crossovers;     ///< in [smallest, largest batch], by batch
};

/// The draft of scheme `i` of the report, given that scheme's target step times.
using DraftForScheme = std::function<SpeculativeDraft(std::size_t i, const StepTimeModel& target)>;

/// A scheme's decode step times from its engine curve (prefill left out: 0).
StepTimeModel curveSteps(const StepCurve& curve);

SpeculativeCurves speculativeCurves(const EngineReport& rep, const Speculation& s,
                                    const DraftForScheme& draftFor);

/// The draft of every scheme: `model` when given (a draft model's engine), else each scheme's
/// own MTP layer (its target step times over the model's `layers`).
DraftForScheme draftPerScheme(const std::optional<SpeculativeDraft>& model, double layers);

}  // namespace qf
