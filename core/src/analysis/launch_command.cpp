// Launch lines for a chosen deployment (see launch_command.hpp).
#include <quantfront/core/analysis/launch_command.hpp>
#include <quantfront/core/base/numbers.hpp>

#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/text.hpp>

namespace qf {

namespace {

/// Whether the checkpoint the model names already holds the configuration's schemes.
bool checkpointHolds(const ModelArch& m, const DeployConfig& c) {
  if (!m.checkpointQuant) return false;
  const CheckpointQuant& q = *m.checkpointQuant;
  if (q.perKind()) {
    return q.linearSchemeId == c.linear && (c.moe.empty() || q.moeSchemeId == c.moe) &&
           (c.lmHead.empty() || q.lmHeadSchemeId == c.lmHead);
  }
  const bool uniform =
      (c.moe.empty() || c.moe == c.linear) && (c.lmHead.empty() || c.lmHead == c.linear);
  return uniform && !q.schemeId.empty() && q.schemeId == c.linear;
}

struct Checkpoint {
  std::string argument;    ///< what the command names
  std::string onlineFlag;  ///< the engine's --quantization value, when it quantizes itself
  bool toMake = false;
  std::string note;
};

/// The model argument for one engine: the model's own checkpoint when it already is the
/// configuration (the baseline, or a quantized config.json), the model quantized by the engine
/// when the catalog says the engine can ("online_quantization"), else a checkpoint to make.
Checkpoint checkpointFor(const std::string& engine, const DeployConfig& c, const ModelArch& m,
                         const Catalog& cat) {
  const std::string name = m.name.empty() ? m.id : m.name;
  const bool uniform =
      (c.moe.empty() || c.moe == c.linear) && (c.lmHead.empty() || c.lmHead == c.linear);
  const bool quantized = m.checkpointQuant && !m.checkpointQuant->schemeId.empty();
  if (checkpointHolds(m, c) || (uniform && !quantized && c.linear == cat.baselineSchemeId()))
    return {name, "", false, ""};
  const SchemeEntry* e = cat.schemeEntry(c.linear);
  if (uniform && !quantized && e) {
    if (const auto it = e->onlineQuantization.find(engine); it != e->onlineQuantization.end())
      return {name, it->second, false,
              "the engine quantizes " + name + " to " + c.linear + " as it loads it"};
  }
  const std::string what = c.schemeId();
  Checkpoint k;
  k.argument = "<" + what + " checkpoint of " + name + ">";
  k.toMake = true;
  k.note = "no " + what + " checkpoint of " + name + " is known here: make one" +
           (e && !e->checkpointNote.empty() && uniform ? " (" + e->checkpointNote + ")" : "") +
           " and name its path in place of " + k.argument;
  return k;
}

}  // namespace

LaunchSettings launchSettingsFor(const DeploySpace& space, const ServingWorkload& w) {
  LaunchSettings s;
  s.memUtil = space.memUtil;
  s.tokenBudget = space.tokenBudget;
  s.maxModelLen = static_cast<std::int64_t>(std::ceil(w.inputTokens + w.outputTokens));
  s.speculation = space.speculation;
  if (space.draftModel) {
    s.draftModel = space.draftModel->name.empty() ? space.draftModel->id : space.draftModel->name;
  }
  return s;
}

namespace {

/// What every engine's command of one deployment shares, as flag values.
struct Flags {
  bool fp8Kv = false;
  std::string batch;      ///< the replica's batch cap
  std::string tokens;     ///< a rank's token budget
  std::string rankBatch;  ///< a rank's batch cap (the replica's over its DP ranks)
  std::string allTokens;  ///< the replica's token budget (its ranks' together)
  std::string len;        ///< the max model length, or empty
};

void vllmCommand(const DeployConfig& c, const Checkpoint& k, const LaunchSettings& s,
                 const Flags& f, std::ostringstream& cmd, LaunchCommand& lc) {
  // vLLM's DP attention is its data parallelism with tensor parallelism 1 inside the
  // replica; its expert parallelism spans every GPU of the replica's MoE layers.
  if (c.dpAttention) {
    cmd << "vllm serve " << k.argument << " --tensor-parallel-size 1 --data-parallel-size "
        << c.tp * c.replicas;
    if (c.replicas > 1)
      lc.notes.push_back("one DP group across the " + std::to_string(c.replicas) +
                         " replicas: vLLM runs data-parallel attention over all " +
                         std::to_string(c.tp * c.replicas) + " GPUs");
  } else {
    cmd << "vllm serve " << k.argument << " --tensor-parallel-size " << c.tp;
    if (c.replicas > 1) cmd << " --data-parallel-size " << c.replicas;
  }
  if (c.ep > 1) cmd << " --enable-expert-parallel";
  if (c.redundantExperts > 0) {
    cmd << " --enable-eplb --eplb-config '{\"num_redundant_experts\": " << c.redundantExperts
        << "}'";
    lc.notes.push_back("older vLLM releases take --num-redundant-experts " +
                       std::to_string(c.redundantExperts) + " instead of --eplb-config");
  }
  if (c.twoBatchOverlap) {
    cmd << " --enable-dbo";
    lc.notes.push_back(
        "vLLM's dual-batch overlap runs on a DeepEP all-to-all backend (--all2all-backend "
        "deepep_low_latency for decode, deepep_high_throughput for prefill; older releases: "
        "VLLM_ALL2ALL_BACKEND)");
  }
  if (c.ep > 1 && c.ep < c.tp)
    lc.notes.push_back("vLLM spreads the experts over all " + std::to_string(c.tp) +
                       " GPUs of the replica (EP " + std::to_string(c.tp) +
                       "); the model priced EP " + std::to_string(c.ep) +
                       ": SGLang's --ep-size sets it");
  cmd << " --max-num-seqs " << f.rankBatch << " --max-num-batched-tokens " << f.tokens
      << " --gpu-memory-utilization " << sigFigs(s.memUtil, 6);
  if (!f.len.empty()) cmd << " --max-model-len " << f.len;
  if (f.fp8Kv) cmd << " --kv-cache-dtype fp8";
  if (!k.onlineFlag.empty()) cmd << " --quantization " << k.onlineFlag;
}

void sglangCommand(const DeployConfig& c, const Checkpoint& k, const LaunchSettings& s,
                   const Flags& f, std::ostringstream& cmd, LaunchCommand& lc) {
  cmd << "python3 -m sglang.launch_server --model-path " << k.argument << " --tp-size " << c.tp;
  if (c.dpAttention) {
    cmd << " --dp-size " << c.tp << " --enable-dp-attention";
    if (c.replicas > 1)
      lc.notes.push_back("one server per replica: run " + std::to_string(c.replicas) +
                         " of these, each on its own " + std::to_string(c.tp) +
                         " GPUs, behind a load balancer");
  } else if (c.replicas > 1) {
    cmd << " --dp-size " << c.replicas;
  }
  if (c.ep > 1) cmd << " --ep-size " << c.ep;
  // The dense MLP and shared experts data-parallel too, as the model prices DP attention
  // (SGLang splits them over the replica's GPUs otherwise).
  if (c.dpAttention) cmd << " --moe-dense-tp-size 1";
  if (c.redundantExperts > 0)
    cmd << " --enable-eplb --ep-num-redundant-experts " << c.redundantExperts;
  if (c.twoBatchOverlap) cmd << " --enable-two-batch-overlap";
  cmd << " --max-running-requests " << f.batch << " --chunked-prefill-size " << f.allTokens
      << " --mem-fraction-static " << sigFigs(s.memUtil, 6);
  if (!f.len.empty()) cmd << " --context-length " << f.len;
  if (f.fp8Kv) cmd << " --kv-cache-dtype fp8_e4m3";
  if (!k.onlineFlag.empty()) cmd << " --quantization " << k.onlineFlag;
}

void trtllmCommand(const DeployConfig& c, const ModelArch& model, const Checkpoint& k,
                   const LaunchSettings& s, const Flags& f, std::ostringstream& cmd,
                   LaunchCommand& lc) {
  cmd << "trtllm-serve " << k.argument << " --tp_size " << c.tp;
  if (c.ep > 1) cmd << " --ep_size " << c.ep;
  cmd << " --max_batch_size " << f.rankBatch << " --max_num_tokens " << f.tokens
      << " --kv_cache_free_gpu_memory_fraction 0.9";
  if (!f.len.empty()) cmd << " --max_seq_len " << f.len;
  // Settings without a trtllm-serve flag go in its extra LLM API options file.
  std::vector<std::string> extra;
  if (f.fp8Kv) extra.push_back("kv_cache_config: {dtype: fp8}");
  if (c.dpAttention) extra.push_back("enable_attention_dp: true");
  // The redundant slots are the MoE load balancer's: its slots are the experts and them.
  if (c.redundantExperts > 0) {
    extra.push_back("moe_config: {load_balancer: {num_slots: " +
                    std::to_string(model.experts + c.redundantExperts) + "}}");
  }
  if (!extra.empty()) {
    const std::string file = extra.size() > 1 ? "extra_options.yml"
                             : f.fp8Kv        ? "kv_fp8.yml"
                             : c.dpAttention  ? "attention_dp.yml"
                                              : "moe_load_balancer.yml";
    cmd << " --extra_llm_api_options " << file;
    std::string lines;
    for (const auto& x : extra) lines += (lines.empty() ? "'" : "', '") + x;
    lc.notes.push_back(file + " holds what trtllm-serve has no flag for: " + lines + "'");
  }
  if (c.replicas > 1)
    lc.notes.push_back("one server per replica: run " + std::to_string(c.replicas) +
                       " of these, each on its own " + std::to_string(c.tp) +
                       " GPU(s), behind a load balancer");
  if (c.twoBatchOverlap)
    lc.notes.push_back(
        "priced with two-batch overlap (the all-to-all under a second micro-batch's work, as "
        "SGLang and vLLM run it); this line sets no such option, so TensorRT-LLM may be slower");
  lc.notes.push_back(
      "TensorRT-LLM sizes its KV cache as 0.9 of the memory the weights "
      "leave; the model priced vLLM's rule (memory x " +
      sigFigs(s.memUtil, 6) + " - reserve), so it may admit more sequences");
}

/// How engine `e` runs the speculation the deployment was priced with (empty: none).
std::string speculationNote(const std::string& e, const LaunchSettings& s) {
  if (!s.speculation) return {};
  if (s.draftModel.empty()) {
    return "priced with speculative decoding by the model's MTP layer, " +
           std::to_string(s.speculation->draftTokens) +
           " draft tokens a step: enable the engine's MTP speculative decoding (vLLM "
           "--speculative-config, SGLang --speculative-algorithm) with that many tokens, and a "
           "token budget of at least the batch cap x " +
           std::to_string(s.speculation->draftTokens + 1);
  }
  const std::string draftK = std::to_string(s.speculation->draftTokens);
  const std::string how =
      e == "vllm" ? "--speculative-config '{\"model\": \"" + s.draftModel +
                        "\", \"num_speculative_tokens\": " + draftK + "}'"
      : e == "sglang"
          ? "--speculative-algorithm STANDALONE --speculative-draft-model-path " + s.draftModel +
                " --speculative-num-steps " + draftK +
                " --speculative-eagle-topk 1 --speculative-num-draft-tokens " +
                std::to_string(s.speculation->draftTokens + 1)
          : "speculative_config with decoding_type DraftTarget, speculative_model_dir " +
                s.draftModel + " and max_draft_len " + draftK + " in its extra options file";
  return "priced with speculative decoding by the draft model " + s.draftModel +
         " (bf16, on the same GPUs), " + draftK + " draft tokens a step: " + how +
         ", and a token budget of at least the batch cap x " +
         std::to_string(s.speculation->draftTokens + 1);
}

/// How engine `e` runs a disaggregated deployment: this line its decode pool, the prefill
/// pool's own command where it differs, and how to join them.
std::string disaggregationNote(const std::string& e, const DeployConfig& c, const ModelArch& model,
                               const LaunchSettings& s, const Catalog& cat) {
  const std::string how =
      e == "vllm"     ? "both pools with --kv-transfer-config (a KV connector such as "
                        "NixlConnector) behind a proxy that sends each request to prefill, "
                        "then decode"
      : e == "sglang" ? "the decode pool with --disaggregation-mode decode, the prefill pool "
                        "with --disaggregation-mode prefill, and the router in front"
                      : "trtllm-serve disaggregated -c with a config naming both pools";
  // A prefill pool on another GPU or in other schemes runs its own command.
  const DeployConfig prefill = c.prefillPool();
  std::string itsLine = " with the same checkpoint";
  if (prefill.gpu != c.gpu || prefill.schemeId() != c.schemeId() ||
      prefill.layout() != c.layout()) {
    for (const auto& p : launchCommands(prefill, model, s, cat)) {
      if (p.engine == e)
        itsLine = " on " + prefill.gpu + " in " + prefill.schemeId() +
                  (prefill.layoutText().empty() ? "" : ", " + prefill.layoutText()) + ": " +
                  p.command;
    }
  }
  return "disaggregated: this line is the decode pool (" + std::to_string(c.replicas) + " x TP " +
         std::to_string(c.tp) + "); run a prefill pool of " + std::to_string(c.prefillReplicas) +
         " x TP " + std::to_string(c.prefillTp) + itsLine + ", and join them: " + how;
}

}  // namespace

std::vector<LaunchCommand> launchCommands(const DeployConfig& c, const ModelArch& model,
                                          const LaunchSettings& s, const Catalog& cat) {
  Flags f;
  f.fp8Kv = asciiLower(c.kvDtype).rfind("fp8", 0) == 0;
  f.batch = std::to_string(c.maxBatch);
  f.tokens = sigFigs(std::round(s.tokenBudget), 6);
  // Under DP attention the replica's cap is its ranks' together, and the token budget a
  // rank's (schedulerRanks): vLLM and TensorRT-LLM take both per rank, SGLang both in total
  // (it divides --chunked-prefill-size by --dp-size).
  const int ranks = schedulerRanks(c.tp, c.dpAttention);
  f.rankBatch = std::to_string(std::max(1, c.maxBatch / ranks));
  f.allTokens = sigFigs(std::round(s.tokenBudget) * ranks, 6);
  f.len = s.maxModelLen > 0 ? std::to_string(s.maxModelLen) : std::string();
  std::vector<LaunchCommand> out;
  for (const char* engine : {"vllm", "sglang", "trtllm"}) {
    const Checkpoint k = checkpointFor(engine, c, model, cat);
    LaunchCommand lc;
    lc.engine = engine;
    lc.checkpoint = k.argument;
    lc.checkpointToMake = k.toMake;
    if (!k.note.empty()) lc.notes.push_back(k.note);
    std::ostringstream cmd;
    const std::string e = engine;
    if (e == "vllm") {
      vllmCommand(c, k, s, f, cmd, lc);
    } else if (e == "sglang") {
      sglangCommand(c, k, s, f, cmd, lc);
    } else {
      trtllmCommand(c, model, k, s, f, cmd, lc);
    }
    if (std::string note = speculationNote(e, s); !note.empty()) lc.notes.push_back(note);
    if (c.disaggregated()) lc.notes.push_back(disaggregationNote(e, c, model, s, cat));
    lc.command = cmd.str();
    out.push_back(std::move(lc));
  }
  return out;
}

Json launchCommandsToJson(const std::vector<LaunchCommand>& commands) {
  Json j = Json::object();
  for (const auto& lc : commands) {
    j[lc.engine] = {{"command", lc.command},
                    {"checkpoint", lc.checkpoint},
                    {"checkpoint_to_make", lc.checkpointToMake},
                    {"notes", lc.notes}};
  }
  return j;
}

}  // namespace qf
