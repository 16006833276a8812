// Eval results: lm-evaluation-harness results_<date>.json and vLLM's gsm8k_eval.py output
// (spec: shared/spec/formats.md).
#include <cmath>
#include <set>

#include "import/formats.hpp"

namespace qf {

namespace {

std::string joinList(const std::vector<std::string>& names, std::size_t limit = 12) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i == limit) {
      out += ", ... (" + std::to_string(names.size() - limit) + " more)";
      break;
    }
    out += (i ? ", " : "") + names[i];
  }
  return out;
}

/// "pretrained=meta-llama/Llama-3.1-8B,dtype=bfloat16" → "meta-llama/Llama-3.1-8B".
std::string pretrainedFrom(const Json& modelArgs) {
  if (modelArgs.is_object()) {
    const auto it = modelArgs.find("pretrained");
    if (it != modelArgs.end() && it->is_string()) return it->get<std::string>();
    return {};
  }
  if (!modelArgs.is_string()) return {};
  const std::string s = modelArgs.get<std::string>();
  const std::string key = "pretrained=";
  std::size_t at = 0;
  while ((at = s.find(key, at)) != std::string::npos) {
    if (at == 0 || s[at - 1] == ',') {
      const std::size_t begin = at + key.size();
      const std::size_t end = s.find(',', begin);
      return s.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    }
    at += key.size();
  }
  return {};
}

/// Reads one results-like object (task → {"<metric>,<filter>": value, ...}) into metrics.
Result<bool> readTaskMetrics(const Json& tasks, const std::string& pointer, const FieldReader& fr,
                             ImportedRun& run, std::vector<std::string>& naStderr,
                             std::vector<std::string>& skipped, std::set<std::string>& taskNames,
                             bool onlyNew) {
  for (auto t = tasks.begin(); t != tasks.end(); ++t) {
    const std::string& task = t.key();
    const Json& entries = t.value();
    const std::string taskPointer = childPointer(pointer, task);
    if (!entries.is_object()) {
      return fr.error(taskPointer, task,
                      "expected an object of \"<metric>,<filter>\": value entries");
    }
    taskNames.insert(task);
    for (auto m = entries.begin(); m != entries.end(); ++m) {
      const std::string& key = m.key();
      const Json& v = m.value();
      const std::string name = std::string(task).append("/").append(key);
      if (key == "alias" || key == "name" || key == "sample_len") continue;
      if (onlyNew && run.metrics.count(name)) continue;
      if (v.is_number()) {
        run.metrics[name] = v.get<double>();
      } else if (v.is_string() && key.find("_stderr") != std::string::npos) {
        // "N/A" (or any text) where lm-eval could not compute a standard error.
        naStderr.push_back(name);
      } else if (v.is_null()) {
        skipped.push_back(name + " (null)");
      } else {
        skipped.push_back(name + " (not a number)");
      }
    }
  }
  return true;
}

}  // namespace

Result<ImportedRun> importLmEvalResults(ImportedDoc& d, const ImportContext& ctx) {
  ImportedRun run;
  run.format = importformat::kLmEvalResults;
  run.sourceFile = ctx.label;
  run.sha256 = ctx.sha256;
  const FieldReader fr(ctx, d.line);
  const Json& o = d.doc.dom;
  const auto results = o.find("results");
  if (results == o.end() || !results->is_object()) {
    return fr.error("/results", "results", "expected an object of task results");
  }
  std::vector<std::string> naStderr, skipped;
  std::set<std::string> tasks;
  auto ok = readTaskMetrics(*results, "/results", fr, run, naStderr, skipped, tasks, false);
  if (!ok) return ok.error();
  const auto groups = o.find("groups");
  if (groups != o.end() && groups->is_object()) {
    ok = readTaskMetrics(*groups, "/groups", fr, run, naStderr, skipped, tasks, true);
    if (!ok) return ok.error();
  }

  // Sample counts per task: n-samples → task → {original, effective}.
  std::set<std::string> withN;
  const auto nSamples = o.find("n-samples");
  if (nSamples != o.end() && nSamples->is_object()) {
    for (auto t = nSamples->begin(); t != nSamples->end(); ++t) {
      const std::string pointer = childPointer("/n-samples", t.key());
      if (!t.value().is_object()) {
        return fr.error(pointer, t.key(), "expected {\"original\": n, \"effective\": n}");
      }
      auto effective = fr.number(t.value(), pointer, "effective");
      if (!effective) return effective.error();
      auto original = fr.number(t.value(), pointer, "original");
      if (!original) return original.error();
      if (effective->has_value()) run.metrics[t.key() + "/n_samples"] = **effective;
      if (original->has_value()) run.metrics[t.key() + "/n_samples_original"] = **original;
      if (effective->has_value() || original->has_value()) withN.insert(t.key());
      if (!effective->has_value() && original->has_value()) {
        run.metrics[t.key() + "/n_samples"] = **original;
      }
    }
  }
  std::vector<std::string> withoutN;
  for (const auto& task : tasks) {
    if (!withN.count(task)) withoutN.push_back(task);
  }

  // Orientation, shots and versions per task; the run's configuration.
  const auto hib = o.find("higher_is_better");
  if (hib != o.end() && hib->is_object()) {
    for (auto t = hib->begin(); t != hib->end(); ++t) {
      if (!t.value().is_object()) continue;
      for (auto m = t.value().begin(); m != t.value().end(); ++m) {
        run.setup["higher_is_better/" + t.key() + "/" + m.key()] = setupText(m.value());
      }
    }
  }
  const auto shots = o.find("n-shot");
  if (shots != o.end() && shots->is_object()) {
    for (auto t = shots->begin(); t != shots->end(); ++t) {
      run.setup["n-shot/" + t.key()] = setupText(t.value());
    }
  }
  const auto versions = o.find("versions");
  if (versions != o.end() && versions->is_object()) {
    for (auto t = versions->begin(); t != versions->end(); ++t) {
      run.setup["version/" + t.key()] = setupText(t.value());
    }
  }
  const auto config = o.find("config");
  if (config != o.end() && config->is_object()) {
    for (auto c = config->begin(); c != config->end(); ++c) {
      run.setup["config/" + c.key()] = setupText(c.value());
    }
  }
  static const std::set<std::string, std::less<>> kStructured = {
      "results", "groups", "n-samples", "higher_is_better", "n-shot", "versions", "config"};
  std::vector<std::string> ignored;
  for (auto it = o.begin(); it != o.end(); ++it) {
    if (kStructured.count(it.key())) continue;
    if (it.value().is_primitive()) {
      run.setup[it.key()] = setupText(it.value());
    } else {
      ignored.push_back(it.key());
    }
  }

  // Label: the model as the file names it.
  const auto modelName = o.find("model_name");
  if (modelName != o.end() && modelName->is_string()) run.label = modelName->get<std::string>();
  if (run.label.empty() && config != o.end() && config->is_object()) {
    const auto args = config->find("model_args");
    if (args != config->end()) run.label = pretrainedFrom(*args);
    if (run.label.empty()) {
      const auto model = config->find("model");
      if (model != config->end() && model->is_string()) run.label = model->get<std::string>();
    }
  }

  if (!naStderr.empty()) {
    run.warnings.push_back("no standard error (\"N/A\") for " + joinList(naStderr));
  }
  if (!skipped.empty()) run.warnings.push_back("skipped non-numeric entries: " + joinList(skipped));
  if (!withoutN.empty()) {
    run.warnings.push_back("no n-samples for " + joinList(withoutN) + ": sample count unknown");
  }
  if (!ignored.empty()) {
    run.warnings.push_back("ignored (not used by the import): " + joinList(ignored));
  }
  if (tasks.empty()) return fr.error("/results", "results", "no task results in the file");
  return run;
}

Result<ImportedRun> importGsm8kEval(ImportedDoc& d, const ImportContext& ctx) {
  ImportedRun run;
  run.format = importformat::kGsm8kEval;
  run.sourceFile = ctx.label;
  run.sha256 = ctx.sha256;
  const FieldReader fr(ctx, d.line);
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
    auto v = fr.number(o, "", n.key);
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
    run.warnings.push_back("ignored (not used by the import): " + joinList(ignored));
  }
  return run;
}

}  // namespace qf
