// Offscreen: the scenario panel coalesces a burst of spin-box ticks into one change, so the
// window recomputes once per burst, not once per tick.
#include <catch2/catch.hpp>

#include <QElapsedTimer>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QThread>

#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/plots.hpp>
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
  // The title says where the constants come from, not only that they are calibrated.
  CHECK(w.windowTitle().contains("bundled constants fitted to"));
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
  spec.batchAt = 0;  // without "My batch": the scheme's own columns from column 1
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

namespace {
/// The Schemes table's column headed `header`, -1 when none.
int columnOf(const QTableWidget* table, const QString& header) {
  for (int c = 0; c < table->columnCount(); ++c) {
    if (table->horizontalHeaderItem(c)->text() == header) return c;
  }
  return -1;
}
}  // namespace

TEST_CASE("the batch run at marks every batch plot and gives each scheme's figures there",
          "[ui][batch]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  auto spec = w.scenario();
  // The window opens with the question asked: the example runs at B = 32 ("My batch" off
  // by default had left the answer unasked), where every scheme's weights and KV fit.
  CHECK(spec.batchAt == 32);
  CHECK(w.stepTimePlot()->markedBatch() == 32);
  spec.batchAt = 0;
  w.setScenario(spec);
  CHECK(w.stepTimePlot()->markedBatch() == 0);
  spec.batchAt = 64;
  w.setScenario(spec);
  w.recompute();
  REQUIRE(w.report().has_value());
  CHECK(w.stepTimePlot()->markedBatch() == 64);
  CHECK(w.throughputPlot()->markedBatch() == 64);
  // The marker is a labelled vertical line on both plots.
  for (QCustomPlot* plot : {static_cast<QCustomPlot*>(w.stepTimePlot()),
                            static_cast<QCustomPlot*>(w.throughputPlot())}) {
    int lines = 0, labels = 0;
    for (int i = 0; i < plot->itemCount(); ++i) {
      if (plot->item(i)->property("qf_role").toString() == "batch-marker") ++lines;
      if (auto* t = qobject_cast<QCPItemText*>(plot->item(i)); t && t->text() == "B = 64") {
        ++labels;
      }
    }
    CHECK(lines == 1);
    CHECK(labels == 1);
  }
  auto* table = w.findChild<QTableWidget*>("schemesTable");
  REQUIRE(table != nullptr);
  const int step = columnOf(table, "step ms at B=64");
  const int rate = columnOf(table, "tok/s at B=64");
  const int fits = columnOf(table, "fits at B=64?");
  REQUIRE(step >= 0);
  REQUIRE(rate >= 0);
  REQUIRE(fits >= 0);
  // The answer at the user's batch comes right after the scheme, not past a horizontal scroll.
  CHECK(step == 1);
  CHECK(rate == 2);
  CHECK(fits == 3);
  // "floor" meant two things: the table's column is the weights' stream without t0, and says so.
  const int memory = columnOf(table, "memory ms (B=1, no t0)");
  REQUIRE(memory >= 0);
  CHECK(table->horizontalHeaderItem(memory)->toolTip().contains("plus t0"));
  const auto& sc = w.report()->scenario;
  const double gib = 1024.0 * 1024.0 * 1024.0;
  for (int r = 0; r < table->rowCount(); ++r) {
    const QString id = table->item(r, 0)->text();
    const qf::SchemeReport* sr = nullptr;
    for (const auto& s : w.report()->schemes) {
      if (QString::fromStdString(s.assignment.id) == id) sr = &s;
    }
    REQUIRE(sr != nullptr);
    INFO(id.toStdString());
    // Core's curve at B = 64, as the table rounds it.
    const double stepS = sr->curve.stepSeconds(64);
    CHECK(table->item(r, step)->data(Qt::DisplayRole).toDouble() ==
          Approx(stepS * 1e3).margin(5e-4));
    CHECK(table->item(r, rate)->data(Qt::DisplayRole).toDouble() == Approx(64 / stepS).margin(0.5));
    // Weights plus 64 sequences' KV at the max model length (no context set) within the budget.
    const double kv =
        64 *
        sc.model.kvBytesPerSequence(sc.kvBytesPerElement, static_cast<double>(sc.maxModelLen)) /
        sc.tp / gib;
    const bool expected = sr->capacity.weightsGib + kv <= sr->capacity.budgetGib;
    CHECK(table->item(r, fits)->text() == (expected ? "yes" : "no"));
  }
  // "fits?" agrees with core's KV capacity: yes at max seqs, no one sequence beyond.
  const qf::SchemeReport& first = w.report()->schemes.front();
  const auto maxSeqs = static_cast<double>(first.capacity.maxSeqs);
  REQUIRE(maxSeqs >= 1);
  CHECK(qf::ui::schemeAtBatch(sc, first, maxSeqs).fits);
  CHECK_FALSE(qf::ui::schemeAtBatch(sc, first, maxSeqs + 1).fits);
  // Saved in the session's scenario and read back.
  auto back = qf::parseSessionText(qf::sessionToText(w.session()), "s.json");
  REQUIRE(back.ok());
  CHECK(back->scenario.batchAt == 64);
  // A batch the reader refuses is refused by validate too, naming the field.
  qf::Session bad = w.session();
  bad.scenario.batchAt = -1;
  const auto err = qf::validate(bad);
  REQUIRE(err.has_value());
  CHECK(err->field == "at");
  // Off again: no marker and the table without the three columns.
  spec.batchAt = 0;
  w.setScenario(spec);
  w.recompute();
  CHECK(w.stepTimePlot()->markedBatch() == 0);
  CHECK(columnOf(table, "step ms at B=64") < 0);
}
