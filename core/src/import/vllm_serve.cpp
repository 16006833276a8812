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
  return {.name = importformat::kVllmServe,
          .kind = RunKind::Serving,
          .tool = "vLLM bench serve",
          .detect = &detect,
          .read = &readEachValue<&readValue>};
}

}  // namespace qf
