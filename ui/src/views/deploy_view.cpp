// The Deploy tab (deploy_view.hpp): inputs, core's deployment search, the cost/latency
// frontier plot and table, and "Add as candidate".
#include <quantfront/ui/deploy_view.hpp>

#include <qcustomplot.h>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/cost.hpp>
#include <quantfront/core/session/deploy_candidate.hpp>
#include <quantfront/ui/background.hpp>
#include <quantfront/ui/plot_style.hpp>

#include "text.hpp"

namespace qf::ui {

namespace {

/// Three significant figures, without exponents for the sizes a deployment has.
QString fmt3(double v) {
  return std::isfinite(v) ? readableNumber(v) : "–";
}

/// One colour per GPU (the Okabe–Ito palette, then greys), in the order of the list.
QColor gpuColor(int index) {
  static const QColor kPalette[] = {
      QColor(0, 114, 178),   QColor(230, 159, 0),  QColor(0, 158, 115),  QColor(204, 121, 167),
      QColor(86, 180, 233),  QColor(213, 94, 0),   QColor(240, 228, 66), QColor(0, 0, 0),
      QColor(120, 120, 120), QColor(170, 170, 170)};
  return kPalette[static_cast<std::size_t>(index) % std::size(kPalette)];
}

/// One marker per scheme assignment, in order of first appearance.
QCPScatterStyle::ScatterShape schemeShape(int index) {
  static const QCPScatterStyle::ScatterShape kShapes[] = {
      QCPScatterStyle::ssDisc,        QCPScatterStyle::ssSquare,
      QCPScatterStyle::ssTriangle,    QCPScatterStyle::ssDiamond,
      QCPScatterStyle::ssCross,       QCPScatterStyle::ssPlus,
      QCPScatterStyle::ssStar,        QCPScatterStyle::ssTriangleInverted,
      QCPScatterStyle::ssCrossSquare, QCPScatterStyle::ssPlusCircle};
  return kShapes[static_cast<std::size_t>(index) % std::size(kShapes)];
}

double latencyOf(const DeployConfig& c, LatencyAxis axis) {
  return axis == LatencyAxis::Tpot ? c.tpotMs : c.ttftMs;
}

const IntervalEstimate& latencyInterval(const DeployIntervals& iv, LatencyAxis axis) {
  return axis == LatencyAxis::Tpot ? iv.tpotMs : iv.ttftMs;
}

/// "12.3 (11.0–13.9)": a figure and its interval, or the figure alone when the interval is
/// the value itself (no fit record).
QString withInterval(double v, const IntervalEstimate* iv) {
  if (!iv || !(iv->high > iv->low)) return fmt3(v);
  return QString("%1 (%2–%3)").arg(fmt3(v), fmt3(iv->low), fmt3(iv->high));
}

/// " on h100-sxm in w8a8-fp8": what sets a split deployment's prefill pool apart from its
/// decode pool (empty when only TP and replicas do).
QString prefillDiffers(const DeployConfig& c) {
  QString out;
  if (c.prefillGpu != c.gpu) out += " on " + qs(c.prefillGpu);
  if (c.prefillSchemeId() != c.schemeId()) out += " in " + qs(c.prefillSchemeId());
  return out;
}

/// "4 × 1" (TP × replicas), "8 × 1 (EP 8, DP attention)", or for split pools "decode 2 × 1,
/// prefill 4 × 1" (and the prefill pool's GPU and schemes where they differ).
QString layoutCell(const DeployConfig& c) {
  if (c.disaggregated()) {
    return QString("decode %1 × %2, prefill %3 × %4%5")
        .arg(c.tp)
        .arg(c.replicas)
        .arg(c.prefillTp)
        .arg(c.prefillReplicas)
        .arg(prefillDiffers(c));
  }
  if (c.layoutText().empty()) return QString("%1 × %2").arg(c.tp).arg(c.replicas);
  return QString("%1 × %2 (%3)").arg(c.tp).arg(c.replicas).arg(qs(c.layoutText()));
}

}  // namespace

DeployView::DeployView(QWidget* parent) : QWidget(parent), m_background(new Background(this)) {
  QWidget* inputs = buildInputs();
  auto* right = new QWidget(this);
  auto* rv = new QVBoxLayout(right);
  m_summary = new QLabel("Set the workload and targets, then Search.", right);
  m_summary->setWordWrap(true);
  m_plot = new QCustomPlot(right);
  applyPlotStyle(m_plot);
  m_plot->setMinimumHeight(180);
  fitAxisLabel(m_plot->yAxis,
               {"USD per million output tokens", "USD per M output tokens", "USD / M tokens"});
  fitAxisLabel(m_plot->xAxis, {"TPOT (ms)"});
  m_plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
  m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  // The legend beside the data, never over a point.
  auto* side = new QCPLayoutGrid;
  m_plot->plotLayout()->addElement(0, 1, side);
  side->addElement(0, 0, m_plot->legend);
  side->addElement(1, 0, new QCPLayoutElement(m_plot));  // the rest of the height, empty
  side->setRowStretchFactor(0, 0.001);
  side->setRowStretchFactor(1, 1.0);
  m_plot->plotLayout()->setColumnStretchFactor(1, 0.001);
  m_plot->legend->setVisible(false);
  m_plot->setMouseTracking(true);
  connect(m_plot, &QCustomPlot::mouseMove, this, &DeployView::onHover);
  m_table = new QTableWidget(right);
  m_table->setColumnCount(11);
  m_table->setHorizontalHeaderLabels({"GPU", "GPUs", "TP × replicas", "Schemes", "KV", "Batch cap",
                                      "TTFT ms", "TPOT ms", "Output tok/s", "USD / M tok",
                                      "Concurrency capped by"});
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->horizontalHeader()->setStretchLastSection(true);
  // How to launch the answer: the selected row's command (else the cheapest's) per engine.
  m_engine = new QComboBox(right);
  m_engine->addItem("vLLM", "vllm");
  m_engine->addItem("SGLang", "sglang");
  m_engine->addItem("TensorRT-LLM", "trtllm");
  m_engine->setToolTip("The serving engine to launch the deployment with");
  m_launch = new QLineEdit(right);
  m_launch->setReadOnly(true);
  m_launch->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_launchNotes = new QLabel(right);
  m_launchNotes->setWordWrap(true);
  m_launchNotes->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_copyLaunch = new QPushButton("Copy command", right);
  m_copyLaunch->setEnabled(false);
  m_copyLaunch->setToolTip("Copy the launch command to the clipboard");
  m_add = new QPushButton("Add as candidate", right);
  m_add->setEnabled(false);
  m_add->setToolTip("Add the selected deployment to the session's candidates");
  auto* split = new QSplitter(Qt::Vertical, right);
  split->addWidget(m_plot);
  split->addWidget(m_table);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  // Neither collapses: on a 720-pixel screen a long summary once left the table no height at
  // all, its rows out of sight until the splitter (a line at the bottom) was found and dragged.
  split->setChildrenCollapsible(false);
  m_table->setMinimumHeight(90);
  // The summary scrolls past five lines (cheapest, interval, ties, gates can run to eight), so
  // the plot and the table keep their room on a 720-pixel screen.
  auto* summary = new QScrollArea(right);
  summary->setObjectName("deploySummary");
  summary->setWidget(m_summary);
  summary->setWidgetResizable(true);
  summary->setFrameShape(QFrame::NoFrame);
  summary->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  summary->setMaximumHeight(5 * m_summary->fontMetrics().lineSpacing() + 6);
  rv->addWidget(summary);
  rv->addWidget(split, 1);
  auto* launchRow = new QHBoxLayout;
  launchRow->addWidget(new QLabel("Launch with", right));
  launchRow->addWidget(m_engine);
  launchRow->addWidget(m_launch, 1);
  launchRow->addWidget(m_copyLaunch);
  rv->addLayout(launchRow);
  rv->addWidget(m_launchNotes);
  rv->addWidget(m_add, 0, Qt::AlignRight);

  auto* h = new QHBoxLayout(this);
  // The inputs scroll: on a 720-pixel screen the column is taller than the tab, and its Search
  // button would otherwise fall below the window's edge (and hold the window taller).
  auto* scroll = new QScrollArea(this);
  scroll->setObjectName("deployInputs");
  scroll->setWidget(inputs);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  // As wide as the column (at most 360) and its scroll bar.
  scroll->setFixedWidth(inputs->maximumWidth() + scroll->verticalScrollBar()->sizeHint().width());
  h->addWidget(scroll);
  h->addWidget(right, 1);

  connect(m_useCase, &QComboBox::currentIndexChanged, this, &DeployView::onUseCase);
  connect(m_load, &QComboBox::currentIndexChanged, this,
          [this](int) { m_rate->setEnabled(m_load->currentData().toString() == "rate"); });
  connect(m_run, &QPushButton::clicked, this, &DeployView::startSearch);
  connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
    m_add->setEnabled(selectedCandidate().has_value());
    showLaunch();
  });
  connect(m_engine, &QComboBox::currentIndexChanged, this, [this](int) { showLaunch(); });
  showLaunch();
  connect(m_copyLaunch, &QPushButton::clicked, this, [this] {
    const auto lines = launchText().split('\n');
    if (!lines.isEmpty()) QGuiApplication::clipboard()->setText(lines.front());
  });
  connect(m_add, &QPushButton::clicked, this, [this] {
    if (auto c = selectedCandidate()) emit addCandidateRequested(*c);
  });
}

void DeployView::setModel(const ModelArch& model) {
  if (model.id == m_model.id && model.name == m_model.name) return;
  m_model = model;
  m_result.reset();
  m_status.clear();
  m_summary->setText(QString("Model %1: set the workload and targets, then Search.")
                         .arg(qs(model.name.empty() ? model.id : model.name)));
  draw();
  fillTable();
}

void DeployView::onUseCase(int index) {
  const QString id = m_useCase->itemData(index).toString();
  if (id.isEmpty()) return;
  auto u = findUseCase(id.toStdString());
  if (!u) return;
  m_inputLen->setValue(static_cast<int>(u->prefillTokens));
  m_outputLen->setValue(static_cast<int>(u->decodeTokens));
}

DeployOptions DeployView::options() const {
  DeployOptions o;
  const QString load = m_load->currentData().toString();
  o.load.kind = load == "sync"   ? DeployLoad::Kind::Sync
                : load == "rate" ? DeployLoad::Kind::Rate
                                 : DeployLoad::Kind::Max;
  o.load.requestsPerS = o.load.kind == DeployLoad::Kind::Rate ? m_rate->value() : 0;
  o.workload.inputTokens = m_inputLen->value();
  o.workload.outputTokens = m_outputLen->value();
  o.sloTtftMs = m_sloTtft->value();
  o.sloTpotMs = m_sloTpot->value();
  o.axis = m_axis->currentData().toString() == "ttft" ? LatencyAxis::Ttft : LatencyAxis::Tpot;
  return o;
}

struct DeployView::Request {
  DeploySpace space;
  DeployOptions options;
  LaunchSettings launch;
  QString refused;   ///< why nothing is searched (an input missing); empty: search
  QString gateNote;  ///< how the session's gates applied
};

struct DeployView::Outcome {
  Request request;
  std::optional<DeployResult> result;
  std::optional<FrontierIntervals> intervals;
  QString error;         ///< why the search failed; empty: it ran
  QString intervalNote;  ///< why there are no intervals, or what speculation priced
};

DeployView::Request DeployView::request() const {
  const Catalog& cat = Catalog::bundled();
  Request req;
  DeploySpace& sp = req.space;
  sp.model = m_model;
  sp.catalog = &cat;
  sp.maxGpus = m_maxGpus->value();
  sp.perKind = m_perKind->isChecked();
  sp.disaggregated = m_disaggregated->isChecked();
  // The box is about MoE layouts: a dense model's search ignores it.
  sp.twoBatchOverlap = m_twoBatchOverlap->isChecked() && m_model.isMoe();
  sp.kvDtypes.clear();
  if (m_kvBf16->isChecked()) sp.kvDtypes.push_back("bf16");
  if (m_kvFp8->isChecked()) sp.kvDtypes.push_back("fp8");
  for (int i = 0; i < m_gpus->count(); ++i) {
    const auto* item = m_gpus->item(i);
    if (item->checkState() != Qt::Checked) continue;
    if (auto g = cat.resolveGpu(item->data(Qt::UserRole).toString().toStdString())) {
      sp.gpus.push_back(*g);
    }
  }
  for (int i = 0; i < m_schemes->count(); ++i) {
    const auto* item = m_schemes->item(i);
    if (item->checkState() != Qt::Checked) continue;
    if (auto s = cat.scheme(item->text().toStdString())) sp.schemes.push_back(*s);
  }
  if (m_model.layers <= 0) req.refused = "no model: the scenario's model is needed";
  if (sp.gpus.empty()) req.refused = "no GPU is ticked";
  if (sp.schemes.empty()) req.refused = "no scheme is ticked";
  if (sp.kvDtypes.empty()) req.refused = "no KV dtype is ticked";
  if (!req.refused.isEmpty()) return req;
  if (m_specK->value() > 0) {
    Speculation spec;
    spec.draftTokens = m_specK->value();
    spec.acceptance = m_specAcceptance->value();
    sp.speculation = spec;
    const QString draft = m_specDraft->currentData().toString();
    if (!draft.isEmpty()) {
      if (auto d = cat.resolveModel(draft.toStdString())) {
        sp.draftModel = *d;
      } else {
        req.refused = "the draft model: " + qs(d.error().message);
        return req;
      }
    }
  }
  req.options = options();
  req.launch = launchSettingsFor(sp, req.options.workload);
  // The gate is read from the session here, on the GUI thread; it holds its own copy of the
  // passing schemes, so the worker never touches the session.
  if (m_applyGates->isChecked() && m_gateSource) {
    if (auto g = m_gateSource(m_model.id)) {
      req.options.gate = g->passes;
      QStringList pass;
      for (const auto& id : g->passingSchemes) pass << qs(id);
      req.gateNote = QString(" Gated by the session: schemes passing %1.")
                         .arg(pass.isEmpty() ? QString("none") : pass.join(", "));
    } else {
      req.gateNote = " Gates not applied: " + qs(g.error().message) + ".";
    }
  }
  return req;
}

DeployView::Outcome DeployView::run(const Request& req) {
  Outcome o;
  o.request = req;
  if (!req.refused.isEmpty()) return o;
  try {
    auto r = searchDeployments(req.space, req.options);
    if (!r) {
      o.error = qs(r.error().message);
      return o;
    }
    o.result = std::move(*r);
    if (const auto& spec = req.space.speculation) {
      o.intervalNote = QString(" Speculation: %4, k %1, acceptance %2, %3 tokens a step.")
                           .arg(spec->draftTokens)
                           .arg(fixedDecimals(spec->acceptance, 2))
                           .arg(fixedDecimals(expectedTokensPerStep(*spec), 2))
                           .arg(req.space.draftModel ? "draft model " + qs(req.space.draftModel->id)
                                                     : QString("MTP"));
    }
    // Under speculation the intervals rebuild the draft with the target's moved constants.
    if (auto iv = frontierIntervals(req.space, req.options, *o.result)) {
      o.intervals = std::move(*iv);
    } else {
      o.intervalNote += " No intervals: " + qs(iv.error().message) + ".";
    }
  } catch (const std::exception& e) {
    o.result.reset();
    o.error = QString("the search failed: %1").arg(e.what());
  }
  return o;
}

void DeployView::startSearch() {
  m_background->run<Outcome>(
      Background::Lane::Deploy, [req = request()](const std::atomic<bool>&) { return run(req); },
      [this](Outcome&& o) { showOutcome(std::move(o)); });
  m_summary->setText("Searching…");
}

bool DeployView::search() {
  startSearch();
  m_background->wait(Background::Lane::Deploy);
  return m_lastOk;
}

bool DeployView::searching() const {
  return m_background->busy(Background::Lane::Deploy);
}

void DeployView::showOutcome(Outcome&& o) {
  m_result = std::move(o.result);
  m_intervals = std::move(o.intervals);
  m_lastOptions = o.request.options;
  m_lastLaunch = o.request.launch;
  m_lastDraftId = o.request.space.draftModel ? o.request.space.draftModel->id : std::string();
  m_lastOk = false;
  if (!o.request.refused.isEmpty() || !o.error.isEmpty()) {
    m_status = "Not searched: " + (o.error.isEmpty() ? o.request.refused : o.error);
  } else if (!m_result->nothingFeasible.empty()) {
    m_status = QString("%1 configurations evaluated, none feasible: %2")
                   .arg(m_result->evaluated)
                   .arg(qs(m_result->nothingFeasible)) +
               o.request.gateNote;
  } else {
    const auto& b = *m_result->best;
    m_status = QString(
                   "%1 configurations evaluated, %2 feasible, %3 on the frontier. Cheapest: "
                   "%4 × %5, %6, KV %7, batch cap %8 — %9 USD per million output tokens at "
                   "TPOT %10 ms, TTFT %11 ms (%12, load %13).")
                   .arg(m_result->evaluated)
                   .arg(m_result->feasible)
                   .arg(m_result->frontier.size())
                   .arg(b.gpuCount)
                   .arg(qs(b.gpu) + (b.disaggregated() || !b.layoutText().empty()
                                         ? " (" + layoutCell(b) + ")"
                                         : QString()))
                   .arg(qs(b.schemeId()))
                   .arg(qs(b.kvDtype))
                   .arg(b.maxBatch)
                   .arg(fmt3(b.usdPerMillionOutputTokens))
                   .arg(fmt3(b.tpotMs))
                   .arg(fmt3(b.ttftMs))
                   .arg(QString("%1 → %2 tokens")
                            .arg(m_lastOptions.workload.inputTokens)
                            .arg(m_lastOptions.workload.outputTokens))
                   .arg(qs(deployLoadText(m_lastOptions.load)));
    m_status += tieText() + o.intervalNote + o.request.gateNote;
    m_lastOk = true;
  }
  m_summary->setText(m_status);
  draw();
  fillTable();
  showLaunch();
  emit searched(m_lastOk);
}

QString DeployView::launchText() const {
  if (!m_result || m_result->frontier.empty()) return {};
  const DeployConfig* c = m_result->best ? &*m_result->best : nullptr;
  const auto rows = m_table->selectionModel()->selectedRows();
  if (!rows.isEmpty()) {
    const int r = rows.front().row();
    if (r >= 0 && r < static_cast<int>(m_result->frontier.size()))
      c = &m_result->frontier[static_cast<std::size_t>(r)];
  }
  if (!c) return {};
  const std::string engine = m_engine->currentData().toString().toStdString();
  for (const auto& lc : launchCommands(*c, m_model, m_lastLaunch)) {
    if (lc.engine != engine) continue;
    QString text = qs(lc.command);
    for (const auto& n : lc.notes) text += "\n# " + qs(n);
    return text;
  }
  return {};
}

void DeployView::showLaunch() {
  QStringList lines = launchText().split('\n', Qt::SkipEmptyParts);
  const bool any = !lines.isEmpty();
  m_launch->setText(any ? lines.takeFirst() : QString());
  m_launch->setPlaceholderText("search to get a launch command");
  m_launch->setCursorPosition(0);
  m_launch->setToolTip(m_launch->text());   // the whole line, where the field is narrower
  for (QString& l : lines) l.remove(0, 2);  // the "# " of a note
  m_launchNotes->setText(lines.join('\n'));
  m_launchNotes->setVisible(!lines.isEmpty());
  m_copyLaunch->setEnabled(any);
}

QString DeployView::status() const {
  return m_status;
}

void DeployView::draw() {
  m_plot->clearPlottables();
  m_plot->clearItems();
  m_plot->legend->setVisible(false);
  const LatencyAxis axis = m_lastOptions.axis;
  const bool withBars =
      m_intervals &&
      std::any_of(m_intervals->frontier.begin(), m_intervals->frontier.end(),
                  [](const DeployIntervals& iv) {
                    return iv.usdPerMillionOutputTokens.high > iv.usdPerMillionOutputTokens.low;
                  });
  const QString latency = axis == LatencyAxis::Tpot ? "TPOT (ms)" : "TTFT (ms)";
  fitAxisLabel(m_plot->xAxis, withBars
                                  ? QStringList{latency + "  —  bars: 80% interval of each figure",
                                                latency + ", bars: 80% intervals", latency}
                                  : QStringList{latency});
  if (!m_result || m_result->frontier.empty()) {
    m_plot->replot();
    return;
  }
  const auto& f = m_result->frontier;
  // The frontier as a staircase, then one scatter per (GPU, scheme) so the legend names both.
  auto* line = m_plot->addGraph();
  line->setName("frontier");
  line->setPen(QPen(QColor(150, 150, 150), 1.2, Qt::DashLine));
  line->setLineStyle(QCPGraph::lsStepLeft);
  line->removeFromLegend();
  QVector<double> lx, ly;
  for (const auto& c : f) {
    lx.push_back(latencyOf(c, axis));
    ly.push_back(c.usdPerMillionOutputTokens);
  }
  line->setData(lx, ly, true);
  std::map<std::string, int> gpuIndex, schemeIndex;
  for (const auto& c : f) {
    gpuIndex.emplace(c.gpu, static_cast<int>(gpuIndex.size()));
    schemeIndex.emplace(c.schemeId(), static_cast<int>(schemeIndex.size()));
  }
  // Each (GPU, scheme) group's points by latency (a graph keeps its data sorted by key, and
  // its error bars follow that order), with their 80% intervals as error bars on both axes.
  // Split (disaggregated) deployments are their own groups, drawn hollow.
  using GroupKey = std::tuple<std::string, std::string, bool>;
  std::map<GroupKey, std::vector<std::size_t>> groups;
  std::vector<GroupKey> order;
  for (std::size_t i = 0; i < f.size(); ++i) {
    GroupKey key{f[i].gpu, f[i].schemeId(), f[i].disaggregated()};
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(i);
  }
  for (const auto& key : order) {
    auto& idx = groups[key];
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
      return latencyOf(f[a], axis) < latencyOf(f[b], axis);
    });
    auto* g = m_plot->addGraph();
    g->setLineStyle(QCPGraph::lsNone);
    const auto& [gpu, scheme, split] = key;
    const QColor col = gpuColor(gpuIndex[gpu]);
    g->setPen(QPen(col, 1.6));
    // A disc is always filled with its pen's colour: a split group's is drawn as a circle.
    QCPScatterStyle::ScatterShape shape = schemeShape(schemeIndex[scheme]);
    if (split && shape == QCPScatterStyle::ssDisc) shape = QCPScatterStyle::ssCircle;
    g->setScatterStyle(
        QCPScatterStyle(shape, QPen(col, 1.6), split ? QBrush(Qt::white) : QBrush(col), 9));
    g->setName(qs(gpu + ", " + scheme) + (split ? ", split pools" : ""));
    QVector<double> x, y, xLo, xHi, yLo, yHi;
    for (std::size_t i : idx) {
      const double lx0 = latencyOf(f[i], axis), ly0 = f[i].usdPerMillionOutputTokens;
      x.push_back(lx0);
      y.push_back(ly0);
      const DeployIntervals* iv = intervalsAt(static_cast<int>(i));
      const IntervalEstimate* li = iv ? &latencyInterval(*iv, axis) : nullptr;
      const IntervalEstimate* ci = iv ? &iv->usdPerMillionOutputTokens : nullptr;
      xLo.push_back(li ? std::max(0.0, lx0 - li->low) : 0.0);
      xHi.push_back(li ? std::max(0.0, li->high - lx0) : 0.0);
      yLo.push_back(ci ? std::max(0.0, ly0 - ci->low) : 0.0);
      yHi.push_back(ci ? std::max(0.0, ci->high - ly0) : 0.0);
    }
    g->setData(x, y, true);
    const bool anyInterval = std::any_of(yHi.begin(), yHi.end(), [](double v) { return v > 0; }) ||
                             std::any_of(xHi.begin(), xHi.end(), [](double v) { return v > 0; });
    if (!anyInterval) continue;
    for (auto type : {QCPErrorBars::etKeyError, QCPErrorBars::etValueError}) {
      auto* bars = new QCPErrorBars(m_plot->xAxis, m_plot->yAxis);
      bars->removeFromLegend();
      bars->setDataPlottable(g);
      bars->setErrorType(type);
      bars->setPen(QPen(col.lighter(130), 1.0));
      bars->setWhiskerWidth(5);
      if (type == QCPErrorBars::etKeyError) {
        bars->setData(xLo, xHi);
      } else {
        bars->setData(yLo, yHi);
      }
    }
  }
  // The cheapest feasible configuration, ringed.
  if (m_result->best) {
    auto* ring = m_plot->addGraph();
    ring->setLineStyle(QCPGraph::lsNone);
    ring->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 1.5), QBrush(Qt::NoBrush), 18));
    ring->setName("cheapest feasible");
    ring->addData(latencyOf(*m_result->best, axis), m_result->best->usdPerMillionOutputTokens);
  }
  m_plot->legend->setVisible(true);
  m_plot->rescaleAxes();
  auto widen = [](QCPAxis* a, bool logScale) {
    const QCPRange r = a->range();
    if (logScale) {
      a->setRange(r.lower / 1.3, r.upper * 1.3);
    } else {
      const double pad = std::max(r.size() * 0.08, std::abs(r.upper) * 0.05 + 1e-9);
      a->setRange(std::max(0.0, r.lower - pad), r.upper + pad);
    }
  };
  widen(m_plot->xAxis, false);
  widen(m_plot->yAxis, true);
  m_plot->replot();
}

void DeployView::fillTable() {
  m_table->clearContents();
  const int rows = m_result ? static_cast<int>(m_result->frontier.size()) : 0;
  m_table->setRowCount(rows);
  for (int r = 0; r < rows; ++r) {
    const auto& c = m_result->frontier[static_cast<std::size_t>(r)];
    const DeployIntervals* iv = intervalsAt(r);
    const QStringList cells = {
        qs(c.gpu),
        QString::number(c.gpuCount),
        layoutCell(c),
        qs(c.schemeId()),
        qs(c.kvDtype),
        QString::number(c.maxBatch),
        withInterval(c.ttftMs, iv ? &iv->ttftMs : nullptr),
        withInterval(c.tpotMs, iv ? &iv->tpotMs : nullptr),
        withInterval(c.outputTokS, iv ? &iv->outputTokS : nullptr),
        withInterval(c.usdPerMillionOutputTokens, iv ? &iv->usdPerMillionOutputTokens : nullptr),
        qs(c.bindingLimit)};
    for (int k = 0; k < cells.size(); ++k) {
      auto* item = new QTableWidgetItem(cells[k]);
      if (k >= 5 && k <= 9) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      m_table->setItem(r, k, item);
    }
  }
  m_table->resizeColumnsToContents();
  m_add->setEnabled(false);
}

void DeployView::selectRow(int row) {
  m_table->selectRow(row);
}

std::optional<Candidate> DeployView::selectedCandidate() const {
  if (!m_result) return std::nullopt;
  const auto rows = m_table->selectionModel()->selectedRows();
  if (rows.isEmpty()) return std::nullopt;
  const int r = rows.front().row();
  if (r < 0 || r >= static_cast<int>(m_result->frontier.size())) return std::nullopt;
  return candidateFromDeployment(m_result->frontier[static_cast<std::size_t>(r)], m_model.id,
                                 m_lastOptions, m_lastLaunch.speculation, m_lastDraftId);
}

QString DeployView::hoverText(int i) const {
  if (!m_result || i < 0 || i >= static_cast<int>(m_result->frontier.size())) return {};
  const auto& c = m_result->frontier[static_cast<std::size_t>(i)];
  const DeployIntervals* iv = intervalsAt(i);
  QString text = QString(
                     "%1 × %2 (TP %3 × %4 replicas%14)\nschemes: %5\nKV cache: %6, batch cap %7\n"
                     "TTFT %8 ms, TPOT %9 ms\noutput %10 tok/s\n%11 USD per million output tokens "
                     "(%12 USD/h)\nconcurrency capped by %13")
                     .arg(c.gpuCount)
                     .arg(qs(c.gpu))
                     .arg(c.tp)
                     .arg(c.replicas)
                     .arg(qs(c.schemeId()))
                     .arg(qs(c.kvDtype))
                     .arg(c.maxBatch)
                     .arg(withInterval(c.ttftMs, iv ? &iv->ttftMs : nullptr))
                     .arg(withInterval(c.tpotMs, iv ? &iv->tpotMs : nullptr))
                     .arg(withInterval(c.outputTokS, iv ? &iv->outputTokS : nullptr))
                     .arg(withInterval(c.usdPerMillionOutputTokens,
                                       iv ? &iv->usdPerMillionOutputTokens : nullptr))
                     .arg(fmt3(c.pricePerHourUsd))
                     .arg(qs(c.bindingLimit))
                     .arg(c.layoutText().empty() ? QString() : "; " + qs(c.layoutText()));
  if (c.disaggregated()) {
    // The first line names both pools, and what moving the KV between them costs.
    const QString pools = QString(
                              "%1 × %2: decode pool TP %3 × %4 replicas, prefill pool TP "
                              "%5 × %6 replicas%8\nKV moved to the decode pool in %7 ms a "
                              "request")
                              .arg(c.gpuCount)
                              .arg(qs(c.gpu))
                              .arg(c.tp)
                              .arg(c.replicas)
                              .arg(c.prefillTp)
                              .arg(c.prefillReplicas)
                              .arg(fmt3(c.kvTransferMs))
                              .arg(prefillDiffers(c));
    text = pools + text.mid(text.indexOf('\n'));
  }
  auto spread = [](const IntervalEstimate& e) { return e.high > e.low; };
  if (iv && (spread(iv->ttftMs) || spread(iv->tpotMs) || spread(iv->outputTokS) ||
             spread(iv->usdPerMillionOutputTokens))) {
    text += QString("\n(80% intervals from the constants' spread)");
  }
  if (m_intervals && m_intervals->best) {
    const auto& ties = m_intervals->bestTies;
    const auto at = static_cast<std::size_t>(i);
    if (at == *m_intervals->best && !ties.empty()) {
      text += "\ncheapest, but a tie within the constants' spread";
    } else if (std::find(ties.begin(), ties.end(), at) != ties.end()) {
      text += "\nties with the cheapest within the constants' spread";
    }
  }
  return text;
}

const DeployIntervals* DeployView::intervalsAt(int i) const {
  if (!m_intervals || i < 0 || i >= static_cast<int>(m_intervals->frontier.size())) return nullptr;
  return &m_intervals->frontier[static_cast<std::size_t>(i)];
}

QString DeployView::tieText() const {
  if (!m_result || !m_intervals || !m_intervals->best) return {};
  const auto& iv = m_intervals->frontier[*m_intervals->best].usdPerMillionOutputTokens;
  QString out;
  if (iv.high > iv.low) {
    out = QString(" 80% interval of its cost: %1–%2 USD.").arg(fmt3(iv.low), fmt3(iv.high));
  }
  const auto& ties = m_intervals->bestTies;
  if (ties.empty()) return out;
  QStringList names;
  for (std::size_t t : ties) {
    const auto& c = m_result->frontier[t];
    // The table's row number and what tells the rows apart: KV dtype and batch cap.
    names << QString("row %1 (%2 × %3 %4, KV %5, batch cap %6)")
                 .arg(t + 1)
                 .arg(c.gpuCount)
                 .arg(qs(c.gpu), qs(c.schemeId()), qs(c.kvDtype))
                 .arg(c.maxBatch);
  }
  return out + QString(
                   " A tie, not a recommendation: within the constants' spread it costs "
                   "the same as %1.")
                   .arg(names.join(", "));
}

void DeployView::onHover(QMouseEvent* event) {
  if (!m_result || m_result->frontier.empty()) return;
  const QPointF pos = event->position();
  int best = -1;
  double bestD = 12.0;
  for (std::size_t i = 0; i < m_result->frontier.size(); ++i) {
    const auto& c = m_result->frontier[i];
    const double px = m_plot->xAxis->coordToPixel(latencyOf(c, m_lastOptions.axis));
    const double py = m_plot->yAxis->coordToPixel(c.usdPerMillionOutputTokens);
    const double d = std::hypot(px - pos.x(), py - pos.y());
    if (d < bestD) {
      bestD = d;
      best = static_cast<int>(i);
    }
  }
  if (best < 0) {
    QToolTip::hideText();
    return;
  }
  QToolTip::showText(m_plot->mapToGlobal(pos.toPoint()), hoverText(best), m_plot);
}

}  // namespace qf::ui
