#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return qf::cli::run(args, std::cout, std::cerr);
  } catch (const std::exception& e) {
    std::cerr << "qfront: internal error: " << e.what() << "\n";
    return qf::cli::kExitInternal;
  }
}
