// A deployment in words and as JSON: the search's load, a configuration's scheme and layout
// texts, its prefill pool, and the search's result for `qfront search --format json`
// (deploy_search.hpp; docs/model.md, "Deployment search").
#include <quantfront/core/analysis/deploy_search.hpp>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/base/version.hpp>

namespace qf {

std::string deployLoadText(const DeployLoad& l) {
  switch (l.kind) {
    case DeployLoad::Kind::Sync:
      return "sync";
    case DeployLoad::Kind::Max:
      return "max";
    case DeployLoad::Kind::Rate:
      return sigFigs(l.requestsPerS, 6) + " req/s";
  }
  return "";
}

std::string DeployConfig::layoutText() const {
  std::string out = ep > 1 ? "EP " + std::to_string(ep) : std::string();
  if (redundantExperts > 0) out += " with " + std::to_string(redundantExperts) + " redundant slots";
  if (dpAttention) out += (out.empty() ? "" : ", ") + std::string("DP attention");
  if (twoBatchOverlap) out += ", two-batch overlap";
  if (disaggregated()) {
    out += (out.empty() ? "" : ", ") + std::string("prefill pool ") + std::to_string(prefillTp) +
           " × " + std::to_string(prefillReplicas);
    if (const std::string its = prefillPool().layoutText(); !its.empty()) out += " (" + its + ")";
    if (prefillGpu != gpu) out += " on " + prefillGpu;
    if (prefillSchemeId() != schemeId()) out += " in " + prefillSchemeId();
  }
  return out;
}

std::string DeployConfig::prefillSchemeId() const {
  return disaggregated() ? prefillPool().schemeId() : std::string();
}

DeployConfig DeployConfig::prefillPool() const {
  DeployConfig p;
  p.gpu = prefillGpu;
  p.tp = prefillTp;
  p.replicas = prefillReplicas;
  p.gpuCount = prefillTp * prefillReplicas;
  p.linear = prefillLinear;
  p.moe = prefillMoe;
  p.lmHead = prefillLmHead;
  p.kvDtype = kvDtype;
  p.maxBatch = maxBatch;
  p.setLayout(prefillLayout());
  return p;
}

void DeployConfig::setLayout(const MoeLayout& l) {
  ep = l.ep;
  dpAttention = l.dpAttention;
  redundantExperts = l.redundantExperts;
  twoBatchOverlap = l.twoBatchOverlap;
}

void DeployConfig::setPrefillLayout(const MoeLayout& l) {
  prefillEp = l.ep;
  prefillDpAttention = l.dpAttention;
  prefillRedundantExperts = l.redundantExperts;
  prefillTwoBatchOverlap = l.twoBatchOverlap;
}

MoeLayout DeployConfig::prefillLayout() const {
  MoeLayout l{prefillEp, prefillDpAttention};
  l.redundantExperts = prefillRedundantExperts;
  l.twoBatchOverlap = prefillTwoBatchOverlap;
  return l;
}

MoeLayout DeployConfig::layout() const {
  MoeLayout l{ep, dpAttention};
  l.redundantExperts = redundantExperts;
  l.twoBatchOverlap = twoBatchOverlap;
  return l;
}

std::string DeployConfig::schemeId() const {
  const bool uniform = (moe.empty() || moe == linear) && lmHead == linear;
  if (uniform) return linear;
  std::string id = "linear=" + linear;
  if (!moe.empty()) id += ",moe=" + moe;
  return id + ",lm_head=" + lmHead;
}

namespace {
Json configJson(const DeployConfig& c) {
  return Json{
      {"gpu", c.gpu},
      {"gpu_count", c.gpuCount},
      {"tp", c.tp},
      {"replicas", c.replicas},
      {"ep", c.ep},
      {"redundant_experts", c.redundantExperts},
      {"dp_attention", c.dpAttention},
      {"two_batch_overlap", c.twoBatchOverlap},
      {"schemes",
       {{"linear", c.linear},
        {"moe", c.moe.empty() ? Json(nullptr) : Json(c.moe)},
        {"lm_head", c.lmHead}}},
      {"scheme_id", c.schemeId()},
      {"kv_dtype", c.kvDtype},
      {"max_batch", c.maxBatch},
      {"ttft_ms", c.ttftMs},
      {"tpot_ms", c.tpotMs},
      {"output_tok_s", c.outputTokS},
      {"usd_per_million_output_tokens", c.usdPerMillionOutputTokens},
      {"usd_per_hour", c.pricePerHourUsd},
      {"binding_limit", c.bindingLimit},
      {"prefill_tp", c.disaggregated() ? Json(c.prefillTp) : Json(nullptr)},
      {"prefill_ep", c.disaggregated() ? Json(c.prefillEp) : Json(nullptr)},
      {"prefill_dp_attention", c.disaggregated() ? Json(c.prefillDpAttention) : Json(nullptr)},
      {"prefill_redundant_experts",
       c.disaggregated() ? Json(c.prefillRedundantExperts) : Json(nullptr)},
      {"prefill_two_batch_overlap",
       c.disaggregated() ? Json(c.prefillTwoBatchOverlap) : Json(nullptr)},
      {"prefill_replicas", c.disaggregated() ? Json(c.prefillReplicas) : Json(nullptr)},
      {"prefill_gpu", c.disaggregated() ? Json(c.prefillGpu) : Json(nullptr)},
      {"prefill_schemes",
       c.disaggregated() ? Json{{"linear", c.prefillLinear},
                                {"moe", c.prefillMoe.empty() ? Json(nullptr) : Json(c.prefillMoe)},
                                {"lm_head", c.prefillLmHead}}
                         : Json(nullptr)},
      {"prefill_scheme_id", c.disaggregated() ? Json(c.prefillSchemeId()) : Json(nullptr)},
      {"kv_transfer_ms", c.disaggregated() ? Json(c.kvTransferMs) : Json(nullptr)}};
}
}  // namespace

Json deployResultToJson(const DeployResult& r, const DeployOptions& o) {
  Json j;
  stampOutput(j);
  j["load"] = deployLoadText(o.load);
  j["input_len"] = o.workload.inputTokens;
  j["output_len"] = o.workload.outputTokens;
  j["latency_axis"] = o.axis == LatencyAxis::Tpot ? "tpot" : "ttft";
  j["slo"] = {{"ttft_ms", o.sloTtftMs > 0 ? Json(o.sloTtftMs) : Json(nullptr)},
              {"tpot_ms", o.sloTpotMs > 0 ? Json(o.sloTpotMs) : Json(nullptr)}};
  j["space"] = r.space;
  j["evaluated"] = r.evaluated;
  j["feasible"] = r.feasible;
  j["rejected"] = {{"memory", r.rejectedMemory},
                   {"load", r.rejectedLoad},
                   {"ttft", r.rejectedTtft},
                   {"tpot", r.rejectedTpot},
                   {"gate", r.rejectedGate}};
  j["skipped_dominated"] = r.skippedDominated;
  j["frontier"] = Json::array();
  for (const auto& c : r.frontier) j["frontier"].push_back(configJson(c));
  j["best"] = r.best ? configJson(*r.best) : Json(nullptr);
  if (!r.nothingFeasible.empty()) j["message"] = "nothing feasible: " + r.nothingFeasible;
  return j;
}

}  // namespace qf
