// Placeholder until `qfront import` lands; replaced wholesale by its implementation.
#include <ostream>

#include "cli.hpp"

namespace qf::cli {
int cmdImport(const std::vector<std::string>&, std::ostream&, std::ostream& err) {
  err << "qfront: import: not available in this build\n";
  return kExitInternal;
}
}  // namespace qf::cli
