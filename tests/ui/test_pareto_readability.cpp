// Offscreen: the Pareto view reads at a glance: the legend beside the data, never over it;
// metric pickers wide enough for a readable name and unit; a hover in readable names and
// units at three significant digits; colour bins whose labels differ.
#include <catch2/catch.hpp>

#include <QApplication>
#include <QComboBox>
#include <QLineEdit>
#include <QRegularExpression>
#include <QTableWidget>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/metric_dictionary.hpp>
#include <quantfront/core/base/resources.hpp>
#include <quantfront/core/session/session.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/pareto_view.hpp>
#include <quantfront/ui/plot_style.hpp>

#include "support/example_session.hpp"
#include "support/qt_app.hpp"

namespace {

/// The two ends of a colour bin's label ("a – b"), or one value twice.
std::pair<QString, QString> ends(const QString& label) {
  const QStringList parts = label.split(" – ");
  return {parts.front(), parts.back()};
}

}  // namespace

TEST_CASE("the Pareto legend lies outside the axes, on screen and in print", "[ui][pareto]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  qf::ui::ParetoPlot* plot = w.paretoView()->plot();
  REQUIRE(plot->legend->itemCount() >= 3);
  CHECK(plot->legend->layout() != plot->axisRect()->insetLayout());
  for (const QSize size : {QSize(1000, 600), QSize(qf::ui::kPrintLayoutWidth, 425)}) {
    INFO(size.width() << "x" << size.height());
    const qf::ui::PrintTheme theme(plot);
    plot->setViewport(QRect(QPoint(0, 0), size));
    plot->replot(QCustomPlot::rpImmediateRefresh);
    const QRect legend = plot->legend->outerRect();
    CHECK(legend.height() > 0);
    CHECK_FALSE(legend.intersects(plot->axisRect()->rect()));
    CHECK(QRect(QPoint(0, 0), size).contains(legend));
    // The axes keep most of the plot.
    CHECK(plot->axisRect()->rect().width() > size.width() / 2);
  }
}

TEST_CASE("metric pickers show the whole readable name and unit", "[ui][pareto]") {
  qf::testing::app();
  const qf::Session session = qf::testing::exampleSession();
  // The Pareto tab at the width it has in the window's default size (1500 px, less the
  // scenario panel).
  qf::ui::ParetoView view;
  view.resize(1100, 800);
  view.show();
  // The longest names the example session's metrics have.
  const std::string longest = "queries_per_usd_instruction_following";
  view.setContents(session.candidates,
                   {{longest, qf::Direction::Max}, {"step_ms_b1", qf::Direction::Min}},
                   {"open_llm_v2_recovery_pct >= 97"});
  auto* colour = view.findChild<QComboBox*>("paretoColour");
  REQUIRE(colour != nullptr);
  colour->setCurrentIndex(colour->findData(QString::fromStdString(longest)));
  // Posted layout requests only: the window system's events would leave the offscreen
  // platform's input device to crash the test process at exit.
  QCoreApplication::sendPostedEvents();
  for (auto* rows : view.findChildren<QTableWidget*>()) {
    rows->doItemsLayout();  // the cell widgets' geometry, which a timer would set
  }
  // The rows' metric pickers (column 0 of both row tables).
  QList<QComboBox*> boxes;
  for (const char* name : {"paretoObjectives", "paretoGates"}) {
    const auto* rows = view.findChild<QTableWidget*>(name);
    REQUIRE(rows != nullptr);
    for (int r = 0; r < rows->rowCount(); ++r) {
      boxes << qobject_cast<QComboBox*>(rows->cellWidget(r, 0));
    }
  }
  REQUIRE(boxes.size() == 3);
  bool sawLongest = false;
  for (QComboBox* box : boxes + QList<QComboBox*>{colour}) {
    const QString text = box->currentText();
    INFO(text.toStdString());
    const std::string raw = box->currentData().toString().toStdString();
    CHECK(text.toStdString() == qf::readableMetricName(raw));
    sawLongest |= raw == longest;
    // The space the text is drawn in holds it whole.
    const int room = box->lineEdit() ? box->lineEdit()->width() : box->width() - 30;
    CHECK(room >= box->fontMetrics().horizontalAdvance(text));
  }
  CHECK(sawLongest);
  CHECK(qf::readableMetricName(longest).find("(") != std::string::npos);  // a unit shown
}

TEST_CASE("the Pareto hover names metrics readably, with units, to three digits", "[ui][pareto]") {
  qf::testing::app();
  qf::Candidate c;
  c.id = "a";
  c.model = "m";
  qf::MetricValue tpot;
  tpot.value = 12.3456;
  tpot.lo = 11.98765;
  tpot.hi = 13.4567;
  c.metrics["tpot_p99_ms"] = tpot;
  qf::MetricValue score;
  score.value = 0.734219;
  c.metrics["gsm8k_exact_match"] = score;
  qf::ui::ParetoView view;
  view.setContents(
      {c}, {{"gsm8k_exact_match", qf::Direction::Max}, {"tpot_p99_ms", qf::Direction::Min}}, {});
  const QString hover = view.plot()->describe("a");
  INFO(hover.toStdString());
  const auto tpotInfo = qf::lookupMetric("tpot_p99_ms");
  REQUIRE(tpotInfo);
  CHECK(hover.contains(
      QString::fromStdString(tpotInfo->readable + ": 12.3 " + tpotInfo->unit + " [12, 13.5]")));
  const auto scoreInfo = qf::lookupMetric("gsm8k_exact_match");
  REQUIRE(scoreInfo);
  CHECK(hover.contains(QString::fromStdString(scoreInfo->readable) + ": 0.734"));
  // No snake_case keys, no six-digit values.
  CHECK_FALSE(hover.contains("tpot_p99_ms"));
  CHECK_FALSE(hover.contains("gsm8k_exact_match"));
  CHECK_FALSE(hover.contains("12.3456"));
  CHECK_FALSE(hover.contains("0.734219"));
}

TEST_CASE("colour bin labels differ where their values do", "[ui][pareto]") {
  // Bins one part in ten thousand apart, one of them a single value.
  const std::vector<std::pair<double, double>> ranges = {
      {3.85601, 3.85612}, {3.85617, 3.85699}, {3.9, 4.2}, {5.0, 5.0}};
  const QStringList labels = qf::ui::colourBinLabels(ranges);
  REQUIRE(labels.size() == 4);
  for (int i = 0; i < labels.size(); ++i) {
    INFO(labels.join(" | ").toStdString());
    const auto [lo, hi] = ends(labels[i]);
    const auto& r = ranges[static_cast<std::size_t>(i)];
    CHECK((lo == hi) == (r.first == r.second));
    if (i + 1 < labels.size()) CHECK(hi != ends(labels[i + 1]).first);
    // Each end reads as its value, to the digits shown.
    CHECK(lo.toDouble() == Approx(r.first).epsilon(1e-4));
    CHECK(hi.toDouble() == Approx(r.second).epsilon(1e-4));
  }
  // At least three significant digits where fewer would do.
  CHECK(qf::ui::colourBinLabels({{1.0, 2.0}}).front() == "1 – 2");
  CHECK(qf::ui::colourBinLabels({{1.23456, 2.5}}).front() == "1.23 – 2.5");

  // The example session's colour legend: every bin's two ends differ.
  qf::testing::app();
  qf::ui::MainWindow w;
  const auto* plot = w.paretoView()->plot();
  REQUIRE(plot->colouredPointCount() > 0);
  const QString name = QString::fromStdString(qf::readableMetricName("weights_gib"));
  int bins = 0;
  for (int i = 0; i < plot->graphCount(); ++i) {
    const QString g = plot->graph(i)->name();
    if (!g.startsWith(name + " ")) continue;
    ++bins;
    const auto [lo, hi] = ends(g.mid(name.size() + 1));
    if (g.contains(" – ")) CHECK(lo != hi);
  }
  CHECK(bins >= 2);
}
