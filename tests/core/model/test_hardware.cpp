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
