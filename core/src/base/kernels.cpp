// The kernel vocabulary (see kernels.hpp).
#include <quantfront/core/base/kernels.hpp>

namespace qf {

const std::vector<MeasurableScheme>& measurableSchemes() {
  static const std::vector<MeasurableScheme> schemes = {
      {"bf16", "bf16", false},       {"w8a8-fp8", "fp8", false},
      {"w8a8-int8", "int8", false},  {"w4a16-g128", "w4a16-g128", true},
      {"w4a16-g128-asym", "", true}, {"w8a16", "", true},
      {"w8a16-fp8", "", true},       {"mxfp4", "", true},
  };
  return schemes;
}

std::vector<std::string> measurableSchemeIds() {
  std::vector<std::string> ids;
  for (const auto& s : measurableSchemes()) ids.emplace_back(s.id);
  return ids;
}

const MeasurableScheme* measurableScheme(std::string_view id) {
  for (const auto& s : measurableSchemes()) {
    if (id == s.id) return &s;
  }
  return nullptr;
}

std::string kernelName(KernelKind kind, std::string_view scheme) {
  switch (kind) {
    case KernelKind::HbmCopy:
      return "hbm_copy";
    case KernelKind::HbmRead:
      return "hbm_read";
    case KernelKind::Dequant: {
      const MeasurableScheme* s = measurableScheme(scheme);
      return s && s->dequant ? "dequant_" + std::string(scheme) : std::string();
    }
    case KernelKind::Gemm: {
      const MeasurableScheme* s = measurableScheme(scheme);
      return s && *s->gemmRateKey ? "gemm_" + std::string(s->gemmRateKey) : std::string();
    }
    case KernelKind::Other:
      break;
  }
  return {};
}

KernelKind kernelKindOf(std::string_view kernel, std::string_view scheme) {
  for (KernelKind k :
       {KernelKind::HbmCopy, KernelKind::HbmRead, KernelKind::Dequant, KernelKind::Gemm}) {
    const std::string name = kernelName(k, scheme);
    if (!name.empty() && name == kernel) return k;
  }
  return KernelKind::Other;
}

const char* kernelKindName(KernelKind kind) {
  switch (kind) {
    case KernelKind::HbmCopy:
      return "hbm-copy";
    case KernelKind::HbmRead:
      return "hbm-read";
    case KernelKind::Dequant:
      return "dequant";
    case KernelKind::Gemm:
      return "gemm";
    case KernelKind::Other:
      break;
  }
  return "other";
}

}  // namespace qf
