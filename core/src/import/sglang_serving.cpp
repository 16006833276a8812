// SGLang `bench_serving` output lines (details at top level or under "details"; bare
// NaN/Infinity as Python writes them); spec: shared/spec/formats.md.
#include <nlohmann/json.hpp>

#include "import/serving_common.hpp"

namespace qf {

namespace {
Result<ImportedRun> readValue(ImportedDoc& doc, const ImportContext& ctx) {
  return serving::importServing(doc, ctx, true);
}
bool detect(const JsonDocument& doc) {
  return serving::servingFlavour(doc) == 2;
}
}  // namespace

FormatReader sglangServingReader() {
  return {.name = importformat::kSglangServing,
          .kind = RunKind::Serving,
          .tool = "SGLang bench_serving",
          .detect = &detect,
          .read = &readEachValue<&readValue>,
          .allowsNonFinite = true};
}

}  // namespace qf
