#include <quantfront/core/base/records.hpp>

namespace qf {

const char* provenanceName(ProvenanceKind k) {
  switch (k) {
    case ProvenanceKind::Modelled:
      return "modelled";
    case ProvenanceKind::Measured:
      return "measured";
    case ProvenanceKind::Published:
      return "published";
  }
  return "?";
}

}  // namespace qf
