#include <nlohmann/json.hpp>
#include <quantfront/core/session/session.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <set>
#include <sstream>

#include <quantfront/core/base/json_scanner.hpp>
#include <quantfront/core/base/kernels.hpp>
#include <quantfront/core/import/importers.hpp>
#include <quantfront/core/model/cost.hpp>
#include <quantfront/core/model/engine.hpp>

namespace qf {

namespace {

// ---------------------------------------------------------------------------------------
// Small helpers shared by the reader and the writer.

std::optional<ProvenanceKind> kindFromName(const std::string& s) {
  if (s == "modelled") return ProvenanceKind::Modelled;
  if (s == "measured") return ProvenanceKind::Measured;
  if (s == "published") return ProvenanceKind::Published;
  return std::nullopt;
}

std::string child(const std::string& parent, const std::string& key) {
  return childPointer(parent, key);
}

std::string child(const std::string& parent, std::size_t index) {
  return child(parent, std::to_string(index));
}

std::string describe(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return "a number";
    default:
      return "an unsupported value";
  }
}

bool isSha256Hex(const std::string& s) {
  if (s.size() != 64) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

/// ASCII case-insensitive equality (catalog ids are matched so).
bool sameIgnoringCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

constexpr std::string_view kNaNText = "NaN";
constexpr std::string_view kInfText = "Infinity";
constexpr std::string_view kNegInfText = "-Infinity";

// ---------------------------------------------------------------------------------------
// Reader: typed access that names file, JSON pointer and field in every error.

class Reader {
 public:
  Reader(std::string file, std::vector<std::string>& notes)
      : m_file(std::move(file)), m_notes(notes) {}

  [[nodiscard]] Error error(const std::string& pointer, const std::string& field,
                            const std::string& message) const {
    return Error{m_file, pointer.empty() ? std::string("/") : pointer, field, message};
  }

  /// Requires `j` to be an object; notes keys not in `known` (they are ignored).
  std::optional<Error> object(const Json& j, const std::string& pointer, const std::string& field,
                              std::initializer_list<const char*> known) {
    if (!j.is_object()) return error(pointer, field, "expected an object, found " + describe(j));
    for (auto it = j.begin(); it != j.end(); ++it) {
      const bool ok =
          std::any_of(known.begin(), known.end(), [&](const char* k) { return it.key() == k; });
      if (!ok) m_notes.push_back("ignored unknown key " + child(pointer, it.key()));
    }
    return std::nullopt;
  }

  /// The member `key` of object `obj`, or nullptr when absent or null.
  static const Json* find(const Json& obj, const std::string& key) {
    const auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return nullptr;
    return &*it;
  }

  std::optional<Error> missing(const std::string& pointer, const std::string& key,
                               const char* what) const {
    return error(child(pointer, key), key, std::string("required ") + what + " is missing");
  }

  std::optional<Error> string(const Json& obj, const std::string& pointer, const std::string& key,
                              std::string& out, bool required, bool allowEmpty = true) const {
    const Json* v = find(obj, key);
    if (!v) return required ? missing(pointer, key, "string") : std::nullopt;
    if (!v->is_string()) {
      return error(child(pointer, key), key, "expected a string, found " + describe(*v));
    }
    out = v->get<std::string>();
    if (!allowEmpty && out.empty()) return error(child(pointer, key), key, "must not be empty");
    return std::nullopt;
  }

  std::optional<Error> number(const Json& obj, const std::string& pointer, const std::string& key,
                              double& out, bool required) const {
    const Json* v = find(obj, key);
    if (!v) return required ? missing(pointer, key, "number") : std::nullopt;
    if (!v->is_number()) {
      return error(child(pointer, key), key, "expected a number, found " + describe(*v));
    }
    out = v->get<double>();
    if (!std::isfinite(out)) {
      return error(child(pointer, key), key, "expected a finite number, found NaN or infinity");
    }
    return std::nullopt;
  }

  std::optional<Error> optNumber(const Json& obj, const std::string& pointer,
                                 const std::string& key, std::optional<double>& out) const {
    if (!find(obj, key)) return std::nullopt;
    double v = 0;
    if (auto e = number(obj, pointer, key, v, true)) return e;
    out = v;
    return std::nullopt;
  }

  /// A number that may also be one of the strings "NaN", "Infinity", "-Infinity" (data read
  /// from other tools' files can hold them; JSON cannot).
  std::optional<Error> looseNumber(const Json& v, const std::string& pointer,
                                   const std::string& field, double& out) const {
    if (v.is_number()) {
      out = v.get<double>();
      return std::nullopt;
    }
    if (v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      if (s == kNaNText) {
        out = std::numeric_limits<double>::quiet_NaN();
        return std::nullopt;
      }
      if (s == kInfText) {
        out = std::numeric_limits<double>::infinity();
        return std::nullopt;
      }
      if (s == kNegInfText) {
        out = -std::numeric_limits<double>::infinity();
        return std::nullopt;
      }
      return error(
          pointer, field,
          "expected a number (or \"NaN\", \"Infinity\", \"-Infinity\"), found the string '" +
              s.substr(0, 40) + "'");
    }
    return error(pointer, field, "expected a number, found " + describe(v));
  }

  std::optional<Error> looseMember(const Json& obj, const std::string& pointer,
                                   const std::string& key, double& out, bool required) const {
    const Json* v = find(obj, key);
    if (!v) return required ? missing(pointer, key, "number") : std::nullopt;
    return looseNumber(*v, child(pointer, key), key, out);
  }

  std::optional<Error> integer(const Json& obj, const std::string& pointer, const std::string& key,
                               std::int64_t& out, bool required, std::int64_t lo,
                               std::int64_t hi) const {
    const Json* v = find(obj, key);
    if (!v) return required ? missing(pointer, key, "integer") : std::nullopt;
    const std::string p = child(pointer, key);
    std::optional<std::int64_t> got;
    if (v->is_number_unsigned()) {
      const auto u = v->get<std::uint64_t>();
      if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        got = static_cast<std::int64_t>(u);
      }
    } else if (v->is_number_integer()) {
      got = v->get<std::int64_t>();
    } else if (v->is_number_float()) {
      const double d = v->get<double>();
      if (std::isfinite(d) && std::floor(d) == d && std::abs(d) < 9.0e15) {
        got = static_cast<std::int64_t>(d);
      } else {
        return error(p, key, "expected an integer, found a non-integral number");
      }
    } else {
      return error(p, key, "expected an integer, found " + describe(*v));
    }
    if (!got || *got < lo || *got > hi) {
      return error(p, key,
                   "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    }
    out = *got;
    return std::nullopt;
  }

  std::optional<Error> boolean(const Json& obj, const std::string& pointer, const std::string& key,
                               bool& out) const {
    const Json* v = find(obj, key);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) {
      return error(child(pointer, key), key, "expected true or false, found " + describe(*v));
    }
    out = v->get<bool>();
    return std::nullopt;
  }

  std::optional<Error> stringList(const Json& obj, const std::string& pointer,
                                  const std::string& key, std::vector<std::string>& out,
                                  bool required, bool allowEmptyItems) const {
    const Json* v = find(obj, key);
    if (!v) return required ? missing(pointer, key, "array") : std::nullopt;
    const std::string p = child(pointer, key);
    if (!v->is_array()) return error(p, key, "expected an array of strings, found " + describe(*v));
    out.clear();
    for (std::size_t i = 0; i < v->size(); ++i) {
      const Json& item = (*v)[i];
      if (!item.is_string()) {
        return error(child(p, i), key, "expected a string, found " + describe(item));
      }
      if (!allowEmptyItems && item.get_ref<const std::string&>().empty()) {
        return error(child(p, i), key, "must not be empty");
      }
      out.push_back(item.get<std::string>());
    }
    return std::nullopt;
  }

  [[nodiscard]] const std::string& file() const { return m_file; }
  void note(std::string n) { m_notes.push_back(std::move(n)); }

 private:
  std::string m_file;
  std::vector<std::string>& m_notes;
};

constexpr std::int64_t kMaxTp = 1024;
constexpr std::int64_t kMaxTokens = 1ll << 40;
constexpr std::int64_t kMaxCount = std::numeric_limits<std::int64_t>::max();

// ---------------------------------------------------------------------------------------
// Version 2 reader.

std::optional<Error> readScenario(Reader& r, const Json& j, const std::string& p, ScenarioSpec& s) {
  if (auto e =
          r.object(j, p, "scenario",
                   {"model", "gpu", "gpu_spec", "tp", "schemes", "mixed", "kv_dtype",
                    "max_model_len", "mem_util", "reserve_gib", "context", "use_case", "batch"})) {
    return e;
  }
  if (auto e = r.string(j, p, "model", s.model, true, false)) return e;
  if (auto e = r.string(j, p, "gpu", s.gpu, true, false)) return e;
  s.gpuJson.clear();
  if (const Json* g = Reader::find(j, "gpu_spec")) {
    auto doc = canonicalGpuJson(*g, s.gpu, r.file(), child(p, "gpu_spec"));
    if (!doc) return doc.error();
    s.gpuJson = std::move(*doc);
  }
  std::int64_t tp = 1;
  if (auto e = r.integer(j, p, "tp", tp, true, 1, kMaxTp)) return e;
  s.tp = static_cast<int>(tp);
  if (auto e = r.stringList(j, p, "schemes", s.schemes, true, false)) return e;
  s.mixedLinear.clear();
  s.mixedMoe.clear();
  s.mixedLmHead.clear();
  if (const Json* m = Reader::find(j, "mixed")) {
    const std::string mp = child(p, "mixed");
    if (auto e = r.object(*m, mp, "mixed", {"linear", "moe", "lm_head"})) return e;
    if (auto e = r.string(*m, mp, "linear", s.mixedLinear, true, false)) return e;
    if (auto e = r.string(*m, mp, "moe", s.mixedMoe, false, false)) return e;
    if (auto e = r.string(*m, mp, "lm_head", s.mixedLmHead, false, false)) return e;
  }
  if (auto e = r.string(j, p, "kv_dtype", s.kvDtype, true, false)) return e;
  if (kvBytesForDtype(s.kvDtype) == 0) {
    return r.error(
        child(p, "kv_dtype"), "kv_dtype",
        "expected bf16, fp16, auto, fp8, fp8_e4m3 or fp8_e5m2, found '" + s.kvDtype + "'");
  }
  if (auto e = r.integer(j, p, "max_model_len", s.maxModelLen, true, 1, kMaxTokens)) return e;
  if (auto e = r.number(j, p, "mem_util", s.memUtil, true)) return e;
  if (!(s.memUtil > 0 && s.memUtil <= 1)) {
    return r.error(child(p, "mem_util"), "mem_util", "must be in (0, 1]");
  }
  if (auto e = r.number(j, p, "reserve_gib", s.reserveGib, true)) return e;
  if (s.reserveGib < 0) return r.error(child(p, "reserve_gib"), "reserve_gib", "must be >= 0");
  if (auto e = r.integer(j, p, "context", s.contextTokens, true, 0, kMaxTokens)) return e;
  s.useCase.clear();
  if (auto e = r.string(j, p, "use_case", s.useCase, false)) return e;
  const Json* b = Reader::find(j, "batch");
  if (!b) return r.missing(p, "batch", "object");
  const std::string bp = child(p, "batch");
  if (auto e = r.object(*b, bp, "batch", {"min", "max"})) return e;
  if (auto e = r.number(*b, bp, "min", s.batchMin, true)) return e;
  if (auto e = r.number(*b, bp, "max", s.batchMax, true)) return e;
  if (s.batchMin < 1) return r.error(child(bp, "min"), "min", "batch sizes start at 1");
  if (s.batchMax < s.batchMin) {
    return r.error(child(bp, "max"), "max", "must be at least the batch minimum");
  }
  return std::nullopt;
}

std::optional<Error> readProvenance(Reader& r, const Json& j, const std::string& p,
                                    Provenance& out) {
  if (auto e =
          r.object(j, p, "provenance", {"kind", "source_file", "sha256", "citation", "note"})) {
    return e;
  }
  std::string kind;
  if (auto e = r.string(j, p, "kind", kind, true)) return e;
  const auto k = kindFromName(kind);
  if (!k) {
    return r.error(child(p, "kind"), "kind",
                   "expected modelled, measured or published, found '" + kind + "'");
  }
  out.kind = *k;
  if (auto e = r.string(j, p, "source_file", out.sourceFile, false)) return e;
  if (auto e = r.string(j, p, "sha256", out.sha256, false)) return e;
  if (auto e = r.string(j, p, "citation", out.citation, false)) return e;
  if (auto e = r.string(j, p, "note", out.note, false)) return e;
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

std::optional<Error> readMetric(Reader& r, const Json& j, const std::string& p,
                                const std::string& name, MetricValue& m) {
  if (!j.is_object()) {
    return r.error(p, name,
                   "expected an object {\"value\", \"provenance\", ...}, found " + describe(j));
  }
  if (auto e = r.object(j, p, name, {"value", "lo", "hi", "n", "provenance"})) return e;
  if (auto e = r.number(j, p, "value", m.value, true)) return e;
  if (auto e = r.optNumber(j, p, "lo", m.lo)) return e;
  if (auto e = r.optNumber(j, p, "hi", m.hi)) return e;
  if (auto e = r.optNumber(j, p, "n", m.n)) return e;
  if (m.lo && m.hi && *m.lo > *m.hi) {
    return r.error(child(p, "hi"), "hi", "interval upper bound is below its lower bound");
  }
  if (m.n && *m.n < 0) return r.error(child(p, "n"), "n", "sample count must not be negative");
  const Json* prov = Reader::find(j, "provenance");
  if (!prov) return r.missing(p, "provenance", "object");
  return readProvenance(r, *prov, child(p, "provenance"), m.provenance);
}

std::optional<Error> readCandidate(Reader& r, const Json& j, const std::string& p, Candidate& c) {
  if (auto e =
          r.object(j, p, "candidates",
                   {"id", "model", "schemes", "gpu", "gpu_count", "engine", "metrics", "notes"})) {
    return e;
  }
  if (auto e = r.string(j, p, "id", c.id, true, false)) return e;
  if (auto e = r.string(j, p, "model", c.model, true, false)) return e;
  const Json* sc = Reader::find(j, "schemes");
  if (!sc) return r.missing(p, "schemes", "object");
  const std::string sp = child(p, "schemes");
  if (auto e = r.object(*sc, sp, "schemes", {"linear", "moe", "lm_head"})) return e;
  if (auto e = r.string(*sc, sp, "linear", c.schemeLinear, true, false)) return e;
  if (auto e = r.string(*sc, sp, "moe", c.schemeMoe, false, false)) return e;
  if (auto e = r.string(*sc, sp, "lm_head", c.schemeLmHead, false, false)) return e;
  if (auto e = r.string(j, p, "gpu", c.gpu, true, false)) return e;
  std::int64_t count = 1;
  if (auto e = r.integer(j, p, "gpu_count", count, true, 1, kMaxTp)) return e;
  c.gpuCount = static_cast<int>(count);
  if (auto e = r.string(j, p, "engine", c.engine, false)) return e;
  if (auto e = r.string(j, p, "notes", c.notes, false)) return e;
  const Json* metrics = Reader::find(j, "metrics");
  if (!metrics) return r.missing(p, "metrics", "object");
  const std::string mp = child(p, "metrics");
  if (!metrics->is_object()) {
    return r.error(mp, "metrics",
                   "expected an object of named metrics, found " + describe(*metrics));
  }
  for (auto it = metrics->begin(); it != metrics->end(); ++it) {
    if (it.key().empty()) return r.error(child(mp, ""), "metrics", "metric name must not be empty");
    MetricValue m;
    if (auto e = readMetric(r, it.value(), child(mp, it.key()), it.key(), m)) return e;
    c.metrics.emplace(it.key(), std::move(m));
  }
  return std::nullopt;
}

std::optional<Error> readRequest(Reader& r, const Json& j, const std::string& p, RequestRecord& q) {
  if (auto e = r.object(j, p, "requests",
                        {"ttft_s", "latency_s", "itls_s", "input_len", "output_len", "success"})) {
    return e;
  }
  if (auto e = r.looseMember(j, p, "ttft_s", q.ttftS, false)) return e;
  if (auto e = r.looseMember(j, p, "latency_s", q.latencyS, false)) return e;
  if (auto e = r.integer(j, p, "input_len", q.inputLen, false, 0, kMaxCount)) return e;
  if (auto e = r.integer(j, p, "output_len", q.outputLen, false, 0, kMaxCount)) return e;
  if (auto e = r.boolean(j, p, "success", q.success)) return e;
  if (const Json* itls = Reader::find(j, "itls_s")) {
    const std::string ip = child(p, "itls_s");
    if (!itls->is_array())
      return r.error(ip, "itls_s", "expected an array, found " + describe(*itls));
    q.itlsS.reserve(itls->size());
    for (std::size_t i = 0; i < itls->size(); ++i) {
      double v = 0;
      if (auto e = r.looseNumber((*itls)[i], child(ip, i), "itls_s", v)) return e;
      q.itlsS.push_back(v);
    }
  }
  return std::nullopt;
}

/// The columnar per-request records (`request_arrays`): every column has `count` entries,
/// the gaps of all requests lie in one `itls_s` array split by `itl_count`.
std::optional<Error> readRequestArrays(Reader& r, const Json& j, const std::string& p,
                                       std::vector<RequestRecord>& out) {
  static const char* const kColumns[] = {"ttft_s",  "latency_s", "input_len", "output_len",
                                         "success", "itl_count", "itls_s"};
  if (auto e = r.object(j, p, "request_arrays",
                        {"count", "ttft_s", "latency_s", "input_len", "output_len", "success",
                         "itl_count", "itls_s"})) {
    return e;
  }
  std::int64_t count = 0;
  if (auto e = r.integer(j, p, "count", count, true, 0, kMaxCount)) return e;
  const auto n = static_cast<std::size_t>(count);
  std::vector<const Json*> col(std::size(kColumns), nullptr);
  for (std::size_t c = 0; c < std::size(kColumns); ++c) {
    const Json* v = Reader::find(j, kColumns[c]);
    const std::string cp = child(p, kColumns[c]);
    if (!v) return r.missing(p, kColumns[c], "array");
    if (!v->is_array()) return r.error(cp, kColumns[c], "expected an array, found " + describe(*v));
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
    return r.error(
        ptr, field,
        "expected an integer from 0 to " + std::to_string(hi) + ", found " + describe(v));
  };
  std::size_t gaps = 0;
  for (std::size_t i = 0; i < n; ++i) {
    RequestRecord& q = out[i];
    if (auto e = r.looseNumber((*col[0])[i], child(child(p, "ttft_s"), i), "ttft_s", q.ttftS)) {
      return e;
    }
    if (auto e =
            r.looseNumber((*col[1])[i], child(child(p, "latency_s"), i), "latency_s", q.latencyS)) {
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
      if (auto e = r.looseNumber((*col[6])[gaps], child(child(p, "itls_s"), gaps), "itls_s",
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

std::optional<Error> readRun(Reader& r, const Json& j, const std::string& p, ImportedRun& run) {
  if (auto e = r.object(j, p, "imported_runs",
                        {"format", "source_file", "sha256", "label", "setup", "metrics", "requests",
                         "request_arrays", "decode_step_by_batch", "warnings"})) {
    return e;
  }
  if (auto e = r.string(j, p, "format", run.format, true, false)) return e;
  run.kind = runKindOfFormat(run.format);  // the file keeps the name; the kind is the format's
  if (auto e = r.string(j, p, "source_file", run.sourceFile, true, false)) return e;
  if (auto e = r.string(j, p, "sha256", run.sha256, true)) return e;
  if (!run.sha256.empty() && !isSha256Hex(run.sha256)) {
    return r.error(child(p, "sha256"), "sha256", "expected 64 lower-case hex digits or \"\"");
  }
  if (auto e = r.string(j, p, "label", run.label, false)) return e;
  if (const Json* setup = Reader::find(j, "setup")) {
    const std::string sp = child(p, "setup");
    if (!setup->is_object())
      return r.error(sp, "setup", "expected an object, found " + describe(*setup));
    for (auto it = setup->begin(); it != setup->end(); ++it) {
      if (!it->is_string()) {
        return r.error(child(sp, it.key()), it.key(),
                       "expected a string, found " + describe(it.value()));
      }
      run.setup.emplace(it.key(), it->get<std::string>());
    }
  }
  const Json* metrics = Reader::find(j, "metrics");
  if (!metrics) return r.missing(p, "metrics", "object");
  const std::string mp = child(p, "metrics");
  if (!metrics->is_object()) {
    return r.error(mp, "metrics",
                   "expected an object of named numbers, found " + describe(*metrics));
  }
  for (auto it = metrics->begin(); it != metrics->end(); ++it) {
    double v = 0;
    if (auto e = r.looseNumber(it.value(), child(mp, it.key()), it.key(), v)) return e;
    run.metrics.emplace(it.key(), v);
  }
  if (const Json* reqs = Reader::find(j, "requests")) {
    const std::string rp = child(p, "requests");
    if (!reqs->is_array())
      return r.error(rp, "requests", "expected an array, found " + describe(*reqs));
    run.requests.reserve(reqs->size());
    for (std::size_t i = 0; i < reqs->size(); ++i) {
      RequestRecord q;
      if (auto e = readRequest(r, (*reqs)[i], child(rp, i), q)) return e;
      run.requests.push_back(std::move(q));
    }
  }
  if (const Json* cols = Reader::find(j, "request_arrays")) {
    if (!run.requests.empty()) {
      return r.error(child(p, "request_arrays"), "request_arrays",
                     "the run also has 'requests'; a run holds its requests in one of the two");
    }
    if (auto e = readRequestArrays(r, *cols, child(p, "request_arrays"), run.requests)) return e;
  }
  if (const Json* steps = Reader::find(j, "decode_step_by_batch")) {
    const std::string dp = child(p, "decode_step_by_batch");
    if (!steps->is_array()) {
      return r.error(dp, "decode_step_by_batch", "expected an array, found " + describe(*steps));
    }
    for (std::size_t i = 0; i < steps->size(); ++i) {
      const Json& pair = (*steps)[i];
      const std::string pp = child(dp, i);
      if (!pair.is_array() || pair.size() != 2) {
        return r.error(pp, "decode_step_by_batch", "expected a pair [batch, step_s]");
      }
      double b = 0, t = 0;
      if (auto e = r.looseNumber(pair[0], child(pp, 0), "decode_step_by_batch", b)) return e;
      if (auto e = r.looseNumber(pair[1], child(pp, 1), "decode_step_by_batch", t)) return e;
      run.decodeStepByBatch.emplace_back(b, t);
    }
  }
  if (auto e = r.stringList(j, p, "warnings", run.warnings, false, true)) return e;
  return std::nullopt;
}

std::optional<Error> readKernel(Reader& r, const Json& j, const std::string& p,
                                KernelMeasurement& k) {
  if (auto e =
          r.object(j, p, "kernel_measurements",
                   {"kernel", "scheme", "device", "m", "n", "k", "median_s", "min_s", "rel_noise",
                    "samples", "bytes_moved", "flops", "source_file", "energy_j", "avg_power_w"})) {
    return e;
  }
  if (auto e = r.string(j, p, "kernel", k.kernel, true)) return e;
  if (auto e = r.string(j, p, "scheme", k.scheme, false)) return e;
  if (auto e = r.string(j, p, "device", k.device, true)) return e;
  if (auto e = r.integer(j, p, "m", k.m, false, 0, kMaxCount)) return e;
  if (auto e = r.integer(j, p, "n", k.n, false, 0, kMaxCount)) return e;
  if (auto e = r.integer(j, p, "k", k.k, false, 0, kMaxCount)) return e;
  // A timing must be a finite time > 0 (min_s 0: not recorded); noise, bytes and FLOPs finite
  // and >= 0. A NaN would compare equal to everything and corrupt every fit and merge it
  // meets, so it is refused here, with the record's position.
  auto timing = [&](const char* key, double& out, bool required, bool zeroAllowed) {
    auto e = r.looseMember(j, p, key, out, required);
    if (!e && !(std::isfinite(out) && (out > 0 || (zeroAllowed && out == 0)))) {
      e = r.error(child(p, key), key,
                  std::string("expected a finite time in seconds ") +
                      (zeroAllowed ? ">= 0" : "> 0") + ", found " + formatNumber(out));
    }
    return e;
  };
  auto amount = [&](const char* key, double& out) {
    auto e = r.looseMember(j, p, key, out, false);
    if (!e && !(std::isfinite(out) && out >= 0)) {
      e = r.error(child(p, key), key, "expected a finite number >= 0, found " + formatNumber(out));
    }
    return e;
  };
  if (auto e = timing("median_s", k.medianS, true, false)) return e;
  if (auto e = timing("min_s", k.minS, false, true)) return e;
  if (auto e = amount("rel_noise", k.relNoise)) return e;
  if (auto e = r.integer(j, p, "samples", k.samples, false, 0, kMaxCount)) return e;
  if (auto e = amount("bytes_moved", k.bytesMoved)) return e;
  if (auto e = amount("flops", k.flops)) return e;
  if (auto e = r.string(j, p, "source_file", k.sourceFile, false)) return e;
  k.kind = kernelKindOf(k.kernel, k.scheme);  // the vocabulary's names; any other: Other
  if (auto e = r.looseMember(j, p, "energy_j", k.energyJ, false)) return e;
  if (auto e = r.looseMember(j, p, "avg_power_w", k.avgPowerW, false)) return e;
  return std::nullopt;
}

std::optional<Error> readView(Reader& r, const Json& j, const std::string& p, ViewState& v) {
  if (auto e = r.object(j, p, "view", {"objectives", "gates", "axes", "hidden", "tab"})) return e;
  if (const Json* objs = Reader::find(j, "objectives")) {
    const std::string op = child(p, "objectives");
    if (!objs->is_array())
      return r.error(op, "objectives", "expected an array, found " + describe(*objs));
    for (std::size_t i = 0; i < objs->size(); ++i) {
      const std::string ip = child(op, i);
      const Json& o = (*objs)[i];
      if (auto e = r.object(o, ip, "objectives", {"metric", "orientation"})) return e;
      Objective obj;
      if (auto e = r.string(o, ip, "metric", obj.metric, true, false)) return e;
      std::string orient;
      if (auto e = r.string(o, ip, "orientation", orient, true)) return e;
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
  if (auto e = r.stringList(j, p, "gates", v.gates, false, false)) return e;
  for (std::size_t i = 0; i < v.gates.size(); ++i) {
    auto g = parseGate(v.gates[i], "gates");
    if (!g) return r.error(child(child(p, "gates"), i), "gates", g.error().message);
  }
  if (const Json* axes = Reader::find(j, "axes")) {
    const std::string ap = child(p, "axes");
    if (auto e = r.object(*axes, ap, "axes", {"x", "y", "color"})) return e;
    if (auto e = r.string(*axes, ap, "x", v.axes.x, false)) return e;
    if (auto e = r.string(*axes, ap, "y", v.axes.y, false)) return e;
    if (auto e = r.string(*axes, ap, "color", v.axes.color, false)) return e;
  }
  if (auto e = r.stringList(j, p, "hidden", v.hidden, false, false)) return e;
  if (auto e = r.string(j, p, "tab", v.tab, false, false)) return e;
  return std::nullopt;
}

/// Reads a version-2 document (format and version already checked).
std::optional<Error> readV2(Reader& r, const Json& doc, Session& s) {
  if (auto e = r.object(doc, "/", "",
                        {"format", "version", "title", "notes", "scenario", "candidates",
                         "imported_runs", "kernel_measurements", "view"})) {
    return e;
  }
  if (auto e = r.string(doc, "/", "title", s.title, false)) return e;
  if (auto e = r.string(doc, "/", "notes", s.notes, false)) return e;
  const Json* scenario = Reader::find(doc, "scenario");
  if (!scenario) return r.missing("/", "scenario", "object");
  if (auto e = readScenario(r, *scenario, "/scenario", s.scenario)) return e;

  const Json* cands = Reader::find(doc, "candidates");
  if (!cands) return r.missing("/", "candidates", "array");
  if (!cands->is_array()) {
    return r.error("/candidates", "candidates", "expected an array, found " + describe(*cands));
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

  if (const Json* runs = Reader::find(doc, "imported_runs")) {
    if (!runs->is_array()) {
      return r.error("/imported_runs", "imported_runs",
                     "expected an array, found " + describe(*runs));
    }
    for (std::size_t i = 0; i < runs->size(); ++i) {
      ImportedRun run;
      if (auto e = readRun(r, (*runs)[i], child("/imported_runs", i), run)) return e;
      s.importedRuns.push_back(std::move(run));
    }
  }
  if (const Json* ks = Reader::find(doc, "kernel_measurements")) {
    if (!ks->is_array()) {
      return r.error("/kernel_measurements", "kernel_measurements",
                     "expected an array, found " + describe(*ks));
    }
    for (std::size_t i = 0; i < ks->size(); ++i) {
      KernelMeasurement k;
      if (auto e = readKernel(r, (*ks)[i], child("/kernel_measurements", i), k)) return e;
      s.kernelMeasurements.push_back(std::move(k));
    }
  }
  if (const Json* view = Reader::find(doc, "view")) {
    if (auto e = readView(r, *view, "/view", s.view)) return e;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------
// Version 1 → 2 migration, on the JSON document. Pointers in errors are the version-1
// file's own, so a user can find the field.

std::optional<Error> migrateV1(Reader& r, Json& doc) {
  if (!doc.is_object()) return r.error("/", "", "expected an object, found " + describe(doc));
  std::size_t metricsMoved = 0;
  std::size_t runsWithoutDigest = 0;
  if (auto it = doc.find("scenario"); it != doc.end() && it->is_object()) {
    Json& sc = *it;
    if (sc.contains("batch")) {
      return r.error("/scenario/batch", "batch",
                     "version-1 sessions hold batch_min and batch_max, not batch");
    }
    Json batch = Json::object();
    double lo = 1, hi = 1024;
    if (auto e = r.number(sc, "/scenario", "batch_min", lo, true)) return e;
    if (auto e = r.number(sc, "/scenario", "batch_max", hi, true)) return e;
    batch["min"] = lo;
    batch["max"] = hi;
    sc.erase("batch_min");
    sc.erase("batch_max");
    sc["batch"] = batch;
  }
  if (auto it = doc.find("candidates"); it != doc.end() && it->is_array()) {
    for (std::size_t i = 0; i < it->size(); ++i) {
      Json& c = (*it)[i];
      const std::string p = child("/candidates", i);
      if (!c.is_object())
        return r.error(p, "candidates", "expected an object, found " + describe(c));
      std::string scheme, provenance, source;
      if (auto e = r.string(c, p, "scheme", scheme, true, false)) return e;
      if (auto e = r.string(c, p, "provenance", provenance, true)) return e;
      if (auto e = r.string(c, p, "source", source, false)) return e;
      const auto kind = kindFromName(provenance);
      if (!kind) {
        return r.error(child(p, "provenance"), "provenance",
                       "expected modelled, measured or published, found '" + provenance + "'");
      }
      if (*kind != ProvenanceKind::Modelled && source.empty()) {
        return r.error(child(p, "source"), "source",
                       "a version-1 candidate with " + provenance +
                           " figures must name its source (file or citation)");
      }
      Json prov = {{"kind", provenance}};
      if (*kind == ProvenanceKind::Measured) prov["source_file"] = source;
      if (*kind == ProvenanceKind::Published) prov["citation"] = source;
      if (*kind == ProvenanceKind::Modelled && !source.empty()) prov["note"] = source;
      auto mit = c.find("metrics");
      if (mit == c.end() || mit->is_null()) return r.missing(p, "metrics", "object");
      if (!mit->is_object()) {
        return r.error(child(p, "metrics"), "metrics",
                       "expected an object of named numbers, found " + describe(*mit));
      }
      for (auto m = mit->begin(); m != mit->end(); ++m) {
        const std::string mp = child(child(p, "metrics"), m.key());
        if (!m->is_number()) {
          return r.error(mp, m.key(), "expected a number, found " + describe(m.value()));
        }
        const double v = m->get<double>();
        if (!std::isfinite(v)) return r.error(mp, m.key(), "expected a finite number");
        m.value() = Json{{"value", v}, {"provenance", prov}};
        ++metricsMoved;
      }
      c.erase("scheme");
      c.erase("provenance");
      c.erase("source");
      c["schemes"] = Json{{"linear", scheme}};
    }
  }
  if (auto it = doc.find("imported_runs"); it != doc.end() && it->is_array()) {
    for (auto& run : *it) {
      if (run.is_object() && !run.contains("sha256")) {
        run["sha256"] = "";
        ++runsWithoutDigest;
      }
    }
  }
  if (auto it = doc.find("view"); it != doc.end() && it->is_object()) {
    Json& v = *it;
    if (auto o = v.find("objectives"); o != v.end() && o->is_array()) {
      for (std::size_t i = 0; i < o->size(); ++i) {
        Json& item = (*o)[i];
        const std::string p = child("/view/objectives", i);
        if (!item.is_string()) {
          return r.error(p, "objectives",
                         "expected \"metric:max\" or \"metric:min\", found " + describe(item));
        }
        const std::string text = item.get<std::string>();
        const auto colon = text.rfind(':');
        if (colon == std::string::npos || colon == 0) {
          return r.error(p, "objectives",
                         "expected \"metric:max\" or \"metric:min\", found '" + text + "'");
        }
        item = Json{{"metric", text.substr(0, colon)}, {"orientation", text.substr(colon + 1)}};
      }
    }
    Json axes = Json::object();
    for (const char* key : {"x", "y"}) {
      if (auto a = v.find(key); a != v.end()) {
        axes[key] = *a;
        v.erase(key);
      }
    }
    if (!axes.empty()) v["axes"] = axes;
  }
  doc["version"] = kSessionVersion;
  std::ostringstream note;
  note << "migrated from session version 1 to " << kSessionVersion
       << ": each candidate's single 'scheme' became 'schemes' per layer kind; " << metricsMoved
       << " bare metric numbers took their candidate's provenance and source; the view's "
          "objectives and axes took the version-2 shape; saving writes version "
       << kSessionVersion;
  r.note(note.str());
  if (runsWithoutDigest > 0) {
    r.note(std::to_string(runsWithoutDigest) +
           " imported runs have no SHA-256 (version 1 did not record one): importing their "
           "files again adds them anew");
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------
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
  if (!s.gpuJson.empty()) j["gpu_spec"] = J::parse(s.gpuJson);
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
  j["mem_util"] = s.memUtil;
  j["reserve_gib"] = s.reserveGib;
  j["context"] = s.contextTokens;
  j["use_case"] = s.useCase;
  J batch = J::object();
  batch["min"] = s.batchMin;
  batch["max"] = s.batchMax;
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

// ---------------------------------------------------------------------------------------

Result<Session> parseSession(const Json& doc, const std::string& file) {
  Session s;
  Reader r(file, s.loadNotes);
  if (!doc.is_object()) {
    return r.error("/", "", "a session is a JSON object; found " + describe(doc));
  }
  const Json* format = Reader::find(doc, "format");
  if (!format) {
    return r.error("/format", "format",
                   std::string("not a QuantFront session: the key 'format' (\"") + kSessionFormat +
                       "\") is missing");
  }
  if (!format->is_string() || format->get_ref<const std::string&>() != kSessionFormat) {
    const std::string found =
        format->is_string() ? "'" + format->get<std::string>() + "'" : describe(*format);
    return r.error("/format", "format",
                   std::string("not a QuantFront session: expected \"") + kSessionFormat +
                       "\", found " + found);
  }
  std::int64_t version = 0;
  if (auto e = r.integer(doc, "/", "version", version, true, 1,
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

std::optional<Error> validateSession(const Session& s, const std::string& file) {
  auto back = parseSessionText(sessionToText(s), file);
  if (!back) return back.error();
  return std::nullopt;
}

MergeResult mergeImport(Session& s, const ImportReport& report) {
  MergeResult result;
  // Digests already in the session before this report: several runs of one file share one.
  std::map<std::string, std::string> known;
  for (const auto& r : s.importedRuns) {
    if (!r.sha256.empty()) known.emplace(r.sha256, r.sourceFile);
  }
  for (const auto& incoming : report.runs) {
    ImportedRun run = incoming;
    if (run.sha256.empty()) run.sha256 = report.sha256;
    if (run.sourceFile.empty()) run.sourceFile = report.file;
    if (run.format.empty()) run.format = report.format;
    if (run.kind == RunKind::Unknown) run.kind = runKindOfFormat(run.format);
    if (const auto it = known.find(run.sha256); !run.sha256.empty() && it != known.end()) {
      result.duplicate = true;
      result.duplicateOf = it->second;
      continue;
    }
    s.importedRuns.push_back(std::move(run));
    ++result.runsAdded;
  }
  // The file's kernel measurements come with its runs (a duplicate file adds neither).
  if (result.runsAdded > 0) {
    for (auto k : report.kernelMeasurements) {
      if (k.sourceFile.empty()) k.sourceFile = report.file;
      s.kernelMeasurements.push_back(std::move(k));
      ++result.measurementsAdded;
    }
  }
  return result;
}

std::string useCaseMetricStem(const std::string& id) {
  std::string out = id;
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

std::vector<std::string> modelledMetricNames() {
  std::vector<std::string> names = {"memory_floor_ms", "step_ms_b1",
                                    "step_ms_b64",     "weights_gib",
                                    "max_concurrency", "tokens_per_s_at_capacity"};
  if (const auto useCases = bundledUseCases()) {
    for (const auto& u : *useCases) {
      const std::string stem = useCaseMetricStem(u.id);
      names.push_back("latency_" + stem + "_sync_s");
      names.push_back("queries_per_usd_" + stem);
      names.push_back("cost_reduction_pct_" + stem);
    }
  }
  return names;
}

Result<std::map<std::string, MetricValue>> modelledMetrics(const Candidate& c,
                                                           const ScenarioSpec& scenario,
                                                           const Catalog& cat) {
  auto wrap = [&](const Error& e) {
    return Error{e.file, "candidate '" + c.id + "'", e.field, e.message};
  };
  ScenarioSpec spec = scenario;
  spec.model = c.model;
  spec.gpu = c.gpu;
  // The scenario's edited GPU is the GPU it was edited from: it applies to the candidates on
  // that GPU only (ids compared as the catalog does, ignoring case).
  const bool editedGpu = !spec.gpuJson.empty() && sameIgnoringCase(c.gpu, scenario.gpu);
  if (!editedGpu) spec.gpuJson.clear();
  spec.tp = c.gpuCount;
  auto s = resolveScenario(spec, cat);
  if (!s) return wrap(s.error());
  auto cands = makeCandidates({}, c.schemeLinear, c.schemeMoe, c.schemeLmHead, cat);
  if (!cands) return wrap(cands.error());
  auto rep = runEngine(*s, *cands, {1.0, 64.0});
  if (!rep) return wrap(rep.error());
  auto useCases = bundledUseCases();
  if (!useCases) return wrap(useCases.error());
  const SchemeReport& sr = rep->schemes.front();
  std::ostringstream note;
  note << "analytic engine: " << c.model << " on " << c.gpuCount << " x " << c.gpu
       << (editedGpu ? " (edited: " + s->gpu.name + ")" : std::string()) << " (TP " << c.gpuCount
       << "), scheme " << sr.assignment.id << " (" << sr.pathName << " path); max_model_len "
       << spec.maxModelLen << ", kv " << spec.kvDtype << ", mem_util " << spec.memUtil
       << ", reserve " << spec.reserveGib << " GiB, context " << spec.contextTokens
       << "; constants: " << s->efficiency.source;
  auto make = [&](double v, const std::string& more = {}) {
    MetricValue m;
    m.value = v;
    m.provenance.kind = ProvenanceKind::Modelled;
    m.provenance.note = note.str() + more;
    return m;
  };
  std::map<std::string, MetricValue> out;
  out.emplace("memory_floor_ms", make(sr.memoryFloorMs));
  out.emplace("step_ms_b1", make(sr.points[0].stepMs));
  out.emplace("step_ms_b64", make(sr.points[1].stepMs));
  out.emplace("weights_gib", make(sr.capacity.weightsGib));
  out.emplace("max_concurrency", make(static_cast<double>(sr.capacity.maxSeqs)));
  out.emplace("tokens_per_s_at_capacity", make(sr.capacity.tokensPerSAtCapacity));

  // Per use case: one request served alone (batch 1), its synchronous queries per USD and the
  // cost per query saved against the same model's bf16 on the same GPUs (modelled here, so no
  // bf16 candidate is needed in the session). Unpriced GPUs get no USD figures.
  const auto price = deploymentPricePerHour(s->gpu, s->tp);
  const bool priced = price && *price > 0;
  const SchemeAssignment& own = sr.assignment;
  const bool isBf16 = !own.mixed() && own.linear.id == "bf16";
  std::optional<StepCurve> bf16Curve;
  if (priced && !isBf16) {
    auto base = makeCandidates({"bf16"}, "", "", "", cat);
    if (!base) return wrap(base.error());
    auto curve = buildStepCurve(*s, rep->params, base->front());
    if (!curve) return wrap(curve.error());
    bf16Curve = std::move(*curve);
  }
  for (const UseCase& u : *useCases) {
    const std::string stem = useCaseMetricStem(u.id);
    const RequestLatency lat =
        estimateRequestLatency(sr.curve, u.prefillTokens, u.decodeTokens, 1.0);
    std::ostringstream shape;
    shape << "; use case " << u.id << ": " << u.prefillTokens << " prompt + " << u.decodeTokens
          << " output tokens, batch 1 (one request served alone)";
    out.emplace("latency_" + stem + "_sync_s", make(lat.totalS, shape.str()));
    if (!priced || !(lat.totalS > 0)) continue;
    std::ostringstream usd;
    usd << shape.str() << "; price " << *s->gpu.pricePerGpuHourUsd << " USD/h x " << s->tp
        << (s->tp == 1 ? " GPU" : " GPUs") << " = " << *price
        << " USD/h; queries per USD = 3600 / (modelled latency " << lat.totalS << " s x price)";
    const double queries = queriesPerUsdSync(lat.totalS, *price);
    out.emplace("queries_per_usd_" + stem, make(queries, usd.str()));
    double pct = 0;  // a bf16 candidate is its own baseline
    std::ostringstream base;
    base << usd.str() << "; baseline: " << c.model << " bf16 on the same GPUs";
    if (bf16Curve) {
      const RequestLatency baseLat =
          estimateRequestLatency(*bf16Curve, u.prefillTokens, u.decodeTokens, 1.0);
      const double baseQueries = queriesPerUsdSync(baseLat.totalS, *price);
      pct = 100.0 * (1.0 - costPerQueryUsd(queries) / costPerQueryUsd(baseQueries));
      base << ", modelled alike (latency " << baseLat.totalS << " s)";
    } else {
      base << " (this candidate)";
    }
    out.emplace("cost_reduction_pct_" + stem, make(pct, base.str()));
  }

  // A published or measured figure of the same name is kept: the modelled one is left out.
  std::erase_if(out, [&](const auto& kv) {
    const auto it = c.metrics.find(kv.first);
    return it != c.metrics.end() && it->second.provenance.kind != ProvenanceKind::Modelled;
  });
  return out;
}

std::optional<Error> refreshModelledMetrics(Session& s, const Catalog& cat) {
  for (std::size_t i = 0; i < s.candidates.size(); ++i) {
    Candidate& c = s.candidates[i];
    auto m = modelledMetrics(c, s.scenario, cat);
    if (!m) {
      Error e = m.error();
      e.position = "/candidates/" + std::to_string(i) + " (" + e.position + ")";
      return e;
    }
    std::erase_if(c.metrics, [](const auto& kv) {
      return kv.second.provenance.kind == ProvenanceKind::Modelled;
    });
    for (auto& [name, v] : *m) c.metrics[name] = std::move(v);
  }
  return std::nullopt;
}

}  // namespace qf
