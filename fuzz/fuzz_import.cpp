// libFuzzer target: any bytes through importBytes must give a report or an Error, never a
// crash, hang or sanitizer finding. Seed corpus: tests/data/import/ (scripts/fuzz.sh).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <quantfront/core/import/importers.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return qf::fuzz::runGuarded([&]() -> int {
    qf::ImportOptions opts;
    opts.maxBytes = 4u << 20;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto report = qf::importBytes(bytes, "fuzz-input", opts);
    if (!report.ok()) {
      // Every error must render: file, position, field, message.
      const std::string line = report.error().str();
      return line.empty() ? 1 : 0;
    }
    std::size_t touched = 0;
    for (const auto& run : report->runs) {
      touched += run.metrics.size() + run.setup.size() + run.requests.size() +
                 run.decodeStepByBatch.size() + run.warnings.size();
      touched += qf::nvbenchToMeasurements(run).size();
    }
    return touched == static_cast<std::size_t>(-1) ? 1 : 0;
  });
}
