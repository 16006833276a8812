#pragma once
/// GPUs and quantization schemes: the catalog entries the engine reads.
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/base/json_io.hpp>

namespace qf {

/// Tensor-core instruction families a scheme can issue on.
enum class TensorPath { Bf16, Fp16, Fp8, Int8, Fp4 };
inline constexpr std::array<TensorPath, 5> kAllTensorPaths = {
    TensorPath::Bf16, TensorPath::Fp16, TensorPath::Fp8, TensorPath::Int8, TensorPath::Fp4};
/// "bf16", "fp16", "fp8", "int8", "fp4".
const char* tensorPathName(TensorPath p);
std::optional<TensorPath> tensorPathFromName(const std::string& name);

/// A GPU file's optional `calibration` block: what real kernels reach on this GPU (written by
/// `qfront calibrate` from measurements, or by hand). Absent values keep the datasheet model.
struct GpuCalibration {
  std::string source;                         ///< where the figures come from
  std::optional<double> overheadMs;           ///< t0: fixed per-step overhead, ms
  std::optional<double> bandwidthEfficiency;  ///< η_β: achieved fraction of hbm_bandwidth_tbs
  std::optional<double> seqOverheadUs;        ///< t_seq: host time per sequence per step, µs
  std::optional<double> allreduceLatencyUs;   ///< α: fixed time of one all-reduce call, µs
  std::optional<double> gemmMHalf;            ///< M½: GEMM rows at which the tensor rate halves
  std::optional<double> tpWidthHalf;  ///< w½: per-GPU hidden width at which it halves, under TP
  std::optional<double> requestOverheadMs;  ///< t_req: a served request's fixed cost, ms
  /// η_P: achieved fraction of the tensor peak, by tensor path ("bf16") or scheme id
  /// ("w4a16-g128"); a scheme's entry wins over its path's.
  std::map<std::string, double> computeEfficiency;
  std::map<std::string, double>
      dequantSPerWeight;  ///< measured dequant seconds per weight, by scheme id
  /// η_k: fraction of η_β·bandwidth a scheme's decode kernel reaches reading its weights, by
  /// scheme id.
  std::map<std::string, double> kernelBandwidthEfficiency;
  /// η_a: fraction of η_β·bandwidth the attention kernel reaches reading the KV cache, by KV
  /// dtype ("fp8", "bf16").
  std::map<std::string, double> attentionBandwidthEfficiency;
  /// Every other key (device, residuals, fits, ...), kept as read: a serialised JSON object
  /// (this header sees only nlohmann's forward declarations).
  std::string extraJson = "{}";

  bool operator==(const GpuCalibration&) const = default;
};

/// Accepted ranges of calibration figures.
inline constexpr double kMaxEfficiency = 1.5;  ///< η above 1: a datasheet below what is reached
inline constexpr double kMaxOverheadMs = 1000;
inline constexpr double kMaxSeqOverheadUs = 10000;  ///< per sequence per step
inline constexpr double kMaxAllreduceLatencyUs = 10000;
inline constexpr double kMaxGemmMHalf = 4096;           ///< rows
inline constexpr double kMaxTpWidthHalf = 65536;        ///< hidden-width units
inline constexpr double kMaxRequestOverheadMs = 10000;  ///< per served request
inline constexpr double kMaxDequantSPerWeight = 1e-6;

/// An HGX node's NVLink domain, and one 400 Gb/s (50 GB/s) NIC per GPU, what InfiniBand or
/// RoCE H100/H200 nodes carry: a GPU entry's defaults for nvlink_domain_gpus and network_gbs.
inline constexpr int kDefaultNvlinkDomainGpus = 8;
inline constexpr double kDefaultNetworkGBps = 50;

/// One GPU: dense peaks and bandwidths from a named datasheet.
struct GpuSpec {
  std::string id;
  std::string name;
  double memoryGib = 0;
  double hbmBandwidthTBps = 0;                          ///< 1e12 bytes/s
  std::array<std::optional<double>, 5> tensorTflops{};  ///< indexed by TensorPath; absent = no path
  double vectorFp32Tflops = 0;
  std::optional<double> nvlinkGBps;  ///< 1e9 bytes/s
  /// GPUs one NVLink domain joins (`nvlink_domain_gpus`): 8 in an HGX node, 72 in a GB200
  /// NVL72 rack. A replica or a pair of pools wider than this talks over the network.
  int nvlinkDomainGpus = kDefaultNvlinkDomainGpus;
  /// Scale-out network per GPU and direction, 1e9 bytes/s (`network_gbs`; one 400 Gb/s NIC
  /// a GPU by default): collectives of a replica wider than its NVLink domain, and the KV
  /// between pools on different nodes, move at this rate.
  double networkGBps = kDefaultNetworkGBps;
  std::optional<double> pricePerGpuHourUsd;  ///< USD per GPU-hour
  std::string priceSource;
  std::string source;
  std::optional<GpuCalibration> calibration;  ///< the file's `calibration` block, when present

  [[nodiscard]] bool hasPath(TensorPath p) const {
    return tensorTflops[static_cast<std::size_t>(p)].has_value();
  }
  /// Peak of path p in FLOP/s (precondition: hasPath(p)).
  [[nodiscard]] double peakFlopsPerS(TensorPath p) const {
    return *tensorTflops[static_cast<std::size_t>(p)] * 1e12;
  }
  [[nodiscard]] double bandwidthBytesPerS() const { return hbmBandwidthTBps * 1e12; }
  /// D: non-tensor issue rate in instruction-lanes per second (an FMA counts two FLOP).
  [[nodiscard]] double issueRatePerS() const { return vectorFp32Tflops * 1e12 / 2.0; }

  /// Every field compared: an edited GPU equal to the catalog's is no edit.
  bool operator==(const GpuSpec&) const = default;
};

/// The range parseGpu accepts for one GPU figure.
struct GpuFieldRange {
  double min;
  double max;
  const char* unit;
};
inline constexpr GpuFieldRange kGpuMemoryGibRange{1e-3, 1e5, "GiB"};
inline constexpr GpuFieldRange kGpuBandwidthTBpsRange{1e-3, 1e3, "TB/s"};
inline constexpr GpuFieldRange kGpuTflopsRange{1e-3, 1e6, "TFLOP/s"};
inline constexpr GpuFieldRange kGpuNvlinkGBpsRange{1e-3, 1e6, "GB/s"};
inline constexpr GpuFieldRange kGpuNetworkGBpsRange{1e-3, 1e5, "GB/s"};
inline constexpr GpuFieldRange kGpuNvlinkDomainRange{1, 1024, "GPUs"};
inline constexpr GpuFieldRange kGpuPriceRange{0, 1e6, "USD per hour"};

/// Parses a GPU object (catalog entry or user file). `pointer` locates it in `file`.
/// Every figure must lie in its physical range (kGpu*Range); errors name the field.
Result<GpuSpec> parseGpu(const Json& j, const std::string& file, const std::string& pointer);
Result<GpuSpec> loadGpuFile(const std::string& path);
/// Checks a GPU held in memory against what parseGpu accepts (a name, every figure in its
/// kGpu*Range, a bf16 or fp16 path, the calibration block's ranges). `pointer` (e.g.
/// "/scenario/gpu_spec") prefixes the position of the field at fault; errors name the field
/// by its GPU file key.
std::optional<Error> checkGpu(const GpuSpec& gpu, const std::string& pointer = "");
/// Parses a `calibration` block (`pointer` locates it). Errors name the field, e.g.
/// "calibration.compute_efficiency.bf16".
Result<GpuCalibration> parseGpuCalibration(const Json& j, const std::string& file,
                                           const std::string& pointer);
/// The block as parseGpuCalibration reads it.
Json gpuCalibrationToJson(const GpuCalibration& c);
/// Serialises a GPU to the same shape parseGpu reads.
Json gpuToJson(const GpuSpec& gpu);

/// A quantization scheme: storage width, activation format, tensor path and dequant cost.
struct Scheme {
  std::string id;
  std::string name;
  double weightBits = 16;
  double scaleBits = 0;
  double groupSize = 0;  ///< 0: per-channel (scales counted as 0)
  double zeroBits = 0;
  std::string activation;
  TensorPath path = TensorPath::Bf16;
  double c = 0;  ///< non-tensor instructions per weight
  std::string cNote;
  /// Real checkpoints of this scheme quantize the LM head and embeddings too (catalog key
  /// `quantizes_lm_head`); otherwise they keep them at the catalog's checkpoint precision
  /// (docs/model.md, "Checkpoints as they are").
  bool quantizesLmHead = false;
  /// The scheme whose per-scheme constants (a calibration's compute fraction, kernel bandwidth
  /// and dequant cost, keyed by scheme id) this one takes where it has none of its own: the
  /// scheme whose kernel runs it (catalog key `constants_of`; empty: none).
  std::string constantsOf;

  /// weight_bits + scale_bits/group (+ zero_bits/group).
  [[nodiscard]] double bitsPerWeight() const {
    if (groupSize <= 0) return weightBits;
    return weightBits + scaleBits / groupSize + zeroBits / groupSize;
  }
  [[nodiscard]] double bytesPerWeight() const { return bitsPerWeight() / 8.0; }
};

Result<Scheme> parseScheme(const Json& j, const std::string& file, const std::string& pointer);

}  // namespace qf
