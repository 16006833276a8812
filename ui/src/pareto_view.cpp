#include <quantfront/ui/pareto_view.hpp>

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMouseEvent>
#include <QPushButton>
#include <QTableWidget>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <set>

#include <quantfront/core/analysis/metric_dictionary.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/ui/plot_style.hpp>

namespace qf::ui {

namespace {
QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

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

std::optional<MetricValue> metricOf(const Candidate& c, const std::string& name) {
  const auto it = c.metrics.find(name);
  if (it == c.metrics.end() || !std::isfinite(it->second.value)) return std::nullopt;
  return it->second;
}

/// Which way `metric` is better when nobody chose: the dictionary's, else the name's.
Direction defaultDirection(const std::string& metric) {
  if (const auto info = lookupMetric(metric); info && info->direction) return *info->direction;
  return knownDirection(metric).value_or(Direction::Max);
}

/// The tooltip of a row's control, kept to be shown again under a reason the row is not applied.
void tip(QWidget* w, const QString& text) {
  w->setToolTip(text);
  w->setProperty("baseTip", text);
}

/// An editable metric picker: readable names listed, a raw name may be typed.
QComboBox* metricBox(QWidget* parent) {
  auto* box = new QComboBox(parent);
  box->setObjectName("metric");
  box->setEditable(true);
  box->setInsertPolicy(QComboBox::NoInsert);
  box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  box->setMinimumContentsLength(12);
  return box;
}

QToolButton* removeButton(QWidget* parent, const QString& text) {
  auto* remove = new QToolButton(parent);
  remove->setObjectName("remove");
  remove->setText("Remove");
  remove->setToolTip(text);
  remove->setProperty("baseTip", text);
  return remove;
}

/// The raw metric a picker names: the item shown (found by its readable or its raw name), else
/// the text typed.
std::string boxMetric(const QComboBox* box) {
  const QString text = box->currentText().trimmed();
  if (text.isEmpty()) return {};
  const int current = box->currentIndex();
  if (current >= 0 && box->itemText(current) == text) {
    return box->itemData(current).toString().toStdString();
  }
  int i = box->findText(text, Qt::MatchFixedString);
  if (i < 0) i = box->findData(text);
  return i >= 0 ? box->itemData(i).toString().toStdString() : text.toStdString();
}

/// Marks row `row` applied (empty `problem`) or not: red fields, "!" after the row's label, and
/// the reason first in every tooltip of the row.
void markRow(QTableWidget* rows, int row, const QString& problem, const QString& label) {
  for (int c = 0; c < rows->columnCount(); ++c) {
    QWidget* w = rows->cellWidget(row, c);
    if (!w) continue;
    const QString base = w->property("baseTip").toString();
    if (problem.isEmpty() || qobject_cast<QToolButton*>(w)) {
      w->setToolTip(base);
      w->setPalette(QPalette());
      continue;
    }
    w->setToolTip("Not applied: " + problem + "\n\n" + base);
    QPalette p = w->palette();
    p.setColor(QPalette::Base, QColor(255, 212, 212));
    p.setColor(QPalette::Button, QColor(255, 212, 212));
    w->setPalette(p);
  }
  auto* header = new QTableWidgetItem(problem.isEmpty() ? label : label + " !");
  header->setToolTip(problem.isEmpty() ? QString() : "Not applied: " + problem);
  if (!problem.isEmpty()) header->setForeground(QColor(176, 0, 0));
  rows->setVerticalHeaderItem(row, header);
}
}  // namespace

ParetoPlot::ParetoPlot(QWidget* parent) : QCustomPlot(parent), m_labels(this) {
  applyPlotStyle(this);
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
  for (const auto& p : m_drawn) {
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
  const auto at = m_index.constFind(id);
  if (at == m_index.constEnd()) return {};
  const auto it = m_cands.begin() + static_cast<std::ptrdiff_t>(*at);
  QString text = QString("<b>%1</b>").arg(id.toHtmlEscaped());
  for (const auto& [name, m] : it->metrics) {
    QString line = QString("<br>%1: %2").arg(qs(name).toHtmlEscaped()).arg(m.value, 0, 'g', 6);
    if (m.lo && m.hi) line += QString(" [%1, %2]").arg(*m.lo, 0, 'g', 5).arg(*m.hi, 0, 'g', 5);
    const auto& p = m.provenance;
    const std::string& source = !p.citation.empty()     ? p.citation
                                : !p.sourceFile.empty() ? p.sourceFile
                                                        : std::string();
    line += QString(" <i>%1%2</i>")
                .arg(provenanceName(p.kind))
                .arg(source.empty() ? QString() : ", " + qs(source).toHtmlEscaped());
    text += line;
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
  for (const auto& p : m_drawn) {
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
  clearGraphs();
  clearItems();
  clearPlottables();
  m_labels.clear();
  m_ring = nullptr;
  m_drawn.clear();
  m_cands = cands;
  m_index.clear();
  m_index.reserve(static_cast<qsizetype>(m_cands.size()));
  for (std::size_t i = 0; i < m_cands.size(); ++i) m_index.insert(qs(m_cands[i].id), i);
  if (!m_title) {
    plotLayout()->insertRow(0);
    m_title = new QCPTextElement(this, "", plotFont(12));
    plotLayout()->addElement(0, 0, m_title);
  }
  // Readable names, as the objective rows show them.
  const QString xName = qs(readableMetricName(x.metric));
  const QString yName = qs(readableMetricName(y.metric));
  m_title->setText(QString("Pareto frontier: %1 (%2) vs %3 (%4)")
                       .arg(xName, directionName(x.direction), yName, directionName(y.direction)));
  xAxis->setLabel(
      xName + (x.direction == Direction::Max ? "  (higher is better →)" : "  (← lower is better)"));
  yAxis->setLabel(yName +
                  (y.direction == Direction::Max ? "  (higher is better)" : "  (lower is better)"));
  m_counts = {};
  // The uncertain band first: behind the points, lines and labels drawn after it.
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
    area->setName("uncertain band (95% intervals)");
    if (!m_bandCurves.empty()) area->removeFromLegend();
    m_bandCurves.push_back(area);
  }
  struct Style {
    const char* name;
    QCPScatterStyle scatter;
  };
  constexpr int kClasses = 6;  // one per Verdict, in its order
  const Style styles[kClasses] = {
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
  double xMin = 1e300, xMax = -1e300, yMin = 1e300, yMax = -1e300;
  // Frontier points per base model: a frontier is drawn within a group (analyseFrontier
  // groups relative metrics by model), never across two models' candidates.
  std::map<std::string, std::vector<std::pair<double, double>>> front;
  struct Pending {
    int order;
    double x, y;
    QString text;
    Verdict verdict;
  };
  std::vector<Pending> labelled;
  for (int k = 0; k < kClasses; ++k) {
    QCPGraph* g = addGraph();
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(styles[k].scatter);
    g->setName(styles[k].name);
    auto* xErr = new QCPErrorBars(xAxis, yAxis);
    auto* yErr = new QCPErrorBars(xAxis, yAxis);
    xErr->setErrorType(QCPErrorBars::etKeyError);
    yErr->setErrorType(QCPErrorBars::etValueError);
    for (QCPErrorBars* e : {xErr, yErr}) {
      e->removeFromLegend();
      e->setPen(QPen(styles[k].scatter.pen().color(), 1));
    }
    struct Point {
      double x, y, xMinus, xPlus, yMinus, yPlus;
    };
    std::vector<Point> points;
    for (const auto& c : cands) {
      const auto it = verdicts.find(c.id);
      if (it == verdicts.end() || static_cast<int>(it->second.verdict) != k) continue;
      const auto mx = metricOf(c, x.metric);
      const auto my = metricOf(c, y.metric);
      if (!mx || !my) continue;
      points.push_back({mx->value, my->value, mx->lo ? mx->value - *mx->lo : 0,
                        mx->hi ? *mx->hi - mx->value : 0, my->lo ? my->value - *my->lo : 0,
                        my->hi ? *my->hi - my->value : 0});
      xMin = std::min(xMin, mx->lo.value_or(mx->value));
      xMax = std::max(xMax, mx->hi.value_or(mx->value));
      yMin = std::min(yMin, my->lo.value_or(my->value));
      yMax = std::max(yMax, my->hi.value_or(my->value));
      if (k == static_cast<int>(Verdict::Frontier))
        front[c.model].emplace_back(mx->value, my->value);
      const auto verdict = static_cast<Verdict>(k);
      labelled.push_back({k, mx->value, my->value, qs(c.id), verdict});
      m_drawn.push_back({mx->value, my->value, qs(c.id)});
      ++m_counts[static_cast<std::size_t>(k)];
    }
    // The graph keeps its points sorted by x and the error bars go by the graph's order: the
    // points sorted first, or a candidate would be drawn with another one's interval.
    std::stable_sort(points.begin(), points.end(),
                     [](const Point& a, const Point& b) { return a.x < b.x; });
    QVector<double> xs, ys;
    QVector<double> xeMinus, xePlus, yeMinus, yePlus;
    for (const Point& p : points) {
      xs.push_back(p.x);
      ys.push_back(p.y);
      xeMinus.push_back(p.xMinus);
      xePlus.push_back(p.xPlus);
      yeMinus.push_back(p.yMinus);
      yePlus.push_back(p.yPlus);
    }
    g->setData(xs, ys, true);
    g->setScatterStyle(scatterFor(styles[k].scatter, xs.size()));
    // Interval bars: always on the frontier and uncertain points; on a crowd of dominated or
    // gated-out points (thousands) they would hide the plot and cost a frame each, so those
    // keep theirs in the hover text and the tables only.
    const bool bars = k == static_cast<int>(Verdict::Frontier) ||
                      k == static_cast<int>(Verdict::Uncertain) || xs.size() <= kMaxBarsPerClass;
    if (bars) {
      xErr->setDataPlottable(g);
      yErr->setDataPlottable(g);
      xErr->setData(xeMinus, xePlus);
      yErr->setData(yeMinus, yePlus);
    } else {
      removePlottable(xErr);
      removePlottable(yErr);
    }
    if (xs.isEmpty()) g->removeFromLegend();
  }
  // The third objective as colour: quintiles of its values over the drawn candidates.
  m_coloured = 0;
  if (!m_colourMetric.empty()) {
    std::vector<std::pair<DrawnPoint, double>> pts;
    for (const auto& d : m_drawn) {
      const auto at = m_index.constFind(d.id);
      if (at == m_index.constEnd()) continue;
      if (const auto v = metricOf(m_cands[*at], m_colourMetric)) pts.emplace_back(d, v->value);
    }
    if (!pts.empty()) {
      std::vector<double> values;
      for (const auto& p : pts) values.push_back(p.second);
      std::sort(values.begin(), values.end());
      // Viridis at five stops: ordered light to dark, readable in grey too.
      const QColor viridis[5] = {QColor(253, 231, 37), QColor(94, 201, 98), QColor(33, 145, 140),
                                 QColor(59, 82, 139), QColor(68, 1, 84)};
      const std::size_t bins = std::min<std::size_t>(5, values.size());
      for (std::size_t b = 0; b < bins; ++b) {
        const double lo = values[b * values.size() / bins];
        const double hi = values[std::min(values.size() - 1, (b + 1) * values.size() / bins - 1)];
        QVector<double> bx, by;
        for (const auto& [d, v] : pts) {
          const bool last = b + 1 == bins;
          if (v >= lo && (last ? v <= hi : v < values[(b + 1) * values.size() / bins])) {
            bx.push_back(d.x);
            by.push_back(d.y);
          }
        }
        if (bx.isEmpty()) continue;
        QCPGraph* g = addGraph();
        g->setLineStyle(QCPGraph::lsNone);
        // ssCircle fills with the brush (ssDisc would fill with the pen colour).
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(40, 40, 40), 0.6),
                                           viridis[b * 4 / std::max<std::size_t>(1, bins - 1)], 6));
        g->setName(QString("%1 %2 – %3")
                       .arg(qs(readableMetricName(m_colourMetric)))
                       .arg(lo, 0, 'g', 4)
                       .arg(hi, 0, 'g', 4));
        g->setData(bx, by);
        g->setScatterStyle(scatterFor(g->scatterStyle(), bx.size()));
        m_coloured += static_cast<int>(bx.size());
      }
    }
  }
  // Names without overlaps: the frontier's first, then uncertain, gated out and dominated
  // (a crowded dominated name is left out; the Candidates table lists every one).
  const int rank[kClasses] = {0, 1, 4, 3, 2, 5};
  std::stable_sort(labelled.begin(), labelled.end(), [&](const Pending& a, const Pending& b) {
    return rank[a.order] < rank[b.order];
  });
  // At most kMaxLabels names are offered, frontier first (a plot of 10^5 candidates cannot
  // show them all, and placing them again on every pan would cost seconds); the label layout
  // shows those that find room, the Candidates table lists every one.
  std::size_t offered = 0;
  for (const Pending& p : labelled) {
    if (++offered > kMaxLabels) break;
    const QColor color = p.verdict == Verdict::Dominated  ? QColor(140, 140, 140)
                         : p.verdict == Verdict::GatedOut ? QColor(176, 0, 0)
                                                          : QColor(30, 30, 30);
    QCPItemText* t = m_labels.add(p.x, p.y, p.text, color, true, false, true, true);
    QFont f = plotFont(8);
    f.setStrikeOut(p.verdict == Verdict::GatedOut);
    t->setFont(f);
  }
  // Frontier line: through each group's frontier points, sorted along x; one legend entry.
  bool named = false;
  for (auto& [model, points] : front) {
    if (points.size() < 2) continue;
    std::sort(points.begin(), points.end());
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
  if (xMin <= xMax) {
    const double dx = std::max(1e-9, (xMax - xMin) * 0.12);
    const double dy = std::max(1e-9, (yMax - yMin) * 0.12);
    xAxis->setRange(xMin - dx, xMax + dx * 2.5);
    yAxis->setRange(yMin - dy, yMax + dy);
  }
  replot(QCustomPlot::rpQueuedReplot);
}

ParetoView::ParetoView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* controls = new QHBoxLayout();
  auto rowTable = [this](const char* name, const QStringList& headers, const QString& tip) {
    auto* rows = new QTableWidget(0, static_cast<int>(headers.size()), this);
    rows->setObjectName(name);
    rows->setHorizontalHeaderLabels(headers);
    rows->setSelectionMode(QAbstractItemView::NoSelection);
    rows->setEditTriggers(QAbstractItemView::NoEditTriggers);
    rows->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    rows->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    rows->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    rows->verticalHeader()->setDefaultSectionSize(30);
    // Three rows in view; more scroll.
    rows->setFixedHeight(rows->horizontalHeader()->sizeHint().height() + 3 * 30 + 4);
    rows->setToolTip(tip);
    return rows;
  };
  m_objectiveRows = rowTable(
      "paretoObjectives", {"metric", "direction", ""},
      "The objectives the frontier is computed over, one per row: the first is the x axis, the "
      "second the y axis; further objectives take part in dominance without an axis of their own");
  m_gateRows = rowTable("paretoGates", {"gated metric", "test", "threshold", "value", ""},
                        "Quality and service gates, applied before the frontier: a candidate "
                        "failing one stays on the plot, struck through, with the gate it failed");
  m_addObjective = new QPushButton("Add objective", this);
  m_addObjective->setObjectName("paretoAddObjective");
  m_addObjective->setToolTip("Add an objective row (the first metric not chosen yet)");
  m_addGate = new QPushButton("Add gate", this);
  m_addGate->setObjectName("paretoAddGate");
  m_addGate->setToolTip(
      "Add a gate row on the x-axis metric at the worst value a candidate has (it passes every "
      "candidate until you tighten it)");
  auto group = [this](const QString& title, QTableWidget* rows, QPushButton* add) {
    auto* box = new QGroupBox(title, this);
    auto* v = new QVBoxLayout(box);
    v->setContentsMargins(6, 4, 6, 4);
    v->addWidget(rows);
    v->addWidget(add, 0, Qt::AlignLeft);
    return box;
  };
  controls->addWidget(group("Objectives", m_objectiveRows, m_addObjective), 4);
  controls->addWidget(group("Gates", m_gateRows, m_addGate), 5);
  m_colour = new QComboBox(this);
  m_colour->setObjectName("paretoColour");
  m_colour->setToolTip("A third objective shown as the colour of each point (quintiles)");
  m_colour->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_colour->setMinimumContentsLength(12);
  m_baseline = new QComboBox(this);
  m_baseline->setObjectName("paretoBaseline");
  m_baseline->setToolTip(
      "The candidate that baseline-relative gates (threshold \"baseline +\") compare against");
  m_baseline->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_baseline->setMinimumContentsLength(12);
  auto* viewBox = new QGroupBox("View", this);
  auto* form = new QFormLayout(viewBox);
  form->addRow("colour", m_colour);
  form->addRow("baseline", m_baseline);
  controls->addWidget(viewBox, 2);
  layout->addLayout(controls);
  m_status = new QLabel(this);
  m_status->setObjectName("paretoStatus");
  m_status->setWordWrap(true);
  layout->addWidget(m_status);
  m_plot = new ParetoPlot(this);
  layout->addWidget(m_plot, 1);
  m_table = new QTableWidget();
  m_table->setObjectName("candidatesTable");
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setSortingEnabled(true);
  // A click on a point selects its row; selecting a row rings its point.
  connect(m_plot, &ParetoPlot::candidateClicked, this, &ParetoView::selectCandidate);
  connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
    const auto rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty()) return;
    const QTableWidgetItem* item = m_table->item(rows.front().row(), 0);
    if (item) m_plot->highlight(item->text());
  });
  auto changed = [this] {
    if (m_updating) return;
    recompute();
    emit selectionChanged();
  };
  connect(m_baseline, &QComboBox::currentIndexChanged, this, changed);
  connect(m_colour, &QComboBox::currentIndexChanged, this, changed);
  connect(m_addObjective, &QPushButton::clicked, this, &ParetoView::addObjective);
  connect(m_addGate, &QPushButton::clicked, this, &ParetoView::addGate);
}

QString ParetoView::statusText() const {
  return m_status->text();
}

void ParetoView::selectCandidate(const QString& id) {
  for (int r = 0; r < m_table->rowCount(); ++r) {
    const QTableWidgetItem* item = m_table->item(r, 0);
    if (item && item->text() == id) {
      m_table->selectRow(r);
      m_table->scrollToItem(item);
      break;
    }
  }
  m_plot->highlight(id);
}

void ParetoView::setCandidates(const std::vector<Candidate>& cands) {
  loadCandidates(cands);
  ensureObjectives();
  recompute();
}

void ParetoView::setSelection(const std::vector<Objective>& objectives,
                              const std::vector<std::string>& gates) {
  applySelection(objectives, gates);
  ensureObjectives();
  recompute();
}

void ParetoView::setContents(const std::vector<Candidate>& cands,
                             const std::vector<Objective>& objectives,
                             const std::vector<std::string>& gates) {
  loadCandidates(cands);
  applySelection(objectives, gates);
  ensureObjectives();
  recompute();
}

void ParetoView::fillMetricBox(QComboBox* box, const std::string& metric) const {
  const bool blocked = box->blockSignals(true);
  box->clear();
  // Readable names, each with its raw name as data; a readable name two metrics share is
  // told apart by the raw one.
  std::map<std::string, int> uses;
  for (const auto& n : m_metrics) ++uses[readableMetricName(n)];
  for (const auto& n : m_metrics) {
    const std::string readable = readableMetricName(n);
    box->addItem(uses[readable] > 1 ? qs(readable + " · " + n) : qs(readable), qs(n));
    const auto info = lookupMetric(n);
    box->setItemData(box->count() - 1,
                     info && !info->description.empty() ? qs(n + ": " + info->description) : qs(n),
                     Qt::ToolTipRole);
  }
  const int i = box->findData(qs(metric));
  box->setCurrentIndex(i);
  if (i < 0) box->setEditText(qs(metric));
  box->lineEdit()->setCursorPosition(0);  // a long name shows its beginning
  box->blockSignals(blocked);
}

void ParetoView::appendObjectiveRow(const Objective& objective) {
  const bool was = m_updating;
  m_updating = true;
  const int r = m_objectiveRows->rowCount();
  m_objectiveRows->insertRow(r);
  auto* metric = metricBox(this);
  fillMetricBox(metric, objective.metric);
  metric->setProperty("appliedMetric", qs(objective.metric));
  tip(metric,
      "The metric of this objective, by its readable name (type to search; each item's tooltip "
      "gives the raw name)");
  auto* direction = new QComboBox(this);
  direction->setObjectName("direction");
  direction->addItem("maximise", static_cast<int>(Direction::Max));
  direction->addItem("minimise", static_cast<int>(Direction::Min));
  direction->setCurrentIndex(objective.direction == Direction::Max ? 0 : 1);
  tip(direction,
      "Which way this objective is better (the metric dictionary's direction when the metric is "
      "picked)");
  auto* remove = removeButton(this, "Remove this objective");
  m_objectiveRows->setCellWidget(r, ObjectiveMetricColumn, metric);
  m_objectiveRows->setCellWidget(r, ObjectiveDirectionColumn, direction);
  m_objectiveRows->setCellWidget(r, ObjectiveRemoveColumn, remove);
  // A newly picked metric takes its remembered or the dictionary's orientation.
  auto metricEdited = [this, metric, direction] {
    if (m_updating) return;
    const std::string m = boxMetric(metric);
    if (qs(m) != metric->property("appliedMetric").toString()) {
      metric->setProperty("appliedMetric", qs(m));
      const auto it = m_directions.find(m);
      const Direction d = it != m_directions.end() ? it->second : defaultDirection(m);
      m_updating = true;
      direction->setCurrentIndex(d == Direction::Max ? 0 : 1);
      m_updating = false;
    }
    rowEdited();
  };
  // A pick from the list (activated: also the item already current, after a typed name),
  // a change of the current item, or a typed name finished.
  connect(metric, &QComboBox::activated, this, metricEdited);
  connect(metric, &QComboBox::currentIndexChanged, this, metricEdited);
  connect(metric->lineEdit(), &QLineEdit::editingFinished, this, metricEdited);
  connect(direction, &QComboBox::currentIndexChanged, this, [this, metric, direction] {
    if (m_updating) return;
    m_directions[boxMetric(metric)] = static_cast<Direction>(direction->currentData().toInt());
    rowEdited();
  });
  connect(remove, &QToolButton::clicked, this,
          [this, remove] { removeRowOf(m_objectiveRows, remove); });
  m_updating = was;
}

void ParetoView::appendGateRow(const std::string& text) {
  const bool was = m_updating;
  m_updating = true;
  // The row's fields from core's reading of the text; the value keeps its spelling, so the
  // row gives the same text back.
  std::string metricName = text, value;
  GateOp op = GateOp::Ge;
  bool relative = false;
  if (const auto g = parseGate(text)) {
    metricName = g->metric;
    op = g->op;
    relative = g->relativeToBaseline;
    value = g->text.substr(g->metric.size() + std::string(gateOpText(g->op)).size());
    if (relative) {
      value = value.substr(std::string("baseline").size());
      if (value.starts_with('+')) value.erase(0, 1);
    }
  }
  const int r = m_gateRows->rowCount();
  m_gateRows->insertRow(r);
  auto* metric = metricBox(this);
  fillMetricBox(metric, metricName);
  tip(metric,
      "The gated metric, by its readable name (type to search, or type a raw metric name; each "
      "item's tooltip gives the raw name)");
  auto* test = new QComboBox(this);
  test->setObjectName("op");
  for (GateOp o : {GateOp::Ge, GateOp::Le, GateOp::Gt, GateOp::Lt, GateOp::Eq}) {
    test->addItem(gateOpText(o), static_cast<int>(o));
  }
  test->setCurrentIndex(test->findData(static_cast<int>(op)));
  tip(test,
      "How a candidate's value compares with the threshold (== allows a 1e-9 relative tolerance)");
  auto* reference = new QComboBox(this);
  reference->setObjectName("reference");
  reference->addItem("absolute");
  reference->addItem("baseline +");
  reference->setCurrentIndex(relative ? 1 : 0);
  tip(reference,
      "absolute: the value is the threshold; baseline +: the threshold is the baseline "
      "candidate's value plus the value (e.g. -0.5), the baseline chosen under View");
  auto* number = new QLineEdit(qs(value), this);
  number->setObjectName("value");
  number->setMaximumWidth(64);
  number->setPlaceholderText(relative ? "0" : "number");
  tip(number,
      "The threshold, a number; with \"baseline +\" the offset added to the baseline's value "
      "(negative below it)");
  auto* remove = removeButton(this, "Remove this gate");
  m_gateRows->setCellWidget(r, GateMetricColumn, metric);
  m_gateRows->setCellWidget(r, GateOpColumn, test);
  m_gateRows->setCellWidget(r, GateReferenceColumn, reference);
  m_gateRows->setCellWidget(r, GateValueColumn, number);
  m_gateRows->setCellWidget(r, GateRemoveColumn, remove);
  auto edited = [this] {
    if (!m_updating) rowEdited();
  };
  connect(metric, &QComboBox::activated, this, edited);
  connect(metric, &QComboBox::currentIndexChanged, this, edited);
  connect(metric->lineEdit(), &QLineEdit::editingFinished, this, edited);
  connect(test, &QComboBox::currentIndexChanged, this, edited);
  connect(reference, &QComboBox::currentIndexChanged, this, [this, reference, number] {
    number->setPlaceholderText(reference->currentIndex() == 1 ? "0" : "number");
    if (!m_updating) rowEdited();
  });
  connect(number, &QLineEdit::editingFinished, this, edited);
  connect(remove, &QToolButton::clicked, this, [this, remove] { removeRowOf(m_gateRows, remove); });
  m_updating = was;
}

void ParetoView::removeRowOf(QTableWidget* rows, QWidget* cell) {
  for (int r = 0; r < rows->rowCount(); ++r) {
    for (int c = 0; c < rows->columnCount(); ++c) {
      if (rows->cellWidget(r, c) != cell) continue;
      rows->removeRow(r);
      rowEdited();
      return;
    }
  }
}

void ParetoView::addObjective() {
  std::set<std::string> chosen;
  for (const auto& row : objectiveRows()) chosen.insert(row.objective.metric);
  const auto next = std::find_if(m_metrics.begin(), m_metrics.end(),
                                 [&](const std::string& m) { return !chosen.count(m); });
  const std::string metric = next != m_metrics.end() ? *next
                             : m_metrics.empty()     ? std::string()
                                                     : m_metrics.front();
  const auto it = m_directions.find(metric);
  appendObjectiveRow({metric, it != m_directions.end() ? it->second : defaultDirection(metric)});
  m_objectiveRows->scrollToBottom();
  rowEdited();
}

void ParetoView::addGate() {
  // On the x metric, at the worst value any candidate has: it gates nothing out yet.
  const auto objs = objectives();
  const Objective o = !objs.empty() ? objs.front()
                      : !m_metrics.empty()
                          ? Objective{m_metrics.front(), defaultDirection(m_metrics.front())}
                          : Objective{};
  std::optional<double> worst;
  for (const auto& c : m_cands) {
    const auto m = metricOf(c, o.metric);
    if (!m) continue;
    if (!worst || (o.direction == Direction::Max ? m->value < *worst : m->value > *worst)) {
      worst = m->value;
    }
  }
  const std::string op = o.direction == Direction::Max ? ">=" : "<=";
  // The shortest text that reads back as the worst value itself (no rounding past a candidate).
  std::string value;
  if (worst) value = QString::number(*worst, 'g', QLocale::FloatingPointShortest).toStdString();
  appendGateRow(o.metric + op + value);
  m_gateRows->scrollToBottom();
  rowEdited();
}

void ParetoView::ensureObjectives() {
  if (m_cands.empty() || !objectives().empty()) return;
  // Nothing the candidates carry is chosen: the defaults of their metric names (directions
  // known), first two, else the first two names.
  std::vector<Objective> defaults = defaultObjectives(metricNamesOf(m_cands)).objectives;
  if (defaults.size() > 2) defaults.resize(2);
  for (const auto& n : m_metrics) {
    if (defaults.size() >= 2) break;
    if (std::none_of(defaults.begin(), defaults.end(),
                     [&](const Objective& o) { return o.metric == n; })) {
      defaults.push_back({n, defaultDirection(n)});
    }
  }
  m_objectiveRows->setRowCount(0);
  for (const auto& o : defaults) {
    const auto it = m_directions.find(o.metric);
    appendObjectiveRow({o.metric, it != m_directions.end() ? it->second : o.direction});
  }
}

void ParetoView::loadCandidates(const std::vector<Candidate>& cands) {
  m_cands = cands;
  m_updating = true;
  const QString keepBase = m_baseline->currentData().toString();
  std::set<std::string> names;
  for (const auto& c : cands) {
    for (const auto& [name, v] : c.metrics) names.insert(name);
  }
  m_metrics.assign(names.begin(), names.end());
  // Each row's metric picker (the first column of both) lists the new names, keeping its metric.
  static_assert(ObjectiveMetricColumn == 0 && GateMetricColumn == 0);
  for (QTableWidget* rows : {m_objectiveRows, m_gateRows}) {
    for (int r = 0; r < rows->rowCount(); ++r) {
      auto* box = qobject_cast<QComboBox*>(rows->cellWidget(r, 0));
      if (box) fillMetricBox(box, boxMetric(box));
    }
  }
  const QString keepColour = m_colour->currentData().toString();
  m_colour->clear();
  m_colour->addItem("(none)", QString());
  for (const auto& n : names) m_colour->addItem(qs(readableMetricName(n)), qs(n));
  m_baseline->clear();
  m_baseline->addItem("(none)", QString());
  for (const auto& c : cands) m_baseline->addItem(qs(c.id), qs(c.id));
  auto pick = [](QComboBox* box, const QString& v) {
    box->setCurrentIndex(std::max(0, box->findData(v)));
  };
  // Memory by default as the third objective, as a design review reads it.
  const int memory = m_colour->findData(QString("weights_gib"));
  pick(m_colour, keepColour.isEmpty() && memory >= 0 ? QString("weights_gib") : keepColour);
  pick(m_baseline, keepBase);
  m_updating = false;
}

void ParetoView::applySelection(const std::vector<Objective>& objectives,
                                const std::vector<std::string>& gates) {
  m_updating = true;
  for (const auto& o : objectives) m_directions[o.metric] = o.direction;
  if (!objectives.empty()) {
    m_objectiveRows->setRowCount(0);
    for (const auto& o : objectives) appendObjectiveRow(o);
  }
  m_gateRows->setRowCount(0);
  for (const auto& text : gates) {
    for (const auto& piece : splitAt(text, ',')) {
      const std::string g = trimmed(piece);
      if (!g.empty()) appendGateRow(g);
    }
  }
  m_updating = false;
}

std::vector<ParetoView::ObjectiveRow> ParetoView::objectiveRows() const {
  std::vector<ObjectiveRow> out;
  std::map<std::string, int> chosenAt;
  for (int r = 0; r < m_objectiveRows->rowCount(); ++r) {
    const auto* box =
        qobject_cast<QComboBox*>(m_objectiveRows->cellWidget(r, ObjectiveMetricColumn));
    const auto* dir =
        qobject_cast<QComboBox*>(m_objectiveRows->cellWidget(r, ObjectiveDirectionColumn));
    if (!box || !dir) continue;
    ObjectiveRow row{{boxMetric(box), static_cast<Direction>(dir->currentData().toInt())}, {}};
    const std::string& m = row.objective.metric;
    if (m.empty()) {
      row.problem = "no metric chosen";
    } else if (!m_cands.empty() && !std::binary_search(m_metrics.begin(), m_metrics.end(), m)) {
      row.problem = qs("no candidate carries metric '" + m + "'");
    } else if (const auto it = chosenAt.find(m); it != chosenAt.end()) {
      row.problem = QString("'%1' is already the objective of row %2").arg(qs(m)).arg(it->second);
    } else {
      chosenAt[m] = r + 1;
    }
    out.push_back(std::move(row));
  }
  return out;
}

std::vector<ParetoView::GateRow> ParetoView::gateRows() const {
  std::vector<GateRow> out;
  const std::string base = m_baseline->currentData().toString().toStdString();
  const std::optional<std::string> baseline =
      base.empty() ? std::nullopt : std::optional<std::string>(base);
  for (int r = 0; r < m_gateRows->rowCount(); ++r) {
    const auto* box = qobject_cast<QComboBox*>(m_gateRows->cellWidget(r, GateMetricColumn));
    const auto* test = qobject_cast<QComboBox*>(m_gateRows->cellWidget(r, GateOpColumn));
    const auto* reference =
        qobject_cast<QComboBox*>(m_gateRows->cellWidget(r, GateReferenceColumn));
    const auto* number = qobject_cast<QLineEdit*>(m_gateRows->cellWidget(r, GateValueColumn));
    if (!box || !test || !reference || !number) continue;
    // The row in core's syntax: metric, comparison, and the threshold or baseline±offset.
    std::string value = number->text().trimmed().toStdString();
    if (reference->currentIndex() == 1) {
      value = value.empty()                                      ? "baseline"
              : value.starts_with('-') || value.starts_with('+') ? "baseline" + value
                                                                 : "baseline+" + value;
    }
    GateRow row;
    row.text = boxMetric(box) + test->currentText().toStdString() + value;
    auto g = parseGate(row.text);
    if (!g) {
      row.problem = qs(g.error().message);
    } else {
      row.text = g->text;
      if (const auto e = gateProblem(*g, m_cands, baseline)) row.problem = qs(e->message);
      row.gate = std::move(*g);
    }
    out.push_back(std::move(row));
  }
  return out;
}

std::vector<Objective> ParetoView::objectives() const {
  std::vector<Objective> out;
  for (const auto& row : objectiveRows()) {
    if (row.problem.isEmpty()) out.push_back(row.objective);
  }
  return out;
}

std::vector<std::string> ParetoView::gates() const {
  std::vector<std::string> out;
  for (const auto& row : gateRows()) {
    if (row.gate) out.push_back(row.text);
  }
  return out;
}

std::vector<std::string> ParetoView::appliedGates() const {
  std::vector<std::string> out;
  for (const auto& row : gateRows()) {
    if (row.gate && row.problem.isEmpty()) out.push_back(row.text);
  }
  return out;
}

QString ParetoView::objectiveRowProblem(int row) const {
  const auto rows = objectiveRows();
  return row >= 0 && row < static_cast<int>(rows.size()) ? rows[row].problem : QString();
}

QString ParetoView::gateRowProblem(int row) const {
  const auto rows = gateRows();
  return row >= 0 && row < static_cast<int>(rows.size()) ? rows[row].problem : QString();
}

void ParetoView::rowEdited() {
  if (m_updating) return;
  const auto objectivesBefore = m_shownObjectives;
  const auto gatesBefore = m_shownGates;
  recompute();
  const bool sameObjectives =
      std::equal(objectivesBefore.begin(), objectivesBefore.end(), m_shownObjectives.begin(),
                 m_shownObjectives.end(), [](const Objective& a, const Objective& b) {
                   return a.metric == b.metric && a.direction == b.direction;
                 });
  if (!sameObjectives || gatesBefore != m_shownGates) emit selectionChanged();
}

void ParetoView::recompute() {
  m_result.reset();
  m_verdicts.clear();
  // The rows: each marked when it cannot be applied; the others make the query.
  const auto objRows = objectiveRows();
  const auto gRows = gateRows();
  FrontierQuery query;
  m_shownObjectives.clear();
  m_shownGates.clear();
  int unusedObjectives = 0, unusedGates = 0;
  for (int r = 0; r < static_cast<int>(objRows.size()); ++r) {
    const auto& row = objRows[static_cast<std::size_t>(r)];
    markRow(m_objectiveRows, r, row.problem, r == 0 ? "x" : r == 1 ? "y" : QString::number(r + 1));
    if (row.problem.isEmpty()) {
      query.objectives.push_back(row.objective);
    } else {
      ++unusedObjectives;
    }
    if (auto* remove = m_objectiveRows->cellWidget(r, ObjectiveRemoveColumn)) {
      remove->setEnabled(objRows.size() > 1);
    }
  }
  m_shownObjectives = query.objectives;
  for (int r = 0; r < static_cast<int>(gRows.size()); ++r) {
    const auto& row = gRows[static_cast<std::size_t>(r)];
    markRow(m_gateRows, r, row.problem, QString::number(r + 1));
    if (row.gate) m_shownGates.push_back(row.text);
    if (row.gate && row.problem.isEmpty()) {
      query.gates.push_back(*row.gate);
    } else {
      ++unusedGates;
    }
  }
  QString notes;
  if (unusedObjectives > 0) {
    notes += QString("\n%1 objective row%2 not applied (marked red; the tooltip says why)")
                 .arg(unusedObjectives)
                 .arg(unusedObjectives > 1 ? "s" : "");
  }
  if (unusedGates > 0) {
    notes += QString("\n%1 gate row%2 not applied (marked red; the tooltip says why)")
                 .arg(unusedGates)
                 .arg(unusedGates > 1 ? "s" : "");
  }
  const std::string base = m_baseline->currentData().toString().toStdString();
  if (!base.empty()) query.baselineId = base;
  if (query.objectives.empty() || m_cands.empty()) {
    m_status->setText(
        (m_cands.empty() ? QString("No candidates with metrics: open a session or import results.")
                         : QString("No objective: add one, with a metric the candidates carry.")) +
        notes);
    m_status->setStyleSheet(notes.isEmpty() ? "" : "color: #8a5a00;");
    fillTable();
    return;
  }
  auto analysis = analyseFrontier(m_cands, query, "");
  if (!analysis) {
    m_status->setText(qs(analysis.error().str()) + notes);
    m_status->setStyleSheet("color: #b00000;");
    return;
  }
  m_result = std::move(analysis->result);
  m_verdicts = std::move(analysis->verdicts);
  QString text = QString("%1 on the frontier, %2 uncertain, %3 dominated, %4 gated out")
                     .arg(m_result->frontier.size())
                     .arg(m_result->uncertain.size())
                     .arg(m_result->dominated.size())
                     .arg(m_result->gatedOut.size());
  if (!m_result->undecided.empty()) {
    text += QString(", %1 undecided (a gate's interval crosses its threshold)")
                .arg(m_result->undecided.size());
  }
  if (!m_result->notScored.empty()) {
    text += QString(", %1 not scored (a metric missing)").arg(m_result->notScored.size());
  }
  const auto& obj = m_result->objectives;
  if (obj.size() > 2) {
    text += QString("; the frontier is over %1 objectives, the plot shows the first two")
                .arg(obj.size());
  }
  for (const auto& w : analysis->warnings) text += "\nwarning: " + qs(w);
  text += notes;
  m_status->setStyleSheet(analysis->warnings.empty() && notes.isEmpty() ? "" : "color: #8a5a00;");
  m_status->setText(text);
  m_plot->setColourMetric(m_colour->currentData().toString().toStdString());
  m_plot->setUncertainBands(uncertainBands(m_cands, *analysis));
  m_plot->setData(m_cands, m_verdicts, obj[0], obj.size() > 1 ? obj[1] : obj[0]);
  fillTable();
}

void ParetoView::fillTable() {
  std::set<std::string> names;
  for (const auto& c : m_cands) {
    for (const auto& [name, v] : c.metrics) names.insert(name);
  }
  QStringList headers = {"id", "status", "model", "schemes", "GPU", "engine"};
  for (const auto& n : names) headers << qs(n);
  m_table->setSortingEnabled(false);
  m_table->clear();
  m_table->setColumnCount(static_cast<int>(headers.size()));
  m_table->setHorizontalHeaderLabels(headers);
  m_table->setRowCount(static_cast<int>(m_cands.size()));
  int row = 0;
  for (const auto& c : m_cands) {
    m_table->setItem(row, 0, new QTableWidgetItem(qs(c.id)));
    const auto it = m_verdicts.find(c.id);
    auto* status =
        new QTableWidgetItem(it == m_verdicts.end() ? "" : verdictName(it->second.verdict));
    if (it != m_verdicts.end()) {
      status->setToolTip(qs(it->second.detail));
      const Verdict v = it->second.verdict;
      if (v == Verdict::GatedOut || v == Verdict::Undecided || v == Verdict::NotScored) {
        QFont f = status->font();
        f.setStrikeOut(v == Verdict::GatedOut);
        status->setFont(f);
        status->setForeground(v == Verdict::GatedOut    ? QColor(176, 0, 0)
                              : v == Verdict::Undecided ? QColor(213, 94, 0)
                                                        : QColor(110, 110, 110));
        status->setText(
            QString("%1: %2").arg(verdictName(v), qs(it->second.detail).section(": ", 1)));
      }
    }
    m_table->setItem(row, 1, status);
    m_table->setItem(row, 2, new QTableWidgetItem(qs(c.model)));
    std::string schemes = c.schemeLinear;
    if (!c.schemeMoe.empty()) schemes += ", moe=" + c.schemeMoe;
    if (!c.schemeLmHead.empty()) schemes += ", lm_head=" + c.schemeLmHead;
    m_table->setItem(row, 3, new QTableWidgetItem(qs(schemes)));
    m_table->setItem(row, 4,
                     new QTableWidgetItem(QString("%1 ×%2").arg(qs(c.gpu)).arg(c.gpuCount)));
    m_table->setItem(row, 5, new QTableWidgetItem(qs(c.engine)));
    int col = 6;
    for (const auto& n : names) {
      const auto m = c.metrics.find(n);
      if (m != c.metrics.end()) {
        auto* item = new QTableWidgetItem;
        item->setData(Qt::DisplayRole, m->second.value);
        const auto& p = m->second.provenance;
        QString tip = QString("%1 — %2").arg(provenanceName(p.kind));
        tip = tip.arg(qs(!p.citation.empty()     ? p.citation
                         : !p.sourceFile.empty() ? p.sourceFile
                                                 : p.note));
        if (m->second.lo && m->second.hi)
          tip += QString("\ninterval [%1, %2]").arg(*m->second.lo).arg(*m->second.hi);
        item->setToolTip(tip);
        if (p.kind == ProvenanceKind::Published) {
          QFont f = item->font();
          f.setItalic(true);
          item->setFont(f);
        } else if (p.kind == ProvenanceKind::Modelled) {
          item->setForeground(QColor(0, 90, 160));
        }
        m_table->setItem(row, col, item);
      }
      ++col;
    }
    ++row;
  }
  m_table->setSortingEnabled(true);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

}  // namespace qf::ui
