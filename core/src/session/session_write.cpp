// Writing a session: the document in a human-friendly key order, and its text with the
// per-request columns on one line each.
#include <nlohmann/json.hpp>
#include <quantfront/core/session/session.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "session/session_support.hpp"

namespace qf {

using namespace sessionfile;

namespace {

// Writer (templated so that the text form keeps a human-friendly key order).

/// A per-request time as a session stores it: kRequestSignificantDigits significant digits
/// (sub-microsecond for the latencies of a serving run; idempotent, so saving a loaded session
/// gives the same bytes).
double roundForSession(double v) {
  if (!std::isfinite(v) || v == 0) return v;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", kRequestSignificantDigits, v);
  return std::strtod(buf, nullptr);
}

template <class J>
J looseJson(double v) {
  if (std::isnan(v)) return J(std::string(kNaNText));
  if (std::isinf(v)) return J(std::string(v > 0 ? kInfText : kNegInfText));
  return J(v);
}

template <class J>
J provenanceJson(const Provenance& p) {
  J j = J::object();
  j["kind"] = provenanceName(p.kind);
  if (!p.sourceFile.empty()) j["source_file"] = p.sourceFile;
  if (!p.sha256.empty()) j["sha256"] = p.sha256;
  if (!p.citation.empty()) j["citation"] = p.citation;
  if (!p.note.empty()) j["note"] = p.note;
  return j;
}

template <class J>
J metricJson(const MetricValue& m) {
  J j = J::object();
  j["value"] = m.value;
  if (m.lo) j["lo"] = *m.lo;
  if (m.hi) j["hi"] = *m.hi;
  if (m.n) j["n"] = *m.n;
  j["provenance"] = provenanceJson<J>(m.provenance);
  return j;
}

template <class J>
J scenarioJson(const ScenarioSpec& s) {
  J j = J::object();
  j["model"] = s.model;
  j["gpu"] = s.gpu;
  if (s.gpuSpec) j["gpu_spec"] = gpuToJson(*s.gpuSpec);
  j["tp"] = s.tp;
  J schemes = J::array();
  for (const auto& id : s.schemes) schemes.push_back(id);
  j["schemes"] = schemes;
  if (!s.mixedLinear.empty()) {
    J mixed = J::object();
    mixed["linear"] = s.mixedLinear;
    if (!s.mixedMoe.empty()) mixed["moe"] = s.mixedMoe;
    if (!s.mixedLmHead.empty()) mixed["lm_head"] = s.mixedLmHead;
    j["mixed"] = mixed;
  }
  j["kv_dtype"] = s.kvDtype;
  j["max_model_len"] = s.maxModelLen;
  if (s.datasheet) j["datasheet"] = true;
  if (!s.engine.empty()) j["engine"] = s.engine;
  if (s.specDraftTokens > 0) {
    J sp = J::object();
    sp["draft_tokens"] = s.specDraftTokens;
    sp["acceptance"] = s.specAcceptance;
    sp["draft"] = s.specDraft;
    j["speculation"] = sp;
  }
  j["mem_util"] = s.memUtil;
  j["reserve_gib"] = s.reserveGib;
  j["context"] = s.contextTokens;
  if (s.inputLen > 0) j["input_len"] = s.inputLen;
  if (s.outputLen > 0) j["output_len"] = s.outputLen;
  j["use_case"] = s.useCase;
  J batch = J::object();
  batch["min"] = s.batchMin;
  batch["max"] = s.batchMax;
  if (s.batchAt > 0) batch["at"] = s.batchAt;
  j["batch"] = batch;
  return j;
}

template <class J>
J candidateJson(const Candidate& c) {
  J j = J::object();
  j["id"] = c.id;
  j["model"] = c.model;
  J schemes = J::object();
  schemes["linear"] = c.schemeLinear;
  if (!c.schemeMoe.empty()) schemes["moe"] = c.schemeMoe;
  if (!c.schemeLmHead.empty()) schemes["lm_head"] = c.schemeLmHead;
  j["schemes"] = schemes;
  j["gpu"] = c.gpu;
  j["gpu_count"] = c.gpuCount;
  j["engine"] = c.engine;
  J metrics = J::object();
  for (const auto& [name, m] : c.metrics) metrics[name] = metricJson<J>(m);
  j["metrics"] = metrics;
  if (!c.notes.empty()) j["notes"] = c.notes;
  return j;
}

template <class J>
J runJson(const ImportedRun& run) {
  J j = J::object();
  j["format"] = run.format;
  j["source_file"] = run.sourceFile;
  j["sha256"] = run.sha256;
  j["label"] = run.label;
  J setup = J::object();
  for (const auto& [k, v] : run.setup) setup[k] = v;
  j["setup"] = setup;
  J metrics = J::object();
  for (const auto& [k, v] : run.metrics) metrics[k] = looseJson<J>(v);
  j["metrics"] = metrics;
  // Per-request records as columns (one flat array each; the gaps of all requests in one
  // array, split by itl_count), times to kRequestSignificantDigits: compact enough that a
  // session is not much larger than the benchmark file it came from.
  J cols = J::object();
  J ttft = J::array(), latency = J::array(), inputLen = J::array(), outputLen = J::array(),
    success = J::array(), itlCount = J::array(), itls = J::array();
  for (const auto& q : run.requests) {
    ttft.push_back(looseJson<J>(roundForSession(q.ttftS)));
    latency.push_back(looseJson<J>(roundForSession(q.latencyS)));
    inputLen.push_back(q.inputLen);
    outputLen.push_back(q.outputLen);
    success.push_back(q.success ? 1 : 0);
    itlCount.push_back(q.itlsS.size());
    for (double t : q.itlsS) itls.push_back(looseJson<J>(roundForSession(t)));
  }
  cols["count"] = run.requests.size();
  cols["ttft_s"] = ttft;
  cols["latency_s"] = latency;
  cols["input_len"] = inputLen;
  cols["output_len"] = outputLen;
  cols["success"] = success;
  cols["itl_count"] = itlCount;
  cols["itls_s"] = itls;
  j["request_arrays"] = cols;
  J steps = J::array();
  for (const auto& [b, t] : run.decodeStepByBatch) {
    J pair = J::array();
    pair.push_back(looseJson<J>(b));
    pair.push_back(looseJson<J>(t));
    steps.push_back(pair);
  }
  j["decode_step_by_batch"] = steps;
  J warnings = J::array();
  for (const auto& w : run.warnings) warnings.push_back(w);
  j["warnings"] = warnings;
  return j;
}

template <class J>
J kernelJson(const KernelMeasurement& k) {
  J j = J::object();
  j["kernel"] = k.kernel;
  j["scheme"] = k.scheme;
  j["device"] = k.device;
  j["m"] = k.m;
  j["n"] = k.n;
  j["k"] = k.k;
  j["median_s"] = looseJson<J>(k.medianS);
  j["min_s"] = looseJson<J>(k.minS);
  j["rel_noise"] = looseJson<J>(k.relNoise);
  j["samples"] = k.samples;
  j["bytes_moved"] = looseJson<J>(k.bytesMoved);
  j["flops"] = looseJson<J>(k.flops);
  j["source_file"] = k.sourceFile;
  // Written only where measured, so sessions without NVML figures stay as they were.
  if (k.energyJ > 0) j["energy_j"] = looseJson<J>(k.energyJ);
  if (k.avgPowerW > 0) j["avg_power_w"] = looseJson<J>(k.avgPowerW);
  if (k.repeatNoise > 0) j["repeat_noise"] = looseJson<J>(k.repeatNoise);
  if (k.baselineS > 0) j["baseline_s"] = looseJson<J>(k.baselineS);
  if (!k.plan.empty()) {
    J plan = J::object();
    for (const auto& [key, v] : k.plan) plan[key] = v;
    j["plan"] = plan;
  }
  return j;
}

template <class J>
J viewJson(const ViewState& v) {
  J j = J::object();
  J objs = J::array();
  for (const auto& o : v.objectives) {
    J item = J::object();
    item["metric"] = o.metric;
    item["orientation"] = directionName(o.direction);
    objs.push_back(item);
  }
  j["objectives"] = objs;
  J gates = J::array();
  for (const auto& g : v.gates) gates.push_back(g);
  j["gates"] = gates;
  J axes = J::object();
  axes["x"] = v.axes.x;
  axes["y"] = v.axes.y;
  axes["color"] = v.axes.color;
  j["axes"] = axes;
  if (!v.hidden.empty()) {
    J hidden = J::array();
    for (const auto& h : v.hidden) hidden.push_back(h);
    j["hidden"] = hidden;
  }
  j["tab"] = v.tab;
  return j;
}

template <class J>
J sessionJsonT(const Session& s) {
  J j = J::object();
  j["format"] = kSessionFormat;
  j["version"] = kSessionVersion;
  j["title"] = s.title;
  j["notes"] = s.notes;
  j["scenario"] = scenarioJson<J>(s.scenario);
  J cands = J::array();
  for (const auto& c : s.candidates) cands.push_back(candidateJson<J>(c));
  j["candidates"] = cands;
  J runs = J::array();
  for (const auto& r : s.importedRuns) runs.push_back(runJson<J>(r));
  j["imported_runs"] = runs;
  J ks = J::array();
  for (const auto& k : s.kernelMeasurements) ks.push_back(kernelJson<J>(k));
  j["kernel_measurements"] = ks;
  j["view"] = viewJson<J>(s.view);
  return j;
}

}  // namespace

Json sessionToJson(const Session& s) {
  return sessionJsonT<Json>(s);
}

namespace {
using OJson = nlohmann::ordered_json;

std::string scalarText(const OJson& v) {
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

/// nlohmann's dump(2) layout (two-space indent, "key": value, one element per line), except
/// that the columns of a run's `request_arrays` are written on one line each: a column of
/// 10^6 gaps then costs its numbers and commas, not a line and an indent per number.
void writePretty(std::string& out, const OJson& v, std::size_t indent, bool compactArrays,
                 bool membersCompact) {
  if (v.is_object()) {
    if (v.empty()) {
      out += "{}";
      return;
    }
    out += "{\n";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!first) out += ",\n";
      first = false;
      out.append(indent + 2, ' ');
      out += scalarText(OJson(it.key()));
      out += ": ";
      writePretty(out, it.value(), indent + 2, membersCompact, it.key() == "request_arrays");
    }
    out += "\n";
    out.append(indent, ' ');
    out += "}";
    return;
  }
  if (v.is_array()) {
    if (v.empty()) {
      out += "[]";
      return;
    }
    if (compactArrays) {
      out += scalarText(v);
      return;
    }
    out += "[\n";
    bool first = true;
    for (const auto& e : v) {
      if (!first) out += ",\n";
      first = false;
      out.append(indent + 2, ' ');
      writePretty(out, e, indent + 2, false, false);
    }
    out += "\n";
    out.append(indent, ' ');
    out += "]";
    return;
  }
  out += scalarText(v);
}
}  // namespace

std::string sessionToText(const Session& s) {
  std::string out;
  writePretty(out, sessionJsonT<OJson>(s), 0, false, false);
  out += "\n";
  return out;
}

}  // namespace qf
