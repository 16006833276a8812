// StepCurve's evaluation: a step's time at a batch, its pieces and knots, a decode step at a
// context, a prefill (docs/model.md, "Terms", "Prefill and end-to-end latency").
// buildStepCurve (engine.cpp) fills the terms.
#include <quantfront/core/model/engine.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace qf {

double StepCurve::stepSecondsAt(double batch, double et) const {
  bool compute = false;
  return evaluateAt(batch, et, compute);
}

Affine StepCurve::activeAt(double batch) const {
  const double et = routing.distinct(batch);
  Affine a = m_additive;
  for (const auto& k : kinds) {
    if (!k.present) continue;
    a += k.memS.at(batch, et) >= k.compS.at(batch, et) ? k.memS : k.compS;
  }
  return a;
}

std::vector<double> StepCurve::knots() const {
  std::vector<double> out;
  for (const auto& k : kinds) {
    if (!k.present) continue;
    const auto roots = signChanges(k.memS - k.compS, routing, 1.0);
    out.insert(out.end(), roots.begin(), roots.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double StepCurve::memoryFloorSeconds() const {
  const double et1 = routing.distinct(1.0);
  double s = 0;
  for (const auto& k : kinds) {
    if (k.present) s += k.memS.at(1.0, et1);
  }
  return s;
}

void StepCurve::finalize() {
  m_additive = allReduceS;
  m_additive += attentionS;
  m_additive.c0 += overheadS;
  m_additive.c1 += seqOverheadS;
  m_packedCount = 0;
  for (const auto& k : kinds) {
    if (k.present) m_packed[static_cast<std::size_t>(m_packedCount++)] = {k.memS, k.compS};
  }
}

double StepCurve::evaluateAt(double batch, double et, bool& computeBound) const {
  double t = m_additive.at(batch, et);
  bool compute = false;
  for (int i = 0; i < m_packedCount; ++i) {
    const Packed& p = m_packed[static_cast<std::size_t>(i)];
    const double mem = p.mem.at(batch, et);
    const double comp = p.comp.at(batch, et);
    compute = compute || comp > mem;
    t += comp > mem ? comp : mem;
  }
  computeBound = compute;
  return t;
}

double StepCurve::TokenTerms::keptLayerTokens(double n) const {
  return fullLayers * n + windowedLayers * (window > 0 ? std::min(window, n) : n);
}

double StepCurve::TokenTerms::keptLayerTokensSum(double a, double b) const {
  if (b < a) return 0.0;
  const double count = b - a + 1;
  auto arith = [](double lo, double hi) { return hi < lo ? 0.0 : (lo + hi) * (hi - lo + 1) / 2; };
  double windowed = 0;
  if (window <= 0 || b <= window) {
    windowed = arith(a, b);
  } else if (a >= window) {
    windowed = window * count;
  } else {
    windowed = arith(a, window) + window * (b - window);
  }
  return fullLayers * arith(a, b) + windowedLayers * windowed;
}

double StepCurve::decodeStepSeconds(double batch, double context) const {
  const double gemms = stepSeconds(batch) - attentionS.c1 * batch;
  return gemms +
         batch * std::max(token.attnKvReadS, token.attnMathS) * token.keptLayerTokens(context);
}

double StepCurve::prefillSeconds(double batch, double inputLen) const {
  const double tokens = batch * inputLen;
  // One forward pass: t0 and the all-reduce calls' fixed time once, each prompt's sampling.
  double t = overheadS + allReduceS.c0 + seqOverheadS * batch + token.allReduceSPerToken * tokens +
             token.kvWriteSPerToken * tokens +
             batch * token.attnMathS * token.keptLayerTokensSum(1.0, inputLen);
  for (const auto& k : kinds) {
    if (!k.present) continue;
    const auto i = static_cast<std::size_t>(k.kind);
    // The LM head computes logits for the last token of each prompt only.
    const double m = k.kind == LayerKind::LmHead ? batch : tokens;
    const double et = routing.distinct(m);
    t += std::max(token.prefillMem[i].at(m, et), token.prefillComp[i].at(m, et));
  }
  return t;
}

}  // namespace qf
