// The Serving tab in the window: a request-rate sweep imported and attached per model shows
// one curve per candidate with core's figures; it exports as a plot and feeds the review
// report; a session without runs draws the serving model's curves for the scenario's schemes
// and says what to import.
#include <catch2/catch.hpp>

#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QTemporaryDir>
#include <QUndoStack>
#include <set>

#include <quantfront/core/session/serving.hpp>
#include <quantfront/ui/evidence_view.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/serving_plot.hpp>

#include "support/qt_app.hpp"

namespace {

QStringList sweepFiles() {
  const QDir dir(QString(QF_TEST_DATA_DIR) + "/import/sweep");
  QStringList out;
  for (const QString& f : dir.entryList({"vllm_serve_*.json"}, QDir::Files, QDir::Name)) {
    out << dir.filePath(f);
  }
  return out;
}

/// Empties `w`'s session, shows the Serving tab, imports the 18-file sweep and attaches it
/// (one candidate per checkpoint). Returns how many runs the Evidence tab had selected.
int importSweepOnServingTab(qf::ui::MainWindow& w) {
  qf::Session empty;
  empty.scenario = w.session().scenario;
  w.setSession(empty, QString());
  w.showTab("serving");
  const QStringList files = sweepFiles();
  if (w.importFiles(files).size() != files.size()) return -1;
  auto* ev = w.evidenceView();
  QStringList names;
  for (const QString& f : files) names << QFileInfo(f).fileName();
  ev->selectRuns(names);
  const auto selected = static_cast<int>(ev->selectedDigests().size());
  w.attachRuns(qf::ui::AttachRequest{ev->selectedDigests(), std::nullopt, {}});
  return selected;
}

}  // namespace

TEST_CASE("an imported sweep per candidate on the Serving tab", "[ui][serving]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  {
    // Before any import: the serving model's curves for the scenario's schemes, as core
    // computes them, and a note saying what to import to draw measurements beside them.
    qf::Session empty;
    empty.scenario = w.session().scenario;
    w.setSession(empty, QString());
    w.showTab("serving");
    CHECK(w.currentTabKey() == "serving");
    CHECK(w.servingPlot()->emptyText().isEmpty());
    std::string workload;
    const qf::ServingSweeps modelled = qf::scenarioServing(empty, &workload);
    REQUIRE(modelled.groups.size() == empty.scenario.schemes.size());
    for (const auto& g : modelled.groups) {
      INFO(g.key);
      const QString key = QString::fromStdString(g.key);
      auto* tpot = w.servingPlot()->modelledCurve(key, qf::ui::ServingPlot::Panel::Tpot, false);
      REQUIRE(tpot != nullptr);
      CHECK(tpot->dataCount() == static_cast<int>(g.modelled.front().points.size()));
      CHECK(w.servingPlot()->modelledCurve(key, qf::ui::ServingPlot::Panel::Tpot, true) != nullptr);
    }
    CHECK(w.servingPlot()->candidateCount() == 0);  // nothing measured
    auto* notesLabel = w.findChild<QLabel*>("servingNotes");
    REQUIRE(notesLabel != nullptr);
    const QString notes = notesLabel->text();
    CHECK(notes.contains("no serving runs imported"));
    CHECK(notes.contains(QString::fromStdString(workload)));
  }
  REQUIRE(sweepFiles().size() == 18);
  REQUIRE(importSweepOnServingTab(w) == 18);
  REQUIRE(w.session().candidates.size() == 3);

  w.showTab("step");
  w.showTab("serving");
  const qf::ServingSweeps core = qf::servingSweeps(w.session());
  REQUIRE(core.groups.size() == 3);
  CHECK(w.servingPlot()->emptyText().isEmpty());
  CHECK(w.servingPlot()->candidateCount() == 3);
  for (const auto& g : core.groups) {
    INFO(g.key);
    CHECK(g.groupedBy == "candidate");
    REQUIRE(g.points.size() == 6);
    auto* tok = w.servingPlot()->series(QString::fromStdString(g.key),
                                        qf::ui::ServingPlot::Series::OutputThroughput);
    REQUIRE(tok != nullptr);
    REQUIRE(tok->data()->size() == 6);
    // Lowest rate first; the plot's first point is the file's own throughput at 1 req/s.
    CHECK(g.points.front().load.value == 1.0);
    CHECK(tok->data()->at(0)->value == *g.points.front().outputThroughputTokS);
  }

  // A goodput SLO set on the tab: each run's goodput from its records, as core computes it.
  auto* ttft = w.findChild<QDoubleSpinBox*>("sloTtft");
  auto* tpot = w.findChild<QDoubleSpinBox*>("sloTpot");
  REQUIRE(ttft != nullptr);
  REQUIRE(tpot != nullptr);
  ttft->setValue(40);
  tpot->setValue(8);
  qf::ServingOptions slo;
  slo.slo.ttftS = 0.040;
  slo.slo.tpotS = 0.008;
  const qf::ServingSweeps withSlo = qf::servingSweeps(w.session(), slo);
  for (const auto& g : withSlo.groups) {
    INFO(g.key);
    auto* good = w.servingPlot()->series(QString::fromStdString(g.key),
                                         qf::ui::ServingPlot::Series::Goodput);
    REQUIRE(good != nullptr);
    REQUIRE(good->data()->size() == 6);
    REQUIRE(g.points.front().goodputFromSlo);
    CHECK(good->data()->at(0)->value == *g.points.front().goodputReqS);
  }
  // The synthetic FP8 run at 1 req/s meets both objectives with every request (TTFT ≤ 29 ms,
  // TPOT ≤ 6.3 ms by construction): goodput equals its request throughput. The bf16 run at
  // the infinite rate queues every request (TTFT around 70 ms): none meets the TTFT limit.
  for (const auto& g : withSlo.groups) {
    if (g.key.find("FP8") != std::string::npos) {
      CHECK(*g.points.front().goodputReqS == Approx(*g.points.front().requestThroughputReqS));
    }
    if (g.scheme == "bf16") CHECK(*g.points.back().goodputReqS == 0);
  }

  QTemporaryDir dir;
  const QString png = dir.filePath("serving.png");
  REQUIRE(w.exportView("serving", png, 1200, 900).isEmpty());
  QImage img(png);
  REQUIRE(!img.isNull());
  std::set<QRgb> colours;
  for (int y = 0; y < img.height(); y += 4) {
    for (int x = 0; x < img.width(); x += 4) colours.insert(img.pixel(x, y));
  }
  CHECK(colours.size() > 20);

  // The review report draws the same sweeps on its serving page.
  int pages = 0;
  const QString pdf = dir.filePath("report.pdf");
  REQUIRE(w.exportReviewReport(pdf, &pages).isEmpty());
  CHECK(pages >= 8);
  CHECK(w.servingSweeps().groups.size() == 3);
  CHECK(w.servingSweeps().runsUsed == 18);
}

TEST_CASE("the Serving tab in sight follows the document, and hidden is drawn when shown",
          "[ui][serving][document]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  REQUIRE(importSweepOnServingTab(w) == 18);
  REQUIRE(w.session().candidates.size() == 3);
  // Attached while the tab is in sight: drawn at once, without leaving the tab.
  CHECK(w.servingPlot()->candidateCount() == 3);
  // Hidden: a removal waits until the tab is shown again (its bootstraps are not redone for
  // a tab nobody looks at), then the tab shows it.
  w.showTab("step");
  const QString gone = QString::fromStdString(w.session().candidates.front().id);
  const auto curve = [&] {
    return w.servingPlot()->series(gone, qf::ui::ServingPlot::Series::OutputThroughput);
  };
  REQUIRE(curve() != nullptr);
  REQUIRE(w.setCandidateHidden(gone, true).isEmpty());
  CHECK(curve() != nullptr);
  w.showTab("serving");
  CHECK(curve() == nullptr);
  // Undo, in sight: its curve is back at once.
  w.undoStack()->undo();
  CHECK(curve() != nullptr);
}
