#pragma once
/// An advisory lock around a read-modify-write of a session or fleet file (POSIX flock on a
/// sibling lock file). Every writer that reads a file, changes it and writes it back takes
/// the lock first and holds it until the new file has been renamed into place, so two writers
/// never lose each other's update: the second waits, then reads the first one's result.
///
/// The lock file ".<name>.qfront-lock" lies next to the target and holds one line naming the
/// holder ("pid <n> on <host>: <what>"). The holder removes it when it lets go; a waiter that
/// acquires a lock file already removed (or replaced) by the previous holder tries again, so
/// removing it is safe. The lock is advisory: only QuantFront's own writers respect it.
#include <chrono>
#include <string>
#include <string_view>

#include <quantfront/core/base/error.hpp>

namespace qf {

/// The suffix of every lock file name: ".<target>.qfront-lock".
inline constexpr std::string_view kFileLockSuffix = ".qfront-lock";
/// How long a writer waits for another by default before giving up.
inline constexpr std::chrono::milliseconds kDefaultLockWait{10'000};

/// The lock file that guards `target` (same folder, name ".<name>.qfront-lock").
std::string lockPathFor(const std::string& target);

/// A held lock; released (lock file removed, descriptor closed) on destruction.
class FileLock {
 public:
  FileLock() = default;
  FileLock(FileLock&& o) noexcept;
  FileLock& operator=(FileLock&& o) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

  /// Locks `target` for writing, waiting at most `wait` for another holder to let go.
  /// `what` says what the holder does ("qfront import"), for the message a waiter prints.
  /// On a timeout the error names `target` and the holder; an error also when the lock
  /// file cannot be created (e.g. a read-only folder).
  static Result<FileLock> acquire(const std::string& target, std::string_view what,
                                  std::chrono::milliseconds wait = kDefaultLockWait);

  /// True while the lock is held.
  [[nodiscard]] bool held() const { return m_fd >= 0; }
  /// Lets go of the lock now (the destructor does the same).
  void release();

 private:
  int m_fd = -1;
  std::string m_path;
};

/// The lock wait the command-line tools use: kDefaultLockWait, or QFRONT_LOCK_WAIT_S seconds
/// (0..3600) from the environment when set to a valid number.
std::chrono::milliseconds lockWaitFromEnvironment();

}  // namespace qf
