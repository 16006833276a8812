#include <quantfront/core/base/records.hpp>

#include <cmath>

#include <quantfront/core/base/json_scanner.hpp>

namespace qf {

const char* provenanceName(ProvenanceKind k) {
  switch (k) {
    case ProvenanceKind::Modelled:
      return "modelled";
    case ProvenanceKind::Measured:
      return "measured";
    case ProvenanceKind::Published:
      return "published";
  }
  return "?";
}

const char* runKindName(RunKind kind) {
  switch (kind) {
    case RunKind::Unknown:
      return "unknown";
    case RunKind::Serving:
      return "serving";
    case RunKind::Latency:
      return "latency";
    case RunKind::Throughput:
      return "throughput";
    case RunKind::DecodeSweep:
      return "decode-sweep";
    case RunKind::EvalResults:
      return "eval-results";
    case RunKind::EvalSamples:
      return "eval-samples";
    case RunKind::Kernels:
      return "kernels";
  }
  return "unknown";
}

bool isTimedRun(RunKind kind) {
  return kind == RunKind::Serving || kind == RunKind::Latency || kind == RunKind::Throughput;
}

bool givesCandidateMetrics(RunKind kind) {
  return isTimedRun(kind) || kind == RunKind::EvalResults;
}

bool allRequestsFailed(const ImportedRun& run) {
  if (!isTimedRun(run.kind)) return false;
  if (const auto it = run.setup.find("all_requests_failed");
      it != run.setup.end() && it->second == "true") {
    return true;
  }
  const auto completed = run.metrics.find("completed");
  return completed != run.metrics.end() && completed->second == 0;
}

std::string failedRunText(const ImportedRun& run) {
  const auto failed = run.metrics.find("failed");
  if (failed != run.metrics.end() && std::isfinite(failed->second) && failed->second > 0) {
    return "all " + formatNumber(failed->second) + " requests failed";
  }
  return "no request completed";
}

}  // namespace qf
