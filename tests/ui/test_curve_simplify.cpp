// Dense curves drawn from the points worth drawing: the simplified polyline stays within the
// tolerance of every dropped point (in the plot's normalised log coordinates), keeps corners,
// and the hover read-out still comes from the engine's curve, not from the drawn vertices.
#include <catch2/catch.hpp>

#include <cmath>

#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/ui/plots.hpp>

#include "support/qt_app.hpp"

namespace {

/// Largest distance, in coordinates normalised to the curve's span (log where asked), of any
/// original point from the polyline through the kept ones.
double maxDeviation(const QVector<double>& x, const QVector<double>& y,
                    const std::vector<int>& kept, bool logX, bool logY) {
  auto tx = [&](double v) { return logX ? std::log(v) : v; };
  auto ty = [&](double v) { return logY ? std::log(v) : v; };
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
  for (int i = 0; i < x.size(); ++i) {
    x0 = std::min(x0, tx(x[i]));
    x1 = std::max(x1, tx(x[i]));
    y0 = std::min(y0, ty(y[i]));
    y1 = std::max(y1, ty(y[i]));
  }
  const double sx = x1 > x0 ? x1 - x0 : 1, sy = y1 > y0 ? y1 - y0 : 1;
  double worst = 0;
  for (std::size_t k = 0; k + 1 < kept.size(); ++k) {
    const int a = kept[k], b = kept[k + 1];
    const double ax = tx(x[a]) / sx, ay = ty(y[a]) / sy;
    const double dx = tx(x[b]) / sx - ax, dy = ty(y[b]) / sy - ay;
    const double len = std::hypot(dx, dy);
    for (int i = a + 1; i < b; ++i) {
      const double px = tx(x[i]) / sx - ax, py = ty(y[i]) / sy - ay;
      worst = std::max(worst, std::abs(px * dy - py * dx) / len);
    }
  }
  return worst;
}

}  // namespace

TEST_CASE("a straight line keeps its ends, a corner is kept", "[ui][curve]") {
  QVector<double> x, y;
  for (int i = 0; i < 1000; ++i) {
    x.push_back(i);
    y.push_back(3.0 * i + 2);
  }
  CHECK(qf::ui::simplifiedCurve(x, y, false, false) == std::vector<int>{0, 999});
  // Flat to index 500, then rising: exactly the two ends and the corner.
  for (int i = 0; i < 1000; ++i) y[i] = i <= 500 ? 1.0 : 1.0 + (i - 500) * 0.01;
  CHECK(qf::ui::simplifiedCurve(x, y, false, false) == std::vector<int>{0, 500, 999});
  // Two points or fewer are kept as they are.
  CHECK(qf::ui::simplifiedCurve({1, 2}, {3, 4}, true, true) == std::vector<int>{0, 1});
  CHECK(qf::ui::simplifiedCurve({}, {}, false, false).empty());
}

TEST_CASE("engine curves at 4,096 batches: few vertices, none off by more than the tolerance",
          "[ui][curve]") {
  qf::ScenarioSpec spec;
  spec.model = "llama-3.1-8b";
  spec.gpu = "h100-sxm";
  auto scenario = qf::resolveScenario(spec);
  REQUIRE(scenario.ok());
  std::vector<std::string> ids;
  for (const auto& s : qf::Catalog::bundled().schemes()) ids.push_back(s.id);
  auto cands = qf::makeCandidates(ids, "", "", "");
  REQUIRE(cands.ok());
  auto report = qf::runEngine(*scenario, *cands, qf::logBatches(1, 4096, 4096));
  REQUIRE(report.ok());
  for (const auto& s : report->schemes) {
    INFO(s.assignment.id);
    QVector<double> x, step, tokens;
    for (const auto& p : s.points) {
      x.push_back(p.batch);
      step.push_back(p.stepMs);
      tokens.push_back(p.tokensPerS);
    }
    REQUIRE(x.size() > 4000);
    const auto keptStep = qf::ui::simplifiedCurve(x, step, true, false);
    const auto keptTokens = qf::ui::simplifiedCurve(x, tokens, true, true);
    INFO("step-time vertices " << keptStep.size() << ", throughput vertices " << keptTokens.size());
    CHECK(keptStep.size() < static_cast<std::size_t>(x.size() / 10));
    CHECK(keptTokens.size() < static_cast<std::size_t>(x.size() / 10));
    CHECK(keptStep.front() == 0);
    CHECK(keptStep.back() == x.size() - 1);
    CHECK(maxDeviation(x, step, keptStep, true, false) <= 2e-4);
    CHECK(maxDeviation(x, tokens, keptTokens, true, true) <= 2e-4);
  }
}

TEST_CASE("the step-time read-out comes from the engine's curve", "[ui][curve]") {
  qf::testing::app();
  qf::ScenarioSpec spec;
  spec.model = "llama-3.1-8b";
  spec.gpu = "h100-sxm";
  auto scenario = qf::resolveScenario(spec);
  REQUIRE(scenario.ok());
  auto cands = qf::makeCandidates({"bf16", "w4a16-g128"}, "", "", "");
  REQUIRE(cands.ok());
  auto report = qf::runEngine(*scenario, *cands, qf::logBatches(1, 4096, 4096));
  REQUIRE(report.ok());
  qf::ui::StepTimePlot plot;
  plot.setReport(*report, 1, 4096);
  const double b = 77.7;  // between drawn vertices
  const QString text = plot.readoutAt(b);
  for (const auto& s : report->schemes) {
    const QString line = QString("%1: %2 ms")
                             .arg(QString::fromStdString(s.assignment.id))
                             .arg(s.curve.stepSeconds(b) * 1e3, 0, 'f', 3);
    CHECK(text.contains(line));
  }
}
