// Offscreen: the scenario panel coalesces a burst of spin-box ticks into one change, so the
// window recomputes once per burst, not once per tick.
#include <catch2/catch.hpp>

#include <QElapsedTimer>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QThread>

#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/scenario_panel.hpp>

#include "support/qt_app.hpp"

TEST_CASE("a burst of spin-box ticks is one scenario change", "[ui]") {
  qf::testing::app();
  qf::ui::ScenarioPanel panel;
  const auto boxes = panel.findChildren<QSpinBox*>();
  REQUIRE_FALSE(boxes.empty());
  QSpinBox* box = boxes.front();
  const int before = panel.changeCount();
  for (int i = 0; i < 20; ++i) box->stepBy(i % 2 == 0 ? 1 : -1);  // 20 ticks, no event loop
  CHECK(panel.changeCount() == before);                           // nothing emitted yet
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < 4 * qf::ui::ScenarioPanel::kCoalesceMs) {
    QCoreApplication::processEvents();
    QThread::msleep(5);
  }
  CHECK(panel.changeCount() == before + 1);
  // flushPendingChange emits at once, and only when something is pending.
  box->stepBy(1);
  panel.flushPendingChange();
  CHECK(panel.changeCount() == before + 2);
  panel.flushPendingChange();
  CHECK(panel.changeCount() == before + 2);
}

TEST_CASE("GUI tests keep settings and autosaves out of the user's folders", "[ui]") {
  qf::testing::app();
  const QString config = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation);
  const QString data = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
  CHECK(config.contains(".qttest"));
  CHECK(data.contains(".qttest"));
}

TEST_CASE("the datasheet toggle switches the model's constants and every title says which",
          "[ui][datasheet]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  auto spec = w.scenario();
  spec.datasheet = false;
  w.setScenario(spec);
  w.recompute();
  CHECK(w.windowTitle().contains("calibrated constants"));
  REQUIRE(w.report().has_value());
  const double calibrated = w.report()->schemes.front().points.front().stepMs;
  spec.datasheet = true;
  w.setScenario(spec);
  w.recompute();
  CHECK(w.windowTitle().contains("datasheet roofline"));
  const double ideal = w.report()->schemes.front().points.front().stepMs;
  // The bundled constants add a per-step overhead and lose bandwidth: slower than the ideal.
  CHECK(calibrated > ideal * 1.2);
  CHECK(w.scenario().datasheet);
}

TEST_CASE("prompt and output tokens add end-to-end figures to the Schemes table and the session",
          "[ui][e2e]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  auto spec = w.scenario();
  spec.inputLen = 2048;
  spec.outputLen = 128;
  w.setScenario(spec);
  w.recompute();
  REQUIRE(w.report().has_value());
  CHECK(w.report()->scenario.inputLen == 2048);
  auto* table = w.findChild<QTableWidget*>("schemesTable");
  REQUIRE(table != nullptr);
  REQUIRE(table->columnCount() == 13);
  CHECK(table->horizontalHeaderItem(10)->text() == "TTFT ms (B=1)");
  // Row 0's figures are core's prediction for one request of 2048 -> 128 tokens.
  const QString id = table->item(0, 0)->text();
  const qf::SchemeReport* sr = nullptr;
  for (const auto& s : w.report()->schemes) {
    if (QString::fromStdString(s.assignment.id) == id) sr = &s;
  }
  REQUIRE(sr != nullptr);
  const auto p = qf::predictStaticBatch(sr->curve, 1.0, 2048, 128);
  CHECK(table->item(0, 12)->data(Qt::DisplayRole).toDouble() ==
        Approx(p.e2eLatencyS).epsilon(1e-3));
  CHECK(p.e2eLatencyS == Approx(p.ttftMs / 1e3 + 127 * p.tpotMs / 1e3).epsilon(1e-9));
  // The lengths are part of the scenario the session saves and reads back.
  const auto text = qf::sessionToText(w.session());
  auto back = qf::parseSessionText(text, "s.json");
  REQUIRE(back.ok());
  CHECK(back->scenario.inputLen == 2048);
  CHECK(back->scenario.outputLen == 128);
  // Off again: the table has its ten columns.
  spec.inputLen = 0;
  w.setScenario(spec);
  w.recompute();
  CHECK(table->columnCount() == 10);
}
