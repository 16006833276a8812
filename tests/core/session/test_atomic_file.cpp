// Atomic file writes: temporaries with recognisable, unpredictable names; a writer killed
// mid-save (kill -9) leaves a temporary that the next save into the folder removes.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <quantfront/core/session/atomic_file.hpp>
#include <quantfront/core/session/session.hpp>
#include "support/temp_dir.hpp"

using namespace qf;
namespace fs = std::filesystem;

namespace {

using qf::testing::TempDir;

std::set<std::string> names(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void touch(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

/// Sets a file's modification time `ageS` seconds into the past.
void age(const fs::path& p, long ageS) {
  const timeval now{static_cast<time_t>(::time(nullptr) - ageS), 0};
  const timeval times[2] = {now, now};
  REQUIRE(::utimes(p.c_str(), times) == 0);
}

/// The pid of a process that has exited and been reaped.
pid_t deadPid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return pid;
}

std::string tempName(const std::string& target, const std::string& host, long long pid) {
  return "." + target + std::string(kAtomicTempMarker) + host + "-" + std::to_string(pid) +
         "-0123456789abcdef";
}

}  // namespace

TEST_CASE("temporary names are recognisable and parse back", "[session][atomic]") {
  const auto host = atomicTempHostTag();
  REQUIRE(host.size() == 8);
  const auto p = parseAtomicTempName(tempName("my.session.json", host, 4242));
  REQUIRE(p);
  CHECK(p->target == "my.session.json");
  CHECK(p->hostTag == host);
  CHECK(p->pid == 4242);
  CHECK_FALSE(parseAtomicTempName("my.session.json"));
  CHECK_FALSE(parseAtomicTempName(".x.qfront-tmp-zzzzzzzz-1-0123456789abcdef"));
  CHECK_FALSE(parseAtomicTempName(".x.qfront-tmp-" + host + "--0123456789abcdef"));
  CHECK_FALSE(parseAtomicTempName(".x.qfront-tmp-" + host + "-12-0123"));
  CHECK_FALSE(parseAtomicTempName(".qfront-tmp-" + host + "-12-0123456789abcdef"));
  CHECK_FALSE(parseAtomicTempName(".x.tmp-12-0"));
}

TEST_CASE("a write killed mid-save leaves a temporary the next save removes", "[session][atomic]") {
  TempDir dir;
  const fs::path target = dir.path() / "s.json";
  touch(target, "old\n");
  // A child starts writing a big file and is killed with SIGKILL while it writes.
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(ready[0]);
    const std::string huge(64u << 20, 'x');  // 64 MiB: long enough to be killed mid-write
    (void)::write(ready[1], "g", 1);
    (void)writeFileAtomic(target.string(), huge);
    ::_exit(0);
  }
  ::close(ready[1]);
  char go = 0;
  REQUIRE(::read(ready[0], &go, 1) == 1);
  ::close(ready[0]);
  // Wait until the temporary exists, then kill -9.
  std::string leftover;
  for (int i = 0; i < 2000 && leftover.empty(); ++i) {
    for (const auto& n : names(dir.path())) {
      if (parseAtomicTempName(n)) leftover = n;
    }
    if (leftover.empty()) ::usleep(1000);
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (leftover.empty()) {
    WARN("the child finished before a temporary was seen; nothing to clean");
  } else if (WIFSIGNALED(status)) {
    CHECK(fs::exists(dir.path() / leftover));
    const auto parsed = parseAtomicTempName(leftover);
    REQUIRE(parsed);
    CHECK(parsed->target == "s.json");
    CHECK(parsed->pid == child);
    CHECK(slurp(target) == "old\n");
  }
  // The next save into the folder removes it.
  Session s;
  s.title = "after the crash";
  REQUIRE_FALSE(saveSessionAtomic(s, target.string()));
  CHECK(names(dir.path()) == std::set<std::string>{"s.json"});
  CHECK(slurp(target).find("after the crash") != std::string::npos);
}

TEST_CASE("stale temporaries: old or of a dead writer, others are kept", "[session][atomic]") {
  TempDir dir;
  const auto host = atomicTempHostTag();
  const std::string deadWriter = tempName("a.json", host, deadPid());
  const std::string liveWriter = tempName("b.json", host, ::getppid());
  const std::string otherHostLive =
      tempName("c.json", "0badc0de" == host ? "0badc0df" : "0badc0de", deadPid());
  const std::string oldLive = tempName("d.json", host, ::getppid());
  const std::string notOurs = ".e.json.tmp-123-0";
  const std::string userFile = "notes.txt";
  for (const auto& n : {deadWriter, liveWriter, otherHostLive, oldLive, notOurs, userFile}) {
    touch(dir.path() / n, "x");
  }
  age(dir.path() / oldLive, 11 * 60);
  // A symbolic link with a temporary's name is not ours to remove (nor followed).
  const std::string link = tempName("f.json", host, deadPid());
  fs::create_symlink(dir.path() / userFile, dir.path() / link);

  CHECK(removeStaleTemporaries(dir.path().string()) == 2);
  CHECK(names(dir.path()) ==
        std::set<std::string>{liveWriter, otherHostLive, notOurs, userFile, link});
  CHECK(slurp(dir.path() / userFile) == "x");
  // Ten minutes is the limit whoever wrote it; another host's temporary ages out too.
  age(dir.path() / otherHostLive, 11 * 60);
  CHECK(removeStaleTemporaries(dir.path().string()) == 1);
  CHECK_FALSE(fs::exists(dir.path() / otherHostLive));
}

TEST_CASE("writeFileAtomic replaces a file in one step and keeps its permissions",
          "[session][atomic]") {
  TempDir dir;
  const fs::path target = dir.path() / "out.csv";
  touch(target, "old");
  ::chmod(target.c_str(), 0640);
  REQUIRE_FALSE(writeFileAtomic(target.string(), "new\n"));
  CHECK(slurp(target) == "new\n");
  CHECK((fs::status(target).permissions() & fs::perms::mask) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
  CHECK(names(dir.path()) == std::set<std::string>{"out.csv"});
  // A directory in the way: an error, the temporary removed.
  fs::create_directories(dir.path() / "d");
  const auto e = writeFileAtomic((dir.path() / "d").string(), "x");
  REQUIRE(e);
  CHECK(names(dir.path()) == std::set<std::string>{"d", "out.csv"});
  CHECK_FALSE(writeFileAtomic((dir.path() / "missing" / "x").string(), "x") == std::nullopt);
}

TEST_CASE("writeFileAtomic does not follow a symbolic link another user owns",
          "[session][atomic]") {
  if (::geteuid() != 0) {
    WARN("not root: cannot give a link to another user here");
    return;
  }
  TempDir dir;
  const fs::path victim = dir.path() / "victim.txt";
  touch(victim, "keep me");
  const fs::path link = dir.path() / "planted.png";
  fs::create_symlink(victim, link);
  REQUIRE(::lchown(link.c_str(), 65534, 65534) == 0);  // as if "nobody" planted it
  const auto e = writeFileAtomic(link.string(), "png bytes");
  REQUIRE(e);
  CHECK(e->message.find("symbolic link owned by another user") != std::string::npos);
  CHECK(slurp(victim) == "keep me");
  CHECK(fs::is_symlink(link));
  // A link of our own is still written through (as the session save test checks).
  REQUIRE(::lchown(link.c_str(), ::geteuid(), ::getegid()) == 0);
  REQUIRE_FALSE(writeFileAtomic(link.string(), "new"));
  CHECK(slurp(victim) == "new");
}

TEST_CASE("writeFileAtomic does not write through a folder link another user owns",
          "[session][atomic]") {
  if (::geteuid() != 0) {
    WARN("not root: cannot give a link to another user here");
    return;
  }
  TempDir dir;
  const fs::path target = dir.path() / "their_target";
  fs::create_directories(target);
  const fs::path linkDir = dir.path() / "link_dir";
  fs::create_directory_symlink(target, linkDir);
  REQUIRE(::lchown(linkDir.c_str(), 65534, 65534) == 0);  // planted by "nobody"
  // The folder link anywhere on the way: the last folder, or one further up.
  fs::create_directories(target / "sub");
  for (const fs::path& path : {linkDir / "s.json", linkDir / "sub" / "s.json"}) {
    const auto e = writeFileAtomic(path.string(), "x");
    INFO(path.string());
    REQUIRE(e);
    CHECK(e->message.find("link_dir' is a symbolic link owned by another user") !=
          std::string::npos);
    CHECK_FALSE(fs::exists(target / "s.json"));
    CHECK_FALSE(fs::exists(target / "sub" / "s.json"));
  }
  // A folder link of our own is followed.
  REQUIRE(::lchown(linkDir.c_str(), ::geteuid(), ::getegid()) == 0);
  REQUIRE_FALSE(writeFileAtomic((linkDir / "s.json").string(), "ours"));
  CHECK(slurp(target / "s.json") == "ours");
}

TEST_CASE("writeFileAtomic leaves a read-only file as it is", "[session][atomic]") {
  TempDir dir;
  const fs::path f = dir.path() / "s.json";
  touch(f, "keep me");
  fs::permissions(f, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const auto e = writeFileAtomic(f.string(), "new");
  REQUIRE(e);
  CHECK(e->message.find("read-only") != std::string::npos);
  CHECK(slurp(f) == "keep me");
  CHECK(dir.count() == 1);
}

TEST_CASE("writeFileAtomic replaces only a regular file: a FIFO stays a FIFO",
          "[session][atomic]") {
  // A rename onto a FIFO or a character device would put a regular file in its place (as
  // root, `-o /dev/null` would have destroyed /dev/null).
  TempDir dir;
  const fs::path fifo = dir.path() / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto e = writeFileAtomic(fifo.string(), "new");
  REQUIRE(e);
  CHECK(e->message.find("a FIFO, not a regular file") != std::string::npos);
  CHECK(fs::is_fifo(fs::symlink_status(fifo)));
  CHECK(dir.count() == 1);  // no temporary left behind
  // (A character device takes the same branch; the test does not aim a write at /dev/null,
  // which a regression would destroy on the machine running it.)
}
