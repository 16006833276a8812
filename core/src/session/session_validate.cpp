// Whether a session would load back as it is: what the reader (session_read.cpp) refuses,
// checked on the Session itself, in the reader's order, naming the position and the field
// the reader would name in the saved file.
#include <nlohmann/json.hpp>
#include <quantfront/core/session/session.hpp>

#include <cmath>
#include <map>

#include <quantfront/core/base/json_scanner.hpp>
#include <quantfront/core/model/speculation.hpp>

#include "session/session_support.hpp"

namespace qf {

using namespace sessionfile;

namespace {

/// Errors at a pointer of the saved file; the caller names the file.
Error at(const std::string& pointer, const std::string& field, const std::string& message) {
  return Error{"", pointer, field, message};
}

/// A string the reader requires to be non-empty.
std::optional<Error> nonEmpty(const std::string& value, const std::string& parent,
                              const std::string& key) {
  if (!value.empty()) return std::nullopt;
  return at(child(parent, key), key, "must not be empty");
}

/// Items of a string list the reader requires to be non-empty.
std::optional<Error> nonEmptyItems(const std::vector<std::string>& items, const std::string& parent,
                                   const std::string& key) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].empty()) return at(child(child(parent, key), i), key, "must not be empty");
  }
  return std::nullopt;
}

std::optional<Error> inRange(std::int64_t v, const std::string& parent, const std::string& key,
                             std::int64_t lo, std::int64_t hi) {
  if (auto problem = integerOutOfRange(v, lo, hi)) return at(child(parent, key), key, *problem);
  return std::nullopt;
}

/// A number written as a JSON number (a non-finite one would be written as null).
std::optional<Error> finite(double v, const std::string& parent, const std::string& key) {
  if (std::isfinite(v)) return std::nullopt;
  return at(child(parent, key), key, "expected a finite number, found NaN or infinity");
}

std::optional<Error> checkScenario(const ScenarioSpec& s) {
  const std::string p = "/scenario";
  if (auto e = nonEmpty(s.model, p, "model")) return e;
  if (auto e = nonEmpty(s.gpu, p, "gpu")) return e;
  if (s.gpuSpec) {
    if (auto e = checkGpu(*s.gpuSpec, child(p, "gpu_spec"))) return e;
  }
  if (auto e = inRange(s.tp, p, "tp", 1, kMaxTp)) return e;
  if (auto e = nonEmptyItems(s.schemes, p, "schemes")) return e;
  if (auto e = nonEmpty(s.kvDtype, p, "kv_dtype")) return e;
  if (kvBytesForDtype(s.kvDtype) == 0) {
    return at(child(p, "kv_dtype"), "kv_dtype",
              "expected bf16, fp16, auto, fp8, fp8_e4m3 or fp8_e5m2, found '" + s.kvDtype + "'");
  }
  if (auto e = inRange(s.maxModelLen, p, "max_model_len", 1, kMaxTokens)) return e;
  if (auto e = finite(s.memUtil, p, "mem_util")) return e;
  if (!(s.memUtil > 0 && s.memUtil <= 1)) {
    return at(child(p, "mem_util"), "mem_util", "must be in (0, 1]");
  }
  if (auto e = finite(s.reserveGib, p, "reserve_gib")) return e;
  if (s.reserveGib < 0) return at(child(p, "reserve_gib"), "reserve_gib", "must be >= 0");
  if (auto e = inRange(s.contextTokens, p, "context", 0, kMaxTokens)) return e;
  if (s.specDraftTokens != 0) {
    const std::string sp = child(p, "speculation");
    if (auto e = inRange(s.specDraftTokens, sp, "draft_tokens", 1, kMaxDraftTokens)) return e;
    if (auto e = finite(s.specAcceptance, sp, "acceptance")) return e;
    if (!(s.specAcceptance > 0 && s.specAcceptance <= 1))
      return at(child(sp, "acceptance"), "acceptance", "must be in (0, 1]");
    if (auto e = nonEmpty(s.specDraft, sp, "draft")) return e;
  }
  if (auto e = inRange(s.inputLen, p, "input_len", 0, kMaxTokens)) return e;
  if (auto e = inRange(s.outputLen, p, "output_len", 0, kMaxTokens)) return e;
  const std::string bp = child(p, "batch");
  if (auto e = finite(s.batchMin, bp, "min")) return e;
  if (auto e = finite(s.batchMax, bp, "max")) return e;
  if (auto e = inRange(s.batchAt, bp, "at", 0, kMaxTokens)) return e;
  if (s.batchMin < 1) return at(child(bp, "min"), "min", "batch sizes start at 1");
  if (s.batchMax < s.batchMin) {
    return at(child(bp, "max"), "max", "must be at least the batch minimum");
  }
  return std::nullopt;
}

std::optional<Error> checkProvenance(const Provenance& prov, const std::string& p) {
  if (!prov.sha256.empty() && !isSha256Hex(prov.sha256)) {
    return at(child(p, "sha256"), "sha256", "expected 64 lower-case hex digits");
  }
  if (prov.kind == ProvenanceKind::Measured && prov.sourceFile.empty()) {
    return at(child(p, "source_file"), "source_file",
              "a measured figure must name the file (or kernel run) it came from");
  }
  if (prov.kind == ProvenanceKind::Published && prov.citation.empty()) {
    return at(child(p, "citation"), "citation", "a published figure must carry a citation");
  }
  return std::nullopt;
}

std::optional<Error> checkMetric(const MetricValue& m, const std::string& p) {
  if (auto e = finite(m.value, p, "value")) return e;
  // A non-finite bound or count is written as null, which the reader takes for absent.
  auto kept = [](const std::optional<double>& v) { return v && std::isfinite(*v); };
  if (kept(m.lo) && kept(m.hi) && *m.lo > *m.hi) {
    return at(child(p, "hi"), "hi", "interval upper bound is below its lower bound");
  }
  if (kept(m.n) && *m.n < 0) return at(child(p, "n"), "n", "sample count must not be negative");
  return checkProvenance(m.provenance, child(p, "provenance"));
}

std::optional<Error> checkCandidate(const Candidate& c, const std::string& p) {
  if (auto e = nonEmpty(c.id, p, "id")) return e;
  if (auto e = nonEmpty(c.model, p, "model")) return e;
  if (auto e = nonEmpty(c.schemeLinear, child(p, "schemes"), "linear")) return e;
  if (auto e = nonEmpty(c.gpu, p, "gpu")) return e;
  if (auto e = inRange(c.gpuCount, p, "gpu_count", 1, kMaxTp)) return e;
  const std::string mp = child(p, "metrics");
  for (const auto& [name, m] : c.metrics) {
    if (name.empty()) return at(child(mp, ""), "metrics", "metric name must not be empty");
    if (auto e = checkMetric(m, child(mp, name))) return e;
  }
  return std::nullopt;
}

std::optional<Error> checkRun(const ImportedRun& run, const std::string& p) {
  if (auto e = nonEmpty(run.format, p, "format")) return e;
  if (auto e = nonEmpty(run.sourceFile, p, "source_file")) return e;
  if (!run.sha256.empty() && !isSha256Hex(run.sha256)) {
    return at(child(p, "sha256"), "sha256", "expected 64 lower-case hex digits or \"\"");
  }
  // The requests are written as columns; only the token counts can be out of range.
  const std::string ap = child(p, "request_arrays");
  for (std::size_t i = 0; i < run.requests.size(); ++i) {
    const RequestRecord& q = run.requests[i];
    for (const auto& [key, v] : {std::pair<const char*, std::int64_t>{"input_len", q.inputLen},
                                 std::pair<const char*, std::int64_t>{"output_len", q.outputLen}}) {
      if (v < 0) {
        return at(
            child(child(ap, key), i), key,
            "expected an integer from 0 to " + std::to_string(kMaxCount) + ", found a number");
      }
    }
  }
  return std::nullopt;
}

std::optional<Error> checkKernel(const KernelMeasurement& k, const std::string& p) {
  if (auto e = inRange(k.m, p, "m", 0, kMaxCount)) return e;
  if (auto e = inRange(k.n, p, "n", 0, kMaxCount)) return e;
  if (auto e = inRange(k.k, p, "k", 0, kMaxCount)) return e;
  auto timing = [&](const char* key, double v, bool zeroAllowed) -> std::optional<Error> {
    if (std::isfinite(v) && (v > 0 || (zeroAllowed && v == 0))) return std::nullopt;
    return at(child(p, key), key,
              std::string("expected a finite time in seconds ") + (zeroAllowed ? ">= 0" : "> 0") +
                  ", found " + formatNumber(v));
  };
  auto amount = [&](const char* key, double v) -> std::optional<Error> {
    if (std::isfinite(v) && v >= 0) return std::nullopt;
    return at(child(p, key), key, "expected a finite number >= 0, found " + formatNumber(v));
  };
  if (auto e = timing("median_s", k.medianS, false)) return e;
  if (auto e = timing("min_s", k.minS, true)) return e;
  if (auto e = amount("rel_noise", k.relNoise)) return e;
  if (auto e = amount("repeat_noise", k.repeatNoise)) return e;
  if (auto e = timing("baseline_s", k.baselineS, true)) return e;
  for (const auto& [key, v] : k.plan) {
    if (!std::isfinite(v)) {
      return at(child(child(p, "plan"), key), "plan." + key,
                "expected a finite number, found " + formatNumber(v));
    }
  }
  if (auto e = inRange(k.samples, p, "samples", 0, kMaxCount)) return e;
  if (auto e = amount("bytes_moved", k.bytesMoved)) return e;
  if (auto e = amount("flops", k.flops)) return e;
  return std::nullopt;
}

std::optional<Error> checkView(const ViewState& v) {
  const std::string p = "/view";
  for (std::size_t i = 0; i < v.objectives.size(); ++i) {
    if (auto e = nonEmpty(v.objectives[i].metric, child(child(p, "objectives"), i), "metric")) {
      return e;
    }
  }
  if (auto e = nonEmptyItems(v.gates, p, "gates")) return e;
  for (std::size_t i = 0; i < v.gates.size(); ++i) {
    auto g = parseGate(v.gates[i], "gates");
    if (!g) return at(child(child(p, "gates"), i), "gates", g.error().message);
  }
  if (auto e = nonEmptyItems(v.hidden, p, "hidden")) return e;
  if (auto e = nonEmpty(v.tab, p, "tab")) return e;
  return std::nullopt;
}

}  // namespace

std::optional<Error> validate(const Session& s) {
  if (auto e = checkScenario(s.scenario)) return e;
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < s.candidates.size(); ++i) {
    const Candidate& c = s.candidates[i];
    const std::string p = child("/candidates", i);
    if (auto e = checkCandidate(c, p)) return e;
    const auto [it, fresh] = seen.emplace(c.id, i);
    if (!fresh) {
      return at(child(p, "id"), "id",
                "duplicate candidate id '" + c.id + "' (also /candidates/" +
                    std::to_string(it->second) + ")");
    }
  }
  for (std::size_t i = 0; i < s.importedRuns.size(); ++i) {
    if (auto e = checkRun(s.importedRuns[i], child("/imported_runs", i))) return e;
  }
  for (std::size_t i = 0; i < s.kernelMeasurements.size(); ++i) {
    if (auto e = checkKernel(s.kernelMeasurements[i], child("/kernel_measurements", i))) return e;
  }
  return checkView(s.view);
}

std::optional<Error> validateSession(const Session& s, const std::string& file) {
  if (auto e = validate(s)) return e->from(file);
  return std::nullopt;
}

}  // namespace qf
