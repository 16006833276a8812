// GPU files: ranges, the calibration block, and the catalog's datasheet figures read back.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/engine.hpp>
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

TEST_CASE(
    "a GPU's NVLink domain and network: read, refused out of range, written back only "
    "where set",
    "[gpu][bounds]") {
  // Defaults: an HGX node of 8 GPUs, one 50 GB/s NIC a GPU.
  auto plain = parseGpu(h100(), "gpu.json", "/");
  REQUIRE(plain.ok());
  CHECK(plain->nvlinkDomainGpus == 8);
  CHECK(plain->networkGBps == 50);
  CHECK_FALSE(gpuToJson(*plain).contains("nvlink_domain_gpus"));
  CHECK_FALSE(gpuToJson(*plain).contains("network_gbs"));
  auto j = h100();
  j["nvlink_domain_gpus"] = 72;
  j["network_gbs"] = 100;
  auto g = parseGpu(j, "gpu.json", "/");
  REQUIRE(g.ok());
  CHECK(g->nvlinkDomainGpus == 72);
  CHECK(g->networkGBps == 100);
  const auto back = gpuToJson(*g);
  CHECK(back["nvlink_domain_gpus"] == 72);
  CHECK(back["network_gbs"] == 100);
  CHECK_FALSE(checkGpu(*g).has_value());
  struct Bad {
    const char* key;
    double value;
  };
  for (const Bad& b : {Bad{"nvlink_domain_gpus", 0}, Bad{"nvlink_domain_gpus", 2.5},
                       Bad{"nvlink_domain_gpus", 5000}, Bad{"network_gbs", 0},
                       Bad{"network_gbs", -1}, Bad{"network_gbs", 1e9}}) {
    auto jb = h100();
    jb[b.key] = b.value;
    INFO(b.key << " = " << b.value);
    const Error e = gpuError(jb);
    CHECK(e.field == b.key);
    CHECK(e.position == std::string("/") + b.key);
  }
  GpuSpec held = *plain;
  held.networkGBps = -3;
  REQUIRE(checkGpu(held, "/gpu_spec"));
  CHECK(checkGpu(held, "/gpu_spec")->field == "network_gbs");
  // The GB200 is one NVLink domain of a whole NVL72 rack.
  CHECK(Catalog::bundled().resolveGpu("gb200")->nvlinkDomainGpus == 72);
  CHECK(Catalog::bundled().resolveGpu("h200-sxm")->nvlinkDomainGpus == 8);
}

TEST_CASE("calibration block: read, validated, written back", "[gpu][calibration]") {
  auto j = h100();
  j["calibration"] = nlohmann::json::parse(R"({"source": "bench run 7", "device": "H100",
      "overhead_ms": 0.02, "bandwidth_efficiency": 0.9, "seq_overhead_us": 60,
      "allreduce_latency_us": 18, "gemm_m_half": 96, "tp_width_half": 2048,
      "request_overhead_ms": 12, "compute_efficiency": {"bf16": 0.74, "w4a16-g128": 0.45},
      "dequant_s_per_weight": {"w4a16-g128": 1.2e-14},
      "kernel_bandwidth_efficiency": {"w4a16-g128": 0.68}, "residuals": {"bandwidth": [0.01]},
      "fits": {"bandwidth": {"records": 3}}})");
  auto g = parseGpu(j, "gpu.json", "/");
  REQUIRE(g.ok());
  REQUIRE(g->calibration);
  const auto& c = *g->calibration;
  CHECK(c.source == "bench run 7");
  CHECK(c.overheadMs == 0.02);
  CHECK(c.bandwidthEfficiency == 0.9);
  CHECK(c.seqOverheadUs == 60);
  CHECK(c.allreduceLatencyUs == 18);
  const Efficiency e = efficiencyFromGpu(*g);
  CHECK(e.seqOverheadUs == 60);
  CHECK(e.allreduceLatencyUs == 18);
  CHECK(c.gemmMHalf == 96);
  CHECK(e.gemmMHalf == 96);
  CHECK(e.tpWidthHalf == 2048);
  CHECK(e.requestOverheadMs == 12);
  CHECK(gpuToJson(*g)["calibration"]["request_overhead_ms"] == 12);
  CHECK(c.computeEfficiency.at("bf16") == 0.74);
  CHECK(c.computeEfficiency.at("w4a16-g128") == 0.45);
  CHECK(c.dequantSPerWeight.at("w4a16-g128") == 1.2e-14);
  CHECK(c.kernelBandwidthEfficiency.at("w4a16-g128") == 0.68);
  CHECK(e.kernelBandwidthFor("w4a16-g128") == 0.68);
  CHECK_FALSE(e.kernelBandwidthFor("bf16"));
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
  CHECK(again->calibration->kernelBandwidthEfficiency == c.kernelBandwidthEfficiency);
  CHECK(again->calibration->bandwidthEfficiency == c.bandwidthEfficiency);
  CHECK(*again->calibration == c);
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
      {R"({"seq_overhead_us": -3})", "calibration.seq_overhead_us"},
      {R"({"allreduce_latency_us": 20000})", "calibration.allreduce_latency_us"},
      {R"({"gemm_m_half": 5000})", "calibration.gemm_m_half"},
      {R"({"tp_width_half": -1})", "calibration.tp_width_half"},
      {R"({"request_overhead_ms": "12"})", "calibration.request_overhead_ms"},
      {R"({"compute_efficiency": {"bf16": 2}})", "calibration.compute_efficiency.bf16"},
      {R"({"compute_efficiency": [0.7]})", "calibration.compute_efficiency"},
      {R"({"dequant_s_per_weight": {"w4a16-g128": 1}})",
       "calibration.dequant_s_per_weight.w4a16-g128"},
      {R"({"kernel_bandwidth_efficiency": {"w4a16-g128": 0}})",
       "calibration.kernel_bandwidth_efficiency.w4a16-g128"},
      {R"({"kernel_bandwidth_efficiency": 0.7})", "calibration.kernel_bandwidth_efficiency"},
      // Keyed by the KV cache dtypes the engine prices: a typo is refused at parse.
      {R"({"attention_bandwidth_efficiency": {"fp16": 0.5}})",
       "calibration.attention_bandwidth_efficiency.fp16"},
      {R"({"attention_bandwidth_efficiency": {"fp8": 2}})",
       "calibration.attention_bandwidth_efficiency.fp8"},
      {R"({"residuals": 3})", "calibration.residuals"},
      {R"({"source": 3})", "calibration.source"}};
  for (const auto& b : bad) {
    auto jb = h100();
    jb["calibration"] = nlohmann::json::parse(b.block);
    INFO(b.block);
    CHECK(gpuError(jb).field == b.field);
  }
}

TEST_CASE("the catalog's newer GPUs read back their datasheet figures", "[gpu][catalog]") {
  const auto& cat = Catalog::bundled();
  auto peak = [](const GpuSpec& g, TensorPath p) {
    return g.tensorTflops[static_cast<std::size_t>(p)];
  };
  for (const char* id : {"a100-40gb", "l4", "h20", "rtx-4090", "rtx-5090", "gb200"}) {
    INFO(id);
    auto g = cat.resolveGpu(id);
    REQUIRE(g.ok());
    CHECK(g->id == id);
    REQUIRE(g->pricePerGpuHourUsd.has_value());
    CHECK(*g->pricePerGpuHourUsd > 0);
    CHECK(g->priceSource.find("on-demand") != std::string::npos);
    CHECK(g->priceSource.find("dated") != std::string::npos);
    CHECK_FALSE(g->source.empty());
    CHECK((g->hasPath(TensorPath::Bf16) && g->hasPath(TensorPath::Fp16)));
    // Bundled end-to-end constants, carried over and marked so: the H20 (Hopper) from the
    // H100 SXM fit, the others from the A6000 fit with the H100 fit's host, all-reduce and
    // GEMM-shape constants (none is 0 or a token 1e-6: TP is never free).
    const GpuCalibration* c = cat.defaultCalibration(id);
    REQUIRE(c != nullptr);
    const bool hopper = std::string(id) == "h20";
    CHECK(c->source.find(hopper ? "carried over from the H100 SXM fit"
                                : "carried over from the A6000 fit") != std::string::npos);
    CHECK(c->extraJson.find(hopper ? "\"carried_over_from\":\"h100-sxm\""
                                   : "\"carried_over_from\":\"a6000\"") != std::string::npos);
    REQUIRE(c->allreduceLatencyUs.has_value());
    CHECK(*c->allreduceLatencyUs > 5);
    REQUIRE(c->seqOverheadUs.has_value());
    CHECK(*c->seqOverheadUs > 1);
    CHECK(c->tpWidthHalf.value_or(0) > 0);
  }
  // Figures checked by hand against the datasheets (dense = the sparse figure halved).
  const auto a100 = *cat.resolveGpu("a100-40gb");
  CHECK(a100.hbmBandwidthTBps == 1.555);  // A100 datasheet: 1,555 GB/s for the 40GB part
  CHECK(*peak(a100, TensorPath::Bf16) == 312);
  CHECK(*a100.nvlinkGBps == 600);
  CHECK_FALSE(a100.hasPath(TensorPath::Fp8));
  CHECK(a100.memoryGib < cat.resolveGpu("a100-80gb")->memoryGib / 2);
  const auto l4 = *cat.resolveGpu("l4");
  CHECK(*peak(l4, TensorPath::Fp8) == 242.5);  // L4 datasheet: 485 TFLOPS fp8 with sparsity
  CHECK(*peak(l4, TensorPath::Bf16) == 121);   // 242 with sparsity
  CHECK(l4.hbmBandwidthTBps == 0.3);
  CHECK_FALSE(l4.nvlinkGBps.has_value());
  const auto h20 = *cat.resolveGpu("h20");
  CHECK(h20.hbmBandwidthTBps == 4.0);  // more than an H100's 3.35 TB/s
  CHECK(*peak(h20, TensorPath::Bf16) == 148);
  CHECK(*peak(h20, TensorPath::Fp8) == 296);
  CHECK(*h20.nvlinkGBps == 900);
  const auto r4090 = *cat.resolveGpu("rtx-4090");
  CHECK(*peak(r4090, TensorPath::Bf16) == 165.2);  // Ada whitepaper, FP32 accumulate
  CHECK(*peak(r4090, TensorPath::Int8) == 660.6);
  CHECK(r4090.hbmBandwidthTBps == 1.008);
  CHECK_FALSE(r4090.hasPath(TensorPath::Fp4));
  const auto r5090 = *cat.resolveGpu("rtx-5090");
  CHECK(*peak(r5090, TensorPath::Bf16) == 209.5);  // RTX Blackwell whitepaper: 209.5/419
  CHECK(*peak(r5090, TensorPath::Fp4) == 1676);
  CHECK(r5090.hbmBandwidthTBps == 1.792);
  CHECK_FALSE(r5090.nvlinkGBps.has_value());
  // One GPU of a GB200 superchip: half the superchip's 10 PFLOPS bf16 and 16 TB/s.
  const auto gb200 = *cat.resolveGpu("gb200");
  CHECK(*peak(gb200, TensorPath::Bf16) == 2500);
  CHECK(*peak(gb200, TensorPath::Fp4) == 10000);
  CHECK(gb200.hbmBandwidthTBps == 8.0);
  CHECK(*gb200.nvlinkGBps == 1800);
  CHECK(gb200.vectorFp32Tflops == 80);
}
