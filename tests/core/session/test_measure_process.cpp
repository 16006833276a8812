// The child-process measurement backend against stand-in qfront-measure scripts: devices
// listed, records streamed then the finished session read back, a crash of the child
// reported without losing what it streamed, and Cancel stopping the child.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <fstream>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/device_json.hpp>
#include <quantfront/core/session/measure_process.hpp>
#include <quantfront/core/session/session.hpp>

#include "support/synthetic_measurements.hpp"
#include "support/temp_dir.hpp"

using namespace qf;
using qf::testing::TempDir;

namespace {

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// A stand-in qfront-measure: lists one device; a measurement prints `lines`, then does
/// `tail` (copy the finished session, crash, or hang).
std::string fakeMeasure(TempDir& dir, const std::string& name, const std::string& tail) {
  const std::string path = dir.file(name);
  write(path,
        "#!/bin/sh\n"
        "if [ \"$1\" = \"--list-devices\" ]; then cat '" +
            dir.file("devices.json") +
            "'; exit 0; fi\n"
            "out=''\n"
            "while [ $# -gt 0 ]; do if [ \"$1\" = --out ]; then out=\"$2\"; shift; fi; "
            "shift; done\n"
            "cat '" +
            dir.file("lines.jsonl") + "'\n" + tail + "\n");
  ::chmod(path.c_str(), 0755);
  return path;
}

/// Two records as the child streams them, and the finished session it saves.
void prepare(TempDir& dir) {
  write(dir.file("devices.json"),
        R"({"devices": [{"index": 0, "name": "NVIDIA H200", "sm_major": 9, "sm_minor": 0,
            "sm_count": 132, "memory_gib": 139.8}]})");
  Session finished;
  std::string lines;
  for (int m : {1, 16}) {
    Session one;
    one.kernelMeasurements.push_back(
        qf::testing::rec("gemm_bf16", "bf16", "NVIDIA H200", m, 4096, 4096, 1e-5 * m));
    finished.kernelMeasurements.push_back(one.kernelMeasurements.front());
    lines += nlohmann::json{{"done", m == 1 ? 0.5 : 1.0},
                            {"what", "gemm_bf16 m=" + std::to_string(m)},
                            {"record", sessionToJson(one)}}
                 .dump() +
             "\n";
  }
  // A line of the wrong shape (null fraction, numeric text) is passed over, never thrown on.
  write(dir.file("lines.jsonl"),
        "{\"done\": null, \"what\": 3, \"record\": 1}\nnot json\n" + lines);
  write(dir.file("final.json"), sessionToText(finished));
}

MeasureRequest request() {
  MeasureRequest r;
  r.model.id = "llama-3-8b";
  r.schemes = {"bf16"};
  return r;
}

}  // namespace

TEST_CASE("the child-process backend lists devices and streams records", "[session][measure]") {
  TempDir dir;
  prepare(dir);
  const std::string exe = fakeMeasure(dir, "ok.sh", "cp '" + dir.file("final.json") + "' \"$out\"");
  auto backend = makeChildProcessBackend(exe);
  std::string why;
  const auto devices = backend->devices(why);
  REQUIRE(devices.size() == 1);
  CHECK(devices[0].name == "NVIDIA H200");
  CHECK(devices[0].smCount == 132);
  std::vector<std::int64_t> seen;
  double last = 0;
  auto batch =
      backend->measure(request(), [&](const KernelMeasurement* r, double done, const std::string&) {
        if (r) seen.push_back(r->m);
        last = done;
        return true;
      });
  REQUIRE(batch.ok());
  CHECK(seen == std::vector<std::int64_t>{1, 16});
  CHECK(last == 1.0);
  CHECK_FALSE(batch->cancelled);
  CHECK(batch->error.empty());
  REQUIRE(batch->records.size() == 2);
  CHECK(batch->records[1].m == 16);
}

TEST_CASE("a child that crashes leaves the caller running with what it streamed",
          "[session][measure]") {
  TempDir dir;
  prepare(dir);
  auto backend = makeChildProcessBackend(fakeMeasure(dir, "crash.sh", "kill -SEGV $$"));
  auto batch = backend->measure(
      request(), [](const KernelMeasurement*, double, const std::string&) { return true; });
  REQUIRE(batch.ok());
  CHECK(batch->error.find("signal 11") != std::string::npos);
  CHECK(batch->records.size() == 2);
  CHECK(batch->runs.empty());
}

TEST_CASE("Cancel stops the child and adds nothing", "[session][measure]") {
  TempDir dir;
  prepare(dir);
  auto backend = makeChildProcessBackend(fakeMeasure(dir, "hang.sh", "exec sleep 30"));
  int calls = 0;
  auto batch = backend->measure(
      request(), [&](const KernelMeasurement*, double, const std::string&) { return ++calls < 2; });
  REQUIRE(batch.ok());
  CHECK(batch->cancelled);
  CHECK(batch->records.empty());
}

TEST_CASE("a missing qfront-measure is an error, not a crash", "[session][measure]") {
  auto backend = makeChildProcessBackend("/nonexistent/qfront-measure");
  std::string why;
  CHECK(backend->devices(why).empty());
  CHECK_FALSE(why.empty());
  auto batch = backend->measure(
      request(), [](const KernelMeasurement*, double, const std::string&) { return true; });
  CHECK_FALSE(batch.ok());
  CHECK(findMeasureExecutable("/nonexistent/bin/quantfront").empty());
}

TEST_CASE("a device listed as qfront-measure writes it reads back whole", "[session][measure]") {
  TempDir dir;
  prepare(dir);
  DeviceDescription h100;
  h100.index = 1;
  h100.name = "NVIDIA H100 80GB HBM3";
  h100.smMajor = 9;
  h100.smCount = 132;
  h100.memoryGib = 79.1;
  h100.memoryBusBits = 5120;
  h100.l2Bytes = 52428800;
  write(dir.file("devices.json"), Json{{"devices", {deviceToJson(h100)}}}.dump());
  const std::string exe = fakeMeasure(dir, "list.sh", "exit 0");
  std::string why;
  const auto devices = makeChildProcessBackend(exe)->devices(why);
  REQUIRE(devices.size() == 1);
  const DeviceDescription& d = devices[0];
  CHECK(d.index == 1);
  CHECK(d.name == h100.name);
  CHECK(d.smMajor == 9);
  CHECK(d.smMinor == 0);
  CHECK(d.smCount == 132);
  CHECK(d.memoryGib == 79.1);
  CHECK(d.memoryBusBits == 5120);
  CHECK(d.l2Bytes == 52428800);
  // An older list (no bus width or L2) keeps their defaults.
  CHECK(deviceFromJson(Json{{"index", 0}, {"name", "x"}}).memoryBusBits == 0);
  CHECK(deviceFromJson(Json::array()).name.empty());
}
