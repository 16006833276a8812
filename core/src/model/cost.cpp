#include <nlohmann/json.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/core/model/cost.hpp>

#include <algorithm>
#include <cmath>

#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/base/resources.hpp>
#include <quantfront/core/model/model_config.hpp>

namespace qf {

double queriesPerUsdSync(double latencyS, double pricePerHourUsd) {
  return 3600.0 / (latencyS * pricePerHourUsd);
}

double queriesPerUsdAsync(double queriesPerS, double pricePerHourUsd) {
  return queriesPerS * 3600.0 / pricePerHourUsd;
}

double costPerQueryUsd(double queriesPerUsd) {
  return 1.0 / queriesPerUsd;
}

double costReduction(double baselineQueriesPerUsd, double candidateQueriesPerUsd) {
  return costPerQueryUsd(baselineQueriesPerUsd) / costPerQueryUsd(candidateQueriesPerUsd);
}

std::optional<double> deploymentPricePerHour(const GpuSpec& gpu, int gpuCount) {
  if (!gpu.pricePerGpuHourUsd) return std::nullopt;
  return *gpu.pricePerGpuHourUsd * static_cast<double>(gpuCount);
}

Result<std::vector<UseCase>> parseUseCases(std::string_view text, const std::string& label) {
  auto j = parseJson(text, label);
  if (!j) return j.error();
  const JsonReader rd(*j, label);
  if (!j->is_object()) return rd.error("/", "", "expected a JSON object");
  auto format = rd.string(*j, "/", "format");
  if (!format) return format.error();
  if (*format != "quantfront-use-cases") {
    return rd.error("/format", "format",
                    "expected \"quantfront-use-cases\", found \"" + *format + "\"");
  }
  auto version = rd.integer(*j, "/", "version");
  if (!version) return version.error();
  if (*version != 1) {
    return rd.error(
        "/version", "version",
        "version " + std::to_string(*version) + " is not supported (this build reads 1)");
  }
  const auto list = j->find("use_cases");
  if (list == j->end() || !list->is_array()) {
    return rd.error("/use_cases", "use_cases", "expected a list of use cases");
  }
  std::vector<UseCase> out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const Json& e = (*list)[i];
    const std::string ptr = "/use_cases/" + std::to_string(i);
    UseCase u;
    auto id = rd.string(e, ptr, "id");
    if (!id) return id.error();
    u.id = *id;
    auto name = rd.string(e, ptr, "name");
    if (!name) return name.error();
    u.name = *name;
    auto pre = rd.integer(e, ptr, "prefill_tokens");
    if (!pre) return pre.error();
    u.prefillTokens = *pre;
    auto dec = rd.integer(e, ptr, "decode_tokens");
    if (!dec) return dec.error();
    u.decodeTokens = *dec;
    auto cite = rd.string(e, ptr, "citation");
    if (!cite) return cite.error();
    u.citation = *cite;
    if (const auto n = e.find("note"); n != e.end() && n->is_string())
      u.note = n->get<std::string>();
    for (const auto& prev : out) {
      if (prev.id == u.id)
        return rd.error(ptr + "/id", "id", "use case '" + u.id + "' appears twice");
    }
    out.push_back(std::move(u));
  }
  return out;
}

Result<std::vector<UseCase>> bundledUseCases() {
  const auto text = bundledFile("catalog/use_cases.json");
  if (!text)
    return Error{"catalog/use_cases.json", "", "", "bundled file is missing from this build"};
  return parseUseCases(*text, "catalog/use_cases.json");
}

Result<UseCase> findUseCase(const std::string& id, const std::string& field) {
  auto all = bundledUseCases();
  if (!all) return all.error();
  std::string known;
  for (const auto& u : *all) {
    if (asciiLower(u.id) == asciiLower(id)) return u;
    known += (known.empty() ? "" : ", ") + u.id;
  }
  return Error{"", "", field, "unknown use case '" + id + "' (known: " + known + ")"};
}

RequestLatency estimateRequestLatency(const StepCurve& curve, std::int64_t promptTokens,
                                      std::int64_t outputTokens, double batch) {
  RequestLatency r;
  if (promptTokens > 0) {
    // One request's prompt on each scheme's real path (StepCurve::prefillSeconds).
    const double n = static_cast<double>(promptTokens);
    r.prefillS = curve.prefillSeconds(1.0, n);
    const double et = curve.routing.distinct(n);
    for (const auto& k : curve.kinds) {
      if (!k.present || k.kind == LayerKind::LmHead) continue;
      const auto i = static_cast<std::size_t>(k.kind);
      if (curve.token.prefillComp[i].at(n, et) > curve.token.prefillMem[i].at(n, et))
        r.prefillBound = "compute";
    }
  }
  r.decodeStepS = curve.stepSeconds(batch);
  r.decodeS = static_cast<double>(outputTokens) * r.decodeStepS;
  r.totalS = r.prefillS + r.decodeS;
  return r;
}

Result<UseCaseEstimate> estimateUseCase(const Scenario& s, const SchemeAssignment& cand,
                                        const UseCase& useCase, double batch) {
  if (useCase.prefillTokens <= 0 && useCase.decodeTokens <= 0) {
    return Error{"", "", "use-case", "use case '" + useCase.id + "' has no tokens"};
  }
  auto curve = buildStepCurve(s, countParams(s.model), cand);
  if (!curve) return curve.error();
  UseCaseEstimate e;
  e.useCase = useCase;
  e.latency = estimateRequestLatency(*curve, useCase.prefillTokens, useCase.decodeTokens, batch);
  e.pricePerHourUsd = deploymentPricePerHour(s.gpu, s.tp);
  if (e.pricePerHourUsd && *e.pricePerHourUsd > 0 && e.latency.totalS > 0) {
    e.queriesPerUsd = queriesPerUsdSync(e.latency.totalS, *e.pricePerHourUsd);
  }
  return e;
}

}  // namespace qf
