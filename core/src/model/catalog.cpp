#include <nlohmann/json.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/core/model/catalog.hpp>

#include <algorithm>
#include <cctype>
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

/// A list of non-empty strings at `key` of `j` (absent: empty), lower-cased when `lower`.
Result<std::vector<std::string>> stringList(const Json& j, const char* key,
                                            const std::string& pointer, bool lower) {
  std::vector<std::string> out;
  const auto it = j.find(key);
  if (it == j.end()) return out;
  if (!it->is_array())
    return Error{"catalog/schemes.json", pointer + "/" + key, key, "expected an array of words"};
  for (const auto& w : *it) {
    if (!w.is_string() || w.get<std::string>().empty())
      return Error{"catalog/schemes.json", pointer + "/" + key, key, "expected non-empty words"};
    out.push_back(lower ? asciiLower(w.get<std::string>()) : w.get<std::string>());
  }
  return out;
}

/// A scheme's "hf_quantization" rules: [{"quant_method": [...], "weight_bits": 4, ...}].
Result<std::vector<SchemeEntry::HfRule>> parseHfRules(const Json& j, const std::string& pointer) {
  const std::string file = "catalog/schemes.json";
  if (!j.is_array()) return Error{file, pointer, "hf_quantization", "expected an array of rules"};
  std::vector<SchemeEntry::HfRule> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string at = pointer + "/" + std::to_string(i);
    const Json& r = j[i];
    if (!r.is_object()) return Error{file, at, "hf_quantization", "expected a rule object"};
    SchemeEntry::HfRule rule;
    auto methods = stringList(r, "quant_method", at, true);
    if (!methods) return methods.error();
    if (methods->empty())
      return Error{file, at + "/quant_method", "quant_method", "a rule names its quant_methods"};
    rule.methods = std::move(*methods);
    for (const auto& [key, v] : r.items()) {
      if (key == "quant_method") continue;
      const std::string here = at + "/" + key;
      if (key == "weight_bits" || key == "activation_bits") {
        if (!v.is_number() || v.get<double>() < 0)
          return Error{file, here, key, "expected a number of bits (0: unquantized)"};
        (key == "weight_bits" ? rule.weightBits : rule.activationBits) = v.get<double>();
      } else if (key == "weight_type" || key == "activation_type") {
        if (!v.is_string() || (v != "int" && v != "float"))
          return Error{file, here, key, "expected \"int\" or \"float\""};
        (key == "weight_type" ? rule.weightType : rule.activationType) = v.get<std::string>();
      } else if (key == "symmetric") {
        if (!v.is_boolean()) return Error{file, here, key, "expected true or false"};
        rule.symmetric = v.get<bool>();
      } else if (key == "group_size") {
        if (!v.is_number() || !(v.get<double>() == -1 || v.get<double>() >= 1))
          return Error{file, here, key, "expected weights per scale group (-1: per channel)"};
        rule.groupSize = v.get<double>();
      } else if (key == "quant_algo") {
        if (!v.is_string()) return Error{file, here, key, "expected ModelOpt's quant_algo"};
        rule.algo = v.get<std::string>();
      } else {
        return Error{file, here, key,
                     "unknown fact (quant_method, weight_bits, weight_type, symmetric, "
                     "group_size, activation_bits, activation_type, quant_algo)"};
      }
    }
    out.push_back(std::move(rule));
  }
  return out;
}

/// A scheme that takes another's constants names another scheme of the catalog, one with
/// constants of its own.
std::optional<Error> checkConstantsOf(const std::vector<Scheme>& schemes) {
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    const Scheme& s = schemes[i];
    if (s.constantsOf.empty()) continue;
    const auto other = std::find_if(schemes.begin(), schemes.end(),
                                    [&](const Scheme& o) { return o.id == s.constantsOf; });
    if (other == schemes.end() || other->id == s.id || !other->constantsOf.empty()) {
      return Error{
          "catalog/schemes.json", "/schemes/" + std::to_string(i) + "/constants_of", "constants_of",
          "'" + s.constantsOf + "' is not another scheme of the catalog with constants of its own"};
    }
  }
  return std::nullopt;
}

Result<SchemeEntry> parseSchemeEntry(const Json& j, const std::string& pointer) {
  SchemeEntry e;
  if (const auto h = j.find("name_hints"); h != j.end()) {
    if (!h->is_object())
      return Error{"catalog/schemes.json", pointer + "/name_hints", "name_hints",
                   "expected {\"words\": [...], \"unless\": [...]}"};
    auto words = stringList(*h, "words", pointer + "/name_hints", true);
    if (!words) return words.error();
    auto unless = stringList(*h, "unless", pointer + "/name_hints", true);
    if (!unless) return unless.error();
    e.nameWords = std::move(*words);
    e.unlessWords = std::move(*unless);
  }
  auto uses = stringList(j, "default_for", pointer, false);
  if (!uses) return uses.error();
  for (const auto& u : *uses) {
    if (u != "scenario" && u != "deploy" && u != "measure")
      return Error{"catalog/schemes.json", pointer + "/default_for", "default_for",
                   "expected scenario, deploy or measure, found '" + u + "'"};
  }
  e.defaultFor = std::move(*uses);
  e.modelledOnly = j.value("modelled_only", false);
  if (const auto k = j.find("kernels"); k != j.end() && k->is_object()) {
    e.gemmKernel = k->value("gemm", std::string());
    e.dequantKernel = k->value("dequant", false);
  }
  if (const auto st = j.find("plot_style"); st != j.end() && st->is_object()) {
    e.plotColor = st->value("color", std::string());
    const bool hex = e.plotColor.size() == 7 && e.plotColor[0] == '#' &&
                     std::all_of(e.plotColor.begin() + 1, e.plotColor.end(), [](char ch) {
                       return std::isxdigit(static_cast<unsigned char>(ch));
                     });
    if (!e.plotColor.empty() && !hex)
      return Error{"catalog/schemes.json", pointer + "/plot_style/color", "color",
                   "expected #RRGGBB, found '" + e.plotColor + "'"};
    if (const auto d = st->find("dashes"); d != st->end()) {
      for (const auto& v : *d) {
        if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 100)
          return Error{"catalog/schemes.json", pointer + "/plot_style/dashes", "dashes",
                       "expected dash lengths in (0, 100] line widths"};
        e.plotDashes.push_back(v.get<double>());
      }
    }
  }
  if (const auto oq = j.find("online_quantization"); oq != j.end()) {
    if (!oq->is_object())
      return Error{"catalog/schemes.json", pointer + "/online_quantization", "online_quantization",
                   "expected {engine: flag value}"};
    for (const auto& [engine, flag] : oq->items()) {
      if (!flag.is_string() || flag.get<std::string>().empty())
        return Error{"catalog/schemes.json", pointer + "/online_quantization/" + engine, engine,
                     "expected the engine's --quantization value"};
      e.onlineQuantization[engine] = flag.get<std::string>();
    }
  }
  e.checkpointNote = j.value("checkpoint", std::string());
  if (const auto hq = j.find("hf_quantization"); hq != j.end()) {
    auto rules = parseHfRules(*hq, pointer + "/hf_quantization");
    if (!rules) return rules.error();
    e.hfRules = std::move(*rules);
  }
  const bool measured = !e.gemmKernel.empty() || e.dequantKernel;
  if (measured == e.modelledOnly)
    return Error{"catalog/schemes.json", pointer, measured ? "modelled_only" : "kernels",
                 measured ? "names kernels and modelled_only both"
                          : "names neither the kernels that time it nor \"modelled_only\": "
                            "true"};
  return e;
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
    if (const auto seg = gpus[i].find("segment"); seg != gpus[i].end()) {
      const std::string v = seg->is_string() ? seg->get<std::string>() : std::string();
      if (v != "data-centre" && v != "workstation" && v != "consumer")
        return Error{"catalog/gpus.json", "/gpus/" + std::to_string(i) + "/segment", "segment",
                     "expected data-centre, workstation or consumer"};
      cat.m_segments[g->id] = v;
    }
    if (const auto dn = gpus[i].find("device_names"); dn != gpus[i].end()) {
      const std::string at = "/gpus/" + std::to_string(i) + "/device_names";
      DeviceNameRule rule;
      for (auto [key, dst] : {std::pair{"words", &rule.words}, {"without", &rule.without}}) {
        const auto list = dn->find(key);
        if (list == dn->end()) continue;
        if (!list->is_array())
          return Error{"catalog/gpus.json", at + "/" + key, key, "expected an array of phrases"};
        for (const auto& w : *list) {
          if (!w.is_string() || w.get<std::string>().empty())
            return Error{"catalog/gpus.json", at + "/" + key, key, "expected non-empty phrases"};
          dst->push_back(asciiLower(w.get<std::string>()));
        }
      }
      if (rule.words.empty())
        return Error{"catalog/gpus.json", at + "/words", "words",
                     "a device-name rule needs at least one word"};
      cat.m_deviceNames.emplace_back(g->id, std::move(rule));
    }
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
    auto entry = parseSchemeEntry(schemes[i], "/schemes/" + std::to_string(i));
    if (!entry) return entry.error();
    cat.m_schemeEntries[s->id] = std::move(*entry);
    cat.m_schemes.push_back(std::move(*s));
  }
  if (auto e = checkConstantsOf(cat.m_schemes)) return *e;
  // The unquantized baseline: "baseline", else the first scheme of 16-bit weights on the bf16
  // path (bf16 in the bundled catalog).
  if (sj->contains("baseline")) {
    const Json& b = (*sj)["baseline"];
    if (!b.is_string())
      return Error{"catalog/schemes.json", "/baseline", "baseline", "expected a scheme id"};
    auto base = cat.scheme(b.get<std::string>(), "baseline");
    if (!base) return base.error();
    cat.m_baselineId = base->id;
  } else {
    for (const auto& s : cat.m_schemes) {
      if (s.weightBits >= 16 && s.path == TensorPath::Bf16) {
        cat.m_baselineId = s.id;
        break;
      }
    }
    if (cat.m_baselineId.empty())
      return Error{"catalog/schemes.json", "/baseline", "baseline",
                   "no baseline scheme: name one (an unquantized scheme's id)"};
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
  // the baseline. A named scheme must exist; the default may be absent.
  const bool named = sj->contains("checkpoint_lm_head");
  std::string headId = cat.m_baselineId;
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

namespace {
/// Whether `phrase` occurs in `text` as whole words (no letter or digit on either side).
bool hasWords(const std::string& text, const std::string& phrase) {
  auto alnum = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0; };
  for (auto at = text.find(phrase); at != std::string::npos; at = text.find(phrase, at + 1)) {
    const auto end = at + phrase.size();
    if ((at == 0 || !alnum(text[at - 1])) && (end == text.size() || !alnum(text[end]))) return true;
  }
  return false;
}
}  // namespace

const SchemeEntry* Catalog::schemeEntry(const std::string& id) const {
  const auto it = m_schemeEntries.find(id);
  return it == m_schemeEntries.end() ? nullptr : &it->second;
}

std::vector<std::string> Catalog::schemesDefaultFor(std::string_view use) const {
  std::vector<std::string> ids;
  for (const auto& s : m_schemes) {
    const SchemeEntry* e = schemeEntry(s.id);
    if (e && std::find(e->defaultFor.begin(), e->defaultFor.end(), use) != e->defaultFor.end())
      ids.push_back(s.id);
  }
  return ids;
}

std::vector<std::pair<std::string, std::string>> Catalog::schemeHintsIn(
    const std::vector<std::string>& words) const {
  auto has = [&](const std::string& w) {
    return std::find(words.begin(), words.end(), w) != words.end();
  };
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& w : words) {
    for (const auto& s : m_schemes) {
      const SchemeEntry* e = schemeEntry(s.id);
      if (!e || std::find(e->nameWords.begin(), e->nameWords.end(), w) == e->nameWords.end())
        continue;
      if (std::any_of(e->unlessWords.begin(), e->unlessWords.end(), has)) continue;
      out.emplace_back(s.id, w);
    }
  }
  return out;
}

std::string Catalog::gpuSegment(const std::string& gpuId) const {
  const auto it = m_segments.find(gpuId);
  return it == m_segments.end() ? std::string("data-centre") : it->second;
}

std::string Catalog::gpuForDeviceName(const std::string& deviceName) const {
  const std::string name = asciiLower(deviceName);
  std::string found;
  for (const auto& [id, rule] : m_deviceNames) {
    const bool all = std::all_of(rule.words.begin(), rule.words.end(),
                                 [&](const std::string& w) { return hasWords(name, w); });
    const bool none = std::none_of(rule.without.begin(), rule.without.end(),
                                   [&](const std::string& w) { return hasWords(name, w); });
    if (!all || !none) continue;
    if (!found.empty()) return {};  // two rules claim it: no guess
    found = id;
  }
  return found;
}

Result<std::map<std::string, GpuCalibration>> parseDefaultCalibrations(std::string_view text,
                                                                       const std::string& file) {
  auto j = parseJson(text, file);
  if (!j) return j.error();
  if (!j->is_object() || !j->contains("gpus") || !(*j)["gpus"].is_object())
    return Error{file, "/gpus", "gpus", "expected an object of calibration blocks by GPU id"};
  std::map<std::string, GpuCalibration> out;
  for (const auto& [id, block] : (*j)["gpus"].items()) {
    const std::string ptr = childPointer("/gpus", id);
    Json base = block;
    if (block.is_object() && block.contains("engines")) {
      const Json& engines = block.at("engines");
      if (!engines.is_object())
        return Error{file, ptr + "/engines", "engines", "expected an object of blocks by engine"};
      for (const auto& [engine, eb] : engines.items()) {
        if (engineConstantsKey(engine) != engine || engine.empty()) {
          return Error{file, childPointer(ptr + "/engines", engine), "engines",
                       "unknown engine '" + engine + "' (expected trtllm)"};
        }
        auto c = parseGpuCalibration(eb, file, childPointer(ptr + "/engines", engine));
        if (!c) return c.error();
        out.emplace(id + "@" + engine, std::move(*c));
      }
      base.erase("engines");
    }
    auto c = parseGpuCalibration(base, file, ptr);
    if (!c) return c.error();
    out.emplace(id, std::move(*c));
  }
  return out;
}

std::string engineConstantsKey(const std::string& engine) {
  const std::string e = asciiLower(engine);
  return e == "trtllm" || e == "tensorrt-llm" ? "trtllm" : "";
}

const GpuCalibration* Catalog::defaultCalibration(const std::string& gpuId,
                                                  const std::string& engine) const {
  const std::string key = asciiLower(gpuId);
  const std::string eng = engineConstantsKey(engine);
  if (!eng.empty()) {
    const auto it = m_defaultCalibrations.find(key + "@" + eng);
    if (it != m_defaultCalibrations.end()) return &it->second;
  }
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

bool SchemeEntry::HfRule::matches(const CheckpointFacts& f) const {
  if (std::find(methods.begin(), methods.end(), f.method) == methods.end()) return false;
  if (weightBits && *weightBits != f.weightBits) return false;
  if (activationBits && *activationBits != f.activationBits) return false;
  if (weightType && *weightType != f.weightType) return false;
  if (activationType && *activationType != f.activationType) return false;
  if (algo && *algo != f.algo) return false;
  if (groupSize && f.groupSize != 0 && *groupSize != f.groupSize) return false;
  if (symmetric && (!f.symmetric || *symmetric != *f.symmetric)) return false;
  return true;
}

std::string Catalog::schemeForCheckpoint(const CheckpointFacts& facts) const {
  for (const auto& s : m_schemes) {
    const auto e = m_schemeEntries.find(s.id);
    if (e == m_schemeEntries.end()) continue;
    for (const auto& r : e->second.hfRules) {
      if (r.matches(facts)) return s.id;
    }
  }
  return {};
}

std::string Catalog::schemeOfNearestGroup(const CheckpointFacts& facts) const {
  CheckpointFacts anyGroup = facts;
  anyGroup.groupSize = 0;
  auto perWeight = [](double group) { return group > 0 ? 1.0 / group : 0.0; };
  std::string best;
  double bestDistance = 0;
  for (const auto& s : m_schemes) {
    const auto e = m_schemeEntries.find(s.id);
    if (e == m_schemeEntries.end()) continue;
    const auto& rules = e->second.hfRules;
    if (std::none_of(rules.begin(), rules.end(),
                     [&](const SchemeEntry::HfRule& r) { return r.matches(anyGroup); }))
      continue;
    const double d = std::abs(perWeight(s.groupSize) - perWeight(facts.groupSize));
    if (best.empty() || d < bestDistance) {
      best = s.id;
      bestDistance = d;
    }
  }
  return best;
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
