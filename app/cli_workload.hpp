#pragma once
/// What `qfront serving`, `qfront search` and `qfront model` share: the request shape
/// (--use-case or --input-len/--output-len), a MoE replica's layout, positive numbers, and a
/// load list (sync | max | R[,R...]).
#include <cmath>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <quantfront/core/analysis/deploy_search.hpp>
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/model/cost.hpp>
#include <quantfront/core/model/serving_model.hpp>

#include "cli.hpp"
#include "shell.hpp"

namespace qf::cli {

/// --tp: GPUs per replica.
inline constexpr ValueCheck kTpCheck = integerIn(1, 1024);
/// --token-budget: tokens per step.
inline constexpr ValueCheck kTokenBudgetCheck = integerIn(1, 100'000'000, "a positive integer");
/// --format of a command that prints a table, CSV or JSON.
inline constexpr OptionSpec kFormatOption = {
    "--format", "table|csv|json", "output format (default table)", oneOf("table|csv|json")};

/// The request shape: a bundled use case, or prompt and output tokens.
inline constexpr OptionSpec kRequestShapeOptions[] = {
    {"--use-case", "ID", "a bundled request shape (prompt and output tokens)"},
    {"--input-len", "I", "prompt tokens per request"},
    {"--output-len", "O", "output tokens per request"},
};

/// The engine's memory rule: what the KV pool is left.
inline constexpr OptionSpec kMemoryOptions[] = {
    {"--mem-util", "U", "gpu_memory_utilization (default 0.92)",
     numberIn(0, 1, true, "a number in (0, 1]")},
    {"--reserve-gib", "G", "activations, CUDA graphs, non-torch memory (default 6.0)",
     numberIn(0, 1e300, false, "a non-negative number")},
};

/// A MoE replica's layout (docs/model.md, "Expert parallelism and DP attention").
inline constexpr OptionSpec kMoeLayoutOptions[] = {
    {"--ep", "N",
     "MoE models: spread the routed experts whole over N groups of the\n"
     "replica's GPUs, each expert split over tp/N (N divides tp and the\n"
     "experts; default 1, every expert split over all tp)"},
    {"--dp-attention", "",
     "MoE models: attention and the dense part data-parallel over the\n"
     "replica's GPUs (each its own sequences and scheduler, whole dense\n"
     "weights and KV; all-to-all dispatch and combine when --ep = --tp)"},
    {"--expert-imbalance", "F",
     "the busiest GPU's routed-expert work over the mean under --ep > 1\n"
     "(default 1, uniform routing; 1 to 64)"},
    {"--redundant-experts", "R",
     "under --ep > 1, R redundant expert slots as the engines' load balancer\n"
     "places them (vLLM --num-redundant-experts, SGLang\n"
     "--ep-num-redundant-experts): --ep divides experts + R; every slot is\n"
     "stored and read (default 0)",
     integerIn(0, 1024)},
    {"--two-batch-overlap", "",
     "with --dp-attention and --ep = --tp: two micro-batches, one's all-to-all\n"
     "under the other's GEMMs and attention (SGLang --enable-two-batch-overlap,\n"
     "vLLM --enable-dbo); each reads the weights once"},
};

/// --ep, --expert-imbalance, --dp-attention, --redundant-experts and --two-batch-overlap as a
/// MoE layout (checked with the scenario when it is resolved).
inline int moeLayoutOptions(const std::optional<std::string>& ep,
                            const std::optional<std::string>& imbalance, bool dpAttention,
                            std::optional<double> redundant, MoeLayout& layout, std::ostream& err,
                            bool twoBatchOverlap = false) {
  layout.twoBatchOverlap = twoBatchOverlap;
  if (redundant) layout.redundantExperts = static_cast<int>(*redundant);
  if (ep) {
    const auto v = parseInt(*ep);
    if (!v || *v < 1 || *v > 1024)
      return badArg(err, "ep", "expected an integer from 1 to 1024, found '" + *ep + "'");
    layout.ep = static_cast<int>(*v);
  }
  if (imbalance) {
    const auto v = parseNumber(*imbalance);
    if (!v) return badArg(err, "expert-imbalance", "expected a number, found '" + *imbalance + "'");
    layout.expertImbalance = *v;
  }
  layout.dpAttention = dpAttention;
  return kExitOk;
}

/// A positive finite number for option `field` (without the dashes); prints the error and sets
/// rc when it is not one.
inline std::optional<double> positiveOption(const std::optional<std::string>& v,
                                            const std::string& field, std::ostream& err, int& rc) {
  if (!v) return std::nullopt;
  const auto x = parseNumber(*v);
  if (!x || !(*x > 0)) {
    rc = badArg(err, field, "expected a positive number, found '" + *v + "'");
    return std::nullopt;
  }
  return x;
}

/// The request shape from --use-case or --input-len and --output-len (one of the two ways);
/// `useCaseId` receives the preset's id. Returns nullopt after printing the error.
inline std::optional<ServingWorkload> workloadOption(const std::optional<std::string>& useCase,
                                                     const std::optional<std::string>& inputLen,
                                                     const std::optional<std::string>& outputLen,
                                                     std::string& useCaseId, std::ostream& err,
                                                     int& rc) {
  if (useCase && (inputLen || outputLen)) {
    rc = badArg(err, "use-case", "give --use-case or --input-len/--output-len, not both");
    return std::nullopt;
  }
  ServingWorkload w;
  if (useCase) {
    auto u = findUseCase(*useCase);
    if (!u) {
      rc = badInput(err, u.error());
      return std::nullopt;
    }
    useCaseId = u->id;
    w.inputTokens = static_cast<double>(u->prefillTokens);
    w.outputTokens = static_cast<double>(u->decodeTokens);
    return w;
  }
  if (!inputLen || !outputLen) {
    rc = badArg(err, inputLen ? "output-len" : "input-len",
                "give --input-len and --output-len (tokens per request) or --use-case ID");
    return std::nullopt;
  }
  for (auto [v, field, dst] : {std::tuple{inputLen, "input-len", &w.inputTokens},
                               std::tuple{outputLen, "output-len", &w.outputTokens}}) {
    const auto x = parseInt(*v);
    if (!x || *x < 1 || *x > 10'000'000) {
      rc = badArg(err, field,
                  "expected a whole number of tokens from 1 to 10000000, found '" + *v + "'");
      return std::nullopt;
    }
    *dst = static_cast<double>(*x);
  }
  return w;
}

/// --tp (GPUs per replica, an integer from 1 to 1024) into `out` when given. Returns false
/// after printing the error.
inline bool tpOption(const std::optional<std::string>& tp, int& out, std::ostream& err, int& rc) {
  if (!tp) return true;
  const auto v = parseInt(*tp);
  if (!v || *v < 1 || *v > 1024) {
    rc = badArg(err, "tp", "expected an integer from 1 to 1024, found '" + *tp + "'");
    return false;
  }
  out = static_cast<int>(*v);
  return true;
}

/// --mem-util (in (0, 1]) and --reserve-gib (≥ 0) into `memUtil` and `reserveGib` when given.
/// Returns false after printing the error.
inline bool memoryOptions(const std::optional<std::string>& memUtil,
                          const std::optional<std::string>& reserve, double& memUtilOut,
                          double& reserveOut, std::ostream& err, int& rc) {
  if (memUtil) {
    const auto v = parseNumber(*memUtil);
    if (!v || !(*v > 0 && *v <= 1)) {
      rc = badArg(err, "mem-util", "expected a number in (0, 1], found '" + *memUtil + "'");
      return false;
    }
    memUtilOut = *v;
  }
  if (reserve) {
    const auto v = parseNumber(*reserve);
    if (!v || *v < 0) {
      rc = badArg(err, "reserve-gib", "expected a non-negative number, found '" + *reserve + "'");
      return false;
    }
    reserveOut = *v;
  }
  return true;
}

/// --token-budget (a positive integer of tokens per step) into `out` when given.
inline bool tokenBudgetOption(const std::optional<std::string>& budget, double& out,
                              std::ostream& err, int& rc) {
  if (!budget) return true;
  const auto v = parseInt(*budget);
  if (!v || *v < 1 || *v > 100'000'000) {
    rc = badArg(err, "token-budget", "expected a positive integer, found '" + *budget + "'");
    return false;
  }
  out = static_cast<double>(*v);
  return true;
}

/// One offered load: "sync", "max" or a request rate in requests per second.
struct LoadPoint {
  enum class Kind { Sync, Max, Rate } kind = Kind::Max;
  double rate = 0;
  std::string text;
};
/// Parses "sync", "max", "R" or a comma list of them. Returns false after printing the error.
inline bool parseLoads(const std::string& spec, std::vector<LoadPoint>& out, std::ostream& err,
                       int& rc) {
  for (const auto& item : splitComma(spec)) {
    LoadPoint p;
    p.text = item;
    if (item == "sync") {
      p.kind = LoadPoint::Kind::Sync;
    } else if (item == "max") {
      p.kind = LoadPoint::Kind::Max;
    } else {
      const auto r = parseNumber(item);
      if (!r || !(*r >= kMinRequestRate) || !(*r <= kMaxRequestRate)) {
        rc = badArg(err, "load",
                    "expected sync, max or a request rate from 0.0001 to 1000000 req/s, found '" +
                        item + "'");
        return false;
      }
      p.kind = LoadPoint::Kind::Rate;
      p.rate = *r;
    }
    out.push_back(p);
  }
  if (out.empty()) {
    rc = badArg(err, "load", "no load given");
    return false;
  }
  return true;
}

}  // namespace qf::cli
