// The measured-points CSV (docs/model.md, "Calibration from end-to-end measurements"): static-batch
// and serving figures at known batch, lengths and load, read row by row with errors that name the
// row and the field.
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/import/measured_points.hpp>

#include <array>
#include <cmath>
#include <filesystem>

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
    case PointLoad::Concurrency:
      return words("c", p.loadValue);
    case PointLoad::Rate:
      break;
  }
  return words(p.loadValue);
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

namespace {

/// The measured-points CSV's columns: the named ones, then any others by name (those read:
/// load, max_batch, token_budget, engine).
struct CsvColumns {
  std::vector<std::string> header;       ///< the named columns
  std::vector<std::string> headerCells;  ///< the file's header, every column
  std::optional<std::size_t> load, maxBatch, budget, engine;
};

/// Reads a whole number from `cell` into `dst`, from `lo` to `hi`; else the error names
/// `field` (through `bad`).
template <class Bad>
std::optional<Error> readInteger(const std::string& cell, const char* field, double lo, double hi,
                                 double& dst, const Bad& bad) {
  const auto v = number(cell);
  if (!v || std::floor(*v) != *v || *v < lo || *v > hi) {
    return bad(field, words("expected an integer from ", lo, " to ", hi, ", found '", cell, "'"));
  }
  dst = *v;
  return std::nullopt;
}

/// A serving row's load (a Poisson rate in req/s, cN clients in a closed loop, or max), its
/// engine limits and the batch the engine ran, when given.
template <class Bad>
std::optional<Error> readLoad(const std::vector<std::string>& cells, const CsvColumns& c,
                              MeasuredPoint& p, const Bad& bad) {
  const std::string& t = cells[*c.load];
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
  if (c.maxBatch && !cells[*c.maxBatch].empty()) {
    if (auto e = readInteger(cells[*c.maxBatch], "max_batch", 1, 65536, cap, bad)) return *e;
  }
  if (c.budget && !cells[*c.budget].empty()) {
    if (auto e = readInteger(cells[*c.budget], "token_budget", 1, 1e7, budget, bad)) return *e;
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
    if (auto e = readInteger(cells[5], "batch", 1, 65536, p.batch, bad)) return *e;
  }
  return std::nullopt;
}

/// Whether the row's metric can be measured as the row says (its output length, its load).
template <class Bad>
std::optional<Error> checkMetricFitsRow(const MeasuredPoint& p, const Bad& bad) {
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
  return std::nullopt;
}

/// One data row (`cells`, at `where` of `file`) as a point.
Result<MeasuredPoint> parseRow(const std::vector<std::string>& cells, const CsvColumns& c,
                               const std::string& file, const std::string& where,
                               const std::string& baseDir) {
  auto bad = [&](const std::string& field, const std::string& msg) {
    return Error{file, where, field, msg};
  };
  const std::size_t columns = c.headerCells.size();
  if (cells.size() != columns) {
    const std::string field = cells.size() < c.header.size() ? c.header[cells.size()]
                              : cells.size() < columns       ? trimmed(c.headerCells[cells.size()])
                                                             : trimmed(c.headerCells.back());
    return bad(field, "expected " + std::to_string(columns) + " columns (" + kMeasuredPointsHeader +
                          (columns > c.header.size() ? ", then the header's others" : "") +
                          "), found " + std::to_string(cells.size()));
  }
  MeasuredPoint p;
  p.origin = std::filesystem::path(file).filename().string() + " " + where;
  p.baseDir = baseDir;
  p.model = cells[0];
  p.gpu = cells[1];
  if (p.model.empty()) return bad("model", "is empty");
  if (p.gpu.empty()) return bad("gpu", "is empty");
  double tp = 1;
  if (auto e = readInteger(cells[2], "tp", 1, 1024, tp, bad)) return *e;
  p.tp = static_cast<int>(tp);
  p.scheme = cells[3];
  if (p.scheme.empty()) return bad("scheme", "is empty");
  p.kvDtype = cells[4].empty() ? "bf16" : cells[4];
  if (kvBytesForDtype(p.kvDtype) == 0)
    return bad("kv_dtype", "expected bf16 or fp8, found '" + p.kvDtype + "'");
  if (c.load && !cells[*c.load].empty()) {
    if (auto e = readLoad(cells, c, p, bad)) return *e;
  } else if (c.load && cells[5].empty()) {
    // Neither: a sweep's row without its load is the likelier slip in a file that has loads.
    return bad("load",
               "is empty, and so is batch: a serving row needs its load (a request rate in "
               "req/s, cN for N clients, or max), a static row its batch");
  } else if (auto e = readInteger(cells[5], "batch", 1, 1e7, p.batch, bad)) {
    return *e;
  }
  if (c.engine) {
    p.engine = trimmed(cells[*c.engine]);
    if (p.engine == "tensorrt-llm") p.engine = "trtllm";
    if (!kvFreeFractionOf(p.engine))
      return bad("engine", "expected vllm, sglang or trtllm, found '" + p.engine + "'");
  }
  if (auto e = readInteger(cells[6], "input_len", 1, 1e7, p.inputLen, bad)) return *e;
  if (auto e = readInteger(cells[7], "output_len", 1, 1e7, p.outputLen, bad)) return *e;
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
  if (auto e = checkMetricFitsRow(p, bad)) return *e;
  return p;
}

}  // namespace

Result<std::vector<MeasuredPoint>> parseMeasuredPointsCsv(const std::string& text,
                                                          const std::string& file) {
  if (!isMeasuredPointsCsv(text)) {
    return Error{
        file, "line 1", "header",
        std::string("expected the measured-points header '") + kMeasuredPointsHeader + "'"};
  }
  CsvColumns c;
  c.header = splitAt(kMeasuredPointsHeader, ',');
  // Columns after the named ones (a source, say) are carried, not read.
  c.headerCells = csvCells(stripCr(text.substr(0, text.find('\n'))));
  // Optional columns after the named ones, by name.
  for (std::size_t i = c.header.size(); i < c.headerCells.size(); ++i) {
    const std::string name = trimmed(c.headerCells[i]);
    if (name == "load") c.load = i;
    if (name == "max_batch") c.maxBatch = i;
    if (name == "token_budget") c.budget = i;
    if (name == "engine") c.engine = i;
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
    auto p = parseRow(csvCells(raw), c, file, "row " + std::to_string(line), baseDir);
    if (!p) return p.error();
    out.push_back(std::move(*p));
  }
  if (out.empty()) return Error{file, "", "", "holds no measured points"};
  return out;
}

}  // namespace qf
