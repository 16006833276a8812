// Offscreen: the Pareto plot's hover names every metric with its interval and provenance, and
// a click on a point selects its row in the Candidates table and back.
#include <catch2/catch.hpp>

#include <QLabel>

#include <QComboBox>
#include <QItemSelectionModel>
#include <QTableWidget>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/metric_dictionary.hpp>
#include <quantfront/core/base/resources.hpp>
#include <quantfront/core/session/session.hpp>
#include <quantfront/ui/pareto_view.hpp>

#include "support/example_session.hpp"
#include "support/qt_app.hpp"

TEST_CASE("Pareto hover describes a candidate: click and table selection stay in sync", "[ui]") {
  qf::testing::app();
  const qf::Session session = qf::testing::exampleSession();
  qf::ui::ParetoView view;
  view.resize(1200, 800);
  view.show();
  view.setContents(session.candidates, session.view.objectives, session.view.gates);
  view.plot()->replot(QCustomPlot::rpImmediateRefresh);
  REQUIRE(view.result());
  const std::string frontId = view.result()->frontier.front();
  const QString id = QString::fromStdString(frontId);

  // The point of that candidate, found at its own pixel position.
  const auto& objs = view.result()->objectives;
  const auto cand = std::find_if(session.candidates.begin(), session.candidates.end(),
                                 [&](const qf::Candidate& c) { return c.id == frontId; });
  REQUIRE(cand != session.candidates.end());
  const double px = view.plot()->xAxis->coordToPixel(cand->metrics.at(objs[0].metric).value);
  const double py = view.plot()->yAxis->coordToPixel(cand->metrics.at(objs[1].metric).value);
  CHECK(view.plot()->candidateAt(QPointF(px + 3, py - 2)) == id);
  CHECK(view.plot()->candidateAt(QPointF(px + 200, py + 200)) != id);

  // Hover text: the verdict first, then the plotted objectives, then the other metrics by
  // their readable names up to a limit (the rest counted), each with its provenance kind.
  const QString hover = view.plot()->describe(id);
  INFO(hover.toStdString());
  CHECK(hover.contains(id));
  CHECK(hover.indexOf("<b>frontier</b>") > hover.indexOf(id));
  int listed = 0;
  for (const auto& [name, m] : cand->metrics) {
    const auto info = qf::lookupMetric(name);
    INFO(name);
    const bool in =
        hover.contains(QString::fromStdString(info ? info->readable : name).toHtmlEscaped());
    const bool objective = name == objs[0].metric || name == objs[1].metric;
    if (objective) CHECK(in);
    listed += in ? 1 : 0;
  }
  const int all = static_cast<int>(cand->metrics.size());
  // The two objectives, a colour metric when one is shown, and kHoverMetrics others.
  const int cap = qf::ui::ParetoPlot::kHoverMetrics + 2;
  CHECK(listed >= std::min(all, cap));
  CHECK(listed <= std::min(all, cap + 1));
  if (all > cap + 1) CHECK(hover.contains("more metric(s): the Candidates tab lists them"));
  CHECK((hover.contains("published") || hover.contains("modelled") || hover.contains("measured")));

  // A click selects the row; selecting another row moves the selection (and the ring).
  emit view.plot()->candidateClicked(id);
  auto selectedId = [&] {
    const auto rows = view.table()->selectionModel()->selectedRows();
    return rows.isEmpty() ? QString() : view.candidateAt(rows.front().row());
  };
  CHECK(selectedId() == id);
  // And explains it under the plot: the verdict and the figures the hover gives.
  const auto* explained = view.findChild<QLabel*>("paretoSelection");
  REQUIRE(explained);
  CHECK(explained->isVisibleTo(&view));
  CHECK(explained->text() == hover);
  const QString other = QString::fromStdString(session.candidates.back().id);
  view.selectCandidate(other);
  CHECK(selectedId() == other);
}

TEST_CASE("a third objective colours the Pareto points, memory by default", "[ui]") {
  qf::testing::app();
  const qf::Session session = qf::testing::exampleSession();
  qf::ui::ParetoView view;
  view.setContents(session.candidates, session.view.objectives, session.view.gates);
  // Every drawn candidate has modelled weights_gib: all of them get a colour.
  int drawn = 0;
  for (const int n : view.plot()->classCounts()) drawn += n;
  REQUIRE(drawn > 0);
  CHECK(view.plot()->colouredPointCount() == drawn);
  QStringList legend;
  for (int i = 0; i < view.plot()->graphCount(); ++i) legend << view.plot()->graph(i)->name();
  // Quintile ranges in the legend, under the metric's readable name.
  CHECK(legend.filter(QString::fromStdString(qf::readableMetricName("weights_gib"))).size() >= 2);
  auto* colour = view.findChild<QComboBox*>("paretoColour");
  REQUIRE(colour);
  colour->setCurrentIndex(colour->findData(QString()));  // (none)
  CHECK(view.plot()->colouredPointCount() == 0);
}
