// GPU files: ranges, and the calibration block.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include <quantfront/core/model/hardware.hpp>

using namespace qf;

namespace {

nlohmann::json h100() {
  return nlohmann::json::parse(R"({"name": "H100", "memory_gib": 79.65, "hbm_bandwidth_tbs": 3.35,
      "tensor_tflops": {"bf16": 989.4, "fp8": 1978.9}, "vector_fp32_tflops": 67, "nvlink_gbs": 900,
      "price_per_hour": 3.29, "source": "datasheet"})");
}

Error gpuError(const nlohmann::json& j) {
  auto g = parseGpu(j, "gpu.json", "/");
  REQUIRE_FALSE(g.ok());
  return g.error();
}

}  // namespace

TEST_CASE("GPU figures outside physical ranges are refused naming the field", "[gpu][bounds]") {
  REQUIRE(parseGpu(h100(), "gpu.json", "/").ok());
  struct Case {
    const char* pointer;
    double value;
    const char* field;
  };
  const Case cases[] = {{"/memory_gib", 1e308, "memory_gib"},
                        {"/memory_gib", 100001, "memory_gib"},
                        {"/hbm_bandwidth_tbs", 1e-308, "hbm_bandwidth_tbs"},
                        {"/hbm_bandwidth_tbs", 1001, "hbm_bandwidth_tbs"},
                        {"/vector_fp32_tflops", 1e-9, "vector_fp32_tflops"},
                        {"/tensor_tflops/bf16", 2e6, "tensor_tflops.bf16"},
                        {"/tensor_tflops/fp8", 1e-300, "tensor_tflops.fp8"},
                        {"/nvlink_gbs", 1e300, "nvlink_gbs"},
                        {"/price_per_hour", 1e300, "price_per_hour"}};
  for (const auto& c : cases) {
    auto j = h100();
    j[nlohmann::json::json_pointer(c.pointer)] = c.value;
    INFO(c.pointer << " = " << c.value);
    const Error e = gpuError(j);
    CHECK(e.field == c.field);
    CHECK(e.position == c.pointer);
  }
  // The ends of each range are accepted.
  auto j = h100();
  j["memory_gib"] = 1e5;
  j["hbm_bandwidth_tbs"] = 1e3;
  j["price_per_hour"] = 0;
  CHECK(parseGpu(j, "gpu.json", "/").ok());
}

TEST_CASE("calibration block: read, validated, written back", "[gpu][calibration]") {
  auto j = h100();
  j["calibration"] = nlohmann::json::parse(R"({"source": "bench run 7", "device": "H100",
      "overhead_ms": 0.02, "bandwidth_efficiency": 0.9,
      "compute_efficiency": {"bf16": 0.74, "w4a16-g128": 0.45},
      "dequant_s_per_weight": {"w4a16-g128": 1.2e-14}, "residuals": {"bandwidth": [0.01]},
      "fits": {"bandwidth": {"records": 3}}})");
  auto g = parseGpu(j, "gpu.json", "/");
  REQUIRE(g.ok());
  REQUIRE(g->calibration);
  const auto& c = *g->calibration;
  CHECK(c.source == "bench run 7");
  CHECK(c.overheadMs == 0.02);
  CHECK(c.bandwidthEfficiency == 0.9);
  CHECK(c.computeEfficiency.at("bf16") == 0.74);
  CHECK(c.computeEfficiency.at("w4a16-g128") == 0.45);
  CHECK(c.dequantSPerWeight.at("w4a16-g128") == 1.2e-14);
  // gpuToJson writes it back, other keys included, and it reads the same again.
  const auto out = gpuToJson(*g);
  CHECK(out["calibration"]["device"] == "H100");
  CHECK(out["calibration"]["residuals"]["bandwidth"][0] == 0.01);
  CHECK(out["calibration"]["fits"]["bandwidth"]["records"] == 3);
  auto again = parseGpu(out, "again.json", "/");
  REQUIRE(again.ok());
  REQUIRE(again->calibration);
  CHECK(again->calibration->computeEfficiency == c.computeEfficiency);
  CHECK(again->calibration->dequantSPerWeight == c.dequantSPerWeight);
  CHECK(again->calibration->bandwidthEfficiency == c.bandwidthEfficiency);
  // Without a block there is none, and none is written.
  auto plain = parseGpu(h100(), "gpu.json", "/");
  REQUIRE(plain.ok());
  CHECK_FALSE(plain->calibration);
  CHECK_FALSE(gpuToJson(*plain).contains("calibration"));

  struct Bad {
    const char* block;
    const char* field;
  };
  const Bad bad[] = {
      {R"("fast")", "calibration"},
      {R"({"bandwidth_efficiency": 0})", "calibration.bandwidth_efficiency"},
      {R"({"bandwidth_efficiency": 3})", "calibration.bandwidth_efficiency"},
      {R"({"overhead_ms": -1})", "calibration.overhead_ms"},
      {R"({"overhead_ms": "1"})", "calibration.overhead_ms"},
      {R"({"compute_efficiency": {"bf16": 2}})", "calibration.compute_efficiency.bf16"},
      {R"({"compute_efficiency": [0.7]})", "calibration.compute_efficiency"},
      {R"({"dequant_s_per_weight": {"w4a16-g128": 1}})",
       "calibration.dequant_s_per_weight.w4a16-g128"},
      {R"({"residuals": 3})", "calibration.residuals"},
      {R"({"source": 3})", "calibration.source"}};
  for (const auto& b : bad) {
    auto jb = h100();
    jb["calibration"] = nlohmann::json::parse(b.block);
    INFO(b.block);
    CHECK(gpuError(jb).field == b.field);
  }
}
