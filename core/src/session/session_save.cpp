// Atomic file writes (POSIX): temporary file in the target's directory, write, fsync, rename
// over the target, fsync the directory. The target is never half-written, and temporaries a
// killed writer left behind are recognised by name and removed by the next write.
#include <quantfront/core/session/atomic_file.hpp>
#include <quantfront/core/session/session.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <random>
#include <string>

namespace qf {

namespace {

std::string errnoText(int err) {
  return std::strerror(err);
}

std::string hex(std::uint64_t v, int digits) {
  std::string s(static_cast<std::size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i, v >>= 4)
    s[static_cast<std::size_t>(i)] = "0123456789abcdef"[v & 15];
  return s;
}

/// 64 unpredictable bits for a temporary's name (getrandom through std::random_device).
std::uint64_t randomBits() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

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
  /// Creates a fresh file next to the target under an unpredictable name. O_EXCL: never
  /// reuses an existing name and never follows a symbolic link planted there.
  int create(const std::filesystem::path& dir, const std::string& targetName) {
    const std::string prefix = "." + targetName + std::string(kAtomicTempMarker) +
                               atomicTempHostTag() + "-" + std::to_string(::getpid()) + "-";
    for (int attempt = 0; attempt < 100; ++attempt) {
      const std::string path = (dir / (prefix + hex(randomBits(), 16))).string();
      const int fd =
          ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
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

int writeAll(int fd, std::string_view bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

bool processIsGone(long long pid) {
  if (pid <= 0 || pid == static_cast<long long>(::getpid())) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

/// foreignLinkInPath, `depth` links deep.
std::optional<std::string> foreignLink(const std::filesystem::path& path, int depth) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (depth > 40) return std::nullopt;  // a loop: the write itself fails with ELOOP
  const fs::path abs = path.is_absolute() ? path : fs::current_path(ec) / path;
  fs::path cur = abs.root_path();
  for (const fs::path& part : abs.relative_path()) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      cur = cur.parent_path();
      continue;
    }
    const fs::path next = cur / part;
    struct stat st {};
    if (::lstat(next.c_str(), &st) != 0) return std::nullopt;  // not there: nothing to follow
    if (!S_ISLNK(st.st_mode)) {
      cur = next;
      continue;
    }
    if (st.st_uid != ::geteuid() && st.st_uid != 0) {
      return "'" + next.string() + "' is a symbolic link owned by another user (uid " +
             std::to_string(st.st_uid) + "); not followed, nothing written";
    }
    const fs::path target = fs::read_symlink(next, ec);
    if (ec) return std::nullopt;
    if (auto bad = foreignLink(target.is_absolute() ? target : cur / target, depth + 1)) {
      return bad;
    }
    cur = fs::canonical(next, ec);
    if (ec) return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> foreignLinkInPath(const std::string& dir) {
  return foreignLink(dir.empty() ? std::filesystem::path(".") : std::filesystem::path(dir), 0);
}

std::string atomicTempHostTag() {
  std::array<char, 256> host{};
  if (::gethostname(host.data(), host.size() - 1) != 0) host[0] = '\0';
  std::uint32_t h = 2166136261u;  // FNV-1a: a short, stable tag, not a secret
  for (const char* c = host.data(); *c; ++c) h = (h ^ static_cast<unsigned char>(*c)) * 16777619u;
  return hex(h, 8);
}

std::optional<AtomicTempName> parseAtomicTempName(std::string_view name) {
  const std::size_t at = name.rfind(kAtomicTempMarker);
  if (name.size() < 2 || name.front() != '.' || at == std::string_view::npos || at < 2)
    return std::nullopt;
  std::string_view rest = name.substr(at + kAtomicTempMarker.size());
  // <host: 8 hex>-<pid: digits>-<random: 16 hex>
  auto isHex = [](std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
  };
  const std::size_t d1 = rest.find('-');
  const std::size_t d2 = d1 == std::string_view::npos ? d1 : rest.find('-', d1 + 1);
  if (d2 == std::string_view::npos) return std::nullopt;
  const std::string_view host = rest.substr(0, d1);
  const std::string_view pid = rest.substr(d1 + 1, d2 - d1 - 1);
  const std::string_view rnd = rest.substr(d2 + 1);
  if (host.size() != 8 || !isHex(host) || rnd.size() != 16 || !isHex(rnd)) return std::nullopt;
  if (pid.empty() || pid.size() > 12 ||
      pid.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  AtomicTempName out;
  out.target = std::string(name.substr(1, at - 1));
  out.hostTag = std::string(host);
  out.pid = std::stoll(std::string(pid));
  return out;
}

std::size_t removeStaleTemporaries(const std::string& dir, std::chrono::seconds maxAge) {
  DIR* d = ::opendir(dir.empty() ? "." : dir.c_str());
  if (!d) return 0;
  const int dfd = ::dirfd(d);
  const std::string myHost = atomicTempHostTag();
  const std::time_t now = std::time(nullptr);
  std::size_t removed = 0;
  while (const dirent* e = ::readdir(d)) {
    const auto parsed = parseAtomicTempName(e->d_name);
    if (!parsed) continue;
    struct stat st {};
    if (::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) continue;
    const bool old = now - st.st_mtime > static_cast<std::time_t>(maxAge.count());
    const bool orphan = parsed->hostTag == myHost && processIsGone(parsed->pid);
    if ((old || orphan) && ::unlinkat(dfd, e->d_name, 0) == 0) ++removed;
  }
  ::closedir(d);
  return removed;
}

std::optional<Error> writeFileAtomic(const std::string& path, std::string_view bytes) {
  namespace fs = std::filesystem;
  auto fail = [&](const std::string& msg) {
    return std::optional<Error>(Error{path, "", "", msg});
  };
  if (path.empty()) return fail("no file name to write to");

  // Write through a symbolic link to the file it names, as editors do, but only a link of
  // our own: the link is resolved here, in user space, so the kernel's protected_symlinks
  // rule no longer guards it, and a link another user planted (in /tmp, say) would
  // otherwise redirect this write to any file we may write.
  fs::path target(path);
  std::error_code ec;
  // The folders on the way (a link another user planted at any of them is refused), here
  // and again at the folder a link of ours leads to.
  if (auto bad = foreignLinkInPath(target.has_parent_path() ? target.parent_path().string() : "."))
    return fail(*bad);
  if (fs::is_symlink(fs::symlink_status(target, ec))) {
    struct stat link {};
    if (::lstat(path.c_str(), &link) == 0 && link.st_uid != ::geteuid()) {
      return fail("is a symbolic link owned by another user (uid " + std::to_string(link.st_uid) +
                  "); not followed, nothing written");
    }
    const fs::path resolved = fs::canonical(target, ec);
    if (!ec) target = resolved;
  }
  if (target.filename().empty()) return fail("no file name to write to (path ends in '/')");
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");

  if (auto bad = foreignLinkInPath(dir.string())) return fail(*bad);

  // A directory at `path` is not checked here: rename() refuses it below, after the
  // temporary file exists, and the cleanup path removes that file.
  const fs::file_status existing = fs::status(target, ec);
  // Only a regular file is ever replaced: a rename onto a character device or a FIFO would
  // put a regular file in its place (run as root, `-o /dev/null` would destroy /dev/null).
  if (fs::exists(existing) && !fs::is_regular_file(existing) && !fs::is_directory(existing)) {
    const char* what = fs::is_character_file(existing) ? "a character device"
                       : fs::is_block_file(existing)   ? "a block device"
                       : fs::is_fifo(existing)         ? "a FIFO"
                       : fs::is_socket(existing)       ? "a socket"
                                                       : "not a regular file";
    return fail(std::string("is ") + what + ", not a regular file; nothing written (name a file)");
  }
  // A file the user made read-only is not replaced behind their back (rename() would only
  // need the folder's permission).
  if (fs::is_regular_file(existing) &&
      ((existing.permissions() & (fs::perms::owner_write | fs::perms::group_write |
                                  fs::perms::others_write)) == fs::perms::none ||
       ::access(target.c_str(), W_OK) != 0)) {
    return fail("is read-only; nothing written (make it writable, or choose another file)");
  }

  removeStaleTemporaries(dir.string());
  TempFile tmp;
  if (const int err = tmp.create(dir, target.filename().string())) {
    return fail("cannot create a temporary file in '" + dir.string() + "': " + errnoText(err));
  }
  if (fs::is_regular_file(existing)) {
    // Keep the permissions the user gave the file.
    const auto mode = static_cast<mode_t>(existing.permissions() & fs::perms::mask);
    ::fchmod(tmp.fd(), mode);
  }
  if (const int err = writeAll(tmp.fd(), bytes)) return fail("cannot write: " + errnoText(err));
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

std::optional<Error> saveSessionAtomic(const Session& s, const std::string& path) {
  if (path.empty()) return Error{path, "", "", "no file name to save to"};
  // Never write what would not load back.
  const std::string text = sessionToText(s);
  if (text.size() > kMaxSessionFileBytes) {
    return Error{path, "", "",
                 "refusing to save: the session would be " + std::to_string(text.size()) +
                     " bytes, past the " + std::to_string(kMaxSessionFileBytes) +
                     " a session file may hold (no reader would open it again)"};
  }
  if (auto back = parseSessionText(text, path); !back) {
    Error e = back.error();
    e.message = "refusing to save: the session would not load back: " + e.message;
    return e;
  }
  return writeFileAtomic(path, text);
}

}  // namespace qf
