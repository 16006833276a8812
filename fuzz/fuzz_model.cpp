// libFuzzer target: the readers behind `qfront model --model FILE --gpu FILE`. Any bytes as
// JSON, then as a Hugging Face config.json (parseModelConfig) and as a GPU file (parseGpu);
// whatever parses also runs through the engine (a catalog GPU or model for the other half),
// as qfront model would. Nothing may crash, hang or trip a sanitizer; a GPU that parses must
// read back from gpuToJson.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/hardware.hpp>
#include <quantfront/core/model/model_config.hpp>
#include <quantfront/core/model/scenario_spec.hpp>

#include "fuzz_support.hpp"

namespace {

struct Fixture {
  qf::ModelArch model;
  qf::GpuSpec gpu;
  std::vector<qf::SchemeAssignment> candidates;
  std::vector<double> batches{1, 7, 64, 1000, 4096};
  double fallbackC = 1.0;
};

const Fixture& fixture() {
  static const Fixture f = [] {
    const qf::Catalog& cat = qf::Catalog::bundled();
    Fixture out;
    auto model = cat.resolveModel("qwen3-30b-a3b");
    auto gpu = cat.resolveGpu("h100-sxm");
    auto cands = qf::makeCandidates({"bf16", "w4a16-g128", "w8a8-fp8"}, "w8a8-fp8", "w4a8-fp8-g128",
                                    "", cat);
    if (!model || !gpu || !cands) std::abort();
    out.model = *model;
    out.gpu = *gpu;
    out.candidates = *cands;
    out.fallbackC = cat.fallbackC();
    return out;
  }();
  return f;
}

void runScenario(const qf::ModelArch& model, const qf::GpuSpec& gpu) {
  const Fixture& f = fixture();
  qf::Scenario s;
  s.model = model;
  s.gpu = gpu;
  s.fallbackC = f.fallbackC;
  s.contextTokens = 4096;
  if (qf::validateScenario(s)) return;
  (void)qf::runEngine(s, f.candidates, f.batches);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return qf::fuzz::runGuarded([&]() -> int {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    auto doc = qf::parseJson(bytes, "fuzz.json", /*allowNonFinite=*/false);
    if (!doc) return doc.error().str().empty() ? 1 : 0;
    if (auto m = qf::parseModelConfig(*doc, "fuzz.json", "fuzz")) {
      (void)qf::countParams(*m);
      if (!qf::checkParamTotal(*m)) runScenario(*m, fixture().gpu);
    }
    if (auto g = qf::parseGpu(*doc, "fuzz.json", "/")) {
      if (!qf::parseGpu(qf::gpuToJson(*g), "fuzz-roundtrip.json", "/")) std::abort();
      runScenario(fixture().model, *g);
    }
    return 0;
  });
}
