// Placeholder until `qfront stats` lands; replaced wholesale by its implementation.
#include <ostream>

#include "cli.hpp"

namespace qf::cli {
int cmdStats(const std::vector<std::string>&, std::ostream&, std::ostream& err) {
  err << "qfront: stats: not available in this build\n";
  return kExitInternal;
}
}  // namespace qf::cli
