// lm-evaluation-harness results_<date>.json (spec: shared/spec/formats.md).
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
Result<bool> readTaskMetrics(const Json& tasks, const std::string& pointer, const JsonReader& fr,
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

Result<ImportedRun> importLmEvalResults(ImportedDoc& d, const ImportContext& ctx) {
  ImportedRun run;
  run.format = importformat::kLmEvalResults;
  run.sourceFile = ctx.label;
  run.sha256 = ctx.sha256;
  const JsonReader fr = fieldReader(ctx, d.line);
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
      auto effective = fr.optNumber(t.value(), pointer, "effective", false, false);
      if (!effective) return effective.error();
      auto original = fr.optNumber(t.value(), pointer, "original", false, false);
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
    run.warnings.push_back("no standard error (\"N/A\") for " + joinNames12(naStderr));
  }
  if (!skipped.empty())
    run.warnings.push_back("skipped non-numeric entries: " + joinNames12(skipped));
  if (!withoutN.empty()) {
    run.warnings.push_back("no n-samples for " + joinNames12(withoutN) + ": sample count unknown");
  }
  if (!ignored.empty()) {
    run.warnings.push_back("ignored (not used by the import): " + joinNames12(ignored));
  }
  if (tasks.empty()) return fr.error("/results", "results", "no task results in the file");
  return run;
}

bool detect(const JsonDocument& doc) {
  return isObjectKey(doc, "results") &&
         (hasKey(doc, "versions") || hasKey(doc, "config") || hasKey(doc, "n-shot") ||
          hasKey(doc, "higher_is_better") || hasKey(doc, "configs") || hasKey(doc, "n-samples") ||
          hasKey(doc, "lm_eval_version") || hasKey(doc, "model_name"));
}

}  // namespace

FormatReader lmEvalResultsReader() {
  return {.name = importformat::kLmEvalResults,
          .kind = RunKind::EvalResults,
          .tool = "lm-evaluation-harness",
          .detect = &detect,
          .read = &readEachValue<&importLmEvalResults>};
}

}  // namespace qf
