#pragma once
/// The program's version, written once (the top-level CMakeLists.txt's project version) and
/// reported by --version, and the one envelope every JSON output and benchmark carries: the
/// output format version, the program's version, the git commit it was built from and whether
/// that tree had uncommitted changes, the command line and the machine.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace qf {

/// "0.1.0": the project version this build was configured with.
const char* qfrontVersion();
/// The git commit the build was made from ("unknown" outside a checkout).
const char* gitCommit();
/// True when tracked files differed from that commit at build time.
bool gitDirty();

/// Version of the layout of qfront's JSON outputs (bumped when a key changes meaning).
inline constexpr int kOutputFormatVersion = 1;

/// The command line the outputs of this process name (the program and its arguments, not
/// counting the program's path): set by each program's main, and by qfront's run() in tests.
void setCommandLine(const std::string& program, const std::vector<std::string>& args);
/// The same from main's arguments: the program's file name, then argv[1..].
void setCommandLine(int argc, char** argv);

/// The cores this thread may run on: its CPU affinity where the system says (a `taskset` or a
/// container's CPU set), else std::thread::hardware_concurrency, at least 1.
unsigned usableCores();

/// The machine, in a few words: {"os": "Linux 6.1.0 x86_64", "cpu": "...", "cores": 2}.
nlohmann::json machineDescription();

/// Adds the envelope to a JSON output object: "qfront_version", "output_format_version" and
/// "producer" (program, version, git_commit, git_dirty, argv, machine).
void stampOutput(nlohmann::json& output);

/// Stamps `output` and writes it to `out` (indented by 2, newline-terminated): how every
/// JSON output and benchmark of the project is written.
void writeJsonOutput(std::ostream& out, nlohmann::json output);

}  // namespace qf
