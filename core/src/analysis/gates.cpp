// Objectives and gates: which way a metric is better, the objective and gate syntax, and
// whether a value (with its interval) passes a gate.
#include <quantfront/core/analysis/frontier.hpp>
#include <quantfront/core/analysis/metric_dictionary.hpp>
#include <quantfront/core/base/text.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include "frontier_text.hpp"

namespace qf {

using namespace frontier_text;

const char* directionName(Direction d) {
  return d == Direction::Max ? "max" : "min";
}

std::optional<Direction> knownDirection(const std::string& metricName) {
  // lm-eval task scores first: `<task>_brier_score` and `<task>_invalid_rate` are lower-is-better
  // although the rules below would read `score` as a maximum.
  if (const auto d = lmEvalMetricDirection(metricName)) return d;
  const std::string m = lower(metricName);
  const auto tokens = splitAt(m, '_');
  const auto hasToken = [&](std::string_view t) {
    return std::find(tokens.begin(), tokens.end(), t) != tokens.end();
  };
  // Larger is better. Checked first: `throughput_tok_s` ends in `_s` but is a rate.
  for (std::string_view part : {"score", "recovery", "throughput", "goodput", "queries_per_usd",
                                "max_concurrency", "cost_reduction", "accuracy", "exact_match"}) {
    if (contains(m, part)) return Direction::Max;
  }
  if (hasToken("acc") || contains(m, "tokens_per_s") || m.ends_with("_tok_s") ||
      m.ends_with("_req_s") || m.ends_with("_per_s") || m.ends_with("_tokens_s")) {
    return Direction::Max;
  }
  // Smaller is better.
  for (std::string_view suffix : {"_ms", "_s", "_us", "_gib", "_gb"}) {
    if (m.ends_with(suffix)) return Direction::Min;
  }
  for (std::string_view part : {"usd_per", "flip_rate", "energy", "fallback"}) {
    if (contains(m, part)) return Direction::Min;
  }
  if (hasToken("kl")) return Direction::Min;
  // A time unit followed by a qualifier: step_ms_b1, ttft_ms_p99, latency_s_mean.
  if (hasToken("ms") || hasToken("us") || hasToken("latency") || hasToken("gib")) {
    return Direction::Min;
  }
  return std::nullopt;
}

Result<std::vector<Objective>> parseObjectives(const std::string& spec, const std::string& field) {
  std::vector<Objective> out;
  std::set<std::string> seen;
  for (const auto& raw : splitAt(spec, ',')) {
    const std::string item = trim(raw);
    if (item.empty()) return Error{"", "", field, "empty objective in '" + spec + "'"};
    Objective o;
    const auto colon = item.rfind(':');
    if (colon == std::string::npos) {
      o.metric = item;
      const auto d = knownDirection(item);
      if (!d) {
        return Error{"", "", field,
                     "no known direction for metric '" + item + "'; write " + item + ":max or " +
                         item + ":min"};
      }
      o.direction = *d;
    } else {
      o.metric = trim(item.substr(0, colon));
      const std::string dir = lower(trim(item.substr(colon + 1)));
      if (dir == "max")
        o.direction = Direction::Max;
      else if (dir == "min")
        o.direction = Direction::Min;
      else {
        return Error{"", "", field,
                     "direction must be max or min, found '" + dir + "' in '" + item + "'"};
      }
      if (o.metric.empty()) return Error{"", "", field, "missing metric name in '" + item + "'"};
      if (o.metric.find(':') != std::string::npos) {
        return Error{"", "", field,
                     "one direction per objective (NAME:max or NAME:min), found '" + item + "'"};
      }
    }
    if (!seen.insert(o.metric).second) {
      return Error{"", "", field, "metric '" + o.metric + "' is listed twice"};
    }
    out.push_back(std::move(o));
  }
  return out;
}

const char* gateOpText(GateOp op) {
  switch (op) {
    case GateOp::Ge:
      return ">=";
    case GateOp::Le:
      return "<=";
    case GateOp::Gt:
      return ">";
    case GateOp::Lt:
      return "<";
    case GateOp::Eq:
      return "==";
  }
  return "?";
}

Result<Gate> parseGate(const std::string& textIn, const std::string& field) {
  std::string text;
  for (char c : textIn) {
    if (!std::isspace(static_cast<unsigned char>(c))) text.push_back(c);
  }
  Gate g;
  g.text = text;
  struct OpText {
    std::string_view text;
    GateOp op;
  };
  static constexpr OpText kOps[] = {{">=", GateOp::Ge},
                                    {"<=", GateOp::Le},
                                    {"==", GateOp::Eq},
                                    {">", GateOp::Gt},
                                    {"<", GateOp::Lt}};
  std::size_t at = std::string::npos, len = 0;
  for (const auto& o : kOps) {
    const auto p = text.find(o.text);
    if (p != std::string::npos) {
      at = p;
      len = o.text.size();
      g.op = o.op;
      break;
    }
  }
  const std::string usage = "; expected NAME>=X, NAME<X, NAME==X, or NAME>=baseline-X";
  if (at == std::string::npos) {
    return Error{"", "", field, "no comparison (>=, <=, >, <, ==) in '" + textIn + "'" + usage};
  }
  g.metric = text.substr(0, at);
  const std::string rhs = text.substr(at + len);
  if (g.metric.empty())
    return Error{"", "", field, "missing metric name in '" + textIn + "'" + usage};
  if (rhs.empty()) return Error{"", "", field, "missing threshold in '" + textIn + "'" + usage};
  if (rhs.find_first_of("<>=") != std::string::npos) {
    return Error{"", "", field, "more than one comparison in '" + textIn + "'" + usage};
  }
  const std::string rl = lower(rhs);
  if (rl.starts_with("baseline")) {
    g.relativeToBaseline = true;
    const std::string rest = rhs.substr(8);
    if (rest.empty()) {
      g.threshold = 0;
    } else if (rest[0] == '+' || rest[0] == '-') {
      const auto v = toNumber(std::string_view(rest).substr(1));
      if (!v) {
        return Error{"", "", field,
                     "'" + rest.substr(1) + "' after baseline" + rest[0] +
                         " is not a finite number in '" + textIn + "'"};
      }
      g.threshold = rest[0] == '-' ? -*v : *v;
    } else {
      return Error{"", "", field,
                   "expected baseline, baseline+X or baseline-X, found '" + rhs + "'"};
    }
    return g;
  }
  const auto v = toNumber(rhs);
  if (!v)
    return Error{"", "", field, "'" + rhs + "' is not a finite number in '" + textIn + "'" + usage};
  g.threshold = *v;
  return g;
}

bool gatePasses(GateOp op, double value, double threshold) {
  switch (op) {
    case GateOp::Ge:
      return value >= threshold;
    case GateOp::Le:
      return value <= threshold;
    case GateOp::Gt:
      return value > threshold;
    case GateOp::Lt:
      return value < threshold;
    case GateOp::Eq:
      return std::abs(value - threshold) <=
             1e-9 * std::max({1.0, std::abs(value), std::abs(threshold)});
  }
  return false;
}

const char* gateOutcomeName(GateOutcome o) {
  switch (o) {
    case GateOutcome::Pass:
      return "pass";
    case GateOutcome::Fail:
      return "fail";
    case GateOutcome::Undecided:
      return "undecided";
  }
  return "";
}

GateOutcome gateOutcome(GateOp op, double value, std::optional<double> lo, std::optional<double> hi,
                        double threshold) {
  const bool passes = gatePasses(op, value, threshold);
  if (op == GateOp::Eq || !lo || !hi || !std::isfinite(*lo) || !std::isfinite(*hi)) {
    return passes ? GateOutcome::Pass : GateOutcome::Fail;
  }
  const double low = std::min(*lo, value), high = std::max(*hi, value);
  const bool lowPasses = gatePasses(op, low, threshold);
  if (lowPasses != gatePasses(op, high, threshold)) return GateOutcome::Undecided;
  return lowPasses ? GateOutcome::Pass : GateOutcome::Fail;
}

}  // namespace qf
