// libFuzzer target: candidate CSV files (`qfront frontier FILE.csv`): parseCandidateCsv, and
// on what parses the frontier over its first metric columns with a gate, as the CLI runs it.
// Nothing may crash, hang or trip a sanitizer.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <quantfront/core/analysis/frontier.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return qf::fuzz::runGuarded([&]() -> int {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    auto table = qf::parseCandidateCsv(bytes, "fuzz.csv");
    if (!table) return table.error().str().empty() ? 1 : 0;
    const auto& cols = table->metricColumns;
    if (cols.empty() || table->candidates.empty()) return 0;
    qf::FrontierOptions opts;
    opts.objectives.push_back({cols[0], qf::Direction::Max});
    if (cols.size() > 1) opts.objectives.push_back({cols[1], qf::Direction::Min});
    if (cols.size() > 2) opts.objectives.push_back({cols[2], qf::Direction::Max});
    if (auto gate = qf::parseGate(cols[0] + ">=baseline-0.5")) opts.gates.push_back(*gate);
    opts.baselineId = table->candidates.front().id;
    (void)qf::computeFrontier(table->candidates, opts);
    return 0;
  });
}
