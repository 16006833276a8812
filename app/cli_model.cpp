// qfront model and qfront catalog: the analytic engine from the command line.
#include <quantfront/core/analysis/curve_intervals.hpp>
#include <quantfront/core/analysis/e2e_calibration.hpp>
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/base/version.hpp>

#include "cli.hpp"
#include "cli_speculation.hpp"
#include "cli_workload.hpp"
#include "shell.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/engine_export.hpp>
#include <quantfront/core/model/scenario_spec.hpp>

namespace qf::cli {

namespace {

/// qfront model's options (the command shell's table: its --help and its refusals).
constexpr OptionSpec kModelOptions[] = {
    {"--model", "ID|FILE", "catalog model id (see `qfront catalog`) or a Hugging Face config.json"},
    {"--gpu", "ID|FILE",
     "catalog GPU id or a GPU JSON file:\n"
     "{\"name\", \"memory_gib\", \"hbm_bandwidth_tbs\",\n"
     " \"tensor_tflops\": {\"bf16\", \"fp16\", \"fp8\", \"int8\", \"fp4\"},\n"
     " \"vector_fp32_tflops\", \"nvlink_gbs\"?, \"price_per_hour\"?, \"source\"}"},
    {"--scheme",
     "S[,S...]",
     "one candidate per scheme, the scheme on every layer kind\n"
     "(default: every built-in scheme, plus the checkpoint's own)",
     {},
     true},
    {"--linear", "S", "a mixed candidate: scheme of attention, dense MLP, shared experts, router"},
    {"--moe", "S", "... of the routed experts (default: the --linear scheme)"},
    {"--lm-head", "S", "... of the LM head and embedding (default: the --linear scheme)"},
    {"--batch", "LIST",
     "1,8,32 | A:B (powers of two from A to B) | A:B:STEP   (default 1:1024);\n"
     "integers from 1 to 10000000, at most 100000 points"},
    {"--tp", "N", "tensor-parallel degree (default 1); adds the all-reduce term", kTpCheck},
    {"--max-model-len", "N", "KV tokens reserved per sequence (default 8192)"},
    {"--kv-dtype", "bf16|fp8", "KV-cache element type (default bf16)"},
};
constexpr OptionSpec kModelShapeOptions[] = {
    {"--context", "N",
     "add the attention kernel at N context tokens: its time\n"
     "max(B·N·kv_bytes/β, 4·B·N·nh·hd·L/P_bf16) adds to the step (default off);\n"
     "windowed layers (sliding_window) read min(window, N) tokens"},
    {"--input-len", "I", "with --output-len: predict a static batch of B requests as"},
    {"--output-len", "O",
     "`vllm bench latency` runs it (one prefill of B x I tokens, then O - 1\n"
     "decode steps as the context grows from I to I + O): ttft_ms, tpot_ms,\n"
     "e2e_latency_s, output_tokens_per_s, total_tokens_per_s per batch"},
    {"--interval", "P",
     "central probability of the intervals printed beside calibrated\n"
     "end-to-end predictions (default 0.8); needs a calibration with an\n"
     "e2e_fit record (qfront calibrate POINTS.csv, or the bundled A6000 fit)"},
    {"--spec-k", "K",
     "with --spec-acceptance A and --spec-draft D (a catalog model or\n"
     "mtp): speculative decoding, each scheme's time per accepted token at\n"
     "every batch (the target verifies B x (K + 1) tokens a step, the draft\n"
     "proposes K) and the crossovers it moves; table and json"},
    {"--spec-acceptance", "A",
     "probability a draft token is accepted, in (0, 1]; from:FILE reads\n"
     "it off the mean accept length of FILE's runs (SGLang bench_serving)"},
    {"--spec-draft", "D", "a catalog model id or config.json (bf16, same GPUs) or mtp"},
    {"--datasheet", "",
     "the ideal roofline: ignore the GPU's calibration block and the\n"
     "catalog's bundled defaults (fitted to arXiv:2411.02355's published\n"
     "latencies; docs/model.md); every output names the constants used"},
};
constexpr OptionSpec kModelConstantOptions[] = {
    {"--overhead-ms", "X",
     "t0, a fixed per-step overhead in ms (default 0, or the GPU file's\n"
     "calibration.overhead_ms)"},
    {"--bw-eff", "X", "achieved fraction of HBM bandwidth, (0, 1.5] (default 1 or calibration)"},
    {"--seq-overhead-us", "X",
     "host time per sequence per step in us (sampling, scheduling), [0, 10000]\n"
     "(default 0, or calibration.seq_overhead_us)"},
    {"--allreduce-us", "X",
     "fixed time of one all-reduce call in us, two per layer at TP > 1,\n"
     "[0, 10000] (default 0, or calibration.allreduce_latency_us)"},
    {"--gemm-m-half", "X",
     "GEMM rows at which a GEMM reaches half its tensor rate: M rows cost\n"
     "M + X, [0, 4096] (default 0, or calibration.gemm_m_half)"},
    {"--tp-width-half", "X",
     "per-GPU hidden width at which the tensor rate halves under TP: GEMMs\n"
     "split over TP GPUs run at (d + X)/(d + X*TP) of their TP-1 rate,\n"
     "[0, 65536] (default 0, or calibration.tp_width_half)"},
    {"--request-overhead-ms", "X",
     "a served request's fixed cost added to its TTFT under load\n"
     "(qfront serving, search), [0, 10000] (default 0, or calibration)"},
    {"--compute-eff", "K=X,...",
     "achieved fraction of the tensor peak per path (bf16, fp16, fp8, int8,\n"
     "fp4) or per scheme id (a scheme's value wins over its path's); (0, 1.5]"},
    {"--dequant-s-per-weight", "S=X,...",
     "measured dequant seconds per weight of scheme S (replaces c/D)"},
    {"--kernel-bw-eff", "S=X,...",
     "fraction of the achieved bandwidth scheme S's decode kernel reaches\n"
     "reading its weights (default 1, or calibration.kernel_bandwidth_efficiency)"},
    {"--attention-bw-eff", "KV=X,...",
     "fraction of the achieved bandwidth the attention kernel reaches reading\n"
     "a KV cache of dtype KV (fp8, bf16); (0, 1.5] (default 1, or\n"
     "calibration.attention_bandwidth_efficiency)\n"
     "Flags override the GPU file's calibration block; every output says\n"
     "which values were used (JSON \"efficiency\", table line, CSV columns)."},
    kFormatOption,
};

const CommandSpec& modelCommand() {
  static const CommandSpec command{
      "qfront",
      "model",
      "usage: qfront model --model ID|CONFIG.json --gpu ID|GPU.json [options]\n",
      R"(Predicts decode step time against batch size for each scheme with the analytic model
(memory floor, mma slope, dequant constant, ridge, crossovers) and KV capacity.
)",
      {kModelOptions, kMoeLayoutOptions, kMemoryOptions, kModelShapeOptions, kModelConstantOptions},
      R"(JSON model fields: streamed_params (weights read per step at B = 1: layers + LM head),
total_params (every stored weight once: + input embedding unless tied), active_params
(weights each token multiplies: attention, dense MLPs, router, shared experts, k routed
experts per MoE layer and the LM head; the input embedding is NOT included: it is gathered,
not multiplied — published "active" figures that count it are active_params + V·d),
expert_params (routed experts), windowed_layers and sliding_window.

Exit status: 0 on success, 2 on bad input (one line naming the file and field).
)"};
  return command;
}

constexpr OptionSpec kCatalogOptions[] = {
    {"--format", "table|json", "output format (default table)", oneOf("table|json")},
};

const CommandSpec& catalogCommand() {
  static const CommandSpec command{
      "qfront",
      "catalog",
      "usage: qfront catalog [--format table|json]\n",
      R"(Lists the bundled models (with parameter counts), GPUs (with dense peaks and price) and
quantization schemes (bits per weight, tensor path, c).
)",
      {kCatalogOptions},
      "",
      0};
  return command;
}

/// "source: overhead 0 ms, bandwidth x1, compute bf16 x0.74 w4a16-g128 x0.45, dequant c/D".
std::string efficiencySummary(const Efficiency& e) {
  std::string o = words(e.source, ": overhead ", e.overheadMs, " ms");
  if (e.seqOverheadUs > 0) o += words(" + ", e.seqOverheadUs, " us per sequence");
  if (e.allreduceLatencyUs > 0) o += words(", all-reduce call ", e.allreduceLatencyUs, " us");
  if (e.gemmMHalf > 0) o += words(", GEMM M-half ", e.gemmMHalf, " rows");
  if (e.tpWidthHalf > 0) o += words(", TP width-half ", e.tpWidthHalf);
  if (e.requestOverheadMs > 0) o += words(", request ", e.requestOverheadMs, " ms");
  o += words(", bandwidth x", e.bandwidthEff, ", compute");
  if (e.computeEff.empty()) o += " x1";
  for (const auto& [k, v] : e.computeEff) o += words(" ", k, " x", v);
  o += ", dequant";
  if (e.dequantSPerWeight.empty()) o += " c/D";
  for (const auto& [k, v] : e.dequantSPerWeight) o += words(" ", k, " ", v, " s/weight");
  if (!e.kernelBandwidthEff.empty()) o += ", kernel bandwidth";
  for (const auto& [k, v] : e.kernelBandwidthEff) o += words(" ", k, " x", v);
  if (!e.attentionBandwidthEff.empty()) o += ", attention bandwidth";
  for (const auto& [k, v] : e.attentionBandwidthEff) o += words(" ", k, " cache x", v);
  return o;
}

void printTable(const EngineReport& r, std::ostream& out) {
  const auto& p = r.params;
  out << "model  " << r.scenario.model.name << "  (streamed "
      << fixedDecimals(p.streamed() / 1e9, 3) << " B, total " << fixedDecimals(p.total() / 1e9, 3)
      << " B, active " << fixedDecimals(p.active / 1e9, 3) << " B, experts "
      << fixedDecimals(p.expert() / 1e9, 3) << " B)\n";
  if (r.scenario.model.checkpointQuant) {
    const auto& q = *r.scenario.model.checkpointQuant;
    out << "checkpoint quantization  " << q.quantMethod << " -> "
        << (q.schemeId.empty() ? std::string("(no built-in scheme)") : q.schemeId) << "  ("
        << q.note << ")\n";
  }
  const auto& m = r.scenario.model;
  if (m.slidingLayerCount() > 0) {
    out << "attention  " << m.slidingLayerCount() << " of " << m.layers << " layers windowed to "
        << m.slidingWindow << " tokens (their KV holds min(window, max-model-len) tokens)\n";
  }
  out << "gpu    " << r.scenario.gpu.name << "  x" << r.scenario.tp << "  ("
      << r.scenario.gpu.hbmBandwidthTBps << " TB/s, " << r.scenario.gpu.memoryGib << " GiB)\n";
  // A MoE replica's layout, when it is not plain TP.
  const Scenario& sc = r.scenario;
  if (sc.ep > 1 || sc.dpAttention) {
    out << "layout EP " << sc.ep;
    if (sc.redundantExperts > 0) out << " with " << sc.redundantExperts << " redundant slots";
    if (sc.dpAttention) out << ", DP attention";
    if (sc.twoBatchOverlap) out << ", two-batch overlap";
    if (sc.ep > 1 && sc.expertImbalance != 1.0)
      out << ", expert imbalance " << words(sc.expertImbalance);
    out << "\n";
  }
  out << "roofline    " << (r.scenario.efficiency.isDatasheet() ? "datasheet" : "calibrated")
      << "\nefficiency  " << efficiencySummary(r.scenario.efficiency) << "\n\n";
  out << std::left << std::setw(34) << "scheme" << std::right << std::setw(7) << "bits"
      << std::setw(10) << "path" << std::setw(11) << "floor ms" << std::setw(11) << "mma us/B"
      << std::setw(11) << "dequant ms" << std::setw(9) << "ridge" << std::setw(13) << "weights GiB"
      << std::setw(10) << "max seqs" << std::setw(13) << "tok/s @cap"
      << "\n";
  for (const auto& s : r.schemes) {
    out << std::left << std::setw(34) << s.assignment.id << std::right << std::setw(7)
        << fixedDecimals(s.bitsPerWeight, 3) << std::setw(10) << s.pathName << std::setw(11)
        << fixedDecimals(s.memoryFloorMs, 3) << std::setw(11) << fixedDecimals(s.mmaUsPerSeq, 3)
        << std::setw(11) << fixedDecimals(s.dequantMs, 3) << std::setw(9)
        << (s.ridgeBatch ? fixedDecimals(*s.ridgeBatch, 1) : std::string("none")) << std::setw(13)
        << fixedDecimals(s.capacity.weightsGib, 2) << std::setw(10) << s.capacity.maxSeqs
        << std::setw(13) << fixedDecimals(s.capacity.tokensPerSAtCapacity, 0) << "\n";
  }
  out << "\nstep time (ms) per batch; * marks compute-bound\n" << std::setw(8) << "batch";
  for (const auto& s : r.schemes)
    out << std::setw(std::max<int>(12, static_cast<int>(s.assignment.id.size()) + 2))
        << s.assignment.id;
  out << "\n";
  const std::size_t n = r.schemes.empty() ? 0 : r.schemes.front().points.size();
  for (std::size_t i = 0; i < n; ++i) {
    out << std::setw(8) << r.schemes.front().points[i].batch;
    for (const auto& s : r.schemes) {
      const auto& pt = s.points[i];
      const std::string cell =
          fixedDecimals(pt.stepMs, 3) + (pt.bound == Bound::Compute ? "*" : " ");
      out << std::setw(std::max<int>(12, static_cast<int>(s.assignment.id.size()) + 2)) << cell;
    }
    out << "\n";
  }
  if (r.scenario.inputLen > 0) {
    out << "\nstatic batch of " << r.scenario.inputLen << " prompt + " << r.scenario.outputLen
        << " output tokens per request (prefill of B x I tokens, then O - 1 decode steps)\n";
    out << std::left << std::setw(34) << "scheme" << std::right << std::setw(8) << "batch"
        << std::setw(12) << "TTFT ms" << std::setw(10) << "TPOT ms" << std::setw(12) << "latency s"
        << std::setw(12) << "out tok/s" << std::setw(12) << "total tok/s"
        << "\n";
    for (const auto& s : r.schemes) {
      for (const auto& x : s.e2e) {
        out << std::left << std::setw(34) << s.assignment.id << std::right << std::setw(8)
            << x.batch << std::setw(12) << fixedDecimals(x.ttftMs, 2) << std::setw(10)
            << (x.outputLen > 1 ? fixedDecimals(x.tpotMs, 3) : std::string("n/a")) << std::setw(12)
            << fixedDecimals(x.e2eLatencyS, 3) << std::setw(12)
            << fixedDecimals(x.outputTokensPerS, 0) << std::setw(12)
            << fixedDecimals(x.totalTokensPerS, 0) << "\n";
      }
    }
  }
  out << "\ncrossovers\n";
  if (r.crossovers.empty()) out << "  none\n";
  for (const auto& c : r.crossovers) {
    out << "  B = " << fixedDecimals(c.batch, 2) << "  " << c.schemes[0] << " / " << c.schemes[1]
        << "  (" << c.fasterBelow << " faster below)\n";
  }
  out << "\ncapacity budget "
      << fixedDecimals(r.schemes.empty() ? 0 : r.schemes.front().capacity.budgetGib, 2)
      << " GiB per GPU; KV "
      << fixedDecimals(r.schemes.empty() ? 0 : r.schemes.front().capacity.kvGibPerSeq, 4)
      << " GiB per sequence at max-model-len " << r.scenario.maxModelLen << "\n";
}

}  // namespace

bool parseBatchList(const std::string& spec, std::vector<double>& out, std::string& why) {
  out.clear();
  // One value of the list: an integer batch size in [1, kMaxBatch] ("1e3" reads as 1000).
  auto batchValue = [&](const std::string& text, const char* what, double& v) {
    const auto x = parseNumber(text);
    if (!x || *x < 1 || *x > kMaxBatch || std::floor(*x) != *x) {
      why = std::string(what) + " '" + text + "' is not an integer batch size from 1 to " +
            std::to_string(static_cast<long long>(kMaxBatch));
      return false;
    }
    v = *x;
    return true;
  };
  if (spec.find(':') != std::string::npos) {
    std::vector<std::string> parts;
    std::string cur;
    for (char c : spec) {
      if (c == ':') {
        parts.push_back(cur);
        cur.clear();
      } else {
        cur.push_back(c);
      }
    }
    parts.push_back(cur);
    if (parts.size() != 2 && parts.size() != 3) {
      why = "expected A:B or A:B:STEP, found '" + spec + "'";
      return false;
    }
    double from = 0, to = 0, step = 0;
    if (!batchValue(parts[0], "A", from) || !batchValue(parts[1], "B", to)) return false;
    if (to < from) {
      why = "range must satisfy A <= B, found '" + spec + "'";
      return false;
    }
    if (parts.size() == 2) {
      for (double b = from; b <= to; b *= 2) out.push_back(b);  // at most 24 doublings
      return true;
    }
    if (!batchValue(parts[2], "STEP", step)) return false;
    const double count = std::floor((to - from) / step) + 1;
    if (count > static_cast<double>(kMaxBatchPoints)) {
      why = "range '" + spec + "' has " + std::to_string(static_cast<long long>(count)) +
            " points; at most " + std::to_string(kMaxBatchPoints) + " are allowed";
      return false;
    }
    const auto n = static_cast<std::size_t>(count);
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.push_back(from + static_cast<double>(i) * step);
    return true;
  }
  for (const auto& p : splitComma(spec)) {
    if (out.size() >= kMaxBatchPoints) {
      why = "more than " + std::to_string(kMaxBatchPoints) + " batch sizes";
      return false;
    }
    double v = 0;
    if (!batchValue(p, "batch size", v)) return false;
    out.push_back(v);
  }
  return true;
}

namespace {

/// What the KEY of a KEY=X list names.
enum class KeyKind { PathOrScheme, Scheme, KvDtype };

/// KEY=X,... where KEY is a tensor path or a built-in scheme id (a scheme id only for
/// KeyKind::Scheme; a KV cache dtype, fp8 or bf16, for KeyKind::KvDtype) and X lies in the
/// range lo (open when `loOpen`) to hi; the exit status of a bad item (printed on `err`), none
/// when all are good.
std::optional<int> keyedValues(const std::string& text, const char* field, KeyKind kind, double lo,
                               bool loOpen, double hi, std::map<std::string, double>& dst,
                               const Catalog& cat, std::ostream& err) {
  for (const auto& item : splitComma(text)) {
    const auto eq = item.find('=');
    const std::string key = eq == std::string::npos ? item : item.substr(0, eq);
    const auto v = eq == std::string::npos ? std::nullopt : parseNumber(item.substr(eq + 1));
    if (!v || (loOpen ? !(*v > lo) : *v < lo) || *v > hi) {
      return badArg(err, field,
                    words("expected KEY=X with X in ", loOpen ? "(" : "[", lo, ", ", hi,
                          "], found '", item, "'"));
    }
    std::string id = key;
    if (kind == KeyKind::KvDtype) {
      if (key != "fp8" && key != "bf16")
        return badArg(err, field, "'" + key + "' is not a KV cache dtype (fp8, bf16)");
    } else if (!(kind == KeyKind::PathOrScheme && tensorPathFromName(key))) {
      auto sc = cat.scheme(key, field);
      if (!sc) {
        return badArg(
            err, field,
            "'" + key + "' is not " +
                (kind == KeyKind::Scheme ? "" : "a tensor path (bf16, fp16, fp8, int8, fp4) or ") +
                "a scheme id (" + cat.schemeIds() + ")");
      }
      id = sc->id;
    }
    dst[id] = *v;
  }
  return std::nullopt;
}

/// Efficiency flags override the GPU file's calibration block, value by value; 0, or the exit
/// status of a bad flag (printed on `err`).
struct EfficiencyFlags {
  std::optional<std::string> overheadMs, bwEff, seqOverheadUs, allreduceUs, computeEff, dequantCost,
      kernelBwEff, gemmMHalf, tpWidthHalf, requestOverheadMs, attentionBwEff;
};

int applyEfficiencyFlags(Efficiency& e, const EfficiencyFlags& given, const Catalog& cat,
                         std::ostream& err) {
  const auto& [overheadMs, bwEff, seqOverheadUs, allreduceUs, computeEff, dequantCost, kernelBwEff,
               gemmMHalf, tpWidthHalf, requestOverheadMs, attentionBwEff] = given;
  std::vector<std::string> used;
  for (auto [text, dst, flag, what, max] :
       {std::tuple{&seqOverheadUs, &e.seqOverheadUs, "seq-overhead-us",
                   "a number of us in [0, 10000]", kMaxSeqOverheadUs},
        std::tuple{&allreduceUs, &e.allreduceLatencyUs, "allreduce-us",
                   "a number of us in [0, 10000]", kMaxAllreduceLatencyUs},
        std::tuple{&gemmMHalf, &e.gemmMHalf, "gemm-m-half", "a number of rows in [0, 4096]",
                   kMaxGemmMHalf},
        std::tuple{&tpWidthHalf, &e.tpWidthHalf, "tp-width-half", "a width in [0, 65536]",
                   kMaxTpWidthHalf},
        std::tuple{&requestOverheadMs, &e.requestOverheadMs, "request-overhead-ms",
                   "a number of ms in [0, 10000]", kMaxRequestOverheadMs}}) {
    if (!*text) continue;
    const auto v = parseNumber(**text);
    if (!v || *v < 0 || *v > max) {
      return badArg(err, flag, std::string("expected ") + what + ", found '" + **text + "'");
    }
    *dst = *v;
    used.push_back(std::string("--") + flag);
  }
  if (overheadMs) {
    const auto v = parseNumber(*overheadMs);
    if (!v || *v < 0 || *v > kMaxOverheadMs) {
      return badArg(err, "overhead-ms",
                    "expected a number of ms in [0, 1000], found '" + *overheadMs + "'");
    }
    e.overheadMs = *v;
    used.push_back("--overhead-ms");
  }
  if (bwEff) {
    const auto v = parseNumber(*bwEff);
    if (!v || !(*v > 0) || *v > kMaxEfficiency) {
      return badArg(err, "bw-eff", "expected a fraction in (0, 1.5], found '" + *bwEff + "'");
    }
    e.bandwidthEff = *v;
    used.push_back("--bw-eff");
  }
  // KEY=X lists: a tensor path or scheme id (a scheme id only for per-kernel figures), a KV
  // cache dtype for the attention kernel's.
  for (auto [text, dst, flag, kind, loOpen, max] :
       {std::tuple{&computeEff, &e.computeEff, "compute-eff", KeyKind::PathOrScheme, true,
                   kMaxEfficiency},
        std::tuple{&dequantCost, &e.dequantSPerWeight, "dequant-s-per-weight", KeyKind::Scheme,
                   false, kMaxDequantSPerWeight},
        std::tuple{&kernelBwEff, &e.kernelBandwidthEff, "kernel-bw-eff", KeyKind::Scheme, true,
                   kMaxEfficiency},
        std::tuple{&attentionBwEff, &e.attentionBandwidthEff, "attention-bw-eff", KeyKind::KvDtype,
                   true, kMaxEfficiency}}) {
    if (!*text) continue;
    if (auto rcK = keyedValues(**text, flag, kind, 0, loOpen, max, *dst, cat, err)) return *rcK;
    used.push_back(std::string("--") + flag);
  }
  if (!used.empty()) {
    std::string flags;
    for (const auto& f : used) flags += (flags.empty() ? "" : " ") + f;
    e.source = (e.source == "datasheet" ? std::string() : e.source + "; ") + "flags " + flags;
  }
  return kExitOk;
}

/// The engine's report with the `level` intervals of its end-to-end predictions, as JSON, CSV
/// or a table.
/// Speculative decoding beside the report: its curves and what it was.
struct SpeculationView {
  Speculation speculation;
  std::string draft;
  SpeculativeCurves curves;
  std::string acceptanceSource;  ///< empty: given
};

Json speculationJson(const EngineReport& rep, const SpeculationView& v) {
  Json j{{"draft_tokens", v.speculation.draftTokens},
         {"acceptance", v.speculation.acceptance},
         {"acceptance_source", acceptanceSourceJson(v.acceptanceSource)},
         {"draft", v.draft},
         {"tokens_per_step", v.curves.tokensPerStep}};
  j["schemes"] = Json::array();
  for (std::size_t i = 0; i < rep.schemes.size() && i < v.curves.perTokenS.size(); ++i) {
    Json pts = Json::array();
    for (std::size_t k = 0; k < rep.schemes[i].points.size(); ++k)
      pts.push_back({{"batch", rep.schemes[i].points[k].batch},
                     {"ms_per_token", v.curves.perTokenS[i][k] * 1e3}});
    j["schemes"].push_back({{"id", rep.schemes[i].assignment.id}, {"points", pts}});
  }
  j["crossovers"] = Json::array();
  for (const auto& c : v.curves.crossovers)
    j["crossovers"].push_back({{"schemes", {c.schemes[0], c.schemes[1]}},
                               {"batch", c.batch},
                               {"faster_below", c.fasterBelow}});
  return j;
}

void printSpeculationTable(const EngineReport& rep, const SpeculationView& v, std::ostream& out) {
  out << "\nspeculative decoding: " << v.speculation.draftTokens << " draft tokens a step from "
      << v.draft << ", acceptance " << v.speculation.acceptance << " ("
      << fixedDecimals(v.curves.tokensPerStep, 2)
      << " tokens a step); ms per accepted token (in brackets: the step without it)\n";
  for (std::size_t i = 0; i < rep.schemes.size() && i < v.curves.perTokenS.size(); ++i) {
    out << "  " << std::left << std::setw(32) << rep.schemes[i].assignment.id << std::right;
    for (std::size_t k = 0; k < rep.schemes[i].points.size(); ++k)
      out << "  B " << rep.schemes[i].points[k].batch << ": "
          << fixedDecimals(v.curves.perTokenS[i][k] * 1e3, 3) << " ("
          << fixedDecimals(rep.schemes[i].points[k].stepMs, 3) << ")";
    out << "\n";
  }
  out << "crossovers with speculation\n";
  if (v.curves.crossovers.empty()) out << "  none\n";
  for (const auto& c : v.curves.crossovers)
    out << "  B = " << fixedDecimals(c.batch, 2) << "  " << c.schemes[0] << " / " << c.schemes[1]
        << ": " << c.fasterBelow << " faster below\n";
}

void printModel(const std::string& fmtName, const EngineReport& rep, double level,
                std::ostream& out, const SpeculationView* spec) {
  // Intervals of the end-to-end predictions, from the calibration's fit record.
  std::vector<std::vector<StaticBatchInterval>> intervals;
  for (const auto& sr : rep.schemes)
    intervals.push_back(staticBatchIntervals(rep.scenario, rep.params, sr, level));
  // Step times, tokens/s and capacity with their intervals; crossovers that are ties.
  double bMin = 0, bMax = 0;
  for (const auto& sr : rep.schemes) {
    for (const auto& p : sr.points) {
      bMin = bMin > 0 ? std::min(bMin, p.batch) : p.batch;
      bMax = std::max(bMax, p.batch);
    }
  }
  const ReportIntervals steps =
      reportIntervals(rep, std::max(bMin, 1.0), std::max(bMax, 1.0), level);
  if (fmtName == "json") {
    Json j = reportToJson(rep);
    for (std::size_t i = 0; i < rep.schemes.size() && i < steps.schemes.size(); ++i) {
      const auto& model = steps.schemes[i];
      if (!model || !model->hasSpread()) continue;
      Json& sj = j["schemes"][i];
      const auto& sr = rep.schemes[i];
      for (std::size_t k = 0; k < sr.points.size(); ++k) {
        const double b = sr.points[k].batch;
        const IntervalEstimate iv = model->stepSeconds(b);
        Json& pt = sj["points"][k];
        pt["interval_level"] = level;
        pt["step_ms_interval"] = {iv.low * 1e3, iv.high * 1e3};
        pt["tokens_per_s_interval"] = {b / iv.high, b / iv.low};
        pt["step_extrapolated"] = iv.extrapolated;
      }
      if (sr.capacity.maxSeqs > 0) {
        const double seqs = static_cast<double>(sr.capacity.maxSeqs);
        const IntervalEstimate cap = model->tokensPerS(seqs);
        sj["capacity"]["tokens_per_s_at_capacity_interval"] = {cap.low, cap.high};
      }
    }
    for (std::size_t c = 0; c < rep.crossovers.size() && c < steps.ties.size(); ++c) {
      if (steps.ties[c])
        j["crossovers"][c]["tie_batches"] = {steps.ties[c]->from, steps.ties[c]->to};
    }
    for (std::size_t i = 0; i < intervals.size(); ++i) {
      for (std::size_t k = 0; k < intervals[i].size(); ++k) {
        const auto& iv = intervals[i][k];
        Json& pt = j["schemes"][i]["points"][k];
        pt["interval_level"] = level;
        pt["extrapolated"] = iv.latencyS.extrapolated;
        pt["e2e_latency_s_interval"] = {iv.latencyS.low, iv.latencyS.high};
        pt["ttft_ms_interval"] = {iv.ttftMs.low, iv.ttftMs.high};
        if (!pt["tpot_ms"].is_null()) pt["tpot_ms_interval"] = {iv.tpotMs.low, iv.tpotMs.high};
        pt["total_tokens_per_s_interval"] = {iv.totalTokensPerS.low, iv.totalTokensPerS.high};
      }
    }
    j["speculation"] = spec ? speculationJson(rep, *spec) : Json(nullptr);
    writeJsonOutput(out, std::move(j));
  } else if (fmtName == "csv") {
    out << engineCsvText(rep);
  } else {
    printTable(rep, out);
    if (spec) printSpeculationTable(rep, *spec, out);
    bool tieHead = false;
    for (std::size_t c = 0; c < rep.crossovers.size() && c < steps.ties.size(); ++c) {
      if (!steps.ties[c]) continue;
      if (!tieHead) out << "\ncrossovers that are ties\n";
      tieHead = true;
      const auto& x = rep.crossovers[c];
      out << "  B = " << fixedDecimals(x.batch, 2) << "  " << x.schemes[0] << " / " << x.schemes[1]
          << ": a tie for B = " << fixedDecimals(steps.ties[c]->from, 3) << "-"
          << fixedDecimals(steps.ties[c]->to, 3) << " (the difference is inside the "
          << fixedDecimals(100 * level, 0) << "% interval of their ratio: no ordering there)\n";
    }
    bool any = false;
    for (std::size_t i = 0; i < intervals.size(); ++i) {
      for (std::size_t k = 0; k < intervals[i].size(); ++k) {
        if (!any) {
          out << "\n"
              << fixedDecimals(100 * level, 0)
              << "% intervals of the calibrated latency (from the fit's spread and residuals)\n";
          any = true;
        }
        const auto& iv = intervals[i][k].latencyS;
        out << "  " << std::left << std::setw(32) << rep.schemes[i].assignment.id << std::right
            << " B " << std::setw(6) << rep.schemes[i].e2e[k].batch << "  "
            << fixedDecimals(iv.value, 3) << " s  [" << fixedDecimals(iv.low, 3) << ", "
            << fixedDecimals(iv.high, 3) << "]"
            << (iv.extrapolated ? "  extrapolated: outside the batch and lengths the fit saw" : "")
            << "\n";
      }
    }
  }
}

/// The scenario options of `qfront model`, as given.
struct ModelSpecArgs {
  const std::optional<std::string>&tp, &maxLen, &kvDtype, &memUtil, &reserve, &context;
};

/// --tp, --max-model-len, --kv-dtype, --mem-util, --reserve-gib and --context into `spec`.
/// 0 or the exit code (one line printed).
int modelSpecOptions(const ModelSpecArgs& a, ScenarioSpec& spec, std::ostream& err) {
  int rc = kExitOk;
  if (!tpOption(a.tp, spec.tp, err, rc)) return rc;
  if (a.maxLen) {
    const auto v = parseInt(*a.maxLen);
    if (!v || *v < 1)
      return badArg(err, "max-model-len", "expected a positive integer, found '" + *a.maxLen + "'");
    spec.maxModelLen = *v;
  }
  if (a.kvDtype) spec.kvDtype = *a.kvDtype;
  if (!memoryOptions(a.memUtil, a.reserve, spec.memUtil, spec.reserveGib, err, rc)) return rc;
  if (a.context) {
    const auto v = parseInt(*a.context);
    if (!v || *v < 0)
      return badArg(err, "context", "expected an integer >= 0, found '" + *a.context + "'");
    spec.contextTokens = *v;
  }
  return kExitOk;
}

/// --input-len and --output-len, which go together, into the scenario. 0 or the exit code.
int lengthOptions(const std::optional<std::string>& inputLen,
                  const std::optional<std::string>& outputLen, Scenario& s, std::ostream& err) {
  if (inputLen.has_value() != outputLen.has_value()) {
    return badArg(err, inputLen ? "output-len" : "input-len",
                  "--input-len and --output-len go together");
  }
  if (!inputLen) return kExitOk;
  const auto i = parseInt(*inputLen);
  const auto o = parseInt(*outputLen);
  if (!i || *i < 1 || *i > kMaxScenarioTokens / 2)
    return badArg(err, "input-len",
                  "expected a positive integer of tokens, found '" + *inputLen + "'");
  if (!o || *o < 1 || *o > kMaxScenarioTokens / 2)
    return badArg(err, "output-len",
                  "expected a positive integer of tokens, found '" + *outputLen + "'");
  s.inputLen = *i;
  s.outputLen = *o;
  return kExitOk;
}

/// The uniform schemes --scheme lists (each may be a comma list). With no scheme named at all
/// (no --scheme, --linear, --moe or --lm-head): every catalog scheme, and a quantized
/// checkpoint's own per-kind assignment (gpt-oss: linear bf16, moe mxfp4, lm_head bf16) set as
/// the mixed candidate, so the checkpoint's scheme is always among the defaults.
std::vector<std::string> modelSchemeIds(const std::vector<std::string>& schemeLists,
                                        std::optional<std::string>& linear,
                                        std::optional<std::string>& moe,
                                        std::optional<std::string>& lmHead, const ModelArch& model,
                                        const Catalog& cat) {
  std::vector<std::string> ids;
  for (const auto& list : schemeLists) {
    for (const auto& id : splitComma(list)) ids.push_back(id);
  }
  if (!ids.empty() || linear || moe || lmHead) return ids;
  for (const auto& sc : cat.schemes()) ids.push_back(sc.id);
  if (model.checkpointQuant && model.checkpointQuant->perKind()) {
    const auto& q = *model.checkpointQuant;
    linear = q.linearSchemeId;
    moe = q.moeSchemeId;
    lmHead = q.lmHeadSchemeId;
  }
  return ids;
}

}  // namespace

int cmdModel(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  int rc = kExitOk;
  const auto p = parseCommand(modelCommand(), argv, out, err, rc);
  if (!p) return rc;
  // --linear, --moe and --lm-head may be set to a quantized checkpoint's own assignment.
  auto linear = p->value("--linear"), moe = p->value("--moe"), lmHead = p->value("--lm-head");
  const auto model = p->value("--model"), gpu = p->value("--gpu"), batch = p->value("--batch"),
             tp = p->value("--tp"), maxLen = p->value("--max-model-len"),
             kvDtype = p->value("--kv-dtype"), memUtil = p->value("--mem-util"),
             reserve = p->value("--reserve-gib"), context = p->value("--context"),
             format = p->value("--format"), inputLen = p->value("--input-len"),
             outputLen = p->value("--output-len"), intervalOpt = p->value("--interval");
  EfficiencyFlags effFlags;
  effFlags.overheadMs = p->value("--overhead-ms");
  effFlags.bwEff = p->value("--bw-eff");
  effFlags.seqOverheadUs = p->value("--seq-overhead-us");
  effFlags.allreduceUs = p->value("--allreduce-us");
  effFlags.computeEff = p->value("--compute-eff");
  effFlags.dequantCost = p->value("--dequant-s-per-weight");
  effFlags.kernelBwEff = p->value("--kernel-bw-eff");
  effFlags.attentionBwEff = p->value("--attention-bw-eff");
  effFlags.gemmMHalf = p->value("--gemm-m-half");
  effFlags.tpWidthHalf = p->value("--tp-width-half");
  effFlags.requestOverheadMs = p->value("--request-overhead-ms");
  const SpeculationArgs specArgs{p->value("--spec-k"), p->value("--spec-acceptance"),
                                 p->value("--spec-draft")};
  const bool datasheet = p->flag("--datasheet");
  const auto schemeLists = p->values("--scheme");
  if (!model)
    return badArg(err, "model", "--model is required (a catalog id or a config.json path)");
  if (!gpu) return badArg(err, "gpu", "--gpu is required (a catalog id or a GPU JSON path)");
  const Catalog& cat = Catalog::bundled();
  ScenarioSpec spec;
  spec.model = *model;
  spec.gpu = *gpu;
  spec.datasheet = datasheet;
  if (const int bad = modelSpecOptions({tp, maxLen, kvDtype, memUtil, reserve, context}, spec, err))
    return bad;
  std::string fmtName;
  if (!tableCsvJsonFormat(format, fmtName, err, rc)) return rc;
  std::vector<double> batches;
  {
    std::string why;
    if (!parseBatchList(batch.value_or("1:1024"), batches, why)) return badArg(err, "batch", why);
  }
  MoeLayout layout;
  if (const int bad = moeLayoutOptions(p->value("--ep"), p->value("--expert-imbalance"),
                                       p->flag("--dp-attention"), p->number("--redundant-experts"),
                                       layout, err, p->flag("--two-batch-overlap")))
    return bad;
  auto scen = resolveScenario(spec, layout, cat);
  if (!scen) return badInput(err, scen.error());
  Scenario& s = *scen;
  if (const int bad = lengthOptions(inputLen, outputLen, s, err)) return bad;
  if (const int bad = applyEfficiencyFlags(s.efficiency, effFlags, cat, err)) {
    return bad;
  }
  const auto ids = modelSchemeIds(schemeLists, linear, moe, lmHead, s.model, cat);
  auto candsR =
      makeCandidates(ids, linear.value_or(""), moe.value_or(""), lmHead.value_or(""), cat);
  if (!candsR) return badInput(err, candsR.error());
  const auto& cands = *candsR;
  double level = 0.8;
  if (intervalOpt) {
    const auto v = parseNumber(*intervalOpt);
    if (!v || !(*v > 0 && *v < 1))
      return badArg(err, "interval",
                    "expected a probability in (0, 1), found '" + *intervalOpt + "'");
    level = *v;
  }
  std::string acceptanceSource;
  const auto speculation = speculationOption(specArgs, err, rc, &acceptanceSource);
  if (rc != kExitOk) return rc;
  if (speculation && fmtName == "csv")
    return badArg(err, "spec-k", "speculative step times print as table or json, not csv");
  std::optional<SpeculativeDraft> draft;
  if (speculation && *specArgs.draft != "mtp") {
    draft = draftModel(spec, s, *specArgs.draft, err, rc);
    if (!draft) return rc;
  }
  auto rep = runEngine(s, cands, batches);
  if (!rep) return badInput(err, rep.error());
  std::optional<SpeculationView> view;
  if (speculation) {
    view = SpeculationView{
        *speculation, draft ? draft->label : std::string("mtp"),
        speculativeCurves(*rep, *speculation,
                          draftPerScheme(draft, static_cast<double>(s.model.layers))),
        acceptanceSource};
  }
  printModel(fmtName, *rep, level, out, view ? &*view : nullptr);
  return kExitOk;
}

int cmdCatalog(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  int rc = kExitOk;
  const auto parsed = parseCommand(catalogCommand(), argv, out, err, rc);
  if (!parsed) return rc;
  const auto format = parsed->value("--format");
  const Catalog& cat = Catalog::bundled();
  const std::string f = format.value_or("table");  // checked by the table
  if (f == "json") {
    Json j;
    j["models"] = Json::array();
    for (const auto& m : cat.models()) {
      auto arch = cat.resolveModel(m.id);
      Json o{{"id", m.id}};
      if (arch) {
        const auto p = countParams(*arch);
        o["name"] = arch->name;
        o["total_params"] = p.total();
        o["streamed_params"] = p.streamed();
        o["active_params"] = p.active;
        o["expert_params"] = p.expert();
        o["moe"] = arch->isMoe();
      }
      j["models"].push_back(o);
    }
    j["gpus"] = Json::array();
    for (const auto& g : cat.gpus()) j["gpus"].push_back(gpuToJson(g));
    j["schemes"] = Json::array();
    for (const auto& s : cat.schemes()) {
      j["schemes"].push_back({{"id", s.id},
                              {"name", s.name},
                              {"bits_per_weight", s.bitsPerWeight()},
                              {"path", tensorPathName(s.path)},
                              {"c", s.c},
                              {"c_note", s.cNote}});
    }
    writeJsonOutput(out, std::move(j));
    return kExitOk;
  }
  out << "models\n";
  for (const auto& m : cat.models()) {
    auto arch = cat.resolveModel(m.id);
    if (!arch) continue;
    const auto p = countParams(*arch);
    out << "  " << std::left << std::setw(18) << m.id << std::setw(40) << arch->name << std::right
        << " total " << std::setw(8) << fixedDecimals(p.total() / 1e9, 2) << " B  active "
        << std::setw(7) << fixedDecimals(p.active / 1e9, 2) << " B"
        << (arch->isMoe() ? "  (MoE)" : "") << "\n";
  }
  out << "\ngpus (dense TFLOP/s)\n";
  for (const auto& g : cat.gpus()) {
    out << "  " << std::left << std::setw(12) << g.id << std::setw(18) << g.name << std::right
        << std::setw(8) << fixedDecimals(g.memoryGib, 2) << " GiB " << std::setw(6)
        << fixedDecimals(g.hbmBandwidthTBps, 3) << " TB/s  ";
    for (TensorPath p : kAllTensorPaths) {
      if (g.hasPath(p))
        out << tensorPathName(p) << " " << *g.tensorTflops[static_cast<std::size_t>(p)] << "  ";
    }
    out << "fp32 " << g.vectorFp32Tflops;
    out << "  $/h "
        << (g.pricePerGpuHourUsd ? fixedDecimals(*g.pricePerGpuHourUsd, 2) : std::string("n/a"))
        << "\n";
  }
  out << "\nschemes\n";
  for (const auto& s : cat.schemes()) {
    out << "  " << std::left << std::setw(18) << s.id << std::right << std::setw(7)
        << fixedDecimals(s.bitsPerWeight(), 3) << " bits  path " << std::left << std::setw(5)
        << tensorPathName(s.path) << std::right << "  c " << s.c << "   " << s.name << "\n";
  }
  return kExitOk;
}

}  // namespace qf::cli
