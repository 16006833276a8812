#pragma once
/// A configuration the deployment search found, as a candidate of the session, so a chosen
/// deployment joins the Pareto and Candidates views and the report.
#include <optional>
#include <string>

#include <quantfront/core/analysis/deploy_search.hpp>
#include <quantfront/core/base/records.hpp>
#include <quantfront/core/model/speculation.hpp>

namespace qf {

/// The candidate of `modelId` deployed as `c`: its id names the configuration ("h100-sxm x2
/// tp2 w4a16-g128 kv fp8 b64"), its schemes, GPU and count are the configuration's, and the
/// search's steady-state figures become modelled metrics (deploy_ttft_ms, deploy_tpot_ms,
/// deploy_output_tok_s, usd_per_million_output_tokens) whose provenance names the search's
/// workload and load. A search priced under speculative decoding (`speculation`, the space's)
/// found figures per accepted token: the id gains "-mtp-k<k>" (a draft model's: "-draft-<id>-
/// k<k>", `draftModelId`) and the provenance names the draft, k, the acceptance and the tokens
/// a step, so the candidate is never read as plain decoding.
Candidate candidateFromDeployment(const DeployConfig& c, const std::string& modelId,
                                  const DeployOptions& opts,
                                  const std::optional<Speculation>& speculation = std::nullopt,
                                  const std::string& draftModelId = "");

}  // namespace qf
