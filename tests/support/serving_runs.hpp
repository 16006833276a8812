#pragma once
// A serving run as a reader would hand it over, for tests that build runs by hand.
#include <string>

#include <quantfront/core/base/records.hpp>

namespace qf::testing {

/// A serving run of `format` read from `sourceFile`, its SHA-256 64 × `shaFill`.
inline ImportedRun servingRun(const std::string& format, const std::string& sourceFile,
                              char shaFill) {
  ImportedRun run;
  run.format = format;
  run.kind = RunKind::Serving;
  run.sourceFile = sourceFile;
  run.sha256 = std::string(64, shaFill);
  return run;
}

}  // namespace qf::testing
