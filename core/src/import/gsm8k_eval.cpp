// vLLM's tests/evals/gsm8k/gsm8k_eval.py --save-results (spec: shared/spec/formats.md).
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "import/formats.hpp"

namespace qf {

namespace {

/// At most 12 names, then how many more.
std::string joinNames12(const std::vector<std::string>& names) {
  return joinNames(names, 12);
}

Result<ImportedRun> importGsm8kEval(ImportedDoc& d, const ImportContext& ctx) {
  ImportedRun run;
  run.format = importformat::kGsm8kEval;
  run.sourceFile = ctx.label;
  run.sha256 = ctx.sha256;
  const JsonReader fr = fieldReader(ctx, d.line);
  const Json& o = d.doc.dom;
  struct Name {
    const char* key;
    const char* name;
  };
  static constexpr Name kNames[] = {
      {"accuracy", "gsm8k/accuracy"},
      {"invalid_rate", "gsm8k/invalid_rate"},
      {"num_questions", "gsm8k/n_samples"},
      {"latency", "latency_s"},
      {"questions_per_second", "questions_per_s"},
      {"total_output_tokens", "total_output_tokens"},
      {"tokens_per_second", "output_throughput_tok_s"},
  };
  std::set<std::string> known;
  for (const auto& n : kNames) {
    known.insert(n.key);
    auto v = fr.optNumber(o, "", n.key, false, false);
    if (!v) return v.error();
    if (v->has_value()) run.metrics[n.name] = **v;
  }
  if (!run.metrics.count("gsm8k/accuracy")) {
    return fr.error("/accuracy", "accuracy", "required number is missing");
  }
  const double acc = run.metrics["gsm8k/accuracy"];
  if (acc < 0 || acc > 1) {
    return fr.error("/accuracy", "accuracy",
                    "expected a fraction in [0, 1], found " + formatNumber(acc));
  }
  std::vector<std::string> ignored;
  for (auto it = o.begin(); it != o.end(); ++it) {
    if (known.count(it.key())) continue;
    if (it.value().is_primitive()) {
      run.setup[it.key()] = setupText(it.value());
    } else {
      ignored.push_back(it.key());
    }
  }
  run.warnings.push_back("score without per-question predictions: unpaired statistics only");
  if (!run.metrics.count("gsm8k/n_samples")) {
    run.warnings.push_back("no num_questions: the sample count behind the score is unknown");
  }
  if (!ignored.empty()) {
    run.warnings.push_back("ignored (not used by the import): " + joinNames12(ignored));
  }
  return run;
}

bool detect(const JsonDocument& doc) {
  return hasKey(doc, "accuracy") &&
         (hasKey(doc, "invalid_rate") || hasKey(doc, "questions_per_second") ||
          hasKey(doc, "num_questions"));
}

}  // namespace

FormatReader gsm8kEvalReader() {
  return {.name = importformat::kGsm8kEval,
          .kind = RunKind::EvalResults,
          .tool = "vLLM gsm8k_eval",
          .detect = &detect,
          .read = &readEachValue<&importGsm8kEval>};
}

}  // namespace qf
