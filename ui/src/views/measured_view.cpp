// The "Measured vs model" tab: kernel residuals and imported end-to-end runs against the model.
#include <quantfront/ui/measured_view.hpp>

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>

#include <quantfront/ui/plot_style.hpp>
#include <quantfront/ui/plots.hpp>

#include "text.hpp"

namespace qf::ui {

namespace {

/// A measured or modelled figure in its metric's unit, to 3 significant digits.
QString figure(double v) {
  return significant(v, 3);
}

QString percent(double v) {
  return QString("%1%2%").arg(v > 0 ? "+" : "").arg(fixedDecimals(v, 1));
}

QString shortFile(const std::string& origin) {
  // "session.json: runs/lat-b8.json bs 8" → "lat-b8.json bs 8"
  std::string s = origin;
  if (const auto colon = s.find(": "); colon != std::string::npos) s = s.substr(colon + 2);
  if (const auto slash = s.find_last_of('/'); slash != std::string::npos) s = s.substr(slash + 1);
  return qs(s);
}

}  // namespace

E2eResidualPlot::E2eResidualPlot(QWidget* parent) : Plot(parent) {
  applyPlotStyle(this);
  setWindowTitle("End-to-end runs: model against measured");
  xAxis->setLabel("imported measurement (table row)");
  yAxis->setLabel("(model − measured) / measured, %");
  legend->setVisible(true);
  // The legend beside the data, never over it.
  auto* side = new QCPLayoutGrid;
  plotLayout()->addElement(plotLayout()->rowCount() - 1, 1, side);
  plotLayout()->setColumnStretchFactor(1, 0.001);
  side->addElement(0, 0, legend);
  side->setMargins(QMargins(0, 0, 0, 0));
  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
}

void E2eResidualPlot::setRows(const std::vector<E2eComparison>& rows, const QString& title) {
  clearGraphs();
  clearPlottables();
  clearItems();
  m_title = ensurePlotTitle(this, m_title);
  m_title->setText(title + " — end-to-end runs against the model");
  m_points = 0;
  struct Series {
    QVector<double> x, cal, ds, errLow, errHigh;
  };
  std::map<std::string, Series> byScheme;
  double lo = -10, hi = 10;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    Series& s = byScheme[r.point.scheme];
    const double x = static_cast<double>(i + 1);
    const double c = r.calibratedErrorPct();
    const double d = r.datasheetErrorPct();
    s.x << x;
    s.cal << c;
    s.ds << d;
    // The interval as an error bar around the calibrated point, in the same % of measured.
    const double low = 100.0 * (r.calibrated.low / r.point.value - 1.0);
    const double high = 100.0 * (r.calibrated.high / r.point.value - 1.0);
    s.errLow << std::max(0.0, c - low);
    s.errHigh << std::max(0.0, high - c);
    lo = std::min({lo, d, low});
    hi = std::max({hi, d, high});
    ++m_points;
  }
  for (const auto& [scheme, s] : byScheme) {
    const QColor color = schemeColor(qs(scheme));
    QCPGraph* cal = addGraph();
    cal->setData(s.x, s.cal, true);
    cal->setLineStyle(QCPGraph::lsNone);
    cal->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 8));
    cal->setName(qs(scheme) + "  calibrated (bar: 80% interval)");
    auto* bars = new QCPErrorBars(xAxis, yAxis);
    bars->removeFromLegend();
    bars->setDataPlottable(cal);
    bars->setData(s.errLow, s.errHigh);
    bars->setPen(QPen(color, 1.2));
    QCPGraph* ds = addGraph();
    ds->setData(s.x, s.ds, true);
    ds->setLineStyle(QCPGraph::lsNone);
    ds->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(color, 1.6), Qt::white, 8));
    ds->setName(qs(scheme) + "  datasheet roofline");
  }
  auto* zero = addGraph();
  zero->setData(QVector<double>{0, 1e6}, QVector<double>{0, 0}, true);
  zero->setPen(QPen(QColor(120, 120, 120), 1, Qt::DotLine));
  zero->removeFromLegend();
  legend->setVisible(legend->itemCount() > 0);  // an empty legend names nothing
  auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
  // One labelled tick per measurement up to 30 of them, then every fifth.
  ticker->setTickStep(rows.size() > 30 ? 5 : 1);
  ticker->setScaleStrategy(rows.size() > 30 ? QCPAxisTickerFixed::ssMultiples
                                            : QCPAxisTickerFixed::ssNone);
  xAxis->setTicker(ticker);
  xAxis->setRange(0.4, static_cast<double>(rows.size()) + 0.6);
  const double pad = 0.08 * (hi - lo);
  yAxis->setRange(lo - pad, hi + pad);
  replot(QCustomPlot::rpQueuedReplot);
}

MeasuredView::MeasuredView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* split = new QSplitter(Qt::Vertical, this);
  m_kernel = new ResidualPlot(split);
  m_kernel->setObjectName("kernelResiduals");
  m_e2e = new QWidget(split);
  auto* e2eLayout = new QVBoxLayout(m_e2e);
  e2eLayout->setContentsMargins(4, 4, 4, 4);
  auto* inner = new QSplitter(Qt::Vertical, m_e2e);
  m_e2ePlot = new E2eResidualPlot(inner);
  m_e2ePlot->setObjectName("e2eResiduals");
  m_e2ePlot->setMinimumHeight(220);
  auto* below = new QWidget(inner);
  auto* belowLayout = new QVBoxLayout(below);
  belowLayout->setContentsMargins(0, 0, 0, 0);
  m_summary = new QLabel(below);
  m_summary->setObjectName("e2eSummary");
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  belowLayout->addWidget(m_summary);
  m_table = new QTableWidget(below);
  m_table->setObjectName("e2eTable");
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->verticalHeader()->setVisible(false);
  belowLayout->addWidget(m_table, 1);
  m_notes = new QLabel(below);
  m_notes->setObjectName("e2eNotes");
  m_notes->setWordWrap(true);
  m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
  belowLayout->addWidget(m_notes);
  inner->addWidget(m_e2ePlot);
  inner->addWidget(below);
  inner->setStretchFactor(0, 3);
  inner->setStretchFactor(1, 2);
  e2eLayout->addWidget(inner);
  split->addWidget(m_kernel);
  split->addWidget(m_e2e);
  layout->addWidget(split);
  setEndToEnd({}, {}, QString());
}

void MeasuredView::setKernelOverlay(const MeasurementOverlay& overlay, const QString& title) {
  m_kernel->setOverlay(overlay, title);
  updateVisibility();
}

void MeasuredView::setEndToEnd(const std::vector<E2eComparison>& rows,
                               const std::vector<std::string>& notes, const QString& title) {
  m_rows = rows;
  m_e2ePlot->setRows(rows, title);
  const QStringList headers = {"#",          "candidate",    "run",      "metric",    "batch/load",
                               "prompt",     "output",       "measured", "datasheet", "Δ %",
                               "calibrated", "80% interval", "Δ %",      "note"};
  m_table->clear();
  m_table->setColumnCount(static_cast<int>(headers.size()));
  m_table->setHorizontalHeaderLabels(headers);
  m_table->setRowCount(static_cast<int>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const auto& p = r.point;
    const QString unit = qs(e2eMetricUnit(p.metric));
    QString note;
    const bool hasInterval = r.calibrated.high > r.calibrated.low;
    if (r.calibrated.extrapolated) note = "extrapolated: outside what the calibration saw";
    if (hasInterval && (p.value < r.calibrated.low || p.value > r.calibrated.high)) {
      note += QString(note.isEmpty() ? "" : "; ") + "outside the interval";
    }
    const QStringList cells = {
        QString::number(i + 1), qs(p.candidate), shortFile(p.origin), qs(e2eMetricName(p.metric)),
        // A serving row has a load, not a batch of its own.
        p.serving() ? qs(loadText(p)) + (p.load == PointLoad::Rate ? " req/s" : "")
                    : significant(p.batch, 6),
        significant(p.inputLen, 6), significant(p.outputLen, 6), figure(p.value) + " " + unit,
        figure(r.datasheet), percent(r.datasheetErrorPct()), figure(r.calibrated.value),
        hasInterval ? QString("[%1, %2]").arg(figure(r.calibrated.low), figure(r.calibrated.high))
                    : QString("none"),
        percent(r.calibratedErrorPct()), note};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c == 2) item->setToolTip(qs(p.origin));
      if (c == 10 || c == 11) item->setToolTip(qs(r.calibrationSource));
      m_table->setItem(static_cast<int>(i), c, item);
    }
  }
  m_table->resizeColumnsToContents();
  const auto sum = summarizeE2e(rows);
  if (rows.empty()) {
    m_summary->setText(
        "No end-to-end runs to compare: import vLLM bench latency or throughput files "
        "(with --batch, --input-len, --output-len), SGLang bench_one_batch results, or "
        "vllm bench serve / SGLang bench_serving sweeps, and attach them to a candidate.");
  } else {
    QString text = QString(
                       "%1 end-to-end measurement%2. Median |model − measured|: datasheet "
                       "roofline %3%, calibrated %4%.")
                       .arg(rows.size())
                       .arg(rows.size() == 1 ? "" : "s")
                       .arg(fixedDecimals(sum.datasheetMedianPct, 1))
                       .arg(fixedDecimals(sum.calibratedMedianPct, 1));
    if (sum.withInterval > 0) {
      text += QString(" %1 of %2 inside the calibrated 80% interval.")
                  .arg(sum.insideInterval)
                  .arg(sum.withInterval);
    }
    if (sum.extrapolated > 0) {
      text += QString(" %1 outside the conditions the calibration was fitted on (extrapolated).")
                  .arg(sum.extrapolated);
    }
    m_summary->setText(text);
  }
  QStringList lines;
  for (const auto& n : notes) lines << qs(n);
  m_notes->setText(lines.isEmpty() ? QString() : "Left out: " + lines.join("; "));
  m_notes->setVisible(!lines.isEmpty());
  updateVisibility();
}

void MeasuredView::updateVisibility() {
  // The kernel plot says how to get measurements when there are none of either kind; with
  // end-to-end runs alone it steps aside.
  m_kernel->setVisible(m_kernel->pointCount() > 0 || m_rows.empty());
  m_e2e->setVisible(!m_rows.empty() || m_notes->isVisible());
}

QCustomPlot* MeasuredView::exportPlot() const {
  if (!m_rows.empty()) return m_e2ePlot;
  return m_kernel;
}

QString MeasuredView::summaryText() const {
  return m_summary->text();
}

}  // namespace qf::ui
