// Offscreen: the uncertain band drawn from core's staircases as a translucent area behind the
// points, enclosing the frontier candidates' intervals; none without intervals.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/frontier_analysis.hpp>
#include <quantfront/ui/pareto_view.hpp>

#include "support/qt_app.hpp"

using qf::ui::ParetoView;

namespace {

/// Inside the closed polygon (on an edge counts, within `eps`).
bool inside(const QCPCurve* curve, double x, double y, double eps = 1e-9) {
  std::vector<QPointF> p;
  for (auto it = curve->data()->constBegin(); it != curve->data()->constEnd(); ++it) {
    p.emplace_back(it->key, it->value);
  }
  bool in = false;
  for (std::size_t i = 0, j = p.size() - 1; i < p.size(); j = i++) {
    const QPointF a = p[j], b = p[i];
    // On the edge a-b (the band's edges are horizontal or vertical steps).
    if (std::min(a.x(), b.x()) - eps <= x && x <= std::max(a.x(), b.x()) + eps &&
        std::min(a.y(), b.y()) - eps <= y && y <= std::max(a.y(), b.y()) + eps &&
        std::abs((b.x() - a.x()) * (y - a.y()) - (b.y() - a.y()) * (x - a.x())) <= eps) {
      return true;
    }
    if ((a.y() > y) != (b.y() > y) && x < (b.x() - a.x()) * (y - a.y()) / (b.y() - a.y()) + a.x()) {
      in = !in;
    }
  }
  return in;
}

qf::Candidate banded(std::string id, std::array<double, 3> score, std::array<double, 3> ms) {
  qf::Candidate c;
  c.id = std::move(id);
  for (const auto& [name, v] : {std::pair{"score", score}, std::pair{"tpot_ms", ms}}) {
    qf::MetricValue& m = c.metrics[name];
    m.value = v[0];
    m.lo = v[1];
    m.hi = v[2];
  }
  return c;
}

}  // namespace

TEST_CASE("the uncertain band is drawn from core's staircases, behind the points",
          "[ui][pareto][band]") {
  qf::testing::app();
  // a, b on the frontier; c dominated by a on estimates but not clearly; d clearly dominated.
  const std::vector<qf::Candidate> cands = {
      banded("a", {0.80, 0.78, 0.82}, {50, 48, 52}), banded("b", {0.70, 0.68, 0.72}, {30, 29, 31}),
      banded("c", {0.79, 0.75, 0.83}, {51, 47, 53}), banded("d", {0.60, 0.59, 0.61}, {60, 59, 61})};
  const std::vector<qf::Objective> objectives = {{"score", qf::Direction::Max},
                                                 {"tpot_ms", qf::Direction::Min}};
  ParetoView view;
  view.setContents(cands, objectives, {});
  REQUIRE(view.result());
  CHECK(view.result()->uncertain == std::vector<std::string>{"c"});
  const auto& curves = view.plot()->bandCurves();
  REQUIRE(curves.size() == 1);
  const QCPCurve* band = curves.front();
  // Named in the legend, with what it means on a second line.
  CHECK(band->name() == qf::ui::kUncertainBandName);
  CHECK(band->name().startsWith("uncertain band (intervals: 95% measured, 80% modelled)\n"));
  CHECK(band->name().contains("not clearly dominated"));
  CHECK(view.plot()->legend->hasItemWithPlottable(band));
  CHECK(band->brush().color().alpha() < 255);  // translucent

  // Its outline is core's polygon.
  qf::FrontierQuery q;
  q.objectives = objectives;
  const auto analysis = qf::analyseFrontier(cands, q, "");
  REQUIRE(analysis.ok());
  const auto core = qf::uncertainBands(cands, *analysis);
  REQUIRE(core.size() == 1);
  REQUIRE(band->dataCount() == static_cast<int>(core[0].polygon.size()));
  for (int i = 0; i < band->dataCount(); ++i) {
    CHECK(band->data()->at(i)->key == core[0].polygon[static_cast<std::size_t>(i)][0]);
    CHECK(band->data()->at(i)->value == core[0].polygon[static_cast<std::size_t>(i)][1]);
  }
  // It encloses each frontier candidate's intervals (every corner of its interval box) and the
  // uncertain candidate's estimate; the clearly dominated d lies outside.
  for (const auto& id : view.result()->frontier) {
    const auto& c = *std::find_if(cands.begin(), cands.end(),
                                  [&](const qf::Candidate& k) { return k.id == id; });
    const auto& s = c.metrics.at("score");
    const auto& t = c.metrics.at("tpot_ms");
    INFO(id);
    for (double sx : {*s.lo, s.value, *s.hi}) {
      for (double ty : {*t.lo, t.value, *t.hi}) CHECK(inside(band, sx, ty));
    }
  }
  // Each frontier point carries its own interval bars (they go by the graph's x order).
  const QCPGraph* front = view.plot()->graph(0);
  REQUIRE(front->name() == "frontier");
  int barSets = 0;
  for (int i = 0; i < view.plot()->plottableCount(); ++i) {
    auto* bars = qobject_cast<QCPErrorBars*>(view.plot()->plottable(i));
    if (!bars || bars->dataPlottable() != front) continue;
    ++barSets;
    REQUIRE(bars->dataCount() == front->dataCount());
    for (int k = 0; k < front->dataCount(); ++k) {
      const double score = front->data()->at(k)->key;
      const auto& c = *std::find_if(cands.begin(), cands.end(), [&](const qf::Candidate& d) {
        return d.metrics.at("score").value == score;
      });
      const auto& m =
          c.metrics.at(bars->errorType() == QCPErrorBars::etKeyError ? "score" : "tpot_ms");
      INFO(c.id);
      CHECK(bars->data()->at(k).errorMinus == Approx(m.value - *m.lo));
      CHECK(bars->data()->at(k).errorPlus == Approx(*m.hi - m.value));
    }
  }
  CHECK(barSets == 2);
  CHECK(inside(band, 0.79, 51));
  CHECK_FALSE(inside(band, 0.60, 60));
  CHECK_FALSE(inside(band, 0.61, 59));
  // Behind the points: drawn before every graph of the same layer.
  const auto children = band->layer()->children();
  const auto bandAt = children.indexOf(const_cast<QCPCurve*>(band));
  for (int g = 0; g < view.plot()->graphCount(); ++g) {
    CHECK(children.indexOf(view.plot()->graph(g)) > bandAt);
  }

  // Without intervals: no band, no legend entry.
  auto bare = cands;
  for (auto& c : bare) {
    for (auto& [name, m] : c.metrics) m.lo = m.hi = std::nullopt;
  }
  view.setCandidates(bare);
  REQUIRE(view.result());
  CHECK(view.plot()->bandCurves().empty());
  for (int i = 0; i < view.plot()->legend->itemCount(); ++i) {
    auto* item = qobject_cast<QCPPlottableLegendItem*>(view.plot()->legend->item(i));
    if (item) CHECK(item->plottable()->name() != qf::ui::kUncertainBandName);
  }
}
