#include <quantfront/ui/pareto_view.hpp>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <set>

#include <quantfront/core/analysis/metric_dictionary.hpp>
#include <quantfront/ui/plot_style.hpp>

namespace qf::ui {

namespace {
QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

std::optional<MetricValue> metricOf(const Candidate& c, const std::string& name) {
  const auto it = c.metrics.find(name);
  if (it == c.metrics.end() || !std::isfinite(it->second.value)) return std::nullopt;
  return it->second;
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
  const auto it = std::find_if(m_cands.begin(), m_cands.end(),
                               [&](const Candidate& c) { return qs(c.id) == id; });
  if (it == m_cands.end()) return {};
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
  const Style styles[4] = {
      {"frontier",
       QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(0, 114, 178), QColor(0, 114, 178), 11)},
      {"uncertain (within uncertainty)",
       QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(230, 159, 0), 2), Qt::white, 11)},
      {"dominated",
       QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(180, 180, 180), QColor(210, 210, 210), 9)},
      {"gated out",
       QCPScatterStyle(QCPScatterStyle::ssCross, QPen(QColor(176, 0, 0), 2), Qt::NoBrush, 10)},
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
  for (int k = 0; k < 4; ++k) {
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
    xErr->setDataPlottable(g);
    yErr->setDataPlottable(g);
    xErr->setData(xeMinus, xePlus);
    yErr->setData(yeMinus, yePlus);
    if (xs.isEmpty()) g->removeFromLegend();
  }
  // The third objective as colour: quintiles of its values over the drawn candidates.
  m_coloured = 0;
  if (!m_colourMetric.empty()) {
    std::vector<std::pair<DrawnPoint, double>> pts;
    for (const auto& d : m_drawn) {
      const auto c = std::find_if(cands.begin(), cands.end(),
                                  [&](const Candidate& cand) { return qs(cand.id) == d.id; });
      if (c == cands.end()) continue;
      if (const auto v = metricOf(*c, m_colourMetric)) pts.emplace_back(d, v->value);
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
        m_coloured += static_cast<int>(bx.size());
      }
    }
  }
  // Names without overlaps: the frontier's first, then uncertain, gated out and dominated
  // (a crowded dominated name is left out; the Candidates table lists every one).
  const int rank[4] = {0, 1, 3, 2};
  std::stable_sort(labelled.begin(), labelled.end(), [&](const Pending& a, const Pending& b) {
    return rank[a.order] < rank[b.order];
  });
  for (const Pending& p : labelled) {
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
  m_x = new QComboBox(this);
  m_x->setObjectName("paretoX");
  m_y = new QComboBox(this);
  m_y->setObjectName("paretoY");
  m_xDir = new QComboBox(this);
  m_yDir = new QComboBox(this);
  for (QComboBox* d : {m_xDir, m_yDir}) {
    d->addItem("max", static_cast<int>(Direction::Max));
    d->addItem("min", static_cast<int>(Direction::Min));
  }
  m_colour = new QComboBox(this);
  m_colour->setObjectName("paretoColour");
  m_colour->setToolTip("A third objective shown as the colour of each point (quintiles)");
  m_baseline = new QComboBox(this);
  m_baseline->setObjectName("paretoBaseline");
  m_gates = new QLineEdit(this);
  m_gates->setObjectName("paretoGates");
  m_gates->setPlaceholderText(
      "gates, comma-separated: recovery_pct>=99, tpot_p99_ms<70, score>=baseline-0.5");
  controls->addWidget(new QLabel("x", this));
  controls->addWidget(m_x, 1);
  controls->addWidget(m_xDir);
  controls->addWidget(new QLabel("y", this));
  controls->addWidget(m_y, 1);
  controls->addWidget(m_yDir);
  controls->addWidget(new QLabel("colour", this));
  controls->addWidget(m_colour, 1);
  controls->addWidget(new QLabel("baseline", this));
  controls->addWidget(m_baseline);
  controls->addWidget(new QLabel("gates", this));
  controls->addWidget(m_gates, 2);
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
  // A newly chosen metric takes its remembered or well-known orientation.
  auto metricPicked = [this](QComboBox* box, QComboBox* dir) {
    const std::string m = box->currentData().toString().toStdString();
    const auto it = m_directions.find(m);
    const Direction d =
        it != m_directions.end() ? it->second : knownDirection(m).value_or(Direction::Max);
    const bool was = m_updating;
    m_updating = true;
    dir->setCurrentIndex(d == Direction::Max ? 0 : 1);
    m_updating = was;
  };
  connect(m_x, &QComboBox::currentIndexChanged, this, [=, this] {
    metricPicked(m_x, m_xDir);
    changed();
  });
  connect(m_y, &QComboBox::currentIndexChanged, this, [=, this] {
    metricPicked(m_y, m_yDir);
    changed();
  });
  auto dirPicked = [this, changed](QComboBox* box, QComboBox* dir) {
    m_directions[box->currentData().toString().toStdString()] =
        static_cast<Direction>(dir->currentData().toInt());
    changed();
  };
  connect(m_xDir, &QComboBox::currentIndexChanged, this, [=, this] { dirPicked(m_x, m_xDir); });
  connect(m_yDir, &QComboBox::currentIndexChanged, this, [=, this] { dirPicked(m_y, m_yDir); });
  connect(m_baseline, &QComboBox::currentIndexChanged, this, changed);
  connect(m_colour, &QComboBox::currentIndexChanged, this, changed);
  connect(m_gates, &QLineEdit::editingFinished, this, changed);
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
  recompute();
}

void ParetoView::setSelection(const std::vector<Objective>& objectives,
                              const std::vector<std::string>& gates) {
  applySelection(objectives, gates);
  recompute();
}

void ParetoView::setContents(const std::vector<Candidate>& cands,
                             const std::vector<Objective>& objectives,
                             const std::vector<std::string>& gates) {
  loadCandidates(cands);
  applySelection(objectives, gates);
  recompute();
}

void ParetoView::loadCandidates(const std::vector<Candidate>& cands) {
  m_cands = cands;
  m_updating = true;
  const QString keepX = m_x->currentData().toString(), keepY = m_y->currentData().toString();
  const QString keepBase = m_baseline->currentData().toString();
  std::set<std::string> names;
  for (const auto& c : cands) {
    for (const auto& [name, v] : c.metrics) names.insert(name);
  }
  for (QComboBox* box : {m_x, m_y}) {
    box->clear();
    for (const auto& n : names) {
      const auto dir = knownDirection(n);
      (void)dir;
      box->addItem(qs(n), qs(n));
    }
  }
  const QString keepColour = m_colour->currentData().toString();
  m_colour->clear();
  m_colour->addItem("(none)", QString());
  for (const auto& n : names) m_colour->addItem(qs(n), qs(n));
  m_baseline->clear();
  m_baseline->addItem("(none)", QString());
  for (const auto& c : cands) m_baseline->addItem(qs(c.id), qs(c.id));
  auto pick = [](QComboBox* box, const QString& v, int fallback) {
    const int i = box->findData(v);
    box->setCurrentIndex(i >= 0 ? i : std::min(fallback, box->count() - 1));
  };
  pick(m_x, keepX, 0);
  pick(m_y, keepY, 1);
  // Memory by default as the third objective, as a design review reads it.
  const int memory = m_colour->findData(QString("weights_gib"));
  pick(m_colour, keepColour.isEmpty() && memory >= 0 ? QString("weights_gib") : keepColour, 0);
  for (auto [box, dir] : {std::pair{m_x, m_xDir}, std::pair{m_y, m_yDir}}) {
    const std::string m = box->currentData().toString().toStdString();
    const auto it = m_directions.find(m);
    const Direction d =
        it != m_directions.end() ? it->second : knownDirection(m).value_or(Direction::Max);
    dir->setCurrentIndex(d == Direction::Max ? 0 : 1);
  }
  pick(m_baseline, keepBase, 0);
  m_updating = false;
}

void ParetoView::applySelection(const std::vector<Objective>& objectives,
                                const std::vector<std::string>& gates) {
  m_updating = true;
  for (const auto& o : objectives) m_directions[o.metric] = o.direction;
  if (objectives.size() >= 1) {
    const int i = m_x->findData(qs(objectives[0].metric));
    if (i >= 0) m_x->setCurrentIndex(i);
    m_xDir->setCurrentIndex(objectives[0].direction == Direction::Max ? 0 : 1);
  }
  if (objectives.size() >= 2) {
    const int i = m_y->findData(qs(objectives[1].metric));
    if (i >= 0) m_y->setCurrentIndex(i);
    m_yDir->setCurrentIndex(objectives[1].direction == Direction::Max ? 0 : 1);
  }
  QStringList g;
  for (const auto& s : gates) g << qs(s);
  m_gates->setText(g.join(", "));
  m_updating = false;
}

std::vector<Objective> ParetoView::objectives() const {
  std::vector<Objective> out;
  for (auto [box, dir] : {std::pair{m_x, m_xDir}, std::pair{m_y, m_yDir}}) {
    const std::string m = box->currentData().toString().toStdString();
    if (m.empty()) continue;
    out.push_back({m, static_cast<Direction>(dir->currentData().toInt())});
  }
  return out;
}

std::vector<std::string> ParetoView::gates() const {
  std::vector<std::string> out;
  for (const QString& g : m_gates->text().split(',', Qt::SkipEmptyParts)) {
    if (!g.trimmed().isEmpty()) out.push_back(g.trimmed().toStdString());
  }
  return out;
}

void ParetoView::recompute() {
  m_result.reset();
  m_verdicts.clear();
  FrontierQuery query;
  query.objectives = objectives();
  if (query.objectives.size() == 2 && query.objectives[0].metric == query.objectives[1].metric) {
    query.objectives.pop_back();
  }
  auto parsedGates = parseGateTexts(gates());
  if (!parsedGates) {
    m_status->setText(qs(parsedGates.error().str()));
    m_status->setStyleSheet("color: #b00000;");
    return;
  }
  query.gates = std::move(*parsedGates);
  const std::string base = m_baseline->currentData().toString().toStdString();
  if (!base.empty()) query.baselineId = base;
  if (query.objectives.empty() || m_cands.empty()) {
    m_status->setText("No candidates with metrics: open a session or import results.");
    m_status->setStyleSheet("");
    fillTable();
    return;
  }
  auto analysis = analyseFrontier(m_cands, query, "");
  if (!analysis) {
    m_status->setText(qs(analysis.error().str()));
    m_status->setStyleSheet("color: #b00000;");
    return;
  }
  m_result = std::move(analysis->result);
  m_verdicts = std::move(analysis->verdicts);
  QString text = QString(
                     "%1 on the frontier, %2 uncertain, %3 dominated, %4 gated out "
                     "(missing metrics count as gated out)")
                     .arg(m_result->frontier.size())
                     .arg(m_result->uncertain.size())
                     .arg(m_result->dominated.size())
                     .arg(m_result->gatedOut.size());
  for (const auto& w : analysis->warnings) text += "\nwarning: " + qs(w);
  m_status->setStyleSheet(analysis->warnings.empty() ? "" : "color: #8a5a00;");
  m_status->setText(text);
  const auto& obj = m_result->objectives;
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
      if (it->second.verdict == Verdict::GatedOut) {
        QFont f = status->font();
        f.setStrikeOut(true);
        status->setFont(f);
        status->setForeground(QColor(176, 0, 0));
        status->setText(QString("gated out: %1").arg(qs(it->second.detail).section(": ", 1)));
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
