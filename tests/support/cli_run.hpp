#pragma once
// Runs the qfront command line in-process and keeps what it printed.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"

namespace qf::testing {

/// One qfront invocation: exit status, stdout, stderr.
struct CliRun {
  int rc = -1;
  std::string out;
  std::string err;
};

inline CliRun runQfront(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  CliRun r;
  r.rc = cli::run(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

/// A file's bytes ("" when it cannot be read).
inline std::string fileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace qf::testing
