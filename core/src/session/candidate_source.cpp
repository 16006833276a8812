// Candidates from a session or a CSV table, detected by content.
#include <quantfront/core/session/candidate_source.hpp>

#include <quantfront/core/session/evidence_edit.hpp>

#include <nlohmann/json.hpp>

#include <quantfront/core/analysis/frontier.hpp>
#include <quantfront/core/analysis/frontier_analysis.hpp>
#include <quantfront/core/base/json_io.hpp>

namespace qf {

Result<CandidateSource> parseCandidateSource(std::string_view bytes, const std::string& label) {
  CandidateSource out;
  std::string_view text = bytes;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  const auto firstChar = text.find_first_not_of(" \t\r\n");
  if (firstChar != std::string_view::npos && text[firstChar] == '{') {
    // JSON: only a session is accepted, read as opening it reads it.
    auto doc = parseSessionJson(bytes, label);
    if (!doc) return doc.error();
    const auto fmt = doc->find("format");
    if (fmt == doc->end() || !fmt->is_string() || fmt->get<std::string>() != kSessionFormat) {
      return Error{label, "/format", "format",
                   "this JSON file is not a QuantFront session (\"format\": \"" +
                       std::string(kSessionFormat) +
                       "\"); candidates are read from a session or a CSV file"};
    }
    auto session = parseSession(*doc, label);
    if (!session) return session.error();
    for (const auto& c : session->candidates) {
      if (isHidden(*session, c.id)) out.hidden.push_back(c.id);
    }
    out.candidates = visibleCandidates(session->candidates, session->view.hidden);
    out.view = std::move(session->view);
    out.scenarioModel = session->scenario.model;
    out.metricNames = metricNamesOf(out.candidates);
    return out;
  }
  if (firstChar != std::string_view::npos && text[firstChar] == '[') {
    return Error{label, "line 1, column " + std::to_string(firstChar + 1), "",
                 "this looks like a JSON array; candidates are read from a session or a CSV file "
                 "with header id,<metric>,..."};
  }
  auto table = parseCandidateCsv(bytes, label);
  if (!table) return table.error();
  out.candidates = std::move(table->candidates);
  out.metricNames = std::move(table->metricColumns);
  return out;
}

Result<CandidateSource> readCandidateSource(const std::string& path) {
  auto bytes = readFileBytes(path, kMaxSessionFileBytes);
  if (!bytes) return bytes.error();
  return parseCandidateSource(*bytes, path);
}

}  // namespace qf
