#include <quantfront/ui/serving_plot.hpp>

#include <QFileInfo>
#include <QFontMetricsF>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <quantfront/ui/label_layout.hpp>
#include <quantfront/ui/plot_style.hpp>

#include "text.hpp"

namespace qf::ui {

namespace {

/// Candidate colours when the candidates' schemes do not tell them apart (Okabe–Ito).
const QColor kPalette[] = {QColor(0, 114, 178), QColor(213, 94, 0),    QColor(0, 158, 115),
                           QColor(230, 159, 0), QColor(204, 121, 167), QColor(86, 180, 233),
                           QColor(0, 0, 0),     QColor(181, 163, 0)};
/// Marker shapes that can be drawn filled (p50) and hollow (p99).
const QCPScatterStyle::ScatterShape kShapes[] = {
    QCPScatterStyle::ssCircle, QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle,
    QCPScatterStyle::ssDiamond, QCPScatterStyle::ssTriangleInverted};

constexpr double kMarkerSize = 7;

QCPScatterStyle marker(QCPScatterStyle::ScatterShape shape, const QColor& c, bool filled) {
  return QCPScatterStyle(shape, QPen(c, 1.5), filled ? QBrush(c) : QBrush(Qt::white), kMarkerSize);
}

/// Interval text of a latency figure: "12.1 ms [11.9, 12.4]".
QString latencyText(const char* name, const std::optional<MetricValue>& m) {
  if (!m) return {};
  QString t = QString("%1 %2 ms").arg(name, significant(m->value, 4));
  if (m->lo && m->hi) t += QString(" [%1, %2]").arg(significant(*m->lo, 4), significant(*m->hi, 4));
  return t;
}

QString describe(const QString& candidate, const ServingPoint& p) {
  QStringList lines;
  lines << candidate << qs(offeredLoadText(p.load));
  if (p.outputThroughputTokS)
    lines << "output " + significant(*p.outputThroughputTokS, 4) + " tok/s";
  if (p.requestThroughputReqS)
    lines << "requests " + significant(*p.requestThroughputReqS, 4) + " req/s";
  if (p.goodputReqS) lines << "goodput " + significant(*p.goodputReqS, 4) + " req/s";
  for (const QString& l :
       {latencyText("TTFT p50", p.ttftP50Ms), latencyText("TTFT p99", p.ttftP99Ms),
        latencyText("TPOT p50", p.tpotP50Ms), latencyText("TPOT p99", p.tpotP99Ms)}) {
    if (!l.isEmpty()) lines << l;
  }
  if (p.meanOutputTokens) {
    QString l = "mean output " + significant(*p.meanOutputTokens, 4) + " tokens";
    if (p.medianOutputTokens) l += " (median " + significant(*p.medianOutputTokens, 4) + ")";
    lines << l;
  }
  if (p.completed) {
    lines << QString("%1 completed, %2 failed")
                 .arg(significant(*p.completed, 4),
                      p.failed ? significant(*p.failed, 4) : QString("?"));
  }
  lines << qs(p.sourceFile);
  return lines.join("\n");
}

/// True when values from `lo` to `hi` read better on a log scale (a span over a factor 20).
bool wantsLog(double lo, double hi) {
  return lo > 0 && hi / lo > 20;
}

/// Fits a value axis to [lo, hi]: log scale when wantsLog, else linear from 0; about `ticks`
/// labelled ticks so that short panels stay readable in a print-sized export.
void fitValueAxis(QCPAxis* axis, double lo, double hi, int ticks) {
  if (!(hi > 0)) {
    axis->setScaleType(QCPAxis::stLinear);
    axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    axis->ticker()->setTickCount(ticks);
    axis->setRange(0, 1);
    return;
  }
  if (wantsLog(lo, hi)) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    auto log = QSharedPointer<QCPAxisTickerLog>::create();
    log->setSubTickCount(8);
    axis->setTicker(log);
    axis->setRange(lo / 1.6, hi * 1.6);
  } else {
    axis->setScaleType(QCPAxis::stLinear);
    axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    axis->ticker()->setTickCount(ticks);
    axis->setRange(0, hi * 1.15);
  }
}

}  // namespace

const QString ServingPlot::kEmptyText =
    "Import vLLM or SGLang serving results (File \u203a Import results\u2026)\nto see throughput "
    "and latency against load";

ServingPlot::ServingPlot(QWidget* parent) : Plot(parent), m_labels(this) {
  applyPlotStyle(this);
  setWindowTitle("Serving: throughput and latency against offered load");
  m_title = ensurePlotTitle(this, nullptr);
  m_title->setText(
      "Measured serving: throughput, latency and generated length against offered load");
  m_margins = new QCPMarginGroup(this);
  m_panels[0] = axisRect();
  for (int i = 1; i < 4; ++i) {
    m_panels[i] = new QCPAxisRect(this);
    plotLayout()->addElement(i + 1, 0, m_panels[i]);
  }
  // Each panel's label, and shorter ones for a panel too short to hold it (fitAxisLabel).
  const QStringList labels[] = {{"output tok/s", "tok/s"},
                                {"TTFT (ms)", "TTFT ms", "TTFT"},
                                {"TPOT (ms)", "TPOT ms", "TPOT"},
                                {"mean output\ntokens", "output\ntokens", "out"}};
  for (int i = 0; i < 4; ++i) {
    QCPAxisRect* r = m_panels[i];
    r->setSizeConstraintRect(QCPLayoutElement::scrOuterRect);
    r->setMinimumMargins(QMargins(15, 6, 15, 4));
    r->setMarginGroup(QCP::msLeft | QCP::msRight, m_margins);
    r->setRangeDrag(Qt::Horizontal);
    r->setRangeZoom(Qt::Horizontal);
    QCPAxis* x = r->axis(QCPAxis::atBottom);
    QCPAxis* y = r->axis(QCPAxis::atLeft);
    fitAxisLabel(y, labels[i]);
    for (QCPAxis* a : {x, y}) {
      a->grid()->setPen(QPen(QColor(220, 220, 220), 0, Qt::DotLine));
      a->grid()->setSubGridVisible(false);
    }
    x->setScaleType(QCPAxis::stLogarithmic);
    // The panels share the load axis: only the bottom one labels it.
    x->setTickLabels(i == 3);
    if (i > 0) {
      connect(m_panels[0]->axis(QCPAxis::atBottom),
              qOverload<const QCPRange&>(&QCPAxis::rangeChanged), x,
              qOverload<const QCPRange&>(&QCPAxis::setRange));
      connect(x, qOverload<const QCPRange&>(&QCPAxis::rangeChanged),
              m_panels[0]->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::setRange));
    }
  }
  // Goodput (req/s) on the throughput panel's right axis.
  yAxis2->setLabel("goodput req/s");
  yAxis2->grid()->setVisible(false);
  // The legend below the panels, in columns.
  axisRect()->insetLayout()->take(legend);
  plotLayout()->addElement(5, 0, legend);
  legend->setFillOrder(QCPLegend::foColumnsFirst);
  legend->setMargins(QMargins(6, 3, 6, 3));
  plotLayout()->setRowSpacing(2);
  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  setMouseTracking(true);
  connect(this, &QCustomPlot::mouseMove, this, &ServingPlot::onMouseMove);
  connect(this, &QCustomPlot::afterLayout, this, &ServingPlot::placeOvertakes);
  setData({});
}

void ServingPlot::updateLayout() {
  const QFont label = xAxis->labelFont(), tick = xAxis->tickLabelFont();
  for (QCPAxisRect* r : m_panels) {
    if (!r) continue;
    for (QCPAxis* a : r->axes()) {
      if (a == xAxis || a == yAxis) continue;
      if (a->labelFont() != label) a->setLabelFont(label);
      if (a->tickLabelFont() != tick) a->setTickLabelFont(tick);
    }
  }
  // The panels share the height the title, notes and legend leave, in fixed proportions
  // (throughput tallest; the bottom panel's share includes the load axis's labels). Set as
  // minimum outer heights: the grid's stretch factors give way to minimum sizes in a
  // print-sized export, where every pixel counts.
  constexpr double kShare[4] = {3.6, 2.2, 2.2, 2.6};
  constexpr double kShares = kShare[0] + kShare[1] + kShare[2] + kShare[3];
  double fixed = plotLayout()->rowSpacing() * (plotLayout()->rowCount() - 1);
  for (int row = 0; row < plotLayout()->rowCount(); ++row) {
    QCPLayoutElement* e = plotLayout()->element(row, 0);
    if (e && std::find(std::begin(m_panels), std::end(m_panels), e) == std::end(m_panels)) {
      fixed += e->visible() ? e->minimumOuterSizeHint().height() : 0;
    }
  }
  const double free = std::max(0.0, viewport().height() - fixed - 2);
  for (int i = 0; i < 4; ++i) {
    m_panels[i]->setMinimumSize(0, static_cast<int>(free * kShare[i] / kShares));
  }
  QCustomPlot::updateLayout();
}

void ServingPlot::clearAll() {
  clearPlottables();
  clearItems();
  m_labels.clear();
  m_empty = nullptr;
  m_drawn.clear();
  m_candidates.clear();
  m_series.clear();
  m_errorBars.clear();
  m_capacity.clear();
  m_modelled.clear();
  m_overtakes.clear();
  m_overtakeItems.clear();
  m_anyModelled = false;
  m_anyBand = false;
}

QCPAxisRect* ServingPlot::panel(Panel p) const {
  return m_panels[static_cast<int>(p)];
}

int ServingPlot::seriesCount() const {
  int n = 0;
  for (const auto& [_, byKind] : m_series) {
    for (const auto& [kind, g] : byKind) n += g && !g->data()->isEmpty() ? 1 : 0;
  }
  return n;
}

QCPGraph* ServingPlot::series(const QString& candidate, Series s) const {
  const auto c = m_series.find(candidate);
  if (c == m_series.end()) return nullptr;
  const auto g = c->second.find(s);
  return g == c->second.end() ? nullptr : g->second;
}

QCPErrorBars* ServingPlot::errorBars(const QString& candidate, Series s) const {
  const auto c = m_errorBars.find(candidate);
  if (c == m_errorBars.end()) return nullptr;
  const auto e = c->second.find(s);
  return e == c->second.end() ? nullptr : e->second;
}

std::optional<double> ServingPlot::capacityLine(const QString& candidate) const {
  const auto it = m_capacity.find(candidate);
  if (it == m_capacity.end()) return std::nullopt;
  return it->second;
}

double ServingPlot::xOf(const OfferedLoad& load) const {
  return std::isinf(load.value) ? m_infX : load.value;
}

QString ServingPlot::emptyText() const {
  return m_empty && m_empty->visible() ? m_empty->text() : QString();
}

void ServingPlot::showEmpty(bool empty) {
  // An empty legend would cap the layout's width at its own: out of the layout while empty.
  legend->setVisible(!empty);
  if (empty && legend->layout() == plotLayout()) {
    plotLayout()->take(legend);
    plotLayout()->simplify();
  } else if (!empty && legend->layout() != plotLayout()) {
    plotLayout()->addElement(plotLayout()->rowCount(), 0, legend);
  }
  if (!empty) return;
  m_empty = new QCPItemText(this);
  m_empty->setClipToAxisRect(false);
  m_empty->position->setType(QCPItemPosition::ptAxisRectRatio);
  m_empty->position->setAxisRect(m_panels[0]);
  m_empty->position->setCoords(0.5, 0.5);
  m_empty->setText(kEmptyText);
  m_empty->setTextAlignment(Qt::AlignCenter);
  m_empty->setFont(plotFont(11));
  m_empty->setColor(QColor(90, 90, 90));
}

void ServingPlot::setNotes(const QStringList& notes) {
  m_notes = notes;
  m_noteRow = setWarningRow(this, m_noteRow, notes.join("\n"), 9);
}

void ServingPlot::setData(const ServingSweeps& sweeps) {
  clearAll();
  QStringList notes = chooseLoadKind(sweeps);
  if (!sweeps.failedRuns.empty()) {
    QStringList names;
    for (const auto& f : sweeps.failedRuns) names << QFileInfo(qs(f)).fileName();
    notes << QString("%1 run(s) not drawn: every request failed (%2)")
                 .arg(sweeps.failedRuns.size())
                 .arg(names.join(", "));
  }
  const LoadRange x = setLoadAxis(sweeps);

  // Legend columns: two for long candidate names, else three (set before items are added).
  std::size_t longestName = 0;
  for (const auto& g : sweeps.groups) longestName = std::max(longestName, g.key.size());
  legend->setWrap(longestName > 28 ? 2 : 3);

  // Colours: by scheme when the schemes tell the candidates apart, else by order.
  std::set<std::string> schemes;
  bool bySchemes = true;
  for (const auto& g : sweeps.groups) {
    bySchemes = bySchemes && !g.scheme.empty() && schemes.insert(g.scheme).second;
  }

  ValueRanges ranges;
  std::vector<CapacityLine> capacities;  // drawn once the y range is known
  int index = 0;
  for (const auto& g : sweeps.groups) {
    std::vector<const ServingPoint*> pts;
    for (const auto& p : g.points) {
      if (p.load.kind == m_kind) pts.push_back(&p);
    }
    if (pts.empty() && !(m_modelledOnly && !g.modelled.empty())) continue;
    const QColor color = bySchemes ? schemeColor(qs(g.scheme)) : kPalette[index % 8];
    const auto shape = kShapes[index % 5];
    ++index;
    if (pts.empty()) {
      // A modelled-only group: its legend entry is its calibrated curve's line.
      QCPGraph* key = addGraph();
      key->setName(qs(g.key));
      key->setPen(QPen(color, 1.6, Qt::DashDotLine));
      key->setProperty("qf_role", "modelled-key");
    } else {
      drawGroup(g, pts, color, shape, ranges);
    }
    drawModelled(g, color, ranges);
    if (g.capacity) capacities.push_back({qs(g.key), *g.capacity, color});
  }
  m_title->setText(m_modelledOnly && !x.empty
                       ? "Modelled serving (no imported runs): throughput and latency against "
                         "offered load"
                       : "Measured serving: throughput, latency and generated length against "
                         "offered load");
  drawCapacities(capacities, ranges, x.lo);
  drawOvertakes(sweeps);
  if (!x.empty) drawKeys(ranges.anyGoodput);
  fitAxes(ranges);
  showEmpty(x.empty);
  setNotes(notes);
  replotSoon();  // after input waiting since the statistics came
}

QStringList ServingPlot::chooseLoadKind(const ServingSweeps& sweeps) {
  // The load axis: the kind most points state.
  std::size_t rates = 0, concs = 0;
  for (const auto& g : sweeps.groups) {
    for (const auto& p : g.points) (p.load.kind == LoadKind::RequestRate ? rates : concs) += 1;
  }
  m_kind = concs > rates ? LoadKind::Concurrency : LoadKind::RequestRate;
  const std::size_t other = m_kind == LoadKind::RequestRate ? concs : rates;
  QStringList notes;
  if (other > 0) {
    notes << QString("%1 run(s) at a %2 not drawn: this load axis is the %3")
                 .arg(other)
                 .arg(loadKindName(m_kind == LoadKind::RequestRate ? LoadKind::Concurrency
                                                                   : LoadKind::RequestRate),
                      loadKindName(m_kind));
  }
  return notes;
}

ServingPlot::LoadRange ServingPlot::setLoadAxis(const ServingSweeps& sweeps) {
  // Where the loads go: an infinite rate right of the highest finite one.
  std::set<double> finite;
  bool hasInf = false;
  for (const auto& g : sweeps.groups) {
    for (const auto& p : g.points) {
      if (p.load.kind != m_kind) continue;
      if (std::isinf(p.load.value)) {
        hasInf = true;
      } else {
        finite.insert(p.load.value);
      }
    }
  }
  // Without a measured point, the serving model's own loads (the scenario's curves).
  m_modelledOnly = finite.empty() && !hasInf;
  if (m_modelledOnly) {
    for (const auto& g : sweeps.groups) {
      for (const auto& c : g.modelled) {
        for (const auto& p : c.points) {
          if (p.load.kind == m_kind && std::isfinite(p.load.value) && p.load.value > 0)
            finite.insert(p.load.value);
        }
      }
    }
  }
  m_infX = finite.empty() ? 1.0 : *finite.rbegin() * 2.0;
  const bool empty = finite.empty() && !hasInf;

  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  {
    std::vector<double> ticks(finite.begin(), finite.end());
    const std::size_t stride = std::max<std::size_t>(1, (ticks.size() + 9) / 10);
    for (std::size_t i = 0; i < ticks.size(); i += stride)
      ticker->addTick(ticks[i], significant(ticks[i], 4));
    if (hasInf) ticker->addTick(m_infX, "\u221e");
  }
  const double xLo = empty ? 1 : (finite.empty() ? m_infX : *finite.begin());
  const double xHi = empty ? 64 : (hasInf ? m_infX : *finite.rbegin());
  for (QCPAxisRect* r : m_panels) {
    QCPAxis* x = r->axis(QCPAxis::atBottom);
    if (empty || m_modelledOnly) {
      x->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    } else {
      x->setTicker(ticker);
    }
  }
  QCPAxis* loadAxis = m_panels[3]->axis(QCPAxis::atBottom);
  loadAxis->setLabel(m_kind == LoadKind::RequestRate
                         ? "offered load: request rate (req/s; \u221e = every request at once)"
                         : "offered load: max concurrency (requests in flight)");
  xAxis->setRange(xLo / 1.5, xHi * 1.5);
  return {xLo, xHi, empty};
}

QCPGraph* ServingPlot::addCurve(
    const Curve& c, Series s, QCPAxisRect* r, QCPAxis* y, bool filled, Qt::PenStyle style,
    const std::function<std::optional<double>(const ServingPoint&)>& value) {
  QVector<double> xs, ys;
  for (const ServingPoint* p : *c.pts) {
    if (const std::optional<double> v = value(*p)) {
      xs << xOf(p->load);
      ys << *v;
    }
  }
  if (xs.isEmpty()) return nullptr;
  QCPGraph* gr = addGraph(r->axis(QCPAxis::atBottom), y);
  gr->setData(xs, ys, true);
  gr->setPen(QPen(c.color, filled ? 2.0 : 1.6, style));
  gr->setScatterStyle(marker(c.shape, c.color, filled));
  gr->removeFromLegend();
  gr->setProperty("qf_candidate", c.name);
  m_series[c.name][s] = gr;
  return gr;
}

void ServingPlot::addLatency(const Curve& c, Series s, Panel pn, bool p50,
                             std::optional<MetricValue> ServingPoint::*member,
                             ValueRanges& ranges) {
  QCPAxisRect* r = m_panels[static_cast<int>(pn)];
  QCPGraph* gr =
      addCurve(c, s, r, r->axis(QCPAxis::atLeft), p50, p50 ? Qt::SolidLine : Qt::DashLine,
               [&](const ServingPoint& p) -> std::optional<double> {
                 const auto& m = p.*member;
                 return m ? std::optional<double>(m->value) : std::nullopt;
               });
  if (!gr) return;
  QVector<double> minus, plus;
  bool anyInterval = false;
  double& lo = pn == Panel::Ttft ? ranges.ttftLo : ranges.tpotLo;
  double& hi = pn == Panel::Ttft ? ranges.ttftHi : ranges.tpotHi;
  for (const ServingPoint* p : *c.pts) {
    const auto& m = p->*member;
    if (!m) continue;
    lo = std::min(lo, m->lo.value_or(m->value));
    hi = std::max(hi, m->hi.value_or(m->value));
    if (m->lo && m->hi) {
      minus << m->value - *m->lo;
      plus << *m->hi - m->value;
      anyInterval = true;
    } else {
      minus << std::numeric_limits<double>::quiet_NaN();
      plus << std::numeric_limits<double>::quiet_NaN();
    }
  }
  if (!anyInterval) return;
  auto* bars = new QCPErrorBars(r->axis(QCPAxis::atBottom), r->axis(QCPAxis::atLeft));
  bars->setDataPlottable(gr);
  bars->setData(minus, plus);
  bars->setPen(QPen(c.color, 1.1));
  bars->setWhiskerWidth(5);
  bars->removeFromLegend();
  m_errorBars[c.name][s] = bars;
}

void ServingPlot::drawGroup(const ServingGroup& g, const std::vector<const ServingPoint*>& pts,
                            const QColor& color, QCPScatterStyle::ScatterShape shape,
                            ValueRanges& ranges) {
  const QString name = qs(g.key);
  m_candidates << name;
  m_series[name];  // every candidate drawn has its entry, curves or not
  const Curve c{name, &pts, color, shape};
  QCPAxisRect* top = m_panels[0];
  addCurve(c, Series::OutputThroughput, top, yAxis, true, Qt::SolidLine,
           [](const ServingPoint& p) { return p.outputThroughputTokS; });
  if (addCurve(c, Series::Goodput, top, yAxis2, false, Qt::DotLine,
               [](const ServingPoint& p) { return p.goodputReqS; })) {
    ranges.anyGoodput = true;
  }
  addLatency(c, Series::TtftP50, Panel::Ttft, true, &ServingPoint::ttftP50Ms, ranges);
  addLatency(c, Series::TtftP99, Panel::Ttft, false, &ServingPoint::ttftP99Ms, ranges);
  addLatency(c, Series::TpotP50, Panel::Tpot, true, &ServingPoint::tpotP50Ms, ranges);
  addLatency(c, Series::TpotP99, Panel::Tpot, false, &ServingPoint::tpotP99Ms, ranges);
  QCPAxisRect* lenRect = m_panels[3];
  addCurve(c, Series::MeanLength, lenRect, lenRect->axis(QCPAxis::atLeft), true, Qt::SolidLine,
           [](const ServingPoint& p) { return p.meanOutputTokens; });
  for (const ServingPoint* p : pts) {
    if (p->outputThroughputTokS && *p->outputThroughputTokS > 0) {
      ranges.tokLo = std::min(ranges.tokLo, *p->outputThroughputTokS);
      ranges.tokMax = std::max(ranges.tokMax, *p->outputThroughputTokS);
    }
    if (p->goodputReqS && *p->goodputReqS > 0) {
      ranges.goodLo = std::min(ranges.goodLo, *p->goodputReqS);
      ranges.goodMax = std::max(ranges.goodMax, *p->goodputReqS);
    }
    ranges.lenMax = std::max(ranges.lenMax, p->meanOutputTokens.value_or(0));
    const QString text = describe(name, *p);
    const double x = xOf(p->load);
    if (p->outputThroughputTokS)
      m_drawn.push_back({x, *p->outputThroughputTokS, Panel::Throughput, text});
    if (p->ttftP99Ms) m_drawn.push_back({x, p->ttftP99Ms->value, Panel::Ttft, text});
    if (p->ttftP50Ms) m_drawn.push_back({x, p->ttftP50Ms->value, Panel::Ttft, text});
    if (p->tpotP99Ms) m_drawn.push_back({x, p->tpotP99Ms->value, Panel::Tpot, text});
    if (p->tpotP50Ms) m_drawn.push_back({x, p->tpotP50Ms->value, Panel::Tpot, text});
    if (p->meanOutputTokens) m_drawn.push_back({x, *p->meanOutputTokens, Panel::Length, text});
  }
  // The two regimes: the saturated point ringed on the throughput panel, the batch-1 point
  // on the latency panels.
  auto ring = [&](QCPAxisRect* r, double x, double y) {
    QCPGraph* gr = addGraph(r->axis(QCPAxis::atBottom), r->axis(QCPAxis::atLeft));
    gr->setData(QVector<double>{x}, QVector<double>{y}, true);
    gr->setLineStyle(QCPGraph::lsNone);
    gr->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(color, 1.2), Qt::NoBrush, 17));
    gr->removeFromLegend();
    gr->setProperty("qf_role", "regime");
  };
  if (g.saturated && g.points[*g.saturated].load.kind == m_kind) {
    const ServingPoint& p = g.points[*g.saturated];
    ring(top, xOf(p.load), *p.outputThroughputTokS);
  }
  if (g.batch1 && g.points[*g.batch1].load.kind == m_kind) {
    const ServingPoint& p = g.points[*g.batch1];
    if (p.ttftP50Ms) ring(m_panels[1], xOf(p.load), p.ttftP50Ms->value);
    if (p.tpotP50Ms) ring(m_panels[2], xOf(p.load), p.tpotP50Ms->value);
  }
  // The legend entry: the candidate's marker and line.
  QCPGraph* entry = addGraph();
  entry->setPen(QPen(color, 2.0));
  entry->setScatterStyle(marker(shape, color, true));
  entry->setProperty("qf_role", "legend");
  entry->setName(name);
}

void ServingPlot::drawCapacities(const std::vector<CapacityLine>& capacities,
                                 const ValueRanges& ranges, double xLo) {
  // Throughput axis: the measured points, and each modelled capacity within reach of them
  // (4x on a linear axis, 20x on a log one); one beyond is named at the top instead.
  const double tokLo = ranges.tokLo, tokMax = ranges.tokMax;
  const bool logTok = wantsLog(tokLo, tokMax);
  double tokTop = tokMax;
  int above = 0;
  for (const auto& c : capacities) {
    if (tokMax <= 0 || c.capacity.tokensPerS <= (logTok ? 20 : 4) * tokMax) {
      tokTop = std::max(tokTop, c.capacity.tokensPerS);
    } else {
      ++above;
    }
  }
  fitValueAxis(yAxis, std::isfinite(tokLo) ? tokLo : 0, tokTop, 4);
  if (above > 0) {
    // Room at the top for the names of the capacities above the scale, clear of the points.
    const QCPRange r = yAxis->range();
    yAxis->setRangeUpper(logTok ? r.upper * std::pow(2.0, above) : r.upper * (1 + 0.4 * above));
  }
  const double labelX = xLo / 1.4;
  for (const auto& c : capacities) {
    const double cap = c.capacity.tokensPerS;
    QString text = QString("%1: modelled %2 tok/s at %3 seqs")
                       .arg(c.name)
                       .arg(fixedDecimals(cap, 0))
                       .arg(fixedDecimals(c.capacity.maxConcurrency, 0));
    if (cap > yAxis->range().upper) {
      m_labels.add(labelX, yAxis->range().upper, text + " (above the scale)", c.color, true, true,
                   false, false);
      continue;
    }
    auto* line = new QCPItemStraightLine(this);
    line->point1->setCoords(1, cap);
    line->point2->setCoords(2, cap);
    line->setPen(QPen(c.color, 1.2, Qt::DashLine));
    line->setProperty("qf_role", "capacity");
    m_capacity[c.name] = cap;
    m_labels.add(labelX, cap, text, c.color, true, true, false, false);
  }
}

QCPGraph* ServingPlot::modelledCurve(const QString& candidate, Panel p, bool datasheet) const {
  const auto it = m_modelled.find(candidate);
  if (it == m_modelled.end()) return nullptr;
  const auto jt = it->second.find({p, datasheet});
  return jt == it->second.end() ? nullptr : jt->second;
}

void ServingPlot::drawBands(const ModelledServingCurve& curve, const QString& name,
                            const QColor& color) {
  // The calibrated curve's 80% interval, a band in the candidate's colour under the line.
  using Interval = std::optional<std::pair<double, double>> ModelledServingPoint::*;
  auto band = [&](Panel pn, Interval member) {
    QVector<double> xs, lo, hi;
    for (const auto& p : curve.points) {
      const auto& iv = p.*member;
      if (p.load.kind != m_kind || !iv) continue;
      xs << xOf(p.load);
      lo << iv->first;
      hi << iv->second;
    }
    if (xs.size() < 2) return;
    QCPAxisRect* r = m_panels[static_cast<int>(pn)];
    QCPGraph* low = addGraph(r->axis(QCPAxis::atBottom), r->axis(QCPAxis::atLeft));
    QCPGraph* high = addGraph(r->axis(QCPAxis::atBottom), r->axis(QCPAxis::atLeft));
    low->setData(xs, lo, true);
    high->setData(xs, hi, true);
    for (QCPGraph* gr : {low, high}) {
      gr->setPen(Qt::NoPen);
      gr->removeFromLegend();
      gr->setProperty("qf_role", "modelled-band");
      gr->setProperty("qf_candidate", name);
    }
    QColor fill = color;
    fill.setAlpha(45);
    high->setBrush(fill);
    high->setChannelFillGraph(low);
    m_anyBand = true;
  };
  band(Panel::Throughput, &ModelledServingPoint::outputTokSInterval);
  band(Panel::Ttft, &ModelledServingPoint::ttftMsInterval);
  band(Panel::Tpot, &ModelledServingPoint::tpotMsInterval);
}

void ServingPlot::drawModelled(const ServingGroup& g, const QColor& color, ValueRanges& ranges) {
  const QString name = qs(g.key);
  for (const ModelledServingCurve& curve : g.modelled) {
    QVector<double> x, tok, ttft, ttftX, tpot;
    for (const auto& p : curve.points) {
      if (p.load.kind != m_kind) continue;
      const double at = xOf(p.load);
      x << at;
      tok << p.outputTokS;
      tpot << p.tpotMs;
      if (p.ttftMs) {
        ttftX << at;
        ttft << *p.ttftMs;
      }
    }
    if (x.isEmpty()) continue;
    m_anyModelled = true;
    const QPen pen = curve.datasheet ? QPen(color.lighter(125), 1.0, Qt::DashDotDotLine)
                                     : QPen(color, 1.6, Qt::DashDotLine);
    auto add = [&](Panel pn, const QVector<double>& xs, const QVector<double>& ys) {
      if (xs.isEmpty()) return;
      QCPAxisRect* r = m_panels[static_cast<int>(pn)];
      QCPGraph* gr = addGraph(r->axis(QCPAxis::atBottom), r->axis(QCPAxis::atLeft));
      gr->setData(xs, ys, true);
      gr->setPen(pen);
      gr->removeFromLegend();
      gr->setProperty("qf_role", curve.datasheet ? "modelled-datasheet" : "modelled");
      gr->setProperty("qf_candidate", name);
      m_modelled[name][{pn, curve.datasheet}] = gr;
    };
    add(Panel::Throughput, x, tok);
    add(Panel::Ttft, ttftX, ttft);
    add(Panel::Tpot, x, tpot);
    if (curve.datasheet) continue;
    drawBands(curve, name, color);
    // The calibrated curve is part of what the axes must show; the ideal roofline may run off.
    for (double v : tok) ranges.tokMax = std::max(ranges.tokMax, v);
    for (double v : tpot) {
      ranges.tpotLo = std::min(ranges.tpotLo, v);
      ranges.tpotHi = std::max(ranges.tpotHi, v);
    }
    if (!m_modelledOnly) continue;
    for (double v : ttft) {  // nothing measured: the calibrated TTFT sets its panel too
      ranges.ttftLo = std::min(ranges.ttftLo, v);
      ranges.ttftHi = std::max(ranges.ttftHi, v);
    }
  }
}

void ServingPlot::drawOvertakes(const ServingSweeps& sweeps) {
  QCPAxisRect* r = m_panels[static_cast<int>(Panel::Tpot)];
  for (const ServingOvertake& o : sweeps.overtakes) {
    if (o.kind != m_kind) continue;
    OfferedLoad load;
    load.kind = o.kind;
    load.value = o.load;
    const double x = xOf(load);
    auto* line = new QCPItemStraightLine(this);
    line->setClipAxisRect(r);
    line->point1->setAxes(r->axis(QCPAxis::atBottom), r->axis(QCPAxis::atLeft));
    line->point2->setAxes(r->axis(QCPAxis::atBottom), r->axis(QCPAxis::atLeft));
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    line->setPen(QPen(QColor(90, 90, 90), 1.0, Qt::DotLine));
    line->setProperty("qf_role", "overtake");
    // "A overtakes B at L", shown on two lines: checkpoint names are long, and a crossing
    // inside the sweep leaves its label half the axis at most.
    const QString ahead = qs(o.ahead) + " overtakes";
    const QString behind =
        QString("%1 at %2 %3")
            .arg(qs(o.behind), significant(o.load, 3),
                 o.kind == LoadKind::RequestRate ? "req/s" : "concurrent requests");
    m_overtakes << ahead + " " + behind;
    auto* label = new QCPItemText(this);
    label->setClipAxisRect(r);
    label->setClipToAxisRect(true);
    // Placed in pixels at every layout (placeOvertakes).
    label->position->setType(QCPItemPosition::ptAbsolute);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    // Right of the line in the left half of the axis, left of it in the right half.
    const QCPAxis* ax = r->axis(QCPAxis::atBottom);
    const QCPRange range = ax->range();
    const double mid = ax->scaleType() == QCPAxis::stLogarithmic && range.lower > 0
                           ? std::sqrt(range.lower * range.upper)
                           : range.center();
    const bool leftOfLine = x > mid;
    label->setFont(plotFont(8));
    label->setTextAlignment(leftOfLine ? Qt::AlignRight : Qt::AlignLeft);
    label->setText(ahead + "\n" + behind);
    label->setPadding(QMargins(2, 1, 2, 1));
    label->setBrush(QColor(255, 255, 255, 200));
    label->setColor(QColor(70, 70, 70));
    label->setProperty("qf_role", "overtake");
    m_overtakeItems.push_back({label, x, leftOfLine, {}});
  }
  // Placed by the replot that shows them (afterLayout), at the panel's final size and range.
}

void ServingPlot::placeOvertakes() {
  if (m_overtakeItems.empty()) return;
  QCPAxisRect* r = m_panels[static_cast<int>(Panel::Tpot)];
  const QCPAxis* ax = r->axis(QCPAxis::atBottom);
  const QRectF bounds = QRectF(r->rect()).adjusted(2, 2, -2, -2);
  std::vector<LabelRequest> requests;
  for (OvertakeLabel& l : m_overtakeItems) {
    LabelRequest q;
    q.anchor = QPointF(ax->coordToPixel(l.x), bounds.top());
    const QSizeF text = l.measured.get(l.item->text(), l.item->font(), 0, [&] {
      return QFontMetricsF(l.item->font())
          .boundingRect(QRectF(0, 0, 4000, 4000), Qt::AlignLeft | Qt::AlignTop, l.item->text())
          .size();
    });
    q.size = QSizeF(text.width() + 6, text.height() + 2);
    q.right = !l.leftOfLine;
    q.below = true;
    q.mayFlip = true;
    q.gap = 3;
    requests.push_back(q);
  }
  const auto boxes = placeLabels(requests, bounds);
  for (std::size_t i = 0; i < m_overtakeItems.size(); ++i) {
    QCPItemText* item = m_overtakeItems[i].item;
    item->setVisible(!boxes[i].isNull());
    if (!boxes[i].isNull()) item->position->setCoords(boxes[i].topLeft());
  }
}

void ServingPlot::drawKeys(bool anyGoodput) {
  // Keys to the line styles, in grey.
  auto key = [&](const QString& text, const QPen& pen, const QCPScatterStyle& style) {
    QCPGraph* k = addGraph();
    k->setPen(pen);
    k->setScatterStyle(style);
    k->setName(text);
    k->setProperty("qf_role", "key");
  };
  const QColor grey(90, 90, 90);
  if (!m_modelledOnly) {  // nothing measured: no measured styles to key
    key("solid, filled: tok/s, p50, mean length", QPen(grey, 2.0),
        marker(QCPScatterStyle::ssCircle, grey, true));
    key("dashed, hollow: p99 (bars: 95% CI)", QPen(grey, 1.6, Qt::DashLine),
        marker(QCPScatterStyle::ssCircle, grey, false));
  }
  if (anyGoodput) {
    key("dotted: goodput req/s (right axis)", QPen(grey, 1.6, Qt::DotLine),
        marker(QCPScatterStyle::ssCircle, grey, false));
  }
  if (m_anyModelled) {
    key("dash-dot: modelled, calibrated", QPen(grey, 1.6, Qt::DashDotLine), QCPScatterStyle());
    if (m_anyBand) {
      // A swatch of the band: a thick translucent line stands for the shaded interval.
      QColor shade = grey;
      shade.setAlpha(70);
      key("shaded: the model's 80% interval (constants' spread)", QPen(shade, 8),
          QCPScatterStyle());
    }
    key("dash-dot-dot: modelled, datasheet", QPen(grey, 1.0, Qt::DashDotDotLine),
        QCPScatterStyle());
  }
  if (m_modelledOnly) return;
  key("ringed: saturated, batch-1 point", QPen(Qt::NoPen),
      QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(grey, 1.2), Qt::NoBrush, 13));
}

void ServingPlot::fitAxes(const ValueRanges& ranges) {
  yAxis2->setVisible(ranges.anyGoodput);
  yAxis2->setTickLabels(ranges.anyGoodput);
  fitValueAxis(yAxis2, std::isfinite(ranges.goodLo) ? ranges.goodLo : 0, ranges.goodMax, 4);
  fitValueAxis(m_panels[1]->axis(QCPAxis::atLeft), ranges.ttftLo, ranges.ttftHi, 3);
  fitValueAxis(m_panels[2]->axis(QCPAxis::atLeft), ranges.tpotLo, ranges.tpotHi, 3);
  QCPAxis* lenAxis = m_panels[3]->axis(QCPAxis::atLeft);
  lenAxis->ticker()->setTickCount(2);
  lenAxis->setRange(0, ranges.lenMax > 0 ? ranges.lenMax * 1.25 : 1);
}

void ServingPlot::onMouseMove(QMouseEvent* event) {
  const QPointF pos = event->position();
  const Drawn* best = nullptr;
  double bestD = 12;
  for (const auto& d : m_drawn) {
    QCPAxisRect* r = panel(d.panel);
    const QPointF px(r->axis(QCPAxis::atBottom)->coordToPixel(d.x),
                     r->axis(QCPAxis::atLeft)->coordToPixel(d.y));
    const double dist = std::hypot(px.x() - pos.x(), px.y() - pos.y());
    if (dist < bestD) {
      bestD = dist;
      best = &d;
    }
  }
  if (best) {
    QToolTip::showText(event->globalPosition().toPoint(), best->text, this);
  } else {
    QToolTip::hideText();
  }
}

}  // namespace qf::ui
