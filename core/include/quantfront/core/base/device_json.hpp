#pragma once
/// A DeviceDescription as JSON: {"index", "name", "sm_major", "sm_minor", "sm_count",
/// "memory_gib", "memory_bus_bits", "l2_bytes"} (what qfront-measure --list-devices lists).
#include <quantfront/core/base/device.hpp>
#include <quantfront/core/base/json_io.hpp>

namespace qf {

Json deviceToJson(const DeviceDescription& d);
/// The fields `j` carries; a missing or mistyped one keeps its default (an older
/// qfront-measure lists fewer).
DeviceDescription deviceFromJson(const Json& j);

}  // namespace qf
