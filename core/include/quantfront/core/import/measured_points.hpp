#pragma once
/// The measured-points CSV: static-batch and serving figures at known batch, lengths and load,
/// the points end-to-end calibration fits (docs/model.md, "Calibration from end-to-end
/// measurements").
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/base/error.hpp>

namespace qf {

/// What a benchmark measured (the measured-points CSV's `metric`): of a static batch, or, on
/// a row with a `load`, of a server under that load (means, and the percentiles
/// `vllm bench serve` and SGLang's `bench_serving` print: TPOT excludes the first token, ITL
/// is per gap between tokens).
enum class E2eMetric {
  E2eLatencyS,
  TtftMs,
  TpotMs,
  DecodeStepMs,
  PrefillMs,
  OutputTokS,
  TotalTokS,
  TtftP50Ms,
  TtftP99Ms,
  TpotP50Ms,
  TpotP99Ms,
  ItlP50Ms,
  ItlP99Ms
};
/// True for a percentile metric (a serving row's only).
bool isServingPercentile(E2eMetric m);
/// True for a 99th percentile: the simulation predicts it, and a fit scores it without
/// fitting to it (docs/model.md, "Calibration from serving sweeps").
bool isTailMetric(E2eMetric m);
const char* e2eMetricName(E2eMetric m);
/// The unit the CSV's `unit` column must state: s, ms or tok/s.
const char* e2eMetricUnit(E2eMetric m);
std::optional<E2eMetric> e2eMetricFromName(const std::string& name);

/// The neutral measured-points CSV header (detected by it; columns in this order).
inline constexpr const char* kMeasuredPointsHeader =
    "model,gpu,tp,scheme,kv_dtype,batch,input_len,output_len,metric,value,unit";
/// True when the first line of `text` is kMeasuredPointsHeader (spaces ignored), or starts
/// with it followed by more columns (a source, a note: carried, not read).
bool isMeasuredPointsCsv(const std::string& text);

/// How a serving row was loaded (the CSV's optional `load` column); a static batch has none.
enum class PointLoad { Static, Rate, Concurrency, Max };

/// One measured figure of a static batch of `batch` requests of `inputLen` prompt and
/// `outputLen` output tokens, or of a server under a load (`load` not Static: a Poisson rate
/// of `loadValue` req/s, a closed loop of `loadValue` clients, or every request at once).
struct MeasuredPoint {
  std::string model;  ///< catalog id or config.json path (relative to `baseDir`)
  std::string gpu;    ///< catalog id or GPU file
  int tp = 1;
  std::string scheme;        ///< the linear layers' scheme
  std::string schemeMoe;     ///< the expert layers' scheme; empty: as `scheme`
  std::string schemeLmHead;  ///< the LM head's scheme; empty: as `scheme`
  std::string kvDtype = "bf16";
  double batch = 1;
  double inputLen = 0;
  double outputLen = 0;
  E2eMetric metric = E2eMetric::E2eLatencyS;
  double value = 0;
  PointLoad load = PointLoad::Static;
  double loadValue = 0;  ///< req/s (Rate) or clients (Concurrency)
  /// The server's batch cap and tokens per step (`max_batch`, `token_budget` columns); 0: the
  /// engine's own defaults on the point's GPU (engineAdmissionDefaults, set by preparePoints).
  int maxBatch = 0;
  double tokenBudget = 0;
  /// The serving engine (`engine` column: vllm, sglang or trtllm; empty: vLLM's rules). It
  /// sets how the KV pool is sized (Scenario::kvFreeFraction).
  std::string engine;
  [[nodiscard]] bool serving() const { return load != PointLoad::Static; }
  std::string origin;     ///< "points.csv row 3", for messages and residual lists
  std::string candidate;  ///< the session candidate the run is attached to (sessions only)
  std::string baseDir;    ///< folder relative model paths are resolved against
};

/// "4" (req/s), "c64" (closed-loop clients), "max" (all at once), "" (a static batch).
std::string loadText(const MeasuredPoint& p);

/// A measured-points file's bounds: 64 MiB of text and 100,000 points (each point is a
/// figure the fit evaluates the model at, and every repeat of the fit's search does it again;
/// the published sets the project holds are a few hundred rows).
inline constexpr std::uint64_t kMaxMeasuredPointsBytes = 64ull * 1024 * 1024;
inline constexpr std::size_t kMaxMeasuredPoints = 100000;

/// Reads the measured-points CSV (at most kMaxMeasuredPoints rows). Errors name the row and the
/// field (a missing column, an unknown metric, a unit that is not the metric's, a non-positive or
/// non-finite value). After the named columns, optional ones by header name: `load` (a request
/// rate, `cN` or `max`; `batch` may then be empty), `max_batch` and `token_budget` (the server's
/// limits), `engine` (vllm, sglang or trtllm: how the server sizes its KV pool); any other column
/// (a source, a note) is carried, not read.
Result<std::vector<MeasuredPoint>> parseMeasuredPointsCsv(const std::string& text,
                                                          const std::string& file);

}  // namespace qf
