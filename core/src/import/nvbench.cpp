// NVIDIA nvbench --json output (spec: shared/spec/formats.md): every number is a string,
// durations in seconds; summaries map to metrics `<benchmark>/<state>/<tag>`.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>
#include <quantfront/core/import/importers.hpp>
#include "import/formats.hpp"

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
                                           const std::string& tag, const JsonReader& fr) {
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
    auto v =
        fr.optNumberOrNumericString(entry, childPointer(listPointer, std::to_string(i)), "value");
    if (!v) return Error{v.error().file, v.error().position, tag, v.error().message};
    return *v;
  }
  return std::optional<double>();
}

/// What one state yielded, for its kernel measurement.
struct StateData {
  std::string benchmark;
  std::string state;
  std::string device;
  std::map<std::string, std::string> axes;  ///< axis name → value text
  std::map<std::string, double> tags;       ///< summary tag → value
};

/// Largest M, N or K an nvbench state may name (2^40: far beyond any GEMM of a model).
constexpr std::int64_t kMaxGemmDim = std::int64_t{1} << 40;

std::optional<std::int64_t> wholeNumber(const std::string& text) {
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

/// One kernel measurement per state that has a GPU time. Identity: the benchmark name, with
/// every axis other than M, N, K and scheme appended as `name[axis=value,...]` (axes sorted by
/// name), so that states differing in block size or element type stay apart; states still
/// alike get `state=<name>` too. The time is nvbench's median when it wrote one, else its mean
/// (nvbench's default summary, which is not a median): `sourceFile` ends in `#<tag>` naming
/// the summary the time is. Bytes: bandwidth × mean time (nv/cold/bw/global/bytes_per_second,
/// as nvbench computes bandwidth from the mean), else the nv/gmem/ reads and writes.
std::vector<KernelMeasurement> measurementsOf(const std::vector<StateData>& states,
                                              const std::string& sourceFile) {
  std::vector<KernelMeasurement> out;
  std::vector<const StateData*> from;
  for (const StateData& sd : states) {
    auto tag = [&](const char* t) -> std::optional<double> {
      const auto it = sd.tags.find(t);
      if (it == sd.tags.end() || !std::isfinite(it->second)) return std::nullopt;
      return it->second;
    };
    const auto median = tag("nv/cold/time/gpu/median");
    const auto mean = tag("nv/cold/time/gpu/mean");
    if (!median && !mean) continue;
    KernelMeasurement km;
    km.device = sd.device;
    km.medianS = median ? *median : *mean;
    km.sourceFile = sourceFile + (median ? "#nv/cold/time/gpu/median" : "#nv/cold/time/gpu/mean");
    km.minS = tag("nv/cold/time/gpu/min").value_or(km.medianS);
    km.relNoise = tag("nv/cold/time/gpu/stdev/relative").value_or(0.0);
    km.samples = static_cast<std::int64_t>(tag("nv/cold/sample_size").value_or(0.0));
    std::string suffix;
    for (const auto& [name, text] : sd.axes) {
      const std::string axis = lower(name);
      const auto whole = wholeNumber(text);
      if (axis == "m" && whole) {
        km.m = *whole;
      } else if (axis == "n" && whole) {
        km.n = *whole;
      } else if (axis == "k" && whole) {
        km.k = *whole;
      } else if (axis == "scheme") {
        km.scheme = text;
      } else {
        suffix += (suffix.empty() ? "" : ",") + name + "=" + text;
      }
    }
    km.kernel = sd.benchmark + (suffix.empty() ? std::string() : "[" + suffix + "]");
    double gmemBytes = 0;
    bool haveGmem = false;
    for (const auto& [t, v] : sd.tags) {
      if (t.rfind("nv/gmem/reads/", 0) == 0 || t.rfind("nv/gmem/writes/", 0) == 0) {
        gmemBytes += v;
        haveGmem = true;
      } else if (t.size() >= 5 && t.compare(t.size() - 5, 5, "flops") == 0) {
        km.flops = v;
      }
    }
    if (const auto bw = tag("nv/cold/bw/global/bytes_per_second"); bw && mean) {
      km.bytesMoved = *bw * *mean;
    } else if (haveGmem) {
      km.bytesMoved = gmemBytes;
    }
    out.push_back(std::move(km));
    from.push_back(&sd);
  }
  // States that the axes do not tell apart (no axis values): their names do.
  auto identity = [](const KernelMeasurement& k) {
    return std::make_tuple(k.kernel, k.scheme, k.device, k.m, k.n, k.k);
  };
  std::map<decltype(identity(out.front())), int> seen;
  for (const auto& k : out) ++seen[identity(k)];
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (seen[identity(out[i])] < 2) continue;
    const std::string tail = "state=" + from[i]->state;
    std::string& name = out[i].kernel;
    name = name.back() == ']' ? name.substr(0, name.size() - 1) + "," + tail + "]"
                              : name + "[" + tail + "]";
  }
  return out;
}

struct NvbenchRead {
  ImportedRun run;
  std::vector<KernelMeasurement> measurements;
};

/// The command line and the nvbench and JSON versions from `meta`, as setup.
void readMeta(const Json& o, ImportedRun& run) {
  const auto meta = o.find("meta");
  if (meta == o.end() || !meta->is_object()) return;
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

/// Device names by id text; every device's scalar properties go into setup.
std::map<std::string, std::string> readDevices(const Json& o, ImportedRun& run) {
  std::map<std::string, std::string> deviceNames;
  const auto devices = o.find("devices");
  if (devices == o.end() || !devices->is_array()) return deviceNames;
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
  return deviceNames;
}

/// What reading the benchmarks has gathered so far.
struct BenchTally {
  std::string stateList;
  std::size_t states = 0, skippedStates = 0, summaries = 0;
  bool preOneNoted = false;
  std::vector<StateData> stateData;
};

/// One state's summaries (an array of tagged summaries, or the early layout keyed by tag)
/// as metrics named `prefix`/tag.
std::optional<Error> readSummaries(const Json& summ, const std::string& summPointer,
                                   const std::string& prefix, const JsonReader& fr,
                                   ImportedRun& run, StateData& sd, BenchTally& tally) {
  auto keep = [&](const std::string& tag, double v) {
    run.metrics[std::string(prefix).append("/").append(tag)] = v;
    sd.tags[tag] = v;
    ++tally.summaries;
  };
  if (summ.is_array()) {
    for (std::size_t i = 0; i < summ.size(); ++i) {
      const Json& one = summ[i];
      const std::string onePointer = summPointer + "/" + std::to_string(i);
      const std::string tag = stringField(one, "tag");
      if (tag.empty()) {
        return fr.error(childPointer(onePointer, "tag"), "tag", "summary without a tag");
      }
      auto v = summaryValue(one, onePointer, tag, fr);
      if (!v) return v.error();
      if (v->has_value()) keep(tag, **v);
    }
  } else if (summ.is_object()) {  // early layout: summaries keyed by tag
    for (auto it = summ.begin(); it != summ.end(); ++it) {
      if (!it.value().is_object()) continue;
      auto v = summaryValue(it.value(), childPointer(summPointer, it.key()), it.key(), fr);
      if (!v) return v.error();
      if (v->has_value()) keep(it.key(), **v);
    }
  } else {
    return fr.error(summPointer, "summaries", "expected an array of summaries");
  }
  return std::nullopt;
}

/// One state of benchmark `benchName`: its setup, axes and summaries (a skipped state is
/// counted and warned about).
std::optional<Error> readState(const Json& st, const std::string& statePointer,
                               const std::string& benchName, std::string stateName,
                               const std::map<std::string, std::string>& deviceNames,
                               const JsonReader& fr, ImportedRun& run, BenchTally& tally) {
  const std::string prefix = std::string(benchName).append("/").append(stateName);
  const auto skippedIt = st.find("is_skipped");
  if (skippedIt != st.end() && skippedIt->is_boolean() && skippedIt->get<bool>()) {
    ++tally.skippedStates;
    run.warnings.push_back("state '" + prefix +
                           "' was skipped by nvbench: " + stringField(st, "skip_reason"));
    return std::nullopt;
  }
  ++tally.states;
  tally.stateList += (tally.stateList.empty() ? "" : "\n") + prefix;
  run.setup[prefix + "/benchmark"] = benchName;
  const std::string deviceId = stringField(st, "device");
  const auto dn = deviceNames.find(deviceId);
  run.setup[prefix + "/device"] = dn != deviceNames.end() ? dn->second : deviceId;
  StateData sd;
  sd.benchmark = benchName;
  sd.state = std::move(stateName);
  sd.device = run.setup[prefix + "/device"];
  const auto axes = st.find("axis_values");
  if (axes != st.end() && axes->is_array()) {
    for (const auto& axis : *axes) {
      const std::string axisName = stringField(axis, "name");
      if (!axisName.empty()) {
        run.setup[std::string(prefix).append("/axis/").append(axisName)] =
            stringField(axis, "value");
        sd.axes[axisName] = stringField(axis, "value");
      }
    }
  }
  const auto summ = st.find("summaries");
  if (summ != st.end() && !summ->is_null()) {
    const std::string summPointer = childPointer(statePointer, "summaries");
    if (auto e = readSummaries(*summ, summPointer, prefix, fr, run, sd, tally)) return e;
  }
  tally.stateData.push_back(std::move(sd));
  return std::nullopt;
}

/// One benchmark and its states (a list in nvbench JSON 1.x, keyed by name before 1.0).
std::optional<Error> readBenchmark(const Json& bench, std::size_t b,
                                   const std::map<std::string, std::string>& deviceNames,
                                   const JsonReader& fr, ImportedRun& run, BenchTally& tally) {
  const std::string benchPointer = "/benchmarks/" + std::to_string(b);
  if (!bench.is_object()) return fr.error(benchPointer, "benchmarks", "expected an object");
  const auto nameIt = bench.find("name");
  if (nameIt == bench.end() || !nameIt->is_string()) {
    return fr.error(childPointer(benchPointer, "name"), "name",
                    "expected the benchmark's name as a string");
  }
  const std::string benchName = nameIt->get<std::string>();
  const auto statesIt = bench.find("states");
  if (statesIt == bench.end() || statesIt->is_null()) return std::nullopt;
  std::vector<std::pair<std::string, const Json*>> stateEntries;
  if (statesIt->is_array()) {
    for (std::size_t s = 0; s < statesIt->size(); ++s) {
      stateEntries.emplace_back(std::to_string(s), &(*statesIt)[s]);
    }
  } else if (statesIt->is_object()) {
    if (!tally.preOneNoted) {
      run.warnings.push_back(
          "pre-1.0 nvbench layout (states keyed by name, not a list): read, the state "
          "names taken from the keys");
      tally.preOneNoted = true;
    }
    for (auto it = statesIt->begin(); it != statesIt->end(); ++it) {
      stateEntries.emplace_back(it.key(), &it.value());
    }
  } else {
    return fr.error(childPointer(benchPointer, "states"), "states",
                    std::string("expected a list of states (nvbench JSON 1.x) or an object of "
                                "states keyed by name (pre-1.0 nvbench), found ") +
                        (statesIt->is_string() ? "a string" : "a scalar"));
  }
  for (std::size_t s = 0; s < stateEntries.size(); ++s) {
    const Json& st = *stateEntries[s].second;
    const std::string statePointer = childPointer(benchPointer + "/states", stateEntries[s].first);
    if (!st.is_object()) return fr.error(statePointer, "states", "expected an object");
    std::string stateName = stringField(st, "name");
    if (stateName.empty() && statesIt->is_object()) stateName = stateEntries[s].first;
    if (stateName.empty()) stateName = stringField(st, "description");
    if (stateName.empty()) stateName = "state" + std::to_string(s);
    if (auto e = readState(st, statePointer, benchName, std::move(stateName), deviceNames, fr, run,
                           tally)) {
      return e;
    }
  }
  return std::nullopt;
}

/// Figures no kernel can have are refused (naming the file and the state), never stored.
std::optional<Error> checkStates(const std::vector<StateData>& stateData, const JsonReader& fr) {
  for (const StateData& sd : stateData) {
    const std::string where = "benchmark '" + sd.benchmark + "', state '" + sd.state + "'";
    for (const auto& [name, text] : sd.axes) {
      const std::string axis = lower(name);
      if (axis != "m" && axis != "n" && axis != "k") continue;
      const auto whole = wholeNumber(text);
      if (!whole || *whole < 0 || *whole > kMaxGemmDim) {
        return fr.error("/benchmarks", "axis " + name,
                        where + ": expected a whole number of rows or columns 0.." +
                            std::to_string(kMaxGemmDim) + ", found '" + text + "'");
      }
    }
    for (const auto& [tagName, v] : sd.tags) {
      const bool mustBeNonNegative =
          tagName.find("/time/") != std::string::npos || tagName.rfind("nv/cold/bw/", 0) == 0 ||
          tagName.rfind("nv/gmem/", 0) == 0 || tagName.find("sample_size") != std::string::npos;
      // The kernel time itself (what a measurement's median_s, min_s come from) is > 0.
      const bool mustBePositive = tagName == "nv/cold/time/gpu/median" ||
                                  tagName == "nv/cold/time/gpu/mean" ||
                                  tagName == "nv/cold/time/gpu/min";
      if (mustBePositive && !(std::isfinite(v) && v > 0)) {
        return fr.error(
            "/benchmarks", tagName,
            where + ": a kernel time must be a finite number > 0, found " + formatNumber(v));
      }
      if (mustBeNonNegative && (!std::isfinite(v) || v < 0)) {
        return fr.error("/benchmarks", tagName,
                        where + ": a time, size or rate must be a finite number >= 0, found " +
                            formatNumber(v));
      }
    }
  }
  return std::nullopt;
}

Result<NvbenchRead> importNvbench(ImportedDoc& d, const ImportContext& ctx) {
  ImportedRun run;
  run.format = importformat::kNvbench;
  run.sourceFile = ctx.label;
  run.sha256 = ctx.sha256;
  run.setup["units"] = "nvbench tags as metric names: times in s, bandwidth in bytes/s";
  const JsonReader fr = fieldReader(ctx, d.line);
  const Json& o = d.doc.dom;
  readMeta(o, run);
  const std::map<std::string, std::string> deviceNames = readDevices(o, run);
  const auto benchesIt = o.find("benchmarks");
  if (benchesIt == o.end() || !benchesIt->is_array()) {
    return fr.error("/benchmarks", "benchmarks", "expected an array of benchmarks");
  }
  const Json& benches = *benchesIt;
  BenchTally tally;
  for (std::size_t b = 0; b < benches.size(); ++b) {
    if (auto e = readBenchmark(benches[b], b, deviceNames, fr, run, tally)) return *e;
  }
  run.setup[kStatesKey] = tally.stateList;
  if (run.label.empty() && !benches.empty() && benches[0].is_object()) {
    run.label = stringField(benches[0], "name");
  }
  if (tally.states == 0) {
    if (tally.skippedStates > 0) {
      return fr.error("/benchmarks", "benchmarks", "every benchmark state was skipped");
    }
    return fr.error("/benchmarks", "benchmarks", "no benchmark states in the file");
  }
  if (tally.summaries == 0) run.warnings.push_back("no numeric summaries in any state");
  if (auto e = checkStates(tally.stateData, fr)) return *e;
  NvbenchRead out;
  out.measurements = measurementsOf(tally.stateData, run.sourceFile);
  std::size_t withoutTime = tally.stateData.size() - out.measurements.size();
  if (withoutTime > 0) {
    run.warnings.push_back(std::to_string(withoutTime) +
                           " state(s) without a GPU time summary (nv/cold/time/gpu/mean or "
                           "median): no kernel measurement for them");
  }
  out.run = std::move(run);
  return out;
}

void readNvbench(std::vector<ImportedDoc*>& docs, const ImportContext& ctx, ReadOutcome& out) {
  for (ImportedDoc* d : docs) {
    auto r = importNvbench(*d, ctx);
    if (!r) {
      if (!out.firstError) out.firstError = r.error();
      if (ctx.multiDoc) out.warnings.push_back(warningText(r.error(), "; value skipped"));
      continue;
    }
    out.runs.push_back(std::move(r->run));
    for (auto& k : r->measurements) out.kernelMeasurements.push_back(std::move(k));
    d->doc = JsonDocument{};
  }
}

bool detect(const JsonDocument& doc) {
  const auto b = doc.dom.find("benchmarks");
  return b != doc.dom.end() && b->is_array() && (hasKey(doc, "devices") || hasKey(doc, "meta"));
}

}  // namespace

FormatReader nvbenchReader() {
  return {.name = importformat::kNvbench,
          .kind = RunKind::Kernels,
          .tool = "nvbench",
          .detect = &detect,
          .read = &readNvbench};
}

std::vector<KernelMeasurement> nvbenchToMeasurements(const ImportedRun& run) {
  if (run.format != importformat::kNvbench) return {};
  const auto list = run.setup.find(kStatesKey);
  if (list == run.setup.end()) return {};
  std::vector<StateData> states;
  std::istringstream lines(list->second);
  for (std::string prefix; std::getline(lines, prefix);) {
    if (prefix.empty()) continue;
    StateData sd;
    const auto bench = run.setup.find(prefix + "/benchmark");
    sd.benchmark = bench == run.setup.end() ? prefix : bench->second;
    sd.state =
        prefix.size() > sd.benchmark.size() ? prefix.substr(sd.benchmark.size() + 1) : prefix;
    const auto dev = run.setup.find(prefix + "/device");
    if (dev != run.setup.end()) sd.device = dev->second;
    const std::string axisPrefix = prefix + "/axis/";
    for (auto it = run.setup.lower_bound(axisPrefix);
         it != run.setup.end() && it->first.compare(0, axisPrefix.size(), axisPrefix) == 0; ++it) {
      sd.axes[it->first.substr(axisPrefix.size())] = it->second;
    }
    const std::string statePrefix = prefix + "/";
    for (auto it = run.metrics.lower_bound(statePrefix);
         it != run.metrics.end() && it->first.compare(0, statePrefix.size(), statePrefix) == 0;
         ++it) {
      sd.tags[it->first.substr(statePrefix.size())] = it->second;
    }
    states.push_back(std::move(sd));
  }
  return measurementsOf(states, run.sourceFile);
}

}  // namespace qf
