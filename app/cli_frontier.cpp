// Placeholder until `qfront frontier` lands; replaced wholesale by its implementation.
#include <ostream>

#include "cli.hpp"

namespace qf::cli {
int cmdFrontier(const std::vector<std::string>&, std::ostream&, std::ostream& err) {
  err << "qfront: frontier: not available in this build\n";
  return kExitInternal;
}
}  // namespace qf::cli
