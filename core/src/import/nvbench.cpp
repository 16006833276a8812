// NVIDIA nvbench --json output (spec: shared/spec/formats.md): every number is a string,
// durations in seconds; summaries map to metrics `<benchmark>/<state>/<tag>`.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include "import/formats.hpp"
#include <nlohmann/json.hpp>
#include <quantfront/core/import/importers.hpp>

namespace qf {

namespace {

constexpr const char* kStatesKey = "nvbench_states";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string stringField(const Json& o, const char* key) {
  if (!o.is_object()) return {};
  const auto it = o.find(key);
  if (it == o.end() || it->is_null()) return {};
  return setupText(*it);
}

/// The numeric `value` entry of a summary's data list (new layout: "data", old: "values").
Result<std::optional<double>> summaryValue(const Json& summary, const std::string& pointer,
                                           const std::string& tag, const FieldReader& fr) {
  const char* listKey = summary.contains("data") ? "data" : "values";
  const auto list = summary.find(listKey);
  if (list == summary.end()) return std::optional<double>();
  const std::string listPointer = childPointer(pointer, listKey);
  if (!list->is_array()) {
    return fr.error(listPointer, tag, "expected a list of {name, type, value} entries");
  }
  for (std::size_t i = 0; i < list->size(); ++i) {
    const Json& entry = (*list)[i];
    if (!entry.is_object() || stringField(entry, "name") != "value") continue;
    const std::string type = stringField(entry, "type");
    if (type == "string") return std::optional<double>();
    auto v = fr.numberOrNumericString(entry, childPointer(listPointer, std::to_string(i)), "value");
    if (!v) return Error{v.error().file, v.error().position, tag, v.error().message};
    return *v;
  }
  return std::optional<double>();
}

Result<ImportedRun> importNvbench(ImportedDoc& d, const ImportContext& ctx) {
  ImportedRun run;
  run.format = importformat::kNvbench;
  run.sourceFile = ctx.label;
  run.sha256 = ctx.sha256;
  run.setup["units"] = "nvbench tags as metric names: times in s, bandwidth in bytes/s";
  const FieldReader fr(ctx, d.line);
  const Json& o = d.doc.dom;

  const auto meta = o.find("meta");
  if (meta != o.end() && meta->is_object()) {
    const auto argv = meta->find("argv");
    if (argv != meta->end() && argv->is_array()) {
      std::string joined;
      for (const auto& a : *argv) joined += (joined.empty() ? "" : " ") + setupText(a);
      run.setup["argv"] = joined;
      if (!argv->empty() && argv->front().is_string()) {
        std::string prog = argv->front().get<std::string>();
        const auto slash = prog.find_last_of('/');
        run.label = slash == std::string::npos ? prog : prog.substr(slash + 1);
      }
    }
    const auto version = meta->find("version");
    if (version != meta->end() && version->is_object()) {
      const auto nvb = version->find("nvbench");
      if (nvb != version->end() && nvb->is_object()) {
        if (nvb->contains("string")) run.setup["nvbench_version"] = stringField(*nvb, "string");
        if (nvb->contains("git_sha")) run.setup["nvbench_git_sha"] = stringField(*nvb, "git_sha");
      }
      const auto js = version->find("json");
      if (js != version->end() && js->is_object() && js->contains("string")) {
        run.setup["nvbench_json_version"] = stringField(*js, "string");
      }
    }
  }

  std::map<std::string, std::string> deviceNames;  // id text → name
  const auto devices = o.find("devices");
  if (devices != o.end() && devices->is_array()) {
    for (const auto& dev : *devices) {
      if (!dev.is_object()) continue;
      const std::string id = stringField(dev, "id");
      const std::string name = stringField(dev, "name");
      deviceNames[id] = name;
      for (auto it = dev.begin(); it != dev.end(); ++it) {
        if (it.key() != "id" && it.value().is_primitive()) {
          run.setup["device/" + id + "/" + it.key()] = setupText(it.value());
        }
      }
    }
  }

  const auto benchesIt = o.find("benchmarks");
  if (benchesIt == o.end() || !benchesIt->is_array()) {
    return fr.error("/benchmarks", "benchmarks", "expected an array of benchmarks");
  }
  const Json& benches = *benchesIt;
  std::string stateList;
  std::size_t states = 0, skippedStates = 0, summaries = 0;
  for (std::size_t b = 0; b < benches.size(); ++b) {
    const Json& bench = benches[b];
    const std::string benchPointer = "/benchmarks/" + std::to_string(b);
    if (!bench.is_object()) return fr.error(benchPointer, "benchmarks", "expected an object");
    const auto nameIt = bench.find("name");
    if (nameIt == bench.end() || !nameIt->is_string()) {
      return fr.error(childPointer(benchPointer, "name"), "name",
                      "expected the benchmark's name as a string");
    }
    const std::string benchName = nameIt->get<std::string>();
    const auto statesIt = bench.find("states");
    if (statesIt == bench.end() || statesIt->is_null()) continue;
    if (!statesIt->is_array()) {
      return fr.error(childPointer(benchPointer, "states"), "states", "expected an array");
    }
    for (std::size_t s = 0; s < statesIt->size(); ++s) {
      const Json& st = (*statesIt)[s];
      const std::string statePointer = benchPointer + "/states/" + std::to_string(s);
      if (!st.is_object()) return fr.error(statePointer, "states", "expected an object");
      std::string stateName = stringField(st, "name");
      if (stateName.empty()) stateName = stringField(st, "description");
      if (stateName.empty()) stateName = "state" + std::to_string(s);
      const std::string prefix = std::string(benchName).append("/").append(stateName);
      const auto skippedIt = st.find("is_skipped");
      if (skippedIt != st.end() && skippedIt->is_boolean() && skippedIt->get<bool>()) {
        ++skippedStates;
        run.warnings.push_back("state '" + prefix +
                               "' was skipped by nvbench: " + stringField(st, "skip_reason"));
        continue;
      }
      ++states;
      stateList += (stateList.empty() ? "" : "\n") + prefix;
      run.setup[prefix + "/benchmark"] = benchName;
      const std::string deviceId = stringField(st, "device");
      const auto dn = deviceNames.find(deviceId);
      run.setup[prefix + "/device"] = dn != deviceNames.end() ? dn->second : deviceId;
      const auto axes = st.find("axis_values");
      if (axes != st.end() && axes->is_array()) {
        for (const auto& axis : *axes) {
          const std::string axisName = stringField(axis, "name");
          if (!axisName.empty())
            run.setup[std::string(prefix).append("/axis/").append(axisName)] =
                stringField(axis, "value");
        }
      }
      const auto summ = st.find("summaries");
      if (summ == st.end() || summ->is_null()) continue;
      const std::string summPointer = childPointer(statePointer, "summaries");
      if (summ->is_array()) {
        for (std::size_t i = 0; i < summ->size(); ++i) {
          const Json& one = (*summ)[i];
          const std::string onePointer = summPointer + "/" + std::to_string(i);
          const std::string tag = stringField(one, "tag");
          if (tag.empty()) {
            return fr.error(childPointer(onePointer, "tag"), "tag", "summary without a tag");
          }
          auto v = summaryValue(one, onePointer, tag, fr);
          if (!v) return v.error();
          if (v->has_value()) {
            run.metrics[std::string(prefix).append("/").append(tag)] = **v;
            ++summaries;
          }
        }
      } else if (summ->is_object()) {  // early layout: summaries keyed by tag
        for (auto it = summ->begin(); it != summ->end(); ++it) {
          if (!it.value().is_object()) continue;
          auto v = summaryValue(it.value(), childPointer(summPointer, it.key()), it.key(), fr);
          if (!v) return v.error();
          if (v->has_value()) {
            run.metrics[prefix + "/" + it.key()] = **v;
            ++summaries;
          }
        }
      } else {
        return fr.error(summPointer, "summaries", "expected an array of summaries");
      }
    }
  }
  run.setup[kStatesKey] = stateList;
  if (run.label.empty() && !benches.empty() && benches[0].is_object()) {
    run.label = stringField(benches[0], "name");
  }
  if (states == 0) {
    if (skippedStates > 0) {
      return fr.error("/benchmarks", "benchmarks", "every benchmark state was skipped");
    }
    return fr.error("/benchmarks", "benchmarks", "no benchmark states in the file");
  }
  if (summaries == 0) run.warnings.push_back("no numeric summaries in any state");
  return run;
}

bool detect(const JsonDocument& doc) {
  const auto b = doc.dom.find("benchmarks");
  return b != doc.dom.end() && b->is_array() && (hasKey(doc, "devices") || hasKey(doc, "meta"));
}

}  // namespace

FormatReader nvbenchReader() {
  FormatReader r;
  r.name = importformat::kNvbench;
  r.detect = &detect;
  r.read = &readEachValue<&importNvbench>;
  return r;
}

std::vector<KernelMeasurement> nvbenchToMeasurements(const ImportedRun& run) {
  std::vector<KernelMeasurement> out;
  if (run.format != importformat::kNvbench) return out;
  const auto list = run.setup.find(kStatesKey);
  if (list == run.setup.end()) return out;
  std::istringstream lines(list->second);
  std::string prefix;
  auto setupAt = [&](const std::string& key) -> std::string {
    const auto it = run.setup.find(key);
    return it == run.setup.end() ? std::string() : it->second;
  };
  auto metric = [&](const std::string& tag) -> std::optional<double> {
    const auto it = run.metrics.find(prefix + "/" + tag);
    if (it == run.metrics.end()) return std::nullopt;
    return it->second;
  };
  while (std::getline(lines, prefix)) {
    if (prefix.empty()) continue;
    const auto center = metric("nv/cold/time/gpu/median") ? metric("nv/cold/time/gpu/median")
                                                          : metric("nv/cold/time/gpu/mean");
    if (!center) continue;
    KernelMeasurement km;
    km.kernel = setupAt(prefix + "/benchmark");
    km.device = setupAt(prefix + "/device");
    km.sourceFile = run.sourceFile;
    km.medianS = *center;
    km.minS = metric("nv/cold/time/gpu/min").value_or(*center);
    km.relNoise = metric("nv/cold/time/gpu/stdev/relative").value_or(0.0);
    km.samples = static_cast<std::int64_t>(metric("nv/cold/sample_size").value_or(0.0));
    const std::string axisPrefix = prefix + "/axis/";
    for (auto it = run.setup.lower_bound(axisPrefix);
         it != run.setup.end() && it->first.compare(0, axisPrefix.size(), axisPrefix) == 0; ++it) {
      const std::string axis = lower(it->first.substr(axisPrefix.size()));
      std::int64_t v = 0;
      const auto& text = it->second;
      const bool isInt =
          std::from_chars(text.data(), text.data() + text.size(), v).ec == std::errc();
      if (axis == "m" && isInt)
        km.m = v;
      else if (axis == "n" && isInt)
        km.n = v;
      else if (axis == "k" && isInt)
        km.k = v;
      else if (axis == "scheme")
        km.scheme = text;
    }
    const std::string statePrefix = prefix + "/";
    double gmemBytes = 0;
    bool haveGmem = false;
    for (auto it = run.metrics.lower_bound(statePrefix);
         it != run.metrics.end() && it->first.compare(0, statePrefix.size(), statePrefix) == 0;
         ++it) {
      const std::string tag = it->first.substr(statePrefix.size());
      if (tag.rfind("nv/gmem/reads/", 0) == 0 || tag.rfind("nv/gmem/writes/", 0) == 0) {
        gmemBytes += it->second;
        haveGmem = true;
      } else if (tag.size() >= 5 && tag.compare(tag.size() - 5, 5, "flops") == 0) {
        km.flops = it->second;
      }
    }
    if (haveGmem) {
      km.bytesMoved = gmemBytes;
    } else if (const auto bw = metric("nv/cold/bw/global/bytes_per_second")) {
      const auto mean = metric("nv/cold/time/gpu/mean");
      km.bytesMoved = *bw * mean.value_or(*center);
    }
    out.push_back(std::move(km));
  }
  return out;
}

}  // namespace qf
