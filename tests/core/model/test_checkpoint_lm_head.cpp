// Checkpoints as they are (docs/model.md): a quantized scheme's LM head and embeddings are
// priced at the catalog's checkpoint precision (bf16) unless the candidate or the scheme says
// otherwise; --datasheet keeps the seeds' convention (every streamed weight in the scheme).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/scenario_spec.hpp>

using namespace qf;

namespace {

constexpr double kGib = 1024.0 * 1024.0 * 1024.0;

struct Priced {
  double weightsGib = 0;
  std::string headScheme;
  double memoryFloorMs = 0;
};

Priced price(const std::string& linear, bool datasheet, const std::string& lmHead = "",
             const Catalog& cat = Catalog::bundled()) {
  ScenarioSpec spec;
  spec.model = "llama-3-8b";
  spec.gpu = "h100-sxm";
  spec.datasheet = datasheet;
  auto s = resolveScenario(spec, cat);
  if (!s) FAIL(s.error().str());
  // The scenario builder sets the checkpoint convention itself, unless asked for the datasheet.
  if (s->checkpointLmHead.has_value() == datasheet) FAIL("checkpoint convention not as asked");
  if (!datasheet) s->checkpointLmHead = cat.checkpointLmHead();  // the catalog under test's
  auto cands = lmHead.empty() ? makeCandidates({linear}, "", "", "", cat)
                              : makeCandidates({}, linear, "", lmHead, cat);
  REQUIRE(cands.ok());
  auto rep = runEngine(*s, *cands, {1.0});
  if (!rep) FAIL(rep.error().str());
  const SchemeReport& r = rep->schemes.front();
  Priced p;
  p.weightsGib = r.capacity.weightsGib;
  p.headScheme = r.curve.kinds[static_cast<std::size_t>(LayerKind::LmHead)].scheme.id;
  p.memoryFloorMs = r.memoryFloorMs;
  return p;
}

}  // namespace

TEST_CASE("W4A16 keeps Llama-3-8B's LM head and embeddings in bf16, as GPTQ/AWQ checkpoints do",
          "[engine][checkpoint]") {
  // Llama-3-8B: 8,030,261,248 parameters, of which the untied embedding and LM head are
  // 128,256 x 4,096 each (published config); the rest is the decoder's linear layers and norms.
  const double vd = 128256.0 * 4096.0;
  const double total = 8030261248.0;
  const double bits = 4.0 + 16.0 / 128.0;  // w4a16-g128
  const Priced real = price("w4a16-g128", false);
  CHECK(real.headScheme == "bf16");
  // Norms (65 vectors of 4,096) are not GEMM weights: within 0.01 GiB.
  CHECK(real.weightsGib == Approx(((total - 2 * vd) * bits / 8 + 2 * vd * 2) / kGib).margin(0.01));
  CHECK(real.weightsGib == Approx(5.31).margin(0.01));
  // The seeds' convention, every weight at 4.125 bits: 3.86 GiB.
  const Priced seed = price("w4a16-g128", true);
  CHECK(seed.headScheme == "w4a16-g128");
  CHECK(seed.weightsGib == Approx(total * bits / 8 / kGib).margin(0.01));
  CHECK(seed.weightsGib == Approx(3.86).margin(0.01));
  // The head now streams 2 bytes per weight on every step: the datasheet floor (η_β = 1 in
  // the seed mode) grows by (2 − 4.125/8)·V·d bytes over the HBM bandwidth.
  auto gpu = Catalog::bundled().resolveGpu("h100-sxm");
  REQUIRE(gpu.ok());
  ScenarioSpec spec;
  spec.model = "llama-3-8b";
  spec.gpu = "h100-sxm";
  spec.datasheet = true;
  auto s = resolveScenario(spec);
  REQUIRE(s.ok());
  s->checkpointLmHead = Catalog::bundled().checkpointLmHead();
  auto cands = makeCandidates({"w4a16-g128"}, "", "", "");
  REQUIRE(cands.ok());
  auto rep = runEngine(*s, *cands, {1.0});
  REQUIRE(rep.ok());
  const double extraMs = (2.0 - bits / 8) * vd / gpu->bandwidthBytesPerS() * 1e3;
  CHECK(rep->schemes.front().memoryFloorMs - seed.memoryFloorMs == Approx(extraMs).epsilon(1e-6));
}

TEST_CASE("a candidate's own lm_head scheme, and bf16 itself, are left as they are",
          "[engine][checkpoint]") {
  CHECK(price("w4a16-g128", false, "w4a16-g128").headScheme == "w4a16-g128");
  CHECK(price("w8a8-fp8", false, "w8a8-fp8").headScheme == "w8a8-fp8");
  CHECK(price("w8a8-fp8", false).headScheme == "bf16");
  CHECK(price("bf16", false).headScheme == "bf16");
  // bf16 is priced the same in both conventions.
  CHECK(price("bf16", false).weightsGib == Approx(price("bf16", true).weightsGib));
}

TEST_CASE(
    "a scheme whose checkpoints quantize the head keeps it, and the catalog names the "
    "precision",
    "[engine][checkpoint][catalog]") {
  const Catalog& bundled = Catalog::bundled();
  REQUIRE(bundled.checkpointLmHead().has_value());
  CHECK(bundled.checkpointLmHead()->id == "bf16");
  std::vector<CatalogModel> models;
  for (const auto& m : bundled.models()) models.push_back(m);
  auto h100 = bundled.resolveGpu("h100-sxm");
  REQUIRE(h100.ok());
  const std::string gpus = Json{{"gpus", Json::array({gpuToJson(*h100)})}}.dump();
  const std::string schemes = R"({"schemes": [
      {"id": "bf16", "weight_bits": 16, "path": "bf16", "modelled_only": true},
      {"id": "q4", "weight_bits": 4, "scale_bits": 16, "group_size": 128, "path": "bf16", "c": 2,
       "modelled_only": true},
      {"id": "q4-all", "weight_bits": 4, "scale_bits": 16, "group_size": 128, "path": "bf16",
       "c": 2, "quantizes_lm_head": true, "modelled_only": true},
      {"id": "w8a16", "weight_bits": 8, "path": "bf16", "c": 1, "modelled_only": true},
      {"id": "w4a16-g128", "weight_bits": 4, "scale_bits": 16, "group_size": 128, "path": "bf16",
       "c": 2, "modelled_only": true}]})";
  auto cat = Catalog::fromTexts(models, gpus, schemes);
  if (!cat) FAIL(cat.error().str());
  CHECK(price("q4", false, "", *cat).headScheme == "bf16");
  CHECK(price("q4-all", false, "", *cat).headScheme == "q4-all");
  // A catalog may name another precision; one that names no scheme it has is refused.
  const std::string named =
      schemes.substr(0, schemes.size() - 1) + R"(, "checkpoint_lm_head": {"scheme": "w8a16"}})";
  auto cat8 = Catalog::fromTexts(models, gpus, named);
  if (!cat8) FAIL(cat8.error().str());
  CHECK(price("q4", false, "", *cat8).headScheme == "w8a16");
  const std::string bad =
      schemes.substr(0, schemes.size() - 1) + R"(, "checkpoint_lm_head": {"scheme": "nope"}})";
  auto refused = Catalog::fromTexts(models, gpus, bad);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().str().find("checkpoint_lm_head") != std::string::npos);
}

TEST_CASE("an engine's memory rule decides whether a 70B FP8 checkpoint fits one H100",
          "[engine][checkpoint][memory]") {
  // Llama-3.1-70B in W8A8-FP8 with its LM head and embeddings in bf16 (as ModelOpt and
  // compressed-tensors checkpoints keep them) on one H100 SXM (79.65 GiB), 6 GiB reserved.
  ScenarioSpec spec;
  spec.model = "llama-3.1-70b";
  spec.gpu = "h100-sxm";
  spec.kvDtype = "fp8";
  auto s = resolveScenario(spec);
  REQUIRE(s.ok());
  REQUIRE(s->checkpointLmHead.has_value());
  auto cands = makeCandidates({"w8a8-fp8"}, "", "", "");
  REQUIRE(cands.ok());
  auto vllm = runEngine(*s, *cands, {1.0});
  REQUIRE(vllm.ok());
  const CapacityReport& v = vllm->schemes.front().capacity;
  // Linear weights at 1 byte, the two 128,256 x 8,192 tensors at 2 bytes: ~67.7 GiB.
  const double vd = 128256.0 * 8192.0;
  CHECK(v.weightsGib == Approx((70553706496.0 - 2 * vd + 2 * vd * 2) / kGib).margin(0.02));
  // vLLM's rule: 0.92 x 79.65 - 6 = 67.28 GiB for weights and KV: the weights do not fit.
  CHECK(v.budgetGib == Approx(0.92 * s->gpu.memoryGib - 6.0));
  CHECK_FALSE(v.fits);
  // TensorRT-LLM's: 0.9 of what the weights and the reserve leave.
  s->kvFreeFraction = *kvFreeFractionOf("trtllm");
  CHECK(s->kvFreeFraction == 0.9);
  auto trt = runEngine(*s, *cands, {1.0});
  REQUIRE(trt.ok());
  const CapacityReport& t = trt->schemes.front().capacity;
  const double kv = 0.9 * (s->gpu.memoryGib - 6.0 - t.weightsGib);
  CHECK(t.budgetGib - t.weightsGib == Approx(kv));
  CHECK(t.fits);
  CHECK(t.maxSeqs == static_cast<std::int64_t>(std::floor(kv / t.kvGibPerSeq)));
  CHECK(kvFreeFractionOf("vllm") == 0.0);
  CHECK(kvFreeFractionOf("sglang") == 0.0);
  CHECK_FALSE(kvFreeFractionOf("ollama").has_value());
  s->kvFreeFraction = 1.5;
  CHECK_FALSE(runEngine(*s, *cands, {1.0}).ok());
}

TEST_CASE("W4A16 at group 32 stores a 16-bit scale per 32 weights: Llama-3-8B by hand",
          "[engine][checkpoint]") {
  // 4 + 16/32 = 4.5 bits a weight for the decoder's linear layers; the untied embedding and
  // LM head (128,256 x 4,096 each) in bf16, as GPTQ checkpoints keep them: 5.61 GiB, 0.30 GiB
  // more than group 128's 5.31.
  const double vd = 128256.0 * 4096.0;
  const double total = 8030261248.0;
  const Priced g32 = price("w4a16-g32", false);
  CHECK(g32.headScheme == "bf16");
  CHECK(g32.weightsGib == Approx(((total - 2 * vd) * 4.5 / 8 + 2 * vd * 2) / kGib).margin(0.01));
  CHECK(g32.weightsGib == Approx(5.61).margin(0.01));
  CHECK(g32.weightsGib - price("w4a16-g128", false).weightsGib == Approx(0.30).margin(0.01));
}
