// Whole-session merge: measurements keyed by device, runs by digest, candidates by id; and
// an import report merged into a session (runs deduplicated by digest).
#include <quantfront/core/session/session.hpp>
#include <quantfront/core/session/session_merge.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

namespace qf {

namespace {
/// Records are grouped by what was measured and where: kernel, scheme, device and shape.
auto shapeKey(const KernelMeasurement& r) {
  return std::make_tuple(r.kernel, r.scheme, r.device, r.m, r.n, r.k);
}

bool sameBits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

/// Within a group, only a copy of the same record is a duplicate: every figure identical bit
/// for bit (so no value, NaN included, can stand in for another record's), same source.
bool sameRecord(const KernelMeasurement& a, const KernelMeasurement& b) {
  return sameBits(a.medianS, b.medianS) && sameBits(a.minS, b.minS) &&
         sameBits(a.relNoise, b.relNoise) && a.samples == b.samples &&
         sameBits(a.bytesMoved, b.bytesMoved) && sameBits(a.flops, b.flops) &&
         sameBits(a.repeatNoise, b.repeatNoise) && sameBits(a.baselineS, b.baselineS) &&
         a.plan == b.plan && a.sourceFile == b.sourceFile;
}

bool sameRun(const ImportedRun& a, const ImportedRun& b) {
  if (!a.sha256.empty() || !b.sha256.empty()) return a.sha256 == b.sha256;
  return a.format == b.format && a.label == b.label && a.setup == b.setup &&
         a.sourceFile == b.sourceFile;
}
}  // namespace

SessionMergeResult mergeSession(Session& into, const Session& from) {
  SessionMergeResult r;
  std::map<decltype(shapeKey(KernelMeasurement{})), std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < into.kernelMeasurements.size(); ++i) {
    groups[shapeKey(into.kernelMeasurements[i])].push_back(i);
  }
  for (const auto& m : from.kernelMeasurements) {
    auto& group = groups[shapeKey(m)];
    const bool dup = std::any_of(group.begin(), group.end(), [&](std::size_t i) {
      return sameRecord(into.kernelMeasurements[i], m);
    });
    if (dup) {
      ++r.measurementsDuplicate;
    } else {
      group.push_back(into.kernelMeasurements.size());
      into.kernelMeasurements.push_back(m);
      ++r.measurementsAdded;
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

MergeResult mergeImport(Session& s, const ImportReport& report) {
  MergeResult result;
  // Digests already in the session before this report: several runs of one file share one.
  std::map<std::string, std::string> known;
  for (const auto& r : s.importedRuns) {
    if (!r.sha256.empty()) known.emplace(r.sha256, r.sourceFile);
  }
  for (const auto& incoming : report.runs) {
    ImportedRun run = incoming;
    if (run.sha256.empty()) run.sha256 = report.sha256;
    if (run.sourceFile.empty()) run.sourceFile = report.file;
    if (run.format.empty()) run.format = report.format;
    if (run.kind == RunKind::Unknown) run.kind = runKindOfFormat(run.format);
    if (const auto it = known.find(run.sha256); !run.sha256.empty() && it != known.end()) {
      result.duplicate = true;
      result.duplicateOf = it->second;
      continue;
    }
    s.importedRuns.push_back(std::move(run));
    ++result.runsAdded;
  }
  // The file's kernel measurements come with its runs (a duplicate file adds neither).
  if (result.runsAdded > 0) {
    for (auto k : report.kernelMeasurements) {
      if (k.sourceFile.empty()) k.sourceFile = report.file;
      s.kernelMeasurements.push_back(std::move(k));
      ++result.measurementsAdded;
    }
  }
  return result;
}

}  // namespace qf
