// The import path both front ends use: read, merge, validate, attach (import_session.hpp).
#include <quantfront/core/session/import_session.hpp>

#include <algorithm>
#include <utility>

namespace qf {

namespace {

/// The file's warnings, then each run's own, prefixed with the run when the file holds
/// several. A run's copies of the file's warnings (shareFileWarnings) are listed once, as the
/// file's.
std::vector<std::string> warningsOf(const ImportReport& r) {
  std::vector<std::string> out = r.warnings;
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    const auto& run = r.runs[i];
    for (const auto& w : run.warnings) {
      if (std::find(r.warnings.begin(), r.warnings.end(), w) != r.warnings.end()) continue;
      if (r.runs.size() == 1) {
        out.push_back(w);
      } else {
        out.push_back("run " + std::to_string(i + 1) +
                      (run.label.empty() ? std::string() : " (" + run.label + ")") + ": " + w);
      }
    }
  }
  return out;
}

/// The file's warnings (lines skipped, options that found no run) go first on each of its
/// runs: the session keeps them with the runs, so the Evidence tab lists what the import
/// summary said.
void shareFileWarnings(ImportReport& r) {
  for (auto& run : r.runs) {
    std::vector<std::string> all = r.warnings;
    for (auto& w : run.warnings) {
      if (std::find(all.begin(), all.end(), w) == all.end()) all.push_back(std::move(w));
    }
    run.warnings = std::move(all);
  }
}

}  // namespace

std::size_t ImportOutcome::runsAdded() const {
  std::size_t n = 0;
  for (const auto& f : files) n += f.merge.runsAdded;
  return n;
}

Result<std::vector<FileImport>> readImports(const std::vector<std::string>& files,
                                            const ImportPlan& plan) {
  std::vector<FileImport> out;
  out.reserve(files.size());
  std::vector<std::string> stamped;  // files whose runs took --batch/--input-len/--output-len
  const double n = files.empty() ? 1.0 : static_cast<double>(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string& file = files[i];
    ImportOptions opts;
    opts.maxBytes = plan.maxBytes;
    if (plan.progress) {
      opts.progress = [&plan, &file, i, n](double f) {
        return plan.progress((static_cast<double>(i) + f) / n, file);
      };
    }
    FileImport fi;
    fi.file = file;
    auto rep = importFile(file, opts);
    if (!rep) {
      if (rep.error().isCancelled() || plan.allOrNothing) return rep.error();
      fi.error = rep.error();
      out.push_back(std::move(fi));
      continue;
    }
    fi.report = std::move(*rep);
    if (fi.report->file.empty()) fi.report->file = file;
    const std::size_t stampedRuns =
        plan.staticBatch ? stampStaticBatch(fi.report->runs, *plan.staticBatch) : 0;
    if (plan.staticBatch && plan.staticBatch->batch > 0 && stampedRuns > 0) {
      stamped.push_back(file);
      // One batch on two files: they were timed at two batches as often as at one.
      if (stamped.size() > 1) {
        return Error{"", "", "batch",
                     "{--batch}/{--input-len}/{--output-len} describe one static batch, but '" +
                         stamped[0] + "' and '" + stamped[1] +
                         "' both hold static-batch runs: import each file with its own"};
      }
    }
    if (plan.staticBatch && stampedRuns == 0) {
      fi.report->warnings.push_back(
          plan.staticBatch->batch > 0
              ? "{--batch}/{--input-len}/{--output-len} given, but this file holds no vLLM bench "
                "latency or throughput run to record them on (left as they were)"
              : "{--tp} given, but this file holds no static-batch run (vLLM bench latency or "
                "throughput, SGLang bench_one_batch) to record it on (left as it was)");
    }
    for (const auto& run : fi.report->runs) {
      fi.metricsRead += run.metrics.size();
      fi.failedRuns += allRequestsFailed(run) ? 1 : 0;
    }
    shareFileWarnings(*fi.report);
    fi.warnings = warningsOf(*fi.report);
    out.push_back(std::move(fi));
  }
  if (plan.progress && !plan.progress(1.0, {})) return Error::cancelled("import");
  return out;
}

Result<ImportOutcome> mergeImports(Session& session, std::vector<FileImport> files,
                                   const ImportPlan& plan) {
  ImportOutcome outcome;
  Session s = session;  // the caller's session changes only when everything succeeded
  for (auto& f : files) {
    if (!f.report) continue;
    if (!plan.validateEach) {
      f.merge = mergeImport(s, *f.report);
      continue;
    }
    Session next = s;
    const MergeResult merged = mergeImport(next, *f.report);
    if (merged.runsAdded > 0) {
      if (auto e = validateSession(next, f.file)) {
        if (plan.allOrNothing) return *e;
        f.error = *e;
        continue;
      }
    }
    f.merge = merged;
    s = std::move(next);
  }
  if (plan.attach) {
    AttachOptions opts = *plan.attach;
    opts.runDigests.clear();
    for (const auto& f : files) {
      if (!f.report || f.error) continue;
      if (!f.report->sha256.empty()) opts.runDigests.push_back(f.report->sha256);
      for (const auto& run : f.report->runs) {
        if (!run.sha256.empty()) opts.runDigests.push_back(run.sha256);
      }
    }
    if (!opts.runDigests.empty()) {
      auto r = attachRunsToCandidates(s, opts);
      if (!r) return r.error();
      outcome.attach = std::move(*r);
    }
  }
  outcome.files = std::move(files);
  session = std::move(s);
  return outcome;
}

Result<ImportOutcome> importIntoSession(Session& session, const std::vector<std::string>& files,
                                        const ImportPlan& plan) {
  auto read = readImports(files, plan);
  if (!read) return read.error();
  return mergeImports(session, std::move(*read), plan);
}

}  // namespace qf
