// Offscreen: the scenario panel coalesces a burst of spin-box ticks into one change, so the
// window recomputes once per burst, not once per tick.
#include <catch2/catch.hpp>

#include <QElapsedTimer>
#include <QSpinBox>
#include <QStandardPaths>
#include <QThread>

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
