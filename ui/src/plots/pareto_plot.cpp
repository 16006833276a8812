// The Pareto tab's plot: candidates classed by their frontier verdict (frontier, uncertain,
// dominated, gated out, undecided, not scored) with interval bars, the uncertain band, the
// frontier line per model, names placed without overlaps and a third objective as colour.
#include <quantfront/ui/pareto_plot.hpp>

#include <QMouseEvent>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include <quantfront/core/analysis/metric_dictionary.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/ui/plot_style.hpp>

#include "candidate_metric.hpp"
#include "text.hpp"

namespace qf::ui {

namespace {
/// Points in one graph beyond which its symbol is drawn from a pre-rendered pixmap rather
/// than painted as a shape per point (10^5 antialiased ellipses take ~0.5 s a frame).
constexpr int kPixmapScatterAbove = 300;
/// Dominated or gated-out points beyond which their interval bars are not drawn.
constexpr qsizetype kMaxBarsPerClass = 2000;

/// `style` as drawn for `count` points: the shape itself for a few, a pixmap of it (painted
/// once, antialiased, at twice the size for sharp exports) for many.
QCPScatterStyle scatterFor(const QCPScatterStyle& style, qsizetype count) {
  if (count <= kPixmapScatterAbove || style.shape() == QCPScatterStyle::ssPixmap) return style;
  const int side = static_cast<int>(std::ceil(style.size() + style.pen().widthF() + 2));
  QPixmap pm(side * 2, side * 2);
  pm.setDevicePixelRatio(2.0);
  pm.fill(Qt::transparent);
  QCPPainter p(&pm);
  p.setRenderHint(QPainter::Antialiasing);
  style.applyTo(&p, style.pen());
  style.drawShape(&p, side / 2.0, side / 2.0);
  p.end();
  return QCPScatterStyle(pm);
}

/// How each class of point is drawn, one per Verdict in its order.
struct ClassStyle {
  const char* name;
  QCPScatterStyle scatter;
};

const ClassStyle& classStyle(int k) {
  static const ClassStyle styles[] = {
      {"frontier",
       QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(0, 114, 178), QColor(0, 114, 178), 11)},
      {"uncertain (within uncertainty)",
       QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(230, 159, 0), 2), Qt::white, 11)},
      {"dominated",
       QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(180, 180, 180), QColor(210, 210, 210), 9)},
      {"gated out (fails a gate)",
       QCPScatterStyle(QCPScatterStyle::ssCross, QPen(QColor(176, 0, 0), 2), Qt::NoBrush, 10)},
      {"undecided (a gate's interval crosses its threshold)",
       QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(QColor(213, 94, 0), 2), Qt::white, 11)},
      {"not scored (a gated metric missing)",
       QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(QColor(120, 120, 120), 1.5), Qt::white, 8)},
  };
  return styles[k];
}
}  // namespace

struct ParetoPlot::Prepared {
  const std::vector<Candidate>* cands = nullptr;
  const std::map<std::string, CandidateVerdict>* verdicts = nullptr;
  std::string xMetric, yMetric, colourMetric;
  struct Drawn {
    double x = 0, y = 0;
    QString id;
  };
  /// Every drawn point, class by class (Verdict order), candidates in their order.
  std::vector<Drawn> drawn;
  QHash<QString, std::size_t> index;  ///< candidate id → index in cands
  std::array<ClassArrays, kClasses> classes;
  std::array<int, kClasses> counts{};
  /// Frontier points per base model, sorted: a frontier is drawn within a group
  /// (analyseFrontier groups relative metrics by model), never across two models' candidates.
  std::map<std::string, std::vector<std::pair<double, double>>> front;
  struct Label {
    double x = 0, y = 0;
    QString text;
    Verdict verdict = Verdict::Frontier;
  };
  std::vector<Label> labels;  ///< the names offered, at most kMaxLabels, in that order
  std::vector<ColourBin> bins;
  int coloured = 0;
  double xMin = 1e300, xMax = -1e300, yMin = 1e300, yMax = -1e300;
};

namespace {

/// The drawn points' quintiles of the colour metric, lightest first; bins left empty are
/// dropped.
template <class Drawn, class Bin>
std::vector<Bin> colourBins(const std::vector<Drawn>& drawn, const std::vector<Candidate>& cands,
                            const QHash<QString, std::size_t>& index, const std::string& metric) {
  std::vector<std::pair<const Drawn*, double>> pts;
  for (const auto& d : drawn) {
    const auto at = index.constFind(d.id);
    if (at == index.constEnd()) continue;
    if (const auto v = metricOf(cands[*at], metric)) pts.emplace_back(&d, v->value);
  }
  std::vector<Bin> filled;
  if (pts.empty()) return filled;
  std::vector<double> values;
  values.reserve(pts.size());
  for (const auto& p : pts) values.push_back(p.second);
  std::sort(values.begin(), values.end());
  const std::size_t bins = std::min<std::size_t>(5, values.size());
  // Quintile b holds the values from its cut up to the next one's; its legend gives the
  // smallest and largest value it holds.
  for (std::size_t b = 0; b < bins; ++b) {
    const double cut = values[b * values.size() / bins];
    const bool last = b + 1 == bins;
    const double next = last ? 0 : values[(b + 1) * values.size() / bins];
    Bin bin;
    bin.colour = b * 4 / std::max<std::size_t>(1, bins - 1);
    std::vector<std::pair<double, double>> in;
    for (const auto& [d, v] : pts) {
      if (v < cut || (!last && v >= next)) continue;
      bin.lo = in.empty() ? v : std::min(bin.lo, v);
      bin.hi = in.empty() ? v : std::max(bin.hi, v);
      in.emplace_back(d->x, d->y);
    }
    // Sorted along x, as the graph keeps them (not sorted again when drawn).
    std::stable_sort(in.begin(), in.end(),
                     [](const auto& l, const auto& r) { return l.first < r.first; });
    bin.x.reserve(static_cast<qsizetype>(in.size()));
    bin.y.reserve(static_cast<qsizetype>(in.size()));
    for (const auto& [px, py] : in) {
      bin.x.push_back(px);
      bin.y.push_back(py);
    }
    if (!bin.x.isEmpty()) filled.push_back(std::move(bin));
  }
  return filled;
}

}  // namespace

ParetoPlot::SharedPrepared ParetoPlot::prepare(
    const std::vector<Candidate>& cands, const std::map<std::string, CandidateVerdict>& verdicts,
    const Objective& x, const Objective& y, const std::string& colourMetric) {
  auto out = std::make_shared<Prepared>();
  out->cands = &cands;
  out->verdicts = &verdicts;
  out->xMetric = x.metric;
  out->yMetric = y.metric;
  out->colourMetric = colourMetric;
  out->index.reserve(static_cast<qsizetype>(cands.size()));
  for (std::size_t i = 0; i < cands.size(); ++i) out->index.insert(qs(cands[i].id), i);
  /// A candidate's point with its interval, in its class.
  struct ClassPoint {
    double x, y, xMinus, xPlus, yMinus, yPlus;
    std::size_t at;
  };
  std::array<std::vector<ClassPoint>, kClasses> byClass;
  for (std::size_t i = 0; i < cands.size(); ++i) {
    const Candidate& c = cands[i];
    const auto it = verdicts.find(c.id);
    if (it == verdicts.end()) continue;
    const int k = static_cast<int>(it->second.verdict);
    if (k < 0 || k >= kClasses) continue;
    const auto mx = metricOf(c, x.metric);
    const auto my = metricOf(c, y.metric);
    if (!mx || !my) continue;
    byClass[static_cast<std::size_t>(k)].push_back(
        {mx->value, my->value, mx->lo ? mx->value - *mx->lo : 0, mx->hi ? *mx->hi - mx->value : 0,
         my->lo ? my->value - *my->lo : 0, my->hi ? *my->hi - my->value : 0, i});
    out->xMin = std::min(out->xMin, mx->lo.value_or(mx->value));
    out->xMax = std::max(out->xMax, mx->hi.value_or(mx->value));
    out->yMin = std::min(out->yMin, my->lo.value_or(my->value));
    out->yMax = std::max(out->yMax, my->hi.value_or(my->value));
  }
  // Names without overlaps: the frontier's first, then uncertain, gated out and dominated
  // (a crowded dominated name is left out; the Candidates table lists every one). At most
  // kMaxLabels names are offered (a plot of 10^5 candidates cannot show them all, and placing
  // them again on every pan would cost seconds).
  const int rank[kClasses] = {0, 1, 4, 3, 2, 5};
  std::vector<int> byRank = {0, 1, 2, 3, 4, 5};
  std::stable_sort(byRank.begin(), byRank.end(), [&](int a, int b) { return rank[a] < rank[b]; });
  for (const int k : byRank) {
    for (const ClassPoint& p : byClass[static_cast<std::size_t>(k)]) {
      if (out->labels.size() >= kMaxLabels) break;
      out->labels.push_back({p.x, p.y, qs(cands[p.at].id), static_cast<Verdict>(k)});
    }
  }
  for (int k = 0; k < kClasses; ++k) {
    auto& inClass = byClass[static_cast<std::size_t>(k)];
    for (const ClassPoint& p : inClass) {
      if (k == static_cast<int>(Verdict::Frontier))
        out->front[cands[p.at].model].emplace_back(p.x, p.y);
      out->drawn.push_back({p.x, p.y, qs(cands[p.at].id)});
    }
    out->counts[static_cast<std::size_t>(k)] = static_cast<int>(inClass.size());
    // The graph keeps its points sorted by x and the error bars go by the graph's order: the
    // points sorted first, or a candidate would be drawn with another one's interval.
    std::stable_sort(inClass.begin(), inClass.end(),
                     [](const ClassPoint& a, const ClassPoint& b) { return a.x < b.x; });
    ClassArrays& arrays = out->classes[static_cast<std::size_t>(k)];
    for (QVector<double>* v :
         {&arrays.x, &arrays.y, &arrays.xMinus, &arrays.xPlus, &arrays.yMinus, &arrays.yPlus}) {
      v->reserve(static_cast<qsizetype>(inClass.size()));
    }
    for (const ClassPoint& p : inClass) {
      arrays.x.push_back(p.x);
      arrays.y.push_back(p.y);
      arrays.xMinus.push_back(p.xMinus);
      arrays.xPlus.push_back(p.xPlus);
      arrays.yMinus.push_back(p.yMinus);
      arrays.yPlus.push_back(p.yPlus);
    }
  }
  for (auto& [model, points] : out->front) std::sort(points.begin(), points.end());
  if (!colourMetric.empty()) {
    out->bins = colourBins<Prepared::Drawn, ColourBin>(out->drawn, cands, out->index, colourMetric);
    for (const auto& bin : out->bins) out->coloured += static_cast<int>(bin.x.size());
  }
  return out;
}

std::array<int, 6> ParetoPlot::classCounts() const {
  return m_prepared->counts;
}

int ParetoPlot::colouredPointCount() const {
  return m_prepared->coloured;
}

ParetoPlot::ParetoPlot(QWidget* parent)
    : Plot(parent), m_prepared(std::make_shared<const Prepared>()), m_labels(this) {
  applyPlotStyle(this);
  // The legend below the axes, out of the data's way, two entries a row, centred between two
  // empty cells (alone in its cell, its own width would cap the axes' column); its row and
  // cell only as large as it needs.
  auto* below = new QCPLayoutGrid;
  const int row = plotLayout()->rowCount();
  plotLayout()->addElement(row, 0, below);
  plotLayout()->setRowStretchFactor(row, 0.001);
  axisRect()->insetLayout()->take(legend);
  below->addElement(0, 0, new QCPLayoutElement(this));
  below->addElement(0, 1, legend);
  below->addElement(0, 2, new QCPLayoutElement(this));
  below->setColumnStretchFactors({1, 0.001, 1});
  below->setMargins(QMargins(0, 0, 0, 4));
  legend->setFillOrder(QCPLegend::foColumnsFirst);
  legend->setWrap(2);
  m_legendBelow = below;
  // Beside the axes when short (placeLegend): held out of the layout until then.
  m_legendSide = new QCPLayoutGrid;
  m_legendSide->addElement(0, 0, new QCPLayoutElement(this));
  m_legendSide->addElement(2, 0, new QCPLayoutElement(this));
  m_legendSide->setRowStretchFactors({1, 0.001, 1});
  m_legendSide->setMargins(QMargins(0, 0, 6, 0));
  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  setMouseTracking(true);
  connect(this, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
    const QString id = candidateAt(event->position());
    if (id.isEmpty()) {
      QToolTip::hideText();
      return;
    }
    QToolTip::showText(event->globalPosition().toPoint(), describe(id), this);
  });
  connect(this, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
    const QString id = candidateAt(event->position());
    if (!id.isEmpty()) emit candidateClicked(id);
  });
}

QString ParetoPlot::candidateAt(const QPointF& pos) const {
  QString best;
  double bestD2 = 12.0 * 12.0;
  for (const auto& p : m_prepared->drawn) {
    const double dx = xAxis->coordToPixel(p.x) - pos.x();
    const double dy = yAxis->coordToPixel(p.y) - pos.y();
    if (dx * dx + dy * dy <= bestD2) {
      bestD2 = dx * dx + dy * dy;
      best = p.id;
    }
  }
  return best;
}

QString ParetoPlot::describe(const QString& id) const {
  const auto at = m_prepared->index.constFind(id);
  if (at == m_prepared->index.constEnd()) return {};
  const auto it = m_cands->begin() + static_cast<std::ptrdiff_t>(*at);
  QString text = QString("<b>%1</b>").arg(id.toHtmlEscaped());
  // The verdict first: what the frontier made of it, and why.
  if (const auto v = m_verdicts->find(it->id); v != m_verdicts->end()) {
    text += QString("<br><b>%1</b>").arg(QString(verdictName(v->second.verdict)).toHtmlEscaped());
    std::string worded = v->second.detail;
    const Verdict verdict = v->second.verdict;
    if (m_detailSource && (verdict == Verdict::Dominated || verdict == Verdict::Uncertain)) {
      if (auto d = m_detailSource(it->id)) worded = std::move(*d);
    }
    if (!worded.empty()) {
      QString detail = qs(worded);
      if (detail.size() > 160) detail = detail.left(157) + "…";
      text += ": " + detail.toHtmlEscaped();
    }
  }
  auto line = [&](const std::string& name, const MetricValue& m) {
    // The dictionary's name and unit, three significant digits.
    const auto info = lookupMetric(name);
    const QString label = info ? qs(info->readable) : qs(name);
    const QString unit = info && !info->unit.empty() ? " " + qs(info->unit) : QString();
    QString out = QString("<br>%1: %2%3")
                      .arg(label.toHtmlEscaped(), readableNumber(m.value), unit.toHtmlEscaped());
    if (m.lo && m.hi) out += QString(" [%1, %2]").arg(readableNumber(*m.lo), readableNumber(*m.hi));
    const auto& p = m.provenance;
    const std::string& source = !p.citation.empty()     ? p.citation
                                : !p.sourceFile.empty() ? p.sourceFile
                                                        : std::string();
    out += QString(" <i>%1%2</i>")
               .arg(provenanceName(p.kind))
               .arg(source.empty() ? QString() : ", " + qs(source).toHtmlEscaped());
    return out;
  };
  // The plotted objectives (and the colour metric) first, then the others up to the limit.
  std::vector<std::string> first = {m_xMetric, m_yMetric};
  if (!m_colourMetric.empty()) first.push_back(m_colourMetric);
  for (const auto& name : first) {
    const auto m = it->metrics.find(name);
    if (m != it->metrics.end()) text += line(m->first, m->second);
  }
  int shown = 0, more = 0;
  for (const auto& [name, m] : it->metrics) {
    if (std::find(first.begin(), first.end(), name) != first.end()) continue;
    if (shown < kHoverMetrics) {
      text += line(name, m);
      ++shown;
    } else {
      ++more;
    }
  }
  if (more > 0) {
    text += QString("<br><i>… and %1 more metric(s): the Candidates tab lists them</i>").arg(more);
  }
  return text;
}

void ParetoPlot::highlight(const QString& id) {
  if (!m_ring) {
    m_ring = addGraph();
    m_ring->setLineStyle(QCPGraph::lsNone);
    m_ring->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(0, 0, 0), 2.2), Qt::NoBrush, 20));
    m_ring->removeFromLegend();
  }
  QVector<double> x, y;
  for (const auto& p : m_prepared->drawn) {
    if (p.id == id) {
      x.push_back(p.x);
      y.push_back(p.y);
    }
  }
  m_ring->setData(x, y);
  replot(QCustomPlot::rpQueuedReplot);
}

void ParetoPlot::setData(const std::vector<Candidate>& cands,
                         const std::map<std::string, CandidateVerdict>& verdicts,
                         const Objective& x, const Objective& y) {
  setData(std::make_shared<const std::vector<Candidate>>(cands),
          std::make_shared<const std::map<std::string, CandidateVerdict>>(verdicts), x, y);
}

void ParetoPlot::setData(SharedCandidates shared, SharedVerdicts verdicts, const Objective& x,
                         const Objective& y, SharedPrepared prepared) {
  const bool usable = prepared && prepared->cands == shared.get() &&
                      prepared->verdicts == verdicts.get() && prepared->xMetric == x.metric &&
                      prepared->yMetric == y.metric && prepared->colourMetric == m_colourMetric;
  if (!usable) prepared = prepare(*shared, *verdicts, x, y, m_colourMetric);
  resetDrawing(std::move(shared), std::move(prepared));
  m_verdicts = std::move(verdicts);
  m_xMetric = x.metric;
  m_yMetric = y.metric;
  setTitles(x, y);
  // The uncertain band first: behind the points, lines and labels drawn after it.
  drawBands();
  for (int k = 0; k < kClasses; ++k) drawClass(k, m_prepared->classes[static_cast<std::size_t>(k)]);
  // The third objective as colour: quintiles of its values over the drawn candidates.
  drawColourBins();
  drawLabels();
  drawFrontierLines();
  const Prepared& p = *m_prepared;
  if (p.xMin <= p.xMax) {
    const double dx = std::max(1e-9, (p.xMax - p.xMin) * 0.12);
    const double dy = std::max(1e-9, (p.yMax - p.yMin) * 0.12);
    xAxis->setRange(p.xMin - dx, p.xMax + dx * 2.5);
    yAxis->setRange(p.yMin - dy, p.yMax + dy);
  }
  placeLegend();
  // Drawn from a timer: input waiting since the result came is handled first (drawing 10^5
  // points takes as long as a pan step).
  replotSoon();
}

ParetoPlot::~ParetoPlot() {
  // The legend's box out of the layout is the plot's to delete; the one in it, its layout's.
  delete (m_legendAtSide ? m_legendBelow : m_legendSide);
}

void ParetoPlot::resizeEvent(QResizeEvent* event) {
  Plot::resizeEvent(event);
  placeLegend();
}

void ParetoPlot::placeLegend() {
  bool side = false;
  if (legend->visible() && legend->itemCount() > 0) {
    legend->setWrap(2);
    legend->setFillOrder(QCPLegend::foColumnsFirst, true);
    const QSize below = legend->minimumOuterSizeHint();
    legend->setWrap(1);
    legend->setFillOrder(QCPLegend::foColumnsFirst, true);
    const QSize column = legend->minimumOuterSizeHint();
    // Title, tick labels and axis titles take about 90 pixels of the height.
    const bool shortAxes = height() - below.height() - 90 < height() / 2;
    const bool roomBeside = column.height() + 20 <= height() && width() - column.width() >= 420;
    side = shortAxes && roomBeside;
  }
  legend->setWrap(side ? 1 : 2);
  legend->setFillOrder(QCPLegend::foColumnsFirst, true);
  if (side == m_legendAtSide) return;
  m_legendAtSide = side;
  QCPLayoutGrid* from = side ? m_legendBelow : m_legendSide;
  QCPLayoutGrid* to = side ? m_legendSide : m_legendBelow;
  from->take(legend);
  if (side) {
    to->addElement(1, 0, legend);
    plotLayout()->take(m_legendBelow);
    plotLayout()->simplify();
    int axesRow = 0;
    for (int i = 0; i < plotLayout()->elementCount(); ++i) {
      int r = 0, c = 0;
      plotLayout()->indexToRowCol(i, r, c);
      if (plotLayout()->elementAt(i) == axisRect()) axesRow = r;
    }
    plotLayout()->addElement(axesRow, 1, m_legendSide);
    plotLayout()->setColumnStretchFactor(1, 0.001);
  } else {
    to->addElement(0, 1, legend);
    plotLayout()->take(m_legendSide);
    plotLayout()->simplify();
    const int row = plotLayout()->rowCount();
    plotLayout()->addElement(row, 0, m_legendBelow);
    plotLayout()->setRowStretchFactor(row, 0.001);
  }
  replotSoon();
}

void ParetoPlot::resetDrawing(SharedCandidates cands, SharedPrepared prepared) {
  clearGraphs();
  clearItems();
  clearPlottables();
  m_labels.clear();
  m_ring = nullptr;
  m_cands = std::move(cands);
  m_prepared = std::move(prepared);
}

void ParetoPlot::setTitles(const Objective& x, const Objective& y) {
  m_title = ensurePlotTitle(this, m_title);
  // Readable names, as the objective rows show them.
  const QString xName = qs(readableMetricName(x.metric));
  const QString yName = qs(readableMetricName(y.metric));
  m_title->setText(QString("Pareto frontier: %1 (%2) vs %3 (%4)")
                       .arg(xName, directionName(x.direction), yName, directionName(y.direction)));
  // The direction beside each name where the axis has room for both (fitAxisLabel).
  fitAxisLabel(xAxis, {xName + (x.direction == Direction::Max ? "  (higher is better →)"
                                                              : "  (← lower is better)"),
                       xName});
  fitAxisLabel(yAxis, {yName + (y.direction == Direction::Max ? "  (higher is better)"
                                                              : "  (lower is better)"),
                       yName});
}

void ParetoPlot::drawBands() {
  m_bandCurves.clear();
  for (const auto& band : m_bands) {
    auto* area = new QCPCurve(xAxis, yAxis);
    QVector<double> bx, by;
    for (const auto& [px, py] : band.polygon) {
      bx.push_back(px);
      by.push_back(py);
    }
    area->setData(bx, by);
    area->setPen(QPen(QColor(230, 159, 0, 160), 1));
    area->setBrush(QColor(230, 159, 0, 50));
    area->setName(kUncertainBandName);
    if (!m_bandCurves.empty()) area->removeFromLegend();
    m_bandCurves.push_back(area);
  }
}

void ParetoPlot::drawClass(int k, const ClassArrays& points) {
  const ClassStyle& style = classStyle(k);
  QCPGraph* g = addGraph();
  g->setLineStyle(QCPGraph::lsNone);
  g->setName(style.name);
  g->setData(points.x, points.y, true);
  g->setScatterStyle(scatterFor(style.scatter, points.x.size()));
  // Interval bars: always on the frontier and uncertain points; on a crowd of dominated or
  // gated-out points (thousands) they would hide the plot and cost a frame each, so those
  // keep theirs in the hover text and the tables only.
  const bool bars = k == static_cast<int>(Verdict::Frontier) ||
                    k == static_cast<int>(Verdict::Uncertain) ||
                    points.x.size() <= kMaxBarsPerClass;
  if (bars) {
    auto* xErr = new QCPErrorBars(xAxis, yAxis);
    auto* yErr = new QCPErrorBars(xAxis, yAxis);
    xErr->setErrorType(QCPErrorBars::etKeyError);
    yErr->setErrorType(QCPErrorBars::etValueError);
    for (QCPErrorBars* e : {xErr, yErr}) {
      e->removeFromLegend();
      e->setPen(QPen(style.scatter.pen().color(), 1));
      e->setDataPlottable(g);
    }
    xErr->setData(points.xMinus, points.xPlus);
    yErr->setData(points.yMinus, points.yPlus);
  }
  if (points.x.isEmpty()) g->removeFromLegend();
}

void ParetoPlot::drawColourBins() {
  const auto& filled = m_prepared->bins;
  if (filled.empty()) return;
  // Viridis at five stops: ordered light to dark, readable in grey too.
  const QColor viridis[5] = {QColor(253, 231, 37), QColor(94, 201, 98), QColor(33, 145, 140),
                             QColor(59, 82, 139), QColor(68, 1, 84)};
  std::vector<std::pair<double, double>> ranges;
  for (const ColourBin& bin : filled) ranges.emplace_back(bin.lo, bin.hi);
  const QStringList labels = colourBinLabels(ranges);
  for (std::size_t i = 0; i < filled.size(); ++i) {
    const ColourBin& bin = filled[i];
    QCPGraph* g = addGraph();
    g->setLineStyle(QCPGraph::lsNone);
    // ssCircle fills with the brush (ssDisc would fill with the pen colour).
    const QCPScatterStyle dot(QCPScatterStyle::ssCircle, QPen(QColor(40, 40, 40), 0.6),
                              viridis[bin.colour], 6);
    g->setName(QString("%1 %2").arg(qs(readableMetricName(m_prepared->colourMetric)),
                                    labels[static_cast<qsizetype>(i)]));
    g->setData(bin.x, bin.y, true);
    g->setScatterStyle(scatterFor(dot, bin.x.size()));
  }
}

QStringList colourBinLabels(const std::vector<std::pair<double, double>>& ranges) {
  // The fewest significant digits (at least 3) at which no range's two ends read alike and no
  // range's end reads like the next range's start.
  auto format = [](double v, int digits) { return significant(v, digits); };
  auto distinctAt = [&](int digits) {
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      const auto [lo, hi] = ranges[i];
      if (lo != hi && format(lo, digits) == format(hi, digits)) return false;
      if (i + 1 < ranges.size() && hi != ranges[i + 1].first &&
          format(hi, digits) == format(ranges[i + 1].first, digits)) {
        return false;
      }
    }
    return true;
  };
  int digits = 3;
  while (digits < 17 && !distinctAt(digits)) ++digits;
  QStringList out;
  for (const auto& [lo, hi] : ranges) {
    out << (lo == hi ? format(lo, digits)
                     : QString("%1 – %2").arg(format(lo, digits), format(hi, digits)));
  }
  return out;
}

void ParetoPlot::drawLabels() {
  // The names prepare() offers (frontier first); the label layout shows those that find room,
  // the Candidates table lists every one.
  for (const Prepared::Label& p : m_prepared->labels) {
    const QColor color = p.verdict == Verdict::Dominated  ? QColor(140, 140, 140)
                         : p.verdict == Verdict::GatedOut ? QColor(176, 0, 0)
                                                          : QColor(30, 30, 30);
    QCPItemText* t = m_labels.add(p.x, p.y, p.text, color, true, false, true, true);
    QFont f = plotFont(8);
    f.setStrikeOut(p.verdict == Verdict::GatedOut);
    t->setFont(f);
  }
}

void ParetoPlot::drawFrontierLines() {
  const auto& front = m_prepared->front;
  // Frontier line: through each group's frontier points (sorted along x by prepare()); one
  // legend entry.
  bool named = false;
  for (const auto& [model, points] : front) {
    if (points.size() < 2) continue;
    QCPCurve* line = new QCPCurve(xAxis, yAxis);
    QVector<double> lx, ly;
    for (const auto& [px, py] : points) {
      lx.push_back(px);
      ly.push_back(py);
    }
    line->setData(lx, ly);
    line->setPen(QPen(QColor(0, 114, 178), 1.5, Qt::DashLine));
    line->setName(front.size() > 1 ? "frontier line (per model)" : "frontier line");
    if (named) line->removeFromLegend();
    named = true;
  }
}

}  // namespace qf::ui
