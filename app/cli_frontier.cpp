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
#include <quantfront/core/analysis/frontier_analysis.hpp>
#include <quantfront/core/analysis/metric_dictionary.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/session/candidate_source.hpp>
#include <quantfront/core/session/session.hpp>

#include <quantfront/core/base/version.hpp>

#include "cli.hpp"
#include "shell.hpp"

namespace qf::cli {

namespace {

constexpr OptionSpec kFrontierOptions[] = {
    {"--objectives", "LIST",
     "NAME:max or NAME:min, comma-separated; a bare NAME takes the known\ndirection. Default: the "
     "session's objectives, else every metric\n(column) with a known direction (others are skipped "
     "with a warning):\n  max: names containing score, recovery, throughput, goodput,\n       "
     "queries_per_usd, max_concurrency, cost_reduction, accuracy,\n       exact_match, "
     "tokens_per_s, or the word acc, or ending in\n       _tok_s/_req_s/_per_s, or an lm-eval "
     "score <task>_<metric>\n       (perplexity, bits_per_byte, invalid_rate, brier_score: min);\n "
     " min: names ending in _ms, _s, _us, _gib, _gb, or containing usd_per,\n       flip_rate, "
     "energy, fallback, or the word kl."},
    {"--gate",
     "G",
     "a gate every candidate must pass first; repeat it or separate gates by\ncommas. NAME>=X, "
     "NAME<=X, NAME>X, NAME<X, NAME==X, or relative to the\nbaseline: NAME>=baseline-0.5, "
     "NAME<=baseline+2, NAME>=baseline.\nA gate has three outcomes: pass or fail when the figure's "
     "whole\ninterval is on one side of the threshold, undecided when the\ninterval crosses it (a "
     "figure without an interval decides alone).",
     {},
     true},
    {"--baseline", "ID", "candidate that baseline-relative gates refer to"},
    {"--group-by", "model|none",
     "model (default): one frontier per base model, so that relative\nfigures (recovery, deltas) "
     "only compare candidates that share a\nbaseline; candidates naming no model join the session "
     "scenario's\nmodel. none: one frontier over every candidate (absolute scores\nacross models); "
     "a relative objective spanning several models is\nthen warned about."},
    {"--format", "table|json", "output format (default table)", oneOf("table|json")},
    {"--max-by", "N",
     "list at most N dominators per candidate (default 10; 0 lists all,\nrefused above 2000 "
     "candidates)"},
    {"--no-by", "", "skip the per-candidate dominator lists (they cost O(n) each)"},
};

const CommandSpec& frontierCommand() {
  static const CommandSpec command{
      "qfront",
      "frontier",
      R"(usage: qfront frontier FILE [--objectives NAME:max|min,...] [--gate "NAME>=X" ...]
                       [--baseline ID] [--group-by model|none] [--format table|json]
                       [--max-by N] [--no-by]
)",
      R"(Applies quality gates, then finds the Pareto frontier of the passing candidates.

FILE is either
  - a CSV file with header `id,<metric>,...`: one candidate per row, one metric per column,
    units in the column name (tpot_p99_ms, weights_gib, recovery_pct). Optional
    `<metric>_lo` and `<metric>_hi` columns give an interval (e.g. a 95% CI) around the
    value. An empty cell is a missing value. Text columns model, scheme, gpu, engine, notes
    and the integer column gpu_count are descriptive. Every other cell must be a finite
    number; or
  - a QuantFront session (JSON with "format": "quantfront-session", detected by content):
    its candidates' metrics with their intervals. The session's saved objectives and gates
    apply unless --objectives / --gate are given; its hidden candidates (qfront session
    hide) are left out, with a note on stderr.
A warning is printed when an objective mixes provenance kinds (modelled, measured,
published) across candidates.
)",
      {kFrontierOptions},
      R"(Classification of the passing candidates over the objectives:
  frontier    no candidate is at least as good on every objective and strictly better on
              one (equal vectors are both on the frontier);
  uncertain   dominated on point estimates, but not clearly: the intervals overlap;
  dominated   clearly dominated: some candidate's pessimistic interval end is at least as
              good as this one's optimistic end on every objective, strictly on one.
  gated out   failed a gate: its whole interval fails; listed with the gate, never dropped.
  undecided   failed no gate, but a gate's interval crosses its threshold: more samples
              are needed before it can pass or fail; not placed on the frontier.
  not scored  lacks a gated or objective metric ("missing metric X"): not a failure, the
              candidate was not measured on it.

JSON: {"frontier": [ids], "uncertain": [ids],
       "dominated": [{"id", "by": [ids], "by_truncated": bool}],
       "gated_out": [{"id", "gate", "reason"}], "undecided": [...], "not_scored": [...]
       (the same shape), "objectives": [{"metric", "direction"}],
       "uncertain_point_dominators": [{"id", "by": [ids], "by_truncated": bool}],
       "group_by": "model"|"none",
       "groups": [{"model", "candidates", "frontier", "uncertain", "dominated", "gated_out",
                   "undecided", "not_scored", "uncertain_point_dominators"}],
       "warnings": [...]}
The flat lists merge every group's (in file order); "groups" holds each base model's own.
Objectives carry "readable", "unit" and "description" from the metric dictionary.
"by" lists the candidates that clearly dominate the entry, in file order, at most 10 of
them unless --max-by says otherwise ("by_truncated" is true when there are more); for uncertain candidates,
"uncertain_point_dominators" lists who dominates them on point estimates. The lists keep
memory bounded on large inputs (10^5 candidates); --no-by skips them.

Exit status: 0 on success, 2 on bad input (one line naming file, line, column and field).
)",
      16};
  return command;
}

std::string cellText(const Candidate& c, const std::string& metric) {
  const auto it = c.metrics.find(metric);
  if (it == c.metrics.end()) return "-";
  std::string s = sigFigs(it->second.value, 6);
  if (it->second.lo || it->second.hi) {
    s += " [" + (it->second.lo ? sigFigs(*it->second.lo, 6) : std::string("")) + ", " +
         (it->second.hi ? sigFigs(*it->second.hi, 6) : std::string("")) + "]";
  }
  return s;
}

std::string joinIds(const std::vector<std::string>& ids) {
  std::string s;
  for (const auto& id : ids) s += (s.empty() ? "" : ", ") + id;
  return s;
}

void printTable(const FrontierAnalysis& a, const std::vector<Candidate>& cands, std::ostream& out) {
  const FrontierResult& r = a.result;
  out << "objectives: ";
  for (std::size_t k = 0; k < r.objectives.size(); ++k) {
    const std::string& metric = r.objectives[k].metric;
    const std::string readable = readableMetricName(metric);
    out << (k ? ", " : "") << readable;
    if (readable != metric) out << " [" << metric << "]";
    out << " (" << directionName(r.objectives[k].direction) << ")";
  }
  out << "\ngates: ";
  if (a.options.gates.empty()) out << "none";
  for (std::size_t k = 0; k < a.options.gates.size(); ++k) {
    out << (k ? ", " : "") << a.options.gates[k].text;
  }
  if (a.options.baselineId) out << "   (baseline " << *a.options.baselineId << ")";
  out << "\n\n";
  std::size_t idW = 2;
  for (const auto& c : cands) idW = std::max(idW, c.id.size());
  std::vector<std::size_t> colW;
  for (const auto& o : r.objectives) {
    std::size_t w = o.metric.size();
    for (const auto& c : cands) w = std::max(w, cellText(c, o.metric).size());
    colW.push_back(w);
  }
  out << std::left << std::setw(static_cast<int>(idW + 2)) << "id" << std::setw(13) << "status";
  for (std::size_t k = 0; k < r.objectives.size(); ++k) {
    out << std::setw(static_cast<int>(colW[k] + 2)) << r.objectives[k].metric;
  }
  out << "note\n";
  for (const auto& c : cands) {
    const auto v = a.verdicts.find(c.id);
    out << std::setw(static_cast<int>(idW + 2)) << c.id << std::setw(13)
        << (v == a.verdicts.end() ? "" : verdictName(v->second.verdict));
    for (std::size_t k = 0; k < r.objectives.size(); ++k) {
      out << std::setw(static_cast<int>(colW[k] + 2)) << cellText(c, r.objectives[k].metric);
    }
    out << (v == a.verdicts.end() ? "" : v->second.detail) << "\n";
  }
  out << "\nfrontier: " << (r.frontier.empty() ? "none" : joinIds(r.frontier)) << "\n";
  if (!r.uncertain.empty()) out << "uncertain band: " << joinIds(r.uncertain) << "\n";
  auto idsOf = [](const std::vector<GatedOutCandidate>& list) {
    std::vector<std::string> ids;
    for (const auto& g : list) ids.push_back(g.id);
    return joinIds(ids);
  };
  if (!r.undecided.empty()) out << "undecided (a gate's interval): " << idsOf(r.undecided) << "\n";
  if (!r.notScored.empty()) out << "not scored (a metric missing): " << idsOf(r.notScored) << "\n";
  if (a.groups.size() > 1) {
    out << "\ngrouped by model (each compared only with candidates of the same model):\n";
    for (const auto& g : a.groups) {
      out << "  " << (g.model.empty() ? "(no model)" : g.model) << ": frontier "
          << (g.result.frontier.empty() ? "none" : joinIds(g.result.frontier));
      if (!g.result.uncertain.empty()) out << "; uncertain " << joinIds(g.result.uncertain);
      out << "\n";
    }
  }
}

}  // namespace

/// The most candidates --max-by 0 (every dominator listed) accepts.
constexpr std::size_t kMaxRowsListingAll = 2000;

int cmdFrontier(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  int rc = kExitOk;
  const auto p = parseCommand(frontierCommand(), argv, out, err, rc);
  if (!p) return rc;
  const auto objectivesOpt = p->value("--objectives"), baselineOpt = p->value("--baseline"),
             formatOpt = p->value("--format"), maxByOpt = p->value("--max-by"),
             groupByOpt = p->value("--group-by");
  const auto gateOpts = p->values("--gate");
  const bool noBy = p->flag("--no-by");
  std::size_t maxBy = FrontierOptions::kDefaultDominatorsListed;
  if (maxByOpt) {
    const auto v = parseInt(*maxByOpt);
    if (!v || *v < 0 || *v > 1000000) {
      return badArg(err, "max-by",
                    "expected a count 0..1000000 (0 lists all, up to " +
                        std::to_string(kMaxRowsListingAll) + " candidates), found '" + *maxByOpt +
                        "'");
    }
    maxBy = static_cast<std::size_t>(*v);
  }
  const std::vector<std::string>& files = p->positionals();
  if (files.size() != 1) {
    return badArg(err, "file",
                  "expected one candidates file (CSV), found " + std::to_string(files.size()));
  }
  const std::string format = formatOpt.value_or("table");  // its table checks the value

  auto source = readCandidateSource(files[0]);
  if (!source) return badInput(err, source.error());
  // Every dominator of every candidate grows as n²: bounded before it is computed.
  if (maxBy == 0 && !noBy && source->candidates.size() > kMaxRowsListingAll) {
    return badArg(err, "max-by",
                  "--max-by 0 lists every dominator of every candidate, up to n² ids; " +
                      std::to_string(source->candidates.size()) + " candidates is more than " +
                      std::to_string(kMaxRowsListingAll) +
                      ": give a count (e.g. --max-by 10) or --no-by");
  }

  FrontierQuery query;
  if (groupByOpt) {
    const auto g = parseGroupBy(*groupByOpt);
    if (!g) return badArg(err, "group-by", "expected model or none, found '" + *groupByOpt + "'");
    query.groupBy = *g;
  }
  query.defaultModel = source->scenarioModel;
  query.withDominators = !noBy;
  query.maxDominatorsListed = maxBy;
  query.metricNames = source->metricNames;
  if (objectivesOpt) {
    auto objs = parseObjectives(*objectivesOpt);
    if (!objs) return badInput(err, objs.error());
    query.objectives = std::move(*objs);
  } else if (source->view) {
    query.savedObjectives = source->view->objectives;
  }
  auto gates = gateOpts.empty() && source->view
                   ? parseGateTexts(source->view->gates, files[0], "/view/gates")
                   : parseGateTexts(gateOpts);
  if (!gates) return badInput(err, gates.error());
  query.gates = std::move(*gates);
  if (baselineOpt) query.baselineId = *baselineOpt;

  if (!source->hidden.empty()) {
    std::string ids;
    for (const auto& id : source->hidden) ids += (ids.empty() ? "" : ", ") + id;
    err << "qfront: note: " << files[0] << ": " << source->hidden.size()
        << " hidden candidate(s) left out: " << ids << "\n";
  }
  auto analysis = analyseFrontier(source->candidates, query, files[0]);
  if (!analysis) return badInput(err, analysis.error());
  const FrontierOptions& fo = analysis->options;
  for (const auto& w : analysis->warnings) {
    err << "qfront: warning: " << files[0] << ": " << w << "\n";
  }
  if (format == "json") {
    Json j = frontierToJson(analysis->result);
    j.update(frontierGroupsToJson(*analysis));
    j["warnings"] = analysis->warnings;
    j["baseline"] = fo.baselineId ? Json(*fo.baselineId) : Json(nullptr);
    j["gates"] = Json::array();
    for (const auto& g : fo.gates) j["gates"].push_back(g.text);
    writeJsonOutput(out, std::move(j));
  } else {
    printTable(*analysis, source->candidates, out);
  }
  return kExitOk;
}

}  // namespace qf::cli
