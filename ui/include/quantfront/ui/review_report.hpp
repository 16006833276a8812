#pragma once
/// The review report: one PDF a design review can read without the program. Pages: (0) the
/// answer first: the recommendation per regime, the frontier, what failed which gate and why,
/// the confidence (core's summarizeReview) and the Pareto plot; (1) the scenario with the
/// per-scheme summary, crossovers and fit warnings;
/// (2) step time vs batch; (3) throughput and KV capacity; (4) serving: imported runs against
/// offered load, batch-1 beside saturated, with generated length and the modelled capacity;
/// (5) the Pareto frontier; (6) the candidates with gates and verdicts, and the provenance of
/// their figures, one row per evidence file; (7) cost per deployment use case, per scheme and per
/// candidate; (8) measured vs model, when the session has kernel measurements. The plots are the
/// window's own, drawn in the print theme; every number comes from core.
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QTableWidget>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <quantfront/core/analysis/curve_intervals.hpp>
#include <quantfront/core/analysis/frontier_analysis.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/session/e2e_evidence.hpp>
#include <quantfront/core/session/serving.hpp>
#include <quantfront/core/session/session.hpp>

class QCustomPlot;
class QIODevice;

namespace qf::ui {

/// What the report shows (pointers owned by the caller, valid while writing).
struct ReviewReportInputs {
  const EngineReport* report = nullptr;        ///< required
  const ReportIntervals* intervals = nullptr;  ///< report's intervals (ties); null: none
  const Session* session = nullptr;            ///< required: candidates, measurements, scenario
  QString sessionName;                         ///< the session's file, or "example session"
  QCustomPlot* stepPlot = nullptr;
  QCustomPlot* throughputPlot = nullptr;
  QCustomPlot* servingPlot = nullptr;      ///< imported serving runs against load (may be null)
  const ServingSweeps* serving = nullptr;  ///< what servingPlot draws (may be null)
  QCustomPlot* paretoPlot = nullptr;       ///< may be null when there are no candidates
  QCustomPlot* residualPlot = nullptr;     ///< shown only with kernel measurements
  QCustomPlot* e2ePlot = nullptr;          ///< imported end-to-end runs against the model
  const std::vector<E2eComparison>* e2eRows = nullptr;  ///< what e2ePlot draws (may be null)
  QString e2eSummary;                                   ///< its one-line summary
  QString paretoStatus;  ///< the Pareto view's summary line and warnings
  /// The Deploy tab's last search: its summary (the cheapest deployment, its cost interval and
  /// ties), its plot and its frontier table as shown; empty / null when no search was run.
  QString deploySummary;
  QCustomPlot* deployPlot = nullptr;
  const QTableWidget* deployTable = nullptr;
  std::vector<Objective> objectives;
  std::vector<std::string> gates;
  std::map<std::string, CandidateVerdict> verdicts;
};

/// The most candidates the report's per-candidate tables list (the frontier first); the rest
/// are summarised by verdict in one line, so the report stays a few pages at any size.
inline constexpr std::size_t kMaxReportCandidates = 100;

/// Writes the report as PDF to `out`; `pages` (when given) receives the page count,
/// `pageText` what each page says (headings, text, table rows with cells joined by " | ") and
/// `brokenHeaders` the table header words a column was too narrow for (each column is made
/// as wide as its header's longest word, so none while the page has the room).
/// Returns an error message, empty on success.
QString writeReviewReport(const ReviewReportInputs& in, QIODevice& out, int* pages = nullptr,
                          QStringList* pageText = nullptr, QStringList* brokenHeaders = nullptr);

/// Writes the report to `path` (.pdf) atomically. Returns an error naming `path`, or empty.
QString exportReviewReport(const ReviewReportInputs& in, const QString& path, int* pages = nullptr,
                           QStringList* pageText = nullptr, QStringList* brokenHeaders = nullptr);

}  // namespace qf::ui
