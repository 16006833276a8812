#pragma once
/// The bundled catalog (models, GPUs, schemes) and lookups by id or by user file.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/hardware.hpp>
#include <quantfront/core/model/model_config.hpp>

namespace qf {

/// One bundled model: its id (file stem) and config.json text.
struct CatalogModel {
  std::string id;
  std::string configText;
  std::string resourcePath;
};

/// The bundled defaults file: {"gpus": {id: calibration block}}; a block's optional "engines"
/// object holds whole blocks by engine ({"trtllm": {...}}), kept under the key "id@engine".
/// Errors name the block.
Result<std::map<std::string, GpuCalibration>> parseDefaultCalibrations(std::string_view text,
                                                                       const std::string& file);

/// Which bundled constants an engine runs with: "trtllm" for TensorRT-LLM ("trtllm",
/// "tensorrt-llm"), "" for vLLM, SGLang and an unnamed engine (their per-step costs are one
/// fit's: docs/model.md, "Constants per serving engine").
std::string engineConstantsKey(const std::string& engine);

/// How the driver names a catalog GPU (gpus.json "device_names"): every phrase of `words` and
/// none of `without`, each as whole words, in any case ("h100" and not "pcie": "NVIDIA H100
/// 80GB HBM3" is an H100 SXM; "l4" is not found in "NVIDIA L40S").
struct DeviceNameRule {
  std::vector<std::string> words;
  std::vector<std::string> without;
};

/// What the catalog says about a scheme beyond its storage and kernel cost (schemes.json):
/// how checkpoint names hint at it, where it is ticked by default, and what measures it.
struct SchemeEntry {
  /// Words in a model or checkpoint name that mean this scheme ("name_hints.words"), unless
  /// one of `unlessWords` is there too ("w8a8" names INT8 unless "fp8" says FP8).
  std::vector<std::string> nameWords;
  std::vector<std::string> unlessWords;
  /// Where the scheme is ticked by default ("default_for"): "scenario" (a new scenario's
  /// candidates), "deploy" (the Deploy tab's search), "measure" (Measure when the view names
  /// none it can time).
  std::vector<std::string> defaultFor;
  /// The kernel that times it ("kernels": "gemm" names the GEMM's rate key, "dequant" a
  /// streaming dequant kernel), or "modelled_only": true; one of the two, never neither.
  std::string gemmKernel;
  bool dequantKernel = false;
  bool modelledOnly = false;
  /// Its curves' style ("plot_style"): colour as "#RRGGBB" (empty: the window picks one) and
  /// dash pattern in line widths (empty: solid).
  std::string plotColor;
  std::vector<double> plotDashes;
  /// Engines that quantize a full-precision checkpoint to this scheme as they load it, and
  /// the flag value they take ("online_quantization": {"vllm": "fp8"}).
  std::map<std::string, std::string> onlineQuantization;
  /// What checkpoint to make when none is at hand ("checkpoint"), for launch commands.
  std::string checkpointNote;
  /// Hugging Face checkpoints of this scheme ("hf_quantization"): each rule's quant_method
  /// names and the facts (CheckpointFacts) it requires; a checkpoint meeting any rule is one.
  struct HfRule {
    std::vector<std::string> methods;
    std::optional<double> weightBits, activationBits;
    /// Weights per scale group (-1: per channel). A checkpoint that states another group is
    /// not this scheme; one that states none is taken as it.
    std::optional<double> groupSize;
    std::optional<std::string> weightType, activationType, algo;
    std::optional<bool> symmetric;
    [[nodiscard]] bool matches(const CheckpointFacts& f) const;
  };
  std::vector<HfRule> hfRules;
};

class Catalog {
 public:
  /// The catalog compiled into the binary (resources/catalog). Parsed once, then shared.
  static const Catalog& bundled();

  [[nodiscard]] const std::vector<CatalogModel>& models() const { return m_models; }
  [[nodiscard]] const std::vector<GpuSpec>& gpus() const { return m_gpus; }
  [[nodiscard]] const std::vector<Scheme>& schemes() const { return m_schemes; }
  /// c used when a scheme falls back to the bf16 path (c of the scheme named by "c_as").
  [[nodiscard]] double fallbackC() const { return m_fallbackC; }
  /// Sets the scenario's fallback kernels: "c_as" for weights wider than 4 bits, "c_as_4bit"
  /// (default w4a16-g128) for 4-bit ones (docs/model.md, "Fallbacks").
  void setFallbacks(Scenario& s) const;
  /// The scheme real checkpoints keep the LM head and embeddings in ("checkpoint_lm_head",
  /// default bf16; docs/model.md, "Checkpoints as they are"), if the catalog has one; the
  /// scenario builders set it unless the datasheet roofline is asked for.
  [[nodiscard]] const std::optional<Scheme>& checkpointLmHead() const { return m_checkpointLmHead; }

  /// The bundled end-to-end constants of a catalog GPU (resources/catalog/calibration.json:
  /// fitted to published latencies, or carried over and marked so), or null when none. A GPU
  /// may carry constants of its own for an engine whose per-step costs differ (its block's
  /// "engines" object, docs/model.md "Constants per serving engine"): `engine` picks them
  /// (`engineConstantsKey`), else the GPU's block (vLLM's and SGLang's) is returned.
  [[nodiscard]] const GpuCalibration* defaultCalibration(const std::string& gpuId,
                                                         const std::string& engine = "") const;

  /// The unquantized scheme ("baseline" in schemes.json, default bf16): what a candidate that
  /// names no scheme runs, and what speedups and cost reductions are taken against.
  [[nodiscard]] const std::string& baselineSchemeId() const { return m_baselineId; }
  /// The catalog's own description of a built-in scheme (null for an id it does not have).
  [[nodiscard]] const SchemeEntry* schemeEntry(const std::string& id) const;
  /// Ids of the schemes ticked by default for `use` ("scenario", "deploy", "measure"), in
  /// catalog order.
  [[nodiscard]] std::vector<std::string> schemesDefaultFor(std::string_view use) const;
  /// The scheme a model or checkpoint name hints at by the catalog's name hints, as
  /// (scheme id, hint words found) pairs, one per word found.
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> schemeHintsIn(
      const std::vector<std::string>& words) const;

  /// The scheme a Hugging Face checkpoint of these facts is (the first scheme, in catalog
  /// order, one of whose "hf_quantization" rules the facts meet); empty when none.
  [[nodiscard]] std::string schemeForCheckpoint(const CheckpointFacts& facts) const;
  /// Where no scheme has the checkpoint's group: of the schemes its other facts meet, the one
  /// whose group is nearest (scale bits per weight, 1/group, closest; per channel is 1/∞ = 0);
  /// the first in catalog order on a tie. Empty when none.
  [[nodiscard]] std::string schemeOfNearestGroup(const CheckpointFacts& facts) const;

  /// The market a catalog GPU is sold into (gpus.json "segment": "data-centre", "workstation"
  /// or "consumer"); "data-centre" for a GPU the catalog does not know (a user's file).
  [[nodiscard]] std::string gpuSegment(const std::string& gpuId) const;

  /// The catalog GPU a device name stands for, as the driver reports it ("NVIDIA H100 80GB
  /// HBM3" → h100-sxm): the one GPU whose "device_names" rule the name meets; empty when no
  /// GPU's rule does (or, were the rules to overlap, more than one).
  [[nodiscard]] std::string gpuForDeviceName(const std::string& deviceName) const;

  /// A catalog model id (case-insensitive) or a path to a config.json.
  [[nodiscard]] Result<ModelArch> resolveModel(const std::string& idOrPath) const;
  /// A catalog GPU id (case-insensitive) or a path to a GPU JSON file.
  [[nodiscard]] Result<GpuSpec> resolveGpu(const std::string& idOrPath) const;
  /// A built-in scheme by id (case-insensitive); `field` names the argument in errors.
  [[nodiscard]] Result<Scheme> scheme(const std::string& id,
                                      const std::string& field = "scheme") const;
  /// Ids joined with ", " for error messages.
  [[nodiscard]] std::string modelIds() const;
  [[nodiscard]] std::string gpuIds() const;
  [[nodiscard]] std::string schemeIds() const;

  /// Builds a catalog from JSON texts (used by bundled() and by tests).
  static Result<Catalog> fromTexts(std::vector<CatalogModel> models, const std::string& gpusText,
                                   const std::string& schemesText);

 private:
  std::vector<CatalogModel> m_models;
  std::vector<GpuSpec> m_gpus;
  std::vector<std::pair<std::string, DeviceNameRule>> m_deviceNames;  ///< by GPU id
  std::map<std::string, std::string> m_segments;                      ///< by GPU id
  std::vector<Scheme> m_schemes;
  std::map<std::string, SchemeEntry> m_schemeEntries;  ///< by scheme id
  std::string m_baselineId;
  std::map<std::string, GpuCalibration> m_defaultCalibrations;
  std::optional<Scheme> m_checkpointLmHead;
  double m_fallbackC = 1.0;
  std::string m_fallbackId = "w8a16";
  double m_fallback4BitC = 2.0;
  std::string m_fallback4BitId = "w4a16-g128";
};

}  // namespace qf
