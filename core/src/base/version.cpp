// QF_VERSION_STRING comes from CMake's project(VERSION ...), so the version lives in one place.
#include <quantfront/core/base/version.hpp>

#include <nlohmann/json.hpp>

#ifndef QF_VERSION_STRING
#error "QF_VERSION_STRING must be defined by the build (CMake project version)"
#endif

namespace qf {

const char* qfrontVersion() {
  return QF_VERSION_STRING;
}

void stampOutput(nlohmann::json& output) {
  output["qfront_version"] = qfrontVersion();
  output["output_format_version"] = kOutputFormatVersion;
}

}  // namespace qf
