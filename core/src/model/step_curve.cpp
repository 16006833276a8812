// StepCurve's evaluation: a step's time at a batch, its pieces and knots, a decode step at a
// context, a prefill (docs/model.md, "Terms", "Prefill and end-to-end latency").
// buildStepCurve (engine.cpp) fills the terms.
#include <quantfront/core/model/engine.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace qf {

namespace {

/// `start` plus each present kind's active side (memory or compute) at `batch`: one Affine of
/// the step valid around it.
Affine addActiveSides(const StepCurve& c, Affine start, double batch) {
  const double et = c.routing.distinct(batch);
  for (const auto& k : c.kinds) {
    if (k.present) start += k.memS.at(batch, et) >= k.compS.at(batch, et) ? k.memS : k.compS;
  }
  return start;
}

}  // namespace

double StepCurve::stepSecondsAt(double batch, double et) const {
  bool compute = false;
  return evaluateAt(batch, et, compute);
}

Affine StepCurve::activeAt(double batch) const {
  const Affine a = addActiveSides(*this, twoBatchOverlap ? m_work : m_additive, batch);
  if (!twoBatchOverlap) return a;
  // The longer of the work and the all-to-all it hides, then what nothing hides.
  const double et = routing.distinct(batch);
  Affine t = overlapS.at(batch, et) > a.at(batch, et) ? overlapS : a;
  t += m_host;
  return t;
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
  if (!twoBatchOverlap) return out;
  // Between two kind knots the work is one Affine: where it meets the all-to-all, the step
  // switches sides.
  std::vector<double> bounds = out;
  bounds.insert(bounds.begin(), 1.0);
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    const double lo = bounds[i];
    const bool last = i + 1 == bounds.size();
    const double hi = last ? std::numeric_limits<double>::infinity() : bounds[i + 1];
    const double mid = last ? 2.0 * lo + 1.0 : 0.5 * (lo + hi);
    const Affine work = addActiveSides(*this, m_work, mid);
    for (const double r : signChanges(work - overlapS, routing, lo)) {
      if (r > lo && r < hi) out.push_back(r);
    }
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
  m_host = Affine{overheadS + allReduceS.c0, seqOverheadS, allReduceS.cE};
  m_work = attentionS;
  m_work.c1 += allReduceS.c1;
  m_packedCount = 0;
  for (const auto& k : kinds) {
    if (k.present) m_packed[static_cast<std::size_t>(m_packedCount++)] = {k.memS, k.compS};
  }
}

double StepCurve::addKindsAt(double start, double batch, double et, bool& computeBound) const {
  double work = start;
  bool compute = false;
  for (int i = 0; i < m_packedCount; ++i) {
    const Packed& p = m_packed[static_cast<std::size_t>(i)];
    const double mem = p.mem.at(batch, et);
    const double comp = p.comp.at(batch, et);
    compute = compute || comp > mem;
    work += comp > mem ? comp : mem;
  }
  computeBound = compute;
  return work;
}

double StepCurve::evaluateAt(double batch, double et, bool& computeBound) const {
  if (twoBatchOverlap) {
    const double work = addKindsAt(m_work.at(batch, et), batch, et, computeBound);
    return m_host.at(batch, et) + std::max(work, overlapS.at(batch, et));
  }
  return addKindsAt(m_additive.at(batch, et), batch, et, computeBound);
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
  // Under two-batch overlap: the one step of the sum at this context.
  if (twoBatchOverlap) return overlappedDecodeSeconds(batch, context, context);
  const double gemms = stepSeconds(batch) - attentionS.c1 * batch;
  return gemms +
         batch * std::max(token.attnKvReadS, token.attnMathS) * token.keptLayerTokens(context);
}

namespace {

/// `start` plus each kind's prefill GEMMs for `batch` prompts of `tokens` tokens in all (the
/// LM head computes logits for the last token of each prompt only), in kind order.
double addPrefillKinds(const StepCurve& c, double start, double batch, double tokens) {
  double t = start;
  for (const auto& k : c.kinds) {
    if (!k.present) continue;
    const auto i = static_cast<std::size_t>(k.kind);
    const double m = k.kind == LayerKind::LmHead ? batch : tokens;
    const double et = c.routing.distinct(m);
    t += std::max(c.token.prefillMem[i].at(m, et), c.token.prefillComp[i].at(m, et));
  }
  return t;
}

}  // namespace

double StepCurve::prefillSeconds(double batch, double inputLen) const {
  const double tokens = batch * inputLen;
  if (twoBatchOverlap) {
    // The prompt tokens' all-to-all under the other micro-batch's GEMMs and attention.
    const double work =
        addPrefillKinds(*this,
                        token.kvWriteSPerToken * tokens +
                            batch * token.attnMathS * token.keptLayerTokensSum(1.0, inputLen),
                        batch, tokens);
    return overheadS + allReduceS.c0 + seqOverheadS * batch +
           std::max(work, token.allReduceSPerToken * tokens);
  }
  // One forward pass: t0 and the all-reduce calls' fixed time once, each prompt's sampling.
  return addPrefillKinds(*this,
                         overheadS + allReduceS.c0 + seqOverheadS * batch +
                             token.allReduceSPerToken * tokens + token.kvWriteSPerToken * tokens +
                             batch * token.attnMathS * token.keptLayerTokensSum(1.0, inputLen),
                         batch, tokens);
}

double StepCurve::overlappedDecodeSeconds(double batch, double a, double b) const {
  if (b - a + 1 <= 0) return 0.0;
  const double et = routing.distinct(batch);
  bool compute = false;
  const double host = m_host.at(batch, et);
  const double comm = overlapS.at(batch, et);
  const double attnPerKept = batch * std::max(token.attnKvReadS, token.attnMathS);
  const double work0 = addKindsAt(m_work.at(batch, et), batch, et, compute) - attentionS.c1 * batch;
  // The work grows with the context: the first step i (context a + i) where it reaches the
  // all-to-all; the steps before it pay the all-to-all. b − a + 1 steps, as many as the sum
  // without overlap counts (a fraction of one where the lengths are not whole).
  const double steps = b - a + 1;
  double lo = 0, hi = std::ceil(steps);
  while (hi > lo) {
    const double mid = std::floor((lo + hi) / 2);
    if (work0 + attnPerKept * token.keptLayerTokens(a + mid) >= comm) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  const double commSteps = std::min(lo, steps);
  return steps * host + commSteps * comm + (steps - commSteps) * work0 +
         attnPerKept * token.keptLayerTokensSum(a + lo, b);
}

}  // namespace qf
