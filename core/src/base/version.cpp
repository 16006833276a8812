// QF_VERSION_STRING comes from CMake's project(VERSION ...), so the version lives in one place;
// the commit and dirty state from the header cmake/git_info.cmake writes at build time.
#include <quantfront/core/base/version.hpp>

#include <sys/utsname.h>

#ifdef __linux__
#include <sched.h>
#endif

#include <algorithm>

#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <thread>

#include <quantfront/qf_git_info.hpp>

#ifndef QF_VERSION_STRING
#error "QF_VERSION_STRING must be defined by the build (CMake project version)"
#endif

namespace qf {

namespace {

struct CommandLine {
  std::mutex mutex;
  std::string program = "qfront";
  std::vector<std::string> args;
};

CommandLine& commandLine() {
  static CommandLine c;
  return c;
}

/// The CPU's model name from /proc/cpuinfo ("unknown" where there is none).
std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        const auto start = line.find_first_not_of(" \t", colon + 1);
        if (start != std::string::npos) return line.substr(start);
      }
    }
  }
  return "unknown";
}

}  // namespace

const char* qfrontVersion() {
  return QF_VERSION_STRING;
}

const char* gitCommit() {
  return QF_GIT_SHA;
}

bool gitDirty() {
  return QF_GIT_DIRTY != 0;
}

void setCommandLine(const std::string& program, const std::vector<std::string>& args) {
  CommandLine& c = commandLine();
  const std::lock_guard lock(c.mutex);
  c.program = program;
  c.args = args;
}

void setCommandLine(int argc, char** argv) {
  std::string program = argc > 0 && argv[0] ? argv[0] : "";
  if (const auto slash = program.rfind('/'); slash != std::string::npos) {
    program = program.substr(slash + 1);
  }
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i] ? argv[i] : "");
  setCommandLine(program, args);
}

unsigned usableCores() {
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<unsigned>(n);
  }
#endif
  return std::max(1U, std::thread::hardware_concurrency());
}

nlohmann::json machineDescription() {
  static const nlohmann::json machine = [] {
    std::string os = "unknown";
    if (utsname u{}; uname(&u) == 0) {
      os = std::string(u.sysname) + " " + u.release + " " + u.machine;
    }
    return nlohmann::json{
        {"os", os}, {"cpu", cpuModel()}, {"cores", std::thread::hardware_concurrency()}};
  }();
  return machine;
}

void stampOutput(nlohmann::json& output) {
  output["qfront_version"] = qfrontVersion();
  output["output_format_version"] = kOutputFormatVersion;
  CommandLine& c = commandLine();
  nlohmann::json argv = nlohmann::json::array();
  std::string program;
  {
    const std::lock_guard lock(c.mutex);
    program = c.program;
    for (const auto& a : c.args) argv.push_back(a);
  }
  output["producer"] = {{"program", program},
                        {"version", qfrontVersion()},
                        {"git_commit", gitCommit()},
                        {"git_dirty", gitDirty()},
                        {"argv", argv},
                        {"machine", machineDescription()}};
}

void writeJsonOutput(std::ostream& out, nlohmann::json output) {
  stampOutput(output);
  out << output.dump(2) << "\n";
}

}  // namespace qf
