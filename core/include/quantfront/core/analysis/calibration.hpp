#pragma once
/// Calibration of the analytic model against live kernel measurements (the session's
/// `kernel_measurements`, written by qfront-measure or imported from nvbench): the achieved
/// HBM bandwidth β from the copy/read probes, the achieved tensor rate P per path (and per
/// scheme for our own kernels) from the large-M GEMMs, each kernel's decode-size bandwidth
/// (η_k) and a fused weight-only kernel's dequant cost from its own M ≤ 16 records (the
/// streaming dequant kernels are a bandwidth probe, reported and never priced), each with its
/// residuals. Also the
/// measured step time: the sum over a model's GEMMs of the measured kernel time at M = B.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>
#include <quantfront/core/base/error.hpp>
#include <quantfront/core/base/records.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/hardware.hpp>
#include <quantfront/core/model/model_config.hpp>

namespace qf {

/// y ≈ slope·x (+ intercept), fitted by iteratively reweighted least squares on relative
/// residuals (y − ŷ)/y with Huber weights (k = 1.345 robust standard deviations, the scale
/// re-estimated from the median absolute residual each round), so one slow outlier sample
/// does not move the fit.
struct RobustLineFit {
  double slope = 0;
  double intercept = 0;              ///< 0 when fitted through the origin
  std::vector<double> relResiduals;  ///< (y − ŷ)/ŷ per point, input order
  double relSpread = 0;              ///< 1.4826 × median |relative residual|
  std::size_t points = 0;
};
/// Fits `ys` against `xs` (same length ≥ 1, x > 0, y > 0). `withIntercept` needs ≥ 2 distinct
/// x; otherwise the fit goes through the origin.
RobustLineFit fitRobustLine(const std::vector<double>& xs, const std::vector<double>& ys,
                            bool withIntercept);

/// One fitted quantity: value, relative spread of the points around the fit, the points.
struct FittedValue {
  double value = 0;
  double relSpread = 0;              ///< robust relative standard deviation of the residuals
  std::size_t records = 0;           ///< records the fit used
  std::vector<double> relResiduals;  ///< per record, in the session's order
};

/// What calibrate() fits for one device.
struct Calibration {
  std::string device;                             ///< as the driver reports it
  std::optional<FittedValue> bandwidthBytesPerS;  ///< β from hbm_copy / hbm_read
  /// Achieved tensor rate in FLOP/s by key: a tensor path ("bf16", "fp8", "int8") for the
  /// library GEMMs, a scheme id ("w4a16-g128") for our own fused kernels.
  std::map<std::string, FittedValue> peakFlopsPerS;
  /// A fused weight-only kernel's time per weight beyond its weight read at β, from its own
  /// records at M ≤ kDecodeMaxM: median of (t − W·b_w/β)/W; by scheme id.
  std::map<std::string, FittedValue> dequantSecondsPerWeight;
  /// Each GEMM kernel's decode-size weight read as a fraction of β (η_k), from its records at
  /// M ≤ kDecodeMaxM: W·b_w/(β·t) for a library GEMM; b_w/(b_w + β·deq) for a fused kernel,
  /// so the engine prices its decode step at the time measured; by scheme id.
  std::map<std::string, FittedValue> kernelBandwidthEff;
  /// The streaming dequant kernels' seconds per weight: a bandwidth probe, reported in the
  /// calibration's extras and never applied (the kernel is write-bound).
  std::map<std::string, FittedValue> streamingDequantSPerWeight;
  std::vector<std::string> warnings;
};

/// Devices that have records, in first-seen order.
std::vector<std::string> measuredDevices(const std::vector<KernelMeasurement>& records);

/// GEMM rows from which a GEMM counts as compute-bound for the P fit (smaller M are
/// weight-streaming and say nothing about P).
inline constexpr std::int64_t kCalibrationMinM = 1024;
/// GEMM rows up to which a record is a decode-size one (weight-streaming): it sets its
/// kernel's η_k and, for a fused weight-only kernel, the dequant cost.
inline constexpr std::int64_t kDecodeMaxM = 16;

/// Fits β, P per path, η_k per GEMM kernel and a fused kernel's dequant cost from `device`'s
/// records (empty: the
/// only device; several devices without a choice is an error naming them — one device's
/// records are never mixed into another's fit). Errors name `source`.
Result<Calibration> calibrate(const std::vector<KernelMeasurement>& records,
                              const std::string& device, const std::string& source);

/// The bundled GPU id whose datasheet a device name (as the driver reports it, e.g.
/// "NVIDIA H100 80GB HBM3") stands for, by the catalog's "device_names" rules
/// (Catalog::gpuForDeviceName); empty when none is recognised (the caller then asks for the GPU).
std::string catalogGpuForDevice(const std::string& deviceName);

/// The catalog id a GPU is written as: a catalog id in any case ("H100-SXM"), else a device
/// name `catalogGpuForDevice` recognises ("NVIDIA H100 80GB HBM3"); empty when neither.
std::string catalogGpuId(const std::string& idOrName, const Catalog& cat);

/// Whether two spellings stand for the same GPU: the same catalog id, or (when either is
/// unknown to the catalog) the same text in any case.
bool sameGpu(const std::string& a, const std::string& b, const Catalog& cat);

/// The kernel whose measured times stand for `schemeId` in a measured step time
/// ("bf16" → "gemm_bf16", "w8a8-fp8" → "gemm_fp8", "w8a8-int8" → "gemm_int8",
/// "w4a16-g128" → "gemm_w4a16-g128"); empty when no GEMM kernel is measured for it.
std::string gemmKernelForScheme(const std::string& schemeId);

/// The schemes with measured GEMM kernels (gemmKernelForScheme) among `device`'s records, in
/// the order bf16, w8a8-fp8, w8a8-int8, w4a16-g128.
std::vector<std::string> measuredGemmSchemes(const std::vector<KernelMeasurement>& records,
                                             const std::string& device);

/// The distinct GEMM rows M measured on `device`, ascending: of `schemeId`'s kernel, or of
/// every GEMM kernel when `schemeId` is empty.
std::vector<double> measuredGemmBatches(const std::vector<KernelMeasurement>& records,
                                        const std::string& device, const std::string& schemeId);

/// The GPU file `qfront calibrate -o` writes: `datasheet` as parseGpu reads it, plus a
/// `calibration` block: source, device, bandwidth_efficiency (β / datasheet β),
/// compute_efficiency {path or scheme: P / datasheet P}, dequant_s_per_weight {scheme: s},
/// and the residuals and spreads of each fit.
nlohmann::json calibratedGpuJson(const GpuSpec& datasheet, const Calibration& calibration,
                                 const std::string& source);

/// One measured step time.
struct MeasuredStep {
  double batch = 0;
  double stepS = 0;    ///< Σ over the model's GEMMs of the measured time at M = batch
  double spreadS = 0;  ///< root-sum-square of each term's relative noise × its time
  std::size_t terms = 0;
};

/// Measured step time of `model` under `schemeId` on `device` at each batch of `batches`:
/// every decode GEMM (decodeGemmShapes) at M = B, the kernel's median interpolated between
/// measured M (log-log; no extrapolation: a batch outside the measured M range is left out).
/// Expert GEMMs run at M = ⌈B·k/E⌉ rows, Et(B) experts per MoE layer. Only GEMM time: the
/// attention, norms and launches the model's t0 stands for are not in it.
Result<std::vector<MeasuredStep>> measuredStepTimes(const std::vector<KernelMeasurement>& records,
                                                    const std::string& device,
                                                    const ModelArch& model,
                                                    const std::string& schemeId,
                                                    const std::vector<double>& batches,
                                                    const std::string& source);

/// `gpu` with `calibration` as its calibration block (source, β and P per path or scheme over
/// the datasheet's, dequant seconds per weight, the fits' spreads and residuals), typed, no
/// JSON round trip. Errors name the field when a figure is outside what a GPU file may hold
/// (η in (0, 1.5], dequant in [0, 1e-6] s per weight).
Result<GpuSpec> applyCalibration(GpuSpec gpu, const Calibration& calibration,
                                 const std::string& source);

/// applyCalibration (kept for its callers).
Result<GpuSpec> calibratedGpu(const GpuSpec& datasheet, const Calibration& calibration,
                              const std::string& source);

/// Measured step times of one scheme, with the model's prediction at the same batches.
struct MeasuredCurve {
  std::string schemeId;
  std::vector<MeasuredStep> points;
  std::vector<double> datasheetStepS;   ///< the datasheet model at each point's batch
  std::vector<double> calibratedStepS;  ///< the calibrated model there (empty: no calibration)
};

/// What the window draws over the modelled curves: measured points per scheme with their
/// spread, the calibrated model's report over the plotted batches, and the residuals.
struct MeasurementOverlay {
  std::string device;  ///< whose records (empty: none)
  std::vector<MeasuredCurve> measured;
  std::optional<EngineReport> calibrated;  ///< the engine on the calibrated GPU
  std::vector<std::string> notes;          ///< e.g. which device of several was used
};

/// The overlay for `scenario` and `assignments` from `records` (a session's): the device
/// whose catalog GPU is the scenario's (else the only one, else the first, with a note);
/// measured steps for each uniform assignment that has a GEMM kernel; the calibrated report
/// over `batches` when the records allow a calibration. No records: an empty overlay.
Result<MeasurementOverlay> measurementOverlay(const std::vector<KernelMeasurement>& records,
                                              const Scenario& scenario,
                                              const std::vector<SchemeAssignment>& assignments,
                                              const std::vector<double>& batches,
                                              const std::string& source);

}  // namespace qf
