// libFuzzer target: arbitrary bytes as a session file. Nothing may crash, hang or leak; a
// session that parses must survive a write/read round trip unchanged, hold only finite
// kernel times > 0, and merge into itself adding nothing.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/session/session.hpp>
#include <quantfront/core/session/session_merge.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return qf::fuzz::runGuarded([&]() -> int {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    // The path loadSession takes (depth guard, parseJson, parseSession) ...
    auto session = qf::parseSessionText(bytes, "fuzz.json");
    // ... and parseSession on whatever JSON the bytes hold, also with Python's NaN/Infinity.
    if (auto doc = qf::parseJson(bytes, "fuzz.json", /*allowNonFinite=*/true)) {
      (void)qf::parseSession(*doc, "fuzz.json");
    }
    if (session.ok()) {
      auto again = qf::parseSessionText(qf::sessionToText(*session), "fuzz-roundtrip.json");
      if (!again.ok() || qf::sessionToJson(*again) != qf::sessionToJson(*session)) std::abort();
      // Every kernel record that reads has a finite time > 0 (a NaN would merge as anything).
      for (const auto& k : session->kernelMeasurements) {
        if (!(std::isfinite(k.medianS) && k.medianS > 0)) std::abort();
      }
      // Merging a session into itself adds nothing; into an empty one, every record is
      // either added or an exact copy of one added.
      qf::Session twice = *session;
      const auto self = qf::mergeSession(twice, *session);
      if (self.measurementsAdded != 0 ||
          twice.kernelMeasurements.size() != session->kernelMeasurements.size()) {
        std::abort();
      }
      qf::Session fresh;
      const auto into = qf::mergeSession(fresh, *session);
      if (into.measurementsAdded + into.measurementsDuplicate !=
              session->kernelMeasurements.size() ||
          fresh.kernelMeasurements.size() != into.measurementsAdded) {
        std::abort();
      }
    }
    return 0;
  });
}
