// Serving sweeps: serving runs grouped by candidate, ordered by offered load.
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/core/session/serving.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <sstream>

#include <quantfront/core/base/percentile.hpp>
#include <quantfront/core/session/attach_runs.hpp>

namespace qf {

namespace {

/// The setup value of `key`, "" when absent or null ("none", as the importers write null).
std::string setupValue(const ImportedRun& run, const char* key) {
  const auto it = run.setup.find(key);
  if (it == run.setup.end()) return {};
  const std::string v = asciiLower(it->second);
  if (v == "none" || v == "null") return {};
  return it->second;
}

/// A positive number or +inf from setup text; nullopt when it is neither.
std::optional<double> positiveNumber(const std::string& text) {
  const std::string t = asciiLower(text);
  if (t == "inf" || t == "+inf" || t == "infinity") return std::numeric_limits<double>::infinity();
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || *end != '\0' || !(v > 0) || std::isnan(v)) return std::nullopt;
  return v;
}

std::optional<double> metricOf(const ImportedRun& run, const char* name) {
  const auto it = run.metrics.find(name);
  if (it == run.metrics.end() || !std::isfinite(it->second)) return std::nullopt;
  return it->second;
}

/// TTFT or TPOT percentile `q` (50 or 99) of a run: the file's figure (p50: else its median),
/// else the records' numpy-linear percentile.
std::optional<MetricValue> latencyFigure(const ImportedRun& run, const char* prefix,
                                         stats::LatencyMetric lm, int q) {
  MetricValue m;
  m.provenance.kind = ProvenanceKind::Measured;
  m.provenance.sourceFile = run.sourceFile;
  m.provenance.sha256 = run.sha256;
  const std::string p = std::string(prefix) + "_p" + std::to_string(q) + "_ms";
  if (const auto v = metricOf(run, p.c_str())) {
    m.value = *v;
    m.provenance.note = run.format + " summary as the file reports it";
    return m;
  }
  if (q == 50) {
    const std::string med = std::string(prefix) + "_median_ms";
    if (const auto v = metricOf(run, med.c_str())) {
      m.value = *v;
      m.provenance.note = run.format + " summary as the file reports it (its median)";
      return m;
    }
  }
  auto values = stats::latencyValues(run.requests, lm);
  if (values.empty()) return std::nullopt;
  const std::size_t n = values.size();
  m.value = percentileLinear(values, q) * 1e3;
  m.provenance.note = run.format + ": percentile of " + std::to_string(n) +
                      " per-request records (the file states none)";
  return m;
}

struct GroupKey {
  std::string identity;  ///< what groups are merged by
  std::string key;
  std::string groupedBy;
  std::optional<std::string> candidateId;
};

const Candidate* findCandidate(const Session& s, const std::string& id) {
  for (const auto& c : s.candidates) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

GroupKey groupKeyOf(const Session& s, const ImportedRun& run, std::vector<std::string>& warnings) {
  GroupKey g;
  const auto rec = run.setup.find(kCandidateSetupKey);
  if (rec != run.setup.end() && !rec->second.empty()) {
    g.key = rec->second;
    g.groupedBy = "candidate";
    if (findCandidate(s, g.key)) {
      g.candidateId = g.key;
    } else {
      warnings.push_back(run.sourceFile + ": attached to candidate '" + g.key +
                         "', which the session no longer has");
    }
  } else if (const std::string named = runModelName(run); !named.empty()) {
    g.key = named;
    g.groupedBy = "model";
    if (findCandidate(s, named)) g.candidateId = named;
  } else {
    g.key = run.sourceFile;
    g.groupedBy = "file";
  }
  g.identity = g.candidateId ? "candidate:" + *g.candidateId : g.groupedBy + ":" + g.key;
  return g;
}

void finishGroup(const Session& s, ServingGroup& g, const ServingOptions& opts,
                 const Catalog& cat) {
  std::size_t rates = 0, concs = 0;
  for (const auto& p : g.points) (p.load.kind == LoadKind::RequestRate ? rates : concs) += 1;
  g.loadKind = concs > rates ? LoadKind::Concurrency : LoadKind::RequestRate;
  g.mixedLoad = rates > 0 && concs > 0;
  if (g.mixedLoad) {
    g.warnings.push_back(g.key + ": " + std::to_string(rates) +
                         " run(s) state a request rate and " + std::to_string(concs) +
                         " a max concurrency: two sweeps, kept apart (not one load axis)");
  }
  std::stable_sort(g.points.begin(), g.points.end(),
                   [&](const ServingPoint& a, const ServingPoint& b) {
                     const bool aOther = a.load.kind != g.loadKind;
                     const bool bOther = b.load.kind != g.loadKind;
                     if (aOther != bOther) return bOther;
                     return a.load.value < b.load.value;
                   });
  for (std::size_t i = 1; i < g.points.size(); ++i) {
    const auto& a = g.points[i - 1];
    const auto& b = g.points[i];
    if (a.load.kind == b.load.kind && a.load.value == b.load.value) {
      g.warnings.push_back(g.key + ": " + a.sourceFile + " and " + b.sourceFile +
                           " were both run at " + offeredLoadText(a.load));
    }
  }
  if (!g.points.empty() && g.points.front().load.kind == g.loadKind) {
    g.batch1 = 0;
    const auto& p = g.points.front();
    if (p.peakConcurrentRequests && *p.peakConcurrentRequests > 1) {
      g.warnings.push_back(g.key + ": at its lowest load (" + offeredLoadText(p.load) + ") up to " +
                           sigFigs(*p.peakConcurrentRequests, 6) +
                           " requests were in flight at once: not a batch-1 measurement");
    }
  }
  for (std::size_t i = 0; i < g.points.size(); ++i) {
    const auto& t = g.points[i].outputThroughputTokS;
    if (t && (!g.saturated || *t > *g.points[*g.saturated].outputThroughputTokS)) g.saturated = i;
  }
  if (!g.saturated) {
    g.warnings.push_back(g.key + ": no run states its output throughput: no saturated point");
  }
  const Candidate* c = g.candidateId ? findCandidate(s, *g.candidateId) : nullptr;
  if (c) g.scheme = c->schemeLinear;
  if (!opts.modelledCapacity) return;
  if (!c) {
    g.warnings.push_back(g.key + ": not attached to a candidate: no modelled capacity");
    return;
  }
  auto m = modelledMetrics(*c, s.scenario, cat);
  if (!m) {
    g.warnings.push_back(g.key + ": no modelled capacity (" + m.error().message + ")");
    return;
  }
  const auto tok = m->find("tokens_per_s_at_capacity");
  const auto seqs = m->find("max_concurrency");
  if (tok == m->end() || seqs == m->end()) {
    g.warnings.push_back(g.key + ": the engine gives no capacity for this candidate");
    return;
  }
  g.capacity = ModelledCapacity{tok->second.value, seqs->second.value, tok->second.provenance.note};
}

}  // namespace

Result<OfferedLoad> offeredLoadOf(const ImportedRun& run) {
  const std::string rateText = setupValue(run, "request_rate");
  const std::string concText = setupValue(run, "max_concurrency");
  std::optional<double> rate, conc;
  if (!rateText.empty()) {
    rate = positiveNumber(rateText);
    if (!rate) {
      return Error{run.sourceFile, "", "request_rate",
                   "'" + rateText + "' is not a request rate (a positive number or inf): " +
                       "the run has no offered load to place it by"};
    }
  }
  if (!concText.empty()) {
    conc = positiveNumber(concText);
    if (!conc || std::isinf(*conc)) {
      return Error{run.sourceFile, "", "max_concurrency",
                   "'" + concText + "' is not a number of requests"};
    }
  }
  OfferedLoad load;
  if (rate && std::isfinite(*rate)) {
    load.kind = LoadKind::RequestRate;
    load.value = *rate;
    load.maxConcurrency = conc;
  } else if (conc) {
    load.kind = LoadKind::Concurrency;
    load.value = *conc;
  } else if (rate) {
    load.kind = LoadKind::RequestRate;
    load.value = *rate;  // inf: every request sent at once
  } else {
    return Error{run.sourceFile, "", "request_rate",
                 "the run states neither a request rate nor a max concurrency: it has no "
                 "offered load to place it by"};
  }
  return load;
}

const char* loadKindName(LoadKind k) {
  return k == LoadKind::RequestRate ? "request rate" : "max concurrency";
}

std::string offeredLoadText(const OfferedLoad& load) {
  if (load.kind == LoadKind::Concurrency) return "concurrency " + sigFigs(load.value, 6);
  std::string t = (std::isinf(load.value) ? std::string("inf") : sigFigs(load.value, 6)) + " req/s";
  if (load.maxConcurrency) t += " (max concurrency " + sigFigs(*load.maxConcurrency, 6) + ")";
  return t;
}

Result<ServingPoint> servingPoint(const ImportedRun& run, const stats::BootstrapOptions& boot,
                                  std::vector<std::string>& warnings, const stats::Slo& slo) {
  if (run.kind != RunKind::Serving) {
    return Error{run.sourceFile, "", "format",
                 "a " + run.format + " run is not a serving sweep run (a " + runKindName(run.kind) +
                     " run, not one offered load of a serving benchmark)"};
  }
  auto load = offeredLoadOf(run);
  if (!load) return load.error();
  ServingPoint p;
  p.load = *load;
  p.sourceFile = run.sourceFile;
  p.sha256 = run.sha256;
  p.format = run.format;
  p.requestRecords = run.requests.size();
  p.requestThroughputReqS = metricOf(run, "request_throughput_req_s");
  p.outputThroughputTokS = metricOf(run, "output_throughput_tok_s");
  p.goodputReqS = metricOf(run, "request_goodput_req_s");
  if (slo.ttftS || slo.tpotS || slo.e2eS) {
    const auto duration = metricOf(run, "duration_s");
    if (!run.requests.empty() && duration && *duration > 0) {
      p.goodputReqS = stats::goodputReqPerS(run.requests, slo, *duration);
      p.goodputFromSlo = true;
    } else {
      warnings.push_back(
          run.sourceFile + ": no per-request records or duration, so no goodput under the SLO" +
          (p.goodputReqS ? std::string(" (the file's own goodput is shown)") : std::string()));
    }
  }
  p.peakConcurrentRequests = metricOf(run, "max_concurrent_requests");
  if (!p.outputThroughputTokS) {
    warnings.push_back(run.sourceFile + ": no output throughput in the file");
  }

  // Latency percentiles, then their bootstrap intervals from the records.
  std::map<std::string, MetricValue> lat;
  for (const auto& [prefix, lm] : {std::pair{"ttft", stats::LatencyMetric::Ttft},
                                   std::pair{"tpot", stats::LatencyMetric::Tpot}}) {
    for (const int q : {50, 99}) {
      if (auto m = latencyFigure(run, prefix, lm, q)) {
        lat[std::string(prefix) + "_p" + std::to_string(q) + "_ms"] = std::move(*m);
      }
    }
  }
  addServingIntervals(run, lat, boot, warnings);
  auto take = [&](const char* name) -> std::optional<MetricValue> {
    const auto it = lat.find(name);
    if (it == lat.end()) return std::nullopt;
    return it->second;
  };
  p.ttftP50Ms = take("ttft_p50_ms");
  p.ttftP99Ms = take("ttft_p99_ms");
  p.tpotP50Ms = take("tpot_p50_ms");
  p.tpotP99Ms = take("tpot_p99_ms");
  if (!p.ttftP99Ms && !p.tpotP99Ms) {
    warnings.push_back(run.sourceFile + ": no TTFT or TPOT figures (no latency in the file)");
  }

  // Generated length per successful request: from the records when they carry lengths.
  std::vector<double> lengths;
  std::size_t ok = 0, bad = 0;
  for (const auto& r : run.requests) {
    (r.success ? ok : bad) += 1;
    if (r.success) lengths.push_back(static_cast<double>(r.outputLen));
  }
  const bool recordLengths =
      std::any_of(lengths.begin(), lengths.end(), [](double v) { return v > 0; });
  p.completed = metricOf(run, "completed");
  p.failed = metricOf(run, "failed");
  if (!run.requests.empty()) {
    if (!p.completed) p.completed = static_cast<double>(ok);
    if (!p.failed) p.failed = static_cast<double>(bad);
  }
  if (recordLengths) {
    double sum = 0;
    for (const double v : lengths) sum += v;
    p.meanOutputTokens = sum / static_cast<double>(lengths.size());
    p.medianOutputTokens = medianOf(lengths);
  } else if (const auto total = metricOf(run, "total_output_tokens");
             total && p.completed && *p.completed > 0) {
    p.meanOutputTokens = *total / *p.completed;
  } else {
    warnings.push_back(run.sourceFile +
                       ": no generated length (no output_lens and no total_output_tokens and "
                       "completed): its latencies cannot be read against output length");
  }
  return p;
}

ServingSweeps servingSweeps(const Session& s, const ServingOptions& opts, const Catalog& cat) {
  ServingSweeps out;
  std::map<std::string, std::size_t> indexOf;  // group identity → index in out.groups
  for (const auto& run : s.importedRuns) {
    if (run.kind == RunKind::Latency || run.kind == RunKind::Throughput) {
      out.warnings.push_back(run.sourceFile + ": a " + run.format +
                             " run measures one batch, not a load: not part of a serving sweep");
      continue;
    }
    if (run.kind != RunKind::Serving) continue;
    if (allRequestsFailed(run)) {
      out.warnings.push_back(run.sourceFile + ": " + failedRunText(run) +
                             ": not drawn (a failed run is not a 0 tok/s point)");
      out.failedRuns.push_back(run.sourceFile);
      continue;
    }
    std::vector<std::string> warnings;
    auto point = servingPoint(run, opts.bootstrap, warnings, opts.slo);
    if (!point) {
      out.warnings.push_back(run.sourceFile + ": left out: " + point.error().message);
      continue;
    }
    const GroupKey k = groupKeyOf(s, run, out.warnings);
    auto [it, added] = indexOf.try_emplace(k.identity, out.groups.size());
    if (added) {
      ServingGroup g;
      g.key = k.key;
      g.groupedBy = k.groupedBy;
      g.candidateId = k.candidateId;
      out.groups.push_back(std::move(g));
    }
    ServingGroup& g = out.groups[it->second];
    g.points.push_back(std::move(*point));
    for (auto& w : warnings) g.warnings.push_back(std::move(w));
    ++out.runsUsed;
  }
  for (auto& g : out.groups) finishGroup(s, g, opts, cat);
  if (opts.modelledCurves) addModelledServing(out, s, cat);
  return out;
}

}  // namespace qf
