// qfront search: the deployment search (docs/model.md, "Deployment search").
#include <cctype>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/deploy_intervals.hpp>
#include <quantfront/core/analysis/deploy_search.hpp>
#include <quantfront/core/analysis/launch_command.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/core/base/version.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/session/deploy_gate.hpp>
#include <quantfront/core/session/session.hpp>

#include "cli.hpp"
#include "cli_speculation.hpp"
#include "cli_workload.hpp"
#include "shell.hpp"

namespace qf::cli {

namespace {

/// qfront search's options (the command shell's table: its --help and its refusals).
constexpr OptionSpec kSearchModelOption[] = {
    {"--model", "ID|FILE", "catalog model id or a config.json"},
};
constexpr OptionSpec kSearchSpaceOptions[] = {
    {"--gpus", "LIST|all", "catalog GPU ids or GPU JSON files, comma-separated (default all)"},
    {"--max-gpus", "N",
     "GPU counts 1, 2, 4, 8, then whole 8-GPU nodes (16, 24, ..., 128),\n"
     "then powers of two, up to N (default 8)"},
    {"--schemes", "LIST|all",
     "schemes a layer kind may take (default: those the Deploy tab ticks,\n"
     "the catalog's \"default_for\" deploy: bf16, w8a8-fp8, w8a8-int8,\n"
     "w4a16-g128; all: every catalog scheme)"},
    {"--per-kind", "", "every layer kind (linear, moe, lm_head) its own scheme"},
    {"--kv-dtypes", "LIST", "KV-cache element types (default bf16,fp8)"},
    {"--max-batch", "LIST",
     "batch caps (default 1,2,4,8,16,24,32,48,64,96,128,192,256,384,512,768,1024)"},
    {"--token-budget", "N", "tokens per step per replica, chunked prefill (default 8192)"},
    {"--load", "sync|max|R",
     "one request at a time, saturated, or R req/s over the deployment\n"
     "(default max)"},
    {"--slo-ttft-ms", "X", "keep configurations with TTFT <= X"},
    {"--slo-tpot-ms", "Y", "keep configurations with TPOT <= Y"},
    {"--latency", "tpot|ttft", "the frontier's latency axis (default tpot)"},
    {"--price", "GPU=USD[,...]", "USD per GPU-hour, overriding the catalog (repeatable)", {}, true},
    {"--skip-unpriced", "", "leave out GPUs without a price instead of refusing them"},
    {"--datasheet", "",
     "the ideal roofline (no per-step overhead, datasheet bandwidth and\n"
     "peaks) instead of the GPU file's calibration or the bundled defaults"},
};
constexpr OptionSpec kSearchLayoutOptions[] = {
    {"--disaggregated", "",
     "also search disaggregated deployments: a prefill pool and a decode\n"
     "pool (each its own GPU, schemes, TP and replicas, one KV dtype,\n"
     "together at most --max-gpus), the KV moved over NVLink within one\n"
     "node of 8 GPUs of one type, else over a 50 GB/s NIC per GPU"},
    {"--no-moe-parallel", "",
     "MoE models: plain TP only (default: every expert-parallel degree\n"
     "dividing the replica's GPUs, with the fewest redundant expert slots\n"
     "that make it divide the experts, with and without DP attention,\n"
     "beside plain TP)"},
    {"--two-batch-overlap", "",
     "MoE models: also try DP attention at EP = TP with two-batch overlap\n"
     "(its all-to-all under the other micro-batch's work; SGLang\n"
     "--enable-two-batch-overlap, vLLM --enable-dbo)"},
    {"--expert-imbalance", "F",
     "the busiest GPU's routed-expert work over the mean under EP (default\n"
     "1, uniform routing; 1 to 64)"},
    {"--spec-k", "K", "speculative decoding on every deployment: K draft tokens a step (1 to 15)"},
    {"--spec-acceptance", "A",
     "... acceptance in (0, 1] (from:FILE: off the mean accept length of\n"
     "FILE's SGLang bench_serving runs)"},
    {"--spec-draft", "mtp|D",
     "... the draft: the model's MTP layer (mtp) or a draft model D (a\n"
     "catalog model id or config.json, run in bf16 on each replica's GPUs\n"
     "at its TP); the token budget is at least the batch cap x (K + 1)"},
    {"--gate",
     "\"metric>=X\"",
     "a quality gate (repeatable), with --session: only schemes whose\n"
     "candidate of the model in SESSION passes every gate on its whole\n"
     "interval are searched (\"score>=baseline-0.5\" takes --baseline, else the\n"
     "model's bf16 candidate); the candidates that do not pass are noted",
     {},
     true},
    {"--session", "SESSION", "the session whose candidates the gates read"},
    {"--baseline", "ID", "the candidate baseline-relative gates compare with"},
    kFormatOption,
};

const CommandSpec& searchCommand() {
  static const CommandSpec command{
      "qfront",
      "search",
      "usage: qfront search --model M (--use-case ID | --input-len I --output-len O) [options]\n",
      R"(Every deployment — GPU x GPU count x TP/replica split x scheme per layer kind x KV dtype x
batch cap — that fits in memory is evaluated at the analytic serving steady state (continuous
batching, chunked prefill, KV capacity); those meeting the SLOs form a frontier of USD per
million output tokens against TPOT (or TTFT). Prices are the catalog's on-demand USD per
GPU-hour (`qfront catalog` shows each with its source and date) unless --price overrides.
)",
      {kSearchModelOption, kRequestShapeOptions, kSearchSpaceOptions, kMemoryOptions,
       kSearchLayoutOptions},
      R"(JSON: space, evaluated (distinct configurations computed), feasible, rejected{memory, load,
ttft, tpot, gate}, skipped_dominated (disaggregated pairs a frontier point beat at their
bounds, not solved), frontier[] and best, each with gpu, gpu_count, tp, replicas, ep, dp_attention, prefill_tp,
prefill_replicas, prefill_gpu, prefill_schemes{linear, moe, lm_head}, prefill_scheme_id,
kv_transfer_ms (disaggregated; null otherwise: gpu, tp, replicas and schemes are then the
decode pool's),
schemes{linear, moe, lm_head}, kv_dtype, max_batch (a replica's; under DP attention its
ranks' caps together), ttft_ms, tpot_ms, output_tok_s,
usd_per_million_output_tokens, usd_per_hour, binding_limit; message when nothing is feasible;
gate (with --gate: the session, the gates, the passing schemes and the candidates that do not
pass), null without. best.launch: for vllm, sglang and trtllm, the command that launches the
answer (command, checkpoint, checkpoint_to_make, notes): its TP and replicas, the batch cap as
--max-num-seqs, the token budget as --max-num-batched-tokens, the KV dtype and memory fraction.

Exit status: 0 on success (also when nothing is feasible: the message says which constraint
binds), 2 on bad input (one line naming the file and field).
)"};
  return command;
}

/// --gate with --session: the search's gate from the session's candidates of the model
/// (deployGateFromSession); 0, or the exit status after printing the error.
int sessionGate(const std::vector<std::string>& gateTexts,
                const std::optional<std::string>& session,
                const std::optional<std::string>& baseline, const std::string& modelId,
                DeployOptions& o, Json& gateJson, std::ostream& err) {
  if (gateTexts.empty() && !session && !baseline) return kExitOk;
  if (gateTexts.empty()) return badArg(err, "gate", "--session and --baseline go with --gate");
  if (!session) return badArg(err, "session", "--gate needs --session SESSION (its candidates)");
  std::vector<Gate> gates;
  for (const auto& t : gateTexts) {
    auto g = parseGate(t);
    if (!g) return badInput(err, g.error().from(kCommandLine));
    gates.push_back(*g);
  }
  auto s = loadSession(*session);
  if (!s) return badInput(err, s.error());
  auto dg = deployGateFromSession(*s, modelId, gates, baseline);
  if (!dg) return badInput(err, Error{*session, "", dg.error().field, dg.error().message});
  for (const auto& n : dg->notes) err << "qfront: note: " << *session << ": " << n << "\n";
  o.gate = dg->passes;
  gateJson = {{"session", *session},
              {"gates", gateTexts},
              {"passing_schemes", dg->passingSchemes},
              {"not_passing", dg->notes}};
  return kExitOk;
}

std::string lowerAscii(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// The GPUs searched (--gpus, default all), priced from --price or the catalog; 0, or the exit
/// status of a bad option (printed on `err`).
int searchedGpus(const std::vector<std::string>& prices, const std::optional<std::string>& gpus,
                 bool skipUnpriced, const Catalog& cat, std::vector<GpuSpec>& out,
                 std::ostream& err) {
  // Prices given on the command line, by GPU id.
  std::map<std::string, double> priceOf;
  for (const auto& list : prices) {
    for (const auto& item : splitComma(list)) {
      const auto eq = item.find('=');
      const auto v = eq == std::string::npos ? std::nullopt : parseNumber(item.substr(eq + 1));
      if (!v || !(*v > 0) || eq == 0)
        return badArg(err, "price",
                      "expected GPU=USD per GPU-hour (positive), found '" + item + "'");
      if (*v > kGpuPriceRange.max) {
        return badArg(err, "price",
                      "a price of at most 1000000 USD per GPU-hour (as a GPU file holds), "
                      "found '" +
                          item + "'");
      }
      const std::string gpuKey = lowerAscii(item.substr(0, eq));
      if (priceOf.count(gpuKey) != 0) {
        return badArg(err, "price",
                      "--price gives GPU '" + item.substr(0, eq) + "' two prices; give one");
      }
      priceOf[gpuKey] = *v;
    }
  }
  std::vector<std::string> gpuIds;
  if (!gpus || *gpus == "all") {
    for (const auto& g : cat.gpus()) gpuIds.push_back(g.id);
  } else {
    gpuIds = splitComma(*gpus);
  }
  std::set<std::string> seen;
  for (const auto& id : gpuIds) {
    auto g = cat.resolveGpu(id);
    if (!g) return badInput(err, g.error().from(kCommandLine));
    const std::string key = g->id.empty() ? id : g->id;
    if (!seen.insert(lowerAscii(key)).second) {
      return badArg(err, "gpus", "GPU '" + id + "' is listed twice; list each GPU once");
    }
    if (auto p = priceOf.find(lowerAscii(g->id)); p != priceOf.end()) {
      g->pricePerGpuHourUsd = p->second;
      g->priceSource = "--price";
      priceOf.erase(p);
    }
    if (!g->pricePerGpuHourUsd || !(*g->pricePerGpuHourUsd > 0)) {
      if (skipUnpriced) continue;
      return badArg(err, "price",
                    "GPU '" + g->id + "' has no price per GPU-hour; give one with --price " +
                        g->id + "=USD or leave it out with --skip-unpriced");
    }
    out.push_back(std::move(*g));
  }
  if (!priceOf.empty())
    return badArg(err, "price",
                  "--price names GPU '" + priceOf.begin()->first + "', which is not searched");
  if (out.empty()) return badArg(err, "gpus", "no priced GPU left to search");
  return kExitOk;
}

/// Each frontier deployment's 80% intervals (`*_interval` [low, high], `interval_level`) and
/// the best one's ties: the frontier deployments whose cost interval overlaps its own
/// (`best_ties`, their frontier indices; `best_is_tie`). Returns false after printing an error.
bool addIntervals(Json& j, const DeploySpace& sp, const DeployOptions& o, const DeployResult& r,
                  std::ostream& err) {
  auto fi = frontierIntervals(sp, o, r);
  if (!fi) {
    badInput(err, fi.error());
    return false;
  }
  auto pair = [](const IntervalEstimate& iv) { return Json{iv.low, iv.high}; };
  for (std::size_t i = 0; i < fi->frontier.size(); ++i) {
    const DeployIntervals& iv = fi->frontier[i];
    Json& c = j["frontier"][i];
    c["interval_level"] = fi->level;
    c["ttft_ms_interval"] = pair(iv.ttftMs);
    c["tpot_ms_interval"] = pair(iv.tpotMs);
    c["output_tok_s_interval"] = pair(iv.outputTokS);
    c["usd_per_million_output_tokens_interval"] = pair(iv.usdPerMillionOutputTokens);
  }
  j["best_ties"] = fi->bestTies;
  j["best_is_tie"] = !fi->bestTies.empty();
  if (!fi->best) return true;
  for (const char* key : {"ttft_ms_interval", "tpot_ms_interval", "output_tok_s_interval",
                          "usd_per_million_output_tokens_interval", "interval_level"})
    j["best"][key] = j["frontier"][*fi->best][key];
  return true;
}

/// The frontier as CSV or a table (with the best deployment).
void printSearch(const std::string& fmtName, const DeploySpace& sp, const ServingWorkload& w,
                 const DeployOptions& o, const DeployResult& r, const Json& j, std::ostream& out,
                 std::ostream& err) {
  const char* cols[] = {"gpu",
                        "gpu_count",
                        "tp",
                        "replicas",
                        "ep",
                        "redundant_experts",
                        "dp_attention",
                        "prefill_tp",
                        "prefill_replicas",
                        "prefill_gpu",
                        "prefill_scheme_id",
                        "scheme_id",
                        "kv_dtype",
                        "max_batch",
                        "ttft_ms",
                        "tpot_ms",
                        "output_tok_s",
                        "usd_per_million_output_tokens"};
  auto cell = [](const Json& v) {
    if (v.is_null()) return std::string("-");
    if (v.is_string()) return v.get<std::string>();
    if (v.is_boolean()) return std::string(v.get<bool>() ? "yes" : "no");
    if (v.is_number_integer()) return std::to_string(v.get<long long>());
    return fixedOrInf(v.get<double>(), 3);
  };
  // A search with two-batch overlap says which deployments run it: a CSV column for each pool,
  // "yes+tbo" in the table's DP attention column and "+tbo" after the prefill pool's TP.
  const bool tbo = sp.twoBatchOverlap;
  if (fmtName == "csv") {
    for (std::size_t i = 0; i < std::size(cols); ++i) out << (i ? "," : "") << cols[i];
    out << (tbo ? ",two_batch_overlap,prefill_two_batch_overlap" : "") << "\n";
    // A per-kind scheme id holds commas: such a cell is quoted.
    auto csvCell = [&](const Json& v) {
      const std::string text = cell(v);
      return text.find(',') == std::string::npos ? text : "\"" + text + "\"";
    };
    for (const auto& c : j["frontier"]) {
      for (std::size_t i = 0; i < std::size(cols); ++i)
        out << (i ? "," : "") << csvCell(c[cols[i]]);
      if (tbo)
        out << "," << cell(c["two_batch_overlap"]) << "," << cell(c["prefill_two_batch_overlap"]);
      out << "\n";
    }
    if (!r.nothingFeasible.empty())
      err << "qfront: nothing feasible: " << r.nothingFeasible << "\n";
    return;
  }
  out << sp.model.id << ", " << w.inputTokens << " -> " << w.outputTokens << " tokens, load "
      << deployLoadText(o.load) << "; " << r.space << " configurations, " << r.evaluated
      << " fit in memory and were evaluated, " << r.feasible << " feasible\n";
  if (!r.nothingFeasible.empty()) {
    out << "nothing feasible: " << r.nothingFeasible << "\n";
    return;
  }
  out << "frontier (USD per million output tokens against "
      << (o.axis == LatencyAxis::Tpot ? "TPOT" : "TTFT") << "):\n";
  const char* heads[] = {
      "gpu",        "count",     "tp",          "replicas",        "ep",      "+slots", "DP attn",
      "prefill tp", "prefill x", "prefill gpu", "prefill schemes", "schemes", "kv",     "max_batch",
      "TTFT ms",    "TPOT ms",   "out tok/s",   "USD/M tok"};
  const int widths[] = {10, 6, 4, 9, 4, 7, 8, 11, 10, 12, 18, 34, 6, 10, 10, 9, 11, 10};
  static_assert(std::size(heads) == std::size(cols) && std::size(widths) == std::size(cols));
  for (std::size_t i = 0; i < std::size(heads); ++i) out << std::setw(widths[i]) << heads[i];
  out << "\n";
  for (const auto& c : j["frontier"]) {
    for (std::size_t i = 0; i < std::size(cols); ++i) {
      const std::string col = cols[i];
      std::string text = cell(c[cols[i]]);
      if (tbo && col == "dp_attention" && c.value("two_batch_overlap", false)) text = "yes+tbo";
      if (tbo && col == "prefill_tp" && c["prefill_two_batch_overlap"].is_boolean() &&
          c["prefill_two_batch_overlap"].get<bool>())
        text += "+tbo";
      out << std::setw(widths[i]) << text;
    }
    out << "\n";
  }
  const auto& b = *r.best;
  out << "best: " << b.gpuCount << " x " << b.gpu << " (tp " << b.tp
      << (b.layoutText().empty() ? "" : ", " + b.layoutText()) << ", " << b.replicas << " replica"
      << (b.replicas == 1 ? "" : "s") << "), " << b.schemeId() << ", KV " << b.kvDtype
      << ", batch cap " << b.maxBatch << ": " << fixedOrInf(b.usdPerMillionOutputTokens, 3)
      << " USD per million output tokens";
  if (j["best"].contains("usd_per_million_output_tokens_interval")) {
    const auto& iv = j["best"]["usd_per_million_output_tokens_interval"];
    out << " (80% interval " << fixedOrInf(iv[0].get<double>(), 3) << " - "
        << fixedOrInf(iv[1].get<double>(), 3) << ")";
  }
  out << "\n";
  if (j["best"].contains("launch")) {
    out << "launch (vLLM): " << j["best"]["launch"]["vllm"]["command"].get<std::string>() << "\n";
    for (const auto& n : j["best"]["launch"]["vllm"]["notes"])
      out << "  " << n.get<std::string>() << "\n";
  }
  if (j["best_is_tie"].get<bool>()) {
    out << "a tie within the constants' spread: " << j["best_ties"].size()
        << " other frontier deployment" << (j["best_ties"].size() == 1 ? "" : "s")
        << " cost the same within the 80% intervals:";
    for (const auto& t : j["best_ties"]) {
      const auto& c = j["frontier"][t.get<std::size_t>()];
      out << " " << cell(c["gpu_count"]) << " x " << cell(c["gpu"]) << " " << cell(c["scheme_id"])
          << " cap " << cell(c["max_batch"]) << " (" << cell(c["usd_per_million_output_tokens"])
          << ")";
    }
    out << "\n";
  }
}

}  // namespace

namespace {

/// --schemes: the Deploy tab's default set, "all", or a list without repeats. 0 or the exit code.
int searchedSchemes(const std::optional<std::string>& schemes, const Catalog& cat, DeploySpace& sp,
                    std::ostream& err) {
  if (!schemes) {
    // The same default as the window's Deploy tab: one answer for one question.
    for (const auto& id : cat.schemesDefaultFor("deploy")) sp.schemes.push_back(*cat.scheme(id));
    return kExitOk;
  }
  if (*schemes == "all") {
    sp.schemes = cat.schemes();
    return kExitOk;
  }
  for (const auto& id : splitComma(*schemes)) {
    auto s = cat.scheme(id, "schemes");
    if (!s) return badInput(err, s.error());
    for (const auto& have : sp.schemes) {
      if (have.id == s->id)
        return badArg(err, "schemes", "scheme '" + id + "' is listed twice; list each scheme once");
    }
    sp.schemes.push_back(*s);
  }
  return kExitOk;
}

/// --max-gpus and --max-batch. 0 or the exit code.
int searchedSizes(const std::optional<std::string>& maxGpus,
                  const std::optional<std::string>& maxBatch, DeploySpace& sp, std::ostream& err) {
  if (maxGpus) {
    const auto v = parseInt(*maxGpus);
    if (!v || *v < 1 || *v > 4096)
      return badArg(err, "max-gpus",
                    "expected an integer from 1 to 4096, found '" + *maxGpus + "'");
    sp.maxGpus = static_cast<int>(*v);
  }
  if (maxBatch) {
    sp.batchCaps.clear();
    for (const auto& item : splitComma(*maxBatch)) {
      const auto v = parseInt(item);
      if (!v || *v < 1 || *v > 1'000'000)
        return badArg(err, "max-batch",
                      "expected integers from 1 to 1000000, found '" + item + "'");
      sp.batchCaps.push_back(static_cast<int>(*v));
    }
  }
  return kExitOk;
}

/// --slo-ttft-ms, --slo-tpot-ms, --latency and --load. 0 or the exit code.
int searchTargets(const std::optional<std::string>& sloTtft,
                  const std::optional<std::string>& sloTpot,
                  const std::optional<std::string>& latency, const std::optional<std::string>& load,
                  DeployOptions& o, std::ostream& err) {
  int rc = kExitOk;
  const auto ttftSlo = positiveOption(sloTtft, "slo-ttft-ms", err, rc);
  if (rc != kExitOk) return rc;
  const auto tpotSlo = positiveOption(sloTpot, "slo-tpot-ms", err, rc);
  if (rc != kExitOk) return rc;
  o.sloTtftMs = ttftSlo.value_or(0);
  o.sloTpotMs = tpotSlo.value_or(0);
  if (latency && *latency != "tpot" && *latency != "ttft")
    return badArg(err, "latency", "expected tpot or ttft, found '" + *latency + "'");
  o.axis = latency && *latency == "ttft" ? LatencyAxis::Ttft : LatencyAxis::Tpot;
  std::vector<LoadPoint> loads;
  if (!parseLoads(load.value_or("max"), loads, err, rc)) return rc;
  if (loads.size() != 1) return badArg(err, "load", "the search takes one load");
  o.load.kind = loads[0].kind == LoadPoint::Kind::Sync  ? DeployLoad::Kind::Sync
                : loads[0].kind == LoadPoint::Kind::Max ? DeployLoad::Kind::Max
                                                        : DeployLoad::Kind::Rate;
  o.load.requestsPerS = loads[0].rate;
  return kExitOk;
}

}  // namespace

int cmdSearch(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  int rc = kExitOk;
  const auto p = parseCommand(searchCommand(), argv, out, err, rc);
  if (!p) return rc;
  const bool perKind = p->flag("--per-kind");
  const bool skipUnpriced = p->flag("--skip-unpriced");
  const bool datasheet = p->flag("--datasheet");
  const bool noMoeParallel = p->flag("--no-moe-parallel");
  const bool disaggregated = p->flag("--disaggregated");
  const auto prices = p->values("--price");
  const auto gateTexts = p->values("--gate");
  const auto model = p->value("--model"), useCase = p->value("--use-case"),
             inputLen = p->value("--input-len"), outputLen = p->value("--output-len"),
             gpus = p->value("--gpus"), maxGpus = p->value("--max-gpus"),
             schemes = p->value("--schemes"), kvDtypes = p->value("--kv-dtypes"),
             maxBatch = p->value("--max-batch"), budget = p->value("--token-budget"),
             load = p->value("--load"), sloTtft = p->value("--slo-ttft-ms"),
             sloTpot = p->value("--slo-tpot-ms"), latency = p->value("--latency"),
             memUtil = p->value("--mem-util"), reserve = p->value("--reserve-gib"),
             format = p->value("--format"), session = p->value("--session"),
             baseline = p->value("--baseline"), imbalance = p->value("--expert-imbalance");
  const SpeculationArgs specArgs{p->value("--spec-k"), p->value("--spec-acceptance"),
                                 p->value("--spec-draft")};
  if (!model) return badArg(err, "model", "--model is required");
  std::string fmtName;
  if (!tableCsvJsonFormat(format, fmtName, err, rc)) return rc;
  std::string useCaseId;
  const auto w = workloadOption(useCase, inputLen, outputLen, useCaseId, err, rc);
  if (!w) return rc;

  const Catalog& cat = Catalog::bundled();
  DeploySpace sp;
  auto m = cat.resolveModel(*model);
  if (!m) return badInput(err, m.error());
  sp.model = *m;
  sp.perKind = perKind;
  sp.datasheet = datasheet;
  sp.moeParallel = !noMoeParallel;
  sp.twoBatchOverlap = p->flag("--two-batch-overlap");
  sp.disaggregated = disaggregated;
  if (imbalance) {
    // Its range is checked with the rest of the space (searchDeployments).
    const auto v = parseNumber(*imbalance);
    if (!v) return badArg(err, "expert-imbalance", "expected a number, found '" + *imbalance + "'");
    sp.expertImbalance = *v;
  }
  sp.catalog = &cat;
  if (const int bad = searchedGpus(prices, gpus, skipUnpriced, cat, sp.gpus, err)) return bad;
  if (const int bad = searchedSchemes(schemes, cat, sp, err)) return bad;
  if (kvDtypes) sp.kvDtypes = splitComma(*kvDtypes);
  if (const int bad = searchedSizes(maxGpus, maxBatch, sp, err)) return bad;
  if (!tokenBudgetOption(budget, sp.tokenBudget, err, rc)) return rc;
  if (!memoryOptions(memUtil, reserve, sp.memUtil, sp.reserveGib, err, rc)) return rc;
  std::string acceptanceSource;
  sp.speculation = speculationOption(specArgs, err, rc, &acceptanceSource);
  if (rc != kExitOk) return rc;
  if (sp.speculation && *specArgs.draft != "mtp") {
    auto d = cat.resolveModel(*specArgs.draft);
    if (!d) return badInput(err, d.error());
    sp.draftModel = *d;  // the target itself is refused with the rest of the space
  }
  DeployOptions o;
  o.workload = *w;
  if (const int bad = searchTargets(sloTtft, sloTpot, latency, load, o, err)) return bad;

  Json gateJson = nullptr;
  if (const int bad = sessionGate(gateTexts, session, baseline, sp.model.id, o, gateJson, err))
    return bad;
  auto r = searchDeployments(sp, o);
  if (!r) return badInput(err, r.error());
  Json j = deployResultToJson(*r, o);
  // Under speculation the intervals rebuild the draft with the target's moved constants.
  if (!addIntervals(j, sp, o, *r, err)) return kExitBadInput;
  j["speculation"] = sp.speculation
                         ? Json{{"draft_tokens", sp.speculation->draftTokens},
                                {"acceptance", sp.speculation->acceptance},
                                {"acceptance_source", acceptanceSourceJson(acceptanceSource)},
                                {"draft", sp.draftModel ? Json(sp.draftModel->id) : Json("mtp")},
                                {"tokens_per_step", expectedTokensPerStep(*sp.speculation)}}
                         : Json(nullptr);
  j["gate"] = gateJson;
  j["model"] = sp.model.id;
  if (r->best) {
    // How to launch the answer on each engine, with the limits the model priced.
    j["best"]["launch"] =
        launchCommandsToJson(launchCommands(*r->best, sp.model, launchSettingsFor(sp, *w)));
  }
  j["use_case"] = useCaseId.empty() ? Json(nullptr) : Json(useCaseId);
  if (fmtName == "json") {
    writeJsonOutput(out, std::move(j));
    return kExitOk;
  }
  printSearch(fmtName, sp, *w, o, *r, j, out, err);
  return kExitOk;
}

}  // namespace qf::cli
