#pragma once
/// Data records shared by importers, sessions, statistics and the frontier
/// (spec: shared/spec/frontier.md, formats.md). Plain structs: no I/O here.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace qf {

/// Where a number came from. A plot never mixes these silently.
enum class ProvenanceKind { Modelled, Measured, Published };
const char* provenanceName(ProvenanceKind k);  ///< "modelled", "measured", "published"

struct Provenance {
  ProvenanceKind kind = ProvenanceKind::Modelled;
  std::string sourceFile;  ///< file name for measured figures
  std::string sha256;      ///< hex digest of that file
  std::string citation;    ///< e.g. "arXiv:2411.02355 Table 5" for published figures
  std::string note;
};

/// One metric value with optional interval, sample count and provenance.
/// Metric names carry their unit (`tpot_p99_ms`, `throughput_tok_s`, `recovery_pct`).
struct MetricValue {
  double value = 0;
  std::optional<double> lo;  ///< interval bounds (e.g. 95% CI), when known
  std::optional<double> hi;
  std::optional<double> n;  ///< sample count behind the value, when known
  Provenance provenance;
};

/// One deployable artifact on one hardware setup with its results.
struct Candidate {
  std::string id;
  std::string model;         ///< catalog id or HF name
  std::string schemeLinear;  ///< scheme ids per layer kind; empty = inherit linear
  std::string schemeMoe;
  std::string schemeLmHead;
  std::string gpu;  ///< catalog id or name
  int gpuCount = 1;
  std::string engine;  ///< e.g. "vLLM 0.6.4.post1"
  std::map<std::string, MetricValue> metrics;
  std::string notes;
};

/// A per-request record from a serving benchmark (seconds).
struct RequestRecord {
  double ttftS = 0;
  double latencyS = 0;        ///< end-to-end, when known (else derived from ttft + itls)
  std::vector<double> itlsS;  ///< inter-token gaps
  std::int64_t inputLen = 0;
  std::int64_t outputLen = 0;
  bool success = true;
};

/// One run read from a file: summary metrics plus raw arrays when the file has them.
struct ImportedRun {
  std::string format;  ///< "vllm-serve", "vllm-latency", "vllm-throughput", "sglang-one-batch",
                       ///< "sglang-serving", "lm-eval-results", "lm-eval-samples",
                       ///< "gsm8k-eval", "nvbench"
  std::string sourceFile;
  std::string sha256;
  std::string label;                         ///< model id / run name / label as the file states it
  std::map<std::string, std::string> setup;  ///< backend, date, request_rate, ...
  std::map<std::string, double> metrics;     ///< unit-suffixed names
  std::vector<RequestRecord> requests;       ///< per-request arrays when present
  /// SGLang bench_one_batch rows / vLLM latency iterations: (batch, decode step s) pairs.
  std::vector<std::pair<double, double>> decodeStepByBatch;
  std::vector<std::string> warnings;  ///< what was skipped and why
};

/// One lm-evaluation-harness per-sample line (samples_<task>_<date>.jsonl).
struct SampleRecord {
  std::string task;
  std::string filter;  ///< e.g. "strict-match", "none"
  std::int64_t docId = 0;
  std::string docHash;
  std::string promptHash;
  std::string target;
  std::map<std::string, double> metrics;  ///< exact_match, acc, ... as numbers
};

/// A kernel measurement record (filled by cuda/ later; also read from nvbench JSON).
struct KernelMeasurement {
  std::string kernel;  ///< e.g. "dequant_w4a16_g128", "cublaslt_gemm_bf16"
  std::string scheme;
  std::string device;  ///< GPU name as the driver reports it
  std::int64_t m = 0, n = 0, k = 0;
  double medianS = 0;
  double minS = 0;
  double relNoise = 0;  ///< relative standard deviation of samples
  std::int64_t samples = 0;
  double bytesMoved = 0;
  double flops = 0;
  std::string sourceFile;
  double energyJ = 0;    ///< board energy of one run, joules (NVML); 0 = not measured
  double avgPowerW = 0;  ///< mean board power while the samples ran, watts; 0 = not measured
};

}  // namespace qf
