#include <nlohmann/json.hpp>
#include <quantfront/core/model/engine.hpp>

#include <quantfront/core/base/numbers.hpp>

#include "collectives.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace qf {

const char* boundName(Bound b) {
  return b == Bound::Compute ? "compute" : "memory";
}

const char* layerKindName(LayerKind k) {
  switch (k) {
    case LayerKind::Linear:
      return "linear";
    case LayerKind::Moe:
      return "moe";
    case LayerKind::LmHead:
      return "lm_head";
  }
  return "?";
}

namespace {
/// The scheme a layer kind is priced in: the assignment's, except an LM head left to a linear
/// scheme that real checkpoints do not apply to it (docs/model.md, "Checkpoints as they are").
const Scheme& pricedScheme(const SchemeAssignment& cand, LayerKind kind, const Scenario& s) {
  if (kind == LayerKind::LmHead && !cand.lmHead && s.checkpointLmHead &&
      !cand.linear.quantizesLmHead &&
      cand.linear.bitsPerWeight() < s.checkpointLmHead->bitsPerWeight()) {
    return *s.checkpointLmHead;
  }
  return cand.forKind(kind);
}
}  // namespace

const Scheme& SchemeAssignment::forKind(LayerKind k) const {
  if (k == LayerKind::Moe && moe) return *moe;
  if (k == LayerKind::LmHead && lmHead) return *lmHead;
  return linear;
}

bool SchemeAssignment::mixed() const {
  return (moe && moe->id != linear.id) || (lmHead && lmHead->id != linear.id);
}

double kvShardsOf(const Scenario& s) {
  return s.dpAttention ? static_cast<double>(std::max(1, s.tp)) : s.model.kvShards(s.tp);
}

double Efficiency::computeFor(const std::string& schemeId, TensorPath path) const {
  if (const auto it = computeEff.find(schemeId); it != computeEff.end()) return it->second;
  if (const auto it = computeEff.find(tensorPathName(path)); it != computeEff.end())
    return it->second;
  return computeUnstated();
}

double Efficiency::computeUnstated() const {
  // A path the calibration does not state runs on the same tensor cores through the same
  // GEMM libraries as bf16: it reaches bf16's fraction of its own peak, not the datasheet's
  // whole (docs/model.md, "Efficiency and overhead").
  const auto it = computeEff.find(tensorPathName(TensorPath::Bf16));
  return it != computeEff.end() ? it->second : 1.0;
}

namespace {
std::optional<double> valueOf(const std::map<std::string, double>& byScheme,
                              const std::string& schemeId) {
  if (const auto it = byScheme.find(schemeId); it != byScheme.end()) return it->second;
  return std::nullopt;
}
}  // namespace

std::optional<double> Efficiency::dequantFor(const std::string& schemeId) const {
  return valueOf(dequantSPerWeight, schemeId);
}

std::optional<double> Efficiency::kernelBandwidthFor(const std::string& schemeId) const {
  return valueOf(kernelBandwidthEff, schemeId);
}

double Efficiency::attentionBandwidthFor(double kvBytesPerElement) const {
  const char* key = kvBytesPerElement < 1.5 ? "fp8" : "bf16";
  return valueOf(attentionBandwidthEff, key).value_or(1.0);
}

Efficiency efficiencyFromGpu(const GpuSpec& gpu) {
  Efficiency e;
  if (!gpu.calibration) return e;
  const GpuCalibration& c = *gpu.calibration;
  e.overheadMs = c.overheadMs.value_or(0.0);
  e.bandwidthEff = c.bandwidthEfficiency.value_or(1.0);
  e.seqOverheadUs = c.seqOverheadUs.value_or(0.0);
  e.allreduceLatencyUs = c.allreduceLatencyUs.value_or(0.0);
  e.gemmMHalf = c.gemmMHalf.value_or(0.0);
  e.tpWidthHalf = c.tpWidthHalf.value_or(0.0);
  e.requestOverheadMs = c.requestOverheadMs.value_or(0.0);
  e.computeEff = c.computeEfficiency;
  e.dequantSPerWeight = c.dequantSPerWeight;
  e.kernelBandwidthEff = c.kernelBandwidthEfficiency;
  e.attentionBandwidthEff = c.attentionBandwidthEfficiency;
  e.source = "calibration" + (c.source.empty() ? std::string() : " (" + c.source + ")");
  e.calibrationExtra = c.extraJson;
  return e;
}

void Routing::set(double e, double k) {
  experts = e;
  perToken = k;
  const double q = e > 0 ? 1.0 - k / e : 0.0;
  lnMiss = q > 0 ? std::log(q) : 0.0;
}

double Routing::distinct(double batch) const {
  if (experts <= 0) return 0.0;
  if (lnMiss == 0.0) return experts;  // k == E: every expert every step
  return experts * (1.0 - std::exp(lnMiss * batch));
}

namespace {

int signOf(double v, double tol) {
  if (v > tol) return 1;
  if (v < -tol) return -1;
  return 0;
}

/// Limit sign of h as B → ∞ (Et → E).
int tailSign(const Affine& h, const Routing& r, double tol) {
  if (std::abs(h.c1) > 0) {
    // c1 dominates eventually unless it is round-off next to large constants.
    return h.c1 > 0 ? 1 : -1;
  }
  return signOf(h.c0 + h.cE * (r.experts > 0 ? r.experts : 0.0), tol);
}

/// B where h'(B) = 0, if one exists in (lo, ∞). h' = c1 + cE·E·(−ln q)·q^B.
std::optional<double> extremum(const Affine& h, const Routing& r, double lo) {
  if (r.experts <= 0 || h.cE == 0) return std::nullopt;
  if (r.lnMiss == 0.0) return std::nullopt;
  const double lnq = r.lnMiss;
  const double denom = h.cE * r.experts * (-lnq);
  const double ratio = -h.c1 / denom;
  if (!(ratio > 0 && ratio < 1)) return std::nullopt;
  const double b = std::log(ratio) / lnq;
  if (b > lo && std::isfinite(b)) return b;
  return std::nullopt;
}

/// Root of f in (lo, hi) given f(lo) has sign sLo ≠ 0 and f(hi) the opposite.
/// Exact when the piece is linear (h.cE == 0 or dense); bisection otherwise.
template <class F>
double solveBracket(F f, const Affine& piece, const Routing& r, double lo, double hi, int sLo) {
  const bool linear = piece.cE == 0 || r.experts <= 0 || (1.0 - r.perToken / r.experts) <= 0;
  if (linear && piece.c1 != 0) {
    const double c0 = piece.c0 + (r.experts > 0 ? piece.cE * r.experts : 0.0);
    const double x = -c0 / piece.c1;
    if (x >= lo && x <= hi) return x;
  }
  for (int i = 0; i < 400; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (hi - lo <= 1e-13 * hi) break;
    const double v = f(mid);
    const int s = v > 0 ? 1 : (v < 0 ? -1 : 0);
    if (s == 0) return mid;
    if (s == sLo)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

struct Sample {
  double x;
  int sign;
};

/// Walks sign samples of a continuous function, monotone between consecutive samples,
/// and returns every sign change. `pieces[i]` is f's Affine between sample i and i+1;
/// the last piece extends to ∞ with limit sign `infSign`.
template <class F>
std::vector<Crossing> walkSigns(F f, const std::vector<Sample>& samples,
                                const std::vector<Affine>& pieces, const Routing& r, int infSign) {
  std::vector<Crossing> out;
  int lastSign = 0;
  std::ptrdiff_t lastIdx = -1;
  const auto n = static_cast<std::ptrdiff_t>(samples.size());
  for (std::ptrdiff_t i = 0; i <= n; ++i) {
    const int s = i < n ? samples[static_cast<std::size_t>(i)].sign : infSign;
    if (s == 0) continue;
    if (lastSign != 0 && s != lastSign) {
      double root = 0;
      if (lastIdx == i - 1) {
        const double lo = samples[static_cast<std::size_t>(lastIdx)].x;
        const Affine& piece = pieces[static_cast<std::size_t>(lastIdx)];
        double hi = 0;
        if (i < n) {
          hi = samples[static_cast<std::size_t>(i)].x;
        } else {
          hi = std::max(2.0 * lo, lo + 1.0);
          while (hi < 1e18) {
            const double v = f(hi);
            if ((v > 0 ? 1 : (v < 0 ? -1 : 0)) == s) break;
            hi *= 2.0;
          }
          if (hi >= 1e18) {
            lastSign = s;
            lastIdx = i;
            continue;
          }
        }
        root = solveBracket(f, piece, r, lo, hi, lastSign);
      } else {
        root = samples[static_cast<std::size_t>(lastIdx + 1)].x;
      }
      out.push_back({root, lastSign < 0});
    }
    lastSign = s;
    lastIdx = i;
  }
  return out;
}

}  // namespace

std::vector<double> signChanges(const Affine& h, const Routing& r, double lo) {
  const double scale = std::abs(h.c0) + std::abs(h.c1) * lo + std::abs(h.cE) * r.experts;
  const double tol = 1e-12 * scale;
  auto f = [&](double b) { return h.at(b, r.distinct(b)); };
  std::vector<Sample> samples{{lo, signOf(f(lo), tol)}};
  std::vector<Affine> pieces{h};
  if (const auto e = extremum(h, r, lo)) {
    samples.push_back({*e, signOf(f(*e), tol)});
    pieces.push_back(h);
  }
  std::vector<double> out;
  for (const auto& c : walkSigns(f, samples, pieces, r, tailSign(h, r, tol))) {
    if (c.batch > lo) out.push_back(c.batch);
  }
  return out;
}

StaticBatchPrediction predictStaticBatch(const StepCurve& curve, double batch, double inputLen,
                                         double outputLen) {
  StaticBatchPrediction p;
  p.batch = batch;
  p.inputLen = inputLen;
  p.outputLen = outputLen;
  const double ttft = curve.prefillSeconds(batch, inputLen);
  const double steps = std::max(outputLen - 1.0, 0.0);
  double decode = 0;
  if (steps > 0 && curve.twoBatchOverlap) {
    decode = curve.overlappedDecodeSeconds(batch, inputLen + 1, inputLen + steps);
  } else if (steps > 0) {
    // Every step but attention is the same; attention is linear in the kept context, so the
    // sum over contexts inputLen + 1 ... inputLen + outputLen − 1 is closed form.
    const double gemms = curve.stepSeconds(batch) - curve.attentionS.c1 * batch;
    decode = steps * gemms + batch * std::max(curve.token.attnKvReadS, curve.token.attnMathS) *
                                 curve.token.keptLayerTokensSum(inputLen + 1, inputLen + steps);
  }
  p.ttftMs = ttft * 1e3;
  p.tpotMs = steps > 0 ? decode / steps * 1e3 : 0.0;
  p.e2eLatencyS = ttft + decode;
  p.outputTokensPerS = batch * outputLen / p.e2eLatencyS;
  p.totalTokensPerS = batch * (inputLen + outputLen) / p.e2eLatencyS;
  return p;
}

namespace {

/// A scheme for experts the model does not have would only change the label: refused.
std::optional<Error> checkMoeScheme(const ModelArch& m, const SchemeAssignment& cand) {
  if (cand.moe && !m.isMoe() && cand.moe->id != cand.linear.id) {
    return Error{"", "", "moe",
                 (m.name.empty() ? m.id : m.name) +
                     " has no routed experts: a MoE scheme does not apply (give the linear "
                     "scheme only)"};
  }
  return std::nullopt;
}

/// The terms prefill and decode at any context price from (docs/model.md, "Prefill and
/// end-to-end latency"): attention per token, the KV written, each kind's prefill GEMMs.
void setTokenTerms(const Scenario& s, double attnBeta, double beta, TensorPath fallbackPath,
                   double tpRate, double moeRate, StepCurve& curve) {
  const ModelArch& m = s.model;
  const Efficiency& eff = s.efficiency;
  const double tp = static_cast<double>(s.tp);
  auto rateOf = [&](LayerKind kind) { return kind == LayerKind::Moe ? moeRate : tpRate; };
  StepCurve::TokenTerms& t = curve.token;
  const double layers = static_cast<double>(m.layers);
  t.windowedLayers = static_cast<double>(m.slidingLayerCount());
  t.fullLayers = layers - t.windowedLayers;
  t.window = static_cast<double>(m.slidingWindow);
  const double perLayerToken = layers > 0 ? m.kvBytesPerToken(s.kvBytesPerElement) / layers : 0;
  // Each rank reads and writes its share of the KV (replicated heads and MLA's latent are
  // read whole on every rank).
  const double kvSplit = kvShardsOf(s);
  t.attnKvReadS = perLayerToken / kvSplit / attnBeta;
  t.attnMathS = 4.0 * static_cast<double>(m.heads) * static_cast<double>(m.headDim) / tp /
                (s.gpu.peakFlopsPerS(fallbackPath) * eff.computeFor("", fallbackPath));
  t.kvWriteSPerToken = m.kvBytesPerToken(s.kvBytesPerElement) / kvSplit / beta;
  for (const auto& k : curve.kinds) {
    if (!k.present) continue;
    const auto i = static_cast<std::size_t>(k.kind);
    const double pathPeak =
        s.gpu.peakFlopsPerS(k.effectivePath) * eff.computeFor("", k.effectivePath) * rateOf(k.kind);
    const double toPath = k.peakFlopsPerS / pathPeak;
    t.prefillMem[i] = k.memS;
    t.prefillComp[i] = k.compS;
    t.prefillComp[i].c0 += k.tileS.c0 * toPath;
    t.prefillComp[i].cE += k.tileS.cE * toPath;
    t.prefillComp[i].c1 = k.mmaSPerSeq * toPath;
  }
}

/// Attention as its own kernel at the scenario's context (none without one).
void setAttention(const Scenario& s, double attnBeta, TensorPath fallbackPath, StepCurve& curve) {
  const ModelArch& m = s.model;
  const Efficiency& eff = s.efficiency;
  const double tp = static_cast<double>(s.tp);
  if (s.contextTokens > 0) {
    // Attention is its own kernel after the projections: its time adds to the step and
    // never hides inside a GEMM kind's max(). It reads the KV cache in the KV dtype and
    // issues on the bf16 path (fp16 where the GPU has no bf16), whatever the weight scheme.
    // Windowed layers read and attend over min(window, N) tokens.
    const double n = static_cast<double>(s.contextTokens);
    curve.attentionKvReadSPerSeq =
        m.kvBytesPerSequence(s.kvBytesPerElement, n) / kvShardsOf(s) / attnBeta;
    const double attnFlopPerSeq =
        4.0 * static_cast<double>(m.heads) * static_cast<double>(m.headDim) * m.keptLayerTokens(n);
    curve.attentionMathSPerSeq =
        attnFlopPerSeq / tp /
        (s.gpu.peakFlopsPerS(fallbackPath) * eff.computeFor("", fallbackPath));
    // Both sides are linear in B through the origin, so their max is the larger slope.
    curve.attentionS.c1 = std::max(curve.attentionKvReadSPerSeq, curve.attentionMathSPerSeq);
  }
}

/// Two-batch overlap: each micro-batch runs the layers' GEMMs on its own, so the weight reads,
/// the dequant and the tile padding are paid twice a step, the tensor math per sequence once;
/// the LM head runs once on the whole batch. A batch that touches few experts reads about as
/// many as two halves do: its expert read is overstated by up to 2x (the overlap is for
/// batches that touch every expert).
void splitIntoMicroBatches(StepCurve& curve) {
  curve.twoBatchOverlap = true;
  for (auto& k : curve.kinds) {
    if (!k.present || k.kind == LayerKind::LmHead) continue;
    for (Affine* a : {&k.memS, &k.compS, &k.tileS}) {
      a->c0 *= 2.0;
      a->cE *= 2.0;
    }
    k.dequantS *= 2.0;
  }
}

/// A calibration's constants for a kind's scheme.
struct KernelConstants {
  double computeEff = 1;
  std::optional<double> dequantSPerWeight;  ///< measured; none: from c
  double kernelBandwidthEff = 1;
};

/// The constants a calibration keys by the scheme's id; where it states none for the scheme,
/// those under its constants id (the scheme whose kernel runs it, or on a fallback the kernel
/// that runs instead).
KernelConstants kernelConstants(const Efficiency& eff, const KindTerm& k) {
  auto forKernel = [&](const std::map<std::string, double>& byScheme) {
    auto v = valueOf(byScheme, k.scheme.id);
    return v ? v : valueOf(byScheme, k.constantsId);
  };
  KernelConstants c;
  c.computeEff = eff.computeFor(
      eff.computeEff.count(k.scheme.id) != 0 ? k.scheme.id : k.constantsId, k.effectivePath);
  c.dequantSPerWeight = forKernel(eff.dequantSPerWeight);
  c.kernelBandwidthEff = forKernel(eff.kernelBandwidthEff).value_or(1.0);
  return c;
}

}  // namespace

Result<StepCurve> buildStepCurve(const Scenario& s, const ParamCounts& p,
                                 const SchemeAssignment& cand) {
  StepCurve curve;
  const ModelArch& m = s.model;
  if (auto e = checkMoeScheme(m, cand)) return *e;
  const double tp = static_cast<double>(s.tp);
  const Efficiency& eff = s.efficiency;
  const double beta = s.gpu.bandwidthBytesPerS() * eff.bandwidthEff;
  // The attention kernel reads the KV cache at η_a of it (its cache dtype's kernel).
  const double attnBeta = beta * eff.attentionBandwidthFor(s.kvBytesPerElement);
  const double issue = s.gpu.issueRatePerS();
  const double moeLayers = static_cast<double>(m.moeLayerCount());
  curve.overheadS = eff.overheadMs * 1e-3;
  // Under DP attention every GPU runs its own scheduler over its own 1/TP of the sequences
  // (SGLang's DP ranks, vLLM's data-parallel engine cores), side by side: the host time per
  // sequence is paid TP ways at once.
  curve.seqOverheadS = eff.seqOverheadUs * 1e-6 / (s.dpAttention ? tp : 1.0);
  if (m.isMoe()) {
    curve.routing.set(static_cast<double>(m.experts), static_cast<double>(m.expertsPerToken));
  }
  const TensorPath fallbackPath =
      s.gpu.hasPath(TensorPath::Bf16) ? TensorPath::Bf16 : TensorPath::Fp16;
  // GEMMs split over TP GPUs are narrower (d/TP per GPU) and reach less of the tensor peak:
  // (d + w½)/(d + w½·TP) of their TP-1 rate (docs/model.md, "GEMM shape").
  const double hidden = static_cast<double>(m.hidden);
  const double tpRate = eff.tpWidthHalf > 0 && hidden > 0
                            ? (hidden + eff.tpWidthHalf) / (hidden + eff.tpWidthHalf * tp)
                            : 1.0;
  curve.tpRate = tpRate;
  // Under EP each routed expert is split over tp/ep GPUs only, so its GEMMs are wider; the
  // busiest GPU's share of the routed work is the imbalance over the mean.
  const double moeTp = tp / static_cast<double>(std::max(1, s.ep));
  const double moeRate = eff.tpWidthHalf > 0 && hidden > 0
                             ? (hidden + eff.tpWidthHalf) / (hidden + eff.tpWidthHalf * moeTp)
                             : 1.0;
  const double moeLoad = s.ep > 1 ? s.expertImbalance : 1.0;
  // Redundant slots: every slot is stored, and a step that touches every expert reads every
  // slot (a few touched experts are priced as if each were read from all its slots, which
  // overstates a small batch's expert read by at most this factor).
  const double slotFactor = m.experts > 0 ? (static_cast<double>(m.experts) + s.redundantExperts) /
                                                static_cast<double>(m.experts)
                                          : 1.0;
  auto rateOf = [&](LayerKind kind) { return kind == LayerKind::Moe ? moeRate : tpRate; };
  for (LayerKind kind : kAllLayerKinds) {
    KindTerm& k = curve.kinds[static_cast<std::size_t>(kind)];
    k.kind = kind;
    k.scheme = pricedScheme(cand, kind, s);
    k.fallback = !s.gpu.hasPath(k.scheme.path);
    k.effectivePath = k.fallback ? fallbackPath : k.scheme.path;
    // A fallback is priced as the weight-only kernel that runs instead: 4-bit weights as
    // W4A16 (never cheaper than it), wider ones as W8A16.
    const bool fourBit = k.scheme.weightBits <= 4.0;
    k.runsAs = !k.fallback ? k.scheme.id : (fourBit ? s.fallback4BitId : s.fallbackId);
    k.constantsId = !k.fallback && !k.scheme.constantsOf.empty() ? k.scheme.constantsOf : k.runsAs;
    k.effectiveC = !k.fallback
                       ? k.scheme.c
                       : std::max({fourBit ? s.fallback4BitC : s.fallbackC, k.scheme.c, 0.0});
    k.bytesPerWeight = k.scheme.bytesPerWeight();
    const KernelConstants kc = kernelConstants(eff, k);
    k.computeEff = kc.computeEff;
    k.peakFlopsPerS = s.gpu.peakFlopsPerS(k.effectivePath) * k.computeEff * rateOf(kind);
    k.dequantMeasured = kc.dequantSPerWeight.has_value();
    k.dequantSPerWeight = kc.dequantSPerWeight ? *kc.dequantSPerWeight : k.effectiveC / issue;
    k.kernelBandwidthEff = kc.kernelBandwidthEff;
    const double peak = k.peakFlopsPerS;
    const double deq = k.dequantSPerWeight;
    const double b = k.bytesPerWeight;
    double w0 = 0, wE = 0, active = 0;
    switch (kind) {
      case LayerKind::Linear:
        w0 = active = p.linear();
        k.weightsStored = p.linear();
        // DP attention: every GPU stores and reads the whole dense part (attention, dense
        // MLP, shared experts, router) and runs it on its own sequences, as vLLM's
        // data-parallel ranks and SGLang's --moe-dense-tp-size 1 do.
        if (s.dpAttention) k.weightsReplicated = p.linear();
        break;
      case LayerKind::Moe:
        wE = moeLayers * p.routedPerExpertLayer * slotFactor;
        active = moeLayers * static_cast<double>(m.expertsPerToken) * p.routedPerExpertLayer;
        k.weightsStored = p.routedExperts * slotFactor;
        break;
      case LayerKind::LmHead:
        w0 = active = p.lmHead;
        k.weightsStored = p.lmHead + p.embedding;
        break;
    }
    k.present = (w0 + wE) > 0;
    if (!k.present) continue;
    const double kernelBeta = beta * k.kernelBandwidthEff;
    // What the busiest GPU reads, in units of 1/tp of the model: replicated weights tp times.
    const double wRead = w0 + k.weightsReplicated * (tp - 1.0);
    wE *= moeLoad;
    active = kind == LayerKind::Moe ? active * moeLoad : active;
    k.memS = Affine{wRead * b / kernelBeta / tp, 0.0, wE * b / kernelBeta / tp};
    k.mmaSPerSeq = 2.0 * active / peak / tp;
    // A prefill GEMM of M rows pays for M + M½ (large tiles, quantised waves); each routed
    // expert a prefill touches is its own GEMM. Decode GEMMs are not charged: at a few rows the
    // libraries and the weight-only kernels run small-M kernels whose tensor math hides under
    // the weight read (docs/model.md, "GEMM shape").
    k.tileS =
        Affine{2.0 * wRead * eff.gemmMHalf / peak / tp, 0.0, 2.0 * wE * eff.gemmMHalf / peak / tp};
    k.compS = Affine{wRead * deq / tp, k.mmaSPerSeq, wE * deq / tp};
    k.dequantS = (wRead + wE * curve.routing.experts) * deq / tp;
  }
  if (s.twoBatchOverlap) splitIntoMicroBatches(curve);
  setTokenTerms(s, attnBeta, beta, fallbackPath, tpRate, moeRate, curve);
  setAttention(s, attnBeta, fallbackPath, curve);
  if (auto e = detail::setCollectives(s, moeLayers, curve)) return *e;
  curve.finalize();
  return curve;
}

std::vector<Crossing> findCrossings(const StepCurve& a, const StepCurve& b) {
  return findCrossings(a, a.knots(), b, b.knots());
}

std::vector<Crossing> findCrossings(const StepCurve& a, const std::vector<double>& knotsA,
                                    const StepCurve& b, const std::vector<double>& knotsB) {
  const Routing& r = a.routing;
  std::vector<double> knots = knotsA;
  knots.insert(knots.end(), knotsB.begin(), knotsB.end());
  knots.push_back(1.0);
  std::sort(knots.begin(), knots.end());
  knots.erase(std::unique(knots.begin(), knots.end()), knots.end());
  auto f = [&](double x) { return a.stepSeconds(x) - b.stepSeconds(x); };
  auto tolAt = [&](double x) { return 1e-12 * (a.stepSeconds(x) + b.stepSeconds(x)); };
  std::vector<Sample> samples;
  std::vector<Affine> pieces;
  Affine tail;
  for (std::size_t i = 0; i < knots.size(); ++i) {
    const double lo = knots[i];
    const bool last = i + 1 == knots.size();
    const double hi = last ? std::numeric_limits<double>::infinity() : knots[i + 1];
    const double mid = last ? 2.0 * lo + 1.0 : 0.5 * (lo + hi);
    const Affine h = a.activeAt(mid) - b.activeAt(mid);
    samples.push_back({lo, signOf(f(lo), tolAt(lo))});
    pieces.push_back(h);
    if (const auto e = extremum(h, r, lo); e && *e < hi) {
      samples.push_back({*e, signOf(f(*e), tolAt(*e))});
      pieces.push_back(h);
    }
    if (last) tail = h;
  }
  const double xl = samples.back().x;
  const int infSign = tailSign(tail, r,
                               1e-12 * (std::abs(tail.c0) + std::abs(tail.cE) * r.experts +
                                        a.stepSeconds(xl) + b.stepSeconds(xl)));
  auto out = walkSigns(f, samples, pieces, r, infSign);
  std::vector<Crossing> dedup;
  for (const auto& c : out) {
    if (c.batch < 1.0) continue;
    if (!dedup.empty() && std::abs(dedup.back().batch - c.batch) <= 1e-9 * c.batch) continue;
    dedup.push_back(c);
  }
  return dedup;
}

CapacityReport computeCapacity(const Scenario& s, const StepCurve& curve) {
  CapacityReport c;
  const double gib = 1024.0 * 1024.0 * 1024.0;
  const double tp = static_cast<double>(s.tp);
  c.budgetGib = s.gpu.memoryGib * s.memUtil - s.reserveGib;
  double weightBytes = 0;
  for (const auto& k : curve.kinds) {
    if (k.present) weightBytes += k.weightsStored * k.bytesPerWeight;
  }
  // Per GPU: each kind's split weights over TP, its replicated ones whole.
  double replicatedBytes = 0;
  for (const auto& k : curve.kinds) {
    if (k.present) replicatedBytes += k.weightsReplicated * k.bytesPerWeight;
  }
  c.weightsGib = ((weightBytes - replicatedBytes) / tp + replicatedBytes) / gib;
  c.kvBytesPerToken = s.model.kvBytesPerToken(s.kvBytesPerElement);
  // Windowed layers hold min(window, max_model_len) tokens.
  c.kvGibPerSeq =
      s.model.kvBytesPerSequence(s.kvBytesPerElement, static_cast<double>(s.maxModelLen)) /
      kvShardsOf(s) / gib;
  if (s.kvFreeFraction > 0) {
    // TensorRT-LLM: the KV pool is a fraction of what the weights and the reserve leave.
    const double left = s.gpu.memoryGib - s.reserveGib - c.weightsGib;
    c.budgetGib = c.weightsGib + (left > 0 ? s.kvFreeFraction * left : left);
  }
  const double free = c.budgetGib - c.weightsGib;
  c.fits = free > 0;
  // Bounded before the conversion: a double beyond int64's range has no integer value.
  const double seqs = c.fits && c.kvGibPerSeq > 0 ? std::floor(free / c.kvGibPerSeq) : 0.0;
  c.maxSeqs =
      std::isfinite(seqs) ? static_cast<std::int64_t>(std::clamp(seqs, 0.0, kMaxSeqsReported)) : 0;
  if (c.maxSeqs > 0) {
    const double b = static_cast<double>(c.maxSeqs);
    c.tokensPerSAtCapacity = b / curve.stepSeconds(b);
  }
  return c;
}

SchemeAtBatch schemeAtBatch(const Scenario& sc, const SchemeReport& s, double batch) {
  SchemeAtBatch out;
  const double stepS = s.curve.stepSeconds(batch);
  out.stepMs = stepS * 1e3;
  out.tokensPerS = stepS > 0 ? batch / stepS : 0;
  const double gib = 1024.0 * 1024.0 * 1024.0;
  out.kvTokens = sc.contextTokens > 0 ? sc.contextTokens : sc.maxModelLen;
  out.kvGib = batch *
              sc.model.kvBytesPerSequence(sc.kvBytesPerElement, static_cast<double>(out.kvTokens)) /
              kvShardsOf(sc) / gib;
  out.budgetGib = s.capacity.budgetGib;
  out.neededGib = s.capacity.weightsGib + out.kvGib;
  out.fits = s.capacity.fits && out.neededGib <= out.budgetGib;
  return out;
}

namespace {
/// Every number a report carries is finite (bounded inputs guarantee it; this is the last
/// guard before a result shows inf or null).
std::optional<Error> checkFinite(const EngineReport& rep) {
  auto bad = [](const std::string& scheme, const char* what) {
    return std::optional<Error>(
        Error{"", "", "gpu",
              std::string("the model's ") + what + " for " + scheme +
                  " is not a finite number; check the GPU and model figures"});
  };
  for (const auto& sr : rep.schemes) {
    const auto& id = sr.assignment.id;
    for (double v :
         {sr.memoryFloorMs, sr.mmaUsPerSeq, sr.dequantMs, sr.bitsPerWeight, sr.allReduceUsPerSeq,
          sr.ridgeBatch.value_or(0), sr.moeRidgeBatch.value_or(0)}) {
      if (!std::isfinite(v)) return bad(id, "per-scheme terms");
    }
    const auto& c = sr.capacity;
    for (double v :
         {c.budgetGib, c.weightsGib, c.kvGibPerSeq, c.kvBytesPerToken, c.tokensPerSAtCapacity}) {
      if (!std::isfinite(v)) return bad(id, "capacity");
    }
    for (const auto& p : sr.points) {
      if (!std::isfinite(p.stepMs) || !std::isfinite(p.tokensPerS)) return bad(id, "step time");
    }
    for (const auto& p : sr.e2e) {
      if (!std::isfinite(p.ttftMs) || !std::isfinite(p.tpotMs) || !std::isfinite(p.e2eLatencyS) ||
          !std::isfinite(p.totalTokensPerS))
        return bad(id, "end-to-end latency");
    }
  }
  for (const auto& c : rep.crossovers) {
    if (!std::isfinite(c.batch)) return bad(c.schemes[0], "crossover");
  }
  return std::nullopt;
}
}  // namespace

namespace {

/// One scheme assignment's report: its step curve, floor, ridges, bits and capacity (the
/// points and crossovers come later, for every scheme at once).
Result<SchemeReport> schemeReport(const Scenario& s, const ParamCounts& params,
                                  const SchemeAssignment& cand) {
  SchemeReport sr;
  sr.assignment = cand;
  auto curve = buildStepCurve(s, params, cand);
  if (!curve) return curve.error();
  sr.curve = std::move(*curve);
  const StepCurve& cv = sr.curve;
  const KindTerm& lin = cv.kinds[static_cast<std::size_t>(LayerKind::Linear)];
  sr.fallback = lin.fallback;
  sr.pathName = lin.fallback ? "fallback" : tensorPathName(lin.effectivePath);
  double stored = 0, bits = 0;
  sr.memoryFloorMs = cv.memoryFloorSeconds() * 1e3;
  for (const auto& k : cv.kinds) {
    if (!k.present) continue;
    stored += k.weightsStored;
    bits += k.weightsStored * k.bytesPerWeight * 8.0;
    sr.mmaUsPerSeq += k.mmaSPerSeq * 1e6;
    sr.dequantMs += k.dequantS * 1e3;
  }
  sr.bitsPerWeight = cand.mixed() && stored > 0 ? bits / stored : lin.bytesPerWeight * 8.0;
  sr.allReduceUsPerSeq = (cv.allReduceS.c1 + cv.overlapS.c1) * 1e6;
  {
    const double beta =
        s.gpu.bandwidthBytesPerS() * s.efficiency.bandwidthEff * lin.kernelBandwidthEff;
    // Under two-batch overlap each micro-batch of B/2 reaches the kernel's ridge.
    const double ridge = (lin.bytesPerWeight / beta - lin.dequantSPerWeight) * lin.peakFlopsPerS /
                         2.0 * (cv.twoBatchOverlap ? 2.0 : 1.0);
    if (ridge > 0) sr.ridgeBatch = ridge;
    const KindTerm& moe = cv.kinds[static_cast<std::size_t>(LayerKind::Moe)];
    if (moe.present) {
      const auto roots = signChanges(moe.memS - moe.compS, cv.routing, 1.0);
      if (!roots.empty()) sr.moeRidgeBatch = roots.front();
    }
  }
  sr.capacity = computeCapacity(s, cv);
  return sr;
}

}  // namespace

Result<EngineReport> runEngine(const Scenario& s, const std::vector<SchemeAssignment>& cands,
                               const std::vector<double>& batches) {
  if (auto e = validateScenario(s)) return *e;
  for (double b : batches) {
    if (!(b >= 1) || !std::isfinite(b)) {
      return Error{"", "", "batch", "batch sizes must be finite and >= 1, found " + sigFigs(b, 6)};
    }
  }
  if (s.inputLen < 0 || s.outputLen < 0 || (s.inputLen > 0) != (s.outputLen > 0)) {
    return Error{"", "", s.inputLen > 0 ? "output-len" : "input-len",
                 "{--input-len} and {--output-len} go together, each at least 1 token"};
  }
  if (s.inputLen + s.outputLen > kMaxScenarioTokens)
    return Error{"", "", "input-len", "input and output lengths must sum to at most 2^40 tokens"};
  EngineReport rep;
  rep.scenario = s;
  rep.params = countParams(s.model);
  rep.schemes.reserve(cands.size());
  for (const auto& cand : cands) {
    auto sr = schemeReport(s, rep.params, cand);
    if (!sr) return sr.error();
    rep.schemes.push_back(std::move(*sr));
  }
  // Et(B) depends on the model only: compute it once per batch for every candidate.
  if (!rep.schemes.empty()) {
    const Routing& routing = rep.schemes.front().curve.routing;
    std::vector<double> et(batches.size());
    for (std::size_t i = 0; i < batches.size(); ++i) et[i] = routing.distinct(batches[i]);
    for (auto& sr : rep.schemes) {
      // Hot loop (all schemes × thousands of batches): coefficients in locals, no calls.
      const auto& pk = sr.curve.packed();
      const int nk = sr.curve.packedCount();
      const Affine ar = sr.curve.additiveS();
      sr.points.resize(batches.size());
      PointReport* out = sr.points.data();
      if (sr.curve.twoBatchOverlap) {
        // Two-batch overlap: the longer of the work and the all-to-all (StepCurve::evaluateAt).
        for (std::size_t i = 0; i < batches.size(); ++i) {
          bool compute = false;
          const double t = sr.curve.evaluateAt(batches[i], et[i], compute);
          out[i] = {batches[i], t * 1e3, batches[i] / t, compute ? Bound::Compute : Bound::Memory};
        }
        continue;
      }
      // The kind count is a template parameter so the inner loop unrolls.
      auto fill = [&]<int N>(std::integral_constant<int, N>) {
        for (std::size_t i = 0; i < batches.size(); ++i) {
          const double b = batches[i];
          const double e = et[i];
          double t = ar.c0 + ar.c1 * b + ar.cE * e;
          bool compute = false;
          for (int k = 0; k < N; ++k) {
            const auto& p = pk[static_cast<std::size_t>(k)];
            const double mem = p.mem.c0 + p.mem.c1 * b + p.mem.cE * e;
            const double comp = p.comp.c0 + p.comp.c1 * b + p.comp.cE * e;
            compute |= comp > mem;
            t += comp > mem ? comp : mem;
          }
          out[i] = {b, t * 1e3, b / t, compute ? Bound::Compute : Bound::Memory};
        }
      };
      switch (nk) {
        case 1:
          fill(std::integral_constant<int, 1>{});
          break;
        case 2:
          fill(std::integral_constant<int, 2>{});
          break;
        default:
          fill(std::integral_constant<int, 3>{});
          break;
      }
    }
  }
  if (s.inputLen > 0) {
    for (auto& sr : rep.schemes) {
      sr.e2e.reserve(batches.size());
      for (double b : batches) {
        sr.e2e.push_back(predictStaticBatch(sr.curve, b, static_cast<double>(s.inputLen),
                                            static_cast<double>(s.outputLen)));
      }
    }
  }
  std::vector<std::vector<double>> knots;
  knots.reserve(rep.schemes.size());
  for (const auto& sr : rep.schemes) knots.push_back(sr.curve.knots());
  for (std::size_t i = 0; i < rep.schemes.size(); ++i) {
    for (std::size_t j = i + 1; j < rep.schemes.size(); ++j) {
      for (const auto& c :
           findCrossings(rep.schemes[i].curve, knots[i], rep.schemes[j].curve, knots[j])) {
        CrossoverReport cr;
        cr.schemes = {rep.schemes[i].assignment.id, rep.schemes[j].assignment.id};
        cr.batch = c.batch;
        cr.fasterBelow = c.firstFasterBelow ? cr.schemes[0] : cr.schemes[1];
        rep.crossovers.push_back(std::move(cr));
      }
    }
  }
  std::sort(rep.crossovers.begin(), rep.crossovers.end(),
            [](const CrossoverReport& x, const CrossoverReport& y) { return x.batch < y.batch; });
  if (auto e = checkFinite(rep)) return *e;
  return rep;
}

}  // namespace qf
