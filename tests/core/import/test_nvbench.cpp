// The nvbench JSON reader (core/src/import/nvbench.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/import/importers.hpp>
#include "support/import_fixtures.hpp"

using namespace qf;
using namespace qf::test;

TEST_CASE("nvbench JSON: string numbers, metrics per state, skipped state", "[import]") {
  const ImportReport rep = importOk("nvbench_dequant.json");
  CHECK(rep.format == "nvbench");
  REQUIRE(rep.runs.size() == 1);
  const ImportedRun& run = rep.runs[0];
  CHECK(run.label == "qf_dequant_bench");
  const std::string state = "dequant_w4a16_g128/Device=0 M=1 N=4096 K=4096";
  CHECK(run.metrics.at(state + "/nv/cold/time/gpu/mean") == 1.0034e-05);
  CHECK(run.metrics.at(state + "/nv/cold/time/gpu/min") == 9.9e-06);
  CHECK(run.metrics.at(state + "/nv/cold/sample_size") == 1000);
  CHECK(run.metrics.at(state + "/nv/cold/bw/global/bytes_per_second") == 863750000000.0);
  // The sample-times file summary carries no "value": nothing imported from it.
  CHECK(run.metrics.count(state + "/nv/json/bin:nv/cold/sample_times") == 0);
  CHECK(run.setup.at(state + "/device") == "NVIDIA H100 80GB HBM3");
  CHECK(run.setup.at(state + "/axis/M") == "1");
  CHECK(run.setup.at("device/0/sm_version") == "900");
  CHECK(run.setup.at("nvbench_version") == "0.1.0");
  CHECK(run.setup.at("argv") == "./bin/qf_dequant_bench --json dequant.json");
  CHECK(hasWarning(run.warnings, "M=118 N=4096 K=4096' was skipped by nvbench: M not a multiple"));

  // The reader fills the measurements itself; rebuilding them from the run agrees.
  const auto& kms = rep.kernelMeasurements;
  REQUIRE(kms.size() == 1);
  const auto rebuilt = nvbenchToMeasurements(run);
  REQUIRE(rebuilt.size() == 1);
  CHECK(rebuilt[0].kernel == kms[0].kernel);
  CHECK(rebuilt[0].medianS == kms[0].medianS);
  CHECK(rebuilt[0].bytesMoved == kms[0].bytesMoved);
  const KernelMeasurement& km = kms[0];
  CHECK(km.kernel == "dequant_w4a16_g128");
  CHECK(km.device == "NVIDIA H100 80GB HBM3");
  CHECK(km.m == 1);
  CHECK(km.n == 4096);
  CHECK(km.k == 4096);
  // No median summary: the time is nvbench's mean, and the source says so.
  CHECK(km.medianS == 1.0034e-05);
  CHECK(km.sourceFile == fixture("nvbench_dequant.json") + "#nv/cold/time/gpu/mean");
  CHECK(km.minS == 9.9e-06);
  CHECK(km.relNoise == 0.0125);
  CHECK(km.samples == 1000);
  // Bandwidth × mean time (nvbench's bandwidth is bytes over the mean time).
  CHECK(km.bytesMoved == Approx(863750000000.0 * 1.0034e-05).epsilon(1e-12));
  // Not an nvbench run: no measurements.
  ImportedRun other;
  other.format = "vllm-serve";
  other.kind = qf::RunKind::Serving;
  CHECK(nvbenchToMeasurements(other).empty());
}

TEST_CASE("nvbench: a non-numeric value string is an error at its JSON pointer", "[import]") {
  auto r = importBytes(R"({"meta": {"argv": ["b"]}, "devices": [],
      "benchmarks": [{"name": "k", "states": [{"name": "s", "device": 0, "summaries": [
        {"tag": "nv/cold/time/gpu/mean", "data": [{"name": "value", "type": "float64",
                                                   "value": "fast"}]}]}]}]})",
                       "nv.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().file == "nv.json");
  CHECK(r.error().position == "/benchmarks/0/states/0/summaries/0/data/0/value");
  CHECK(r.error().field == "nv/cold/time/gpu/mean");
}

TEST_CASE("nvbench: states differing only in axes stay apart", "[import]") {
  // Four states of one benchmark: T in {F32, F64} × BlockSize in {128, 256}.
  const ImportReport rep = importOk("nvbench_axes.json");
  const auto& kms = rep.kernelMeasurements;
  REQUIRE(kms.size() == 4);
  std::vector<std::string> kernels;
  for (const auto& k : kms) kernels.push_back(k.kernel);
  std::sort(kernels.begin(), kernels.end());
  CHECK(std::unique(kernels.begin(), kernels.end()) == kernels.end());
  // Axes sorted by name: BlockSize, Elements, T.
  const auto it = std::find_if(kms.begin(), kms.end(), [](const KernelMeasurement& k) {
    return k.kernel == "copy[BlockSize=256,Elements=1048576,T=F64]";
  });
  REQUIRE(it != kms.end());
  CHECK(it->medianS == 3.5e-05);  // nvbench's mean: the only time it wrote
  CHECK(it->sourceFile.ends_with("#nv/cold/time/gpu/mean"));
  CHECK(it->samples == 500);
  // bytes = bandwidth × mean time = 2 × 1048576 doubles.
  CHECK(it->bytesMoved == Approx(2.0 * 1048576 * 8).epsilon(1e-9));
  CHECK(it->device == "NVIDIA H100 80GB HBM3");
}

TEST_CASE("nvbench: a median summary is used as the median, pre-1.0 state objects", "[import]") {
  auto r = importBytes(R"({"meta": {"argv": ["b"]}, "devices": [{"id": 0, "name": "GPU"}],
      "benchmarks": [{"name": "k", "states": {
        "Device=0 Block=64": {"device": 0, "summaries": [
          {"tag": "nv/cold/time/gpu/mean", "data": [{"name": "value", "type": "float64", "value": "2e-06"}]},
          {"tag": "nv/cold/time/gpu/median", "data": [{"name": "value", "type": "float64", "value": "1.5e-06"}]}]},
        "Device=0 Block=128": {"device": 0, "summaries": [
          {"tag": "nv/cold/time/gpu/mean", "data": [{"name": "value", "type": "float64", "value": "3e-06"}]}]}
      }}]})",
                       "old.json");
  REQUIRE(r.ok());
  const auto& kms = r->kernelMeasurements;
  REQUIRE(kms.size() == 2);
  // No axis values: the state names tell the two apart.
  CHECK(kms[0].kernel != kms[1].kernel);
  const auto med = std::find_if(kms.begin(), kms.end(), [](const KernelMeasurement& k) {
    return k.kernel == "k[state=Device=0 Block=64]";
  });
  REQUIRE(med != kms.end());
  CHECK(med->medianS == 1.5e-06);
  CHECK(med->sourceFile == "old.json#nv/cold/time/gpu/median");
  CHECK(hasWarning(r->runs.at(0).warnings, "pre-1.0 nvbench layout"));

  auto bad = importBytes(R"({"meta": {"argv": ["b"]}, "devices": [],
      "benchmarks": [{"name": "k", "states": "none"}]})",
                         "bad.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("nvbench JSON 1.x") != std::string::npos);
  CHECK(bad.error().message.find("pre-1.0") != std::string::npos);
}

TEST_CASE("nvbench: an impossible M or a negative time is refused naming the file and state",
          "[import]") {
  auto text = readFileBytes(fixture("nvbench_dequant.json"));
  REQUIRE(text.ok());
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = *text;
    const auto at = t.find(from);
    REQUIRE(at != std::string::npos);
    return t.replace(at, from.size(), to);
  };
  const auto hugeM = importBytes(replaced(R"({"name": "M", "type": "int64", "value": "1"})",
                                          R"({"name": "M", "type": "int64", "value": "1e23"})"),
                                 "huge_m.json");
  REQUIRE_FALSE(hugeM.ok());
  CHECK(hugeM.error().file == "huge_m.json");
  CHECK(hugeM.error().field == "axis M");
  CHECK(hugeM.error().message.find("'1e23'") != std::string::npos);
  const auto negative =
      importBytes(replaced(R"("value": "1.0034e-05")", R"("value": "-1.0034e-05")"), "neg.json");
  REQUIRE_FALSE(negative.ok());
  CHECK(negative.error().file == "neg.json");
  CHECK(negative.error().message.find("state '") != std::string::npos);
}
