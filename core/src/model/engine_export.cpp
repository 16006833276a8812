// The engine's CSV and JSON outputs.
#include <quantfront/core/model/engine_export.hpp>

#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>
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
  out << std::setprecision(10);
  const Efficiency& e = r.scenario.efficiency;
  const std::string source = csvField(e.source);
  for (const auto& s : r.schemes) {
    const KindTerm& lin = s.curve.kinds[static_cast<std::size_t>(LayerKind::Linear)];
    const double eta = lin.computeEff;
    // The bandwidth fraction this scheme's weights stream at (η_β × its kernel's η_k).
    const double bw = e.bandwidthEff * lin.kernelBandwidthEff;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      const auto& p = s.points[i];
      out << csvField(s.assignment.id) << "," << p.batch << "," << p.stepMs << "," << p.tokensPerS
          << "," << boundName(p.bound) << "," << eta << "," << bw << "," << e.overheadMs << ","
          << source;
      if (e2e && i < s.e2e.size()) {
        const auto& x = s.e2e[i];
        out << "," << x.inputLen << "," << x.outputLen << "," << x.ttftMs << ",";
        if (x.outputLen > 1) out << x.tpotMs;
        out << "," << x.e2eLatencyS << "," << x.outputTokensPerS << "," << x.totalTokensPerS;
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
