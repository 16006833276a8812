// Advisory flock on a sibling lock file around a read-modify-write (see file_lock.hpp).
#include <quantfront/core/session/atomic_file.hpp>
#include <quantfront/core/session/file_lock.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

namespace qf {

namespace {

std::string hostName() {
  std::array<char, 256> host{};
  if (::gethostname(host.data(), host.size() - 1) != 0) return "this host";
  return host.data();
}

/// What the lock file says about its holder (first line, printable characters only).
std::string readHolder(int fd) {
  std::array<char, 512> buf{};
  const ssize_t n = ::pread(fd, buf.data(), buf.size() - 1, 0);
  std::string s;
  for (ssize_t i = 0; i < n; ++i) {
    const char c = buf[static_cast<std::size_t>(i)];
    if (c == '\n') break;
    if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) s += c;
  }
  return s;
}

/// True when `fd` is still the file at `path` (the previous holder did not remove it).
bool stillLinked(int fd, const std::string& path) {
  struct stat a {
  }, b{};
  if (::fstat(fd, &a) != 0 || ::lstat(path.c_str(), &b) != 0) return false;
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

std::string lockPathFor(const std::string& target) {
  const std::filesystem::path p(target);
  const std::string name = "." + p.filename().string() + std::string(kFileLockSuffix);
  return p.has_parent_path() ? (p.parent_path() / name).string() : name;
}

FileLock::FileLock(FileLock&& o) noexcept : m_fd(o.m_fd), m_path(std::move(o.m_path)) {
  o.m_fd = -1;
  o.m_path.clear();
}

FileLock& FileLock::operator=(FileLock&& o) noexcept {
  if (this != &o) {
    release();
    m_fd = o.m_fd;
    m_path = std::move(o.m_path);
    o.m_fd = -1;
    o.m_path.clear();
  }
  return *this;
}

FileLock::~FileLock() {
  release();
}

void FileLock::release() {
  if (m_fd < 0) return;
  // Removed while still held: a waiter that locks the removed file sees it is gone and tries
  // again on a fresh one.
  if (stillLinked(m_fd, m_path)) ::unlink(m_path.c_str());
  ::close(m_fd);
  m_fd = -1;
  m_path.clear();
}

Result<FileLock> FileLock::acquire(const std::string& target, std::string_view what,
                                   std::chrono::milliseconds wait) {
  const std::string path = lockPathFor(target);
  const auto deadline = std::chrono::steady_clock::now() + wait;
  auto fail = [&](const std::string& msg) { return Error{target, "", "", msg}; };
  const std::filesystem::path parent = std::filesystem::path(target).parent_path();
  if (auto bad = foreignLinkInPath(parent.empty() ? std::string(".") : parent.string())) {
    return fail(*bad);
  }
  for (;;) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
      const int err = errno;
      if (err == ENOENT) {
        const std::filesystem::path dir = std::filesystem::path(target).parent_path();
        return fail("folder '" + (dir.empty() ? std::string(".") : dir.string()) +
                    "' does not exist; nothing written");
      }
      return fail("cannot create the lock file '" + path + "': " + std::strerror(err) +
                  "; nothing written");
    }
    bool locked = false;
    for (;;) {
      if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
        locked = true;
        break;
      }
      if (errno != EWOULDBLOCK && errno != EINTR) {
        const int err = errno;
        ::close(fd);
        return fail("cannot lock '" + path + "': " + std::strerror(err) + "; nothing written");
      }
      if (std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(15));
    }
    if (!locked) {
      std::string holder = readHolder(fd);
      ::close(fd);
      if (holder.empty()) holder = "another QuantFront process";
      const auto ms = wait.count();
      const std::string waited =
          ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
      return fail("is being changed by " + holder + " (lock file '" + path + "'); waited " +
                  waited + ", nothing written; try again when it has finished");
    }
    if (!stillLinked(fd, path)) {  // the previous holder removed it: lock the new one
      ::close(fd);
      continue;
    }
    const std::string line = "pid " + std::to_string(::getpid()) + " on " + hostName() + " (" +
                             std::string(what) + ")\n";
    if (::ftruncate(fd, 0) == 0) {
      [[maybe_unused]] const ssize_t n = ::pwrite(fd, line.data(), line.size(), 0);
    }
    FileLock lock;
    lock.m_fd = fd;
    lock.m_path = path;
    return lock;
  }
}

std::chrono::milliseconds lockWaitFromEnvironment() {
  const char* v = std::getenv("QFRONT_LOCK_WAIT_S");
  if (!v || !*v) return kDefaultLockWait;
  double s = 0;
  const char* end = v + std::strlen(v);
  const auto [ptr, ec] = std::from_chars(v, end, s);
  if (ec != std::errc() || ptr != end || !(s >= 0 && s <= 3600)) return kDefaultLockWait;
  return std::chrono::milliseconds(static_cast<long long>(s * 1000));
}

}  // namespace qf
