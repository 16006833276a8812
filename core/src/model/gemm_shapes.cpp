// The decode step's weight GEMMs, from the same architecture facts the parameter count uses.
#include <quantfront/core/model/gemm_shapes.hpp>

namespace qf {

std::vector<GemmShape> decodeGemmShapes(const ModelArch& m) {
  std::vector<GemmShape> out;
  const std::int64_t d = m.hidden;
  const std::int64_t layers = m.layers;
  const std::int64_t moeLayers = m.isMoe() ? m.moeLayerCount() : 0;
  const std::int64_t denseLayers = layers - moeLayers;
  if (m.mla) {
    const MlaDims& a = *m.mla;
    const std::int64_t qk = a.qkNopeHeadDim + a.qkRopeHeadDim;
    if (a.qLoraRank > 0) {
      out.push_back({"q_a_proj", a.qLoraRank, d, layers, GemmKind::Linear});
      out.push_back({"q_b_proj", m.heads * qk, a.qLoraRank, layers, GemmKind::Linear});
    } else {
      out.push_back({"q_proj", m.heads * qk, d, layers, GemmKind::Linear});
    }
    out.push_back({"kv_a_proj", a.kvLoraRank + a.qkRopeHeadDim, d, layers, GemmKind::Linear});
    out.push_back({"kv_b_proj", m.heads * (a.qkNopeHeadDim + a.vHeadDim), a.kvLoraRank, layers,
                   GemmKind::Linear});
    out.push_back({"o_proj", d, m.heads * a.vHeadDim, layers, GemmKind::Linear});
  } else {
    out.push_back({"q_proj", m.heads * m.headDim, d, layers, GemmKind::Linear});
    out.push_back({"kv_proj", 2 * m.kvHeads * m.headDim, d, layers, GemmKind::Linear});
    out.push_back({"o_proj", d, m.heads * m.headDim, layers, GemmKind::Linear});
  }
  if (denseLayers > 0 && m.intermediate > 0) {
    out.push_back({"gate_up_proj", 2 * m.intermediate, d, denseLayers, GemmKind::Linear});
    out.push_back({"down_proj", d, m.intermediate, denseLayers, GemmKind::Linear});
  }
  if (moeLayers > 0) {
    out.push_back({"router", m.experts, d, moeLayers, GemmKind::Linear});
    if (m.sharedExpertWidthTotal > 0) {
      out.push_back(
          {"shared_gate_up", 2 * m.sharedExpertWidthTotal, d, moeLayers, GemmKind::Linear});
      out.push_back({"shared_down", d, m.sharedExpertWidthTotal, moeLayers, GemmKind::Linear});
    }
    out.push_back({"expert_gate_up", 2 * m.expertWidth, d, moeLayers, GemmKind::Expert});
    out.push_back({"expert_down", d, m.expertWidth, moeLayers, GemmKind::Expert});
  }
  out.push_back({"lm_head", m.vocab, d, 1, GemmKind::LmHead});
  return out;
}

}  // namespace qf
