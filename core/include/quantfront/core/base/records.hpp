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

/// What an imported run is. Each import format declares the kind of its runs (FormatReader),
/// the importer stamps it on every run, and everything downstream (attach to candidates, the
/// Serving sweeps, the Evidence tab, the CLI) switches on the kind, never on the format's name.
enum class RunKind {
  Unknown,      ///< a format this build does not know (e.g. a session written by a newer one)
  Serving,      ///< one offered load of an online serving benchmark: summary + per-request arrays
  Latency,      ///< one fixed batch timed end to end (vLLM bench latency)
  Throughput,   ///< one offline batch's throughput (vLLM bench throughput)
  DecodeSweep,  ///< decode step time per batch size (SGLang bench_one_batch)
  EvalResults,  ///< task scores: metrics "<task>/<metric>,<filter>" (with "<metric>_stderr" and
                ///< "<task>/n_samples" siblings), or "<task>/<metric>" when the tool has no filter
  EvalSamples,  ///< per-sample eval records (paired statistics)
  Kernels,      ///< kernel timings (KernelMeasurement)
};

/// "serving", "latency", "throughput", "decode-sweep", "eval-results", "eval-samples",
/// "kernels", "unknown".
const char* runKindName(RunKind kind);
/// Its summary metrics become a candidate's measured metrics (serving, latency, throughput,
/// eval results).
bool givesCandidateMetrics(RunKind kind);
/// Its figures are the tool's own summary of timed requests or batches (serving, latency,
/// throughput): latency and throughput metrics read from the metric dictionary.
bool isTimedRun(RunKind kind);

/// One run read from a file: summary metrics plus raw arrays when the file has them.
struct ImportedRun {
  std::string format;               ///< the import format's name as ImportReport::format gives it
  RunKind kind = RunKind::Unknown;  ///< what the run is (the format's kind)
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

/// A timed run none of whose requests succeeded: the importer found every request failed
/// (setup `all_requests_failed`) or the file states `completed` 0. Its throughputs are the
/// tool's 0.0 for "nothing came back", not a measurement: it gives no candidate metric and no
/// Serving point, and the Evidence tab shows it as failed.
bool allRequestsFailed(const ImportedRun& run);
/// What failed, in words: "all 8 requests failed" (the file's failed count), else "no request
/// completed".
std::string failedRunText(const ImportedRun& run);

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

/// What a timed kernel measures (the kernel vocabulary, base/kernels.hpp, names each one).
/// Calibration reads this field and the scheme, never the kernel's name.
enum class KernelKind {
  Other,    ///< a kernel of someone else's benchmark (nvbench): shown, not calibrated from
  HbmCopy,  ///< device-to-device copy: bytesMoved over the median is the achieved bandwidth
  HbmRead,  ///< streaming read-only probe, the same figure
  Dequant,  ///< streaming dequant of `scheme`'s weights (n×k): seconds per weight
  Gemm,     ///< `scheme`'s GEMM C[m][n] = A[m][k]·W[n][k]ᵀ: flops over the median is the rate
};

/// A kernel measurement record (from qfront-measure, or read from nvbench JSON).
struct KernelMeasurement {
  std::string kernel;  ///< its name: the vocabulary's for our kernels (kernelName(kind, scheme):
                       ///< hbm_copy, dequant_<scheme>, gemm_bf16 ...), the benchmark's otherwise
  KernelKind kind = KernelKind::Other;
  std::string scheme;  ///< catalog scheme id of a Dequant or Gemm record; empty for HBM probes
  std::string device;  ///< GPU name as the driver reports it
  /// GEMM C[m][n] = A[m][k]·W[n][k]ᵀ; dequant n×k; HBM probes: n = bytes.
  std::int64_t m = 0, n = 0, k = 0;
  double medianS = 0;   ///< median of the timed samples (per launch), seconds
  double minS = 0;      ///< fastest sample, seconds
  double relNoise = 0;  ///< relative standard deviation of the samples
  /// Relative standard deviation of the medians of independent repeats (each its own graph,
  /// warm-up and samples); 0 when the record has none. The noise a target reads: relNoise
  /// is what the stopping rule drove down.
  double repeatNoise = 0;
  /// Per-launch GPU time of an empty kernel replayed in the same kind of graph (the gap
  /// between kernels), already subtracted from medianS and minS; 0 when none was.
  double baselineS = 0;
  /// How the kernel ran, as numbers the calibration can read: a cuBLASLt GEMM's "algo_id",
  /// "tile_id", "stages_id", "split_k"; the fused kernel's "ctas", "groups_per_cta",
  /// "cta_rows", "split_depth" (most CTAs sharing one output block).
  std::map<std::string, double> plan;
  std::int64_t samples = 0;  ///< timed samples
  double bytesMoved = 0;     ///< bytes read + written by one run
  double flops = 0;          ///< operations of one run, 2·m·n·k for GEMMs
  std::string sourceFile;    ///< where the kernel (or the record) comes from
  double energyJ = 0;        ///< board energy of one run, joules (NVML); 0 = not measured
  double avgPowerW = 0;      ///< mean board power while the samples ran, watts; 0 = not measured
};

}  // namespace qf
