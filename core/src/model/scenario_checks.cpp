// What a scenario must satisfy before the engine prices it: a tensor-parallel degree the
// model's heads and widths split under, an MoE layout the replica can hold, a request the
// model's context takes, and every figure and constant in its range (engine.hpp).
#include <quantfront/core/model/engine.hpp>

#include <quantfront/core/base/numbers.hpp>

#include <algorithm>
#include <cmath>

namespace qf {

namespace {
/// The first figure of `m` that degree `tp` does not split as the engines shard it, in words.
/// What `tp` GPUs cannot split evenly. Under DP attention the heads are not split (each GPU
/// runs attention whole for its own sequences); under EP each expert is split over tp/ep.
std::optional<std::string> tpMismatch(const ModelArch& m, std::int64_t tp, bool dpAttention = false,
                                      std::int64_t ep = 1) {
  auto num = [](std::int64_t v) { return std::to_string(v); };
  if (!dpAttention) {
    if (m.heads > 0 && m.heads % tp != 0) return num(m.heads) + " attention heads";
    if (m.kvHeads > 0 && m.kvHeads % tp != 0 && tp % m.kvHeads != 0) {
      return num(m.kvHeads) + " KV heads (neither split evenly nor replicated whole)";
    }
  }
  // Under DP attention each GPU runs the dense MLP whole.
  if (!dpAttention && m.intermediate > 0 && m.intermediate % tp != 0)
    return "MLP width of " + num(m.intermediate);
  const std::int64_t expertSplit = ep > 0 && tp % ep == 0 ? tp / ep : tp;
  if (m.isMoe() && m.expertWidth > 0 && m.expertWidth % expertSplit != 0)
    return "expert width of " + num(m.expertWidth);
  return std::nullopt;
}
}  // namespace

namespace {
/// EP and DP attention as the engines allow them (docs/model.md, "Expert parallelism and DP
/// attention"): fields "ep", "dp-attention", "expert-imbalance", "two-batch-overlap".
std::optional<Error> checkMoeParallel(const Scenario& s) {
  auto bad = [](const std::string& field, const std::string& msg) {
    return std::optional<Error>(Error{"", "", field, msg});
  };
  const ModelArch& m = s.model;
  const std::string name = m.name.empty() ? m.id : m.name;
  if (s.ep < 1) return bad("ep", "expert-parallel degree must be at least 1");
  if (s.ep > 1 && !m.isMoe())
    return bad("ep", name + " has no routed experts: expert parallelism does not apply");
  if (s.tp % s.ep != 0) {
    return bad("ep", "expert-parallel degree " + std::to_string(s.ep) +
                         " must divide the tensor-parallel degree " + std::to_string(s.tp) +
                         " (the replica's GPUs)");
  }
  if (s.redundantExperts < 0 || s.redundantExperts > 1024)
    return bad("redundant-experts", "must be from 0 to 1024");
  if (s.redundantExperts > 0 && s.ep < 2) {
    return bad("redundant-experts",
               "redundant expert slots need expert parallelism ({--ep} of at least 2)");
  }
  const int slots = static_cast<int>(m.experts) + s.redundantExperts;
  if (s.ep > 1 && slots % s.ep != 0) {
    return bad("ep", "expert-parallel degree " + std::to_string(s.ep) + " does not divide " + name +
                         "'s " + std::to_string(m.experts) + " routed experts" +
                         (s.redundantExperts > 0
                              ? " and " + std::to_string(s.redundantExperts) + " redundant slots"
                              : std::string(" (redundant slots, {--redundant-experts}, can make "
                                            "up the difference)")));
  }
  if (s.dpAttention && !m.isMoe()) {
    return bad("dp-attention", name +
                                   " has no routed experts: DP attention applies to MoE models "
                                   "(a dense model's data parallelism is more replicas)");
  }
  if (s.dpAttention && s.tp < 2)
    return bad("dp-attention", "DP attention needs at least 2 GPUs per replica ({--tp})");
  if (s.twoBatchOverlap && !(s.dpAttention && s.ep == s.tp)) {
    return bad("two-batch-overlap",
               "two-batch overlap hides the all-to-all of expert parallelism under DP attention: "
               "it needs {--dp-attention} and {--ep} equal to {--tp} (" +
                   std::to_string(s.ep) + " and " + std::to_string(s.tp) + " here)");
  }
  if (!(s.expertImbalance >= 1.0 && s.expertImbalance <= 64.0))
    return bad("expert-imbalance",
               "must be in [1, 64] (the busiest GPU's expert work over the mean)");
  return std::nullopt;
}
}  // namespace

std::optional<Error> checkTensorParallel(const ModelArch& model, int tp) {
  if (tp < 1) return Error{"", "", "tp", "tensor-parallel degree must be at least 1"};
  const auto why = tpMismatch(model, tp);
  if (!why) return std::nullopt;
  std::string ok;
  for (int t = 1; t <= 64; ++t) {
    if (!tpMismatch(model, t)) ok += (ok.empty() ? "" : ", ") + std::to_string(t);
  }
  const std::string name = model.name.empty() ? model.id : model.name;
  return Error{"", "", "tp",
               "tensor-parallel degree " + std::to_string(tp) + " does not split " + name + "'s " +
                   *why +
                   " (serving engines shard them evenly over the GPUs); degrees that do: " + ok};
}

std::optional<Error> checkTensorParallel(const ModelArch& model, int tp, bool dpAttention, int ep) {
  if (!dpAttention && ep <= 1) return checkTensorParallel(model, tp);
  if (tp < 1) return Error{"", "", "tp", "tensor-parallel degree must be at least 1"};
  if (const auto why = tpMismatch(model, tp, dpAttention, ep)) {
    const std::string name = model.name.empty() ? model.id : model.name;
    return Error{"", "", "tp",
                 "tensor-parallel degree " + std::to_string(tp) + " does not split " + name +
                     "'s " + *why + " under this expert-parallel layout"};
  }
  return std::nullopt;
}

std::optional<Error> checkRequestLength(const ModelArch& model, double inputTokens,
                                        double outputTokens) {
  const double total = inputTokens + outputTokens;
  if (model.maxPositions <= 0 || !(total > static_cast<double>(model.maxPositions))) {
    return std::nullopt;
  }
  return Error{"", "", "input-len",
               "a request of " + sigFigs(inputTokens, 12) + " + " + sigFigs(outputTokens, 12) +
                   " tokens is longer than " + (model.name.empty() ? model.id : model.name) +
                   "'s context of " + std::to_string(model.maxPositions) +
                   " tokens (max_position_embeddings), which serving engines refuse"};
}

std::optional<Error> validateScenario(const Scenario& s) {
  auto bad = [](const std::string& field, const std::string& msg) {
    return std::optional<Error>(Error{"", "", field, msg});
  };
  // Under DP attention or EP the layout decides what the GPUs split (tpMismatch), once the
  // layout itself holds.
  if (s.dpAttention || s.ep > 1) {
    if (auto e = checkMoeParallel(s)) return e;
    if (auto e = checkTensorParallel(s.model, s.tp, s.dpAttention, s.ep)) return e;
  } else if (auto e = checkTensorParallel(s.model, s.tp)) {
    return e;
  } else if (auto e2 = checkMoeParallel(s)) {
    return e2;
  }
  if (auto e = checkRequestLength(s.model, static_cast<double>(s.inputLen),
                                  static_cast<double>(s.outputLen))) {
    return e;
  }
  if (s.maxModelLen < 1) return bad("max-model-len", "must be at least 1 token");
  if (!(s.kvBytesPerElement > 0) || !std::isfinite(s.kvBytesPerElement))
    return bad("kv-dtype", "KV bytes per element must be positive");
  if (!(s.memUtil > 0 && s.memUtil <= 1)) return bad("mem-util", "must be in (0, 1]");
  if (!(s.kvFreeFraction >= 0 && s.kvFreeFraction <= 1))
    return bad("kv-free-fraction", "must be in [0, 1]");
  if (!(s.reserveGib >= 0) || !std::isfinite(s.reserveGib))
    return bad("reserve-gib", "must be a finite number >= 0");
  if (s.contextTokens < 0) return bad("context", "must not be negative");
  const Efficiency& e = s.efficiency;
  if (!(e.overheadMs >= 0 && e.overheadMs <= kMaxOverheadMs))
    return bad("overhead-ms", "must be in [0, 1000] ms");
  if (!(e.bandwidthEff > 0 && e.bandwidthEff <= kMaxEfficiency))
    return bad("bw-eff", "must be in (0, 1.5]");
  if (!(e.seqOverheadUs >= 0 && e.seqOverheadUs <= kMaxSeqOverheadUs))
    return bad("seq-overhead-us", "must be in [0, 10000] us");
  if (!(e.allreduceLatencyUs >= 0 && e.allreduceLatencyUs <= kMaxAllreduceLatencyUs))
    return bad("allreduce-us", "must be in [0, 10000] us");
  if (!(e.gemmMHalf >= 0 && e.gemmMHalf <= kMaxGemmMHalf))
    return bad("gemm-m-half", "must be in [0, 4096] rows");
  if (!(e.tpWidthHalf >= 0 && e.tpWidthHalf <= kMaxTpWidthHalf))
    return bad("tp-width-half", "must be in [0, 65536]");
  if (!(e.requestOverheadMs >= 0 && e.requestOverheadMs <= kMaxRequestOverheadMs))
    return bad("request-overhead-ms", "must be in [0, 10000] ms");
  for (const auto& [key, v] : e.computeEff) {
    if (!(v > 0 && v <= kMaxEfficiency))
      return bad("compute-eff", "efficiency of " + key + " must be in (0, 1.5]");
  }
  for (const auto& [key, v] : e.kernelBandwidthEff) {
    if (!(v > 0 && v <= kMaxEfficiency))
      return bad("kernel-bw-eff", "kernel bandwidth efficiency of " + key + " must be in (0, 1.5]");
  }
  for (const auto& [key, v] : e.attentionBandwidthEff) {
    if (!(v > 0 && v <= kMaxEfficiency) || (key != "fp8" && key != "bf16"))
      return bad("attention-bw-eff", "attention bandwidth efficiency of " + key +
                                         " must be in (0, 1.5], keyed by KV dtype fp8 or bf16");
  }
  for (const auto& [key, v] : e.dequantSPerWeight) {
    if (!(v >= 0 && v <= kMaxDequantSPerWeight)) {
      return bad("dequant-s-per-weight",
                 "dequant cost of " + key + " must be in [0, 1e-6] s per weight");
    }
  }
  if (s.maxModelLen > kMaxScenarioTokens)
    return bad("max-model-len", "must be at most 2^40 tokens");
  if (s.contextTokens > kMaxScenarioTokens) return bad("context", "must be at most 2^40 tokens");
  // The KV budget: memory·u − reserve (under TensorRT-LLM's rule, memory − reserve) must
  // leave something.
  const double budget = s.gpu.memoryGib * (s.kvFreeFraction > 0 ? 1.0 : s.memUtil) - s.reserveGib;
  if (!(budget > 0)) {
    return bad("reserve-gib",
               "reserve of " + sigFigs(s.reserveGib, 6) + " GiB leaves no KV budget: memory_gib " +
                   sigFigs(s.gpu.memoryGib, 6) + " x mem-util " + sigFigs(s.memUtil, 6) + " = " +
                   sigFigs(s.gpu.memoryGib * s.memUtil, 6) + " GiB");
  }
  return std::nullopt;
}

}  // namespace qf
