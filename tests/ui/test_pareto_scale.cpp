// The Pareto view with thousands of candidates: the classes are still core's, every point is
// drawn (a crowd from a pre-rendered symbol), the names offered to the label layout are
// capped with the frontier's first, interval bars stay on the frontier and uncertain points,
// and hover finds any candidate.
#include <catch2/catch.hpp>

#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <random>

#include <quantfront/core/analysis/frontier_analysis.hpp>
#include <quantfront/ui/pareto_view.hpp>

#include "support/qt_app.hpp"

namespace {

qf::MetricValue value(double v, double half) {
  qf::MetricValue m;
  m.value = v;
  m.provenance.kind = qf::ProvenanceKind::Measured;
  m.provenance.sourceFile = "synthetic.json";
  if (half > 0) {
    m.lo = v - half;
    m.hi = v + half;
  }
  return m;
}

std::vector<qf::Candidate> crowd(int n) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<qf::Candidate> out;
  for (int i = 0; i < n; ++i) {
    qf::Candidate c;
    c.id = "c" + std::to_string(i);
    c.model = "llama-3.1-8b";
    c.schemeLinear = "bf16";
    c.gpu = "h100-sxm";
    const double mem = 4 + 12 * u(rng);
    c.metrics["score"] = value(0.7 + 0.01 * mem - 0.02 * u(rng), i % 10 == 0 ? 0.004 : 0);
    c.metrics["tpot_ms"] = value(6 + 0.6 * mem + 2 * u(rng), i % 10 == 0 ? 0.1 : 0);
    c.metrics["weights_gib"] = value(mem, 0);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

TEST_CASE("5,000 candidates: core's classes, every point drawn, capped names",
          "[ui][pareto][scale]") {
  qf::testing::app();
  const auto cands = crowd(5000);
  const std::vector<qf::Objective> objectives = {{"score", qf::Direction::Max},
                                                 {"tpot_ms", qf::Direction::Min}};
  qf::ui::ParetoView view;
  view.resize(1500, 920);
  view.setContents(cands, objectives, {});
  qf::FrontierQuery q;
  q.objectives = objectives;
  const auto core = qf::analyseFrontier(cands, q, "");
  REQUIRE(core.ok());
  const auto counts = view.plot()->classCounts();
  CHECK(counts[0] == static_cast<int>(core->result.frontier.size()));
  CHECK(counts[1] == static_cast<int>(core->result.uncertain.size()));
  CHECK(counts[2] == static_cast<int>(core->result.dominated.size()));
  CHECK(counts[0] + counts[1] + counts[2] + counts[3] == 5000);

  int pixmapGraphs = 0, shapeGraphs = 0, drawn = 0;
  for (int i = 0; i < view.plot()->graphCount(); ++i) {
    const QCPGraph* g = view.plot()->graph(i);
    if (g->name() == "dominated") {
      CHECK(g->scatterStyle().shape() == QCPScatterStyle::ssPixmap);
      drawn += g->data()->size();
    }
    if (g->name() == "frontier") {
      CHECK(g->scatterStyle().shape() != QCPScatterStyle::ssPixmap);
      drawn += g->data()->size();
    }
    if (g->name() == "uncertain (within uncertainty)") drawn += g->data()->size();
    (g->scatterStyle().shape() == QCPScatterStyle::ssPixmap ? pixmapGraphs : shapeGraphs) += 1;
  }
  CHECK(drawn == counts[0] + counts[1] + counts[2]);
  CHECK(pixmapGraphs >= 1);

  // Names: at most kMaxLabels offered, the frontier's among them.
  const int offered = view.plot()->labels().count();
  CHECK(offered == std::min<int>(qf::ui::ParetoPlot::kMaxLabels, 5000));
  CHECK(offered >= counts[0]);

  // Interval bars: on the frontier and uncertain graphs, not on the 4,000-odd dominated ones.
  int barsOnDominated = 0, barsOnFront = 0;
  for (int i = 0; i < view.plot()->plottableCount(); ++i) {
    const auto* bars = qobject_cast<QCPErrorBars*>(view.plot()->plottable(i));
    if (!bars || !bars->dataPlottable()) continue;
    const QString owner = bars->dataPlottable()->name();
    if (owner == "dominated") ++barsOnDominated;
    if (owner == "frontier") ++barsOnFront;
  }
  CHECK(barsOnDominated == 0);
  CHECK(barsOnFront == 2);

  // Hover text for the last candidate (found by id, whatever its position).
  CHECK(view.plot()->describe("c4999").contains("c4999"));
  CHECK(view.plot()->describe("nope").isEmpty());
}

TEST_CASE("above the eager limit the table and hover word dominators as core lists them",
          "[ui][pareto][scale]") {
  qf::testing::app();
  const int n = static_cast<int>(qf::ui::ParetoView::kEagerDominatorsUpTo) + 1000;
  const auto cands = crowd(n);
  const std::vector<qf::Objective> objectives = {{"score", qf::Direction::Max},
                                                 {"tpot_ms", qf::Direction::Min}};
  qf::ui::ParetoView view;
  view.resize(1500, 920);
  view.setContents(cands, objectives, {});
  // The eager lists, from core over the same candidates.
  qf::FrontierQuery q;
  q.objectives = objectives;
  const auto core = qf::analyseFrontier(cands, q, "");
  REQUIRE(core.ok());
  REQUIRE(core->result.dominated.size() > 1000);
  REQUIRE_FALSE(core->result.uncertain.empty());
  // The view classified without lists: its verdicts leave a dominated candidate unworded.
  const std::string someDominated = core->result.dominated[7].id;
  REQUIRE_FALSE(core->verdicts.at(someDominated).detail.empty());
  CHECK(view.verdicts().at(someDominated).detail.empty());

  // Every row: one per candidate, and the status tooltip of dominated and uncertain rows is
  // the eager detail, word for word.
  const QAbstractItemModel* model = view.table()->model();
  REQUIRE(model->rowCount() == n);
  // Input order until a header is clicked.
  CHECK(view.candidateAt(0) == "c0");
  CHECK(view.candidateAt(n - 1) == QString("c%1").arg(n - 1));
  int checked = 0;
  for (int row = 0; row < model->rowCount(); row += 7) {
    const std::string id = view.candidateAt(row).toStdString();
    const auto& v = core->verdicts.at(id);
    if (v.verdict != qf::Verdict::Dominated && v.verdict != qf::Verdict::Uncertain) continue;
    CHECK(model->index(row, 1).data(Qt::ToolTipRole).toString().toStdString() == v.detail);
    ++checked;
  }
  CHECK(checked > 500);
  // The hover text of a dominated point names its dominators as the eager lists do.
  const QString hover = view.plot()->describe(QString::fromStdString(someDominated));
  CHECK(hover.contains(
      QString::fromStdString(core->verdicts.at(someDominated).detail).left(60).toHtmlEscaped()));

  // Sorting by a metric column sorts numerically, and a selected row names its candidate.
  const int tpotColumn = [&] {
    for (int c = 0; c < model->columnCount(); ++c) {
      if (model->headerData(c, Qt::Horizontal).toString() == "tpot_ms") return c;
    }
    return -1;
  }();
  REQUIRE(tpotColumn >= 0);
  view.table()->sortByColumn(tpotColumn, Qt::AscendingOrder);
  double best = 1e9;
  for (const auto& c : cands) best = std::min(best, c.metrics.at("tpot_ms").value);
  CHECK(model->index(0, tpotColumn).data().toDouble() == best);
  CHECK(model->index(0, tpotColumn).data().toDouble() <=
        model->index(1, tpotColumn).data().toDouble());
  view.selectCandidate("c123");
  const auto rows = view.table()->selectionModel()->selectedRows();
  REQUIRE(rows.size() == 1);
  CHECK(view.candidateAt(rows.front().row()) == "c123");
  CHECK(view.rowOfCandidate("c123") == rows.front().row());
}

TEST_CASE("above the eager limit the frontier is analysed off the GUI thread, newest first",
          "[ui][pareto][scale][background]") {
  qf::testing::app();
  const int n = static_cast<int>(qf::ui::ParetoView::kEagerDominatorsUpTo) + 1000;
  const auto cands = crowd(n);
  const std::vector<qf::Objective> scoreTpot = {{"score", qf::Direction::Max},
                                                {"tpot_ms", qf::Direction::Min}};
  qf::ui::ParetoView view;
  view.resize(1500, 920);
  QSignalSpy analysed(&view, &qf::ui::ParetoView::analysed);
  view.setContents(cands, scoreTpot, {});
  // setContents returned before the analysis ended: no rows, no points, nothing shown yet
  // (the table and the plot do not wait; the result's accessors do).
  CHECK(analysed.count() == 0);
  CHECK(view.table()->model()->rowCount() == 0);
  CHECK(view.plot()->classCounts()[2] == 0);
  // An edit before it is shown: the first analysis is dropped, the second shown once.
  view.setSelection({{"tpot_ms", qf::Direction::Min}, {"score", qf::Direction::Max}}, {});
  REQUIRE(QTest::qWaitFor([&] { return analysed.count() >= 1; }, 60000));
  QTest::qWait(300);
  CHECK(analysed.count() == 1);
  REQUIRE(view.result().has_value());
  REQUIRE(view.result()->objectives.size() == 2);
  CHECK(view.result()->objectives[0].metric == "tpot_ms");
  CHECK(view.table()->model()->rowCount() == n);
  // The classes are core's, for the newer objectives.
  qf::FrontierQuery q;
  q.objectives = {{"tpot_ms", qf::Direction::Min}, {"score", qf::Direction::Max}};
  const auto core = qf::analyseFrontier(cands, q, "");
  REQUIRE(core.ok());
  CHECK(view.result()->frontier.size() == core->result.frontier.size());
  CHECK(view.result()->dominated.size() == core->result.dominated.size());
  CHECK(view.plot()->classCounts()[0] == static_cast<int>(core->result.frontier.size()));
  // New candidates while one runs: the accessors wait, then read the newest.
  view.setCandidates(crowd(n + 10));
  CHECK(view.verdicts().size() == static_cast<std::size_t>(n + 10));
  CHECK(view.statusText().contains("on the frontier"));
}
