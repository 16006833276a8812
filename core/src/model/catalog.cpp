#include <nlohmann/json.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/core/model/catalog.hpp>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include <quantfront/core/base/resources.hpp>

namespace qf {

namespace {
template <class T, class F>
std::string joinIds(const std::vector<T>& v, F get) {
  std::string out;
  for (const auto& x : v) {
    if (!out.empty()) out += ", ";
    out += get(x);
  }
  return out;
}
}  // namespace

Result<Catalog> Catalog::fromTexts(std::vector<CatalogModel> models, const std::string& gpusText,
                                   const std::string& schemesText) {
  Catalog cat;
  cat.m_models = std::move(models);
  std::sort(cat.m_models.begin(), cat.m_models.end(),
            [](const CatalogModel& a, const CatalogModel& b) { return a.id < b.id; });
  auto gj = parseJson(gpusText, "catalog/gpus.json");
  if (!gj) return gj.error();
  if (!gj->contains("gpus") || !(*gj)["gpus"].is_array()) {
    return Error{"catalog/gpus.json", "/gpus", "gpus", "expected an array of GPUs"};
  }
  const Json& gpus = (*gj)["gpus"];
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    auto g = parseGpu(gpus[i], "catalog/gpus.json", "/gpus/" + std::to_string(i));
    if (!g) return g.error();
    if (g->id.empty())
      return Error{"catalog/gpus.json", "/gpus/" + std::to_string(i), "id", "missing id"};
    cat.m_gpus.push_back(std::move(*g));
  }
  auto sj = parseJson(schemesText, "catalog/schemes.json");
  if (!sj) return sj.error();
  if (!sj->contains("schemes") || !(*sj)["schemes"].is_array()) {
    return Error{"catalog/schemes.json", "/schemes", "schemes", "expected an array of schemes"};
  }
  const Json& schemes = (*sj)["schemes"];
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    auto s = parseScheme(schemes[i], "catalog/schemes.json", "/schemes/" + std::to_string(i));
    if (!s) return s.error();
    cat.m_schemes.push_back(std::move(*s));
  }
  std::string cAs = "w8a16";
  std::string cAs4 = "w4a16-g128";
  if (sj->contains("fallback") && (*sj)["fallback"].is_object()) {
    cAs = (*sj)["fallback"].value("c_as", cAs);
    cAs4 = (*sj)["fallback"].value("c_as_4bit", cAs4);
  }
  auto fb = cat.scheme(cAs, "fallback.c_as");
  if (!fb) return fb.error();
  auto fb4 = cat.scheme(cAs4, "fallback.c_as_4bit");
  if (!fb4) return fb4.error();
  cat.m_fallbackC = fb->c;
  cat.m_fallbackId = fb->id;
  cat.m_fallback4BitC = fb4->c;
  cat.m_fallback4BitId = fb4->id;
  // The precision checkpoints keep their LM head in: "checkpoint_lm_head": {"scheme": id}, else
  // bf16 when the catalog has it. A named scheme must exist; the default may be absent.
  const bool named = sj->contains("checkpoint_lm_head");
  std::string headId = "bf16";
  if (named) {
    const Json& h = (*sj)["checkpoint_lm_head"];
    if (!h.is_object() || !h.contains("scheme") || !h["scheme"].is_string()) {
      return Error{"catalog/schemes.json", "/checkpoint_lm_head/scheme", "checkpoint_lm_head",
                   "expected an object with a scheme id"};
    }
    headId = h["scheme"].get<std::string>();
  }
  auto head = cat.scheme(headId, "checkpoint_lm_head.scheme");
  if (head) {
    cat.m_checkpointLmHead = *head;
  } else if (named) {
    return head.error();
  }
  return cat;
}

Result<std::map<std::string, GpuCalibration>> parseDefaultCalibrations(std::string_view text,
                                                                       const std::string& file) {
  auto j = parseJson(text, file);
  if (!j) return j.error();
  if (!j->is_object() || !j->contains("gpus") || !(*j)["gpus"].is_object())
    return Error{file, "/gpus", "gpus", "expected an object of calibration blocks by GPU id"};
  std::map<std::string, GpuCalibration> out;
  for (const auto& [id, block] : (*j)["gpus"].items()) {
    auto c = parseGpuCalibration(block, file, childPointer("/gpus", id));
    if (!c) return c.error();
    out.emplace(id, std::move(*c));
  }
  return out;
}

const GpuCalibration* Catalog::defaultCalibration(const std::string& gpuId) const {
  std::string key = gpuId;
  for (auto& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const auto it = m_defaultCalibrations.find(key);
  return it == m_defaultCalibrations.end() ? nullptr : &it->second;
}

void Catalog::setFallbacks(Scenario& s) const {
  s.fallbackC = m_fallbackC;
  s.fallbackId = m_fallbackId;
  s.fallback4BitC = m_fallback4BitC;
  s.fallback4BitId = m_fallback4BitId;
}

const Catalog& Catalog::bundled() {
  static const Catalog cat = [] {
    std::vector<CatalogModel> models;
    for (const auto& path : bundledFilesUnder("catalog/models/")) {
      const auto text = bundledFile(path);
      std::string id = std::filesystem::path(path).stem().string();
      models.push_back({id, std::string(*text), path});
    }
    const auto gpus = bundledFile("catalog/gpus.json");
    const auto schemes = bundledFile("catalog/schemes.json");
    if (!gpus || !schemes)
      throw std::logic_error("bundled catalog is missing gpus.json or schemes.json");
    auto c = fromTexts(std::move(models), std::string(*gpus), std::string(*schemes));
    if (!c) throw std::logic_error("bundled catalog is invalid: " + c.error().str());
    if (const auto cal = bundledFile("catalog/calibration.json")) {
      auto defaults = parseDefaultCalibrations(*cal, "catalog/calibration.json");
      if (!defaults)
        throw std::logic_error("bundled calibration is invalid: " + defaults.error().str());
      c->m_defaultCalibrations = std::move(*defaults);
    }
    return std::move(c).value();
  }();
  return cat;
}

Result<ModelArch> Catalog::resolveModel(const std::string& idOrPath) const {
  const std::string key = asciiLower(idOrPath);
  for (const auto& m : m_models) {
    if (asciiLower(m.id) == key) {
      auto j = parseJson(m.configText, m.resourcePath);
      if (!j) return j.error();
      return parseModelConfig(*j, m.resourcePath, m.id);
    }
  }
  std::error_code ec;
  if (std::filesystem::exists(idOrPath, ec)) return loadModelConfigFile(idOrPath);
  return Error{
      "", "", "model",
      "unknown model '" + idOrPath + "': not a catalog id (" + modelIds() + ") and no such file"};
}

Result<GpuSpec> Catalog::resolveGpu(const std::string& idOrPath) const {
  const std::string key = asciiLower(idOrPath);
  for (const auto& g : m_gpus) {
    if (asciiLower(g.id) == key) return g;
  }
  std::error_code ec;
  if (std::filesystem::exists(idOrPath, ec)) return loadGpuFile(idOrPath);
  return Error{
      "", "", "gpu",
      "unknown GPU '" + idOrPath + "': not a catalog id (" + gpuIds() + ") and no such file"};
}

Result<Scheme> Catalog::scheme(const std::string& id, const std::string& field) const {
  const std::string key = asciiLower(id);
  for (const auto& s : m_schemes) {
    if (asciiLower(s.id) == key) return s;
  }
  return Error{"", "", field, "unknown scheme '" + id + "'; known: " + schemeIds()};
}

std::string Catalog::modelIds() const {
  return joinIds(m_models, [](const CatalogModel& m) { return m.id; });
}
std::string Catalog::gpuIds() const {
  return joinIds(m_gpus, [](const GpuSpec& g) { return g.id; });
}
std::string Catalog::schemeIds() const {
  return joinIds(m_schemes, [](const Scheme& s) { return s.id; });
}

}  // namespace qf
