#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <quantfront/core/base/resources.hpp>

#include "cli.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // A broken install says which file it looked for and where (--help and --version need none).
  const bool about = !args.empty() && (args.front() == "--help" || args.front() == "-h" ||
                                       args.front() == "--version");
  if (const auto missing = about ? std::nullopt : qf::missingResource()) {
    std::cerr << "qfront: " << *missing << "\n";
    return qf::cli::kExitBadInput;
  }
  try {
    return qf::cli::run(args, std::cout, std::cerr);
  } catch (const std::exception& e) {
    std::cerr << "qfront: internal error: " << e.what() << "\n";
    return qf::cli::kExitInternal;
  }
}
