#pragma once
/// The bundled catalog (models, GPUs, schemes) and lookups by id or by user file.
#include <string>
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
  double m_fallbackC = 1.0;
  std::string m_fallbackId = "w8a16";
  double m_fallback4BitC = 2.0;
  std::string m_fallback4BitId = "w4a16-g128";
};

}  // namespace qf
