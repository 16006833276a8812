#include <quantfront/ui/review_report.hpp>

#include <quantfront/core/model/scenario_spec.hpp>

#include <qcustomplot.h>

#include <QBuffer>
#include <QDateTime>
#include <QFileInfo>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <algorithm>
#include <cmath>

#include <quantfront/core/analysis/metric_dictionary.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/core/base/version.hpp>
#include <quantfront/core/model/cost.hpp>
#include <quantfront/core/session/review_summary.hpp>
#include <quantfront/ui/plot_export.hpp>
#include <quantfront/ui/plot_style.hpp>
#include <quantfront/ui/plots.hpp>

#include "text.hpp"

namespace qf::ui {

namespace {

constexpr double kPageWidth = 210 * kLogicalPxPerMm;  ///< A4, logical pixels at 96 dpi
constexpr double kPageHeight = 297 * kLogicalPxPerMm;
constexpr double kMargin = 15 * kLogicalPxPerMm;
constexpr double kFooter = 22;
constexpr double kCellPadding = 3;  ///< left and right of a table cell's text
const QColor kRed(176, 0, 0);
const QColor kInk(30, 30, 30);
const QColor kMuted(100, 100, 100);

/// Pages, headings, wrapped text, tables that break across pages, and plots.
class ReportWriter {
 public:
  explicit ReportWriter(QPdfWriter& pdf) : m_pdf(pdf) {}
  bool begin() {
    if (!m_p.begin(&m_pdf)) return false;
    m_p.setRenderHint(QPainter::Antialiasing);
    m_p.setMode(QCPPainter::pmVectorized);
    startPage();
    return true;
  }
  bool end() {
    footer();
    return m_p.end();
  }
  [[nodiscard]] int pages() const { return m_page; }
  /// What each page says, in the order written (table rows as cells joined by " | ").
  [[nodiscard]] const QStringList& pageText() const { return m_text; }
  [[nodiscard]] double width() const { return kPageWidth - 2 * kMargin; }
  [[nodiscard]] double left() const { return kMargin; }

  void newPage() {
    footer();
    m_pdf.newPage();
    startPage();
  }
  void ensure(double height) {
    if (m_y + height > bottom()) newPage();
  }
  void title(const QString& text) {
    QFont f = plotFont(16);
    f.setBold(true);
    write(text, f, kInk, 6);
  }
  void heading(const QString& text) {
    QFont f = plotFont(12);
    f.setBold(true);
    ensure(60);
    m_y += 4;
    write(text, f, kInk, 4);
  }
  void text(const QString& text, const QColor& color = kInk, int pt = 9) {
    write(text, plotFont(pt), color, 4);
  }
  void plot(QCustomPlot* plot, double height) {
    if (!plot) return;
    ensure(height);
    const int w = static_cast<int>(width());
    const int h = static_cast<int>(height);
    const PrintTheme theme(plot);
    m_p.save();
    m_p.translate(left(), m_y);
    m_p.setClipRect(QRectF(0, 0, w, h));
    m_p.setMode(QCPPainter::pmNonCosmetic);
    plot->toPainter(&m_p, w, h);
    m_p.setMode(QCPPainter::pmNonCosmetic, false);
    m_p.restore();
    plot->replot(QCustomPlot::rpQueuedReplot);
    m_y += height + 6;
  }
  /// Column widths in pixels for `headers`: `fractions` of the text width, except that each
  /// column is at least as wide as its header's longest word (never broken mid-word), the
  /// room taken from the columns with room to spare.
  [[nodiscard]] std::vector<double> columnWidths(const QStringList& headers,
                                                 const std::vector<double>& fractions,
                                                 const QFont& headFont) const {
    const QFontMetricsF fm(headFont, &m_pdf);
    std::vector<double> need(fractions.size(), 0), out(fractions.size(), 0);
    double deficit = 0, spare = 0;
    for (std::size_t c = 0; c < fractions.size(); ++c) {
      if (c < static_cast<std::size_t>(headers.size())) {
        for (const QString& word : headers[static_cast<qsizetype>(c)].split(' ')) {
          need[c] = std::max(need[c], fm.horizontalAdvance(word) + 2 * kCellPadding + 1);
        }
      }
      out[c] = fractions[c] * width();
      deficit += std::max(0.0, need[c] - out[c]);
      spare += std::max(0.0, out[c] - need[c]);
    }
    if (deficit <= 0) return out;
    const double take = std::min(1.0, deficit / std::max(spare, 1e-9));
    for (std::size_t c = 0; c < out.size(); ++c) {
      out[c] = out[c] < need[c] ? need[c] : out[c] - (out[c] - need[c]) * take;
    }
    return out;
  }
  /// A table with `fractions` of the text width for its columns (columnWidths); long tables
  /// continue on the next page under a repeated header.
  void table(const QStringList& headers, const std::vector<QStringList>& rows,
             const std::vector<double>& fractions, const std::vector<QColor>& rowColors = {}) {
    const QFont headFont = [] {
      QFont f = plotFont(8);
      f.setBold(true);
      return f;
    }();
    const QFont cellFont = plotFont(8);
    const std::vector<double> widths = columnWidths(headers, fractions, headFont);
    {
      // What a header still had to break (the widths asked for more than the page has).
      const QFontMetricsF fm(headFont, &m_pdf);
      for (std::size_t c = 0; c < widths.size() && c < static_cast<std::size_t>(headers.size());
           ++c) {
        for (const QString& word : headers[static_cast<qsizetype>(c)].split(' ')) {
          if (fm.horizontalAdvance(word) > widths[c] - 2 * kCellPadding) m_brokenHeaders << word;
        }
      }
    }
    // A word wider than its column ("Summarization", a long checkpoint name) gets zero-width
    // break opportunities where it reaches the column's edge, so it wraps instead of clipping.
    auto fitted = [&](const QString& text, const QFontMetricsF& fm, double w) {
      QStringList words = text.split(' ');
      for (QString& word : words) {
        if (fm.horizontalAdvance(word) <= w) continue;
        QString out;
        double run = 0;
        for (const QChar ch : word) {
          const double cw = fm.horizontalAdvance(ch);
          if (run + cw > w && run > 0) {
            out += QChar(0x200B);
            run = 0;
          }
          out += ch;
          run += cw;
        }
        word = out;
      }
      return words.join(' ');
    };
    auto rowHeight = [&](const QStringList& cells, const QFont& font) {
      const QFontMetricsF fm(font, &m_pdf);
      double h = fm.height();
      for (int c = 0; c < cells.size() && c < static_cast<int>(widths.size()); ++c) {
        const double w = widths[static_cast<std::size_t>(c)] - 2 * kCellPadding;
        const QRectF r = fm.boundingRect(QRectF(0, 0, w, 10000), Qt::TextWordWrap | Qt::AlignLeft,
                                         fitted(cells[c], fm, w));
        h = std::max(h, r.height());
      }
      return h + 5;
    };
    auto drawRow = [&](const QStringList& cells, const QFont& font, const QColor& color,
                       bool header) {
      const double h = rowHeight(cells, font);
      if (header) {
        m_p.fillRect(QRectF(left(), m_y, width(), h), QColor(235, 238, 242));
      }
      m_p.setFont(font);
      m_p.setPen(color);
      const QFontMetricsF fm(font, &m_pdf);
      double x = left();
      for (int c = 0; c < cells.size() && c < static_cast<int>(widths.size()); ++c) {
        const double w = widths[static_cast<std::size_t>(c)];
        m_p.drawText(QRectF(x + kCellPadding, m_y + 2.5, w - 2 * kCellPadding, h),
                     Qt::TextWordWrap | Qt::AlignLeft, fitted(cells[c], fm, w - 2 * kCellPadding));
        x += w;
      }
      m_p.setPen(QPen(QColor(215, 215, 215), 0.6));
      m_p.drawLine(QPointF(left(), m_y + h), QPointF(left() + width(), m_y + h));
      m_y += h;
    };
    ensure(rowHeight(headers, headFont) + 20);
    drawRow(headers, headFont, kInk, true);
    m_text.back() += headers.join(" | ") + "\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (m_y + rowHeight(rows[i], cellFont) > bottom()) {
        newPage();
        drawRow(headers, headFont, kInk, true);
      }
      drawRow(rows[i], cellFont, i < rowColors.size() ? rowColors[i] : kInk, false);
      m_text.back() += rows[i].join(" | ") + "\n";
    }
    m_y += 8;
  }
  void setFooter(const QString& text) { m_footer = text; }
  /// Header words a column was too narrow for (broken across lines), in the order met.
  [[nodiscard]] const QStringList& brokenHeaders() const { return m_brokenHeaders; }

 private:
  [[nodiscard]] double bottom() const { return kPageHeight - kMargin - kFooter; }
  void startPage() {
    ++m_page;
    m_y = kMargin;
    m_text << QString();
  }
  void footer() {
    m_p.setFont(plotFont(7));
    m_p.setPen(kMuted);
    m_p.drawText(QRectF(left(), kPageHeight - kMargin - 12, width(), 14),
                 Qt::AlignLeft | Qt::AlignVCenter, m_footer);
    m_p.drawText(QRectF(left(), kPageHeight - kMargin - 12, width(), 14),
                 Qt::AlignRight | Qt::AlignVCenter, QString("page %1").arg(m_page));
  }
  void write(const QString& text, const QFont& font, const QColor& color, double after) {
    if (text.isEmpty()) return;
    const QFontMetricsF fm(font, &m_pdf);
    const QRectF r =
        fm.boundingRect(QRectF(0, 0, width(), 100000), Qt::TextWordWrap | Qt::AlignLeft, text);
    ensure(r.height());
    m_p.setFont(font);
    m_p.setPen(color);
    m_p.drawText(QRectF(left(), m_y, width(), r.height() + 2), Qt::TextWordWrap | Qt::AlignLeft,
                 text);
    m_y += r.height() + after;
    m_text.back() += text + "\n";
  }

  QPdfWriter& m_pdf;
  QCPPainter m_p;
  double m_y = kMargin;
  int m_page = 0;
  QString m_footer;
  QStringList m_text;
  QStringList m_brokenHeaders;
};

/// Page 1: the answer (core's summarizeReview) in words and one figure.
void summaryPage(ReportWriter& w, const ReviewReportInputs& in, double plotH) {
  const EngineReport& r = *in.report;
  // A title is free text from a file: control characters and escapes never reach the PDF.
  const std::string title = printableText(in.session->title);
  w.title(title.empty() ? QString("QuantFront review report") : qs(title));
  w.text(QString("%1 — %2").arg(reportTitle(r), in.sessionName), kInk, 11);
  w.text(QString("Generated %1 by QuantFront %2. Every number is the analytic model's unless "
                 "its provenance says otherwise (the candidates pages).")
             .arg(QDateTime::currentDateTime().toString("yyyy-MM-dd HH:mm t"),
                  QString(qfrontVersion())),
         kMuted);
  const ReviewSummary s =
      summarizeReview(r, in.session->candidates, in.objectives, in.verdicts, in.intervals);
  w.heading("Summary");
  w.text(qs(s.scenario));
  w.text("Constants: " + qs(constantsProvenance(r.scenario.efficiency)) +
             (in.intervals && in.intervals->anySpread()
                  ? "; modelled figures carry their 80% interval from the constants' spread."
                  : "."),
         kMuted);
  w.heading("Recommendation per regime");
  for (const auto& line : s.regimes) w.text("• " + qs(line));
  if (!s.doesNotFit.empty()) w.text("• " + qs(s.doesNotFit), kRed);
  w.heading("Frontier");
  w.text(qs(s.frontier));
  // Full height: the legend below the axes takes its share of it.
  if (in.paretoPlot && !in.session->candidates.empty()) w.plot(in.paretoPlot, plotH);
  if (!s.verdicts.empty()) {
    w.heading("What did not pass, and why");
    for (const auto& line : s.verdicts) w.text("• " + qs(line));
  }
  w.heading("Deployment (Deploy tab)");
  w.text(in.deploySummary.isEmpty()
             ? QString("No deployment search in this session: the Deploy tab answers what to "
                       "deploy, at what cost, under a TTFT/TPOT target (its page below).")
             : in.deploySummary);
  w.heading("Confidence");
  w.text(qs(s.confidence));
}

/// The Deploy tab's last search: its answer, its plot and its frontier table as shown (every
/// modelled figure with its 80% interval).
void deployPage(ReportWriter& w, const ReviewReportInputs& in, double plotH) {
  w.heading("Deployment search");
  if (!in.deployTable || in.deploySummary.isEmpty()) {
    w.text("No deployment search was run in this session (the Deploy tab).", kMuted);
    return;
  }
  w.text(in.deploySummary);
  if (in.deployPlot) w.plot(in.deployPlot, plotH * 0.8);
  // The table's columns as the tab shows them, without the last (why the batch is capped).
  const QTableWidget* t = in.deployTable;
  const int cols = std::min(t->columnCount(), 10);
  QStringList headers;
  for (int c = 0; c < cols; ++c) {
    const QTableWidgetItem* h = t->horizontalHeaderItem(c);
    headers << (h ? h->text() : QString());
  }
  std::vector<QStringList> rows;
  const int n = std::min(t->rowCount(), static_cast<int>(kMaxReportCandidates));
  for (int r = 0; r < n; ++r) {
    QStringList row;
    for (int c = 0; c < cols; ++c) {
      const QTableWidgetItem* it = t->item(r, c);
      row << (it ? it->text() : QString());
    }
    rows.push_back(row);
  }
  std::vector<double> fractions = {0.07, 0.05, 0.07, 0.12, 0.05, 0.06, 0.14, 0.14, 0.15, 0.15};
  fractions.resize(static_cast<std::size_t>(cols), 0.1);
  w.table(headers, rows, fractions);
  if (t->rowCount() > n) {
    w.text(QString("… and %1 more frontier deployments (the Deploy tab lists them).")
               .arg(t->rowCount() - n),
           kMuted, 8);
  }
  w.text(
      "Every figure is the model's; in brackets its 80% interval from the constants' spread. "
      "Deployments whose cost intervals overlap the cheapest one's are a tie, not a "
      "recommendation.",
      kMuted, 8);
}

void scenarioPage(ReportWriter& w, const ReviewReportInputs& in) {
  const EngineReport& r = *in.report;
  const ScenarioSpec& spec = in.session->scenario;
  w.heading("Scenario");
  const auto& sc = r.scenario;
  std::vector<QStringList> rows = {
      {"model", QString("%1 (%2 B parameters stored, %3 B streamed per token)")
                    .arg(qs(sc.model.name))
                    .arg(fixedDecimals(r.params.total() / 1e9, 2))
                    .arg(fixedDecimals(r.params.streamed() / 1e9, 2))},
      {"GPU", QString("%1 × %2 (tensor parallel), %3 GiB, %4 TB/s")
                  .arg(qs(sc.gpu.name))
                  .arg(sc.tp)
                  .arg(significant(sc.gpu.memoryGib, 4))
                  .arg(significant(sc.gpu.hbmBandwidthTBps, 4))},
      {"schemes", QString::fromStdString([&] {
         std::string s;
         for (const auto& x : r.schemes) s += (s.empty() ? "" : ", ") + x.assignment.id;
         return s;
       }())},
      {"batch range",
       QString("%1 to %2").arg(spec.batchMin).arg(spec.batchMax) +
           (spec.batchAt >= 1 ? QString(", run at B = %1").arg(spec.batchAt) : QString())},
      {"max model length", QString::number(sc.maxModelLen)},
      {"KV cache",
       QString("%1 (%2 bytes per element)").arg(qs(spec.kvDtype)).arg(sc.kvBytesPerElement)},
      {"memory", QString("utilisation %1, reserve %2 GiB").arg(sc.memUtil).arg(sc.reserveGib)},
      {"context", sc.contextTokens > 0
                      ? QString("%1 tokens (KV read and attention on)").arg(sc.contextTokens)
                      : QString("off")},
      {"efficiency", qs(sc.efficiency.source)},
  };
  if (!spec.useCase.empty()) rows.push_back({"use case", qs(spec.useCase)});
  w.table({"setting", "value"}, rows, {0.22, 0.78});
  w.heading("Schemes");
  rows.clear();
  for (const auto& s : r.schemes) {
    rows.push_back({qs(s.assignment.id), fixedDecimals(s.bitsPerWeight, 3), qs(s.pathName),
                    fixedDecimals(s.memoryFloorMs, 3),
                    s.ridgeBatch ? fixedDecimals(*s.ridgeBatch, 0) : "none",
                    fixedDecimals(s.capacity.weightsGib, 1), QString::number(s.capacity.maxSeqs),
                    fixedDecimals(s.capacity.tokensPerSAtCapacity, 0)});
  }
  w.table({"scheme", "bits/weight", "path", "floor ms", "ridge B", "weights GiB/GPU", "max seqs",
           "tok/s at capacity"},
          rows, {0.2, 0.1, 0.1, 0.1, 0.1, 0.14, 0.1, 0.16});
  if (spec.batchAt >= 1) {
    const auto b = static_cast<double>(spec.batchAt);
    w.heading(QString("At the batch run at, B = %1").arg(spec.batchAt));
    rows.clear();
    for (const auto& s : r.schemes) {
      const SchemeAtBatch at = schemeAtBatch(sc, s, b);
      rows.push_back({qs(s.assignment.id), fixedDecimals(at.stepMs, 3),
                      fixedDecimals(at.tokensPerS, 0), fixedDecimals(at.neededGib, 1),
                      fixedDecimals(at.budgetGib, 1), at.fits ? "yes" : "no"});
    }
    w.table({"scheme", "step ms", "tok/s", "weights + KV GiB/GPU", "budget GiB/GPU", "fits?"}, rows,
            {0.24, 0.14, 0.14, 0.2, 0.16, 0.12});
    w.text(QString("KV of %1 sequences at %2 tokens each (the context, else the max model "
                   "length).")
               .arg(spec.batchAt)
               .arg(sc.contextTokens > 0 ? sc.contextTokens : sc.maxModelLen),
           kMuted, 8);
  }
  w.heading("Crossovers");
  if (r.crossovers.empty()) w.text("No two schemes' step times cross at B ≥ 1.", kMuted);
  for (std::size_t i = 0; i < r.crossovers.size(); ++i)
    w.text("• " + crossoverText(r.crossovers[i], tieOf(in.intervals, i)));
  const QString fit = fitWarning(r);
  if (!fit.isEmpty()) {
    w.heading("Does not fit");
    w.text(fit, kRed);
  }
}

/// The candidates the per-candidate tables list: at most kMaxReportCandidates, the frontier
/// first, then uncertain, dominated and gated out (file order within each), and a line
/// summarising the rest by verdict (empty when every candidate is listed).
struct ListedCandidates {
  std::vector<const Candidate*> listed;
  QString rest;
};

ListedCandidates listedCandidates(const ReviewReportInputs& in) {
  auto rank = [&](const Candidate& c) {
    const auto it = in.verdicts.find(c.id);
    return it == in.verdicts.end() ? 4 : static_cast<int>(it->second.verdict);
  };
  ListedCandidates out;
  for (const auto& c : in.session->candidates) out.listed.push_back(&c);
  std::stable_sort(out.listed.begin(), out.listed.end(),
                   [&](const Candidate* a, const Candidate* b) { return rank(*a) < rank(*b); });
  if (out.listed.size() <= kMaxReportCandidates) return out;
  std::map<QString, int> byVerdict;
  for (std::size_t i = kMaxReportCandidates; i < out.listed.size(); ++i) {
    const auto it = in.verdicts.find(out.listed[i]->id);
    ++byVerdict[it == in.verdicts.end() ? QString("no verdict") : verdictName(it->second.verdict)];
  }
  QStringList parts;
  for (const auto& [name, n] : byVerdict) parts << QString("%1 %2").arg(n).arg(name);
  out.rest = QString(
                 "%1 more candidates not listed (%2); the candidates CSV export has them "
                 "all.")
                 .arg(out.listed.size() - kMaxReportCandidates)
                 .arg(parts.join(", "));
  out.listed.resize(kMaxReportCandidates);
  return out;
}

/// "a, b, c and 4 more": at most `shown` items of `items`, in their order.
QString someOf(const QStringList& items, int shown) {
  if (items.size() <= shown) return items.join(", ");
  return items.mid(0, shown).join(", ") + QString(" and %1 more").arg(items.size() - shown);
}

/// The appendix: one row per evidence file (or citation), with the candidates it gave figures
/// to and which figures; one row for the analytic engine's modelled figures.
void provenanceTable(ReportWriter& w, const std::vector<const Candidate*>& listed) {
  w.heading("Provenance: one row per evidence file");
  struct Evidence {
    QString source;
    ProvenanceKind kind;
    QString sha;
    QStringList candidates, metrics, notes;
    int figures = 0;
  };
  std::vector<Evidence> rows;
  auto evidenceFor = [&](const Provenance& p) -> Evidence& {
    const bool modelled = p.kind == ProvenanceKind::Modelled;
    const QString source = modelled                ? QString("analytic engine")
                           : !p.sourceFile.empty() ? QFileInfo(qs(p.sourceFile)).fileName()
                           : !p.citation.empty()   ? qs(p.citation)
                                                   : QString("(no source recorded)");
    for (Evidence& e : rows) {
      if (e.source == source && e.kind == p.kind) return e;
    }
    rows.push_back(
        {source, p.kind, p.sha256.empty() ? QString() : qs(p.sha256).left(12), {}, {}, {}, 0});
    return rows.back();
  };
  for (const Candidate* c : listed) {
    for (const auto& [name, v] : c->metrics) {
      Evidence& e = evidenceFor(v.provenance);
      ++e.figures;
      if (!e.candidates.contains(qs(c->id))) e.candidates << qs(c->id);
      const QString metric = qs(readableMetricName(name));
      if (!e.metrics.contains(metric)) e.metrics << metric;
      const QString note = qs(v.provenance.note);
      if (v.provenance.kind != ProvenanceKind::Modelled && !note.isEmpty() &&
          !e.notes.contains(note)) {
        e.notes << note;
      }
    }
  }
  if (rows.empty()) {
    w.text("No candidate carries a figure.", kMuted);
    return;
  }
  std::vector<QStringList> cells;
  for (const Evidence& e : rows) {
    QString what = QString("%1 figures: %2").arg(e.figures).arg(someOf(e.metrics, 6));
    if (e.kind == ProvenanceKind::Modelled) {
      what +=
          ". Inputs: each candidate's model, schemes and GPUs on the scenario's settings "
          "(Scenario page); per-use-case costs on the Cost page";
    } else if (!e.notes.isEmpty()) {
      what += ". Note: " + someOf(e.notes, 2);
    }
    cells.push_back({e.source, provenanceName(e.kind), e.sha.isEmpty() ? QString("—") : e.sha,
                     QString("%1: %2").arg(e.candidates.size()).arg(someOf(e.candidates, 4)),
                     what});
  }
  // The SHA-256 column only where some evidence is a file.
  if (std::any_of(rows.begin(), rows.end(), [](const Evidence& e) { return !e.sha.isEmpty(); })) {
    w.table({"evidence file", "kind", "sha256", "candidates", "figures"}, cells,
            {0.22, 0.1, 0.13, 0.2, 0.35});
    return;
  }
  for (QStringList& row : cells) row.removeAt(2);
  w.table({"evidence", "kind", "candidates", "figures"}, cells, {0.24, 0.1, 0.24, 0.42});
}

void candidatesPages(ReportWriter& w, const ReviewReportInputs& in) {
  w.heading("Candidates, gates and verdicts");
  QStringList gates;
  for (const auto& g : in.gates) gates << qs(g);
  QStringList objectives;
  for (const auto& o : in.objectives) {
    objectives << QString("%1 (%2)").arg(qs(o.metric), directionName(o.direction));
  }
  w.text(QString("Objectives: %1. Gates: %2.")
             .arg(objectives.isEmpty() ? "none" : objectives.join(", "),
                  gates.isEmpty() ? "none" : gates.join(", ")));
  std::vector<QStringList> rows;
  std::vector<QColor> colors;
  const ListedCandidates shown = listedCandidates(in);
  for (const Candidate* cp : shown.listed) {
    const Candidate& c = *cp;
    const auto it = in.verdicts.find(c.id);
    QString schemes = qs(c.schemeLinear);
    if (!c.schemeMoe.empty()) schemes += ", moe=" + qs(c.schemeMoe);
    if (!c.schemeLmHead.empty()) schemes += ", lm_head=" + qs(c.schemeLmHead);
    rows.push_back(
        {qs(c.id), it == in.verdicts.end() ? "—" : verdictName(it->second.verdict),
         it == in.verdicts.end() ? QString() : qs(it->second.detail),
         QString("%1 / %2 / %3 ×%4").arg(qs(c.model), schemes, qs(c.gpu)).arg(c.gpuCount)});
    const Verdict v = it == in.verdicts.end() ? Verdict::Frontier : it->second.verdict;
    colors.push_back(v == Verdict::GatedOut    ? kRed
                     : v == Verdict::Undecided ? QColor(213, 94, 0)
                     : v == Verdict::NotScored ? kMuted
                                               : kInk);
  }
  if (rows.empty()) {
    w.text("The session has no candidates: import benchmark and eval results to fill it.", kMuted);
    return;
  }
  w.table({"candidate", "verdict", "why", "model / schemes / GPU"}, rows, {0.24, 0.12, 0.3, 0.34},
          colors);
  if (!shown.rest.isEmpty()) w.text(shown.rest, kMuted);
  provenanceTable(w, shown.listed);
}

QString optMs(const std::optional<MetricValue>& m) {
  if (!m) return "—";
  QString t = fixedDecimals(m->value, 1);
  if (m->lo && m->hi)
    t += QString(" [%1, %2]").arg(fixedDecimals(*m->lo, 1), fixedDecimals(*m->hi, 1));
  return t;
}

QString optNum(const std::optional<double>& v, int prec) {
  return v ? fixedDecimals(*v, prec) : QString("—");
}

/// Seed 002's two regimes from the imported runs: each candidate's lowest-load (batch-1) point
/// beside its saturated point, generated length beside every latency, modelled capacity.
/// Without imported runs the Serving tab draws the serving model's curves for the scenario's
/// schemes (scenarioServing): the page says so, and lists each scheme's saturated figures and
/// where one scheme's TPOT overtakes another's.
void modelledServingPage(ReportWriter& w, const ReviewReportInputs& in, double plotH) {
  w.heading("Serving: the model's curves for the scenario's schemes (no imported runs)");
  if (in.servingPlot) w.plot(in.servingPlot, plotH * 1.05);
  std::vector<QStringList> rows;
  for (const auto& g : in.serving->groups) {
    if (g.modelled.empty() || g.modelled.front().points.empty()) continue;
    const ModelledServingPoint& p = g.modelled.front().points.back();
    const ModelledServingPoint& low = g.modelled.front().points.front();
    auto withIv = [](double v, const std::optional<std::pair<double, double>>& iv, int prec) {
      QString t = fixedDecimals(v, prec);
      if (iv)
        t += QString(" [%1, %2]")
                 .arg(fixedDecimals(iv->first, prec), fixedDecimals(iv->second, prec));
      return t;
    };
    rows.push_back({qs(g.key), withIv(p.outputTokS, p.outputTokSInterval, 0),
                    withIv(p.tpotMs, p.tpotMsInterval, 1),
                    low.ttftMs ? withIv(*low.ttftMs, low.ttftMsInterval, 1) : QString("—")});
  }
  w.table({"scheme", "saturated output tok/s [80%]", "TPOT at saturation ms [80%]",
           "TTFT at the lowest load ms [80%]"},
          rows, {0.31, 0.23, 0.23, 0.23});
  QStringList notes;
  if (!in.serving->groups.empty() && !in.serving->groups.front().modelled.empty()) {
    notes << "constants: " + qs(in.serving->groups.front().modelled.front().constants);
  }
  for (const auto& o : in.serving->overtakes) {
    notes << QString("%1 overtakes %2 at %3 req/s (its modelled TPOT is lower above)")
                 .arg(qs(o.ahead), qs(o.behind), fixedDecimals(o.load, 1));
  }
  for (const auto& n : in.serving->warnings) notes << qs(n);
  for (const auto& n : notes) w.text("• " + n, kMuted, 8);
}

void servingPage(ReportWriter& w, const ReviewReportInputs& in, double plotH) {
  const bool measured =
      in.serving && std::any_of(in.serving->groups.begin(), in.serving->groups.end(),
                                [](const ServingGroup& g) { return !g.points.empty(); });
  if (in.serving && !measured && !in.serving->groups.empty()) {
    modelledServingPage(w, in, plotH);
    return;
  }
  w.heading("Serving: measured runs against offered load");
  if (!in.serving || in.serving->groups.empty()) {
    w.text(
        "The session has no vLLM or SGLang serving runs. Import `vllm bench serve` results "
        "(--save-result) or SGLang bench_serving output, one run per offered load, and attach "
        "them to their candidates to compare the batch-1 and the saturated regime.",
        kMuted);
    return;
  }
  if (in.servingPlot) w.plot(in.servingPlot, plotH * 1.05);
  std::vector<QStringList> rows;
  for (const auto& g : in.serving->groups) {
    auto add = [&](const char* regime, const std::optional<std::size_t>& at) {
      if (!at) return;
      const ServingPoint& p = g.points[*at];
      rows.push_back({qs(g.key), regime, qs(offeredLoadText(p.load)),
                      optNum(p.outputThroughputTokS, 0), optMs(p.ttftP50Ms), optMs(p.tpotP50Ms),
                      optMs(p.tpotP99Ms), optNum(p.meanOutputTokens, 0)});
    };
    add("batch 1 (lowest load)", g.batch1);
    if (g.saturated != g.batch1) add("saturated (most tok/s)", g.saturated);
    if (g.capacity) {
      rows.push_back({qs(g.key), "modelled capacity",
                      QString("%1 seqs").arg(fixedDecimals(g.capacity->maxConcurrency, 0)),
                      fixedDecimals(g.capacity->tokensPerS, 0), "—", "—", "—", "—"});
    }
  }
  w.table({"candidate", "regime", "offered load", "output tok/s", "TTFT p50 ms", "TPOT p50 ms",
           "TPOT p99 ms", "mean output tok"},
          rows, {0.2, 0.13, 0.12, 0.09, 0.12, 0.12, 0.12, 0.1});
  w.text(
      "Percentiles with their 95% bootstrap intervals where the run kept per-request records. "
      "Generated length is shown beside every latency: a candidate that stops early is not "
      "faster. Modelled capacity: the analytic engine's sequences and tokens per second at the "
      "KV limit, for comparison with the saturated run.",
      kMuted, 8);
  QStringList notes;
  for (const auto& n : in.serving->warnings) notes << qs(n);
  for (const auto& g : in.serving->groups) {
    for (const auto& n : g.warnings) notes << qs(g.key) + ": " + qs(n);
  }
  for (const auto& n : notes) w.text("• " + n, kMuted, 8);
}

void e2ePage(ReportWriter& w, const ReviewReportInputs& in) {
  w.newPage();
  w.heading("Measured vs model: imported end-to-end runs");
  w.text(in.e2eSummary);
  if (in.e2ePlot) w.plot(in.e2ePlot, 240);
  std::vector<QStringList> rows;
  int n = 0;
  for (const auto& r : *in.e2eRows) {
    const auto& p = r.point;
    const bool hasInterval = r.calibrated.high > r.calibrated.low;
    rows.push_back(
        {QString::number(++n), qs(p.candidate), qs(e2eMetricName(p.metric)),
         QString("%1 × %2 → %3")
             .arg(significant(p.batch, 6), significant(p.inputLen, 6), significant(p.outputLen, 6)),
         significant(p.value, 3) + " " + qs(e2eMetricUnit(p.metric)), significant(r.datasheet, 3),
         fixedDecimals(r.datasheetErrorPct(), 1) + "%",
         significant(r.calibrated.value, 3) +
             (hasInterval
                  ? QString(" [%1, %2]")
                        .arg(significant(r.calibrated.low, 3), significant(r.calibrated.high, 3))
                  : QString()),
         fixedDecimals(r.calibratedErrorPct(), 1) + "%" +
             (r.calibrated.extrapolated ? " (extrap.)" : "")});
  }
  w.table({"#", "candidate", "metric", "batch × prompt → output", "measured", "datasheet", "Δ",
           "calibrated [80%]", "Δ"},
          rows, {0.04, 0.2, 0.12, 0.14, 0.11, 0.09, 0.07, 0.15, 0.08});
  w.text(
      "Δ: (model − measured) / measured. Datasheet: the ideal roofline; calibrated: the GPU's "
      "calibration block, else the catalog's bundled constants (docs/model.md). A prediction "
      "outside the batch and lengths the calibration was fitted on is marked extrapolated.",
      kMuted, 8);
}

void costPage(ReportWriter& w, const ReviewReportInputs& in) {
  const EngineReport& r = *in.report;
  w.heading("Cost per deployment use case (batch 1, synchronous serving)");
  const auto cases = bundledUseCases();
  if (!cases) {
    w.text("Use cases not available: " + qs(cases.error().str()), kRed);
    return;
  }
  const auto price = deploymentPricePerHour(r.scenario.gpu, r.scenario.tp);
  w.text(price ? QString("Price: %1 USD per hour for %2 × %3 (%4).")
                     .arg(fixedDecimals(*price, 2))
                     .arg(r.scenario.tp)
                     .arg(qs(r.scenario.gpu.name), qs(r.scenario.gpu.priceSource))
               : QString("The GPU file states no price: latencies only (add price_per_hour to "
                         "the GPU file for queries per USD)."),
         price ? kInk : kMuted);
  std::vector<QStringList> rows;
  for (const auto& uc : *cases) {
    for (const auto& s : r.schemes) {
      auto e = estimateUseCase(r.scenario, s.assignment, uc, 1.0);
      if (!e) {
        rows.push_back({qs(uc.name), qs(s.assignment.id), "—", "—", "—", qs(e.error().message)});
        continue;
      }
      rows.push_back({QString("%1 (%2 in / %3 out)")
                          .arg(qs(uc.name))
                          .arg(uc.prefillTokens)
                          .arg(uc.decodeTokens),
                      qs(s.assignment.id), fixedDecimals(e->latency.prefillS * 1e3, 1),
                      fixedDecimals(e->latency.decodeS * 1e3, 0),
                      fixedDecimals(e->latency.totalS, 2),
                      e->queriesPerUsd ? fixedDecimals(*e->queriesPerUsd, 0) : QString("—")});
    }
  }
  w.table({"use case", "scheme", "prefill ms", "decode ms", "total s", "queries per USD"}, rows,
          {0.34, 0.18, 0.12, 0.12, 0.1, 0.14});
  w.text(
      "Use-case shapes and the synchronous queries-per-USD formula: arXiv:2411.02355 "
      "(Tables 5, 6 and 9); latencies are the analytic model's.",
      kMuted, 8);

  // Per candidate: the modelled queries per USD and the cost reduction against the same
  // model's bf16 on the same GPUs, for every use case (the candidates' own metrics).
  if (in.session->candidates.empty()) return;
  w.heading("Per candidate: queries per USD (cost reduction vs bf16 on the same GPUs)");
  QStringList headers = {"candidate"};
  std::vector<double> widths = {0.22};
  for (const auto& uc : *cases) {
    headers << qs(uc.name);
    widths.push_back(0.78 / static_cast<double>(cases->size()));
  }
  rows.clear();
  bool anyPriced = false;
  const ListedCandidates shown = listedCandidates(in);
  for (const Candidate* cp : shown.listed) {
    const Candidate& c = *cp;
    QStringList row = {qs(c.id)};
    for (const auto& uc : *cases) {
      const std::string key = useCaseMetricStem(uc.id);
      const auto q = c.metrics.find("queries_per_usd_" + key);
      const auto red = c.metrics.find("cost_reduction_pct_" + key);
      if (q == c.metrics.end()) {
        row << "—";
        continue;
      }
      anyPriced = true;
      QString cell = fixedDecimals(q->second.value, 0);
      if (red != c.metrics.end())
        cell += QString(" (%1%)").arg(fixedDecimals(red->second.value, 0));
      row << cell;
    }
    rows.push_back(row);
  }
  w.table(headers, rows, widths);
  if (!shown.rest.isEmpty()) w.text(shown.rest, kMuted);
  w.text(anyPriced ? QString("Modelled at batch 1 (one query at a time) from each candidate's "
                             "step-time curve and its GPUs' price; — where the GPU file "
                             "states no price. Select queries_per_usd_<use case> or "
                             "cost_reduction_pct_<use case> as a Pareto objective.")
                   : QString("No candidate runs on a priced GPU: no queries per USD."),
         kMuted, 8);
}

}  // namespace

QString writeReviewReport(const ReviewReportInputs& in, QIODevice& out, int* pages,
                          QStringList* pageText, QStringList* brokenHeaders) {
  if (!in.report || !in.session) return "no engine report to write";
  QByteArray bytes;
  QBuffer buf(&bytes);
  buf.open(QIODevice::WriteOnly);
  int count = 0;
  {
    QPdfWriter pdf(&buf);
    pdf.setCreator(QString("QuantFront %1").arg(qfrontVersion()));
    // The session's title where it has one (as page 1 shows it), else the scenario's.
    const std::string sessionTitle = printableText(in.session->title);
    const QString docTitle = sessionTitle.empty() ? reportTitle(*in.report) : qs(sessionTitle);
    pdf.setTitle("QuantFront review report: " + docTitle);
    pdf.setResolution(96);
    QPageLayout layout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(0, 0, 0, 0));
    layout.setMode(QPageLayout::FullPageMode);
    if (!pdf.setPageLayout(layout)) return "could not set the PDF page size";
    ReportWriter w(pdf);
    w.setFooter(QString("QuantFront %1 — %2 — %3").arg(qfrontVersion(), docTitle, in.sessionName));
    if (!w.begin()) return "could not start the PDF";
    const double plotH = w.width() * 0.625;
    summaryPage(w, in, plotH);
    w.newPage();
    scenarioPage(w, in);

    w.newPage();
    w.heading("Step time vs batch");
    w.plot(in.stepPlot, plotH);
    w.text(
        "Solid and dashed curves: one colour and one line style per scheme; shaded: the 80% "
        "interval from the calibration's spread (none for the datasheet roofline); dotted: each "
        "scheme's memory floor; diamonds: ridges; circles: crossovers.",
        kMuted, 8);
    for (std::size_t i = 0; i < in.report->crossovers.size(); ++i)
      w.text("• " + crossoverText(in.report->crossovers[i], tieOf(in.intervals, i)));

    w.newPage();
    w.heading("Throughput and KV capacity");
    w.plot(in.throughputPlot, plotH);
    std::vector<QStringList> rows;
    for (const auto& s : in.report->schemes) {
      const auto& cap = s.capacity;
      rows.push_back({qs(s.assignment.id), fixedDecimals(cap.budgetGib, 1),
                      fixedDecimals(cap.weightsGib, 1), fixedDecimals(cap.kvGibPerSeq, 3),
                      cap.fits ? QString::number(cap.maxSeqs) : "does not fit",
                      fixedDecimals(cap.tokensPerSAtCapacity, 0)});
    }
    w.table({"scheme", "budget GiB/GPU", "weights GiB/GPU", "KV GiB per seq", "max seqs",
             "tok/s at capacity"},
            rows, {0.22, 0.15, 0.16, 0.15, 0.14, 0.18});

    w.newPage();
    servingPage(w, in, plotH);

    w.newPage();
    w.heading("Pareto frontier");
    if (in.paretoPlot && !in.session->candidates.empty()) {
      w.plot(in.paretoPlot, plotH);
    }
    w.text(in.paretoStatus);

    w.newPage();
    candidatesPages(w, in);

    w.newPage();
    costPage(w, in);

    w.newPage();
    deployPage(w, in, plotH);

    if (!in.session->kernelMeasurements.empty()) {
      w.newPage();
      w.heading("Measured vs model");
      w.text(QString("%1 kernel measurements in the session.")
                 .arg(in.session->kernelMeasurements.size()));
      w.plot(in.residualPlot, plotH);
    }
    if (in.e2eRows && !in.e2eRows->empty()) e2ePage(w, in);
    count = w.pages();
    if (pageText) *pageText = w.pageText();
    if (brokenHeaders) *brokenHeaders = w.brokenHeaders();
    if (!w.end()) return "could not finish the PDF";
  }
  buf.close();
  qint64 done = 0;
  while (done < bytes.size()) {
    const qint64 n = out.write(bytes.constData() + done, bytes.size() - done);
    if (n <= 0) return "cannot write: " + out.errorString();
    done += n;
  }
  if (pages) *pages = count;
  return {};
}

QString exportReviewReport(const ReviewReportInputs& in, const QString& path, int* pages,
                           QStringList* pageText, QStringList* brokenHeaders) {
  if (QFileInfo(path).suffix().toLower() != "pdf") {
    return path + ": the review report is a PDF (use .pdf)";
  }
  QByteArray bytes;
  QBuffer buf(&bytes);
  buf.open(QIODevice::WriteOnly);
  if (const QString err = writeReviewReport(in, buf, pages, pageText, brokenHeaders);
      !err.isEmpty()) {
    return path + ": " + err;
  }
  return writeFileSafely(path, bytes);
}

}  // namespace qf::ui
