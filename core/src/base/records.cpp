#include <quantfront/core/base/records.hpp>

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

}  // namespace qf
