// Bundled resources: compiled in (cmake/embed_resources.cmake), or read from an installed data
// folder. QF_INSTALL_BINDIR and QF_INSTALL_DATADIR are the install layout's relative folders
// (GNUInstallDirs: "bin", "share/quantfront"), never an absolute path of this build.
#include <quantfront/core/base/resources.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#ifndef QF_INSTALL_BINDIR
#define QF_INSTALL_BINDIR "bin"
#endif
#ifndef QF_INSTALL_DATADIR
#define QF_INSTALL_DATADIR "share/quantfront"
#endif

namespace qf {
namespace fs = std::filesystem;

namespace {

/// Bundled files are small (the catalog is a few hundred kB); a larger one is not ours.
constexpr std::uintmax_t kMaxResourceBytes = 64ull << 20;

std::optional<std::string> environmentDataDir() {
  const char* v = std::getenv(kDataDirEnv);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

std::string runningExecutable() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.string();
}

/// Files read from a data folder, by full path; entries are never removed, so the views
/// bundledFile hands out stay valid for the life of the process.
struct DiskCache {
  std::mutex mutex;
  std::map<std::string, std::optional<std::string>, std::less<>> files;
};
DiskCache& diskCache() {
  static DiskCache cache;
  return cache;
}

std::optional<std::string> readSmallFile(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::nullopt;
  const auto size = fs::file_size(p, ec);
  if (ec || size > kMaxResourceBytes) return std::nullopt;
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) return std::nullopt;
  return std::move(text).str();
}

}  // namespace

ResourceLocation resourceLocationFor(const std::string& executable,
                                     const std::optional<std::string>& envDir) {
  if (envDir && !envDir->empty()) return {*envDir, std::string(kDataDirEnv)};
  if (executable.empty()) return {"", "compiled in"};
  const fs::path exe(executable);
  const fs::path binDir = exe.parent_path();
  // PREFIX/bin/NAME: compare as many trailing components as QF_INSTALL_BINDIR has.
  fs::path prefix = binDir;
  const fs::path bin(QF_INSTALL_BINDIR);
  std::vector<fs::path> parts(bin.begin(), bin.end());
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (prefix.filename() != *it) return {"", "compiled in"};
    prefix = prefix.parent_path();
  }
  if (parts.empty()) return {"", "compiled in"};
  return {(prefix / QF_INSTALL_DATADIR).lexically_normal().string(),
          "the program is installed as " + exe.string()};
}

ResourceLocation resourceLocation() {
  return resourceLocationFor(runningExecutable(), environmentDataDir());
}

std::optional<std::string> missingResource() {
  const ResourceLocation where = resourceLocation();
  if (where.dir.empty()) return std::nullopt;
  std::error_code ec;
  if (!fs::is_directory(where.dir, ec)) {
    return where.dir + ": the data folder is missing (looked for it because " + where.reason +
           "; set " + kDataDirEnv + " to the folder that holds catalog/)";
  }
  for (const auto& f : embedded::files()) {
    const fs::path p = fs::path(where.dir) / f.path;
    if (!fs::is_regular_file(p, ec)) {
      return p.string() + ": bundled file '" + f.path + "' is missing from the data folder " +
             where.dir + " (looked there because " + where.reason + "; set " + kDataDirEnv +
             " to a complete one, or reinstall)";
    }
  }
  return std::nullopt;
}

std::optional<std::string_view> bundledFile(std::string_view path) {
  const ResourceLocation where = resourceLocation();
  if (where.dir.empty()) {
    for (const auto& f : embedded::files()) {
      if (path == f.path) return std::string_view(f.data, f.sizeBytes);
    }
    return std::nullopt;
  }
  const std::string full = (fs::path(where.dir) / fs::path(std::string(path))).string();
  DiskCache& cache = diskCache();
  const std::lock_guard lock(cache.mutex);
  auto it = cache.files.find(full);
  if (it == cache.files.end()) it = cache.files.emplace(full, readSmallFile(full)).first;
  if (!it->second) return std::nullopt;
  return std::string_view(*it->second);
}

std::vector<std::string> bundledFilesUnder(std::string_view prefix) {
  std::vector<std::string> out;
  const ResourceLocation where = resourceLocation();
  if (where.dir.empty()) {
    for (const auto& f : embedded::files()) {
      if (std::string_view(f.path).starts_with(prefix)) out.emplace_back(f.path);
    }
  } else {
    const fs::path root(where.dir);
    // The folder part of the prefix is listed; the rest of the prefix filters names.
    const std::string pre(prefix);
    const auto slash = pre.rfind('/');
    const fs::path folder = root / (slash == std::string::npos ? "" : pre.substr(0, slash));
    std::error_code ec;
    for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      const std::string rel = it->path().lexically_relative(root).generic_string();
      if (rel.starts_with(pre)) out.push_back(rel);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace qf
