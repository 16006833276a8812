// qfront frontier: quality gates, then the Pareto frontier with the uncertain band.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/frontier.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/session/session.hpp>

#include "cli.hpp"

namespace qf::cli {

namespace {

constexpr const char* kFrontierHelp =
    R"(usage: qfront frontier FILE [--objectives NAME:max|min,...] [--gate "NAME>=X" ...]
                       [--baseline ID] [--format table|json] [--no-by]

Applies quality gates, then finds the Pareto frontier of the passing candidates.

FILE is either
  - a CSV file with header `id,<metric>,...`: one candidate per row, one metric per column,
    units in the column name (tpot_p99_ms, weights_gib, recovery_pct). Optional
    `<metric>_lo` and `<metric>_hi` columns give an interval (e.g. a 95% CI) around the
    value. An empty cell is a missing value. Text columns model, scheme, gpu, engine, notes
    and the integer column gpu_count are descriptive. Every other cell must be a finite
    number; or
  - a QuantFront session (JSON with "format": "quantfront-session", detected by content):
    its candidates' metrics with their intervals. The session's saved objectives and gates
    apply unless --objectives / --gate are given.
A warning is printed when an objective mixes provenance kinds (modelled, measured,
published) across candidates.

  --objectives LIST   NAME:max or NAME:min, comma-separated; a bare NAME takes the known
                      direction. Default: the session's objectives, else every metric
                      (column) with a known direction (others are skipped with a warning):
                        max: names containing score, recovery, throughput, goodput,
                             queries_per_usd, max_concurrency, cost_reduction, accuracy,
                             exact_match, or the word acc, or ending in _tok_s/_req_s/_per_s;
                        min: names ending in _ms, _s, _us, _gib, _gb, or containing usd_per,
                             flip_rate, energy, fallback, or the word kl.
  --gate G            a gate every candidate must pass first; repeat it or separate gates by
                      commas. NAME>=X, NAME<=X, NAME>X, NAME<X, NAME==X, or relative to the
                      baseline: NAME>=baseline-0.5, NAME<=baseline+2, NAME>=baseline.
                      Gates compare point estimates.
  --baseline ID       candidate that baseline-relative gates refer to
  --format table|json output format (default table)
  --no-by             skip the per-candidate dominator lists (they cost O(n) each)

Classification of the passing candidates over the objectives:
  frontier    no candidate is at least as good on every objective and strictly better on
              one (equal vectors are both on the frontier);
  uncertain   dominated on point estimates, but not clearly: the intervals overlap;
  dominated   clearly dominated: some candidate's pessimistic interval end is at least as
              good as this one's optimistic end on every objective, strictly on one.
  gated out   failed a gate (or lacks a gated or objective metric: "missing metric X");
              listed with the gate it failed, never dropped.

JSON: {"frontier": [ids], "uncertain": [ids], "dominated": [{"id", "by": [ids]}],
       "gated_out": [{"id", "gate", "reason"}], "objectives": [{"metric", "direction"}],
       "uncertain_point_dominators": [{"id", "by": [ids]}], "warnings": [...]}
"by" lists the candidates that clearly dominate the entry, in file order; for uncertain
candidates, "uncertain_point_dominators" lists who dominates them on point estimates.

Exit status: 0 on success, 2 on bad input (one line naming file, line, column and field).
)";

std::string num(double v) {
  std::ostringstream o;
  o << std::setprecision(6) << v;
  return o.str();
}

std::string cellText(const Candidate& c, const std::string& metric) {
  const auto it = c.metrics.find(metric);
  if (it == c.metrics.end()) return "-";
  std::string s = num(it->second.value);
  if (it->second.lo || it->second.hi) {
    s += " [" + (it->second.lo ? num(*it->second.lo) : std::string("")) + ", " +
         (it->second.hi ? num(*it->second.hi) : std::string("")) + "]";
  }
  return s;
}

std::string joinIds(const std::vector<std::string>& ids) {
  std::string s;
  for (const auto& id : ids) s += (s.empty() ? "" : ", ") + id;
  return s;
}

void printTable(const FrontierResult& r, const std::vector<Candidate>& cands,
                const std::vector<Gate>& gates, const std::optional<std::string>& baseline,
                std::ostream& out) {
  out << "objectives: ";
  for (std::size_t k = 0; k < r.objectives.size(); ++k) {
    out << (k ? ", " : "") << r.objectives[k].metric << " ("
        << directionName(r.objectives[k].direction) << ")";
  }
  out << "\ngates: ";
  if (gates.empty()) out << "none";
  for (std::size_t k = 0; k < gates.size(); ++k) out << (k ? ", " : "") << gates[k].text;
  if (baseline) out << "   (baseline " << *baseline << ")";
  out << "\n\n";
  struct Status {
    std::string status, detail;
  };
  std::map<std::string, Status> st;
  for (const auto& id : r.frontier) st[id] = {"frontier", ""};
  for (const auto& id : r.uncertain) st[id] = {"uncertain", "within the uncertainty of others"};
  for (const auto& d : r.uncertainPointDominators) {
    st[d.id].detail = "point-dominated by " + joinIds(d.by) + ", not clearly";
  }
  for (const auto& d : r.dominated) {
    st[d.id] = {"dominated", d.by.empty() ? std::string() : "by " + joinIds(d.by)};
  }
  for (const auto& g : r.gatedOut) st[g.id] = {"gated out", g.gate + ": " + g.reason};
  std::size_t idW = 2;
  for (const auto& c : cands) idW = std::max(idW, c.id.size());
  std::vector<std::size_t> colW;
  for (const auto& o : r.objectives) {
    std::size_t w = o.metric.size();
    for (const auto& c : cands) w = std::max(w, cellText(c, o.metric).size());
    colW.push_back(w);
  }
  out << std::left << std::setw(static_cast<int>(idW + 2)) << "id" << std::setw(12) << "status";
  for (std::size_t k = 0; k < r.objectives.size(); ++k) {
    out << std::setw(static_cast<int>(colW[k] + 2)) << r.objectives[k].metric;
  }
  out << "note\n";
  for (const auto& c : cands) {
    const auto& s = st[c.id];
    out << std::setw(static_cast<int>(idW + 2)) << c.id << std::setw(12) << s.status;
    for (std::size_t k = 0; k < r.objectives.size(); ++k) {
      out << std::setw(static_cast<int>(colW[k] + 2)) << cellText(c, r.objectives[k].metric);
    }
    out << s.detail << "\n";
  }
  out << "\nfrontier: " << (r.frontier.empty() ? "none" : joinIds(r.frontier)) << "\n";
  if (!r.uncertain.empty()) out << "uncertain band: " << joinIds(r.uncertain) << "\n";
}

}  // namespace

int cmdFrontier(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  Args a(argv);
  if (a.help()) {
    out << kFrontierHelp;
    return kExitOk;
  }
  bool missing = false;
  const auto objectivesOpt = a.take("--objectives", missing);
  if (missing) return badArg(err, "objectives", "option --objectives needs a value");
  const auto gateOpts = a.take("--gate", missing);
  if (missing) return badArg(err, "gate", "option --gate needs a value");
  const auto baselineOpt = a.take("--baseline", missing);
  if (missing) return badArg(err, "baseline", "option --baseline needs a value");
  const auto formatOpt = a.take("--format", missing);
  if (missing) return badArg(err, "format", "option --format needs a value");
  const bool noBy = a.takeFlag("--no-by");
  std::vector<std::string> files;
  for (const auto& r : a.rest()) {
    if (r.size() > 1 && r[0] == '-') {
      return badArg(err, r, "unknown option '" + r + "' (see qfront frontier --help)");
    }
    files.push_back(r);
  }
  if (files.size() != 1) {
    return badArg(err, "file",
                  "expected one candidates file (CSV), found " + std::to_string(files.size()));
  }
  const std::string format = formatOpt.empty() ? "table" : formatOpt.back();
  if (format != "table" && format != "json") {
    return badArg(err, "format", "expected table or json, found '" + format + "'");
  }

  auto bytes = readFileBytes(files[0], kMaxSessionFileBytes);
  if (!bytes) return badInput(err, bytes.error());
  std::vector<Candidate> candidates;
  std::vector<std::string> metricNames;
  std::optional<ViewState> view;
  const auto firstChar = bytes->find_first_not_of(" \t\r\n");
  if (firstChar != std::string::npos && (*bytes)[firstChar] == '{') {
    // JSON: only a session is accepted. Peek at "format" before the full session reader.
    auto doc = parseJson(*bytes, files[0]);
    if (!doc) return badInput(err, doc.error());
    const auto fmt = doc->find("format");
    if (fmt == doc->end() || !fmt->is_string() || fmt->get<std::string>() != kSessionFormat) {
      return badInput(err, Error{files[0], "/format", "format",
                                 "this JSON file is not a QuantFront session (\"format\": \"" +
                                     std::string(kSessionFormat) +
                                     "\"); qfront frontier reads a session or a CSV file"});
    }
    auto session = parseSession(*doc, files[0]);
    if (!session) return badInput(err, session.error());
    candidates = std::move(session->candidates);
    view = std::move(session->view);
    for (const auto& c : candidates) {
      for (const auto& [name, mv] : c.metrics) {
        if (std::find(metricNames.begin(), metricNames.end(), name) == metricNames.end()) {
          metricNames.push_back(name);
        }
      }
    }
  } else if (firstChar != std::string::npos && (*bytes)[firstChar] == '[') {
    return badInput(err, Error{files[0], "line 1, column " + std::to_string(firstChar + 1), "",
                               "this looks like a JSON array; qfront frontier reads a session or a "
                               "CSV file with header id,<metric>,..."});
  } else {
    auto table = parseCandidateCsv(*bytes, files[0]);
    if (!table) return badInput(err, table.error());
    candidates = std::move(table->candidates);
    metricNames = std::move(table->metricColumns);
  }

  FrontierOptions fo;
  fo.withDominators = !noBy;
  std::vector<std::string> warnings;
  if (!objectivesOpt.empty()) {
    auto objs = parseObjectives(objectivesOpt.back());
    if (!objs) return badInput(err, objs.error());
    fo.objectives = std::move(*objs);
  } else if (view && !view->objectives.empty()) {
    fo.objectives = view->objectives;
  } else {
    for (const auto& col : metricNames) {
      if (const auto d = knownDirection(col)) {
        fo.objectives.push_back({col, *d});
      } else {
        warnings.push_back("metric '" + col +
                           "' has no known direction and is not an objective; name it in "
                           "--objectives as " +
                           col + ":max or " + col + ":min");
      }
    }
    if (fo.objectives.empty()) {
      return badInput(err, Error{files[0], "", "objectives",
                                 "no metric with a known direction; give --objectives "
                                 "NAME:max|min,..."});
    }
  }
  if (gateOpts.empty() && view) {
    for (const auto& text : view->gates) {
      auto g = parseGate(text, "gates");
      if (!g) {
        Error e = g.error();
        e.file = files[0];
        e.position = "/view/gates";
        return badInput(err, e);
      }
      fo.gates.push_back(std::move(*g));
    }
  }
  for (const auto& spec : gateOpts) {
    for (const auto& part : splitComma(spec)) {
      auto g = parseGate(part);
      if (!g) return badInput(err, g.error());
      fo.gates.push_back(std::move(*g));
    }
  }
  if (!baselineOpt.empty()) fo.baselineId = baselineOpt.back();

  for (const auto& o : fo.objectives) {
    std::set<ProvenanceKind> kinds;
    for (const auto& c : candidates) {
      if (const auto it = c.metrics.find(o.metric); it != c.metrics.end()) {
        kinds.insert(it->second.provenance.kind);
      }
    }
    if (kinds.size() > 1) {
      std::string names;
      for (auto k : kinds) names += (names.empty() ? "" : ", ") + std::string(provenanceName(k));
      warnings.push_back("objective '" + o.metric + "' mixes provenance kinds (" + names +
                         ") across candidates");
    }
  }

  auto result = computeFrontier(candidates, fo);
  if (!result) {
    Error e = result.error();
    if (e.file == "<input>") e.file = files[0];
    return badInput(err, e);
  }
  for (const auto& w : warnings) err << "qfront: warning: " << files[0] << ": " << w << "\n";
  if (format == "json") {
    Json j = frontierToJson(*result);
    j["warnings"] = warnings;
    j["baseline"] = fo.baselineId ? Json(*fo.baselineId) : Json(nullptr);
    j["gates"] = Json::array();
    for (const auto& g : fo.gates) j["gates"].push_back(g.text);
    out << j.dump(2) << "\n";
  } else {
    printTable(*result, candidates, fo.gates, fo.baselineId, out);
  }
  return kExitOk;
}

}  // namespace qf::cli
