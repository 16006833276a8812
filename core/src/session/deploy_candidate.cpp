// A deployment the search found, as a session candidate (deploy_candidate.hpp).
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/session/deploy_candidate.hpp>

#include <iomanip>
#include <sstream>

namespace qf {

Candidate candidateFromDeployment(const DeployConfig& c, const std::string& modelId,
                                  const DeployOptions& opts,
                                  const std::optional<Speculation>& speculation,
                                  const std::string& draftModelId) {
  Candidate k;
  std::ostringstream id;
  // One token, as the command line and CSV files want ids: h100-sxm-x2-tp2-w4a16-g128-kv-fp8-b256.
  id << c.gpu << "-x" << c.gpuCount << "-tp" << c.tp << "-" << c.schemeId() << "-kv-" << c.kvDtype
     << "-b" << c.maxBatch;
  if (c.ep > 1) id << "-ep" << c.ep;
  if (c.redundantExperts > 0) id << "-r" << c.redundantExperts;
  if (c.dpAttention) id << "-dpa";
  if (c.twoBatchOverlap) id << "-tbo";
  if (c.disaggregated()) {
    id << "-pd-p" << c.prefillTp << "x" << c.prefillReplicas;
    if (c.prefillEp > 1) id << "-ep" << c.prefillEp;
    if (c.prefillRedundantExperts > 0) id << "-r" << c.prefillRedundantExperts;
    if (c.prefillDpAttention) id << "-dpa";
    if (c.prefillTwoBatchOverlap) id << "-tbo";
    if (c.prefillGpu != c.gpu) id << "-" << c.prefillGpu;
    if (c.prefillSchemeId() != c.schemeId()) id << "-" << c.prefillSchemeId();
  }
  if (speculation) {
    id << (draftModelId.empty() ? "-mtp" : "-draft-" + draftModelId) << "-k"
       << speculation->draftTokens;
  }
  k.id = id.str();
  k.model = modelId;
  k.schemeLinear = c.linear;
  k.schemeMoe = c.moe;
  k.schemeLmHead = c.lmHead == c.linear ? "" : c.lmHead;
  k.gpu = c.gpu;
  k.gpuCount = c.gpuCount;
  std::string note =
      words("deployment search: ", c.replicas, " replica", c.replicas == 1 ? "" : "s", " of TP ",
            c.tp, c.layoutText().empty() ? "" : " (" + c.layoutText() + ")", ", KV ", c.kvDtype,
            ", batch cap ", c.maxBatch, "; ", opts.workload.inputTokens, " prompt + ",
            opts.workload.outputTokens, " output tokens at load ", deployLoadText(opts.load),
            " (concurrency capped by ", c.bindingLimit, ")");
  if (speculation) {
    note += words("; speculative decoding with ",
                  draftModelId.empty() ? std::string("the model's MTP layer")
                                       : "the draft model " + draftModelId,
                  ", ", speculation->draftTokens, " draft token",
                  speculation->draftTokens == 1 ? "" : "s", " a step at acceptance ",
                  fixedDecimals(speculation->acceptance, 2), " (",
                  fixedDecimals(expectedTokensPerStep(*speculation), 2),
                  " tokens a step): TTFT, TPOT and throughput are per accepted token");
  }
  k.notes = note;
  Provenance p;
  p.kind = ProvenanceKind::Modelled;
  p.note = note;
  auto put = [&](const char* name, double v) {
    MetricValue m;
    m.value = v;
    m.provenance = p;
    k.metrics[name] = m;
  };
  put("deploy_ttft_ms", c.ttftMs);
  put("deploy_tpot_ms", c.tpotMs);
  put("deploy_output_tok_s", c.outputTokS);
  put("usd_per_million_output_tokens", c.usdPerMillionOutputTokens);
  return k;
}

}  // namespace qf
