#pragma once
/// What `qfront serving` and `qfront model` share for speculative decoding: --spec-k,
/// --spec-acceptance and --spec-draft, parsed and checked, and the draft they name.
#include <optional>
#include <ostream>
#include <string>
#include <utility>

#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/model/speculation.hpp>

namespace qf::cli {

/// The three options as given (unset when absent).
struct SpeculationArgs {
  std::optional<std::string> k, acceptance, draft;
  [[nodiscard]] bool any() const { return k || acceptance || draft; }
};

/// The speculation the options ask for: nullopt with rc unchanged when none is given; on bad
/// input (one missing, k outside 1..15, an acceptance outside (0, 1], a from:FILE without an
/// accept length k drafts can yield) prints one line, sets rc and returns nullopt. An
/// acceptance read off a file says so in `acceptanceSource` (else it is left empty).
std::optional<Speculation> speculationOption(const SpeculationArgs& a, std::ostream& err, int& rc,
                                             std::string* acceptanceSource = nullptr);

/// Where the acceptance came from, as the JSON outputs say it: "given", or the run it was read
/// off (--spec-acceptance from:FILE).
Json acceptanceSourceJson(const std::string& source);

/// The draft model `draftId` names on the target's GPUs, with the target's constants and
/// memory rule, and its candidate (bf16). On bad input prints one line, sets rc, nullopt.
std::optional<std::pair<Scenario, SchemeAssignment>> draftScenario(const ScenarioSpec& spec,
                                                                   const Scenario& target,
                                                                   const std::string& draftId,
                                                                   std::ostream& err, int& rc);

/// A draft model (not "mtp") for a target on `spec`'s GPUs and TP: its bf16 engine there, with
/// the target's constants. Errors (printed, rc set): an unknown model, the target itself.
/// Whether it fits beside the target is speculativeServing's to say.
std::optional<SpeculativeDraft> draftModel(const ScenarioSpec& spec, const Scenario& target,
                                           const std::string& draftId, std::ostream& err, int& rc);

}  // namespace qf::cli
