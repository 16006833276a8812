// The Evidence tab: imported runs listed with the candidate they feed, attached from the
// button, the chooser, a drag onto a Candidates row or per model, with the same result as
// core's attachRunsToCandidates; a candidate's metrics listed with their provenance; a failed
// attach leaves the session as it was. Item models checked by QAbstractItemModelTester.
#include <catch2/catch.hpp>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDropEvent>
#include <QFileInfo>
#include <QMimeData>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTimer>

#include <quantfront/core/session/attach_runs.hpp>
#include <quantfront/ui/evidence_view.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/pareto_view.hpp>

#include "support/drop_files.hpp"
#include "support/qt_app.hpp"

namespace {

const QString kE2e = QString(QF_TEST_DATA_DIR) + "/import/e2e";

QStringList e2ePaths(const QStringList& tags) {
  QStringList out;
  for (const QString& t : tags) {
    out << kE2e + "/vllm_serve_" + t + ".json" << kE2e + "/lm_eval_results_" + t + ".json";
  }
  return out;
}

int rowOf(const QTableWidget* t, int col, const QString& text) {
  for (int r = 0; r < t->rowCount(); ++r) {
    if (t->item(r, col) && t->item(r, col)->text() == text) return r;
  }
  return -1;
}

const qf::Candidate* findCand(const qf::Session& s, const std::string& id) {
  for (const auto& c : s.candidates) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

/// A window on an empty session (no candidates, no runs), with the e2e files imported.
void importInto(qf::ui::MainWindow& w, const QStringList& paths) {
  qf::Session empty;
  empty.scenario = w.session().scenario;
  w.setSession(empty, QString());
  if (paths.isEmpty()) return;
  const QStringList lines = w.importFiles(paths);
  REQUIRE(lines.size() == paths.size());
}

}  // namespace

TEST_CASE("imported runs are listed: attaching them equals core's attach", "[ui][evidence]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  auto* ev = w.evidenceView();
  QAbstractItemModelTester runsTester(ev->runsTable()->model(),
                                      QAbstractItemModelTester::FailureReportingMode::Fatal);
  QAbstractItemModelTester metricsTester(ev->metricsTable()->model(),
                                         QAbstractItemModelTester::FailureReportingMode::Fatal);
  importInto(w, e2ePaths({"bf16", "fp8"}));
  const qf::Session before = w.session();
  REQUIRE(before.importedRuns.size() == 4);
  QTableWidget* runs = ev->runsTable();
  REQUIRE(runs->rowCount() == 4);
  for (int r = 0; r < 4; ++r) CHECK(runs->item(r, 4)->text() == "— not attached");
  const int fp8Serve = rowOf(runs, 0, "vllm_serve_fp8.json");
  REQUIRE(fp8Serve >= 0);
  CHECK(runs->item(fp8Serve, 1)->text() == "vllm-serve");
  CHECK(runs->item(fp8Serve, 3)->text().contains("concurrency"));

  // Attach the FP8 pair to a new candidate through the chooser (as the dialog would).
  ev->selectRuns({"vllm_serve_fp8.json", "lm_eval_results_fp8.json"});
  const QStringList digests = ev->selectedDigests();
  REQUIRE(digests.size() == 2);
  ev->setAttachChooser([](const QStringList& d) {
    return std::optional<qf::ui::AttachRequest>(qf::ui::AttachRequest{d, "llama-fp8", {}});
  });
  ev->attachSelectedInteractive();

  // The same attach through core on the session as it was.
  qf::Session expected = before;
  qf::AttachOptions opts;
  opts.candidateId = "llama-fp8";
  for (const QString& d : digests) opts.runDigests.push_back(d.toStdString());
  opts.setViewObjectives = before.view.objectives.empty();
  REQUIRE(qf::attachRunsToCandidates(expected, opts).ok());

  const qf::Session after = w.session();
  const qf::Candidate* got = findCand(after, "llama-fp8");
  const qf::Candidate* want = findCand(expected, "llama-fp8");
  REQUIRE(got != nullptr);
  REQUIRE(want != nullptr);
  CHECK(got->schemeLinear == "w8a8-fp8");
  REQUIRE(got->metrics.size() == want->metrics.size());
  for (const auto& [name, m] : want->metrics) {
    INFO(name);
    REQUIRE(got->metrics.count(name) == 1);
    CHECK(got->metrics.at(name).value == m.value);
    CHECK(got->metrics.at(name).provenance.sourceFile == m.provenance.sourceFile);
  }
  const auto& tpot = got->metrics.at("tpot_p99_ms");
  CHECK(tpot.provenance.kind == qf::ProvenanceKind::Measured);
  CHECK(QFileInfo(QString::fromStdString(tpot.provenance.sourceFile)).fileName() ==
        "vllm_serve_fp8.json");
  CHECK(w.isModified());

  // The runs table names the candidate; the Candidates tab has the row.
  CHECK(runs->item(rowOf(runs, 0, "vllm_serve_fp8.json"), 4)->text() == "llama-fp8");
  CHECK(runs->item(rowOf(runs, 0, "vllm_serve_bf16.json"), 4)->text() == "— not attached");
  CHECK(w.paretoView()->rowOfCandidate("llama-fp8") >= 0);

  // The metrics table lists every metric with its provenance and source.
  ev->showCandidate("llama-fp8");
  QTableWidget* metrics = ev->metricsTable();
  REQUIRE(metrics->rowCount() == static_cast<int>(got->metrics.size()));
  const int tp = rowOf(metrics, 6, "tpot_p99_ms");
  REQUIRE(tp >= 0);
  CHECK(metrics->item(tp, 0)->text() == "TPOT p99");
  CHECK(metrics->item(tp, 1)->data(Qt::DisplayRole).toDouble() == tpot.value);
  CHECK(metrics->item(tp, 4)->text() == "measured");
  CHECK(metrics->item(tp, 5)->text().startsWith(
      "vllm_serve_fp8.json  (SHA-256 " + QString::fromStdString(tpot.provenance.sha256).left(12)));
  if (tpot.lo && tpot.hi) CHECK(metrics->item(tp, 2)->text().startsWith("["));
  const int floorRow = rowOf(metrics, 6, "memory_floor_ms");
  REQUIRE(floorRow >= 0);
  CHECK(metrics->item(floorRow, 4)->text() == "modelled");
}

TEST_CASE("runs dropped on a Candidates row attach to that candidate", "[ui][evidence]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  importInto(w, e2ePaths({"bf16", "w4a16"}));
  auto* ev = w.evidenceView();
  // First the bf16 pair per model: one candidate named after the model in the files.
  ev->selectRuns({"vllm_serve_bf16.json", "lm_eval_results_bf16.json"});
  const QStringList lines =
      w.attachRuns(qf::ui::AttachRequest{ev->selectedDigests(), std::nullopt, {}});
  INFO(lines.join("\n").toStdString());
  REQUIRE(w.session().candidates.size() == 1);
  const std::string bf16Id = w.session().candidates.front().id;
  CHECK(w.session().candidates.front().schemeLinear == "bf16");

  // Then drag the W4A16 serving run onto that row: its figures overwrite nothing published
  // and land on the bf16 candidate (as the user asked, even if odd).
  QTableView* cands = w.paretoView()->table();
  w.showTab("candidates");
  cands->resize(900, 400);
  const int row = w.paretoView()->rowOfCandidate(QString::fromStdString(bf16Id));
  REQUIRE(row >= 0);
  const QRect rect = cands->visualRect(cands->model()->index(row, 0));
  ev->selectRuns({"vllm_serve_w4a16.json"});
  QMimeData mime;
  mime.setData(qf::ui::EvidenceView::kRunsMime, ev->selectedDigests().join('\n').toUtf8());
  QDragEnterEvent enter(rect.center(), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(cands->viewport(), &enter);
  CHECK(enter.isAccepted());
  QDropEvent drop(QPointF(rect.center()), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(cands->viewport(), &drop);
  const qf::Session s = w.session();
  REQUIRE(s.candidates.size() == 1);
  const auto& tpot = s.candidates.front().metrics.at("tpot_p99_ms");
  CHECK(QFileInfo(QString::fromStdString(tpot.provenance.sourceFile)).fileName() ==
        "vllm_serve_w4a16.json");
  CHECK(ev->runsTable()
            ->item(rowOf(ev->runsTable(), 0, "vllm_serve_w4a16.json"), 4)
            ->text()
            .toStdString() == bf16Id);
}

TEST_CASE("a refused attach leaves the session as it was", "[ui][evidence]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  importInto(w, e2ePaths({"bf16"}));
  const std::string before = qf::sessionToText(w.session());
  auto* ev = w.evidenceView();
  ev->selectRuns({"vllm_serve_bf16.json"});
  const QStringList lines = w.attachRuns(qf::ui::AttachRequest{ev->selectedDigests(), "", {}});
  REQUIRE(lines.size() == 1);
  CHECK(lines.front().startsWith("not attached:"));
  CHECK(lines.front().contains("candidate"));
  CHECK(qf::sessionToText(w.session()) == before);
  // An unknown digest attaches nothing and changes nothing.
  const QStringList none = w.attachRuns(qf::ui::AttachRequest{{"00ff"}, "x", {}});
  CHECK(qf::sessionToText(w.session()) == before);
  CHECK_FALSE(none.isEmpty());
}

TEST_CASE("files dropped on the window are imported and shown selected on the Evidence tab",
          "[ui][evidence]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  importInto(w, {});
  // The files are read on a worker thread: the drop returns at once, the window stays live.
  bool runningAfterDrop = false;
  const QString shown = qf::testing::dropFilesAndReadSummary(
      w, e2ePaths({"w4a16"}), [&] { runningAfterDrop = w.importRunning(); });
  CHECK(runningAfterDrop);
  CHECK_FALSE(w.importRunning());
  CHECK(shown.contains("vllm_serve_w4a16.json: vllm-serve, 1 run(s)"));
  CHECK(shown.contains("Evidence tab"));
  CHECK(w.currentTabKey() == "evidence");
  CHECK(w.evidenceView()->selectedDigests().size() == 2);
  CHECK(w.session().importedRuns.size() == 2);
}

TEST_CASE("the Attach dialog offers the candidate the runs name before the one on display",
          "[ui][evidence]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  qf::Session s;
  s.scenario = w.session().scenario;
  for (const char* scheme : {"bf16", "w8a8-fp8"}) {
    qf::Candidate c;
    c.id = std::string("8b-") + scheme;
    c.model = "llama-3.1-8b";
    c.schemeLinear = scheme;
    c.gpu = "h100-sxm";
    s.candidates.push_back(c);
  }
  w.setSession(s, QString());
  REQUIRE(w.importFiles({kE2e + "/vllm_serve_fp8.json", kE2e + "/vllm_serve_bf16.json"}).size() ==
          2);
  auto* ev = w.evidenceView();
  ev->showCandidate("8b-bf16");
  REQUIRE(ev->shownCandidate() == "8b-bf16");
  // The FP8 run names Llama-3.1-8B in FP8: that candidate, not the bf16 one on display.
  ev->selectRuns({"vllm_serve_fp8.json"});
  CHECK(ev->namedCandidate(ev->selectedDigests()) == "8b-w8a8-fp8");
  ev->selectRuns({"vllm_serve_bf16.json"});
  CHECK(ev->namedCandidate(ev->selectedDigests()) == "8b-bf16");
  // Runs that name different candidates: no single offer (the one on display stands).
  ev->selectRuns({"vllm_serve_fp8.json", "vllm_serve_bf16.json"});
  CHECK(ev->namedCandidate(ev->selectedDigests()).isEmpty());
}

TEST_CASE("the Attach dialog asks which GPU the runs were measured on", "[ui][evidence]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  importInto(w, e2ePaths({"w4a16"}));
  auto* ev = w.evidenceView();
  ev->selectRuns({"vllm_serve_w4a16.json"});
  REQUIRE(ev->selectedDigests().size() == 1);
  REQUIRE(w.session().scenario.gpu == "h100-sxm");
  // vLLM's result file does not record the GPU: the dialog asks, defaulting to the scenario's.
  QString defaultGpu;
  QTimer::singleShot(0, [&] {
    auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
    REQUIRE(dialog);
    auto* gpu = dialog->findChild<QComboBox*>("attachGpu");
    auto* count = dialog->findChild<QSpinBox*>("attachGpuCount");
    REQUIRE(gpu);
    REQUIRE(count);
    defaultGpu = gpu->currentText();
    gpu->setCurrentIndex(gpu->findData("a100-80gb"));
    count->setValue(2);
    auto* cand = dialog->findChildren<QComboBox*>().front();
    cand->setCurrentText("w4a16-on-a100");
    dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
  });
  ev->findChild<QPushButton*>("attachRuns")->click();
  CHECK(defaultGpu == "the scenario's GPU");
  const qf::Candidate* c = findCand(w.session(), "w4a16-on-a100");
  REQUIRE(c != nullptr);
  CHECK(c->gpu == "a100-80gb");
  CHECK(c->gpuCount == 2);
}
