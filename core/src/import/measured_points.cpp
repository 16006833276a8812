// The measured-points CSV (docs/model.md, "Calibration from end-to-end measurements"): static-batch
// and serving figures at known batch, lengths and load, read row by row with errors that name the
// row and the field.
#include <quantfront/core/import/measured_points.hpp>

#include <array>
#include <cmath>
#include <filesystem>
#include <sstream>

#include <quantfront/core/base/text.hpp>
#include <quantfront/core/model/scenario_spec.hpp>

namespace qf {

namespace {

struct MetricInfo {
  E2eMetric metric;
  const char* name;
  const char* unit;
};
constexpr std::array<MetricInfo, 13> kMetrics{{{E2eMetric::E2eLatencyS, "e2e_latency_s", "s"},
                                               {E2eMetric::TtftMs, "ttft_ms", "ms"},
                                               {E2eMetric::TpotMs, "tpot_ms", "ms"},
                                               {E2eMetric::DecodeStepMs, "decode_step_ms", "ms"},
                                               {E2eMetric::PrefillMs, "prefill_ms", "ms"},
                                               {E2eMetric::OutputTokS, "output_tok_s", "tok/s"},
                                               {E2eMetric::TotalTokS, "total_tok_s", "tok/s"},
                                               {E2eMetric::TtftP50Ms, "ttft_p50_ms", "ms"},
                                               {E2eMetric::TtftP99Ms, "ttft_p99_ms", "ms"},
                                               {E2eMetric::TpotP50Ms, "tpot_p50_ms", "ms"},
                                               {E2eMetric::TpotP99Ms, "tpot_p99_ms", "ms"},
                                               {E2eMetric::ItlP50Ms, "itl_p50_ms", "ms"},
                                               {E2eMetric::ItlP99Ms, "itl_p99_ms", "ms"}}};

const MetricInfo& infoOf(E2eMetric m) {
  for (const auto& i : kMetrics) {
    if (i.metric == m) return i;
  }
  return kMetrics[0];
}

/// One CSV line split at commas outside double quotes ("" inside quotes is a quote).
std::vector<std::string> csvCells(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  for (auto& c : out) c = trimmed(c);
  return out;
}

std::string stripCr(std::string s) {
  if (!s.empty() && s.back() == '\r') s.pop_back();
  return s;
}

std::optional<double> number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (...) {
    return std::nullopt;
  }
  if (used != text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

bool isServingPercentile(E2eMetric m) {
  return m == E2eMetric::TtftP50Ms || m == E2eMetric::TtftP99Ms || m == E2eMetric::TpotP50Ms ||
         m == E2eMetric::TpotP99Ms || m == E2eMetric::ItlP50Ms || m == E2eMetric::ItlP99Ms;
}

bool isTailMetric(E2eMetric m) {
  return m == E2eMetric::TtftP99Ms || m == E2eMetric::TpotP99Ms || m == E2eMetric::ItlP99Ms ||
         m == E2eMetric::ItlP50Ms;
}

std::string loadText(const MeasuredPoint& p) {
  switch (p.load) {
    case PointLoad::Static:
      return "";
    case PointLoad::Max:
      return "max";
    case PointLoad::Concurrency: {
      std::ostringstream o;
      o << "c" << p.loadValue;
      return o.str();
    }
    case PointLoad::Rate:
      break;
  }
  std::ostringstream o;
  o << p.loadValue;
  return o.str();
}

const char* e2eMetricName(E2eMetric m) {
  return infoOf(m).name;
}
const char* e2eMetricUnit(E2eMetric m) {
  return infoOf(m).unit;
}
std::optional<E2eMetric> e2eMetricFromName(const std::string& name) {
  for (const auto& i : kMetrics) {
    if (name == i.name) return i.metric;
  }
  return std::nullopt;
}

bool isMeasuredPointsCsv(const std::string& text) {
  const auto eol = text.find('\n');
  std::string first = stripCr(text.substr(0, eol));
  if (first.rfind("\xEF\xBB\xBF", 0) == 0) first = first.substr(3);
  std::string compact;
  for (char c : first) {
    if (c != ' ' && c != '\t') compact += c;
  }
  // The named columns first; more may follow (a source, a note), which are not read.
  const std::string head = kMeasuredPointsHeader;
  return compact == head || compact.rfind(head + ",", 0) == 0;
}

Result<std::vector<MeasuredPoint>> parseMeasuredPointsCsv(const std::string& text,
                                                          const std::string& file) {
  if (!isMeasuredPointsCsv(text)) {
    return Error{
        file, "line 1", "header",
        std::string("expected the measured-points header '") + kMeasuredPointsHeader + "'"};
  }
  const auto header = splitAt(kMeasuredPointsHeader, ',');
  // Columns after the named ones (a source, say) are carried, not read.
  const auto headerCells = csvCells(stripCr(text.substr(0, text.find('\n'))));
  const std::size_t columns = headerCells.size();
  // Optional columns after the named ones, by name.
  std::optional<std::size_t> loadCol, maxBatchCol, budgetCol, engineCol;
  for (std::size_t i = header.size(); i < columns; ++i) {
    const std::string name = trimmed(headerCells[i]);
    if (name == "load") loadCol = i;
    if (name == "max_batch") maxBatchCol = i;
    if (name == "token_budget") budgetCol = i;
    if (name == "engine") engineCol = i;
  }
  std::vector<MeasuredPoint> out;
  const std::string baseDir = std::filesystem::path(file).parent_path().string();
  std::size_t pos = text.find('\n');
  int line = 1;
  while (pos != std::string::npos && pos + 1 <= text.size()) {
    const std::size_t start = pos + 1;
    pos = text.find('\n', start);
    ++line;
    const std::string raw =
        stripCr(text.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (trimmed(raw).empty()) continue;
    if (out.size() >= kMaxMeasuredPoints) {
      return Error{file, "row " + std::to_string(line), "",
                   "more than " + std::to_string(kMaxMeasuredPoints) +
                       " points; a calibration needs far fewer (split the file)"};
    }
    const auto cells = csvCells(raw);
    const std::string where = "row " + std::to_string(line);
    auto bad = [&](const std::string& field, const std::string& msg) {
      return Error{file, where, field, msg};
    };
    if (cells.size() != columns) {
      const std::string field = cells.size() < header.size() ? header[cells.size()]
                                : cells.size() < columns     ? trimmed(headerCells[cells.size()])
                                                             : trimmed(headerCells.back());
      return bad(field, "expected " + std::to_string(columns) + " columns (" +
                            kMeasuredPointsHeader +
                            (columns > header.size() ? ", then the header's others" : "") +
                            "), found " + std::to_string(cells.size()));
    }
    MeasuredPoint p;
    p.origin = std::filesystem::path(file).filename().string() + " " + where;
    p.baseDir = baseDir;
    p.model = cells[0];
    p.gpu = cells[1];
    if (p.model.empty()) return bad("model", "is empty");
    if (p.gpu.empty()) return bad("gpu", "is empty");
    auto integer = [&](const std::string& cell, const char* field, double lo, double hi,
                       double& dst) -> std::optional<Error> {
      const auto v = number(cell);
      if (!v || std::floor(*v) != *v || *v < lo || *v > hi) {
        std::ostringstream m;
        m << "expected an integer from " << lo << " to " << hi << ", found '" << cell << "'";
        return bad(field, m.str());
      }
      dst = *v;
      return std::nullopt;
    };
    double tp = 1;
    if (auto e = integer(cells[2], "tp", 1, 1024, tp)) return *e;
    p.tp = static_cast<int>(tp);
    p.scheme = cells[3];
    if (p.scheme.empty()) return bad("scheme", "is empty");
    p.kvDtype = cells[4].empty() ? "bf16" : cells[4];
    if (kvBytesForDtype(p.kvDtype) == 0)
      return bad("kv_dtype", "expected bf16 or fp8, found '" + p.kvDtype + "'");
    if (loadCol && !cells[*loadCol].empty()) {
      // A server under load: a Poisson rate in req/s, cN clients in a closed loop, or max.
      const std::string& t = cells[*loadCol];
      if (t == "max") {
        p.load = PointLoad::Max;
      } else if (t.size() > 1 && (t[0] == 'c' || t[0] == 'C')) {
        const auto v = number(t.substr(1));
        if (!v || std::floor(*v) != *v || *v < 1 || *v > 1e6)
          return bad("load", "expected cN with N an integer from 1 to 1000000, found '" + t + "'");
        p.load = PointLoad::Concurrency;
        p.loadValue = *v;
      } else {
        const auto v = number(t);
        if (!v || !(*v > 0) || *v > 1e6) {
          return bad("load",
                     "expected a request rate in req/s (0 < R <= 1000000), cN clients or max, "
                     "found '" +
                         t + "'");
        }
        p.load = PointLoad::Rate;
        p.loadValue = *v;
      }
      double cap = 0, budget = 0;  // 0: the engine's default on the point's GPU
      if (maxBatchCol && !cells[*maxBatchCol].empty()) {
        if (auto e = integer(cells[*maxBatchCol], "max_batch", 1, 65536, cap)) return *e;
      }
      if (budgetCol && !cells[*budgetCol].empty()) {
        if (auto e = integer(cells[*budgetCol], "token_budget", 1, 1e7, budget)) return *e;
      }
      if (cap > 0 && budget > 0 && budget < cap)
        return bad("token_budget",
                   "must be at least max_batch (every running sequence decodes "
                   "one token per step)");
      p.maxBatch = static_cast<int>(cap);
      p.tokenBudget = budget;
      // A batch on a serving row is the engine's, not the benchmark's: read when given.
      p.batch = 0;
      if (!cells[5].empty()) {
        if (auto e = integer(cells[5], "batch", 1, 65536, p.batch)) return *e;
      }
    } else if (auto e = integer(cells[5], "batch", 1, 1e7, p.batch)) {
      return *e;
    }
    if (engineCol) {
      p.engine = trimmed(cells[*engineCol]);
      if (p.engine == "tensorrt-llm") p.engine = "trtllm";
      if (!kvFreeFractionOf(p.engine))
        return bad("engine", "expected vllm, sglang or trtllm, found '" + p.engine + "'");
    }
    if (auto e = integer(cells[6], "input_len", 1, 1e7, p.inputLen)) return *e;
    if (auto e = integer(cells[7], "output_len", 1, 1e7, p.outputLen)) return *e;
    const auto metric = e2eMetricFromName(cells[8]);
    if (!metric) {
      std::string names;
      for (const auto& i : kMetrics) names += (names.empty() ? "" : ", ") + std::string(i.name);
      return bad("metric", "unknown metric '" + cells[8] + "' (expected one of " + names + ")");
    }
    p.metric = *metric;
    const auto v = number(cells[9]);
    if (!v || !(*v > 0)) {
      return bad("value", "expected a positive finite number, found '" + cells[9] + "'");
    }
    p.value = *v;
    if (cells[10] != e2eMetricUnit(p.metric)) {
      return bad("unit", std::string("the unit of ") + e2eMetricName(p.metric) + " is '" +
                             e2eMetricUnit(p.metric) + "', found '" + cells[10] + "'");
    }
    if ((p.metric == E2eMetric::TpotMs || p.metric == E2eMetric::TpotP50Ms ||
         p.metric == E2eMetric::TpotP99Ms || p.metric == E2eMetric::ItlP50Ms ||
         p.metric == E2eMetric::ItlP99Ms) &&
        p.outputLen < 2)
      return bad("output_len",
                 std::string(e2eMetricName(p.metric)) + " needs at least 2 output tokens");
    if (isServingPercentile(p.metric) && !p.serving()) {
      return bad("load", std::string(e2eMetricName(p.metric)) +
                             " is measured under load: give the row's load (a request rate, cN "
                             "or max)");
    }
    if (p.load == PointLoad::Max &&
        (p.metric == E2eMetric::TtftMs || p.metric == E2eMetric::TtftP50Ms ||
         p.metric == E2eMetric::TtftP99Ms || p.metric == E2eMetric::E2eLatencyS)) {
      return bad("metric", std::string(e2eMetricName(p.metric)) +
                               " at load max depends on how many requests the benchmark sent "
                               "at once; give a request rate or cN for a TTFT");
    }
    if (p.serving() && (p.metric == E2eMetric::DecodeStepMs || p.metric == E2eMetric::PrefillMs)) {
      return bad("metric", std::string(e2eMetricName(p.metric)) +
                               " is a static batch's figure; a serving row takes ttft, tpot, itl "
                               "(mean, p50, p99), e2e_latency_s, output_tok_s or total_tok_s");
    }
    out.push_back(std::move(p));
  }
  if (out.empty()) return Error{file, "", "", "holds no measured points"};
  return out;
}

}  // namespace qf
