// qfront calibrate and qfront merge as a user runs them: a synthetic measured session gives
// back the parameters it was made from; the calibrated GPU file is read by qfront model; a
// fleet's sessions merge without mixing devices.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <quantfront/core/session/session.hpp>

#include "cli.hpp"
#include "support/cli_run.hpp"
#include "support/synthetic_measurements.hpp"
#include "support/temp_dir.hpp"

using namespace qf::testing;

namespace {
using Run = qf::testing::CliRun;
Run qfront(const std::vector<std::string>& args) {
  return qf::testing::runQfront(args);
}

using qf::testing::TempDir;

std::string writeSession(const TempDir& dir, const std::string& name, const std::string& device,
                         double scale) {
  qf::Session s;
  s.scenario.model = "llama-3-8b";
  s.kernelMeasurements = synthetic(device, scale);
  const std::string path = dir.file(name);
  REQUIRE_FALSE(qf::saveSessionAtomic(s, path).has_value());
  return path;
}
}  // namespace

TEST_CASE("qfront calibrate returns the parameters a synthetic session was made from", "[cli]") {
  TempDir dir;
  const auto session = writeSession(dir, "h100.json", "NVIDIA H100 80GB HBM3", 1.0);
  const std::string gpuOut = dir.file("h100-calibrated.json");
  const auto r = qfront({"calibrate", session, "--format", "json", "-o", gpuOut});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("device") == "NVIDIA H100 80GB HBM3");
  CHECK(j.at("gpu") == "H100 SXM 80GB");  // the datasheet the device name stands for
  CHECK(j.at("bandwidth_tbs").at("value").get<double>() == Approx(kBeta / 1e12).epsilon(0.02));
  CHECK(j.at("tensor_tflops").at("bf16").at("value").get<double>() ==
        Approx(kBf16Flops / 1e12).epsilon(0.02));
  CHECK(j.at("tensor_tflops").at("fp8").at("value").get<double>() ==
        Approx(kFp8Flops / 1e12).epsilon(0.02));
  // The streaming dequant kernel is reported as a probe; no fused records, no priced dequant.
  CHECK(j.at("streaming_dequant_probe_s_per_weight").at("w4a16-g128").at("value").get<double>() ==
        Approx(kDequantS).epsilon(0.02));
  CHECK(j.at("dequant_s_per_weight").empty());
  // The measured step time exists for the schemes with GEMM records (bf16, w8a8-fp8) at the
  // measured M: Llama-3-8B's GEMMs at M = 1024 under the synthetic bf16 rate.
  REQUIRE(j.at("measured_step").size() == 2);
  CHECK(j.at("measured_step")[0].at("scheme") == "bf16");
  REQUIRE(j.at("measured_step")[0].at("points").size() == 3);
  // 2·1024·7.5047e9 FLOP at 720 TFLOP/s ≈ 21.3 ms plus 6 launch overheads of 4 µs per layer
  // shape: within the ±5% noise.
  CHECK(j.at("measured_step")[0].at("points")[0].at("step_ms").get<double>() ==
        Approx(2.0 * 1024 * 7.5047e9 / kBf16Flops * 1e3).epsilon(0.08));

  // The written GPU file is one qfront model reads, with the calibration it carries.
  REQUIRE(std::filesystem::exists(gpuOut));
  const auto model = qfront({"model", "--model", "llama-3-8b", "--gpu", gpuOut, "--scheme", "bf16",
                             "--batch", "1", "--format", "json"});
  INFO(model.err);
  REQUIRE(model.rc == 0);
  const auto mj = nlohmann::json::parse(model.out);
  // Memory floor at B = 1: 15.01 GB over the calibrated 3.1 TB/s instead of 3.35.
  CHECK(mj.at("schemes")[0].at("memory_floor_ms").get<double>() ==
        Approx(7.5047e9 * 2 / kBeta * 1e3).epsilon(0.03));
}

TEST_CASE("qfront calibrate refuses what it cannot fit", "[cli]") {
  TempDir dir;
  qf::Session empty;
  const std::string path = dir.file("empty.json");
  REQUIRE_FALSE(qf::saveSessionAtomic(empty, path).has_value());
  auto r = qfront({"calibrate", path});
  CHECK(r.rc == 2);
  CHECK(r.err.find("no kernel measurements") != std::string::npos);
  const auto s = writeSession(dir, "x.json", "Some Future GPU", 1.0);
  r = qfront({"calibrate", s});
  CHECK(r.rc == 2);
  CHECK(r.err.find("field 'gpu'") != std::string::npos);
  r = qfront({"calibrate", s, "--gpu", "h100-sxm", "-o", "/nonexistent-folder/g.json"});
  CHECK(r.rc == 2);
  CHECK(r.err.find("does not exist") != std::string::npos);
  r = qfront({"calibrate", s, "--gpu", "h100-sxm", "--gpu", "h200-sxm"});
  CHECK(r.rc == 2);
}

TEST_CASE("qfront merge combines a fleet's sessions keyed by device", "[cli]") {
  TempDir dir;
  const auto a = writeSession(dir, "node-a.json", "NVIDIA H100 80GB HBM3", 1.0);
  const auto b = writeSession(dir, "node-b.json", "NVIDIA H200", 1.4);
  const std::string fleet = dir.file("fleet.json");
  auto r = qfront({"merge", a, b, "-o", fleet});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  auto merged = qf::loadSession(fleet);
  REQUIRE(merged.ok());
  const std::size_t perNode = synthetic("x", 1.0).size();
  CHECK(merged->kernelMeasurements.size() == 2 * perNode);
  // Merging again adds nothing.
  r = qfront({"merge", a, b, "-o", fleet});
  REQUIRE(r.rc == 0);
  merged = qf::loadSession(fleet);
  CHECK(merged->kernelMeasurements.size() == 2 * perNode);
  // Two devices: calibrate asks which, then fits each alone.
  r = qfront({"calibrate", fleet});
  CHECK(r.rc == 2);
  CHECK(r.err.find("--device") != std::string::npos);
  r = qfront({"calibrate", fleet, "--device", "NVIDIA H200", "--format", "json"});
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("gpu") == "H200 SXM 141GB");
  CHECK(j.at("bandwidth_tbs").at("value").get<double>() ==
        Approx(kBeta * 1.4 / 1e12).epsilon(0.02));
}

TEST_CASE("qfront merge refuses a NaN record with its position and keeps every valid record",
          "[cli]") {
  TempDir dir;
  const auto valid = writeSession(dir, "valid.json", "NVIDIA H100 80GB HBM3", 1.0);
  const std::size_t perNode = synthetic("x", 1.0).size();
  // The same records, but one median_s (or rel_noise) NaN: refused at read time.
  for (const char* key : {"median_s", "rel_noise", "min_s"}) {
    for (const char* bad : {"\"NaN\"", "\"Infinity\"", "-1", "1e400"}) {
      if (std::string(key) != "median_s" && std::string(bad) == "1e400") continue;
      std::ifstream in(valid);
      auto j = nlohmann::json::parse(in);
      j["kernel_measurements"][3][key] =
          nlohmann::json::parse(bad == std::string("1e400") ? "\"Infinity\"" : bad);
      const std::string nanNode = dir.file("nan.json");
      std::ofstream(nanNode) << j.dump();
      const std::string fleet = dir.file("fleet.json");
      std::filesystem::remove(fleet);
      for (const auto& order :
           {std::vector<std::string>{nanNode, valid}, std::vector<std::string>{valid, nanNode}}) {
        auto r = qfront({"merge", order[0], order[1], "-o", fleet});
        INFO(key << " = " << bad << ": " << r.err);
        CHECK(r.rc == 2);
        CHECK(r.err.find("nan.json") != std::string::npos);
        CHECK(r.err.find("/kernel_measurements/3/" + std::string(key)) != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(fleet));
      }
    }
  }
  // Two nodes measuring the same shapes on the same device model: both nodes' records kept,
  // whatever the order; only a copy of a record already there is left out.
  qf::Session other;
  other.kernelMeasurements = synthetic("NVIDIA H100 80GB HBM3", 1.0);
  for (auto& k : other.kernelMeasurements) k.medianS *= 1.1;  // another node, other timings
  const std::string otherPath = dir.file("other.json");
  REQUIRE_FALSE(qf::saveSessionAtomic(other, otherPath).has_value());
  for (const auto& order :
       {std::vector<std::string>{otherPath, valid}, std::vector<std::string>{valid, otherPath}}) {
    const std::string fleet = dir.file("fleet2.json");
    std::filesystem::remove(fleet);
    auto r = qfront({"merge", order[0], order[1], valid, "-o", fleet});
    INFO(r.err);
    REQUIRE(r.rc == 0);
    CHECK(r.out.find("(" + std::to_string(perNode) + " duplicates left out)") != std::string::npos);
    CHECK(qf::loadSession(fleet)->kernelMeasurements.size() == 2 * perNode);
  }
}

TEST_CASE("qfront calibrate -o the measured session itself is refused", "[cli]") {
  TempDir dir;
  const auto s = writeSession(dir, "m.json", "NVIDIA H100 80GB HBM3", 1.0);
  std::ifstream in(s);
  const std::string before((std::istreambuf_iterator<char>(in)), {});
  for (const std::string& o : {s, dir.file("./m.json"), dir.file("sub/../m.json")}) {
    std::filesystem::create_directories(dir.path() / "sub");
    const auto r = qfront({"calibrate", s, "-o", o});
    INFO(o << ": " << r.err);
    CHECK(r.rc == 2);
    CHECK(r.err.find("field 'o'") != std::string::npos);
    std::ifstream again(s);
    CHECK(std::string((std::istreambuf_iterator<char>(again)), {}) == before);
  }
}

TEST_CASE("qfront calibrate leaves out records no GPU could produce, naming each", "[cli]") {
  TempDir dir;
  const std::string dev = "NVIDIA H100 80GB HBM3";
  auto records = synthetic(dev, 1.0);
  const std::size_t n = records.size();
  // A copy probe timed at 1e-300 s, one moving 1e30 bytes, a GEMM of 1e300 FLOPs, and a
  // GEMM timed at 1e-200 s: each alone used to drop a fit or write an absurd efficiency.
  auto copy = records[0];
  copy.medianS = 1e-300;
  records.push_back(copy);
  auto huge = records[1];
  huge.bytesMoved = 1e30;
  records.push_back(huge);
  auto gemm = records[10];
  REQUIRE(gemm.kernel == "gemm_bf16");
  gemm.flops = 1e300;
  records.push_back(gemm);
  auto fast = records[10];
  fast.medianS = 1e-200;
  records.push_back(fast);
  qf::Session s;
  s.kernelMeasurements = records;
  const std::string path = dir.file("m.json");
  REQUIRE_FALSE(qf::saveSessionAtomic(s, path).has_value());
  const std::string gpuOut = dir.file("g.json");
  const auto r = qfront({"calibrate", path, "--format", "json", "-o", gpuOut});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  for (std::size_t i = n; i < n + 4; ++i) {
    CHECK(r.err.find("/kernel_measurements/" + std::to_string(i) + " (") != std::string::npos);
  }
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("bandwidth_tbs").at("value").get<double>() == Approx(kBeta / 1e12).epsilon(0.02));
  CHECK(j.at("tensor_tflops").at("bf16").at("value").get<double>() ==
        Approx(kBf16Flops / 1e12).epsilon(0.02));
  CHECK(j.at("calibration").at("bandwidth_efficiency").get<double>() < 1.0);
  // The file written is one qfront model reads.
  const auto model = qfront(
      {"model", "--model", "llama-3-8b", "--gpu", gpuOut, "--scheme", "bf16", "--batch", "1"});
  INFO(model.err);
  CHECK(model.rc == 0);
}

TEST_CASE("qfront calibrate: a fit that cannot be made is an error, not a missing key", "[cli]") {
  TempDir dir;
  // Two copy probes, each plausible alone, the larger one faster: no positive time per byte.
  qf::Session s;
  for (const auto& [gib, t] : {std::pair{1.0, 10e-3}, std::pair{5.0, 9e-3}}) {
    auto r = rec("hbm_copy", "", "NVIDIA H100 80GB HBM3", 0, 0, 0, t);
    r.bytesMoved = gib * 1073741824.0;
    s.kernelMeasurements.push_back(r);
  }
  const std::string path = dir.file("m.json");
  REQUIRE_FALSE(qf::saveSessionAtomic(s, path).has_value());
  const std::string gpuOut = dir.file("g.json");
  const auto r = qfront({"calibrate", path, "-o", gpuOut});
  CHECK(r.rc == 2);
  CHECK(r.err.find("cannot fit bandwidth") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_FALSE(std::filesystem::exists(gpuOut));
}

TEST_CASE("qfront calibrate reports joules per token where records carry energy", "[cli]") {
  TempDir dir;
  qf::Session s;
  s.scenario.model = "llama-3-8b";
  s.kernelMeasurements = synthetic("NVIDIA H100 80GB HBM3", 1.0);
  // 700 W while each GEMM ran: energy = 700 W × its median time, so the step's joules are
  // 700 W × the measured step time, and per token that over the batch.
  for (auto& r : s.kernelMeasurements) {
    r.energyJ = 700.0 * r.medianS;
    r.avgPowerW = 700.0;
  }
  const std::string path = dir.file("energy.json");
  REQUIRE_FALSE(qf::saveSessionAtomic(s, path).has_value());
  const auto r = qfront({"calibrate", path, "--format", "json"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.contains("measured_energy"));
  REQUIRE(j.at("measured_energy").size() == j.at("measured_step").size());
  const auto& step = j.at("measured_step")[0].at("points")[0];
  const auto& e = j.at("measured_energy")[0];
  CHECK(e.at("metric") == "gemm_energy_j_per_token");
  const auto& p = e.at("points")[0];
  CHECK(p.at("batch") == step.at("batch"));
  CHECK(p.at("j_per_step").get<double>() ==
        Approx(700.0 * step.at("step_ms").get<double>() / 1e3).epsilon(1e-9));
  CHECK(p.at("j_per_token").get<double>() ==
        Approx(p.at("j_per_step").get<double>() / p.at("batch").get<double>()).epsilon(1e-12));
  // Without energy in the records there is no energy block (older sessions read as before).
  const auto plain =
      qfront({"calibrate", writeSession(dir, "plain.json", "NVIDIA H100 80GB HBM3", 1.0),
              "--format", "json"});
  REQUIRE(plain.rc == 0);
  CHECK_FALSE(nlohmann::json::parse(plain.out).contains("measured_energy"));
}

TEST_CASE("qfront calibrate keeps at its prior a constant the points cannot determine",
          "[cli][e2e]") {
  TempDir dir;
  const std::string session = dir.file("e2e.json");
  const std::string data = std::string(QF_TEST_DATA_DIR) + "/import/e2e/";
  // Three vllm bench serve runs at one concurrency: nothing tells W4A16's dequant cost apart
  // (before, it was fitted to 1e-18 s per weight with a 1-sigma factor of e^5,000,000, and every
  // W4A16 interval above the ridge inherited it).
  const auto imp = qfront({"import", data + "vllm_serve_bf16.json", data + "vllm_serve_fp8.json",
                           data + "vllm_serve_w4a16.json", "-o", session, "--gpu", "h100-sxm"});
  REQUIRE(imp.rc == 0);
  const auto r = qfront({"calibrate", session, "--format", "json"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto& block = j.at("calibration");
  const auto& fit = block.at("e2e_fit");
  const auto names = fit.at("names").get<std::vector<std::string>>();
  CHECK(std::find(names.begin(), names.end(), "dequant_s_per_weight.w4a16-g128") == names.end());
  // Kept at the prior's value (the bundled H100 constants charge no dequant cost: Marlin).
  CHECK(block.value("dequant_s_per_weight", nlohmann::json::object()).value("w4a16-g128", 0.0) ==
        0.0);
  const auto cov = fit.at("covariance").get<std::vector<double>>();
  for (std::size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    CHECK(std::sqrt(cov[i * names.size() + i]) <= 3.0);
  }
  const auto warnings = j.at("warnings").get<std::vector<std::string>>();
  CHECK(std::any_of(warnings.begin(), warnings.end(), [](const std::string& w) {
    return w.rfind("dequant_s_per_weight.w4a16-g128: these points cannot determine it", 0) == 0;
  }));
}
