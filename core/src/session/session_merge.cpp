// Whole-session merge: measurements keyed by device, runs by digest, candidates by id.
#include <quantfront/core/session/session_merge.hpp>

#include <algorithm>
#include <set>
#include <tuple>

namespace qf {

namespace {
auto recordKey(const KernelMeasurement& r) {
  return std::make_tuple(r.kernel, r.scheme, r.device, r.m, r.n, r.k, r.medianS, r.minS, r.relNoise,
                         r.samples, r.bytesMoved, r.flops);
}

bool sameRun(const ImportedRun& a, const ImportedRun& b) {
  if (!a.sha256.empty() || !b.sha256.empty()) return a.sha256 == b.sha256;
  return a.format == b.format && a.label == b.label && a.setup == b.setup &&
         a.sourceFile == b.sourceFile;
}
}  // namespace

SessionMergeResult mergeSession(Session& into, const Session& from) {
  SessionMergeResult r;
  std::set<decltype(recordKey(KernelMeasurement{}))> have;
  for (const auto& m : into.kernelMeasurements) have.insert(recordKey(m));
  for (const auto& m : from.kernelMeasurements) {
    if (have.insert(recordKey(m)).second) {
      into.kernelMeasurements.push_back(m);
      ++r.measurementsAdded;
    } else {
      ++r.measurementsDuplicate;
    }
  }
  for (const auto& run : from.importedRuns) {
    const bool dup = std::any_of(into.importedRuns.begin(), into.importedRuns.end(),
                                 [&](const ImportedRun& x) { return sameRun(x, run); });
    if (dup) {
      ++r.runsDuplicate;
    } else {
      into.importedRuns.push_back(run);
      ++r.runsAdded;
    }
  }
  for (const auto& c : from.candidates) {
    const auto it = std::find_if(into.candidates.begin(), into.candidates.end(),
                                 [&](const Candidate& x) { return x.id == c.id; });
    if (it == into.candidates.end()) {
      into.candidates.push_back(c);
      ++r.candidatesAdded;
    } else if (it->metrics.size() != c.metrics.size() || it->model != c.model || it->gpu != c.gpu) {
      r.warnings.push_back("candidate '" + c.id +
                           "' is already in the session with other figures; the session's is "
                           "kept");
    }
  }
  return r;
}

}  // namespace qf
