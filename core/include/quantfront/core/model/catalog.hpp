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

/// The bundled defaults file: {"gpus": {id: calibration block}}. Errors name the block.
Result<std::map<std::string, GpuCalibration>> parseDefaultCalibrations(std::string_view text,
                                                                       const std::string& file);

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
  /// default bf16; docs/model.md, "Checkpoints as they are"), if the catalog has one. Not yet
  /// set by the scenario builders: the bundled constants were fitted without it.
  [[nodiscard]] const std::optional<Scheme>& checkpointLmHead() const { return m_checkpointLmHead; }

  /// The bundled end-to-end constants of a catalog GPU (resources/catalog/calibration.json:
  /// fitted to published latencies, or carried over and marked so), or null when none.
  [[nodiscard]] const GpuCalibration* defaultCalibration(const std::string& gpuId) const;

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
  std::vector<Scheme> m_schemes;
  std::map<std::string, GpuCalibration> m_defaultCalibrations;
  std::optional<Scheme> m_checkpointLmHead;
  double m_fallbackC = 1.0;
  std::string m_fallbackId = "w8a16";
  double m_fallback4BitC = 2.0;
  std::string m_fallback4BitId = "w4a16-g128";
};

}  // namespace qf
