// vLLM `bench serve --save-result` (2024 and current variants, --append-result, detailed
// per-request arrays); spec: shared/spec/formats.md.
#include <nlohmann/json.hpp>

#include "import/serving_common.hpp"

namespace qf {

namespace {
Result<ImportedRun> readValue(ImportedDoc& doc, const ImportContext& ctx) {
  return serving::importServing(doc, ctx, false);
}
bool detect(const JsonDocument& doc) {
  return serving::servingFlavour(doc) == 1;
}
}  // namespace

FormatReader vllmServeReader() {
  FormatReader r;
  r.name = importformat::kVllmServe;
  r.kind = RunKind::Serving;
  r.tool = "vLLM bench serve";
  r.detect = &detect;
  r.read = &readEachValue<&readValue>;
  return r;
}

}  // namespace qf
