// What the window says about an import agrees with core and with `qfront import`: the import
// summary counts and lists core's warnings (FileImport::warnings), the Evidence tab shows the
// same ones per run with a status, a vLLM throughput run says what it holds, and a run whose
// requests all failed is shown as failed — no 0 tok/s point, no measured 0 on its candidate.
#include <catch2/catch.hpp>

#include <QFileInfo>
#include <QTableWidget>

#include <quantfront/core/session/import_session.hpp>
#include <quantfront/ui/evidence_view.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/serving_plot.hpp>

#include "support/drop_files.hpp"
#include "support/qt_app.hpp"

namespace {

const QString kImport = QString(QF_TEST_DATA_DIR) + "/import";
const QString kFailed = kImport + "/vllm_serve_all_failed_8.json";
const QString kThroughput = kImport + "/vllm_throughput.json";
const QString kServe = kImport + "/e2e/vllm_serve_bf16.json";

// Evidence runs table columns.
constexpr int kFileCol = 0, kStatusCol = 5, kWhatCol = 6;

int rowOf(const QTableWidget* t, const QString& file) {
  for (int r = 0; r < t->rowCount(); ++r) {
    if (t->item(r, kFileCol) && t->item(r, kFileCol)->text() == file) return r;
  }
  return -1;
}

void emptySession(qf::ui::MainWindow& w) {
  qf::Session empty;
  empty.scenario = w.session().scenario;
  w.setSession(empty, QString());
}

/// What core's import path reads from `paths` (the window's plan), file by file.
std::vector<qf::FileImport> coreRead(const QStringList& paths) {
  std::vector<std::string> files;
  for (const QString& p : paths) files.push_back(p.toStdString());
  qf::ImportPlan plan;
  plan.allOrNothing = false;
  auto read = qf::readImports(files, plan);
  REQUIRE(read.ok());
  return std::move(*read);
}

}  // namespace

TEST_CASE("the import summary, the Evidence tab and core list the same warnings",
          "[ui][evidence][import]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  emptySession(w);
  const QStringList paths = {kFailed, kThroughput, kServe};
  const QStringList lines = w.importFiles(paths);
  REQUIRE(lines.size() == 3);
  const auto core = coreRead(paths);
  REQUIRE(core.size() == 3);
  QTableWidget* runs = w.evidenceView()->runsTable();
  REQUIRE(runs->rowCount() == 3);
  std::size_t total = 0;
  for (std::size_t i = 0; i < core.size(); ++i) {
    const qf::FileImport& f = core[i];
    const QString line = lines[static_cast<int>(i)];
    INFO(line.toStdString());
    // The summary's count is core's count, and each of core's warnings is listed word for word.
    CHECK(line.contains(QString("1 run(s), %1 warning(s)").arg(f.warnings.size())));
    for (const auto& warning : f.warnings) {
      CHECK(line.contains("    warning: " + QString::fromStdString(warning)));
    }
    CHECK(line.count("warning: ") == static_cast<int>(f.warnings.size()));
    total += f.warnings.size();
    // One run per file: the Evidence row shows the same count and the same words.
    const int row = rowOf(runs, QFileInfo(paths[static_cast<int>(i)]).fileName());
    REQUIRE(row >= 0);
    const QTableWidgetItem* status = runs->item(row, kStatusCol);
    if (!f.warnings.empty()) {
      CHECK(status->text().contains(QString("%1 warning(s)").arg(f.warnings.size())));
    }
    for (const auto& warning : f.warnings) {
      CHECK(status->toolTip().contains("warning: " + QString::fromStdString(warning)));
      CHECK(runs->item(row, kWhatCol)->toolTip().contains(QString::fromStdString(warning)));
    }
  }
  // The failed file had a warning the old summary did not count ("0 warning(s)").
  CHECK(core[0].warnings.size() == 1);
  CHECK(lines[0].contains("1 warning(s); 1 failed run(s)"));
  CHECK(total >= 2);
  CHECK(runs->horizontalHeaderItem(kStatusCol)->text() == "status");
  CHECK(runs->horizontalHeaderItem(kWhatCol)->text() == "what it holds");

  // The failed run is shown as failed, not as "0 requests; 0 out tok/s".
  const int failed = rowOf(runs, "vllm_serve_all_failed_8.json");
  CHECK(runs->item(failed, kStatusCol)->text() == "failed: all 8 requests failed (1 warning(s))");
  CHECK(runs->item(failed, kWhatCol)->text() ==
        "all 8 requests failed: no throughput or latency figures");
  CHECK_FALSE(runs->item(failed, kWhatCol)->text().contains("tok/s"));
  // The throughput run says what the import read from it (5 metrics), never blank.
  const int tput = rowOf(runs, "vllm_throughput.json");
  CHECK(core[1].metricsRead == 5);
  CHECK(runs->item(tput, kWhatCol)->text() ==
        "1000 requests; 19.12 req/s; 23901 tok/s (in + out); 1250000 tokens; in 52.3 s");
  CHECK(runs->item(tput, kStatusCol)->text() == "ok");
  const int ok = rowOf(runs, "vllm_serve_bf16.json");
  CHECK(runs->item(ok, kStatusCol)->text().startsWith("ok"));
}

TEST_CASE("a run whose requests all failed is not plotted nor attached as zero",
          "[ui][serving][import]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  emptySession(w);
  REQUIRE(w.importFiles({kFailed, kServe}).size() == 2);
  auto* ev = w.evidenceView();
  ev->selectRuns({"vllm_serve_all_failed_8.json", "vllm_serve_bf16.json"});
  REQUIRE(ev->selectedDigests().size() == 2);
  const QStringList lines =
      w.attachRuns(qf::ui::AttachRequest{ev->selectedDigests(), std::nullopt, {}});
  INFO(lines.join("\n").toStdString());
  CHECK(lines.join("\n").contains("all 8 requests failed: no figures attached"));
  const qf::Session s = w.session();
  REQUIRE(s.candidates.size() == 1);
  // The candidate's throughput is the run that measured something, not the failed run's 0.
  const auto& out = s.candidates[0].metrics.at("output_throughput_tok_s");
  CHECK(out.value > 0);
  CHECK(QFileInfo(QString::fromStdString(out.provenance.sourceFile)).fileName() ==
        "vllm_serve_bf16.json");
  for (const auto& [name, m] : s.candidates[0].metrics) {
    INFO(name);
    CHECK(QFileInfo(QString::fromStdString(m.provenance.sourceFile)).fileName() !=
          "vllm_serve_all_failed_8.json");
  }

  // The Serving tab draws the measured run only and says why the other is missing.
  w.showTab("serving");
  const qf::ui::ServingPlot* plot = w.servingPlot();
  CHECK(
      plot->notes().contains("1 run(s) not drawn: every request failed "
                             "(vllm_serve_all_failed_8.json)"));
  const QString id = QString::fromStdString(s.candidates[0].id);
  const auto* tok = plot->series(id, qf::ui::ServingPlot::Series::OutputThroughput);
  REQUIRE(tok != nullptr);
  REQUIRE(tok->data()->size() == 1);
  CHECK(tok->data()->at(0)->value == out.value);
  CHECK(tok->data()->at(0)->value > 0);
  CHECK(w.servingSweeps().failedRuns.size() == 1);
}

TEST_CASE("the import message box counts and lists core's warnings", "[ui][evidence][import]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  emptySession(w);
  const QString shown = qf::testing::dropFilesAndReadSummary(w, {kFailed});
  const auto core = coreRead({kFailed});
  REQUIRE(core.at(0).warnings.size() == 1);
  INFO(shown.toStdString());
  CHECK(shown.contains("vllm-serve, 1 run(s), 1 warning(s); 1 failed run(s)"));
  CHECK(shown.contains("    warning: " + QString::fromStdString(core[0].warnings[0])));
  // The Evidence tab, shown next, has the same warning on the run.
  const qf::Session s = w.session();
  CHECK(s.importedRuns.at(0).warnings == core[0].warnings);
}

TEST_CASE("the import box names a warning several files share once, with its count",
          "[ui][import]") {
  const QStringList lines = {
      "a.json: vllm-serve, 1 run(s), 2 warning(s)",
      "    warning: no request rate in the file",
      "    warning: a.json's own",
      "b.json: vllm-serve, 1 run(s), 1 warning(s)",
      "    warning: no request rate in the file",
      "c.json: vllm-serve, 1 run(s), 1 warning(s)",
      "    warning: no request rate in the file",
  };
  const QStringList shown = qf::ui::collapseRepeatedWarnings(lines);
  CHECK(shown == QStringList{"a.json: vllm-serve, 1 run(s), 2 warning(s)",
                             "    warning: no request rate in the file  (and 2 more time(s) in "
                             "this import)",
                             "    warning: a.json's own",
                             "b.json: vllm-serve, 1 run(s), 1 warning(s)",
                             "c.json: vllm-serve, 1 run(s), 1 warning(s)"});
  // Nothing repeated: the lines as they were.
  const QStringList once = {"a.json: vllm-serve, 1 run(s), 1 warning(s)", "    warning: x"};
  CHECK(qf::ui::collapseRepeatedWarnings(once) == once);
}
