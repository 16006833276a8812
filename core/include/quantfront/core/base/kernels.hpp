#pragma once
/// The kernel vocabulary, defined once: which schemes the measurement kernels can time, which
/// kernels each has, and the names the records carry. cuda/ measures from it, sessions read
/// records back through it, calibration reads the typed fields it defines (docs/model.md,
/// "The kernels measured").
#include <string>
#include <string_view>
#include <vector>

#include <quantfront/core/base/records.hpp>

namespace qf {

/// ImportedRun::format of the run recording where a measurement ran (device, clocks, versions).
inline constexpr const char* kMeasureRunFormat = "qfront-measure";

/// A scheme the measurement kernels can time.
struct MeasurableScheme {
  const char* id;  ///< catalog scheme id
  /// The calibration key its GEMM's fitted rate is stored under: the tensor path for a library
  /// GEMM ("fp8": any scheme on that path may use it), the scheme id for a fused kernel of its
  /// own; empty when the scheme has no GEMM kernel (dequant only).
  const char* gemmRateKey;
  bool dequant;  ///< a streaming dequant kernel exists for it
};

/// Every measurable scheme, in measurement order.
const std::vector<MeasurableScheme>& measurableSchemes();
/// The ids of measurableSchemes().
std::vector<std::string> measurableSchemeIds();
/// The entry for `id`, or null when the kernels cannot time it.
const MeasurableScheme* measurableScheme(std::string_view id);

/// The record name of a kernel: "hbm_copy", "hbm_read", "dequant_<scheme>", the GEMM's
/// "gemm_<rate key>" ("gemm_fp8", "gemm_w4a16-g128"); empty for Other or a scheme without
/// that kernel.
std::string kernelName(KernelKind kind, std::string_view scheme = {});
/// The kind of a record named by kernelName() with that scheme; Other for any other name
/// (records read from a file state the name and scheme only).
KernelKind kernelKindOf(std::string_view kernel, std::string_view scheme);
/// "hbm-copy", "hbm-read", "dequant", "gemm", "other".
const char* kernelKindName(KernelKind kind);

}  // namespace qf
