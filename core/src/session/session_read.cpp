// Reading a session: the JSON text (nesting bounded), the format and version, and the
// version-2 document into a Session (older versions migrate first, session_migrate.cpp).
#include <nlohmann/json.hpp>
#include <quantfront/core/session/session.hpp>

#include <cmath>
#include <iterator>
#include <limits>
#include <map>

#include <quantfront/core/base/json_scanner.hpp>
#include <quantfront/core/base/kernels.hpp>
#include <quantfront/core/model/cost.hpp>
#include <quantfront/core/model/speculation.hpp>

#include "session/session_support.hpp"

namespace qf {

using namespace sessionfile;

namespace {

/// JsonReader::looseNumber() of `v` into `out`; the error, if any.
std::optional<Error> looseInto(const JsonReader& r, const Json& v, const std::string& pointer,
                               const std::string& field, double& out) {
  auto x = r.looseNumber(v, pointer, field);
  if (!x) return x.error();
  out = *x;
  return std::nullopt;
}

std::optional<Error> readScenario(const JsonReader& r, const Json& j, const std::string& p,
                                  ScenarioSpec& s) {
  if (auto e = r.object(j, p, "scenario",
                        {"model", "gpu", "gpu_spec", "tp", "schemes", "mixed", "kv_dtype",
                         "max_model_len", "mem_util", "reserve_gib", "context", "use_case", "batch",
                         "datasheet", "input_len", "output_len", "speculation", "engine"})) {
    return e;
  }
  if (auto e = r.readString(s.model, j, p, "model", true, false)) return e;
  if (auto e = r.readString(s.gpu, j, p, "gpu", true, false)) return e;
  s.gpuSpec.reset();
  if (const Json* g = JsonReader::find(j, "gpu_spec")) {
    auto gpu = parseGpu(*g, r.file(), child(p, "gpu_spec"));
    if (!gpu) return gpu.error();
    if (gpu->id.empty()) gpu->id = s.gpu;
    s.gpuSpec = std::move(*gpu);
  }
  std::int64_t tp = 1;
  if (auto e = r.readInteger(tp, j, p, "tp", true, 1, kMaxTp)) return e;
  s.tp = static_cast<int>(tp);
  if (auto e = r.readStringList(s.schemes, j, p, "schemes", true, false)) return e;
  s.mixedLinear.clear();
  s.mixedMoe.clear();
  s.mixedLmHead.clear();
  if (const Json* m = JsonReader::find(j, "mixed")) {
    const std::string mp = child(p, "mixed");
    if (auto e = r.object(*m, mp, "mixed", {"linear", "moe", "lm_head"})) return e;
    if (auto e = r.readString(s.mixedLinear, *m, mp, "linear", true, false)) return e;
    if (auto e = r.readString(s.mixedMoe, *m, mp, "moe", false, false)) return e;
    if (auto e = r.readString(s.mixedLmHead, *m, mp, "lm_head", false, false)) return e;
  }
  if (auto e = r.readString(s.kvDtype, j, p, "kv_dtype", true, false)) return e;
  if (kvBytesForDtype(s.kvDtype) == 0) {
    return r.error(
        child(p, "kv_dtype"), "kv_dtype",
        "expected bf16, fp16, auto, fp8, fp8_e4m3 or fp8_e5m2, found '" + s.kvDtype + "'");
  }
  if (auto e = r.readInteger(s.maxModelLen, j, p, "max_model_len", true, 1, kMaxTokens)) return e;
  if (auto e = r.readNumber(s.memUtil, j, p, "mem_util")) return e;
  if (!(s.memUtil > 0 && s.memUtil <= 1)) {
    return r.error(child(p, "mem_util"), "mem_util", "must be in (0, 1]");
  }
  if (auto e = r.readNumber(s.reserveGib, j, p, "reserve_gib")) return e;
  if (s.reserveGib < 0) return r.error(child(p, "reserve_gib"), "reserve_gib", "must be >= 0");
  if (auto e = r.readInteger(s.contextTokens, j, p, "context", true, 0, kMaxTokens)) return e;
  s.inputLen = s.outputLen = 0;
  if (auto e = r.readInteger(s.inputLen, j, p, "input_len", false, 0, kMaxTokens)) return e;
  if (auto e = r.readInteger(s.outputLen, j, p, "output_len", false, 0, kMaxTokens)) return e;
  s.useCase.clear();
  if (auto e = r.readString(s.useCase, j, p, "use_case", false)) return e;
  s.datasheet = false;
  if (auto e = r.readBoolean(s.datasheet, j, p, "datasheet")) return e;
  s.engine.clear();
  if (auto e = r.readString(s.engine, j, p, "engine", false)) return e;
  if (!kvFreeFractionOf(s.engine))
    return r.error(child(p, "engine"), "engine",
                   "expected vllm, sglang or trtllm, found '" + s.engine + "'");
  s.specDraftTokens = 0;
  s.specAcceptance = 0.7;
  s.specDraft = "mtp";
  if (const Json* sp = JsonReader::find(j, "speculation")) {
    const std::string sp_ = child(p, "speculation");
    if (auto e = r.object(*sp, sp_, "speculation", {"draft_tokens", "acceptance", "draft"}))
      return e;
    std::int64_t k = 0;
    if (auto e = r.readInteger(k, *sp, sp_, "draft_tokens", true, 1, kMaxDraftTokens)) return e;
    s.specDraftTokens = static_cast<int>(k);
    if (auto e = r.readNumber(s.specAcceptance, *sp, sp_, "acceptance")) return e;
    if (!(s.specAcceptance > 0 && s.specAcceptance <= 1))
      return r.error(child(sp_, "acceptance"), "acceptance", "must be in (0, 1]");
    if (auto e = r.readString(s.specDraft, *sp, sp_, "draft", true, false)) return e;
  }
  const Json* b = JsonReader::find(j, "batch");
  if (!b) return r.missing(p, "batch", "object");
  const std::string bp = child(p, "batch");
  if (auto e = r.object(*b, bp, "batch", {"min", "max", "at"})) return e;
  if (auto e = r.readNumber(s.batchMin, *b, bp, "min")) return e;
  if (auto e = r.readNumber(s.batchMax, *b, bp, "max")) return e;
  s.batchAt = 0;
  if (auto e = r.readInteger(s.batchAt, *b, bp, "at", false, 0, kMaxTokens)) return e;
  if (s.batchMin < 1) return r.error(child(bp, "min"), "min", "batch sizes start at 1");
  if (s.batchMax < s.batchMin) {
    return r.error(child(bp, "max"), "max", "must be at least the batch minimum");
  }
  return std::nullopt;
}

std::optional<Error> readProvenance(const JsonReader& r, const Json& j, const std::string& p,
                                    Provenance& out) {
  if (auto e =
          r.object(j, p, "provenance", {"kind", "source_file", "sha256", "citation", "note"})) {
    return e;
  }
  std::string kind;
  if (auto e = r.readString(kind, j, p, "kind", true)) return e;
  const auto k = kindFromName(kind);
  if (!k) {
    return r.error(child(p, "kind"), "kind",
                   "expected modelled, measured or published, found '" + kind + "'");
  }
  out.kind = *k;
  if (auto e = r.readString(out.sourceFile, j, p, "source_file", false)) return e;
  if (auto e = r.readString(out.sha256, j, p, "sha256", false)) return e;
  if (auto e = r.readString(out.citation, j, p, "citation", false)) return e;
  if (auto e = r.readString(out.note, j, p, "note", false)) return e;
  if (!out.sha256.empty() && !isSha256Hex(out.sha256)) {
    return r.error(child(p, "sha256"), "sha256", "expected 64 lower-case hex digits");
  }
  if (out.kind == ProvenanceKind::Measured && out.sourceFile.empty()) {
    return r.error(child(p, "source_file"), "source_file",
                   "a measured figure must name the file (or kernel run) it came from");
  }
  if (out.kind == ProvenanceKind::Published && out.citation.empty()) {
    return r.error(child(p, "citation"), "citation", "a published figure must carry a citation");
  }
  return std::nullopt;
}

std::optional<Error> readMetric(const JsonReader& r, const Json& j, const std::string& p,
                                const std::string& name, MetricValue& m) {
  if (!j.is_object()) {
    return r.error(
        p, name,
        "expected an object {\"value\", \"provenance\", ...}, found " + JsonReader::describe(j));
  }
  if (auto e = r.object(j, p, name, {"value", "lo", "hi", "n", "provenance"})) return e;
  if (auto e = r.readNumber(m.value, j, p, "value")) return e;
  if (auto e = r.readOptNumber(m.lo, j, p, "lo")) return e;
  if (auto e = r.readOptNumber(m.hi, j, p, "hi")) return e;
  if (auto e = r.readOptNumber(m.n, j, p, "n")) return e;
  if (m.lo && m.hi && *m.lo > *m.hi) {
    return r.error(child(p, "hi"), "hi", "interval upper bound is below its lower bound");
  }
  if (m.n && *m.n < 0) return r.error(child(p, "n"), "n", "sample count must not be negative");
  const Json* prov = JsonReader::find(j, "provenance");
  if (!prov) return r.missing(p, "provenance", "object");
  return readProvenance(r, *prov, child(p, "provenance"), m.provenance);
}

std::optional<Error> readCandidate(const JsonReader& r, const Json& j, const std::string& p,
                                   Candidate& c) {
  if (auto e =
          r.object(j, p, "candidates",
                   {"id", "model", "schemes", "gpu", "gpu_count", "engine", "metrics", "notes"})) {
    return e;
  }
  if (auto e = r.readString(c.id, j, p, "id", true, false)) return e;
  if (auto e = r.readString(c.model, j, p, "model", true, false)) return e;
  const Json* sc = JsonReader::find(j, "schemes");
  if (!sc) return r.missing(p, "schemes", "object");
  const std::string sp = child(p, "schemes");
  if (auto e = r.object(*sc, sp, "schemes", {"linear", "moe", "lm_head"})) return e;
  if (auto e = r.readString(c.schemeLinear, *sc, sp, "linear", true, false)) return e;
  if (auto e = r.readString(c.schemeMoe, *sc, sp, "moe", false, false)) return e;
  if (auto e = r.readString(c.schemeLmHead, *sc, sp, "lm_head", false, false)) return e;
  if (auto e = r.readString(c.gpu, j, p, "gpu", true, false)) return e;
  std::int64_t count = 1;
  if (auto e = r.readInteger(count, j, p, "gpu_count", true, 1, kMaxTp)) return e;
  c.gpuCount = static_cast<int>(count);
  if (auto e = r.readString(c.engine, j, p, "engine", false)) return e;
  if (auto e = r.readString(c.notes, j, p, "notes", false)) return e;
  const Json* metrics = JsonReader::find(j, "metrics");
  if (!metrics) return r.missing(p, "metrics", "object");
  const std::string mp = child(p, "metrics");
  if (!metrics->is_object()) {
    return r.error(mp, "metrics",
                   "expected an object of named metrics, found " + JsonReader::describe(*metrics));
  }
  for (auto it = metrics->begin(); it != metrics->end(); ++it) {
    if (it.key().empty()) return r.error(child(mp, ""), "metrics", "metric name must not be empty");
    MetricValue m;
    if (auto e = readMetric(r, it.value(), child(mp, it.key()), it.key(), m)) return e;
    c.metrics.emplace(it.key(), std::move(m));
  }
  return std::nullopt;
}

std::optional<Error> readRequest(const JsonReader& r, const Json& j, const std::string& p,
                                 RequestRecord& q) {
  if (auto e = r.object(j, p, "requests",
                        {"ttft_s", "latency_s", "itls_s", "input_len", "output_len", "success"})) {
    return e;
  }
  if (auto e = r.readLooseNumber(q.ttftS, j, p, "ttft_s", false)) return e;
  if (auto e = r.readLooseNumber(q.latencyS, j, p, "latency_s", false)) return e;
  if (auto e = r.readInteger(q.inputLen, j, p, "input_len", false, 0, kMaxCount)) return e;
  if (auto e = r.readInteger(q.outputLen, j, p, "output_len", false, 0, kMaxCount)) return e;
  if (auto e = r.readBoolean(q.success, j, p, "success")) return e;
  if (const Json* itls = JsonReader::find(j, "itls_s")) {
    const std::string ip = child(p, "itls_s");
    if (!itls->is_array())
      return r.error(ip, "itls_s", "expected an array, found " + JsonReader::describe(*itls));
    q.itlsS.reserve(itls->size());
    for (std::size_t i = 0; i < itls->size(); ++i) {
      double v = 0;
      if (auto e = looseInto(r, (*itls)[i], child(ip, i), "itls_s", v)) return e;
      q.itlsS.push_back(v);
    }
  }
  return std::nullopt;
}

/// The columnar per-request records (`request_arrays`): every column has `count` entries,
/// the gaps of all requests lie in one `itls_s` array split by `itl_count`.
std::optional<Error> readRequestArrays(const JsonReader& r, const Json& j, const std::string& p,
                                       std::vector<RequestRecord>& out) {
  static const char* const kColumns[] = {"ttft_s",  "latency_s", "input_len", "output_len",
                                         "success", "itl_count", "itls_s"};
  if (auto e = r.object(j, p, "request_arrays",
                        {"count", "ttft_s", "latency_s", "input_len", "output_len", "success",
                         "itl_count", "itls_s"})) {
    return e;
  }
  std::int64_t count = 0;
  if (auto e = r.readInteger(count, j, p, "count", true, 0, kMaxCount)) return e;
  const auto n = static_cast<std::size_t>(count);
  std::vector<const Json*> col(std::size(kColumns), nullptr);
  for (std::size_t c = 0; c < std::size(kColumns); ++c) {
    const Json* v = JsonReader::find(j, kColumns[c]);
    const std::string cp = child(p, kColumns[c]);
    if (!v) return r.missing(p, kColumns[c], "array");
    if (!v->is_array())
      return r.error(cp, kColumns[c], "expected an array, found " + JsonReader::describe(*v));
    if (c != 6 && v->size() != n) {
      return r.error(
          cp, kColumns[c],
          "has " + std::to_string(v->size()) + " entries but count is " + std::to_string(n));
    }
    col[c] = v;
  }
  out.assign(n, RequestRecord{});
  auto whole = [&](const Json& v, const std::string& ptr, const char* field, std::int64_t hi,
                   std::int64_t& dst) -> std::optional<Error> {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() <= static_cast<std::uint64_t>(hi)) {
      dst = static_cast<std::int64_t>(v.get<std::uint64_t>());
      return std::nullopt;
    }
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() <= hi) {
      dst = v.get<std::int64_t>();
      return std::nullopt;
    }
    return r.error(ptr, field,
                   "expected an integer from 0 to " + std::to_string(hi) + ", found " +
                       JsonReader::describe(v));
  };
  std::size_t gaps = 0;
  for (std::size_t i = 0; i < n; ++i) {
    RequestRecord& q = out[i];
    if (auto e = looseInto(r, (*col[0])[i], child(child(p, "ttft_s"), i), "ttft_s", q.ttftS)) {
      return e;
    }
    if (auto e =
            looseInto(r, (*col[1])[i], child(child(p, "latency_s"), i), "latency_s", q.latencyS)) {
      return e;
    }
    if (auto e = whole((*col[2])[i], child(child(p, "input_len"), i), "input_len", kMaxCount,
                       q.inputLen)) {
      return e;
    }
    if (auto e = whole((*col[3])[i], child(child(p, "output_len"), i), "output_len", kMaxCount,
                       q.outputLen)) {
      return e;
    }
    std::int64_t ok = 0;
    if (auto e = whole((*col[4])[i], child(child(p, "success"), i), "success", 1, ok)) return e;
    q.success = ok == 1;
    std::int64_t k = 0;
    if (auto e = whole((*col[5])[i], child(child(p, "itl_count"), i), "itl_count", kMaxCount, k)) {
      return e;
    }
    const auto kn = static_cast<std::size_t>(k);
    if (kn > col[6]->size() - gaps) {
      return r.error(child(child(p, "itl_count"), i), "itl_count",
                     "the counts add up to more than the " + std::to_string(col[6]->size()) +
                         " entries of itls_s");
    }
    q.itlsS.resize(kn);
    for (std::size_t g = 0; g < kn; ++g, ++gaps) {
      if (auto e = looseInto(r, (*col[6])[gaps], child(child(p, "itls_s"), gaps), "itls_s",
                             q.itlsS[g])) {
        return e;
      }
    }
  }
  if (gaps != col[6]->size()) {
    return r.error(child(p, "itls_s"), "itls_s",
                   "has " + std::to_string(col[6]->size()) + " entries but itl_count adds up to " +
                       std::to_string(gaps));
  }
  return std::nullopt;
}

std::optional<Error> readRun(const JsonReader& r, const Json& j, const std::string& p,
                             ImportedRun& run) {
  if (auto e = r.object(j, p, "imported_runs",
                        {"format", "source_file", "sha256", "label", "setup", "metrics", "requests",
                         "request_arrays", "decode_step_by_batch", "warnings"})) {
    return e;
  }
  if (auto e = r.readString(run.format, j, p, "format", true, false)) return e;
  run.kind = runKindOfFormat(run.format);  // the file keeps the name; the kind is the format's
  if (auto e = r.readString(run.sourceFile, j, p, "source_file", true, false)) return e;
  if (auto e = r.readString(run.sha256, j, p, "sha256", true)) return e;
  if (!run.sha256.empty() && !isSha256Hex(run.sha256)) {
    return r.error(child(p, "sha256"), "sha256", "expected 64 lower-case hex digits or \"\"");
  }
  if (auto e = r.readString(run.label, j, p, "label", false)) return e;
  if (const Json* setup = JsonReader::find(j, "setup")) {
    const std::string sp = child(p, "setup");
    if (!setup->is_object())
      return r.error(sp, "setup", "expected an object, found " + JsonReader::describe(*setup));
    for (auto it = setup->begin(); it != setup->end(); ++it) {
      if (!it->is_string()) {
        return r.error(child(sp, it.key()), it.key(),
                       "expected a string, found " + JsonReader::describe(it.value()));
      }
      run.setup.emplace(it.key(), it->get<std::string>());
    }
  }
  const Json* metrics = JsonReader::find(j, "metrics");
  if (!metrics) return r.missing(p, "metrics", "object");
  const std::string mp = child(p, "metrics");
  if (!metrics->is_object()) {
    return r.error(mp, "metrics",
                   "expected an object of named numbers, found " + JsonReader::describe(*metrics));
  }
  for (auto it = metrics->begin(); it != metrics->end(); ++it) {
    double v = 0;
    if (auto e = looseInto(r, it.value(), child(mp, it.key()), it.key(), v)) return e;
    run.metrics.emplace(it.key(), v);
  }
  if (const Json* reqs = JsonReader::find(j, "requests")) {
    const std::string rp = child(p, "requests");
    if (!reqs->is_array())
      return r.error(rp, "requests", "expected an array, found " + JsonReader::describe(*reqs));
    run.requests.reserve(reqs->size());
    for (std::size_t i = 0; i < reqs->size(); ++i) {
      RequestRecord q;
      if (auto e = readRequest(r, (*reqs)[i], child(rp, i), q)) return e;
      run.requests.push_back(std::move(q));
    }
  }
  if (const Json* cols = JsonReader::find(j, "request_arrays")) {
    if (!run.requests.empty()) {
      return r.error(child(p, "request_arrays"), "request_arrays",
                     "the run also has 'requests'; a run holds its requests in one of the two");
    }
    if (auto e = readRequestArrays(r, *cols, child(p, "request_arrays"), run.requests)) return e;
  }
  if (const Json* steps = JsonReader::find(j, "decode_step_by_batch")) {
    const std::string dp = child(p, "decode_step_by_batch");
    if (!steps->is_array()) {
      return r.error(dp, "decode_step_by_batch",
                     "expected an array, found " + JsonReader::describe(*steps));
    }
    for (std::size_t i = 0; i < steps->size(); ++i) {
      const Json& pair = (*steps)[i];
      const std::string pp = child(dp, i);
      if (!pair.is_array() || pair.size() != 2) {
        return r.error(pp, "decode_step_by_batch", "expected a pair [batch, step_s]");
      }
      double b = 0, t = 0;
      if (auto e = looseInto(r, pair[0], child(pp, 0), "decode_step_by_batch", b)) return e;
      if (auto e = looseInto(r, pair[1], child(pp, 1), "decode_step_by_batch", t)) return e;
      run.decodeStepByBatch.emplace_back(b, t);
    }
  }
  if (auto e = r.readStringList(run.warnings, j, p, "warnings", false, true)) return e;
  return std::nullopt;
}

std::optional<Error> readKernel(const JsonReader& r, const Json& j, const std::string& p,
                                KernelMeasurement& k) {
  if (auto e = r.object(j, p, "kernel_measurements",
                        {"kernel", "scheme", "device", "m", "n", "k", "median_s", "min_s",
                         "rel_noise", "samples", "bytes_moved", "flops", "source_file", "energy_j",
                         "avg_power_w", "repeat_noise", "baseline_s", "plan"})) {
    return e;
  }
  if (auto e = r.readString(k.kernel, j, p, "kernel", true)) return e;
  if (auto e = r.readString(k.scheme, j, p, "scheme", false)) return e;
  if (auto e = r.readString(k.device, j, p, "device", true)) return e;
  if (auto e = r.readInteger(k.m, j, p, "m", false, 0, kMaxCount)) return e;
  if (auto e = r.readInteger(k.n, j, p, "n", false, 0, kMaxCount)) return e;
  if (auto e = r.readInteger(k.k, j, p, "k", false, 0, kMaxCount)) return e;
  // A timing must be a finite time > 0 (min_s 0: not recorded); noise, bytes and FLOPs finite
  // and >= 0. A NaN would compare equal to everything and corrupt every fit and merge it
  // meets, so it is refused here, with the record's position.
  auto timing = [&](const char* key, double& out, bool required, bool zeroAllowed) {
    auto e = r.readLooseNumber(out, j, p, key, required);
    if (!e && !(std::isfinite(out) && (out > 0 || (zeroAllowed && out == 0)))) {
      e = r.error(child(p, key), key,
                  std::string("expected a finite time in seconds ") +
                      (zeroAllowed ? ">= 0" : "> 0") + ", found " + formatNumber(out));
    }
    return e;
  };
  auto amount = [&](const char* key, double& out) {
    auto e = r.readLooseNumber(out, j, p, key, false);
    if (!e && !(std::isfinite(out) && out >= 0)) {
      e = r.error(child(p, key), key, "expected a finite number >= 0, found " + formatNumber(out));
    }
    return e;
  };
  if (auto e = timing("median_s", k.medianS, true, false)) return e;
  if (auto e = timing("min_s", k.minS, false, true)) return e;
  if (auto e = amount("rel_noise", k.relNoise)) return e;
  if (auto e = amount("repeat_noise", k.repeatNoise)) return e;
  if (auto e = timing("baseline_s", k.baselineS, false, true)) return e;
  if (const Json* plan = JsonReader::find(j, "plan")) {
    const std::string pp = child(p, "plan");
    if (!plan->is_object()) {
      return r.error(pp, "plan",
                     "expected an object of numbers, found " + JsonReader::describe(*plan));
    }
    for (const auto& [key, v] : plan->items()) {
      if (!v.is_number() || !std::isfinite(v.get<double>())) {
        return r.error(child(pp, key), "plan." + key,
                       "expected a finite number, found " + JsonReader::describe(v));
      }
      k.plan[key] = v.get<double>();
    }
  }
  if (auto e = r.readInteger(k.samples, j, p, "samples", false, 0, kMaxCount)) return e;
  if (auto e = amount("bytes_moved", k.bytesMoved)) return e;
  if (auto e = amount("flops", k.flops)) return e;
  if (auto e = r.readString(k.sourceFile, j, p, "source_file", false)) return e;
  k.kind = kernelKindOf(k.kernel, k.scheme);  // the vocabulary's names; any other: Other
  if (auto e = r.readLooseNumber(k.energyJ, j, p, "energy_j", false)) return e;
  if (auto e = r.readLooseNumber(k.avgPowerW, j, p, "avg_power_w", false)) return e;
  return std::nullopt;
}

std::optional<Error> readView(const JsonReader& r, const Json& j, const std::string& p,
                              ViewState& v) {
  if (auto e = r.object(j, p, "view", {"objectives", "gates", "axes", "hidden", "tab"})) return e;
  if (const Json* objs = JsonReader::find(j, "objectives")) {
    const std::string op = child(p, "objectives");
    if (!objs->is_array())
      return r.error(op, "objectives", "expected an array, found " + JsonReader::describe(*objs));
    for (std::size_t i = 0; i < objs->size(); ++i) {
      const std::string ip = child(op, i);
      const Json& o = (*objs)[i];
      if (auto e = r.object(o, ip, "objectives", {"metric", "orientation"})) return e;
      Objective obj;
      if (auto e = r.readString(obj.metric, o, ip, "metric", true, false)) return e;
      std::string orient;
      if (auto e = r.readString(orient, o, ip, "orientation", true)) return e;
      if (orient == "max") {
        obj.direction = Direction::Max;
      } else if (orient == "min") {
        obj.direction = Direction::Min;
      } else {
        return r.error(child(ip, "orientation"), "orientation",
                       "expected max or min, found '" + orient + "'");
      }
      v.objectives.push_back(std::move(obj));
    }
  }
  if (auto e = r.readStringList(v.gates, j, p, "gates", false, false)) return e;
  for (std::size_t i = 0; i < v.gates.size(); ++i) {
    auto g = parseGate(v.gates[i], "gates");
    if (!g) return r.error(child(child(p, "gates"), i), "gates", g.error().message);
  }
  if (const Json* axes = JsonReader::find(j, "axes")) {
    const std::string ap = child(p, "axes");
    if (auto e = r.object(*axes, ap, "axes", {"x", "y", "color"})) return e;
    if (auto e = r.readString(v.axes.x, *axes, ap, "x", false)) return e;
    if (auto e = r.readString(v.axes.y, *axes, ap, "y", false)) return e;
    if (auto e = r.readString(v.axes.color, *axes, ap, "color", false)) return e;
  }
  if (auto e = r.readStringList(v.hidden, j, p, "hidden", false, false)) return e;
  if (auto e = r.readString(v.tab, j, p, "tab", false, false)) return e;
  return std::nullopt;
}

/// Reads a version-2 document (format and version already checked).
std::optional<Error> readV2(const JsonReader& r, const Json& doc, Session& s) {
  if (auto e = r.object(doc, "/", "",
                        {"format", "version", "title", "notes", "scenario", "candidates",
                         "imported_runs", "kernel_measurements", "view"})) {
    return e;
  }
  if (auto e = r.readString(s.title, doc, "/", "title", false)) return e;
  if (auto e = r.readString(s.notes, doc, "/", "notes", false)) return e;
  const Json* scenario = JsonReader::find(doc, "scenario");
  if (!scenario) return r.missing("/", "scenario", "object");
  if (auto e = readScenario(r, *scenario, "/scenario", s.scenario)) return e;

  const Json* cands = JsonReader::find(doc, "candidates");
  if (!cands) return r.missing("/", "candidates", "array");
  if (!cands->is_array()) {
    return r.error("/candidates", "candidates",
                   "expected an array, found " + JsonReader::describe(*cands));
  }
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < cands->size(); ++i) {
    Candidate c;
    const std::string p = child("/candidates", i);
    if (auto e = readCandidate(r, (*cands)[i], p, c)) return e;
    const auto [it, fresh] = seen.emplace(c.id, i);
    if (!fresh) {
      return r.error(child(p, "id"), "id",
                     "duplicate candidate id '" + c.id + "' (also /candidates/" +
                         std::to_string(it->second) + ")");
    }
    s.candidates.push_back(std::move(c));
  }

  if (const Json* runs = JsonReader::find(doc, "imported_runs")) {
    if (!runs->is_array()) {
      return r.error("/imported_runs", "imported_runs",
                     "expected an array, found " + JsonReader::describe(*runs));
    }
    for (std::size_t i = 0; i < runs->size(); ++i) {
      ImportedRun run;
      if (auto e = readRun(r, (*runs)[i], child("/imported_runs", i), run)) return e;
      s.importedRuns.push_back(std::move(run));
    }
  }
  if (const Json* ks = JsonReader::find(doc, "kernel_measurements")) {
    if (!ks->is_array()) {
      return r.error("/kernel_measurements", "kernel_measurements",
                     "expected an array, found " + JsonReader::describe(*ks));
    }
    for (std::size_t i = 0; i < ks->size(); ++i) {
      KernelMeasurement k;
      if (auto e = readKernel(r, (*ks)[i], child("/kernel_measurements", i), k)) return e;
      s.kernelMeasurements.push_back(std::move(k));
    }
  }
  if (const Json* view = JsonReader::find(doc, "view")) {
    if (auto e = readView(r, *view, "/view", s.view)) return e;
  }
  return std::nullopt;
}

/// Deepest nesting of arrays/objects in `text` outside strings; stops counting past `limit`.
std::optional<std::size_t> nestingBeyond(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        inString = false;
      }
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return i;
    } else if (c == ']' || c == '}') {
      if (depth > 0) --depth;
    }
  }
  return std::nullopt;
}

}  // namespace

Result<Session> parseSession(const Json& doc, const std::string& file) {
  Session s;
  JsonReader r(file, &s.loadNotes);
  if (!doc.is_object()) {
    return r.error("/", "", "a session is a JSON object; found " + JsonReader::describe(doc));
  }
  const Json* format = JsonReader::find(doc, "format");
  if (!format) {
    return r.error("/format", "format",
                   std::string("not a QuantFront session: the key 'format' (\"") + kSessionFormat +
                       "\") is missing");
  }
  if (!format->is_string() || format->get_ref<const std::string&>() != kSessionFormat) {
    const std::string found = format->is_string() ? "'" + format->get<std::string>() + "'"
                                                  : JsonReader::describe(*format);
    return r.error("/format", "format",
                   std::string("not a QuantFront session: expected \"") + kSessionFormat +
                       "\", found " + found);
  }
  std::int64_t version = 0;
  if (auto e = r.readInteger(version, doc, "/", "version", true, 1,
                             std::numeric_limits<std::int64_t>::max())) {
    return *e;
  }
  if (version > kSessionVersion) {
    return r.error("/version", "version",
                   "written by a newer QuantFront (version " + std::to_string(version) +
                       "); this build reads up to " + std::to_string(kSessionVersion));
  }
  s.loadedVersion = static_cast<int>(version);
  if (version == 1) {
    Json migrated = doc;
    if (auto e = migrateV1(r, migrated)) return *e;
    if (auto e = readV2(r, migrated, s)) return *e;
    return s;
  }
  if (auto e = readV2(r, doc, s)) return *e;
  return s;
}

Result<Json> parseSessionJson(std::string_view text, const std::string& file) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte-order mark
  if (const auto at = nestingBeyond(text, kMaxSessionJsonDepth)) {
    return Error{file, lineColumn(text, *at), "",
                 "JSON nested deeper than " + std::to_string(kMaxSessionJsonDepth) +
                     " levels; a session never is"};
  }
  return parseJson(text, file);
}

Result<Session> parseSessionText(std::string_view text, const std::string& file) {
  auto doc = parseSessionJson(text, file);
  if (!doc) return doc.error();
  return parseSession(*doc, file);
}

Result<Session> loadSession(const std::string& path, std::uint64_t maxBytes) {
  auto bytes = readFileBytes(path, maxBytes);
  if (!bytes) return bytes.error();
  return parseSessionText(*bytes, path);
}

}  // namespace qf
