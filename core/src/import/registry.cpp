// The registry of import formats (formats.def) and detection from content.
#include <nlohmann/json.hpp>

#include <quantfront/core/base/kernels.hpp>
#include <quantfront/core/import/importers.hpp>

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

const FormatReader* readerNamed(std::string_view name) {
  for (const FormatReader& r : formatReaders()) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

std::vector<FormatInfo> importFormats() {
  std::vector<FormatInfo> out;
  for (const FormatReader& r : formatReaders()) {
    out.push_back({r.name, r.kind, r.tool, r.refusal == nullptr});
  }
  return out;
}

RunKind runKindOfFormat(std::string_view name) {
  if (name == kMeasureRunFormat) return RunKind::Kernels;  // written by qfront-measure itself
  const FormatReader* r = readerNamed(name);
  return r ? r->kind : RunKind::Unknown;
}

std::string toolOfFormat(std::string_view name) {
  const FormatReader* r = readerNamed(name);
  return r && *r->tool ? std::string(r->tool) : std::string(name);
}

std::string detectFormat(const JsonDocument& doc) {
  const FormatReader* r = detectReader(doc);
  return r ? r->name : std::string();
}

}  // namespace qf
