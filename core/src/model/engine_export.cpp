// The engine's CSV and JSON outputs.
#include <quantfront/core/model/engine_export.hpp>

#include <sstream>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/base/version.hpp>

namespace qf {

namespace {
/// A CSV field, quoted when it holds a comma, quote or newline.
std::string csvField(const std::string& v) {
  if (v.find_first_of(",\"\n") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}
}  // namespace

namespace {
/// The report's "model": identity, parameter counts, KV size and checkpoint quantization.
Json modelJson(const Scenario& s, const ParamCounts& p) {
  Json model;
  model["id"] = s.model.id;
  model["name"] = s.model.name;
  model["source"] = s.model.sourceFile;
  model["streamed_params"] = p.streamed();
  model["total_params"] = p.total();
  model["active_params"] = p.active;
  model["expert_params"] = p.expert();
  model["layers"] = s.model.layers;
  model["moe"] = s.model.isMoe();
  model["mla"] = s.model.mla.has_value();
  model["kv_bytes_per_token"] = s.model.kvBytesPerToken(s.kvBytesPerElement);
  model["sliding_window"] = s.model.slidingWindow > 0 ? Json(s.model.slidingWindow) : Json(nullptr);
  model["windowed_layers"] = s.model.slidingLayerCount();
  if (s.model.checkpointQuant) {
    const auto& q = *s.model.checkpointQuant;
    model["checkpoint_quantization"] = {
        {"quant_method", q.quantMethod},
        {"scheme", q.schemeId.empty() ? Json(nullptr) : Json(q.schemeId)},
        {"note", q.note}};
    if (q.perKind()) {
      model["checkpoint_quantization"]["kinds"] = {
          {"linear", q.linearSchemeId}, {"moe", q.moeSchemeId}, {"lm_head", q.lmHeadSchemeId}};
    }
  } else {
    model["checkpoint_quantization"] = nullptr;
  }
  return model;
}

/// The report's "efficiency": the model constants the figures were computed with.
Json efficiencyJson(const Efficiency& e) {
  return {{"source", e.source},
          {"roofline", e.isDatasheet() ? "datasheet" : "calibrated"},
          {"overhead_ms", e.overheadMs},
          {"bandwidth_efficiency", e.bandwidthEff},
          {"seq_overhead_us", e.seqOverheadUs},
          {"allreduce_latency_us", e.allreduceLatencyUs},
          {"gemm_m_half", e.gemmMHalf},
          {"tp_width_half", e.tpWidthHalf},
          {"request_overhead_ms", e.requestOverheadMs},
          {"compute_efficiency", e.computeEff.empty() ? Json::object() : Json(e.computeEff)},
          {"dequant_s_per_weight",
           e.dequantSPerWeight.empty() ? Json::object() : Json(e.dequantSPerWeight)},
          {"kernel_bandwidth_efficiency",
           e.kernelBandwidthEff.empty() ? Json::object() : Json(e.kernelBandwidthEff)},
          {"attention_bandwidth_efficiency",
           e.attentionBandwidthEff.empty() ? Json::object() : Json(e.attentionBandwidthEff)}};
}

/// One scheme's layer kinds: what each is priced as.
Json kindsJson(const StepCurve& curve) {
  Json kinds = Json::array();
  for (const auto& k : curve.kinds) {
    if (!k.present) continue;
    kinds.push_back({{"kind", layerKindName(k.kind)},
                     {"scheme", k.scheme.id},
                     {"bits_per_weight", k.bytesPerWeight * 8.0},
                     {"path", k.fallback ? "fallback" : tensorPathName(k.effectivePath)},
                     {"runs_as", k.runsAs},
                     {"tensor_path", tensorPathName(k.effectivePath)},
                     {"c", k.effectiveC},
                     {"compute_efficiency", k.computeEff},
                     {"dequant_s_per_weight", k.dequantSPerWeight},
                     {"dequant_source", k.dequantMeasured ? "measured" : "c/D"},
                     {"kernel_bandwidth_efficiency", k.kernelBandwidthEff},
                     {"weights_stored", k.weightsStored}});
  }
  return kinds;
}

/// One scheme's points: step time and throughput per batch, end to end when asked.
Json pointsJson(const SchemeReport& sr) {
  Json pts = Json::array();
  for (std::size_t i = 0; i < sr.points.size(); ++i) {
    const auto& pt = sr.points[i];
    Json point = {{"batch", pt.batch},
                  {"step_ms", pt.stepMs},
                  {"tokens_per_s", pt.tokensPerS},
                  {"bound", boundName(pt.bound)}};
    if (i < sr.e2e.size()) {
      const auto& e = sr.e2e[i];
      point["ttft_ms"] = e.ttftMs;
      point["tpot_ms"] = e.outputLen > 1 ? Json(e.tpotMs) : Json(nullptr);
      point["e2e_latency_s"] = e.e2eLatencyS;
      point["output_tokens_per_s"] = e.outputTokensPerS;
      point["total_tokens_per_s"] = e.totalTokensPerS;
    }
    pts.push_back(std::move(point));
  }
  return pts;
}

/// One scheme of the report: its terms, kinds, capacity and points.
Json schemeJson(const SchemeReport& sr) {
  Json o;
  o["id"] = sr.assignment.id;
  o["bits_per_weight"] = sr.bitsPerWeight;
  o["path"] = sr.pathName;
  o["runs_as"] = sr.curve.kinds[static_cast<std::size_t>(LayerKind::Linear)].runsAs;
  o["memory_floor_ms"] = sr.memoryFloorMs;
  o["mma_us_per_seq"] = sr.mmaUsPerSeq;
  o["dequant_ms"] = sr.dequantMs;
  o["ridge_batch"] = sr.ridgeBatch ? Json(*sr.ridgeBatch) : Json(nullptr);
  o["moe_ridge_batch"] = sr.moeRidgeBatch ? Json(*sr.moeRidgeBatch) : Json(nullptr);
  o["allreduce_us_per_seq"] = sr.allReduceUsPerSeq;
  o["attention_us_per_seq"] = sr.curve.attentionS.c1 * 1e6;
  o["attention_bound"] =
      sr.curve.attentionS.c1 <= 0
          ? Json(nullptr)
          : Json(sr.curve.attentionMathSPerSeq > sr.curve.attentionKvReadSPerSeq ? "compute"
                                                                                 : "memory");
  o["kinds"] = kindsJson(sr.curve);
  const auto& c = sr.capacity;
  o["capacity"] = {{"budget_gib", c.budgetGib},
                   {"weights_gib", c.weightsGib},
                   {"kv_gib_per_seq", c.kvGibPerSeq},
                   {"max_seqs", c.maxSeqs},
                   {"fits", c.fits},
                   {"tokens_per_s_at_capacity", c.tokensPerSAtCapacity}};
  o["points"] = pointsJson(sr);
  return o;
}
}  // namespace

Json reportToJson(const EngineReport& r) {
  const Scenario& s = r.scenario;
  Json j;
  j["model"] = modelJson(s, r.params);
  j["gpu"] = gpuToJson(s.gpu);
  j["efficiency"] = efficiencyJson(s.efficiency);
  j["scenario"] = {{"tp", s.tp},
                   {"max_model_len", s.maxModelLen},
                   {"kv_bytes", s.kvBytesPerElement},
                   {"mem_util", s.memUtil},
                   {"reserve_gib", s.reserveGib},
                   {"kv_free_fraction", s.kvFreeFraction},
                   {"context", s.contextTokens},
                   {"input_len", s.inputLen > 0 ? Json(s.inputLen) : Json(nullptr)},
                   {"output_len", s.outputLen > 0 ? Json(s.outputLen) : Json(nullptr)}};
  Json schemes = Json::array();
  for (const auto& sr : r.schemes) schemes.push_back(schemeJson(sr));
  j["schemes"] = schemes;
  Json xs = Json::array();
  for (const auto& c : r.crossovers) {
    xs.push_back({{"schemes", {c.schemes[0], c.schemes[1]}},
                  {"batch", c.batch},
                  {"faster_below", c.fasterBelow}});
  }
  j["crossovers"] = xs;
  return j;
}

std::string engineCsvText(const EngineReport& r) {
  std::ostringstream out;
  const bool e2e = r.scenario.inputLen > 0;
  out << "scheme,batch,step_ms,tokens_per_s,bound,compute_eff,bw_eff,overhead_ms,efficiency_"
         "source";
  if (e2e) {
    out << ",input_len,output_len,ttft_ms,tpot_ms,e2e_latency_s,output_tokens_per_s,total_"
           "tokens_per_s";
  }
  out << "\n";
  // Ten significant figures, as a stream at setprecision(10) writes them.
  const auto num = [](double v) { return sigFigs(v, 10); };
  const Efficiency& e = r.scenario.efficiency;
  const std::string source = csvField(e.source);
  for (const auto& s : r.schemes) {
    const KindTerm& lin = s.curve.kinds[static_cast<std::size_t>(LayerKind::Linear)];
    const double eta = lin.computeEff;
    // The bandwidth fraction this scheme's weights stream at (η_β × its kernel's η_k).
    const double bw = e.bandwidthEff * lin.kernelBandwidthEff;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      const auto& p = s.points[i];
      out << csvField(s.assignment.id) << "," << num(p.batch) << "," << num(p.stepMs) << ","
          << num(p.tokensPerS) << "," << boundName(p.bound) << "," << num(eta) << "," << num(bw)
          << "," << num(e.overheadMs) << "," << source;
      if (e2e && i < s.e2e.size()) {
        const auto& x = s.e2e[i];
        out << "," << num(static_cast<double>(x.inputLen)) << ","
            << num(static_cast<double>(x.outputLen)) << "," << num(x.ttftMs) << ",";
        if (x.outputLen > 1) out << num(x.tpotMs);
        out << "," << num(x.e2eLatencyS) << "," << num(x.outputTokensPerS) << ","
            << num(x.totalTokensPerS);
      }
      out << "\n";
    }
  }
  return out.str();
}

std::string engineJsonText(const EngineReport& r) {
  Json j = reportToJson(r);
  stampOutput(j);
  return j.dump(2) + "\n";
}

}  // namespace qf
