#pragma once
// What the import reader tests share: fixtures under tests/data/import/, a file read that must
// succeed, a run's metric, a warning by part of its text.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <quantfront/core/import/importers.hpp>

namespace qf::test {

inline std::string fixture(const std::string& name) {
  return std::string(QF_TEST_DATA_DIR) + "/import/" + name;
}

inline ImportReport importOk(const std::string& name) {
  auto r = importFile(fixture(name));
  INFO((r.ok() ? std::string() : r.error().str()));
  REQUIRE(r.ok());
  return std::move(r).value();
}

inline double metric(const ImportedRun& run, const std::string& name) {
  const auto it = run.metrics.find(name);
  INFO("metric " << name);
  REQUIRE(it != run.metrics.end());
  return it->second;
}

inline bool hasWarning(const std::vector<std::string>& warnings, const std::string& part) {
  return std::any_of(warnings.begin(), warnings.end(),
                     [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

/// True when `name` is one of the items of ", "-separated `commaList`.
inline bool listed(const std::string& commaList, const std::string& name) {
  const std::string padded = ", " + commaList + ",";
  return padded.find(", " + name + ",") != std::string::npos;
}

}  // namespace qf::test
