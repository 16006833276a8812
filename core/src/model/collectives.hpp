#pragma once
/// The collectives a step curve prices (engine.cpp's buildStepCurve; docs/model.md,
/// "Tensor parallelism", "Expert parallelism").
#include <optional>

#include <quantfront/core/model/engine.hpp>

namespace qf::detail {

/// The collectives of a replica wider than one GPU: the all-reduce of tensor parallelism, or
/// under DP attention the MoE layers' all-to-all (or gather and scatter), into `curve`'s
/// allReduceS and its per-token share. An error where TP needs an interconnect the GPU lacks.
std::optional<Error> setCollectives(const Scenario& s, double moeLayers, StepCurve& curve);

}  // namespace qf::detail
