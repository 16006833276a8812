#include <nlohmann/json.hpp>
#include <quantfront/core/model/scenario_spec.hpp>

#include <algorithm>
#include <cmath>

namespace qf {

double kvBytesForDtype(const std::string& dtype) {
  if (dtype == "bf16" || dtype == "fp16" || dtype == "auto") return 2.0;
  if (dtype == "fp8" || dtype == "fp8_e4m3" || dtype == "fp8_e5m2") return 1.0;
  return 0.0;
}

Result<GpuSpec> scenarioGpu(const ScenarioSpec& spec, const Catalog& cat) {
  if (!spec.gpuSpec) return cat.resolveGpu(spec.gpu);
  if (auto e = checkGpu(*spec.gpuSpec, "/gpu_spec")) return *e;
  GpuSpec gpu = *spec.gpuSpec;
  if (gpu.id.empty()) gpu.id = spec.gpu;
  return gpu;
}

std::string constantsProvenance(const Efficiency& e) {
  if (e.isDatasheet()) return "datasheet roofline";
  // A GPU file's block reads "calibration (<the block's own source>)": the inner source.
  std::string src = e.source;
  const std::string wrapped = "calibration (";
  if (src.rfind(wrapped, 0) == 0 && src.size() > wrapped.size() && src.back() == ')')
    src = src.substr(wrapped.size(), src.size() - wrapped.size() - 1);
  auto head = [](const std::string& s) {
    const auto cut = s.find_first_of("(;");
    std::string out = cut == std::string::npos ? s : s.substr(0, cut);
    while (!out.empty() && (out.back() == ' ' || out.back() == ',')) out.pop_back();
    return out;
  };
  const std::string bundled = "bundled defaults: ";
  if (src.rfind(bundled, 0) == 0) return "bundled constants " + head(src.substr(bundled.size()));
  // A date the source names (qfront calibrate writes one): YYYY-MM-DD.
  std::string date;
  for (std::size_t i = 0; i + 10 <= src.size(); ++i) {
    const std::string d = src.substr(i, 10);
    const bool digits = std::all_of(d.begin(), d.end(),
                                    [](char ch) { return ch == '-' || (ch >= '0' && ch <= '9'); });
    if (digits && d[4] == '-' && d[7] == '-' && std::count(d.begin(), d.end(), '-') == 2) {
      date = d;
      break;
    }
  }
  const std::string what = head(src);
  return "your calibration" + (what.empty() ? "" : ": " + what) + (date.empty() ? "" : ", " + date);
}

Efficiency scenarioEfficiency(const GpuSpec& gpu, bool datasheet, const Catalog& cat,
                              const std::string& engine) {
  if (datasheet) return Efficiency{};
  if (gpu.calibration) return efficiencyFromGpu(gpu);
  if (const GpuCalibration* c = cat.defaultCalibration(gpu.id, engine)) {
    GpuSpec g = gpu;
    g.calibration = *c;
    Efficiency e = efficiencyFromGpu(g);
    e.source = c->source;
    return e;
  }
  return Efficiency{};
}

std::optional<double> kvFreeFractionOf(const std::string& engine) {
  if (engine == "trtllm" || engine == "tensorrt-llm") return 0.9;
  if (engine.empty() || engine == "vllm" || engine == "sglang") return 0.0;
  return std::nullopt;
}

Result<Scenario> resolveScenario(const ScenarioSpec& spec, const Catalog& cat) {
  return resolveScenario(spec, MoeLayout{}, cat);
}

Result<Scenario> resolveScenario(const ScenarioSpec& spec, const MoeLayout& layout,
                                 const Catalog& cat) {
  auto model = cat.resolveModel(spec.model);
  if (!model) return model.error();
  auto gpu = scenarioGpu(spec, cat);
  if (!gpu) return gpu.error();
  Scenario s;
  s.model = std::move(*model);
  s.gpu = std::move(*gpu);
  s.tp = spec.tp;
  s.maxModelLen = spec.maxModelLen;
  s.kvBytesPerElement = kvBytesForDtype(spec.kvDtype);
  if (s.kvBytesPerElement == 0) {
    return Error{"", "", "kv-dtype", "expected bf16 or fp8, found '" + spec.kvDtype + "'"};
  }
  s.memUtil = spec.memUtil;
  s.reserveGib = spec.reserveGib;
  s.contextTokens = spec.contextTokens;
  if (spec.inputLen > 0 && spec.outputLen > 0) {
    s.inputLen = spec.inputLen;
    s.outputLen = spec.outputLen;
  }
  cat.setFallbacks(s);
  // Checkpoints as they are (docs/model.md): the LM head and embeddings at the precision real
  // checkpoints keep; the datasheet roofline keeps the seeds' convention (every weight quantized).
  if (!spec.datasheet) s.checkpointLmHead = cat.checkpointLmHead();
  const auto kvFree = kvFreeFractionOf(spec.engine);
  if (!kvFree) {
    return Error{"", "", "engine", "expected vllm, sglang or trtllm, found '" + spec.engine + "'"};
  }
  s.kvFreeFraction = *kvFree;
  s.efficiency = scenarioEfficiency(s.gpu, spec.datasheet, cat, spec.engine);
  s.ep = layout.ep;
  s.dpAttention = layout.dpAttention;
  s.expertImbalance = layout.expertImbalance;
  s.redundantExperts = layout.redundantExperts;
  s.twoBatchOverlap = layout.twoBatchOverlap;
  if (auto e = validateScenario(s)) return *e;
  return s;
}

Result<std::vector<SchemeAssignment>> makeCandidates(const std::vector<std::string>& uniformIds,
                                                     const std::string& linear,
                                                     const std::string& moe,
                                                     const std::string& lmHead,
                                                     const Catalog& cat) {
  std::vector<SchemeAssignment> cands;
  for (const auto& id : uniformIds) {
    if (id.empty()) return Error{"", "", "scheme", "empty scheme id"};
    auto sc = cat.scheme(id, "scheme");
    if (!sc) return sc.error();
    const bool dup = std::any_of(cands.begin(), cands.end(),
                                 [&](const SchemeAssignment& c) { return c.id == sc->id; });
    if (dup) continue;
    SchemeAssignment c;
    c.id = sc->id;
    c.linear = *sc;
    cands.push_back(std::move(c));
  }
  if (!linear.empty() || !moe.empty() || !lmHead.empty()) {
    SchemeAssignment c;
    auto lin = cat.scheme(linear.empty() ? cat.baselineSchemeId() : linear, "linear");
    if (!lin) return lin.error();
    c.linear = *lin;
    std::string id = "linear=" + lin->id;
    if (!moe.empty()) {
      auto m = cat.scheme(moe, "moe");
      if (!m) return m.error();
      c.moe = *m;
      id += ",moe=" + m->id;
    }
    if (!lmHead.empty()) {
      auto l = cat.scheme(lmHead, "lm-head");
      if (!l) return l.error();
      c.lmHead = *l;
      id += ",lm_head=" + l->id;
    }
    c.id = c.mixed() ? id : lin->id;
    const bool dup = std::any_of(cands.begin(), cands.end(),
                                 [&](const SchemeAssignment& x) { return x.id == c.id; });
    if (!dup) cands.push_back(std::move(c));
  }
  return cands;
}

std::vector<double> logBatches(double batchMin, double batchMax, int n) {
  std::vector<double> out;
  batchMin = std::max(1.0, batchMin);
  batchMax = std::max(batchMin, batchMax);
  const double l0 = std::log(batchMin), l1 = std::log(batchMax);
  for (int i = 0; i < n; ++i) {
    out.push_back(std::exp(l0 + (l1 - l0) * i / std::max(1, n - 1)));
  }
  for (double b = 1; b <= batchMax * (1 + 1e-12); b *= 2) {
    if (b >= batchMin) out.push_back(b);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end(),
                        [](double a, double b) { return std::abs(a - b) <= 1e-9 * b; }),
            out.end());
  return out;
}

}  // namespace qf
