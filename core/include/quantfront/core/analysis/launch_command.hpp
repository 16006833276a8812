#pragma once
/// The command that launches a deployment the search chose, for each serving engine: the
/// engine's own flags for tensor and data parallelism, the batch cap and the token budget the
/// model priced, the KV dtype and memory fraction, and the checkpoint it needs (docs/model.md,
/// "Launching the answer").
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/analysis/deploy_search.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/model_config.hpp>

namespace qf {

/// What the priced deployment assumed besides the configuration itself.
struct LaunchSettings {
  double memUtil = 0.92;         ///< the memory fraction the KV budget was priced with
  double tokenBudget = 8192;     ///< tokens per step (chunked prefill)
  std::int64_t maxModelLen = 0;  ///< one request's prompt + output; 0: the model's own
  /// The speculation it was priced with (none: plain decoding): each command says how to
  /// enable it.
  std::optional<Speculation> speculation;
  /// The draft model it speculated with (its checkpoint name); empty: the model's MTP layer.
  std::string draftModel;
};

/// The settings a search priced its answers with: the space's memory fraction and token budget,
/// and one request of `w` as the max model length (as deployScenario sizes it).
LaunchSettings launchSettingsFor(const DeploySpace& space, const ServingWorkload& w);

/// One engine's launch line for one replica group, and what the line alone cannot say.
struct LaunchCommand {
  std::string engine;             ///< "vllm", "sglang", "trtllm"
  std::string command;            ///< one shell line
  std::string checkpoint;         ///< the model argument: a Hugging Face name or a placeholder
  bool checkpointToMake = false;  ///< no published checkpoint is known: quantize one first
  std::vector<std::string> notes;
};

/// The launch lines of `c` (model `model`, schemes from `cat`) for vLLM, SGLang and
/// TensorRT-LLM, in that order.
std::vector<LaunchCommand> launchCommands(const DeployConfig& c, const ModelArch& model,
                                          const LaunchSettings& s,
                                          const Catalog& cat = Catalog::bundled());

/// {"vllm": {"command", "checkpoint", "checkpoint_to_make", "notes"}, ...}.
Json launchCommandsToJson(const std::vector<LaunchCommand>& commands);

}  // namespace qf
