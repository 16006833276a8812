#pragma once
/// End-to-end evidence in a session: the imported static-batch runs (vLLM bench latency and
/// throughput, SGLang bench_one_batch) that are attached to a candidate, as the measured
/// points the end-to-end calibration fits (docs/model.md, "Calibration from end-to-end
/// measurements") and the "Measured vs model" view compares.
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/analysis/e2e_calibration.hpp>
#include <quantfront/core/base/records.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/session/session.hpp>

namespace qf {

/// Setup keys `qfront import --batch/--input-len/--output-len` stamp on runs whose file does
/// not state them (vLLM bench latency and throughput).
inline constexpr const char* kBatchSetupKey = "quantfront/batch";
inline constexpr const char* kInputLenSetupKey = "quantfront/input_len";
inline constexpr const char* kOutputLenSetupKey = "quantfront/output_len";
/// The tensor-parallel degree a static-batch run was timed at (`qfront import --tp`), for
/// files that do not state it; read before the file's own `tensor_parallel_size`/`tp_size`.
inline constexpr const char* kTpSetupKey = "quantfront/tp";

/// The static batch a benchmark ran: requests at once, prompt and output tokens each.
/// `batch` 0: not stated (only `tp` is); `tp` 0: not stated.
struct StaticBatch {
  double batch = 0;
  double inputLen = 0;
  double outputLen = 0;
  int tp = 0;
};

/// Stamps `b` on the runs that are timed as a static batch but whose file does not state it:
/// the batch and lengths on RunKind::Latency and RunKind::Throughput runs, the TP also on
/// RunKind::DecodeSweep runs; other runs are left as they are. Returns how many runs were
/// stamped.
std::size_t stampStaticBatch(std::vector<ImportedRun>& runs, const StaticBatch& b);

/// The measured points of the session's static-batch runs attached to a candidate: per run,
/// the candidate's model, GPU (as its catalog id when the catalog knows it) and schemes per
/// layer kind, the run's TP (stamped, else stated by the file, else the candidate's GPU count,
/// with a note when that is more than one GPU), the run's batch and
/// lengths, and what it measured (bench latency: the median, else mean, end-to-end latency;
/// bench throughput: total tokens/s; bench_one_batch: prefill and decode-step ms per batch).
/// A run left out (not attached, no batch or lengths, a serving run under load) gets one
/// line in `notes` saying why. `file` names the session in the points' origin. With `defects`,
/// a serving run whose own file makes it unfit to calibrate from (no offered load, a model of
/// its own other than its candidate's, a fitted figure its per-request records contradict)
/// goes there as an error naming the file and field, and gives no point.
std::vector<MeasuredPoint> measuredPointsFromSession(const Session& s, const std::string& file,
                                                     std::vector<std::string>& notes,
                                                     const Catalog& cat = Catalog::bundled(),
                                                     std::vector<Error>* defects = nullptr);

/// One imported end-to-end measurement beside the model's prediction for the same conditions
/// (model, GPU, TP, scheme, batch, lengths): the ideal roofline's, and the calibrated one's
/// (the GPU's own calibration block, else the catalog's bundled defaults) with its interval.
struct E2eComparison {
  MeasuredPoint point;  ///< what was measured, and where (`origin`, `candidate`)
  double datasheet = 0;
  IntervalEstimate calibrated;    ///< value, interval, and whether it is extrapolated
  std::string calibrationSource;  ///< where the calibrated constants come from; empty: none
  /// (model / measured − 1) × 100: positive where the model is too slow (latency) or too
  /// fast (throughput).
  [[nodiscard]] double datasheetErrorPct() const;
  [[nodiscard]] double calibratedErrorPct() const;
};

/// One prepared point beside the datasheet roofline and `eff` (with its `level` interval).
E2eComparison comparePoint(const PreparedPoint& pp, const Efficiency& eff, double level = 0.8);

/// Every measured point of `measuredPointsFromSession` compared with the model; a point the
/// model cannot price gets a line in `notes` (as do the runs left out). `level` is the
/// interval's confidence.
std::vector<E2eComparison> compareEndToEnd(const Session& s, const std::string& file,
                                           std::vector<std::string>& notes,
                                           const Catalog& cat = Catalog::bundled(),
                                           double level = 0.8);

/// Median |model − measured| / measured in % over `rows`, datasheet and calibrated, and how
/// many measurements lie inside the calibrated interval.
struct E2eErrorSummary {
  double datasheetMedianPct = 0;
  double calibratedMedianPct = 0;
  double calibratedMedianSignedPct = 0;  ///< the median of (model / measured − 1) × 100
  int insideInterval = 0;
  int withInterval = 0;  ///< rows whose calibrated prediction has an interval
  int extrapolated = 0;
};
E2eErrorSummary summarizeE2e(const std::vector<E2eComparison>& rows);

/// A calibration from the session's own runs, for a front end to show before applying it
/// (the window's File › Calibrate…): what `qfront calibrate SESSION` fits, with a held-out
/// check the user can judge it by.
struct SessionCalibration {
  GpuSpec gpu;        ///< the runs' GPU with the fitted calibration block
  std::string gpuId;  ///< the runs' GPU as they name it (catalog id, else name)
  E2eFit fit;         ///< constants, spreads, what was held or fixed, residuals
  Efficiency prior;   ///< what the fit started from (the GPU's calibration or bundled defaults)
  std::size_t points = 0;
  std::vector<std::string> notes;  ///< runs left out, and why
  /// Fitted on every other point (from the prior, as the whole fit is) and scored on the
  /// rest: median |model / measured − 1| in %, the prior's and the half-fit's, on the same
  /// held-out points. Absent with fewer than 4 points or when the half fails to fit.
  struct HeldOut {
    std::size_t fitted = 0, scored = 0;
    double priorMedianPct = 0, calibratedMedianPct = 0;
  };
  std::optional<HeldOut> heldOut;
};

/// Fits the session's end-to-end runs (measuredPointsFromSession) for one GPU: `gpuArg`, else
/// the one GPU the runs are on. The fit starts from that GPU's calibration (the scenario's
/// edited copy when it is that GPU, else the catalog's), as `qfront calibrate` does; the block's
/// source reads "<sourceLabel> (N end-to-end points, YYYY-MM-DD)". Errors: no run the model can
/// price (naming why the first was left out), runs on several GPUs without `gpuArg`, a fit
/// that fails.
Result<SessionCalibration> calibrateSession(const Session& s, const std::string& file,
                                            const std::string& sourceLabel,
                                            const std::string& gpuArg = "",
                                            const Catalog& cat = Catalog::bundled());

}  // namespace qf
