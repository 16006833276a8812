// A device description to and from JSON, in one place for its writer and its reader.
#include <nlohmann/json.hpp>
#include <quantfront/core/base/device_json.hpp>

namespace qf {

Json deviceToJson(const DeviceDescription& d) {
  return Json{{"index", d.index},
              {"name", d.name},
              {"sm_major", d.smMajor},
              {"sm_minor", d.smMinor},
              {"sm_count", d.smCount},
              {"memory_gib", d.memoryGib},
              {"memory_bus_bits", d.memoryBusBits},
              {"l2_bytes", d.l2Bytes}};
}

DeviceDescription deviceFromJson(const Json& j) {
  DeviceDescription d;
  if (!j.is_object()) return d;
  auto number = [&](const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
  };
  d.index = static_cast<int>(number("index"));
  if (const auto n = j.find("name"); n != j.end() && n->is_string()) d.name = n->get<std::string>();
  d.smMajor = static_cast<int>(number("sm_major"));
  d.smMinor = static_cast<int>(number("sm_minor"));
  d.smCount = static_cast<int>(number("sm_count"));
  d.memoryGib = number("memory_gib");
  d.memoryBusBits = static_cast<int>(number("memory_bus_bits"));
  d.l2Bytes = number("l2_bytes");
  return d;
}

}  // namespace qf
