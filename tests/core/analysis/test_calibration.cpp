// Calibration from kernel records: synthetic records made from known β, P and dequant cost
// with 5% noise must give those parameters back within 2%; the measured step time is the sum
// of the model's GEMMs at M = B.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <utility>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/calibration.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/gemm_shapes.hpp>

#include "support/engine_fixtures.hpp"
#include "support/synthetic_measurements.hpp"

using namespace qf;

using namespace qf::testing;

TEST_CASE("robust line fit: exact line, origin, and an outlier", "[analysis][calibration]") {
  const std::vector<double> x = {1, 2, 3, 4, 5, 6};
  std::vector<double> y;
  for (double v : x) y.push_back(2.0 * v + 0.5);
  auto f = fitRobustLine(x, y, true);
  CHECK(f.slope == Approx(2.0).epsilon(1e-12));
  CHECK(f.intercept == Approx(0.5).epsilon(1e-12));
  CHECK(f.relSpread == Approx(0.0).margin(1e-12));
  y[2] = 100;  // an outlier
  f = fitRobustLine(x, y, true);
  CHECK(f.slope == Approx(2.0).epsilon(0.02));
  CHECK(f.relResiduals[2] > 5);
  const auto origin = fitRobustLine({2, 2, 2}, {4, 4.2, 3.8}, true);  // one distinct x
  CHECK(origin.intercept == 0);
  CHECK(origin.slope == Approx(2.0).epsilon(0.01));
}

TEST_CASE("calibrate recovers beta, P per path and the dequant cost within 2%",
          "[analysis][calibration]") {
  const auto records = synthetic("NVIDIA H100 80GB HBM3", 1.0);
  auto c = calibrate(records, "", "synthetic.json");
  REQUIRE(c.ok());
  CHECK(c->device == "NVIDIA H100 80GB HBM3");
  REQUIRE(c->bandwidthBytesPerS);
  CHECK(c->bandwidthBytesPerS->value == Approx(kBeta).epsilon(0.02));
  CHECK(c->bandwidthBytesPerS->records == 11);
  REQUIRE(c->peakFlopsPerS.count("bf16"));
  REQUIRE(c->peakFlopsPerS.count("fp8"));
  CHECK(c->peakFlopsPerS.at("bf16").value == Approx(kBf16Flops).epsilon(0.02));
  CHECK(c->peakFlopsPerS.at("fp8").value == Approx(kFp8Flops).epsilon(0.02));
  // The streaming dequant kernel is a bandwidth probe: reported, never the priced dequant.
  REQUIRE(c->streamingDequantSPerWeight.count("w4a16-g128"));
  CHECK(c->streamingDequantSPerWeight.at("w4a16-g128").value == Approx(kDequantS).epsilon(0.02));
  CHECK(c->dequantSecondsPerWeight.empty());
  // The spread reflects the ±5% noise (uniform: sd 2.9%), not the outlier.
  CHECK(c->bandwidthBytesPerS->relSpread < 0.06);
  CHECK(c->bandwidthBytesPerS->relSpread > 0.005);
}

TEST_CASE("calibration never mixes devices", "[analysis][calibration]") {
  auto records = synthetic("NVIDIA H100 80GB HBM3", 1.0);
  const auto other = synthetic("NVIDIA H200", 1.5);
  records.insert(records.end(), other.begin(), other.end());
  auto both = calibrate(records, "", "fleet.json");
  REQUIRE_FALSE(both.ok());
  CHECK(both.error().field == "device");
  CHECK(both.error().message.find("NVIDIA H200") != std::string::npos);
  auto h200 = calibrate(records, "NVIDIA H200", "fleet.json");
  REQUIRE(h200.ok());
  CHECK(h200->bandwidthBytesPerS->value == Approx(kBeta * 1.5).epsilon(0.02));
  auto none = calibrate(records, "NVIDIA B200", "fleet.json");
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().file == "fleet.json");
}

TEST_CASE("the calibrated GPU file carries efficiencies against the datasheet",
          "[analysis][calibration]") {
  const auto& cat = Catalog::bundled();
  auto gpu = cat.resolveGpu("h100-sxm");
  REQUIRE(gpu.ok());
  auto c = calibrate(synthetic("NVIDIA H100 80GB HBM3", 1.0), "", "s.json");
  REQUIRE(c.ok());
  const auto j = calibratedGpuJson(*gpu, *c, "s.json");
  CHECK(j.at("name") == gpu->name);
  const auto& cal = j.at("calibration");
  CHECK(cal.at("source") == "s.json");
  // 3.1 / 3.35 TB/s and 720 / 989.4 TFLOP/s.
  CHECK(cal.at("bandwidth_efficiency").get<double>() == Approx(3.1 / 3.35).epsilon(0.02));
  CHECK(cal.at("compute_efficiency").at("bf16").get<double>() ==
        Approx(720.0 / 989.4).epsilon(0.02));
  CHECK_FALSE(cal.contains("dequant_s_per_weight"));
  CHECK(cal.at("streaming_dequant_probe").at("w4a16-g128").at("s_per_weight").get<double>() ==
        Approx(kDequantS).epsilon(0.02));
  CHECK(cal.at("fits").at("bandwidth").at("rel_residuals").size() == 11);
}

TEST_CASE("measured step time sums the model's GEMMs at M = B", "[analysis][calibration]") {
  const auto& cat = Catalog::bundled();
  auto model = cat.resolveModel("llama-3-8b");
  REQUIRE(model.ok());
  const auto shapes = decodeGemmShapes(*model);
  // Llama-3-8B: q, kv, o, gate_up, down per layer (32 layers) and the LM head.
  REQUIRE(shapes.size() == 6);
  CHECK(shapes[1].n == 2 * 8 * 128);
  CHECK(shapes[3].n == 2 * 14336);
  CHECK(shapes[3].count == 32);
  CHECK(shapes.back().n == 128256);
  // A kernel whose time is exactly 1 µs per 10^6 weights per row-block at M = 1 and 2 µs at
  // M = 4: interpolation at M = 2 is the log-log midpoint sqrt(1·2) = 1.414×.
  std::vector<KernelMeasurement> recs;
  double atOne = 0, atFour = 0;
  for (const auto& s : shapes) {
    const double w = static_cast<double>(s.n * s.k);
    auto r1 = rec("gemm_bf16", "bf16", "GPU", 1, s.n, s.k, w * 1e-12);
    r1.relNoise = 0.02;
    auto r4 = rec("gemm_bf16", "bf16", "GPU", 4, s.n, s.k, 2 * w * 1e-12);
    r4.relNoise = 0.02;
    recs.push_back(r1);
    recs.push_back(r4);
    atOne += static_cast<double>(s.count) * w * 1e-12;
    atFour += static_cast<double>(s.count) * 2 * w * 1e-12;
  }
  auto steps = measuredStepTimes(recs, "", *model, "bf16", {1, 2, 4, 8}, "m.json");
  REQUIRE(steps.ok());
  REQUIRE(steps->size() == 3);  // B = 8 lies beyond the measured M and is left out
  CHECK((*steps)[0].stepS == Approx(atOne).epsilon(1e-12));
  CHECK((*steps)[1].stepS == Approx(atOne * std::sqrt(2.0)).epsilon(1e-9));
  CHECK((*steps)[2].stepS == Approx(atFour).epsilon(1e-12));
  // Σ counts·W·1e-12 at M = 1 is the streamed weights × 1 ps: 7.5047e9 → 7.50 ms.
  CHECK(atOne == Approx(7.5047e-3).epsilon(1e-3));
  CHECK((*steps)[0].spreadS > 0);
  CHECK((*steps)[0].spreadS < 0.02 * atOne);
  auto bad = measuredStepTimes(recs, "", *model, "w8a16", {1}, "m.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "scheme");
}

TEST_CASE("applyCalibration gives the GPU file's calibration without a JSON round trip",
          "[calibration]") {
  const std::string dev = "NVIDIA H100 80GB HBM3";
  auto cal = calibrate(synthetic(dev, 1.0), dev, "m.json");
  REQUIRE(cal.ok());
  const GpuSpec h100 = *Catalog::bundled().resolveGpu("h100-sxm");
  auto typed = applyCalibration(h100, *cal, "m.json");
  auto file = parseGpu(calibratedGpuJson(h100, *cal, "m.json"), "m.json", "/");
  REQUIRE(typed.ok());
  REQUIRE(file.ok());
  REQUIRE(typed->calibration.has_value());
  CHECK(typed->calibration->bandwidthEfficiency == file->calibration->bandwidthEfficiency);
  CHECK(typed->calibration->bandwidthEfficiency.value() == Approx(kBeta / 3.35e12).epsilon(0.06));
  CHECK(typed->calibration->computeEfficiency == file->calibration->computeEfficiency);
  CHECK(typed->calibration->dequantSPerWeight == file->calibration->dequantSPerWeight);
  CHECK(nlohmann::json::parse(typed->calibration->extraJson) ==
        nlohmann::json::parse(file->calibration->extraJson));
  CHECK(typed->calibration->source == "m.json");
  // A figure no GPU file may hold is refused naming the field, as the reader would.
  Calibration absurd = *cal;
  REQUIRE(absurd.bandwidthBytesPerS.has_value());
  absurd.bandwidthBytesPerS->value = 1e30;
  auto bad = applyCalibration(h100, absurd, "m.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "calibration.bandwidth_efficiency");
}

TEST_CASE("driver device names map to the catalog GPU they stand for", "[analysis][calibration]") {
  const std::pair<const char*, const char*> names[] = {{"NVIDIA H100 80GB HBM3", "h100-sxm"},
                                                       {"NVIDIA H100 PCIe", "h100-pcie"},
                                                       {"NVIDIA H200", "h200-sxm"},
                                                       {"NVIDIA H20", "h20"},
                                                       {"NVIDIA A100-SXM4-80GB", "a100-80gb"},
                                                       {"NVIDIA A100-SXM4-40GB", "a100-40gb"},
                                                       {"NVIDIA L40S", "l40s"},
                                                       {"NVIDIA L4", "l4"},
                                                       {"NVIDIA B200", "b200"},
                                                       {"NVIDIA GB200", "gb200"},
                                                       {"NVIDIA GeForce RTX 4090", "rtx-4090"},
                                                       {"NVIDIA GeForce RTX 5090", "rtx-5090"},
                                                       // Not in the catalog: no guess.
                                                       {"NVIDIA L40", ""},
                                                       {"NVIDIA GeForce RTX 4090 D", ""},
                                                       {"NVIDIA GeForce RTX 3090", ""},
                                                       {"Tesla T4", ""}};
  for (const auto& [device, id] : names) {
    INFO(device);
    CHECK(catalogGpuForDevice(device) == id);
    if (*id != '\0') CHECK(Catalog::bundled().resolveGpu(id).ok());
  }
}

TEST_CASE(
    "the fused kernel's own decode records price W4A16: the measured ratio to bf16 comes back",
    "[analysis][calibration]") {
  // Records that mimic the published Marlin-vs-cuBLAS ratio on an H100 (2.15× at M = 1–16),
  // beside a streaming dequant kernel that is write-bound as the real one is (2.53 bytes per
  // weight at the probes' bandwidth). Before, the streaming kernel set the dequant cost and the
  // kernel-calibrated model drew W4A16 decode slower than bf16.
  const std::string dev = "NVIDIA H100 80GB HBM3";
  auto records = synthetic(dev, 1.0);
  for (auto& r : records) {
    if (r.kind == KernelKind::Dequant) {
      r.medianS = static_cast<double>(r.n * r.k) * 2.53 / kBeta;
    }
  }
  const auto decodeRecords = syntheticDecode(dev, 1.0);
  records.insert(records.end(), decodeRecords.begin(), decodeRecords.end());
  auto cal = calibrate(records, dev, "h100.json");
  REQUIRE(cal.ok());
  // deq = (t − W·b_w/β)/W from the fused kernel's M ≤ 16 records.
  REQUIRE(cal->dequantSecondsPerWeight.count("w4a16-g128"));
  CHECK(cal->dequantSecondsPerWeight.at("w4a16-g128").value ==
        Approx(kFusedDequantS).epsilon(0.06));
  CHECK(cal->dequantSecondsPerWeight.at("w4a16-g128").records == 25);
  REQUIRE(cal->kernelBandwidthEff.count("bf16"));
  CHECK(cal->kernelBandwidthEff.at("bf16").value == Approx(kBf16DecodeEff).epsilon(0.03));
  CHECK(cal->streamingDequantSPerWeight.at("w4a16-g128").value ==
        Approx(2.53 / kBeta).epsilon(1e-9));

  // The kernel-calibrated model against the measured step times (the sum of the measured
  // GEMMs at M = B): each within 10%, and the W4A16/bf16 ratio within 10% of 2.15×.
  Scenario s = qf::test::scenario("llama-3-8b", "h100-sxm");
  auto gpu = applyCalibration(s.gpu, *cal, "h100.json");
  REQUIRE(gpu.ok());
  s.gpu = *gpu;
  s.efficiency = efficiencyFromGpu(*gpu);
  const std::vector<double> batches = {1, 4, 16};
  auto rep = runEngine(s, {qf::test::uniform("bf16"), qf::test::uniform("w4a16-g128")}, batches);
  REQUIRE(rep.ok());
  auto bf16 = measuredStepTimes(records, dev, s.model, "bf16", batches, "h100.json");
  auto w4 = measuredStepTimes(records, dev, s.model, "w4a16-g128", batches, "h100.json");
  REQUIRE(bf16.ok());
  REQUIRE(w4.ok());
  REQUIRE(bf16->size() == 3);
  REQUIRE(w4->size() == 3);
  for (std::size_t i = 0; i < batches.size(); ++i) {
    INFO("B = " << batches[i]);
    const double modelBf16 = rep->schemes[0].points[i].stepMs * 1e-3;
    const double modelW4 = rep->schemes[1].points[i].stepMs * 1e-3;
    CHECK(modelBf16 == Approx((*bf16)[i].stepS).epsilon(0.10));
    CHECK(modelW4 == Approx((*w4)[i].stepS).epsilon(0.10));
    const double ratio = modelBf16 / modelW4;
    CHECK(ratio == Approx(kMarlinOverBf16).epsilon(0.10));
    CHECK(ratio == Approx((*bf16)[i].stepS / (*w4)[i].stepS).epsilon(0.10));
  }
}
