// Offscreen: the scenario panel coalesces a burst of spin-box ticks into one change, so the
// window recomputes once per burst, not once per tick.
#include <catch2/catch.hpp>

#include <QElapsedTimer>
#include <QSpinBox>
#include <QStandardPaths>
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
