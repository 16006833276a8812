#pragma once
/// Bundled resources (catalog, use cases, example sessions): compiled into every binary, and
/// read from the installed data folder when the program runs from an installed layout
/// (docs/architecture.md, "Installed layout").
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

/// The environment variable that names the data folder (a folder holding catalog/, sessions/,
/// schema/), overriding where the program would look.
inline constexpr const char* kDataDirEnv = "QUANTFRONT_DATA_DIR";

/// Where the bundled files are read from.
struct ResourceLocation {
  /// The data folder; empty when the program reads the copy compiled into it (a build tree).
  std::string dir;
  /// Why that folder, for messages: "QUANTFRONT_DATA_DIR", or "the program is installed as
  /// /usr/bin/qfront"; "compiled in" when dir is empty.
  std::string reason;
};

/// QUANTFRONT_DATA_DIR when it is set and not empty; PREFIX/share/quantfront when the running
/// program is PREFIX/bin/NAME (an installed layout, found from /proc/self/exe, never from a
/// path compiled in); otherwise the compiled-in copy.
ResourceLocation resourceLocation();
/// The same decision for a program at `executable` with QUANTFRONT_DATA_DIR = `envDir`
/// (nullopt: unset), without reading either from the process.
ResourceLocation resourceLocationFor(const std::string& executable,
                                     const std::optional<std::string>& envDir);

/// When resourceLocation() names a folder: one line naming the first bundled file missing from
/// it, the folder looked in and why that folder (a broken install); nullopt when every file the
/// program was built with is there, and always for the compiled-in copy. Front ends call it
/// first and exit with status 2 on a line.
std::optional<std::string> missingResource();

/// Contents of bundled file `path` (relative to resources/), or nullopt when absent: from the
/// data folder when resourceLocation() names one (read once, then kept), else compiled in.
std::optional<std::string_view> bundledFile(std::string_view path);
/// Paths of bundled files whose path starts with `prefix`, sorted (a data folder's own files
/// there, so a site can add a model config to an installed catalog).
std::vector<std::string> bundledFilesUnder(std::string_view prefix);

}  // namespace qf
