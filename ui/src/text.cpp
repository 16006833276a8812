// How the window words core's references to the user's settings.
#include "text.hpp"

#include <map>

namespace qf::ui {

std::string windowWording(std::string_view optionId) {
  // Each setting a message from core can name, as the window's control that sets it.
  static const std::map<std::string_view, std::string_view> kControls = {
      {"model", "Model (scenario panel)"},
      {"gpu", "GPU (scenario panel; for a run: Measured on, in Attach runs to a candidate)"},
      {"tp", "GPUs (TP) (scenario panel; for a run: GPUs, in Attach runs to a candidate)"},
      {"scheme", "Scheme (Attach runs to a candidate, Evidence tab)"},
      {"candidate", "Attach to candidate… (Evidence tab)"},
      {"input-len", "Prompt tokens"},
      {"output-len", "Output tokens"},
      {"batch", "the run's batch (Attach runs to a candidate, Evidence tab)"},
      {"baseline", "Baseline (Pareto tab)"},
      {"max-gpus", "Most GPUs (Deploy tab)"},
      {"price", "a price per GPU-hour (GPU file)"},
      {"skip-unpriced", "GPUs (priced ones) (Deploy tab)"},
      {"dp-attention", "DP attention (Deploy tab)"},
      {"two-batch-overlap", "MoE: also two-batch overlap (Deploy tab)"},
      {"device", "the device (Measure dialog)"},
      {"objectives", "Objectives (Pareto tab)"},
      {"check", "the held-out check (File › Calibrate…)"},
  };
  const auto it = kControls.find(optionId);
  return it != kControls.end() ? std::string(it->second) : "--" + std::string(optionId);
}

}  // namespace qf::ui
