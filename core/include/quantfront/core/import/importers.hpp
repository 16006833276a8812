#pragma once
/// Importers for the files users already have (spec: shared/spec/formats.md).
/// The format is detected from content, never from the file name.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/base/records.hpp>

namespace qf {

struct ImportOptions {
  std::uint64_t maxBytes = 512ull * 1024 * 1024;  ///< refuse larger files (read whole into memory)
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
  /// Kernel measurements the file holds (nvbench: one per benchmark state with a GPU time;
  /// empty for every other format), filled by the reader itself.
  std::vector<KernelMeasurement> kernelMeasurements;
};

/// One import format as the registry declares it (core/src/import/formats.def).
struct FormatInfo {
  std::string name;  ///< ImportReport::format / ImportedRun::format
  RunKind kind;      ///< what its runs are
  std::string tool;  ///< the tool that writes it, as provenance notes name it
  bool imported;     ///< false: recognised only to be refused with advice
};
/// Every format, in detection order.
std::vector<FormatInfo> importFormats();
/// The kind of the format called `name`; Unknown for a name no reader has.
RunKind runKindOfFormat(std::string_view name);
/// The tool that writes the format called `name` ("lm-evaluation-harness"); the name itself
/// when the reader names no tool or no reader has it.
std::string toolOfFormat(std::string_view name);

/// Detects the format from the content and imports it.
Result<ImportReport> importFile(const std::string& path, const ImportOptions& opts = {});
/// Same, from bytes already in memory; `label` names the source in messages.
Result<ImportReport> importBytes(std::string_view bytes, const std::string& label,
                                 const ImportOptions& opts = {});

/// lm-evaluation-harness per-sample JSONL (one line per (doc_id, filter)).
Result<std::vector<SampleRecord>> readLmEvalSamples(const std::string& path);
Result<std::vector<SampleRecord>> parseLmEvalSamples(std::string_view bytes,
                                                     const std::string& label);

/// Kernel measurements from an imported nvbench run rebuilt from its metrics and setup (the
/// same records the reader puts in ImportReport::kernelMeasurements; use those when the report
/// is at hand). kernel = benchmark name, with every axis other than M, N, K and scheme as
/// `name[axis=value,...]` (sorted by axis name; `state=<name>` added where states are still
/// alike); device = the state's device name; m, n, k from axes named M, N, K (any case);
/// scheme from an axis named "scheme"; medianS from nv/cold/time/gpu/median when present,
/// else the mean (nvbench reports no median by default), and sourceFile ends in
/// `#nv/cold/time/gpu/median` or `#nv/cold/time/gpu/mean` to say which; minS, relNoise
/// (nv/cold/time/gpu/stdev/relative), samples (nv/cold/sample_size); bytesMoved =
/// nv/cold/bw/global/bytes_per_second × mean time when present, else the nv/gmem/reads|writes
/// summaries. Empty for runs of any other format.
std::vector<KernelMeasurement> nvbenchToMeasurements(const ImportedRun& run);

}  // namespace qf
