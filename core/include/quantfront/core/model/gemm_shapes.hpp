#pragma once
/// The weight GEMMs one decode step runs, per layer kind: what `qfront-measure` times on a
/// GPU and what the measured step time sums (C[M,N] = A[M,K]·W[N,K]ᵀ, M = tokens in the batch).
#include <cstdint>
#include <string>
#include <vector>

#include <quantfront/core/model/model_config.hpp>

namespace qf {

/// Which layer kind a GEMM belongs to (model.md's QuantSpec split).
enum class GemmKind { Linear, Expert, LmHead };

/// One weight matrix shape and how many of it one decode step multiplies.
struct GemmShape {
  std::string name;        ///< "q_proj", "kv_proj", "o_proj", "gate_up_proj", "down_proj",
                           ///< "expert_gate_up", "expert_down", "lm_head", ...
  std::int64_t n = 0;      ///< output features (rows of W)
  std::int64_t k = 0;      ///< input features
  std::int64_t count = 0;  ///< instances over all layers (experts: per expert touched)
  GemmKind kind = GemmKind::Linear;
};

/// Every weight GEMM of `model`'s decode step: attention projections (q, fused k+v, o; MLA's
/// low-rank projections), dense MLP (fused gate+up, down) on dense layers, shared experts and
/// routers on MoE layers, one routed expert's fused gate+up and down (count = MoE layers; a
/// step touches Et(B) experts of each), and the LM head. Embedding gathers are not GEMMs.
std::vector<GemmShape> decodeGemmShapes(const ModelArch& model);

}  // namespace qf
