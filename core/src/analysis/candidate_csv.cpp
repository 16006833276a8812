// Candidates from CSV: RFC 4180 rows, UTF-8 checked, one candidate a row with its metrics and
// their bounds.
#include <quantfront/core/analysis/frontier.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/base/numbers.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "frontier_text.hpp"

namespace qf {

using namespace frontier_text;

namespace {

struct CsvCell {
  std::string text;
  std::size_t column = 1;  ///< 1-based character column where the cell starts
};

struct CsvRow {
  std::vector<CsvCell> cells;
  std::size_t line = 1;
};

/// Splits CSV text into rows of cells (RFC 4180 quoting; CRLF tolerated; blank lines skipped).
Result<std::vector<CsvRow>> splitCsv(std::string_view text, const std::string& label) {
  std::vector<CsvRow> rows;
  std::size_t i = 0, line = 1;
  if (text.starts_with("\xEF\xBB\xBF")) i = 3;  // UTF-8 byte-order mark
  std::size_t lineStart = i;
  while (i < text.size()) {
    CsvRow row;
    row.line = line;
    bool blank = true;
    for (;;) {
      CsvCell cell;
      cell.column = i - lineStart + 1;
      if (i < text.size() && text[i] == '"') {
        blank = false;
        const std::size_t openLine = line, openCol = cell.column;
        ++i;
        for (;;) {
          if (i >= text.size()) {
            return Error{label,
                         "line " + std::to_string(openLine) + ", column " + std::to_string(openCol),
                         "", "quoted cell is not closed"};
          }
          if (text[i] == '"') {
            if (i + 1 < text.size() && text[i + 1] == '"') {
              cell.text.push_back('"');
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          if (text[i] == '\n') {
            ++line;
            lineStart = i + 1;
          }
          cell.text.push_back(text[i++]);
        }
        if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
          return Error{
              label,
              "line " + std::to_string(line) + ", column " + std::to_string(i - lineStart + 1), "",
              "unexpected character after a closing quote"};
        }
      } else {
        while (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
          cell.text.push_back(text[i++]);
        }
        if (!trim(cell.text).empty()) blank = false;
      }
      row.cells.push_back(std::move(cell));
      if (i < text.size() && text[i] == ',') {
        blank = false;
        ++i;
        continue;
      }
      break;
    }
    if (i < text.size() && text[i] == '\r') ++i;
    if (i < text.size() && text[i] == '\n') ++i;
    ++line;
    lineStart = i;
    if (!blank) rows.push_back(std::move(row));
  }
  return rows;
}

std::string pos(std::size_t line, std::size_t column) {
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

/// Length of the well-formed UTF-8 sequence at text[i] (RFC 3629: no overlong forms, no
/// surrogates, nothing above U+10FFFF); 0 when the bytes there are not one.
std::size_t utf8SequenceLength(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < len; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return len;
}

/// The first byte that is not valid UTF-8, as an error naming its line and column (byte
/// columns, as the other CSV errors count them); nullopt when the text is valid UTF-8.
std::optional<Error> checkUtf8(std::string_view text, const std::string& label) {
  std::size_t line = 1, lineStart = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++line;
      lineStart = ++i;
      continue;
    }
    if (c < 0x80) {
      ++i;
      continue;
    }
    const std::size_t len = utf8SequenceLength(text, i);
    if (len == 0) {
      static const char* const kHex = "0123456789ABCDEF";
      const std::string hex = std::string("0x") + kHex[c >> 4] + kHex[c & 0xF];
      return Error{label, pos(line, i - lineStart + 1), line == 1 ? "header" : "",
                   "invalid UTF-8 (byte " + hex +
                       "); a candidates CSV must be UTF-8 text (re-save it as UTF-8)"};
    }
    i += len;
  }
  return std::nullopt;
}

/// What a header column holds.
enum class Role { Id, Text, GpuCount, Metric, Lo, Hi };

/// The header: column names, their roles and, for interval bounds, the metric they bound.
struct Columns {
  std::vector<std::string> names;
  std::vector<Role> roles;
  std::vector<std::string> base;  ///< the metric a column is about (its own name but bounds')
};

Result<Columns> readHeader(const CsvRow& header, const std::string& label) {
  Columns cols;
  std::vector<std::string>& names = cols.names;
  std::set<std::string> seen;
  for (const auto& c : header.cells) {
    const std::string name = trim(c.text);
    if (name.empty())
      return Error{label, pos(header.line, c.column), "", "empty column name in the header"};
    if (!seen.insert(name).second) {
      return Error{label, pos(header.line, c.column), name, "column appears twice in the header"};
    }
    names.push_back(name);
  }
  if (names.front() != "id") {
    return Error{label, pos(header.line, 1), names.front(),
                 "the first column must be 'id' (header id,<metric>,...)"};
  }
  static const std::set<std::string> kText = {"model", "scheme", "gpu", "engine", "notes"};
  cols.roles.assign(names.size(), Role::Metric);
  cols.base.assign(names.size(), std::string());
  cols.roles[0] = Role::Id;
  for (std::size_t k = 1; k < names.size(); ++k) {
    const std::string& n = names[k];
    cols.base[k] = n;
    if (kText.count(n)) {
      cols.roles[k] = Role::Text;
    } else if (n == "gpu_count") {
      cols.roles[k] = Role::GpuCount;
    } else if ((n.ends_with("_lo") || n.ends_with("_hi")) && n.size() > 3 &&
               seen.count(n.substr(0, n.size() - 3))) {
      cols.roles[k] = n.ends_with("_lo") ? Role::Lo : Role::Hi;
      cols.base[k] = n.substr(0, n.size() - 3);
    }
  }
  return cols;
}

/// A row's interval bounds per metric, and the column each came from.
struct RowBounds {
  std::map<std::string, std::pair<std::optional<double>, std::optional<double>>> bounds;
  std::map<std::string, std::size_t> column;
};

/// Puts each bound on its metric's value, refusing a bound without a value or on the wrong
/// side of it.
std::optional<Error> applyBounds(const RowBounds& rb, const CsvRow& row, Candidate& c,
                                 const std::string& label) {
  for (const auto& [metric, b] : rb.bounds) {
    const auto it = c.metrics.find(metric);
    const auto colOf = [&](const char* suffix) {
      const auto at = rb.column.find(metric + suffix);
      return pos(row.line, at == rb.column.end() ? 0 : at->second);
    };
    if (it == c.metrics.end()) {
      return Error{label, colOf(b.first ? "_lo" : "_hi"), metric + (b.first ? "_lo" : "_hi"),
                   "an interval bound is given but the value of " + metric + " is missing"};
    }
    if (b.first && *b.first > it->second.value) {
      return Error{label, colOf("_lo"), metric + "_lo",
                   "lower bound " + sigFigs(*b.first, 6) + " is above the value " +
                       sigFigs(it->second.value, 6)};
    }
    if (b.second && *b.second < it->second.value) {
      return Error{label, colOf("_hi"), metric + "_hi",
                   "upper bound " + sigFigs(*b.second, 6) + " is below the value " +
                       sigFigs(it->second.value, 6)};
    }
    it->second.lo = b.first;
    it->second.hi = b.second;
  }
  return std::nullopt;
}

/// One data row's candidate; its id must not be in `ids` (it is added).
Result<Candidate> readRow(const CsvRow& row, const Columns& cols, std::set<std::string>& ids,
                          const std::string& label) {
  const std::vector<std::string>& names = cols.names;
  if (row.cells.size() != names.size()) {
    const std::size_t col =
        row.cells.size() > names.size() ? row.cells[names.size()].column : row.cells.back().column;
    const std::string field =
        row.cells.size() > names.size() ? std::string() : names[row.cells.size()];
    return Error{label, pos(row.line, col), field,
                 "row has " + std::to_string(row.cells.size()) + " cells but the header has " +
                     std::to_string(names.size())};
  }
  Candidate c;
  c.id = trim(row.cells[0].text);
  if (c.id.empty())
    return Error{label, pos(row.line, row.cells[0].column), "id", "empty candidate id"};
  if (!ids.insert(c.id).second) {
    return Error{label, pos(row.line, row.cells[0].column), "id",
                 "candidate id '" + c.id + "' appears twice"};
  }
  RowBounds rb;
  for (std::size_t k = 1; k < names.size(); ++k) {
    const std::string cellText = trim(row.cells[k].text);
    const std::string where = pos(row.line, row.cells[k].column);
    const Role role = cols.roles[k];
    if (role == Role::Text) {
      if (names[k] == "model")
        c.model = cellText;
      else if (names[k] == "scheme")
        c.schemeLinear = cellText;
      else if (names[k] == "gpu")
        c.gpu = cellText;
      else if (names[k] == "engine")
        c.engine = cellText;
      else
        c.notes = cellText;
      continue;
    }
    if (cellText.empty()) continue;  // missing value
    const auto v = toNumber(cellText);
    if (!v) {
      const std::string l = lower(cellText);
      const bool nonFinite = l == "nan" || l == "inf" || l == "-inf" || l == "infinity" ||
                             l == "-infinity" || l == "+inf";
      return Error{label, where, names[k],
                   nonFinite ? "'" + cellText +
                                   "' is not a finite number; leave the cell empty "
                                   "for a missing value"
                             : "expected a number, found '" + cellText + "'"};
    }
    if (role == Role::GpuCount) {
      if (*v < 1 || std::floor(*v) != *v || *v > 1e6) {
        return Error{label, where, names[k],
                     "expected a positive integer, found '" + cellText + "'"};
      }
      c.gpuCount = static_cast<int>(*v);
    } else if (role == Role::Metric) {
      MetricValue mv;
      mv.value = *v;
      mv.provenance.kind = ProvenanceKind::Measured;
      mv.provenance.sourceFile = label;
      c.metrics[names[k]] = mv;
    } else {
      auto& b = rb.bounds[cols.base[k]];
      (role == Role::Lo ? b.first : b.second) = *v;
      rb.column[cols.base[k] + (role == Role::Lo ? "_lo" : "_hi")] = row.cells[k].column;
    }
  }
  if (auto e = applyBounds(rb, row, c, label)) return *e;
  return c;
}

}  // namespace

Result<CandidateTable> parseCandidateCsv(std::string_view text, const std::string& label) {
  if (auto bad = checkUtf8(text, label)) return *bad;
  auto rowsR = splitCsv(text, label);
  if (!rowsR) return rowsR.error();
  auto& rows = *rowsR;
  if (rows.empty())
    return Error{label, "line 1, column 1", "", "file is empty; expected a header id,<metric>,..."};
  auto cols = readHeader(rows.front(), label);
  if (!cols) return cols.error();
  CandidateTable table;
  for (std::size_t k = 1; k < cols->names.size(); ++k) {
    if (cols->roles[k] == Role::Metric) table.metricColumns.push_back(cols->names[k]);
  }
  std::set<std::string> ids;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    auto c = readRow(rows[r], *cols, ids, label);
    if (!c) return c.error();
    table.candidates.push_back(std::move(*c));
  }
  return table;
}

Result<CandidateTable> readCandidateCsv(const std::string& path) {
  auto bytes = readFileBytes(path, 64ull * 1024 * 1024);
  if (!bytes) return bytes.error();
  return parseCandidateCsv(*bytes, path);
}

}  // namespace qf
