// qfront serving: one deployment under load — the seeded simulation per load beside the
// analytic steady state (docs/model.md, "Serving under load").
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/serving_intervals.hpp>
#include <quantfront/core/base/version.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/model/serving_model.hpp>
#include <quantfront/core/model/speculation.hpp>

#include "cli.hpp"
#include "cli_speculation.hpp"
#include "cli_workload.hpp"
#include "shell.hpp"

namespace qf::cli {

namespace {

/// qfront serving's options (the command shell's table: its --help and its refusals).
constexpr OptionSpec kServingOptions[] = {
    {"--model", "ID|FILE", "catalog model id or a config.json"},
    {"--gpu", "ID|FILE", "catalog GPU id or a GPU JSON file (its calibration block is used)"},
    {"--tp", "N", "GPUs per replica, tensor parallel (default 1)", kTpCheck},
};

constexpr OptionSpec kServingSchemeOptions[] = {
    {"--scheme", "S", "scheme of every layer kind (or --linear/--moe/--lm-head)"},
    {"--linear", "S", "scheme of attention, dense MLP, shared experts, router"},
    {"--moe", "S", "... of the routed experts (default: the --linear scheme)"},
    {"--lm-head", "S", "... of the LM head and embedding (default: the --linear scheme)"},
    {"--kv-dtype", "bf16|fp8", "KV-cache element type (default bf16)"},
};

constexpr OptionSpec kServingLoadOptions[] = {
    {"--load", "LIST",
     "sync (one request at a time), max (all at once) or request rates in\n"
     "req/s, comma-separated (default sync,max)"},
    {"--max-batch", "N",
     "running sequences at most (default: the engine's own on the GPU:\n"
     "vLLM 1024 on a GPU of >= 70 GiB other than the A100, else 256;\n"
     "SGLang 2048-4096 request slots from its KV pool; TensorRT-LLM 2048;\n"
     "vLLM's and TensorRT-LLM's per DP rank under --dp-attention)"},
    {"--token-budget", "N",
     "tokens per step, chunked prefill (default: the engine's own: vLLM\n"
     "8192 where its cap is 1024, else 2048; SGLang the slots plus its\n"
     "prefill chunk; TensorRT-LLM 8192)",
     kTokenBudgetCheck},
    {"--requests", "N",
     "simulated requests per load (default 2000, at least 20 x the batch\n"
     "cap: throughput is measured over the middle 80% of completions)"},
    {"--seed", "N", "simulation seed (default 1)"},
    {"--length-spread", "F",
     "simulated prompt and output lengths drawn uniformly from L x (1 - F)\n"
     "to L x (1 + F), as vLLM's --random-range-ratio F (0 to 0.99; default\n"
     "0: every request the same, which makes the batch run in waves)",
     numberIn(0, 0.99, false, "a number from 0 to 0.99")},
    {"--slo-ttft-ms", "X", "goodput counts requests with TTFT <= X ..."},
    {"--slo-tpot-ms", "Y", "... and TPOT <= Y"},
};

constexpr OptionSpec kServingEngineOptions[] = {
    {"--engine", "E",
     "the server: vllm or sglang (KV pool memory x mem-util - reserve; the\n"
     "default) or trtllm (0.9 of what weights and reserve leave, and\n"
     "TensorRT-LLM's own bundled constants where the GPU has them)"},
    {"--spec-k", "K",
     "speculative decoding: K draft tokens per step (1 to 15); the\n"
     "target verifies B x (K + 1) tokens a step"},
    {"--spec-acceptance", "A",
     "... the probability a draft token is accepted, in (0, 1]; a step\n"
     "yields (1 - A^(K+1)) / (1 - A) tokens per sequence; from:FILE reads\n"
     "A off the mean accept length of FILE's runs (SGLang bench_serving)"},
    {"--spec-draft", "D",
     "... the draft: a catalog model id or config.json (run in bf16 on the\n"
     "same GPUs, its weights and KV taken from the pool), or mtp (the\n"
     "target's multi-token-prediction layer: one layer's cost per token)"},
    kFormatOption,
};

const CommandSpec& servingCommand() {
  static const CommandSpec command{
      "qfront",
      "serving",
      "usage: qfront serving --model M --gpu G --scheme S (--use-case ID | --input-len I "
      "--output-len O)\n"
      "                      [--load sync|max|R[,R...]] [options]\n",
      R"(One deployment under load: a continuous-batching server with chunked prefill (a token budget
per step), a batch cap and the KV cache the engine leaves after the weights, preempting by
recompute when the cache runs out. Per load, a seeded discrete-event simulation of Poisson
arrivals gives TTFT and TPOT percentiles and throughput; the analytic steady state (what
`qfront search` uses) is printed beside it.
)",
      {kServingOptions, kMoeLayoutOptions, kServingSchemeOptions, kRequestShapeOptions,
       kServingLoadOptions, kMemoryOptions, kServingEngineOptions},
      R"(Fields per load: load, requests_per_s, output_tok_s, ttft_p50_ms, ttft_p99_ms, tpot_p50_ms,
tpot_p99_ms, goodput_req_s (with an SLO), preemptions, and the analytic steady state
(analytic_output_tok_s, analytic_ttft_ms, analytic_tpot_ms; null when the load exceeds what
the deployment sustains). JSON and CSV also give the simulation's ttft_mean_ms, tpot_mean_ms
(as the benchmarks define them: TPOT after the first token, per request) and itl_p50_ms,
itl_p99_ms (every gap between tokens: a step that also prefills a prompt chunk is a long gap,
so the p99 shows where chunks land); the analytic figures are means.

Exit status: 0 on success, 2 on bad input (one line naming the file and field).
)"};
  return command;
}

Json finiteOrNull(double v) {
  return std::isfinite(v) ? Json(v) : Json(nullptr);
}

/// One row per load: the simulation beside the analytic steady state.
Result<Json> loadRows(const StepTimeModel& steps, const ServingLimits& lim,
                      const ServingWorkload& w, const SimOptions& sim,
                      const std::vector<LoadPoint>& loads, bool withSlo) {
  Json rows = Json::array();
  for (const auto& lp : loads) {
    SimOptions o = sim;
    SteadyState analytic;
    if (lp.kind == LoadPoint::Kind::Sync) {
      o.closedLoopConcurrency = 1;
      analytic = stateAtConcurrency(steps, lim, w, 1.0);
    } else if (lp.kind == LoadPoint::Kind::Max) {
      o.requestsPerS = std::numeric_limits<double>::infinity();
      analytic = saturatedState(steps, lim, w);
    } else {
      o.requestsPerS = lp.rate;
      analytic = stateAtRate(steps, lim, w, lp.rate);
    }
    auto r = simulateServing(steps, lim, o);
    if (!r) return r.error();
    Json row;
    row["load"] = lp.text;
    row["requests_per_s"] = r->requestsPerS;
    row["output_tok_s"] = r->outputTokPerS;
    row["ttft_p50_ms"] = r->ttftP50S * 1e3;
    row["ttft_p99_ms"] = r->ttftP99S * 1e3;
    row["tpot_p50_ms"] = r->tpotP50S * 1e3;
    row["tpot_p99_ms"] = r->tpotP99S * 1e3;
    row["ttft_mean_ms"] = r->ttftMeanS * 1e3;
    row["tpot_mean_ms"] = r->tpotMeanS * 1e3;
    row["itl_p50_ms"] = r->itlP50S * 1e3;
    row["itl_p99_ms"] = r->itlP99S * 1e3;
    row["goodput_req_s"] = withSlo ? Json(r->goodputReqPerS) : Json(nullptr);
    row["preemptions"] = r->preemptions;
    row["mean_concurrency"] = r->meanConcurrency;
    const bool ok = analytic.stable || lp.kind == LoadPoint::Kind::Max;
    row["analytic_output_tok_s"] = ok ? finiteOrNull(analytic.outputTokPerS) : Json(nullptr);
    row["analytic_ttft_ms"] = ok ? finiteOrNull(analytic.ttftS * 1e3) : Json(nullptr);
    row["analytic_tpot_ms"] = ok ? finiteOrNull(analytic.tpotS * 1e3) : Json(nullptr);
    row["binding_limit"] = analytic.bindingLimit;
    rows.push_back(std::move(row));
  }
  return rows;
}

/// The 80% intervals of each row's analytic figures, from the calibration's fit record (the
/// value alone without one): `analytic_*_interval` [low, high] and `interval_level`.
void addIntervals(Json& rows, const Scenario& scenario, const SchemeAssignment& cand,
                  const ServingLimits& lim, const ServingWorkload& w,
                  const std::vector<LoadPoint>& loads,
                  const std::optional<PointSpeculation>& speculation) {
  const auto rec = e2eFitRecord(scenario.efficiency.calibrationExtra);
  ServingQuery q;
  q.speculation = speculation;
  q.scenario = scenario;
  q.candidate = cand;
  q.inputLen = w.inputTokens;
  q.outputLen = w.outputTokens;
  q.maxBatch = lim.maxBatch;
  q.tokenBudget = lim.tokenBudget;
  for (std::size_t i = 0; i < loads.size() && i < rows.size(); ++i) {
    Json& row = rows[i];
    const LoadPoint& lp = loads[i];
    q.load = lp.kind == LoadPoint::Kind::Sync  ? PointLoad::Concurrency
             : lp.kind == LoadPoint::Kind::Max ? PointLoad::Max
                                               : PointLoad::Rate;
    q.loadValue = lp.kind == LoadPoint::Kind::Sync ? 1.0 : lp.rate;
    row["interval_level"] = 0.8;
    for (auto [key, metric] : {std::pair{"analytic_output_tok_s", E2eMetric::OutputTokS},
                               {"analytic_ttft_ms", E2eMetric::TtftMs},
                               {"analytic_tpot_ms", E2eMetric::TpotMs}}) {
      const std::string name = std::string(key) + "_interval";
      if (row[key].is_null()) {
        row[name] = nullptr;
        continue;
      }
      // Around the row's own figure (a rate the model prices at 99% of its saturation).
      const auto iv =
          servingIntervalAround(q, metric, row[key].get<double>(), 0.8, rec ? &*rec : nullptr);
      row[name] = iv ? Json{iv->low, iv->high} : Json(nullptr);
    }
  }
}

/// What the three output formats print.
struct ServingReport {
  const Scenario& scenario;
  const ScenarioSpec& spec;
  const std::string& scheme;
  const std::string& useCaseId;
  const ServingWorkload& workload;
  const ServingLimits& limits;
  const SimOptions& sim;
  const Json& rows;
  const std::optional<Speculation>& speculation;
  const std::string& draftLabel;        ///< the draft model's id, or "mtp" (with speculation)
  const std::string& acceptanceSource;  ///< empty: given
  /// Where the batch cap and token budget come from: "given", or the engine's defaults'
  /// rule (engineAdmissionDefaults) for what the options left unset.
  const std::string& limitsSource;
};

/// The speculation of a report as JSON: null when off.
Json speculationJson(const ServingReport& r) {
  if (!r.speculation) return nullptr;
  return Json{{"draft_tokens", r.speculation->draftTokens},
              {"acceptance", r.speculation->acceptance},
              {"acceptance_source", acceptanceSourceJson(r.acceptanceSource)},
              {"draft", r.draftLabel},
              {"tokens_per_step", expectedTokensPerStep(*r.speculation)}};
}

void printJson(const ServingReport& r, std::ostream& out) {
  Json j;
  j["model"] = r.scenario.model.id;
  j["gpu"] = r.scenario.gpu.id;
  j["tp"] = r.spec.tp;
  j["ep"] = r.scenario.ep;
  j["dp_attention"] = r.scenario.dpAttention;
  j["expert_imbalance"] = r.scenario.expertImbalance;
  j["redundant_experts"] = r.scenario.redundantExperts;
  j["two_batch_overlap"] = r.scenario.twoBatchOverlap;
  j["scheme"] = r.scheme;
  j["kv_dtype"] = r.spec.kvDtype;
  j["use_case"] = r.useCaseId.empty() ? Json(nullptr) : Json(r.useCaseId);
  j["input_len"] = r.workload.inputTokens;
  j["output_len"] = r.workload.outputTokens;
  j["max_batch"] = r.limits.maxBatch;
  j["token_budget"] = r.limits.tokenBudget;
  j["limits_source"] = r.limitsSource;
  j["kv_capacity_tokens"] = r.limits.kvCapacityTokens;
  j["requests"] = r.sim.requests;
  j["seed"] = r.sim.seed;
  j["length_spread"] = r.sim.output.spread;
  j["efficiency_source"] = r.scenario.efficiency.source;
  j["speculation"] = speculationJson(r);
  j["loads"] = r.rows;
  writeJsonOutput(out, std::move(j));
}

/// The columns of the CSV and of the table, in order.
constexpr const char* kColumns[] = {
    "load",        "requests_per_s",        "output_tok_s",     "ttft_p50_ms",
    "ttft_p99_ms", "tpot_p50_ms",           "tpot_p99_ms",      "goodput_req_s",
    "preemptions", "analytic_output_tok_s", "analytic_ttft_ms", "analytic_tpot_ms"};
/// The simulation's further figures, at the end of each CSV row (JSON has them too).
constexpr const char* kCsvTailColumns[] = {"ttft_mean_ms", "tpot_mean_ms", "itl_p50_ms",
                                           "itl_p99_ms"};
/// The intervals' columns of the CSV (low and high of each analytic figure).
constexpr const char* kIntervalColumns[] = {"analytic_output_tok_s", "analytic_ttft_ms",
                                            "analytic_tpot_ms"};

std::string cell(const Json& v) {
  if (v.is_null()) return std::string("-");
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  return fixedOrInf(v.get<double>(), 2);
}

void printCsv(const ServingReport& r, std::ostream& out) {
  for (std::size_t i = 0; i < std::size(kColumns); ++i) out << (i ? "," : "") << kColumns[i];
  for (const char* c : kIntervalColumns) out << "," << c << "_low," << c << "_high";
  for (const char* c : kCsvTailColumns) out << "," << c;
  out << "\n";
  for (const auto& row : r.rows) {
    for (std::size_t i = 0; i < std::size(kColumns); ++i) {
      const auto& v = row[kColumns[i]];
      out << (i ? "," : "") << (v.is_null() ? std::string() : cell(v));
    }
    for (const char* c : kIntervalColumns) {
      const auto& iv = row[std::string(c) + "_interval"];
      out << "," << (iv.is_array() ? cell(iv[0]) : std::string()) << ","
          << (iv.is_array() ? cell(iv[1]) : std::string());
    }
    for (const char* c : kCsvTailColumns) out << "," << cell(row[c]);
    out << "\n";
  }
}

/// ", lengths within +-F of the means" under --length-spread F, else nothing.
std::string lengthSpreadText(const SimOptions& sim) {
  if (sim.output.kind != LengthDistribution::Kind::Uniform) return {};
  return ", lengths uniform within +-" + readable(100.0 * sim.output.spread) + "% of the means";
}

void printTable(const ServingReport& r, std::ostream& out) {
  out << r.scenario.model.id << " on " << r.spec.tp << " x " << r.scenario.gpu.id;
  if (r.scenario.ep > 1) out << " (EP " << r.scenario.ep << ")";
  if (r.scenario.redundantExperts > 0)
    out << " (" << r.scenario.redundantExperts << " redundant expert slots)";
  if (r.scenario.dpAttention) out << " (DP attention)";
  if (r.scenario.twoBatchOverlap) out << " (two-batch overlap)";
  out << ", " << r.scheme << ", KV " << r.spec.kvDtype << "; " << r.workload.inputTokens << " -> "
      << r.workload.outputTokens << " tokens; batch cap " << r.limits.maxBatch << ", token budget "
      << r.limits.tokenBudget << " (" << r.limitsSource << "), KV cache "
      << fixedOrInf(r.limits.kvCapacityTokens, 0) << " tokens\n"
      << "simulated: " << r.sim.requests << " requests per load, seed " << r.sim.seed
      << lengthSpreadText(r.sim)
      << "; analytic: steady state (efficiency: " << r.scenario.efficiency.source << ")\n";
  if (r.speculation)
    out << "speculative decoding: " << r.speculation->draftTokens << " draft tokens a step from "
        << r.draftLabel << ", acceptance " << r.speculation->acceptance << " ("
        << fixedOrInf(expectedTokensPerStep(*r.speculation), 2) << " tokens a step)\n";
  const char* heads[] = {"load",     "req/s",       "out tok/s",  "TTFT p50",
                         "TTFT p99", "TPOT p50",    "TPOT p99",   "goodput",
                         "preempt",  "model tok/s", "model TTFT", "model TPOT"};
  for (const char* h : heads) out << std::setw(12) << h;
  out << "\n";
  for (const auto& row : r.rows) {
    for (const char* c : kColumns) out << std::setw(12) << cell(row[c]);
    out << "\n";
  }
  out << "(latencies in ms; model = analytic steady state, TTFT at max = from "
         "admission)\n";
  out << "80% intervals of the model (constants' spread, docs/model.md Intervals):\n";
  for (const auto& row : r.rows) {
    out << std::setw(12) << cell(row["load"]);
    for (const char* c : kIntervalColumns) {
      const auto& iv = row[std::string(c) + "_interval"];
      out << std::setw(26)
          << (iv.is_array() ? cell(iv[0]) + " - " + cell(iv[1]) : std::string("-"));
    }
    out << "\n";
  }
}

}  // namespace

namespace {

/// The speculation `--spec-draft` names (mtp: the target's own layer; else a draft model on
/// the target's GPUs) into `point`, and `eng` priced with it as the intervals price it
/// (speculativeEngineServing). 0 or the exit code.
int speculate(const ScenarioSpec& spec, const Scenario& scenario, const std::string& draftName,
              const Speculation& speculation, EngineServing& eng, PointSpeculation& point,
              std::ostream& err) {
  int rc = kExitOk;
  point.speculation = speculation;
  if (draftName != "mtp") {
    auto d = draftScenario(spec, scenario, draftName, err, rc);
    if (!d) return rc;
    point.draftScenario = std::move(d->first);
    point.draftCandidate = std::move(d->second);
  }
  auto se = speculativeEngineServing(eng, scenario, point, scenario.efficiency);
  if (!se) return badInput(err, se.error());
  eng = std::move(*se);
  return kExitOk;
}

void printReport(const std::string& fmtName, const ServingReport& report, std::ostream& out) {
  if (fmtName == "json")
    printJson(report, out);
  else if (fmtName == "csv")
    printCsv(report, out);
  else
    printTable(report, out);
}

/// The server's limits and the simulation's settings, as given.
struct SimulationArgs {
  std::optional<std::string> maxBatch, budget, requests, seed, sloTtft, sloTpot, load, lengthSpread;
};

/// The replica's limits before --max-batch and --token-budget: the engine's own defaults on
/// the GPU, and the KV cache `eng` leaves; `source` says which rule gave what the options do
/// not (JSON `limits_source`).
ServingLimits admissionLimits(const std::string& engine, const Scenario& scenario,
                              const EngineServing& eng, bool capGiven, bool budgetGiven,
                              std::string& source) {
  const auto d = engineAdmissionDefaults(engine, scenario.gpu, eng.kvCapacityTokens,
                                         static_cast<double>(scenario.maxModelLen),
                                         schedulerRanks(scenario.tp, scenario.dpAttention));
  source = capGiven && budgetGiven   ? std::string("given")
           : capGiven || budgetGiven ? "given; the other from " + d.rule
                                     : d.rule;
  ServingLimits lim;
  lim.maxBatch = d.maxBatch;
  lim.tokenBudget = d.tokenBudget;
  lim.kvCapacityTokens = eng.kvCapacityTokens;
  return lim;
}

/// --max-batch, --token-budget, --requests, --seed, the SLOs and --load into the limits (whose
/// KV capacity is set), the simulation and the loads. 0 or the exit code.
int simulationOptions(const SimulationArgs& a, const ServingWorkload& w, ServingLimits& lim,
                      SimOptions& sim, std::vector<LoadPoint>& loads, std::ostream& err) {
  int rc = kExitOk;
  if (a.maxBatch) {
    const auto v = parseInt(*a.maxBatch);
    if (!v || *v < 1 || *v > 1'000'000)
      return badArg(err, "max-batch",
                    "expected an integer from 1 to 1000000, found '" + *a.maxBatch + "'");
    lim.maxBatch = static_cast<int>(*v);
  }
  if (!tokenBudgetOption(a.budget, lim.tokenBudget, err, rc)) return rc;
  // A cap given above the engine's default budget takes a budget that holds its decodes.
  if (!a.budget) lim.tokenBudget = std::max(lim.tokenBudget, static_cast<double>(lim.maxBatch));
  if (auto e = validateServing(lim, w)) return badInput(err, *e);
  sim.input.mean = w.inputTokens;
  sim.output.mean = w.outputTokens;
  if (a.lengthSpread) {
    const auto f = parseNumber(*a.lengthSpread);
    if (!f || !(*f >= 0 && *f <= 0.99))
      return badArg(err, "length-spread",
                    "expected a number from 0 to 0.99, found '" + *a.lengthSpread + "'");
    if (*f > 0) {
      for (LengthDistribution* d : {&sim.input, &sim.output}) {
        d->kind = LengthDistribution::Kind::Uniform;
        d->spread = *f;
      }
    }
  }
  if (a.requests) {
    const auto v = parseInt(*a.requests);
    if (!v || *v < 1 || *v > 1'000'000)
      return badArg(err, "requests",
                    "expected an integer from 1 to 1000000, found '" + *a.requests + "'");
    sim.requests = static_cast<int>(*v);
  } else {
    // Enough waves of the batch for the middle 80% of completions to be a steady state.
    sim.requests = std::max(2000, 20 * lim.maxBatch);
  }
  if (a.seed) {
    const auto v = parseInt(*a.seed);
    if (!v || *v < 0)
      return badArg(err, "seed", "expected a non-negative integer, found '" + *a.seed + "'");
    sim.seed = static_cast<std::uint64_t>(*v);
  }
  const auto ttftSlo = positiveOption(a.sloTtft, "slo-ttft-ms", err, rc);
  if (rc != kExitOk) return rc;
  const auto tpotSlo = positiveOption(a.sloTpot, "slo-tpot-ms", err, rc);
  if (rc != kExitOk) return rc;
  if (tpotSlo && w.outputTokens < 2)
    return badArg(err, "slo-tpot-ms",
                  "a TPOT needs at least 2 output tokens (TPOT is the time between them); this "
                  "workload has 1");
  sim.sloTtftS = ttftSlo.value_or(0) / 1e3;
  sim.sloTpotS = tpotSlo.value_or(0) / 1e3;
  if (!parseLoads(a.load.value_or("sync,max"), loads, err, rc)) return rc;
  // At load max the batch fills at once: fewer than 20 waves of it are a ramp, whose
  // simulated throughput ran 17-24x a long run's at 19-256 requests.
  const bool fills = std::any_of(loads.begin(), loads.end(),
                                 [](const LoadPoint& l) { return l.kind == LoadPoint::Kind::Max; });
  if (fills && sim.requests < 20 * static_cast<double>(lim.maxBatch)) {
    err << "qfront: warning: --requests " << sim.requests << " is under 20 x the batch cap ("
        << 20 * lim.maxBatch
        << "): the simulated columns at load max are not a steady state (the analytic "
           "ones are)\n";
  }

  // Every load is one simulation: their work together is bounded before any starts.
  if (auto e = checkSimulationWork(simulationWork(lim, sim) * static_cast<double>(loads.size()))) {
    return badArg(err, "requests", e->message);
  }
  return kExitOk;
}

}  // namespace

int cmdServing(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  int rc = kExitOk;
  const auto p = parseCommand(servingCommand(), argv, out, err, rc);
  if (!p) return rc;
  const auto model = p->value("--model"), gpu = p->value("--gpu"), tp = p->value("--tp"),
             scheme = p->value("--scheme"), linear = p->value("--linear"), moe = p->value("--moe"),
             lmHead = p->value("--lm-head"), kvDtype = p->value("--kv-dtype"),
             useCase = p->value("--use-case"), inputLen = p->value("--input-len"),
             outputLen = p->value("--output-len"), load = p->value("--load"),
             maxBatch = p->value("--max-batch"), budget = p->value("--token-budget"),
             requests = p->value("--requests"), seed = p->value("--seed"),
             sloTtft = p->value("--slo-ttft-ms"), sloTpot = p->value("--slo-tpot-ms"),
             memUtil = p->value("--mem-util"), reserve = p->value("--reserve-gib"),
             engine = p->value("--engine"), format = p->value("--format"),
             specK = p->value("--spec-k"), specAccept = p->value("--spec-acceptance"),
             specDraft = p->value("--spec-draft"), ep = p->value("--ep"),
             imbalance = p->value("--expert-imbalance"), lengthSpread = p->value("--length-spread");
  const bool dpAttention = p->flag("--dp-attention");
  if (!model) return badArg(err, "model", "--model is required");
  if (!gpu) return badArg(err, "gpu", "--gpu is required");
  if (!scheme && !linear) return badArg(err, "scheme", "--scheme (or --linear) is required");
  if (scheme && linear) return badArg(err, "scheme", "give --scheme or --linear, not both");
  // --moe and --lm-head refine --linear; beside --scheme they were silently dropped.
  if (scheme && (moe || lmHead))
    return badArg(err, moe ? "moe" : "lm-head",
                  std::string(moe ? "--moe" : "--lm-head") +
                      " goes with --linear (per layer kind), not with --scheme");
  std::string fmtName;
  if (!tableCsvJsonFormat(format, fmtName, err, rc)) return rc;

  std::string useCaseId;
  const auto w = workloadOption(useCase, inputLen, outputLen, useCaseId, err, rc);
  if (!w) return rc;
  ScenarioSpec spec;
  spec.model = *model;
  spec.gpu = *gpu;
  if (!tpOption(tp, spec.tp, err, rc)) return rc;
  if (kvDtype) spec.kvDtype = *kvDtype;
  spec.maxModelLen = static_cast<std::int64_t>(w->inputTokens + w->outputTokens);
  if (!memoryOptions(memUtil, reserve, spec.memUtil, spec.reserveGib, err, rc)) return rc;
  if (engine) spec.engine = *engine;  // resolveScenario refuses an engine it does not know
  MoeLayout layout;
  if (const int bad = moeLayoutOptions(ep, imbalance, dpAttention, p->number("--redundant-experts"),
                                       layout, err, p->flag("--two-batch-overlap")))
    return bad;
  auto scenario = resolveScenario(spec, layout);
  if (!scenario) return badInput(err, scenario.error());
  auto cands = scheme ? makeCandidates({*scheme}, "", "", "")
                      : makeCandidates({}, *linear, moe.value_or(""), lmHead.value_or(""));
  if (!cands) return badInput(err, cands.error());
  if (auto e = checkRequestLength(scenario->model, w->inputTokens, w->outputTokens))
    return badInput(err, *e);
  auto eng = engineServing(*scenario, cands->front());
  if (!eng) return badInput(err, eng.error());
  std::optional<PointSpeculation> pointSpeculation;
  std::string acceptanceSource;
  const auto speculation =
      speculationOption({specK, specAccept, specDraft}, err, rc, &acceptanceSource);
  if (rc != kExitOk) return rc;
  if (speculation) {
    pointSpeculation.emplace();
    if (const int bad =
            speculate(spec, *scenario, *specDraft, *speculation, *eng, *pointSpeculation, err))
      return bad;
  }
  const std::string draftLabel = !pointSpeculation ? std::string()
                                 : pointSpeculation->draftScenario
                                     ? pointSpeculation->draftScenario->model.id
                                     : std::string("mtp");
  if (eng->kvCapacityTokens < w->inputTokens + w->outputTokens)
    return badArg(err, "gpu",
                  "the weights of " + cands->front().id + " leave no room for one request's KV " +
                      "cache on " + std::to_string(spec.tp) + " x " + scenario->gpu.id +
                      " (raise --tp or choose a smaller scheme)");

  std::string limitsSource;
  ServingLimits lim = admissionLimits(spec.engine, *scenario, *eng, maxBatch.has_value(),
                                      budget.has_value(), limitsSource);
  SimOptions sim;
  std::vector<LoadPoint> loads;
  if (const int bad = simulationOptions(
          {maxBatch, budget, requests, seed, sloTtft, sloTpot, load, lengthSpread}, *w, lim, sim,
          loads, err))
    return bad;
  auto rows = loadRows(eng->steps, lim, *w, sim, loads, sim.sloTtftS > 0 || sim.sloTpotS > 0);
  if (!rows) return badInput(err, rows.error());
  // The intervals move the calibration's constants along its spread; under speculation the
  // draft (on the target's GPU constants) moves with the target.
  addIntervals(*rows, *scenario, cands->front(), lim, *w, loads, pointSpeculation);
  printReport(fmtName,
              {*scenario, spec, cands->front().id, useCaseId, *w, lim, sim, *rows, speculation,
               draftLabel, acceptanceSource, limitsSource},
              out);
  return kExitOk;
}

}  // namespace qf::cli
