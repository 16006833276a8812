// The catalog is the one place a scheme or a GPU is described (docs/architecture.md,
// "Checklists"): a scheme's name hints, default ticks and the kernels that time it, and the
// names the driver gives a GPU, all come from resources/catalog; a scheme added by one JSON
// entry is found by auto-attach without another edit.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/calibration.hpp>
#include <quantfront/core/base/kernels.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/session/attach_runs.hpp>

using namespace qf;
using Json = nlohmann::json;

namespace {

std::vector<CatalogModel> bundledModels() {
  std::vector<CatalogModel> models;
  for (const auto& m : Catalog::bundled().models()) models.push_back(m);
  return models;
}

std::string oneGpu(const Json& deviceNames) {
  Json g = gpuToJson(*Catalog::bundled().resolveGpu("h100-sxm"));
  if (!deviceNames.is_null()) g["device_names"] = deviceNames;
  return Json{{"gpus", Json::array({g})}}.dump();
}

constexpr const char* kTwoSchemes = R"({"schemes": [
    {"id": "bf16", "weight_bits": 16, "path": "bf16", "kernels": {"gemm": "bf16"}},
    {"id": "w4a16-g128", "weight_bits": 4, "scale_bits": 16, "group_size": 128, "path": "bf16",
     "c": 2, "modelled_only": true}],
  "fallback": {"c_as": "w4a16-g128", "c_as_4bit": "w4a16-g128"}})";

}  // namespace

TEST_CASE("every bundled scheme is timed by the kernels the catalog names, or modelled only",
          "[catalog]") {
  const Catalog& cat = Catalog::bundled();
  for (const auto& s : cat.schemes()) {
    INFO(s.id);
    const SchemeEntry* e = cat.schemeEntry(s.id);
    REQUIRE(e != nullptr);
    const MeasurableScheme* m = measurableScheme(s.id);
    if (e->modelledOnly) {
      CHECK(m == nullptr);
      continue;
    }
    // The kernel table the measurement side runs agrees with the catalog entry.
    REQUIRE(m != nullptr);
    CHECK(std::string(m->gemmRateKey) == e->gemmKernel);
    CHECK(m->dequant == e->dequantKernel);
  }
  CHECK(cat.schemesDefaultFor("deploy") ==
        std::vector<std::string>{"bf16", "w8a8-fp8", "w8a8-int8", "w4a16-g128"});
  CHECK(cat.schemesDefaultFor("measure") ==
        std::vector<std::string>{"bf16", "w8a8-fp8", "w4a16-g128"});
  CHECK(ScenarioSpec{}.schemes == std::vector<std::string>{"bf16", "w8a8-fp8", "w4a16-g128"});
  CHECK(cat.baselineSchemeId() == "bf16");
}

TEST_CASE("a scheme with neither kernels nor modelled_only is refused, naming it", "[catalog]") {
  const std::string bad = R"({"schemes": [
      {"id": "bf16", "weight_bits": 16, "path": "bf16"}]})";
  auto refused = Catalog::fromTexts(bundledModels(), oneGpu(nullptr), bad);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().position == "/schemes/0");
  CHECK(refused.error().field == "kernels");
  const std::string both = R"({"schemes": [
      {"id": "bf16", "weight_bits": 16, "path": "bf16", "kernels": {"gemm": "bf16"},
       "modelled_only": true}]})";
  auto twice = Catalog::fromTexts(bundledModels(), oneGpu(nullptr), both);
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().field == "modelled_only");
}

TEST_CASE("a scheme added by one catalog entry is found in checkpoint names", "[catalog]") {
  // A newcomer's scheme: W6A16, one JSON entry with its name hints.
  std::string schemes = kTwoSchemes;
  schemes.insert(schemes.find("],\n  \"fallback\""), R"(,
    {"id": "w6a16", "weight_bits": 6, "path": "bf16", "c": 2, "modelled_only": true,
     "name_hints": {"words": ["w6a16", "fp6"], "unless": ["fp8"]}, "default_for": ["deploy"]})");
  auto cat = Catalog::fromTexts(bundledModels(), oneGpu(nullptr), schemes);
  if (!cat) FAIL(cat.error().str());
  CHECK(schemeFromName("org/Llama-3.1-8B-Instruct-W6A16", *cat).scheme == "w6a16");
  CHECK(schemeFromName("org/Llama-3.1-8B-FP6", *cat).scheme == "w6a16");
  CHECK(schemeFromName("org/Llama-3.1-8B-FP6-FP8", *cat).scheme.empty());  // "unless"
  CHECK(cat->schemesDefaultFor("deploy") == std::vector<std::string>{"w6a16"});
  // The bundled catalog's hints, as auto-attach read them before they were data.
  CHECK(schemeFromName("neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8").scheme == "w8a8-fp8");
  CHECK(schemeFromName("neuralmagic/Meta-Llama-3.1-8B-Instruct-quantized.w8a8").scheme ==
        "w8a8-int8");
  CHECK(schemeFromName("RedHatAI/Llama-3.1-8B-Instruct-W8A8-FP8").scheme == "w8a8-fp8");
  CHECK(schemeFromName("TheBloke/Llama-2-7B-GPTQ").scheme == "w4a16-g128");
  // A group-32 branch is the group-32 scheme: g128's words give way to its "unless".
  CHECK(schemeFromName("TheBloke/Llama-2-7B-GPTQ-gptq-4bit-32g-actorder_True").scheme ==
        "w4a16-g32");
  const auto both = schemeFromName("x-int4-fp8");
  CHECK(both.ambiguous);
  CHECK(both.scheme.empty());
}

TEST_CASE("driver device names come from the catalog's device_names rules", "[catalog]") {
  // The bundled rules, and a device no rule names.
  CHECK(Catalog::bundled().gpuForDeviceName("NVIDIA RTX A6000") == "a6000");
  CHECK(Catalog::bundled().gpuForDeviceName("NVIDIA H100 PCIe") == "h100-pcie");
  CHECK(Catalog::bundled().gpuForDeviceName("NVIDIA A40").empty());
  // A GPU file's catalog with its own rule: found; two rules claiming one name: no guess.
  auto mine = Catalog::fromTexts(
      bundledModels(), oneGpu(Json{{"words", {"h100"}}, {"without", {"pcie"}}}), kTwoSchemes);
  if (!mine) FAIL(mine.error().str());
  CHECK(mine->gpuForDeviceName("NVIDIA H100 80GB HBM3") == "h100-sxm");
  CHECK(mine->gpuForDeviceName("NVIDIA H100 PCIe").empty());
  Json g = gpuToJson(*Catalog::bundled().resolveGpu("h100-sxm"));
  g["device_names"] = Json{{"words", {"h100"}}};
  Json g2 = g;
  g2["id"] = "h100-twin";
  auto twins =
      Catalog::fromTexts(bundledModels(), Json{{"gpus", Json::array({g, g2})}}.dump(), kTwoSchemes);
  if (!twins) FAIL(twins.error().str());
  CHECK(twins->gpuForDeviceName("NVIDIA H100 80GB HBM3").empty());
  // A rule without words is refused with its position.
  auto bad = Catalog::fromTexts(bundledModels(), oneGpu(Json{{"without", {"pcie"}}}), kTwoSchemes);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().position == "/gpus/0/device_names/words");
}

TEST_CASE("no scheme id is written in code outside the catalog, but where listed", "[catalog]") {
  namespace fs = std::filesystem;
  // Where an id may still appear, and why. Everything else asks the catalog.
  const std::set<std::string> allowed = {
      // The measuring side's kernel table; the first test here holds it to the catalog.
      "core/src/base/kernels.cpp", "cuda/src/measure_run.hpp", "cuda/src/cublaslt_gemm.cpp",
      // The fallback kernels' defaults when schemes.json names none.
      "core/src/model/catalog.cpp", "core/include/quantfront/core/model/catalog.hpp",
      "core/include/quantfront/core/model/engine.hpp"};
  std::vector<std::string> ids;
  for (const auto& s : Catalog::bundled().schemes()) {
    // "bf16" is also a tensor path and a KV dtype name: those uses are not scheme ids.
    if (!tensorPathFromName(s.id)) ids.push_back("\"" + s.id + "\"");
  }
  REQUIRE(ids.size() >= 8);
  std::vector<std::string> found;
  const fs::path root(QF_SOURCE_DIR);
  for (const char* dir : {"core", "app", "ui", "cuda/src"}) {
    for (const auto& f : fs::recursive_directory_iterator(root / dir)) {
      const auto ext = f.path().extension();
      if (ext != ".cpp" && ext != ".hpp" && ext != ".cu" && ext != ".cuh") continue;
      const std::string rel = fs::relative(f.path(), root).generic_string();
      if (allowed.count(rel)) continue;
      std::ifstream in(f.path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        const std::string code = line.substr(0, line.find("//"));  // comments may name ids
        for (const auto& id : ids) {
          if (code.find(id) != std::string::npos) found.push_back(rel + ":" + std::to_string(n));
        }
      }
    }
  }
  std::string where;
  for (const auto& f : found) where += " " + f;
  INFO("scheme ids in code at:" << where);
  CHECK(found.empty());
}

TEST_CASE("a scheme's hf_quantization rules name its checkpoints, and bad rules are refused",
          "[catalog][checkpoint]") {
  // A scheme added as one entry: its checkpoints (a method the reader does not know) are
  // recognised by its rule alone.
  const std::string schemes = R"({"schemes": [
    {"id": "bf16", "weight_bits": 16, "path": "bf16", "kernels": {"gemm": "bf16"}},
    {"id": "w3a16-exl", "weight_bits": 3, "scale_bits": 16, "group_size": 128, "path": "bf16",
     "c": 2, "modelled_only": true,
     "hf_quantization": [{"quant_method": ["exl3"]},
                         {"quant_method": ["gptq"], "weight_bits": 3, "symmetric": true}]}],
    "fallback": {"c_as": "w3a16-exl", "c_as_4bit": "w3a16-exl"}})";
  auto cat = Catalog::fromTexts(bundledModels(), oneGpu(Json{{"words", {"h100"}}}), schemes);
  if (!cat) FAIL(cat.error().str());
  CheckpointFacts f;
  f.method = "exl3";
  CHECK(cat->schemeForCheckpoint(f) == "w3a16-exl");
  f.method = "gptq";
  f.weightBits = 3;
  CHECK(cat->schemeForCheckpoint(f).empty());  // the rule requires symmetric, unstated here
  f.symmetric = true;
  CHECK(cat->schemeForCheckpoint(f) == "w3a16-exl");
  f.weightBits = 4;
  CHECK(cat->schemeForCheckpoint(f).empty());
  // Every bundled quantized scheme with a checkpoint to make names the checkpoints it is.
  for (const auto& s : Catalog::bundled().schemes()) {
    INFO(s.id);
    const SchemeEntry* e = Catalog::bundled().schemeEntry(s.id);
    REQUIRE(e != nullptr);
    if (s.id != Catalog::bundled().baselineSchemeId()) CHECK_FALSE(e->hfRules.empty());
  }
  // Refused, with the position: an unknown fact, a rule without quant_method, a bad type.
  for (const auto& [rule, position] : std::vector<std::pair<std::string, std::string>>{
           {R"([{"quant_method": ["gptq"], "bitz": 4}])", "/schemes/1/hf_quantization/0/bitz"},
           {R"([{"weight_bits": 4}])", "/schemes/1/hf_quantization/0/quant_method"},
           {R"([{"quant_method": ["gptq"], "weight_type": "fp"}])",
            "/schemes/1/hf_quantization/0/weight_type"},
           {R"({"quant_method": ["gptq"]})", "/schemes/1/hf_quantization"}}) {
    INFO(rule);
    Json j = Json::parse(schemes);
    j["schemes"][1]["hf_quantization"] = Json::parse(rule);
    auto bad = Catalog::fromTexts(bundledModels(), oneGpu(Json{{"words", {"h100"}}}), j.dump());
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().position == position);
  }
}

TEST_CASE("a scheme run by another's kernel takes that scheme's calibrated constants",
          "[catalog]") {
  // W4A16 at group 32 runs Marlin as group 128 does: without constants_of it read its
  // weights at the full bandwidth where the calibration prices Marlin at 0.679 of it on the
  // H100, so a heavier scheme came out faster than the lighter one.
  const Catalog& cat = Catalog::bundled();
  const auto g32 = cat.scheme("w4a16-g32");
  REQUIRE(g32.ok());
  CHECK(g32->constantsOf == "w4a16-g128");
  ScenarioSpec spec;
  spec.model = "llama-3.1-8b";
  spec.gpu = "h100-sxm";
  auto s = resolveScenario(spec);
  REQUIRE(s.ok());
  REQUIRE(s->efficiency.kernelBandwidthFor("w4a16-g128") == Approx(0.679));
  REQUIRE_FALSE(s->efficiency.kernelBandwidthFor("w4a16-g32").has_value());
  auto cands = makeCandidates({"w4a16-g128", "w4a16-g32"}, "", "", "");
  REQUIRE(cands.ok());
  auto rep = runEngine(*s, *cands, {1.0});
  REQUIRE(rep.ok());
  const auto linear = static_cast<std::size_t>(LayerKind::Linear);
  const KindTerm& k128 = rep->schemes[0].curve.kinds[linear];
  const KindTerm& k32 = rep->schemes[1].curve.kinds[linear];
  CHECK(k32.kernelBandwidthEff == Approx(0.679));
  // A fit keeps the kernel's constants under the same id, so g32's points inform g128's.
  CHECK(k32.constantsId == "w4a16-g128");
  CHECK(k128.constantsId == "w4a16-g128");
  CHECK(k32.computeEff == Approx(k128.computeEff));
  // The same kernel reading 4.5 bits a weight for 4.125: a slower floor, never a faster one.
  CHECK(rep->schemes[1].memoryFloorMs > rep->schemes[0].memoryFloorMs);

  // constants_of names another scheme the catalog has: not an unknown one, not itself.
  for (const std::string bad : {"nosuch", "w4a16-g32"}) {
    std::string schemes = kTwoSchemes;
    schemes.insert(schemes.find("],\n  \"fallback\""), std::string(R"(,
    {"id": "w4a16-g32", "weight_bits": 4, "scale_bits": 16, "group_size": 32, "path": "bf16",
     "c": 2, "modelled_only": true, "constants_of": ")") + bad +
                                                           R"("})");
    auto refused = Catalog::fromTexts(bundledModels(), oneGpu(nullptr), schemes);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().field == "constants_of");
    CHECK(refused.error().position == "/schemes/2/constants_of");
  }
}
