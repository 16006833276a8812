// Every table of the window keeps Qt's item-model contract while the window refills it:
// QAbstractItemModelTester (fatal mode) watches each table's model through a scenario change,
// an import, an attach, a gate edit and a new session.
#include <catch2/catch.hpp>

#include <QAbstractItemModelTester>
#include <QTableWidget>
#include <memory>

#include <quantfront/ui/evidence_view.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/pareto_view.hpp>
#include <quantfront/ui/scenario_panel.hpp>

#include "support/qt_app.hpp"

TEST_CASE("every table model passes QAbstractItemModelTester through edits", "[ui][models]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  const auto tables = w.findChildren<QTableWidget*>();
  // Schemes, crossovers, candidates, runs, a candidate's metrics, objective and gate rows.
  REQUIRE(tables.size() >= 7);
  std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
  for (QTableWidget* t : tables) {
    testers.push_back(std::make_unique<QAbstractItemModelTester>(
        t->model(), QAbstractItemModelTester::FailureReportingMode::Fatal));
  }

  auto spec = w.scenario();
  spec.gpu = "a100-80gb";
  spec.schemes = {"bf16", "w8a8-int8", "w4a16-g128", "w8a16"};
  w.editScenario(spec);
  CHECK(w.schemesTable()->rowCount() == 4);

  const QString e2e = QString(QF_TEST_DATA_DIR) + "/import/e2e";
  const QStringList files = {e2e + "/vllm_serve_fp8.json", e2e + "/lm_eval_results_fp8.json"};
  REQUIRE(w.importFiles(files).size() == 2);
  auto* ev = w.evidenceView();
  ev->selectRuns({"vllm_serve_fp8.json", "lm_eval_results_fp8.json"});
  w.attachRuns(qf::ui::AttachRequest{ev->selectedDigests(), QString("fp8-imported"), {}});
  ev->showCandidate("fp8-imported");
  CHECK(ev->metricsTable()->rowCount() > 10);

  w.paretoView()->addGate();
  w.paretoView()->addObjective();
  w.showTab("candidates");
  w.paretoView()->table()->sortByColumn(0, Qt::AscendingOrder);
  w.setUnsavedPrompt([] { return qf::ui::UnsavedChoice::Discard; });
  CHECK(w.newSession());
  CHECK(w.evidenceView()->runsTable()->rowCount() == 0);
}
