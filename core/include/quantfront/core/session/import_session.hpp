#pragma once
/// One import path for both front ends: read each file (detect its format, read its runs),
/// merge the runs into a session, attach them to candidates and check the session still
/// holds, with progress and cancellation. `qfront import` and the window's File › Import
/// differ only in their ImportPlan.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/import/importers.hpp>
#include <quantfront/core/session/attach_runs.hpp>
#include <quantfront/core/session/e2e_evidence.hpp>
#include <quantfront/core/session/session.hpp>

namespace qf {

/// How to import a set of files.
struct ImportPlan {
  /// true (`qfront import`): a file that cannot be imported refuses them all, leaving the
  /// session as it was. false (the window): it is reported in its FileImport and the other
  /// files are imported.
  bool allOrNothing = true;
  /// Refuse (per file, naming it) a file whose runs the session could not save and load
  /// back, a number out of range say, instead of failing later at the save.
  bool validateEach = false;
  /// Attach the files' runs to candidates with these options (their runDigests are filled
  /// in); unset: only record the runs.
  std::optional<AttachOptions> attach;
  std::uint64_t maxBytes = ImportOptions{}.maxBytes;
  /// The static batch the files' latency and throughput runs were timed at, when their files
  /// do not say (stamped on those runs: stampStaticBatch), so that calibration can fit them.
  std::optional<StaticBatch> staticBatch;
  /// Overall progress in [0, 1] and the file being read; return false to cancel (the import
  /// then returns Error::cancelled and the session is unchanged).
  std::function<bool(double, const std::string&)> progress;
};

/// What became of one file.
struct FileImport {
  std::string file;
  std::optional<ImportReport> report;  ///< what was read; unset when the file was refused
  std::optional<Error> error;          ///< why it was refused (read or validation)
  MergeResult merge;                   ///< what merging it added
  std::size_t metricsRead = 0;         ///< summary metrics over its runs
  /// Its runs whose requests all failed (allRequestsFailed): they give no candidate metric
  /// and no Serving point.
  std::size_t failedRuns = 0;
  /// The file's warnings, then each run's ("run 2 (label): ..." when there are several): the
  /// one list `qfront import` prints and the window's import summary counts and shows. Each
  /// run of `report` carries the file's warnings first, then its own, and keeps them in the
  /// session (ImportedRun::warnings, what the Evidence tab lists): for a file of one run, the
  /// two lists are the same.
  std::vector<std::string> warnings;
};

/// What importing a set of files did.
struct ImportOutcome {
  std::vector<FileImport> files;       ///< in the order given
  std::optional<AttachReport> attach;  ///< when the plan attaches and a run was read
  [[nodiscard]] std::size_t runsAdded() const;
};

/// Step 1, no session needed (a worker thread may run it): detects and reads every file.
/// With plan.allOrNothing the first file that cannot be read is the error; otherwise it is
/// kept in its FileImport. Errors::cancelled when plan.progress says stop.
Result<std::vector<FileImport>> readImports(const std::vector<std::string>& files,
                                            const ImportPlan& plan);

/// Step 2: merges what was read into `session`, then validates (plan.validateEach) and
/// attaches (plan.attach). On an error (allOrNothing, or attaching) the session is unchanged.
Result<ImportOutcome> mergeImports(Session& session, std::vector<FileImport> files,
                                   const ImportPlan& plan);

/// readImports then mergeImports.
Result<ImportOutcome> importIntoSession(Session& session, const std::vector<std::string>& files,
                                        const ImportPlan& plan);

}  // namespace qf
