// The registry of import formats (formats.def) and detection from content.
#include <nlohmann/json.hpp>

#include "import/formats.hpp"

namespace qf {

#define QF_IMPORT_FORMAT(id) FormatReader id##Reader();
#include "import/formats.def"
#undef QF_IMPORT_FORMAT

const std::vector<FormatReader>& formatReaders() {
  static const std::vector<FormatReader> readers = {
#define QF_IMPORT_FORMAT(id) id##Reader(),
#include "import/formats.def"
#undef QF_IMPORT_FORMAT
  };
  return readers;
}

const FormatReader* detectReader(const JsonDocument& doc) {
  if (!doc.dom.is_object()) return nullptr;
  for (const FormatReader& r : formatReaders()) {
    if (r.detect(doc)) return &r;
  }
  return nullptr;
}

std::string detectFormat(const JsonDocument& doc) {
  const FormatReader* r = detectReader(doc);
  return r ? r->name : std::string();
}

}  // namespace qf
