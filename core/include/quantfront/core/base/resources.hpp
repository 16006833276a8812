#pragma once
/// Bundled resources (catalog, use cases, example sessions) compiled into the binary.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace qf::embedded {
/// One bundled file: `path` relative to resources/ (e.g. "catalog/gpus.json").
struct EmbeddedFile {
  const char* path;
  const char* data;
  std::size_t sizeBytes;
};
/// Every bundled file, in build order.
std::span<const EmbeddedFile> files();
}  // namespace qf::embedded

namespace qf {
/// Contents of bundled file `path` (relative to resources/), or nullopt when absent.
std::optional<std::string_view> bundledFile(std::string_view path);
/// Paths of bundled files whose path starts with `prefix`, sorted.
std::vector<std::string> bundledFilesUnder(std::string_view prefix);
}  // namespace qf
