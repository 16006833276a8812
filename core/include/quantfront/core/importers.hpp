#pragma once
/// Importers for the files users already have (spec: shared/spec/formats.md).
/// The format is detected from content, never from the file name.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <quantfront/core/error.hpp>
#include <quantfront/core/records.hpp>

namespace qf {

struct ImportOptions {
  std::uint64_t maxBytes = 2ull * 1024 * 1024 * 1024;  ///< refuse larger files
  /// Progress in [0, 1]; return false to cancel (the import then fails with "cancelled").
  std::function<bool(double)> progress;
};

/// What one file yielded: one or more runs (--append-result and JSONL files hold several),
/// plus file-level warnings (skipped lines and why).
struct ImportReport {
  std::string file;
  std::string format;
  std::string sha256;
  std::vector<ImportedRun> runs;
  std::vector<std::string> warnings;
};

/// Detects the format from the content and imports it.
Result<ImportReport> importFile(const std::string& path, const ImportOptions& opts = {});
/// Same, from bytes already in memory; `label` names the source in messages.
Result<ImportReport> importBytes(std::string_view bytes, const std::string& label,
                                 const ImportOptions& opts = {});

/// lm-evaluation-harness per-sample JSONL (one line per (doc_id, filter)).
Result<std::vector<SampleRecord>> readLmEvalSamples(const std::string& path);
Result<std::vector<SampleRecord>> parseLmEvalSamples(std::string_view bytes, const std::string& label);

}  // namespace qf
