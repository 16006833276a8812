#include <quantfront/ui/pareto_view.hpp>

#include <QAbstractItemView>
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
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <set>

#include <quantfront/core/analysis/metric_dictionary.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/ui/background.hpp>
#include <quantfront/ui/candidate_id_list.hpp>
#include <quantfront/ui/candidates_model.hpp>
#include <quantfront/ui/plot_style.hpp>

#include "candidate_metric.hpp"
#include "text.hpp"

namespace qf::ui {

namespace {

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
  // Wide enough for most readable names; its list opens as wide as the longest ("Queries per
  // USD, instruction following (queries/USD)", fillMetricBox), and the field shows the
  // beginning of a longer one. As wide as its longest name, the box set the tab's least width,
  // which at 1280 x 720 took the scenario panel's from it (its "Edit GPU…" cut to "Ed").
  box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  box->setMinimumContentsLength(28);
  return box;
}

constexpr int kRowHeight = 30;
constexpr int kMaxRowsInView = 4;

/// A row table as tall as its rows (from its "minimumRows" property, else one, to four; more
/// scroll) and at least as wide as its columns' widgets ask, so that the layout never squeezes a
/// metric picker's name.
void fitRows(QTableWidget* rows) {
  const QAbstractItemView* view = rows;
  int width = rows->verticalHeader()->sizeHint().width() + 2 * rows->frameWidth() + 4;
  for (int c = 0; c < rows->columnCount(); ++c) {
    width += std::max(view->sizeHintForColumn(c), rows->horizontalHeader()->sectionSizeHint(c));
  }
  rows->setMinimumWidth(width);
  const int least = std::max(1, rows->property("minimumRows").toInt());
  const int shown = std::clamp(rows->rowCount(), least, kMaxRowsInView);
  rows->setFixedHeight(rows->horizontalHeader()->sizeHint().height() + shown * kRowHeight +
                       2 * rows->frameWidth());
}

/// A row table of `headers` (its first column stretched, fixed-height rows), at least
/// `minimumRows` tall (fitRows).
QTableWidget* rowTable(QWidget* parent, const char* name, const QStringList& headers,
                       const QString& tip, int minimumRows) {
  auto* rows = new QTableWidget(0, static_cast<int>(headers.size()), parent);
  rows->setObjectName(name);
  rows->setProperty("minimumRows", minimumRows);
  rows->setHorizontalHeaderLabels(headers);
  rows->setSelectionMode(QAbstractItemView::NoSelection);
  rows->setEditTriggers(QAbstractItemView::NoEditTriggers);
  rows->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  rows->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  rows->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  rows->verticalHeader()->setDefaultSectionSize(kRowHeight);
  rows->setToolTip(tip);
  fitRows(rows);
  return rows;
}

/// A titled box of a row table, its add button beside the rows.
QGroupBox* rowGroup(QWidget* parent, const QString& title, QTableWidget* rows, QPushButton* add) {
  auto* box = new QGroupBox(title, parent);
  auto* h = new QHBoxLayout(box);
  h->setContentsMargins(6, 2, 6, 2);
  h->addWidget(rows, 1);
  h->addWidget(add, 0, Qt::AlignTop);
  return box;
}

QToolButton* removeButton(QWidget* parent, const QString& text) {
  auto* remove = new QToolButton(parent);
  remove->setObjectName("remove");
  remove->setText("✕");
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

ParetoView::ParetoView(QWidget* parent) : QWidget(parent), m_background(new Background(this)) {
  auto* layout = new QVBoxLayout(this);
  auto* controls = new QVBoxLayout();
  controls->setSpacing(2);
  m_objectiveRows = rowTable(
      this, "paretoObjectives", {"metric", "direction", ""},
      "The objectives the frontier is computed over, one per row: the first is the x axis, the "
      "second the y axis; further objectives take part in dominance without an axis of their own",
      // Room for the two axes from the start: the plot keeps its size when a load chooses them
      // (a resized plot reallocates its paint buffers: 24-50 ms of a 10^5-candidate load).
      2);
  m_gateRows = rowTable(this, "paretoGates", {"gated metric", "test", "threshold", "value", ""},
                        "Quality and service gates, applied before the frontier: a candidate "
                        "failing one stays on the plot, struck through, with the gate it failed",
                        1);
  m_addObjective = new QPushButton("Add objective", this);
  m_addObjective->setObjectName("paretoAddObjective");
  m_addObjective->setToolTip("Add an objective row (the first metric not chosen yet)");
  m_addGate = new QPushButton("Add gate", this);
  m_addGate->setObjectName("paretoAddGate");
  m_addGate->setToolTip(
      "Add a gate row on the x-axis metric at the worst value a candidate has (it passes every "
      "candidate until you tighten it)");
  // Objectives above gates, each the tab's width (their metric pickers show whole names),
  // the add button beside the rows.
  controls->addWidget(rowGroup(this, "Objectives", m_objectiveRows, m_addObjective));
  controls->addWidget(rowGroup(this, "Gates", m_gateRows, m_addGate));
  m_colour = new QComboBox(this);
  m_colour->setObjectName("paretoColour");
  m_colour->setToolTip("A third objective shown as the colour of each point (quintiles)");
  m_colour->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_baseline = new QComboBox(this);
  m_baseline->setModel(new CandidateIdList("(none)", m_baseline));
  m_baseline->setObjectName("paretoBaseline");
  m_baseline->setToolTip(
      "The candidate that baseline-relative gates (threshold \"baseline +\") compare against");
  m_baseline->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_baseline->setMinimumContentsLength(20);
  layout->addLayout(controls);
  // The status line with the view's two pickers at its right (the rows above keep the width
  // their metric pickers need).
  auto* statusRow = new QHBoxLayout();
  m_status = new QLabel(this);
  m_status->setObjectName("paretoStatus");
  m_status->setWordWrap(true);
  statusRow->addWidget(m_status, 1);
  statusRow->addWidget(new QLabel("colour", this));
  statusRow->addWidget(m_colour);
  statusRow->addWidget(new QLabel("baseline", this));
  statusRow->addWidget(m_baseline);
  layout->addLayout(statusRow);
  m_plot = new ParetoPlot(this);
  layout->addWidget(m_plot, 1);
  // What a click on a point explains: its verdict and why, and its figures (the hover's text),
  // kept under the plot until another point is chosen.
  m_selection = new QLabel(this);
  m_selection->setObjectName("paretoSelection");
  m_selection->setWordWrap(true);
  m_selection->setTextFormat(Qt::RichText);
  m_selection->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_selection->hide();
  layout->addWidget(m_selection);
  // The Candidates tab: an item model under a sorting proxy, so that a large set's rows are
  // made only as they are drawn.
  m_model = new CandidatesModel(this);
  m_sorted = new QSortFilterProxyModel(this);
  m_sorted->setSourceModel(m_model);
  m_table = new QTableView();
  m_table->setObjectName("candidatesTable");
  m_table->setModel(m_sorted);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setSortingEnabled(true);
  // Input order until a header is clicked.
  m_table->sortByColumn(-1, Qt::AscendingOrder);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  // Columns as wide as the first 100 rows need (1,000 by default: 15 ms of a 10^5-candidate
  // load; 0, the rows in sight, measures every row while the tab is hidden).
  m_table->horizontalHeader()->setResizeContentsPrecision(100);
  // A click on a point selects its row; selecting a row rings its point.
  connect(m_plot, &ParetoPlot::candidateClicked, this, &ParetoView::selectCandidate);
  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    const auto rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty()) return;
    const QString id = candidateAt(rows.front().row());
    if (!id.isEmpty()) m_plot->highlight(id);
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

ParetoView::~ParetoView() {
  for (QObject* child : findChildren<QObject*>()) child->blockSignals(true);
}

QString ParetoView::statusText() const {
  settle();
  return m_status->text();
}

QString ParetoView::candidateAt(int row) const {
  settle();
  const QModelIndex at = m_sorted->index(row, CandidatesModel::IdColumn);
  return at.isValid() ? m_model->idAt(m_sorted->mapToSource(at).row()) : QString();
}

int ParetoView::rowOfCandidate(const QString& id) const {
  settle();
  const int source = m_model->rowOf(id);
  if (source < 0) return -1;
  return m_sorted->mapFromSource(m_model->index(source, CandidatesModel::IdColumn)).row();
}

void ParetoView::selectCandidate(const QString& id) {
  settle();
  if (const int row = rowOfCandidate(id); row >= 0) {
    m_table->selectRow(row);
    m_table->scrollTo(m_sorted->index(row, CandidatesModel::IdColumn));
  }
  m_plot->highlight(id);
  const QString text = m_plot->describe(id);
  m_selection->setText(text);
  m_selection->setVisible(!text.isEmpty());
}

void ParetoView::setCandidates(SharedCandidates cands) {
  loadCandidates(std::move(cands));
  ensureObjectives();
  recompute();
}

void ParetoView::setCandidates(std::vector<Candidate> cands) {
  setCandidates(std::make_shared<const std::vector<Candidate>>(std::move(cands)));
}

void ParetoView::setSelection(const std::vector<Objective>& objectives,
                              const std::vector<std::string>& gates) {
  applySelection(objectives, gates);
  ensureObjectives();
  recompute();
}

void ParetoView::setContents(SharedCandidates cands, const std::vector<Objective>& objectives,
                             const std::vector<std::string>& gates) {
  loadCandidates(std::move(cands));
  applySelection(objectives, gates);
  ensureObjectives();
  recompute();
}

void ParetoView::setContents(std::vector<Candidate> cands, const std::vector<Objective>& objectives,
                             const std::vector<std::string>& gates) {
  setContents(std::make_shared<const std::vector<Candidate>>(std::move(cands)), objectives, gates);
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
  // The list shows every name whole, however narrow the box.
  box->view()->setMinimumWidth(box->view()->sizeHintForColumn(0) + 24);
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
  fitRows(m_objectiveRows);
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
  fitRows(m_gateRows);
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
      fitRows(rows);
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
  for (const auto& c : *m_cands) {
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
  if (m_cands->empty() || !objectives().empty()) return;
  // Nothing the candidates carry is chosen: the defaults of their metric names (directions
  // known), first two, else the first two names.
  std::vector<Objective> defaults = defaultObjectives(metricNamesOf(*m_cands)).objectives;
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

void ParetoView::loadCandidates(SharedCandidates shared) {
  m_cands = shared ? std::move(shared) : std::make_shared<const std::vector<Candidate>>();
  const std::vector<Candidate>& cands = *m_cands;
  m_updating = true;
  const QString keepBase = m_baseline->currentData().toString();
  std::set<std::string> names;
  // Candidates of one set mostly carry the same metrics: a candidate whose names are its
  // predecessor's adds none (10^5 candidates' names were 10^5 set insertions each).
  const Candidate* previous = nullptr;
  for (const auto& c : cands) {
    const bool same = previous != nullptr &&
                      std::equal(c.metrics.begin(), c.metrics.end(), previous->metrics.begin(),
                                 previous->metrics.end(),
                                 [](const auto& a, const auto& b) { return a.first == b.first; });
    if (!same) {
      for (const auto& [name, v] : c.metrics) names.insert(name);
    }
    previous = &c;
  }
  m_metrics.assign(names.begin(), names.end());
  // Each row's metric picker (the first column of both) lists the new names, keeping its metric.
  static_assert(ObjectiveMetricColumn == 0 && GateMetricColumn == 0);
  for (QTableWidget* rows : {m_objectiveRows, m_gateRows}) {
    for (int r = 0; r < rows->rowCount(); ++r) {
      auto* box = qobject_cast<QComboBox*>(rows->cellWidget(r, 0));
      if (box) fillMetricBox(box, boxMetric(box));
    }
    fitRows(rows);
  }
  const QString keepColour = m_colour->currentData().toString();
  m_colour->clear();
  m_colour->addItem("(none)", QString());
  for (const auto& n : names) m_colour->addItem(qs(readableMetricName(n)), qs(n));
  // One model reset for every candidate (10^5 addItem calls took 177 ms), sharing them.
  auto* baselines = static_cast<CandidateIdList*>(m_baseline->model());
  baselines->setCandidates(m_cands);
  auto pick = [](QComboBox* box, const QString& v) {
    box->setCurrentIndex(std::max(0, box->findData(v)));
  };
  // Memory by default as the third objective, as a design review reads it.
  const int memory = m_colour->findData(QString("weights_gib"));
  pick(m_colour, keepColour.isEmpty() && memory >= 0 ? QString("weights_gib") : keepColour);
  m_baseline->setCurrentIndex(baselines->rowOf(keepBase));
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
  fitRows(m_gateRows);
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
    } else if (!m_cands->empty() && !std::binary_search(m_metrics.begin(), m_metrics.end(), m)) {
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
      if (const auto e = gateProblem(*g, *m_cands, baseline)) row.problem = qs(e->message);
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
  ++m_computation;
  m_plot->setDetailSource({});
  // What the last analysis leaves: let go here for a small set, on the worker for a large one
  // (10^5 candidates' verdicts, dominator lookup and table rows took 35-45 ms of a reload).
  struct Leftovers {
    std::optional<FrontierResult> result;
    std::shared_ptr<const FrontierAnalysis> analysis;
    std::unique_ptr<DominatorLookup> lookup;
    CandidatesModel::SharedRows rows;
  };
  auto leftovers = std::make_shared<Leftovers>(
      Leftovers{std::move(m_result), std::move(m_analysis), std::move(m_lookup), m_model->rows()});
  m_result.reset();  // a moved-from optional still holds a (moved-from) value
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
  if (query.objectives.empty() || m_cands->empty()) {
    m_status->setText(
        (m_cands->empty() ? QString("No candidates with metrics: open a session or import results.")
                          : QString("No objective: add one, with a metric the candidates carry.")) +
        notes);
    m_status->setStyleSheet(notes.isEmpty() ? "" : "color: #8a5a00;");
    fillTable();
    return;
  }
  // A large set is classified without dominator lists (O(n) each); a candidate's list is
  // read when its tooltip or hover text asks for it, worded as the eager lists are. It is
  // also analysed on the worker: the window keeps handling input while it runs.
  const bool lazy = m_cands->size() > kEagerDominatorsUpTo;
  query.withDominators = !lazy;
  const std::string colour = m_colour->currentData().toString().toStdString();
  if (!lazy) {
    showAnalysed(analyse(m_computation, m_cands, std::move(query), notes, colour));
    return;
  }
  m_status->setText(QString("Analysing %1 candidates…").arg(m_cands->size()));
  m_status->setStyleSheet("");
  m_model->reset(nullptr, nullptr, {});  // the rows come back with their verdicts
  m_background->run<Analysed>(
      Background::Lane::Pareto,
      [at = m_computation, cands = m_cands, query = std::move(query), notes, colour,
       leftovers = std::move(leftovers)](const std::atomic<bool>&) mutable {
        leftovers.reset();
        return analyse(at, std::move(cands), std::move(query), notes, colour);
      },
      [this](Analysed&& a) { showAnalysed(std::move(a)); });
}

ParetoView::Analysed ParetoView::analyse(std::uint64_t computation,
                                         std::shared_ptr<const std::vector<Candidate>> cands,
                                         FrontierQuery query, QString notes,
                                         const std::string& colourMetric) {
  Analysed a;
  a.computation = computation;
  a.cands = std::move(cands);
  a.notes = std::move(notes);
  try {
    auto analysis = analyseFrontier(*a.cands, query, "");
    if (!analysis) {
      a.error = qs(analysis.error().str());
      return a;
    }
    a.result = std::move(analysis->result);
    a.analysis = std::make_shared<const FrontierAnalysis>(std::move(*analysis));
    if (!query.withDominators) a.lookup = std::make_unique<DominatorLookup>(*a.cands, *a.analysis);
    a.bands = uncertainBands(*a.cands, *a.analysis);
    const auto& obj = a.result->objectives;
    if (!obj.empty()) {
      a.plot = ParetoPlot::prepare(*a.cands, a.analysis->verdicts, obj[0],
                                   obj.size() > 1 ? obj[1] : obj[0], colourMetric);
    }
    a.rows = CandidatesModel::prepareRows(a.cands);
  } catch (const std::exception& e) {
    a.result.reset();
    a.error = QString("the frontier could not be computed: %1").arg(e.what());
  }
  return a;
}

void ParetoView::showAnalysed(Analysed&& a) {
  if (a.computation != m_computation) return;  // a newer computation started since
  if (!a.error.isEmpty()) {
    m_status->setText(a.error + a.notes);
    m_status->setStyleSheet("color: #b00000;");
    fillTable();
    return;
  }
  const QString& notes = a.notes;
  m_result = std::move(a.result);
  m_analysis = std::move(a.analysis);
  m_lookup = std::move(a.lookup);
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
  for (const auto& w : m_analysis->warnings) text += "\nwarning: " + qs(w);
  text += notes;
  m_status->setStyleSheet(m_analysis->warnings.empty() && notes.isEmpty() ? "" : "color: #8a5a00;");
  m_status->setText(text);
  m_plot->setColourMetric(m_colour->currentData().toString().toStdString());
  m_plot->setUncertainBands(std::move(a.bands));
  m_plot->setDetailSource(detailSource());
  m_plot->setData(m_cands, {m_analysis, &m_analysis->verdicts}, obj[0],
                  obj.size() > 1 ? obj[1] : obj[0], std::move(a.plot));
  fillTable(std::move(a.rows));
  emit analysed();
}

void ParetoView::settle() const {
  m_background->wait(Background::Lane::Pareto);
}

const std::map<std::string, CandidateVerdict>& ParetoView::verdicts() const {
  settle();
  static const std::map<std::string, CandidateVerdict> kNone;
  return m_analysis ? m_analysis->verdicts : kNone;
}

CandidatesModel::DetailSource ParetoView::detailSource() const {
  if (!m_lookup) return {};
  DominatorLookup* lookup = m_lookup.get();
  return [lookup](const std::string& id) { return lookup->detail(id); };
}

void ParetoView::fillTable(CandidatesModel::SharedRows rows) {
  m_model->reset(m_cands.get(), m_analysis ? &m_analysis->verdicts : nullptr, detailSource(),
                 std::move(rows));
}

}  // namespace qf::ui
