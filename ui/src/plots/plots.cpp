#include <quantfront/ui/plots.hpp>

#include <QToolTip>
#include <algorithm>
#include <cmath>

#include <quantfront/core/analysis/e2e_calibration.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/ui/plot_style.hpp>

#include "text.hpp"

namespace qf::ui {

namespace {

/// The largest batch the step-time axis is fitted to: twice the last crossover, ridge or
/// marked batch inside [batchMin, batchMax], at most batchMax; batchMax when none is inside.
double stepFocusBatch(const EngineReport& report, double batchMin, double batchMax,
                      double batchAt) {
  double last = 0;
  auto consider = [&](double b) {
    if (b >= batchMin && b <= batchMax) last = std::max(last, b);
  };
  for (const auto& c : report.crossovers) consider(c.batch);
  for (const auto& s : report.schemes) {
    if (s.ridgeBatch) consider(*s.ridgeBatch);
    if (s.moeRidgeBatch) consider(*s.moeRidgeBatch);
  }
  consider(batchAt);
  return last > 0 ? std::min(batchMax, 2 * last) : batchMax;
}

QString formatBatch(double b) {
  return b >= 100 ? fixedDecimals(b, 0) : significant(b, 3);
}

void setupLogX(QCustomPlot* plot, double batchMin, double batchMax) {
  plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
  // Every power of two gets a labelled tick (at most ~12 labels; thinned beyond that).
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  const double lo = std::floor(std::log2(std::max(1.0, batchMin)));
  const double hi = std::ceil(std::log2(std::max(batchMin, batchMax)));
  const int stride = std::max(1, static_cast<int>(std::ceil((hi - lo + 1) / 12.0)));
  for (double e = lo; e <= hi; e += stride) {
    const double b = std::pow(2.0, e);
    ticker->addTick(b, b >= 1024 * 1024 ? QString("%1M").arg(b / (1024 * 1024))
                       : b >= 8192      ? QString("%1k").arg(b / 1024)
                                        : fixedDecimals(b, 0));
  }
  plot->xAxis->setTicker(ticker);
  // A little air on both sides so the end ticks and their labels are not clipped.
  plot->xAxis->setRange(batchMin / 1.06, batchMax * 1.06);
}

/// The batch a deployment runs at: a vertical line with the label "B = N" at `yTop`, placed
/// before every other label. Returns the batch marked, 0 when none is (off, or outside the
/// plotted range).
double markBatch(QCustomPlot* plot, PlotLabels& labels, double batch, double batchMin,
                 double batchMax, double yTop) {
  if (!(batch >= 1) || batch < batchMin || batch > batchMax) return 0;
  auto* line = new QCPItemStraightLine(plot);
  line->point1->setCoords(batch, 1);
  line->point2->setCoords(batch, 2);
  line->setPen(QPen(QColor(40, 40, 40), 1.4, Qt::DashDotLine));
  line->setProperty("qf_role", "batch-marker");
  QCPItemText* label = labels.add(batch, yTop, QString("B = %1").arg(fixedDecimals(batch, 0)),
                                  QColor(30, 30, 30), true, true, true, false);
  QFont f = label->font();
  f.setBold(true);
  label->setFont(f);
  return batch;
}

/// The scheme a crossover's `fasterBelow` scheme is overtaken by.
const std::string& overtakingScheme(const CrossoverReport& c) {
  return c.schemes[0] == c.fasterBelow ? c.schemes[1] : c.schemes[0];
}

/// A scheme's 80% interval (`ivs`, seconds, at batches `x`) as a light band in its colour.
void addStepBand(QCustomPlot* plot, const QVector<double>& x,
                 const std::vector<IntervalEstimate>& ivs, const QColor& color) {
  if (ivs.empty()) return;
  QVector<double> lo, hi;
  for (const auto& iv : ivs) {
    lo.push_back(iv.low * 1e3);
    hi.push_back(iv.high * 1e3);
  }
  QCPGraph* low = plot->addGraph();
  QCPGraph* high = plot->addGraph();
  low->setData(x, lo, true);
  high->setData(x, hi, true);
  for (QCPGraph* gr : {low, high}) {
    gr->setPen(Qt::NoPen);
    gr->removeFromLegend();
    gr->setProperty("qf_role", "band");
    gr->setAntialiasedFill(false);  // a translucent band: no edge to smooth, and the
                                    // antialiased fill of eight of them cost a frame
  }
  QColor fill = color;
  fill.setAlpha(40);
  high->setBrush(fill);
  high->setChannelFillGraph(low);
}

/// A ridge's marker on `curve` at batch `b` (a `shape` in the scheme's colour); its step, ms.
double addRidgeMarker(QCustomPlot* plot, const StepCurve& curve, double b,
                      QCPScatterStyle::ScatterShape shape, const QColor& color) {
  const double t = curve.stepSeconds(b) * 1e3;
  QCPGraph* ridge = plot->addGraph();
  ridge->setData(QVector<double>{b}, QVector<double>{t}, true);
  ridge->setLineStyle(QCPGraph::lsNone);
  ridge->setScatterStyle(QCPScatterStyle(shape, color, color, 9));
  ridge->removeFromLegend();
  ridge->setProperty("qf_role", "ridge");
  return t;
}

/// Memory floor: thin and dotted, same colour, not in the legend: the curve's own step time
/// at batch 1 (the memory-bound floor it rests on, with the per-step overhead when
/// calibrated), so the line and the curve never disagree; labelled with what makes it.
void addFloorLine(QCustomPlot* plot, PlotLabels& labels, const SchemeReport& s, const QString& id,
                  const QColor& color, double xLo, double xHi, const Efficiency& eff) {
  const double floorMs = s.curve.stepSeconds(1.0) * 1e3;
  QCPGraph* floor = plot->addGraph();
  floor->setData(QVector<double>{xLo, xHi}, QVector<double>{floorMs, floorMs}, true);
  QColor floorColor = color;
  floorColor.setAlpha(170);
  floor->setPen(QPen(floorColor, 1.0, Qt::DotLine));
  floor->removeFromLegend();
  floor->setProperty("qf_role", "floor");
  labels.add(
      xLo, floorMs,
      eff.isDatasheet()
          ? QString("%1 floor %2 ms").arg(id).arg(fixedDecimals(floorMs, 2))
          : QString("%1 floor %2 ms (t0 %3 ms + memory at %4% of datasheet bandwidth)")
                .arg(id)
                .arg(fixedDecimals(floorMs, 2))
                .arg(fixedDecimals(eff.overheadMs, 2))
                .arg(fixedDecimals(100 * eff.bandwidthEff *
                                       s.curve.kinds[static_cast<std::size_t>(LayerKind::Linear)]
                                           .kernelBandwidthEff,
                                   0)),
      color, true, false, false, false);
}

/// A regime's shaded band from batch `x0` to `x1`, up to `top`, its name at one end.
void addRegimeBand(QCustomPlot* plot, PlotLabels& labels, double x0, double x1, double top,
                   const QString& text, const QColor& fill, bool atRight) {
  if (x1 <= x0) return;
  auto* r = new QCPItemRect(plot);
  r->topLeft->setCoords(x0, top);
  r->bottomRight->setCoords(x1, 0);
  r->setPen(Qt::NoPen);
  r->setBrush(fill);
  r->setLayer("grid");
  r->setAntialiased(false);
  labels.add(atRight ? x1 : x0, top, text, QColor(110, 110, 110), !atRight, true, false, false);
}

/// A scheme's curve as drawn (simplified) and its 80% interval at those batches (empty for
/// the datasheet roofline or a calibration without a fit record).
struct DrawnCurve {
  QVector<double> x, y;
  std::vector<IntervalEstimate> band;
};

/// Every scheme's curve as drawn; `yMax` and `bandMax` get the highest step (ms) and band
/// top up to batch `focus`, `yAll` the highest step anywhere.
std::vector<DrawnCurve> drawnCurves(const EngineReport& report, const ReportIntervals& intervals,
                                    double focus, double& yMax, double& bandMax, double& yAll) {
  std::vector<DrawnCurve> drawn;
  for (const auto& s : report.schemes) {
    DrawnCurve d;
    for (const auto& p : s.points) {
      d.x.push_back(p.batch);
      d.y.push_back(p.stepMs);
      if (p.batch <= focus) yMax = std::max(yMax, p.stepMs);
      yAll = std::max(yAll, p.stepMs);
    }
    simplifyCurveData(d.x, d.y, true, false);
    const std::size_t si = drawn.size();
    const StepCurveIntervals* model =
        si < intervals.schemes.size() && intervals.schemes[si] ? &*intervals.schemes[si] : nullptr;
    if (model && model->hasSpread()) {
      for (double b : d.x) d.band.push_back(model->stepSeconds(b));
    }
    for (std::size_t i = 0; i < d.band.size(); ++i) {
      if (d.x[static_cast<qsizetype>(i)] <= focus)
        bandMax = std::max(bandMax, d.band[i].high * 1e3);
    }
    drawn.push_back(std::move(d));
  }
  return drawn;
}

}  // namespace

QString reportTitle(const EngineReport& r) {
  return QString("%1 on %2 ×%3")
      .arg(qs(r.scenario.model.name), qs(r.scenario.gpu.name))
      .arg(r.scenario.tp);
}

int lastBatchFaster(const CrossoverReport& c) {
  // Batches are whole numbers: the scheme faster below c.batch is faster at every integer
  // batch up to ⌈c.batch⌉ − 1 (at an integer crossover the two are equal there).
  return std::max(0, static_cast<int>(std::ceil(c.batch - 1e-9)) - 1);
}

QString crossoverText(const CrossoverReport& c, const std::optional<TieRange>& tie) {
  const std::string& other = overtakingScheme(c);
  if (tie) {
    return QString("%1 and %2 tie for B = %3 (difference inside the 80% interval; cross at B = %4)")
        .arg(qs(c.fasterBelow), qs(other), tieBatches(*tie))
        .arg(lastBatchFaster(c) + 1);
  }
  return QString("%1 faster than %2 up to B = %3, %2 from B = %4")
      .arg(qs(c.fasterBelow), qs(other))
      .arg(lastBatchFaster(c))
      .arg(lastBatchFaster(c) + 1);
}

QString tieBatches(const TieRange& t) {
  const double from = std::ceil(t.from - 1e-9), to = std::floor(t.to + 1e-9);
  // A tie inside one whole batch (120.2–120.9) has no whole batch of its own to name.
  if (from > to)
    return QString("%1 (about)").arg(fixedDecimals(std::round(0.5 * (t.from + t.to)), 0));
  if (from == to) return fixedDecimals(from, 0);
  return QString("%1–%2").arg(fixedDecimals(from, 0)).arg(fixedDecimals(to, 0));
}

std::optional<TieRange> tieOf(const ReportIntervals* iv, std::size_t i) {
  return iv && i < iv->ties.size() ? iv->ties[i] : std::nullopt;
}

QString fitWarning(const EngineReport& r) {
  QStringList lines;
  const auto& sc = r.scenario;
  auto where = [&](const SchemeAssignment& a) {
    const auto tp = smallestFittingTp(sc, a);
    return tp ? QString("; fits at TP = %1").arg(*tp)
              : QString("; no TP up to 64 makes it fit on %1").arg(qs(sc.gpu.name));
  };
  for (const auto& s : r.schemes) {
    const auto& cap = s.capacity;
    if (!cap.fits) {
      lines << QString(
                   "%1 does not fit: weights need %2 GiB per GPU, have %3 GiB "
                   "(%4 GiB × %5 − %6 GiB reserve)")
                       .arg(qs(s.assignment.id))
                       .arg(fixedDecimals(cap.weightsGib, 1))
                       .arg(fixedDecimals(cap.budgetGib, 1))
                       .arg(significant(sc.gpu.memoryGib, 4))
                       .arg(significant(sc.memUtil, 3))
                       .arg(significant(sc.reserveGib, 3)) +
                   where(s.assignment);
    } else if (cap.maxSeqs == 0) {
      lines << QString(
                   "%1 serves no sequence: KV for one at max model length needs %2 GiB, "
                   "%3 GiB left after %4 GiB of weights")
                       .arg(qs(s.assignment.id))
                       .arg(fixedDecimals(cap.kvGibPerSeq, 1))
                       .arg(fixedDecimals(cap.budgetGib - cap.weightsGib, 1))
                       .arg(fixedDecimals(cap.weightsGib, 1)) +
                   where(s.assignment);
    }
  }
  return lines.join("\n");
}

StepTimePlot::StepTimePlot(QWidget* parent) : Plot(parent), m_labels(this) {
  applyPlotStyle(this);
  xAxis->setLabel("batch size B (concurrent decoding sequences)");
  yAxis->setLabel("decode step time (ms)");
  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  setMouseTracking(true);
  connect(this, &QCustomPlot::mouseMove, this, &StepTimePlot::onMouseMove);
}

void StepTimePlot::setReport(const EngineReport& report, double batchMin, double batchMax,
                             double batchAt, std::shared_ptr<const ReportIntervals> intervals) {
  clearGraphs();
  clearItems();
  m_labels.clear();
  m_crossoverLabels.clear();
  m_title = ensurePlotTitle(this, m_title);
  const Efficiency& eff = report.scenario.efficiency;
  const bool ideal = eff.isDatasheet();
  m_title->setText(reportTitle(report) + " — decode step time (analytic model, " +
                   (ideal ? QString("datasheet roofline") : qs(constantsProvenance(eff))) + ")");
  m_warning = setWarningRow(this, m_warning, fitWarning(report));
  m_schemeCurves = 0;
  m_curves.clear();
  m_intervals =
      intervals
          ? std::move(intervals)
          : std::make_shared<const ReportIntervals>(reportIntervals(report, batchMin, batchMax));
  m_crossoverMarkers = 0;
  setupLogX(this, batchMin, batchMax);
  const double xLo = xAxis->range().lower, xHi = xAxis->range().upper;
  double yMax = 0, bandMax = 0, yAll = 0;
  // The step-time axis is fitted to the batches where the answer lies: up to twice the last
  // crossover, ridge or marked batch inside the range. Past them a compute-bound curve keeps
  // climbing (5x its floor at B = 1,024) and fitting the axis to it squashed every crossover
  // into the plot's bottom fifth; those curves leave the top, and the plot says so.
  const double focus = stepFocusBatch(report, batchMin, batchMax, batchAt);
  const std::vector<DrawnCurve> drawn =
      drawnCurves(report, *m_intervals, focus, yMax, bandMax, yAll);
  // A band may reach above the curves, but never sets the scale alone: a constant the points
  // barely determine (a spread of 100× its value) would squash every curve into the bottom.
  yMax = std::max(yMax, std::min(bandMax, 1.5 * yMax));
  const double top = yMax * 1.12;
  m_markedBatch = markBatch(this, m_labels, batchAt, batchMin, batchMax, top);
  m_clippedAbove = yAll > top;
  if (m_clippedAbove) {
    m_labels.add(
        batchMax, top,
        QString("axis fitted to B ≤ %1; curves continue above").arg(fixedDecimals(focus, 0)),
        QColor(110, 110, 110), false, true, true, false);
  }
  double ridgeLo = batchMax, ridgeHi = batchMin;
  struct Marker {
    double x, y;
    QString text;
    QColor color;
  };
  std::vector<Marker> ridgeLabels;
  for (std::size_t si = 0; si < report.schemes.size(); ++si) {
    const SchemeReport& s = report.schemes[si];
    const QString id = qs(s.assignment.id);
    const QColor color = schemeColor(id);
    const QVector<double>& x = drawn[si].x;
    const QVector<double>& y = drawn[si].y;
    m_curves.emplace_back(id, s.curve);
    // The 80% interval from the calibration's spread, as a light band under the curve (none
    // for the datasheet roofline or a calibration without a fit record).
    addStepBand(this, x, drawn[si].band, color);
    QCPGraph* g = addGraph();
    g->setData(x, y, true);
    g->setPen(schemePen(id));
    g->setName(QString("%1  (%2 b/w, %3)")
                   .arg(id)
                   .arg(fixedDecimals(s.bitsPerWeight, 3))
                   .arg(qs(s.pathName)));
    g->setProperty("qf_role", "scheme");
    ++m_schemeCurves;
    addFloorLine(this, m_labels, s, id, color, xLo, xHi, eff);
    if (s.ridgeBatch && *s.ridgeBatch >= batchMin && *s.ridgeBatch <= batchMax) {
      const double rb = *s.ridgeBatch;
      const double rt = addRidgeMarker(this, s.curve, rb, QCPScatterStyle::ssDiamond, color);
      ridgeLabels.push_back(
          {rb, rt, QString("%1 ridge B = %2").arg(id).arg(fixedDecimals(rb, 0)), color});
      ridgeLo = std::min(ridgeLo, rb);
    }
    if (s.moeRidgeBatch && *s.moeRidgeBatch >= batchMin && *s.moeRidgeBatch <= batchMax) {
      const double mb = *s.moeRidgeBatch;
      const double mt = addRidgeMarker(this, s.curve, mb, QCPScatterStyle::ssTriangle, color);
      ridgeLabels.push_back(
          {mb, mt, QString("%1 expert ridge B = %2").arg(id).arg(fixedDecimals(mb, 0)), color});
    }
    // Every kind compute-bound only past the later of the dense and the expert ridge.
    const double allCompute =
        std::max(s.ridgeBatch.value_or(batchMax * 2), s.moeRidgeBatch.value_or(0.0));
    ridgeHi = std::max(ridgeHi, allCompute);
  }
  // Regime bands: all curves memory-bound below the lowest ridge; all compute-bound above
  // the highest.
  if (ridgeLo < batchMax) {
    addRegimeBand(this, m_labels, xLo, ridgeLo, top, "memory-bound", QColor(0, 114, 178, 18), true);
  }
  if (ridgeHi > batchMin && ridgeHi < batchMax) {
    addRegimeBand(this, m_labels, ridgeHi, xHi, top, "compute-bound", QColor(213, 94, 0, 18),
                  false);
  }
  drawCrossovers(report, batchMin, batchMax);
  for (const auto& r : ridgeLabels)
    m_labels.add(r.x, r.y, r.text, r.color, false, false, true, true);
  yAxis->setRange(0, top);
  replot(QCustomPlot::rpQueuedReplot);
}

void StepTimePlot::drawCrossovers(const EngineReport& report, double batchMin, double batchMax) {
  // Crossovers inside the plotted range, each naming both schemes, numbered along the batch
  // axis for the list beside the plot (updateLayout).
  std::vector<std::size_t> inRange;
  for (std::size_t i = 0; i < report.crossovers.size(); ++i) {
    const double b = report.crossovers[i].batch;
    if (b >= batchMin && b <= batchMax) inRange.push_back(i);
  }
  std::stable_sort(inRange.begin(), inRange.end(), [&](std::size_t a, std::size_t b) {
    return report.crossovers[a].batch < report.crossovers[b].batch;
  });
  for (const std::size_t ci : inRange) {
    const CrossoverReport& c = report.crossovers[ci];
    const std::optional<TieRange> tie = tieOf(m_intervals.get(), ci);
    const SchemeReport* a = nullptr;
    for (const auto& s : report.schemes) {
      if (s.assignment.id == c.schemes[0]) a = &s;
    }
    if (!a) continue;
    const double t = a->curve.stepSeconds(c.batch) * 1e3;
    QCPGraph* m = addGraph();
    m->setData(QVector<double>{c.batch}, QVector<double>{t}, true);
    m->setLineStyle(QCPGraph::lsNone);
    m->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(200, 0, 0), 1.5),
                                       QBrush(Qt::white), 9));
    m->removeFromLegend();
    m->setProperty("qf_role", "crossover");
    ++m_crossoverMarkers;
    CrossoverLabel label;
    label.text = crossoverText(c, tie);
    label.number = QString::number(m_crossoverLabels.size() + 1);
    label.listLine =
        tie ? QString("%1  %2 ≈ %3 for B = %4 (tie)")
                  .arg(label.number, qs(c.fasterBelow), qs(overtakingScheme(c)), tieBatches(*tie))
            : QString("%1  %2 → %3 at B = %4")
                  .arg(label.number, qs(c.fasterBelow), qs(overtakingScheme(c)))
                  .arg(lastBatchFaster(c) + 1);
    label.item = m_labels.add(c.batch, t, label.text, QColor(160, 0, 0), true, true, true, true);
    m_crossoverLabels.push_back(label);
  }
}

QString StepTimePlot::crossoverListText() const {
  QStringList lines = {"Crossovers (A → B at N:", "B faster from batch N)"};
  const bool anyTie =
      std::any_of(m_crossoverLabels.begin(), m_crossoverLabels.end(),
                  [](const CrossoverLabel& c) { return c.listLine.endsWith("(tie)"); });
  if (anyTie)
    lines << "(A ≈ B for a range: a tie,"
          << "inside the 80% interval)";
  for (const CrossoverLabel& c : m_crossoverLabels) lines << c.listLine;
  return lines.join('\n');
}

void StepTimePlot::showCrossoverList(bool on) {
  on = on && !m_crossoverLabels.empty();
  for (const CrossoverLabel& c : m_crossoverLabels) c.item->setText(on ? c.number : c.text);
  if (!m_crossoverList) {
    m_crossoverList = newPlotTextElement(this);
    m_crossoverList->setTextFlags(Qt::AlignLeft | Qt::AlignTop);
    m_crossoverList->setTextColor(QColor(160, 0, 0));
    m_crossoverList->setMargins(QMargins(8, 10, 6, 4));
    // As tall as its row: a text element's own maximum is its text's height, which would cap
    // the axes' row (a maximum at QWIDGETSIZE_MAX or above, margins included, means "use
    // the element's own").
    m_crossoverList->setMaximumSize(QWIDGETSIZE_MAX, 1 << 20);
  }
  const bool inLayout = m_crossoverList->layout() != nullptr;
  if (on && !inLayout) {
    int row = 0;
    for (int r = 0; r < plotLayout()->rowCount(); ++r) {
      if (plotLayout()->element(r, 0) == axisRect()) row = r;
    }
    plotLayout()->addElement(row, 1, m_crossoverList);
    plotLayout()->setColumnStretchFactor(1, 0.01);
  } else if (!on && inLayout) {
    plotLayout()->take(m_crossoverList);
    plotLayout()->simplify();
  }
  if (on) {
    m_crossoverList->setText(crossoverListText());
    m_crossoverList->setFont(legend->font());
  }
  m_crossoverList->setVisible(on);
}

void StepTimePlot::updateLayout() {
  // Named on their curves while every name finds room; else numbered, and listed beside.
  // Without crossovers (and no list left to take down) one plain layout is all there is.
  if (m_crossoverLabels.empty() && !crossoverListShown()) {
    QCustomPlot::updateLayout();
    return;
  }
  showCrossoverList(false);
  QCustomPlot::updateLayout();
  const bool crowded =
      std::any_of(m_crossoverLabels.begin(), m_crossoverLabels.end(),
                  [this](const CrossoverLabel& c) { return !m_labels.isPlaced(c.item); });
  if (!crowded) return;
  showCrossoverList(true);
  QCustomPlot::updateLayout();
}

std::vector<int> simplifiedCurve(const QVector<double>& x, const QVector<double>& y, bool logX,
                                 bool logY, double tolerance) {
  const int n = static_cast<int>(std::min(x.size(), y.size()));
  std::vector<int> kept;
  if (n <= 2) {
    for (int i = 0; i < n; ++i) kept.push_back(i);
    return kept;
  }
  std::vector<double> nx(static_cast<std::size_t>(n)), ny(static_cast<std::size_t>(n));
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
  for (int i = 0; i < n; ++i) {
    const double xv = logX && x[i] > 0 ? std::log(x[i]) : x[i];
    const double yv = logY && y[i] > 0 ? std::log(y[i]) : y[i];
    nx[static_cast<std::size_t>(i)] = xv;
    ny[static_cast<std::size_t>(i)] = yv;
    x0 = std::min(x0, xv);
    x1 = std::max(x1, xv);
    y0 = std::min(y0, yv);
    y1 = std::max(y1, yv);
  }
  const double sx = x1 > x0 ? 1 / (x1 - x0) : 1, sy = y1 > y0 ? 1 / (y1 - y0) : 1;
  for (int i = 0; i < n; ++i) {
    nx[static_cast<std::size_t>(i)] = (nx[static_cast<std::size_t>(i)] - x0) * sx;
    ny[static_cast<std::size_t>(i)] = (ny[static_cast<std::size_t>(i)] - y0) * sy;
  }
  std::vector<char> keep(static_cast<std::size_t>(n), 0);
  keep.front() = keep.back() = 1;
  std::vector<std::pair<int, int>> stack = {{0, n - 1}};
  while (!stack.empty()) {
    const auto [a, b] = stack.back();
    stack.pop_back();
    if (b - a < 2) continue;
    const double ax = nx[static_cast<std::size_t>(a)], ay = ny[static_cast<std::size_t>(a)];
    const double dx = nx[static_cast<std::size_t>(b)] - ax,
                 dy = ny[static_cast<std::size_t>(b)] - ay;
    const double len = std::hypot(dx, dy);
    double worst = -1;
    int at = -1;
    for (int i = a + 1; i < b; ++i) {
      const double px = nx[static_cast<std::size_t>(i)] - ax,
                   py = ny[static_cast<std::size_t>(i)] - ay;
      const double d = len > 0 ? std::abs(px * dy - py * dx) / len : std::hypot(px, py);
      if (d > worst) {
        worst = d;
        at = i;
      }
    }
    if (worst > tolerance) {
      keep[static_cast<std::size_t>(at)] = 1;
      stack.push_back({a, at});
      stack.push_back({at, b});
    }
  }
  for (int i = 0; i < n; ++i) {
    if (keep[static_cast<std::size_t>(i)]) kept.push_back(i);
  }
  return kept;
}

void simplifyCurveData(QVector<double>& x, QVector<double>& y, bool logX, bool logY,
                       double tolerance) {
  const std::vector<int> kept = simplifiedCurve(x, y, logX, logY, tolerance);
  if (static_cast<qsizetype>(kept.size()) == x.size()) return;
  QVector<double> kx, ky;
  kx.reserve(static_cast<qsizetype>(kept.size()));
  ky.reserve(static_cast<qsizetype>(kept.size()));
  for (int i : kept) {
    kx.push_back(x[i]);
    ky.push_back(y[i]);
  }
  x = std::move(kx);
  y = std::move(ky);
}

void StepTimePlot::clearOverlay() {
  for (int i = plottableCount() - 1; i >= 0; --i) {
    const QString role = plottable(i)->property("qf_role").toString();
    if (role == "measured" || role == "measured-error" || role == "calibrated") {
      removePlottable(i);
    }
  }
  m_measuredPoints = 0;
  m_calibratedCurves = 0;
}

void StepTimePlot::setSpeculation(const EngineReport& report, const SpeculativeCurves* curves,
                                  const QString& label) {
  for (int i = plottableCount() - 1; i >= 0; --i) {
    const QString role = plottable(i)->property("qf_role").toString();
    if (role == "speculation" || role == "speculation-crossover") removePlottable(i);
  }
  m_speculativeCurves = 0;
  m_speculativeCrossovers = 0;
  if (!curves) {
    replot(QCustomPlot::rpQueuedReplot);
    return;
  }
  double yMax = yAxis->range().upper;
  for (std::size_t si = 0; si < report.schemes.size() && si < curves->perTokenS.size(); ++si) {
    const SchemeReport& s = report.schemes[si];
    const QString id = qs(s.assignment.id);
    QVector<double> x, y;
    for (std::size_t k = 0; k < s.points.size() && k < curves->perTokenS[si].size(); ++k) {
      x.push_back(s.points[k].batch);
      y.push_back(curves->perTokenS[si][k] * 1e3);
    }
    simplifyCurveData(x, y, true, false);
    for (double v : y) yMax = std::max(yMax, v * 1.05);
    QCPGraph* g = addGraph();
    g->setData(x, y, true);
    // Dash-dot, a style no scheme's own curve has (solid, dashed, dotted), in its colour.
    QPen pen = schemePen(id);
    pen.setStyle(Qt::DashDotLine);
    pen.setWidthF(std::max(1.5, pen.widthF()));
    g->setPen(pen);
    g->setName(QString("%1 per accepted token (speculation: %2)").arg(id, label));
    g->setProperty("qf_role", "speculation");
    ++m_speculativeCurves;
  }
  const double lo = xAxis->range().lower, hi = xAxis->range().upper;
  for (const auto& c : curves->crossovers) {
    if (c.batch < lo || c.batch > hi) continue;
    std::size_t si = 0;
    while (si < report.schemes.size() && report.schemes[si].assignment.id != c.schemes[0]) ++si;
    if (si >= report.schemes.size() || si >= curves->perTokenS.size()) continue;
    // The per-token time there, read off the drawn points (log-linear between them).
    const auto& pts = report.schemes[si].points;
    double t = (c.batch <= pts.front().batch ? curves->perTokenS[si].front()
                                             : curves->perTokenS[si].back()) *
               1e3;
    for (std::size_t k = 1; k < pts.size(); ++k) {
      if (pts[k].batch < c.batch) continue;
      const double f =
          std::log(c.batch / pts[k - 1].batch) / std::log(pts[k].batch / pts[k - 1].batch);
      t = 1e3 * (curves->perTokenS[si][k - 1] +
                 f * (curves->perTokenS[si][k] - curves->perTokenS[si][k - 1]));
      break;
    }
    QCPGraph* m = addGraph();
    m->setData(QVector<double>{c.batch}, QVector<double>{t}, true);
    m->setLineStyle(QCPGraph::lsNone);
    m->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(QColor(200, 0, 0), 1.5),
                                       QBrush(Qt::white), 10));
    m->setName(QString("%1 / %2 cross at B = %3 with speculation (%4 faster below)")
                   .arg(qs(c.schemes[0]), qs(c.schemes[1]))
                   .arg(fixedDecimals(c.batch, 1))
                   .arg(qs(c.fasterBelow)));
    m->setProperty("qf_role", "speculation-crossover");
    ++m_speculativeCrossovers;
  }
  yAxis->setRange(0, yMax);
  replot(QCustomPlot::rpQueuedReplot);
}

void StepTimePlot::setOverlay(const MeasurementOverlay& overlay) {
  clearOverlay();
  double yMax = yAxis->range().upper;
  if (overlay.calibrated) {
    for (const auto& s : overlay.calibrated->schemes) {
      const QColor color = schemeColor(qs(s.assignment.id));
      QVector<double> x, y;
      for (const auto& p : s.points) {
        x.push_back(p.batch);
        y.push_back(p.stepMs);
      }
      simplifyCurveData(x, y, true, false);
      QCPGraph* g = addGraph();
      g->setData(x, y, true);
      g->setPen(QPen(color, 1.8, Qt::DashDotLine));
      g->setName(qs(s.assignment.id) + "  (calibrated to " + qs(overlay.device) + ")");
      g->setProperty("qf_role", "calibrated");
      ++m_calibratedCurves;
    }
  }
  for (const auto& curve : overlay.measured) {
    const QColor color = schemeColor(qs(curve.schemeId));
    QVector<double> x, y, err;
    for (const auto& p : curve.points) {
      x.push_back(p.batch);
      y.push_back(p.stepS * 1e3);
      err.push_back(p.spreadS * 1e3);
      yMax = std::max(yMax, (p.stepS + p.spreadS) * 1e3 * 1.05);
    }
    QCPGraph* g = addGraph();
    g->setData(x, y, true);
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(color, 1.8), Qt::white, 8));
    g->setName(qs(curve.schemeId) + "  (measured, " + qs(overlay.device) + ")");
    g->setProperty("qf_role", "measured");
    auto* bars = new QCPErrorBars(xAxis, yAxis);
    bars->setDataPlottable(g);
    bars->setData(err);
    bars->setPen(QPen(color, 1.2));
    bars->removeFromLegend();
    bars->setProperty("qf_role", "measured-error");
    m_measuredPoints += static_cast<int>(x.size());
  }
  if (m_measuredPoints > 0 || m_calibratedCurves > 0) {
    yAxis->setRangeUpper(std::max(yAxis->range().upper, yMax));
  }
  replot(QCustomPlot::rpQueuedReplot);
}

ResidualPlot::ResidualPlot(QWidget* parent) : Plot(parent) {
  applyPlotStyle(this);
  xAxis->setLabel("batch size B");
  xAxis->setScaleType(QCPAxis::stLogarithmic);
  xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  yAxis->setLabel("(measured − model) / model, %");
  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
}

void ResidualPlot::setOverlay(const MeasurementOverlay& overlay, const QString& title) {
  clearGraphs();
  clearItems();
  m_empty = nullptr;
  m_title = ensurePlotTitle(this, m_title);
  m_title->setText(title + " — where the model departs from the measurements");
  m_points = 0;
  double lo = -10, hi = 10, xLo = 1e300, xHi = 0;
  for (const auto& c : overlay.measured) {
    const QColor color = schemeColor(qs(c.schemeId));
    for (int which = 0; which < 2; ++which) {
      const auto& model = which == 0 ? c.datasheetStepS : c.calibratedStepS;
      if (model.size() != c.points.size()) continue;
      QVector<double> x, y;
      for (std::size_t i = 0; i < model.size(); ++i) {
        if (!(model[i] > 0)) continue;
        x.push_back(c.points[i].batch);
        y.push_back(100.0 * (c.points[i].stepS - model[i]) / model[i]);
        lo = std::min(lo, y.back());
        hi = std::max(hi, y.back());
        xLo = std::min(xLo, x.back());
        xHi = std::max(xHi, x.back());
      }
      QCPGraph* g = addGraph();
      g->setData(x, y, true);
      g->setPen(QPen(color, 1.2, which == 0 ? Qt::SolidLine : Qt::DashDotLine));
      g->setScatterStyle(
          which == 0 ? QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 7)
                     : QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(color, 1.5), Qt::white, 7));
      g->setName(qs(c.schemeId) + (which == 0 ? "  vs datasheet model" : "  vs calibrated model"));
      m_points += static_cast<int>(x.size());
    }
  }
  auto* zero = addGraph();
  zero->setData(QVector<double>{0.5, 1e7}, QVector<double>{0, 0}, true);
  zero->setPen(QPen(QColor(120, 120, 120), 1, Qt::DotLine));
  zero->removeFromLegend();
  // No points, no legend: an empty legend is a box that names nothing.
  legend->setVisible(legend->itemCount() > 0);
  if (m_points == 0) {
    m_empty = new QCPItemText(this);
    m_empty->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_empty->position->setCoords(0.5, 0.5);
    m_empty->setText(
        "No measurements in this session.\nMeasure the kernels (needs a CUDA device), open a "
        "session measured with qfront-measure,\nor import end-to-end runs (vLLM bench latency "
        "or throughput, SGLang bench_one_batch)\nand attach them to a candidate.");
    m_empty->setFont(plotFont(11));
    m_empty->setColor(QColor(100, 100, 100));
    xAxis->setRange(1, 4096);
  } else {
    xAxis->setRange(xLo / 1.3, xHi * 1.3);
  }
  yAxis->setRange(lo - 5, hi + 5);
  replot(QCustomPlot::rpQueuedReplot);
}

QString StepTimePlot::readoutAt(double b) const {
  QString text = QString("B = %1").arg(formatBatch(b));
  for (std::size_t i = 0; i < m_curves.size(); ++i) {
    const auto& [id, curve] = m_curves[i];
    const double ms = curve.stepSeconds(b) * 1e3;
    text += QString("\n%1: %2 ms").arg(id).arg(fixedDecimals(ms, 3));
    // The interval at this very batch, from the curves nudged per constant.
    const bool has = i < m_intervals->schemes.size() && m_intervals->schemes[i] &&
                     m_intervals->schemes[i]->hasSpread();
    if (!has) continue;
    const StepCurveIntervals* model = &*m_intervals->schemes[i];
    const IntervalEstimate iv = model->stepSeconds(b);
    text += QString(" (80%: %1–%2)")
                .arg(fixedDecimals(iv.low * 1e3, 3))
                .arg(fixedDecimals(iv.high * 1e3, 3));
  }
  if (m_intervals->anySpread()) text += "\nbands: 80% intervals from the calibration's spread";
  return text;
}

void StepTimePlot::onMouseMove(QMouseEvent* event) {
  const double b = xAxis->pixelToCoord(event->pos().x());
  if (!(b >= 1)) return;
  QToolTip::showText(event->globalPosition().toPoint(), readoutAt(b), this);
}

ThroughputPlot::ThroughputPlot(QWidget* parent) : Plot(parent), m_labels(this) {
  applyPlotStyle(this);
  xAxis->setLabel("batch size B (concurrent decoding sequences)");
  yAxis->setLabel("tokens/s per replica (dotted: past KV capacity)");
  yAxis->setScaleType(QCPAxis::stLogarithmic);
  yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
}

void ThroughputPlot::setReport(const EngineReport& report, double batchMin, double batchMax,
                               double batchAt) {
  clearGraphs();
  clearItems();
  m_labels.clear();
  m_title = ensurePlotTitle(this, m_title);
  m_title->setText(reportTitle(report) + " — throughput and KV capacity");
  m_warning = setWarningRow(this, m_warning, fitWarning(report));
  m_schemeCurves = 0;
  setupLogX(this, batchMin, batchMax);
  double yMin = 1e300, yMax = 0;
  for (const auto& s : report.schemes) {
    for (const auto& p : s.points) {
      yMin = std::min(yMin, p.tokensPerS);
      yMax = std::max(yMax, p.tokensPerS);
    }
  }
  const double top = yMax * 1.6;  // the y range's top: room above the highest curve
  m_markedBatch = markBatch(this, m_labels, batchAt, batchMin, batchMax, top);
  for (const auto& s : report.schemes) {
    const QColor color = schemeColor(qs(s.assignment.id));
    const auto& cap = s.capacity;
    // Batches the KV cache cannot hold at max-model-len are drawn thin and dashed.
    const double reachable = static_cast<double>(cap.maxSeqs);
    QVector<double> x, y, xOver, yOver;
    for (const auto& p : s.points) {
      if (p.batch <= reachable) {
        x.push_back(p.batch);
        y.push_back(p.tokensPerS);
      }
      if (p.batch >= reachable) {
        xOver.push_back(p.batch);
        yOver.push_back(p.tokensPerS);
      }
    }
    simplifyCurveData(x, y, true, true);
    simplifyCurveData(xOver, yOver, true, true);
    QCPGraph* g = addGraph();
    g->setData(x, y, true);
    g->setPen(schemePen(qs(s.assignment.id)));
    if (!xOver.isEmpty()) {
      QCPGraph* over = addGraph();
      over->setData(xOver, yOver, true);
      QColor faded = color;
      faded.setAlpha(110);
      over->setPen(QPen(faded, 1.0, Qt::DotLine));
      over->removeFromLegend();
      over->setProperty("qf_role", "beyond-capacity");
    }
    g->setName(QString("%1  (max %2 seqs, %3 tok/s at capacity)")
                   .arg(qs(s.assignment.id))
                   .arg(cap.maxSeqs)
                   .arg(fixedDecimals(cap.tokensPerSAtCapacity, 0)));
    g->setProperty("qf_role", "scheme");
    ++m_schemeCurves;
    if (cap.maxSeqs >= 1) {
      const double b = static_cast<double>(cap.maxSeqs);
      auto* line = new QCPItemStraightLine(this);
      line->point1->setCoords(b, 1);
      line->point2->setCoords(b, 2);
      line->setPen(QPen(color, 1.0, Qt::DashLine));
      QCPGraph* m = addGraph();
      m->setData(QVector<double>{b}, QVector<double>{cap.tokensPerSAtCapacity}, true);
      m->setLineStyle(QCPGraph::lsNone);
      m->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, color, color, 8));
      m->removeFromLegend();
      m->setProperty("qf_role", "capacity");
      m_labels.add(b, cap.tokensPerSAtCapacity,
                   QString("%1: %2 seq%3")
                       .arg(qs(s.assignment.id))
                       .arg(cap.maxSeqs)
                       .arg(cap.maxSeqs == 1 ? "" : "s"),
                   color, false, false, true, true);
    }
  }
  if (yMax > 0) yAxis->setRange(std::max(1e-3, yMin * 0.7), top);
  replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace qf::ui
