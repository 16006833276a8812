#pragma once
/// A scenario as a user states it (ids, paths, numbers): what the CLI's options, the GUI's
/// scenario panel and a session file hold. `resolveScenario` turns it into engine inputs.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/engine.hpp>

namespace qf {

struct ScenarioSpec {
  std::string model = "llama-3-8b";  ///< catalog id or config.json path
  std::string gpu = "h100-sxm";      ///< catalog id or GPU JSON path
  /// An edited copy of the GPU, used instead of looking `gpu` up (`gpu` keeps the id it was
  /// edited from, for display); none for the catalog's (or the file's) figures. A session's
  /// modelled metrics use it for the candidates whose GPU is `gpu` (ignoring case) and the
  /// catalog for the others.
  std::optional<GpuSpec> gpuSpec;
  int tp = 1;  ///< GPUs per replica (tensor parallel)
  /// Uniform candidates: a new scenario's are the catalog's (schemes.json "default_for":
  /// "scenario": bf16, W8A8-FP8 and W4A16 g128).
  std::vector<std::string> schemes = Catalog::bundled().schemesDefaultFor("scenario");
  /// Optional mixed candidate (per layer kind); empty mixedLinear means none.
  std::string mixedLinear, mixedMoe, mixedLmHead;
  double batchMin = 1;
  double batchMax = 1024;
  /// The batch a deployment runs at: the plots mark it and the Schemes table gives each
  /// candidate's step time, throughput and fit there; 0: none.
  std::int64_t batchAt = 0;
  std::int64_t maxModelLen = 8192;
  std::string kvDtype = "bf16";  ///< bf16 | fp8
  double memUtil = 0.92;
  double reserveGib = 6.0;
  std::int64_t contextTokens = 0;
  std::string useCase;  ///< deployment use-case preset id, empty for none
  /// A static batch's prompt and output tokens for the end-to-end figures (TTFT, TPOT,
  /// latency of B requests, as vLLM bench latency runs them); 0: none.
  std::int64_t inputLen = 0;
  std::int64_t outputLen = 0;
  /// The ideal roofline: no calibration at all (neither the GPU file's block nor the bundled
  /// defaults). Off: the GPU's own calibration block, else the catalog's bundled defaults.
  bool datasheet = false;
  /// The serving engine the figures are for: "" or "vllm" / "sglang" (vLLM's memory rule and
  /// the bundled constants), "trtllm" (TensorRT-LLM's KV pool rule and, where the GPU has
  /// them, its own bundled constants: docs/model.md, "Constants per serving engine").
  std::string engine;
  /// Speculative decoding drawn beside the step times (docs/model.md, "Speculative
  /// decoding"): draft tokens per step, 0 for off; the acceptance rate; the draft ("mtp" or a
  /// catalog model id).
  int specDraftTokens = 0;
  double specAcceptance = 0.7;
  std::string specDraft = "mtp";

  /// Every field compared, so a field added here is part of undo's "did anything change"
  /// without another edit.
  bool operator==(const ScenarioSpec&) const = default;
};

/// Where a scenario's constants come from, as a phrase for a title: "datasheet roofline",
/// "bundled constants fitted to 244 published H100 SXM figures", "bundled constants carried
/// over from the A6000 fit to arXiv:2411.02355", "your calibration: qfront calibrate on x.csv,
/// 2026-12-03" (the source up to its first parenthesis or semicolon, and a date it names).
std::string constantsProvenance(const Efficiency& e);

/// The efficiency a scenario runs with: the datasheet when `datasheet` is set, else the GPU's
/// calibration block, else the catalog's bundled defaults for its id and `engine` (a serving
/// engine's name: TensorRT-LLM's constants where the GPU has them), else the datasheet.
Efficiency scenarioEfficiency(const GpuSpec& gpu, bool datasheet,
                              const Catalog& cat = Catalog::bundled(),
                              const std::string& engine = "");

/// The GPU a scenario runs on: the edited copy `gpuSpec` when set (checked by `checkGpu`; an
/// empty id becomes `gpu`), else `gpu` looked up in `cat` (catalog id or GPU file). Errors
/// name the field.
Result<GpuSpec> scenarioGpu(const ScenarioSpec& spec, const Catalog& cat = Catalog::bundled());

/// Resolves model, GPU (`scenarioGpu`) and KV settings. Errors name the field at fault.
Result<Scenario> resolveScenario(const ScenarioSpec& spec, const Catalog& cat = Catalog::bundled());

/// How a MoE replica spreads its experts and attention over its GPUs (Scenario's ep,
/// dpAttention, expertImbalance, redundantExperts and twoBatchOverlap), checked with the scenario:
/// under DP attention the heads need not split over the GPUs.
struct MoeLayout {
  int ep = 1;
  bool dpAttention = false;
  double expertImbalance = 1.0;
  int redundantExperts = 0;
  bool twoBatchOverlap = false;
  bool operator==(const MoeLayout&) const = default;
};
Result<Scenario> resolveScenario(const ScenarioSpec& spec, const MoeLayout& layout,
                                 const Catalog& cat = Catalog::bundled());

/// One uniform candidate per id (duplicates dropped), then the mixed one if set.
Result<std::vector<SchemeAssignment>> makeCandidates(const std::vector<std::string>& uniformIds,
                                                     const std::string& linear,
                                                     const std::string& moe,
                                                     const std::string& lmHead,
                                                     const Catalog& cat = Catalog::bundled());

/// The KV pool rule of a serving engine (Scenario::kvFreeFraction): "trtllm" 0.9 (TensorRT-LLM's
/// default kv_cache_free_gpu_mem_fraction), "vllm", "sglang" and "" 0 (memory·u − reserve);
/// nullopt for another name.
std::optional<double> kvFreeFractionOf(const std::string& engine);

/// KV bytes per element for a dtype name (bf16/fp16/auto 2, fp8* 1); 0 when unknown.
double kvBytesForDtype(const std::string& dtype);

/// Log-spaced batches from min to max inclusive (`n` points) plus each power of two in range.
std::vector<double> logBatches(double batchMin, double batchMax, int n = 400);

}  // namespace qf
