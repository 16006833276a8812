// qfront-measure in a child process as a MeasurementBackend (measure_process.hpp).
#include <quantfront/core/session/measure_process.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/json_io.hpp>

extern char** environ;

namespace qf {

namespace {

/// A child's standard output as lines, its exit, and a way to stop it.
class Child {
 public:
  Child() = default;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (m_pid > 0) {
      ::kill(m_pid, SIGKILL);
      ::waitpid(m_pid, nullptr, 0);
    }
    if (m_out >= 0) ::close(m_out);
  }

  /// Starts `argv` with stdin from /dev/null, stdout to a pipe and stderr to `errFile`.
  std::optional<std::string> start(const std::vector<std::string>& argv,
                                   const std::string& errFile) {
    int fds[2];
    if (::pipe(fds) != 0) return std::string("pipe: ") + std::strerror(errno);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, errFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int rc = ::posix_spawn(&m_pid, argv[0].c_str(), &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(fds[1]);
    if (rc != 0) {
      ::close(fds[0]);
      m_pid = -1;
      return "cannot start " + argv[0] + ": " + std::strerror(rc);
    }
    m_out = fds[0];
    return std::nullopt;
  }

  /// The next line of output; nullopt at the end. Waits at most `timeoutMs` per call and
  /// returns an empty optional-with-timeout flag set in `timedOut` when nothing came.
  std::optional<std::string> line(int timeoutMs, bool& timedOut) {
    timedOut = false;
    for (;;) {
      if (const auto nl = m_buf.find('\n'); nl != std::string::npos) {
        std::string l = m_buf.substr(0, nl);
        m_buf.erase(0, nl + 1);
        return l;
      }
      if (m_eof) {
        if (m_buf.empty()) return std::nullopt;
        std::string l;
        l.swap(m_buf);
        return l;
      }
      pollfd p{m_out, POLLIN, 0};
      const int r = ::poll(&p, 1, timeoutMs);
      if (r == 0) {
        timedOut = true;
        return std::nullopt;
      }
      if (r < 0 && errno == EINTR) continue;
      char chunk[65536];
      const ssize_t n = ::read(m_out, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        m_eof = true;
        continue;
      }
      m_buf.append(chunk, static_cast<std::size_t>(n));
    }
  }

  void terminate() {
    if (m_pid > 0) ::kill(m_pid, SIGTERM);
  }

  /// Waits for the child; its exit status, or −signal when a signal ended it.
  int wait() {
    int status = 0;
    while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
    }
    m_pid = -1;
    if (WIFSIGNALED(status)) return -WTERMSIG(status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }

 private:
  pid_t m_pid = -1;
  int m_out = -1;
  std::string m_buf;
  bool m_eof = false;
};

/// A folder of its own for one run's files, removed afterwards.
class TempFolder {
 public:
  TempFolder() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "qfront-measure-XXXXXX").string();
    if (::mkdtemp(tmpl.data())) m_path = tmpl;
  }
  ~TempFolder() {
    std::error_code ec;
    if (!m_path.empty()) std::filesystem::remove_all(m_path, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  [[nodiscard]] const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

/// The last non-empty line of a file (the child's one-line error), or "".
std::string lastLine(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

class ChildProcessBackend final : public MeasurementBackend {
 public:
  explicit ChildProcessBackend(std::string exe) : m_exe(std::move(exe)) {}

  std::vector<MeasureDevice> devices(std::string& why) override {
    TempFolder tmp;
    if (tmp.path().empty()) {
      why = "no temporary folder for qfront-measure";
      return {};
    }
    Child child;
    if (auto e = child.start({m_exe, "--list-devices"}, tmp.path() + "/stderr")) {
      why = *e;
      return {};
    }
    std::string text;
    bool timedOut = false;
    while (auto l = child.line(30'000, timedOut)) text += *l + "\n";
    if (timedOut) child.terminate();
    const int rc = child.wait();
    std::vector<MeasureDevice> out;
    auto doc = parseJson(text, m_exe + " --list-devices");
    if (!doc || !doc->is_object() || !doc->contains("devices")) {
      const std::string err = lastLine(tmp.path() + "/stderr");
      why = !err.empty() ? err
                         : "qfront-measure --list-devices gave no device list (exit " +
                               std::to_string(rc) + ")";
      return {};
    }
    for (const auto& d : (*doc)["devices"]) {
      MeasureDevice m;
      m.index = d.value("index", 0);
      m.name = d.value("name", std::string());
      m.smMajor = d.value("sm_major", 0);
      m.smMinor = d.value("sm_minor", 0);
      m.smCount = d.value("sm_count", 0);
      m.memoryGib = d.value("memory_gib", 0.0);
      out.push_back(m);
    }
    if (out.empty()) why = doc->value("why", std::string("no CUDA device"));
    return out;
  }

  Result<MeasurementBatch> measure(const MeasureRequest& request,
                                   const MeasureProgress& progress) override {
    TempFolder tmp;
    if (tmp.path().empty()) return Error{"", "", "measure", "no temporary folder"};
    const std::string model =
        !request.model.sourceFile.empty() ? request.model.sourceFile : request.model.id;
    if (model.empty()) {
      return Error{"", "", "model", "the scenario's model has neither a catalog id nor a file"};
    }
    std::string schemes;
    for (const auto& s : request.schemes) schemes += (schemes.empty() ? "" : ",") + s;
    const std::string out = tmp.path() + "/measured.json";
    std::vector<std::string> argv = {m_exe,
                                     "--out",
                                     out,
                                     "--model",
                                     model,
                                     "--schemes",
                                     schemes,
                                     "--device",
                                     std::to_string(request.device),
                                     "--progress-jsonl"};
    if (request.quick) argv.emplace_back("--quick");
    Child child;
    if (auto e = child.start(argv, tmp.path() + "/stderr")) {
      return Error{"", "", "measure", *e};
    }
    MeasurementBatch batch;
    double done = 0;
    std::string what;
    bool cancelled = false, timedOut = false;
    for (;;) {
      auto l = child.line(250, timedOut);
      if (timedOut) {
        // Nothing new: ask whether to go on (a null record only reports progress).
        if (!cancelled && progress && !progress(nullptr, done, what)) {
          cancelled = true;
          child.terminate();
        }
        continue;
      }
      if (!l) break;
      auto j = parseJson(*l, "qfront-measure progress");
      if (!j || !j->is_object()) continue;
      done = j->value("done", done);
      what = j->value("what", std::string());
      std::optional<KernelMeasurement> rec;
      if (const auto r = j->find("record"); r != j->end() && r->is_object()) {
        if (auto s = parseSession(*r, "qfront-measure progress");
            s && !s->kernelMeasurements.empty()) {
          rec = s->kernelMeasurements.front();
          batch.records.push_back(*rec);
        }
      }
      if (!cancelled && progress && !progress(rec ? &*rec : nullptr, done, what)) {
        cancelled = true;
        child.terminate();
      }
    }
    const int rc = child.wait();
    if (cancelled) {
      MeasurementBatch none;
      none.cancelled = true;
      return none;
    }
    const std::string err = lastLine(tmp.path() + "/stderr");
    if (rc < 0) {
      // The child died (a kernel fault, a lost context): what it reported is kept, the
      // window and its session are untouched.
      batch.error = "qfront-measure ended by signal " + std::to_string(-rc) + " after " +
                    std::to_string(batch.records.size()) + " records" +
                    (err.empty() ? "" : " (" + err + ")");
      return batch;
    }
    std::error_code ec;
    if (!std::filesystem::exists(out, ec)) {
      return Error{
          "", "", "measure",
          err.empty() ? "qfront-measure exited " + std::to_string(rc) + " and saved nothing" : err};
    }
    auto s = loadSession(out);
    if (!s) return s.error();
    MeasurementBatch finished;
    finished.records = std::move(s->kernelMeasurements);
    finished.runs = std::move(s->importedRuns);
    if (rc != 0) finished.error = err.empty() ? "qfront-measure exited " + std::to_string(rc) : err;
    return finished;
  }

 private:
  std::string m_exe;
};

}  // namespace

std::shared_ptr<MeasurementBackend> makeChildProcessBackend(const std::string& executable) {
  return std::make_shared<ChildProcessBackend>(executable);
}

std::string findMeasureExecutable(const std::string& selfExecutable) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(selfExecutable).parent_path();
  std::error_code ec;
  for (const fs::path& p : {dir / "qfront-measure", dir / ".." / "cuda" / "qfront-measure"}) {
    if (fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0) {
      return fs::weakly_canonical(p, ec).string();
    }
  }
  return {};
}

}  // namespace qf
