// The collectives a step curve prices (collectives.hpp).
#include "collectives.hpp"

#include <algorithm>
#include <cmath>

namespace qf::detail {

std::optional<Error> setCollectives(const Scenario& s, double moeLayers, StepCurve& curve) {
  const ModelArch& m = s.model;
  const Efficiency& eff = s.efficiency;
  const double tp = static_cast<double>(s.tp);
  if (s.tp > 1) {
    if (!s.gpu.nvlinkGBps) {
      return Error{s.gpu.id.empty() ? s.gpu.name : s.gpu.id, "", "nvlink_gbs",
                   "tensor parallelism needs an interconnect bandwidth; this GPU entry has none "
                   "(add nvlink_gbs to a GPU file)"};
    }
    const double bytesPerSeq = static_cast<double>(m.hidden) * 2.0;
    // A ring all-reduce sends and receives 2(TP−1)/TP of the message on every GPU at once;
    // nvlink_gbs is the datasheet's total of both directions, so each way carries half.
    const double nvlinkPerDirection = *s.gpu.nvlinkGBps * 1e9 / 2.0;
    // A replica wider than its NVLink domain (two HGX nodes and more) rings through the
    // network too. NCCL runs one ring (channel) per NIC, each crossing between domains on its
    // own GPU's NIC and carrying its share of the message, so the crossing runs at the NICs
    // of the replica's smallest domain together (8 × 50 GB/s between two HGX H100 nodes; a
    // part-filled last domain has fewer) and a GPU's NVLink carries every ring: the slower of
    // the two sets the time (docs/model.md, "Replicas wider than one NVLink domain").
    const int domain = std::max(1, s.gpu.nvlinkDomainGpus);
    const bool acrossDomains = s.tp > domain;
    const int crossingNics = s.tp % domain == 0 ? domain : s.tp % domain;
    const double networkPerDirection = s.gpu.networkGBps * 1e9;
    const double perDirection =
        acrossDomains ? std::min(nvlinkPerDirection, crossingNics * networkPerDirection)
                      : nvlinkPerDirection;
    const double perAllReduce = 2.0 * (tp - 1.0) / tp * bytesPerSeq / perDirection;
    const double alpha = eff.allreduceLatencyUs * 1e-6;
    const double layers = static_cast<double>(m.layers);
    if (!s.dpAttention) {
      curve.allReduceS.c1 = layers * 2.0 * perAllReduce;
      // Two all-reduce calls per layer each pay a fixed time α whatever the batch.
      curve.allReduceS.c0 = layers * 2.0 * alpha;
    } else {
      // DP attention: every GPU runs the dense part whole on its own sequences, so attention
      // and dense MLP layers send nothing. A MoE layer with ep = tp sends each of a GPU's
      // 1/tp of the tokens to its k experts and back (all-to-all dispatch and combine,
      // (tp−1)/tp of them remote; dispatched in FP8 with a 4-byte scale a 128 values where
      // the experts run FP8 GEMMs, as DeepEP and vLLM's all-to-all kernels quantize before
      // sending, else bf16; combined in bf16); with ep < tp it gathers the tokens and
      // scatters the sums back (an all-reduce's bytes, one call each way).
      double perSeq = 0;
      if (s.ep == s.tp) {
        const auto& moeKind = curve.kinds[static_cast<std::size_t>(LayerKind::Moe)];
        const double dispatchBytes =
            static_cast<double>(m.hidden) *
            (moeKind.effectivePath == TensorPath::Fp8 ? 1.0 + 4.0 / 128.0 : 2.0);
        // Of a token's k copies, (g − 1)/TP go to the other GPUs of its NVLink domain (g GPUs)
        // and (TP − g)/TP across the network, both at once: the slower side sets the time.
        const double g = std::min(tp, static_cast<double>(domain));
        auto allToAll = [&](double bytesPerCopy) {
          const double perToken = static_cast<double>(m.expertsPerToken) * bytesPerCopy;
          const double onLink = perToken * (g - 1.0) / tp / nvlinkPerDirection;
          const double offLink = perToken * (tp - g) / tp / networkPerDirection;
          return std::max(onLink, offLink) / tp;
        };
        perSeq += moeLayers * (allToAll(dispatchBytes) + allToAll(bytesPerSeq));
      } else {
        perSeq += moeLayers * perAllReduce;
      }
      const double fixed = moeLayers * 2.0 * alpha;
      if (s.twoBatchOverlap) {
        // Two-batch overlap: each micro-batch makes its own calls; their bytes move under the
        // other micro-batch's work, and a step pays the longer of the two (StepCurve).
        curve.overlapS.c1 = perSeq;
        curve.allReduceS.c0 = 2.0 * fixed;
      } else {
        curve.allReduceS.c1 = perSeq;
        curve.allReduceS.c0 = fixed;
      }
    }
    curve.token.allReduceSPerToken = curve.allReduceS.c1 + curve.overlapS.c1;
  }
  return std::nullopt;
}

}  // namespace qf::detail
