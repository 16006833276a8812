// qfront-measure in a child process as a MeasurementBackend (measure_process.hpp).
#include <quantfront/core/session/measure_process.hpp>

#include <quantfront/core/base/device_json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
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
    // Close-on-exec: no other child started meanwhile inherits the write end (which would
    // hold off the end of output until it exits); dup2 onto fd 1 clears the flag there.
    if (::pipe2(fds, O_CLOEXEC) != 0) return std::string("pipe: ") + std::strerror(errno);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, errFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
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
  void kill() {
    if (m_pid > 0) ::kill(m_pid, SIGKILL);
  }

  /// Waits for the child; its exit status, or −signal when a signal ended it.
  int wait() {
    int status = 0;
    pid_t r = 0;
    while ((r = ::waitpid(m_pid, &status, 0)) < 0 && errno == EINTR) {
    }
    m_pid = -1;
    if (r < 0) return 127;  // not ours to wait for (reaped elsewhere): not a success
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
    // At most 30 s in all (the window waits on it): then the child is killed.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (;;) {
      auto l = child.line(250, timedOut);
      if (l) text += *l + "\n";
      if (!l && !timedOut) break;
      if (std::chrono::steady_clock::now() > deadline) {
        child.kill();
        break;
      }
    }
    const int rc = child.wait();
    std::vector<MeasureDevice> out;
    auto doc = parseJson(text, m_exe + " --list-devices");
    if (!doc || !doc->is_object() || !doc->contains("devices") || !(*doc)["devices"].is_array()) {
      const std::string err = lastLine(tmp.path() + "/stderr");
      why = !err.empty() ? err
                         : "qfront-measure --list-devices gave no device list (exit " +
                               std::to_string(rc) + ")";
      return {};
    }
    for (const auto& d : (*doc)["devices"]) {
      if (d.is_object()) out.push_back(deviceFromJson(d));
    }
    if (out.empty()) {
      const auto w = doc->find("why");
      why = w != doc->end() && w->is_string() ? w->get<std::string>() : "no CUDA device";
    }
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
    std::chrono::steady_clock::time_point cancelledAt;
    auto cancel = [&] {
      cancelled = true;
      cancelledAt = std::chrono::steady_clock::now();
      child.terminate();
    };
    for (;;) {
      auto l = child.line(250, timedOut);
      if (timedOut) {
        // Nothing new: ask whether to go on (a null record only reports progress). A child
        // that does not stop within 10 s of Cancel (a hung kernel) is killed.
        if (!cancelled && progress && !progress(nullptr, done, what)) cancel();
        if (cancelled &&
            std::chrono::steady_clock::now() - cancelledAt > std::chrono::seconds(10)) {
          child.kill();
        }
        continue;
      }
      if (!l) break;
      auto j = parseJson(*l, "qfront-measure progress");
      if (!j || !j->is_object()) continue;
      if (const auto d = j->find("done"); d != j->end() && d->is_number()) done = d->get<double>();
      what.clear();
      if (const auto w = j->find("what"); w != j->end() && w->is_string())
        what = w->get<std::string>();
      std::optional<KernelMeasurement> rec;
      if (const auto r = j->find("record"); r != j->end() && r->is_object()) {
        if (auto s = parseSession(*r, "qfront-measure progress");
            s && !s->kernelMeasurements.empty()) {
          rec = s->kernelMeasurements.front();
          batch.records.push_back(*rec);
        }
      }
      if (!cancelled && progress && !progress(rec ? &*rec : nullptr, done, what)) cancel();
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
