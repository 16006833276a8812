#pragma once
/// The program's version, written once (the top-level CMakeLists.txt's project version) and
/// reported by --version and in every JSON output.
#include <nlohmann/json_fwd.hpp>

namespace qf {

/// "0.1.0": the project version this build was configured with.
const char* qfrontVersion();

/// Version of the layout of qfront's JSON outputs (bumped when a key changes meaning).
inline constexpr int kOutputFormatVersion = 1;

/// Adds "qfront_version" and "output_format_version" to a JSON output object.
void stampOutput(nlohmann::json& output);

}  // namespace qf
