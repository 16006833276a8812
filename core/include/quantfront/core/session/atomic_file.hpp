#pragma once
/// Atomic file replacement (POSIX) shared by session saves, autosaves and exports: the bytes
/// go to a fresh temporary file in the target's directory, created exclusively under an
/// unpredictable name, written, flushed and fsync'ed, then renamed over the target. Every
/// write, the flush, the close and the rename are checked; on any failure the temporary is
/// removed and an existing target is left untouched. Temporaries left by a writer that was
/// killed are recognisable by name and removed by the next write into the same folder.
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <quantfront/core/base/error.hpp>

namespace qf {

/// The marker in every temporary file name: ".<target>.qfront-tmp-<host>-<pid>-<random>".
inline constexpr std::string_view kAtomicTempMarker = ".qfront-tmp-";
/// A temporary older than this is stale whoever wrote it (a save takes well under a second).
inline constexpr std::chrono::seconds kStaleTempAge{600};

/// Writes `bytes` to `path` atomically (see the file comment). A symbolic link at `path` is
/// followed to the file it names, as editors do, when it is the writer's own; a link another
/// user owns, at `path` or at any folder on the way (foreignLinkInPath), is refused. The
/// existing file's permissions are kept.
/// Stale temporaries in the target's folder are removed first (removeStaleTemporaries).
/// Errors name `path` and say what failed (e.g. "cannot write: No space left on device").
std::optional<Error> writeFileAtomic(const std::string& path, std::string_view bytes);

/// Every directory a write into `dir` passes through, checked: a symbolic link among them
/// that belongs neither to this user nor to root (planted by another user in a shared
/// folder) is refused, since following it would put the write wherever that user chose.
/// Links of our own or root's are followed and their targets checked the same way. Returns
/// a message naming the link, or nullopt when the path is safe (or does not exist yet).
std::optional<std::string> foreignLinkInPath(const std::string& dir);

/// The parts of a temporary file name writeFileAtomic makes, when `fileName` is one.
struct AtomicTempName {
  std::string target;   ///< the file the temporary was to replace (name only)
  std::string hostTag;  ///< 8 hex digits naming the host that wrote it
  long long pid = 0;    ///< the writer's process id
};

/// Parses a temporary's file name (no directory); nullopt when it is not one of ours.
std::optional<AtomicTempName> parseAtomicTempName(std::string_view fileName);

/// The host tag this machine writes into temporary names (8 hex digits of its host name).
std::string atomicTempHostTag();

/// Removes this program's stale temporaries in `dir`: regular files owned by this user whose
/// name parseAtomicTempName accepts and that are older than `maxAge`, or were written on
/// this host by a process that no longer exists. Returns how many were removed; errors are
/// ignored (cleaning is best effort and never fails a save).
std::size_t removeStaleTemporaries(const std::string& dir,
                                   std::chrono::seconds maxAge = kStaleTempAge);

}  // namespace qf
