// Atomic session saves (POSIX): temporary file in the target's directory, write, fsync,
// rename over the target, fsync the directory. The target is never half-written.
#include <quantfront/core/session/session.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

namespace qf {

namespace {

std::string errnoText(int err) { return std::strerror(err); }

/// Removes the temporary file unless released (after a successful rename).
class TempFile {
 public:
  TempFile() = default;
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (m_fd >= 0) ::close(m_fd);
    if (!m_path.empty()) ::unlink(m_path.c_str());
  }
  /// Creates a fresh file next to `target` (O_EXCL: never reuses an existing name).
  int create(const std::filesystem::path& dir, const std::string& targetName) {
    static std::atomic<unsigned> counter{0};
    for (int attempt = 0; attempt < 100; ++attempt) {
      const std::string name = "." + targetName + ".tmp-" + std::to_string(::getpid()) + "-" +
                               std::to_string(counter.fetch_add(1));
      const std::string path = (dir / name).string();
      const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd >= 0) {
        m_fd = fd;
        m_path = path;
        return 0;
      }
      if (errno != EEXIST) return errno;
    }
    return EEXIST;
  }
  [[nodiscard]] int fd() const { return m_fd; }
  [[nodiscard]] const std::string& path() const { return m_path; }
  /// Closes the descriptor; returns errno on failure (a deferred write error shows here).
  int close() {
    const int fd = m_fd;
    m_fd = -1;
    return ::close(fd) == 0 ? 0 : errno;
  }
  void release() { m_path.clear(); }

 private:
  int m_fd = -1;
  std::string m_path;
};

int writeAll(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

}  // namespace

std::optional<Error> saveSessionAtomic(const Session& s, const std::string& path) {
  namespace fs = std::filesystem;
  auto fail = [&](const std::string& msg) { return std::optional<Error>(Error{path, "", "", msg}); };
  if (path.empty()) return fail("no file name to save to");

  // Never write what would not load back.
  const std::string text = sessionToText(s);
  if (auto back = parseSessionText(text, path); !back) {
    Error e = back.error();
    e.message = "refusing to save: the session would not load back: " + e.message;
    return e;
  }

  // Save through a symbolic link to the file it names, as editors do.
  fs::path target(path);
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(target, ec))) {
    const fs::path resolved = fs::canonical(target, ec);
    if (!ec) target = resolved;
  }
  if (target.filename().empty()) return fail("no file name to save to (path ends in '/')");
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");

  // A directory at `path` is not checked here: rename() refuses it below, after the
  // temporary file exists, and the cleanup path removes that file.
  const fs::file_status existing = fs::status(target, ec);

  TempFile tmp;
  if (const int err = tmp.create(dir, target.filename().string())) {
    return fail("cannot create a temporary file in '" + dir.string() + "': " + errnoText(err));
  }
  if (fs::is_regular_file(existing)) {
    // Keep the permissions the user gave the file.
    const auto mode = static_cast<mode_t>(existing.permissions() & fs::perms::mask);
    ::fchmod(tmp.fd(), mode);
  }
  if (const int err = writeAll(tmp.fd(), text)) return fail("cannot write: " + errnoText(err));
  if (::fsync(tmp.fd()) != 0) return fail("cannot flush to disk: " + errnoText(errno));
  if (const int err = tmp.close()) return fail("cannot close: " + errnoText(err));
  if (::rename(tmp.path().c_str(), target.c_str()) != 0) {
    const int err = errno;
    if (err == EISDIR || err == ENOTEMPTY || err == EEXIST) {
      return fail("is a directory; choose a file name");
    }
    return fail("cannot replace the file: " + errnoText(err));
  }
  tmp.release();
  // Make the rename itself durable; some file systems refuse to fsync a directory.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return std::nullopt;
}

}  // namespace qf
