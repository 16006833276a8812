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
  out << "scheme,batch,step_ms,tokens_per_s,bound,compute_eff,bw_eff,overhead_ms,efficiency_"
         "source\n";
  out << std::setprecision(10);
  const Efficiency& e = r.scenario.efficiency;
  const std::string source = csvField(e.source);
  for (const auto& s : r.schemes) {
    const double eta = s.curve.kinds[static_cast<std::size_t>(LayerKind::Linear)].computeEff;
    for (const auto& p : s.points) {
      out << csvField(s.assignment.id) << "," << p.batch << "," << p.stepMs << "," << p.tokensPerS
          << "," << boundName(p.bound) << "," << eta << "," << e.bandwidthEff << "," << e.overheadMs
          << "," << source << "\n";
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
