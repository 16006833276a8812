// Evidence a review can trust, in the window: a run of another model is refused unless the
// user confirms; runs detach; candidates are renamed, hidden and removed; each is one undo
// step; re-attaching moves figures; the report lists only what is attached and visible.
#include <catch2/catch.hpp>

#include <QFile>
#include <QTableWidget>
#include <QUndoStack>

#include <quantfront/core/session/attach_runs.hpp>
#include <quantfront/ui/evidence_view.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/pareto_view.hpp>

#include "support/qt_app.hpp"
#include "support/temp_dir.hpp"

namespace {

const QString kImport = QString(QF_TEST_DATA_DIR) + "/import";
const QString kServe8b = kImport + "/e2e/vllm_serve_bf16.json";
const QString kEval8b = kImport + "/e2e/lm_eval_results_bf16.json";
const QString kServeQwen = kImport + "/vllm_serve_summary.json";

const qf::Candidate* findCand(const qf::Session& s, const std::string& id) {
  for (const auto& c : s.candidates) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

QString digestOf(const qf::Session& s, const QString& file) {
  for (const auto& r : s.importedRuns) {
    if (QString::fromStdString(r.sourceFile) == file) return QString::fromStdString(r.sha256);
  }
  return {};
}

std::size_t figuresFrom(const qf::Session& s, const QString& file) {
  std::size_t n = 0;
  for (const auto& c : s.candidates) {
    for (const auto& [name, m] : c.metrics) {
      n += QString::fromStdString(m.provenance.sourceFile) == file ? 1 : 0;
    }
  }
  return n;
}

bool inTable(const QTableView* t, const QString& id) {
  const QAbstractItemModel* m = t->model();
  for (int r = 0; r < m->rowCount(); ++r) {
    if (m->index(r, 0).data().toString() == id) return true;
  }
  return false;
}

/// A window on a session holding the Llama-3.1-8B pair attached to candidate "llama-8b" and a
/// Qwen2.5-7B serving run not attached.
void setUp(qf::ui::MainWindow& w) {
  qf::Session empty;
  empty.scenario = w.session().scenario;
  w.setSession(empty, QString());
  REQUIRE(w.importFiles({kServe8b, kEval8b, kServeQwen}).size() == 3);
  const qf::Session s = w.session();
  w.attachRuns(
      qf::ui::AttachRequest{{digestOf(s, kServe8b), digestOf(s, kEval8b)}, "llama-8b", {}});
  REQUIRE(findCand(w.session(), "llama-8b") != nullptr);
  REQUIRE(figuresFrom(w.session(), kEval8b) > 0);
}

}  // namespace

TEST_CASE("a run of another model needs a confirmation, and then moves", "[ui][evidence]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  setUp(w);
  const QString qwen = digestOf(w.session(), kServeQwen);
  QString asked;
  bool answer = false;
  w.setMismatchPrompt([&](const QString& text) {
    asked = text;
    return answer;
  });
  const int steps = w.undoStack()->count();

  // Declined: nothing attached, nothing on the undo stack; the question named both models.
  const QStringList refused = w.attachRuns(qf::ui::AttachRequest{{qwen}, "llama-8b", {}});
  CHECK(asked.contains("Qwen/Qwen2.5-7B-Instruct"));
  CHECK(asked.contains("candidate 'llama-8b' is model 'llama-3.1-8b'"));
  REQUIRE(refused.size() == 1);
  CHECK(refused.front().startsWith("not attached"));
  CHECK(figuresFrom(w.session(), kServeQwen) == 0);
  CHECK(w.undoStack()->count() == steps);

  // Confirmed: attached, one undo step.
  answer = true;
  asked.clear();
  w.attachRuns(qf::ui::AttachRequest{{qwen}, "llama-8b", {}});
  CHECK_FALSE(asked.isEmpty());
  CHECK(figuresFrom(w.session(), kServeQwen) > 0);
  CHECK(w.undoStack()->count() == steps + 1);

  // Re-attached to its own candidate: the figures move (never copied). No question: the
  // per-model candidate is new.
  asked.clear();
  const std::size_t onLlama = figuresFrom(w.session(), kServeQwen);
  w.attachRuns(qf::ui::AttachRequest{{qwen}, std::nullopt, {}});
  CHECK(asked.isEmpty());
  const qf::Session s = w.session();
  const qf::Candidate* q = findCand(s, "Qwen/Qwen2.5-7B-Instruct");
  REQUIRE(q != nullptr);
  std::size_t onQwen = 0, left = 0;
  for (const auto& [name, m] : q->metrics) {
    onQwen += QString::fromStdString(m.provenance.sourceFile) == kServeQwen ? 1 : 0;
  }
  for (const auto& [name, m] : findCand(s, "llama-8b")->metrics) {
    left += QString::fromStdString(m.provenance.sourceFile) == kServeQwen ? 1 : 0;
  }
  CHECK(onQwen == onLlama);
  CHECK(left == 0);

  // Undo twice: back to the mismatched attach, then to before it.
  w.undoStack()->undo();
  CHECK(findCand(w.session(), "Qwen/Qwen2.5-7B-Instruct") == nullptr);
  CHECK(figuresFrom(w.session(), kServeQwen) == onLlama);
  w.undoStack()->undo();
  CHECK(figuresFrom(w.session(), kServeQwen) == 0);
  w.undoStack()->redo();
  CHECK(figuresFrom(w.session(), kServeQwen) == onLlama);
}

TEST_CASE("detach, rename, hide and remove are undoable steps", "[ui][evidence]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  setUp(w);
  QUndoStack* undo = w.undoStack();
  auto* ev = w.evidenceView();
  QTableView* cands = w.paretoView()->table();

  // Detach from the Evidence tab's button.
  ev->selectRuns({"lm_eval_results_bf16.json"});
  auto* detach = ev->findChild<QPushButton*>("detachRuns");
  REQUIRE(detach != nullptr);
  REQUIRE(detach->isEnabled());
  detach->click();
  CHECK(figuresFrom(w.session(), kEval8b) == 0);
  CHECK(figuresFrom(w.session(), kServe8b) > 0);
  CHECK(undo->undoText() == "detach 1 run(s)");
  undo->undo();
  CHECK(figuresFrom(w.session(), kEval8b) > 0);
  undo->redo();
  CHECK(figuresFrom(w.session(), kEval8b) == 0);

  // Rename: errors leave it; a new id follows into the runs and the Candidates tab.
  CHECK_FALSE(w.renameCandidate("llama-8b", "").isEmpty());
  CHECK_FALSE(w.renameCandidate("nope", "x").isEmpty());
  REQUIRE(w.renameCandidate("llama-8b", "Llama 8B bf16").isEmpty());
  CHECK(inTable(cands, "Llama 8B bf16"));
  CHECK_FALSE(inTable(cands, "llama-8b"));
  for (const auto& r : w.session().importedRuns) {
    if (QString::fromStdString(r.sourceFile) == kServe8b) {
      CHECK(r.setup.at(qf::kCandidateSetupKey) == "Llama 8B bf16");
    }
  }

  // Hide: out of the Candidates tab and the report, kept in the session.
  REQUIRE(w.setCandidateHidden("Llama 8B bf16", true).isEmpty());
  CHECK_FALSE(inTable(cands, "Llama 8B bf16"));
  CHECK(findCand(w.session(), "Llama 8B bf16") != nullptr);
  CHECK(w.session().view.hidden == std::vector<std::string>{"Llama 8B bf16"});
  undo->undo();
  CHECK(inTable(cands, "Llama 8B bf16"));
  undo->redo();

  // Remove; undo brings it back with its figures.
  REQUIRE(w.removeCandidate("Llama 8B bf16").isEmpty());
  CHECK(findCand(w.session(), "Llama 8B bf16") == nullptr);
  CHECK(figuresFrom(w.session(), kServe8b) == 0);
  undo->undo();
  CHECK(findCand(w.session(), "Llama 8B bf16") != nullptr);
  CHECK(figuresFrom(w.session(), kServe8b) > 0);

  // Five undos from here reach the attach; none of them touched the scenario.
  const auto spec = w.session().scenario;
  while (undo->canUndo()) undo->undo();
  CHECK(w.session().candidates.empty());
  CHECK(w.session().scenario.model == spec.model);
}

TEST_CASE("the report lists only evidence still attached to visible candidates", "[ui][evidence]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  setUp(w);
  qf::testing::TempDir dir;
  const QString sha = digestOf(w.session(), kEval8b).left(12);
  REQUIRE(sha.size() == 12);
  auto reportText = [&](const QString& name) {
    const QString pdf = QString::fromStdString(dir.file(name.toStdString()));
    QStringList pages;
    REQUIRE(w.exportReviewReport(pdf, nullptr, &pages).isEmpty());
    REQUIRE(QFile::exists(pdf));
    return pages.join("\n");
  };
  {
    // Page 1 leads with the answer: the recommendation per regime, the frontier, confidence.
    QStringList pages;
    REQUIRE(w.exportReviewReport(QString::fromStdString(dir.file("p1.pdf")), nullptr, &pages)
                .isEmpty());
    REQUIRE_FALSE(pages.isEmpty());
    CHECK(pages[0].contains("Recommendation per regime"));
    CHECK(pages[0].contains("Synchronous (one request at a time, batch 1)"));
    CHECK(pages[0].contains("Saturated (every KV slot busy)"));
    CHECK(pages[0].contains("llama-8b"));
    CHECK(pages[0].contains("are measured"));
  }
  const QString before = reportText("before.pdf");
  CHECK(before.contains(sha));
  CHECK(before.contains("llama-8b"));
  REQUIRE(w.detachRuns({digestOf(w.session(), kEval8b)}).isEmpty());
  const QString detached = reportText("detached.pdf");
  CHECK_FALSE(detached.contains(sha));
  CHECK(detached.contains(digestOf(w.session(), kServe8b).left(12)));
  REQUIRE(w.setCandidateHidden("llama-8b", true).isEmpty());
  CHECK(w.paretoView()->table()->model()->rowCount() == 0);
  const QString hidden = reportText("hidden.pdf");
  CHECK_FALSE(hidden.contains("llama-8b"));
  CHECK_FALSE(hidden.contains(digestOf(w.session(), kServe8b).left(12)));
}

TEST_CASE("File › New is a blank session: the example opens from File › Open example",
          "[ui][session]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  // The window starts on the example, and says so.
  CHECK(w.windowTitle().contains("example session"));
  REQUIRE(w.session().candidates.size() > 10);
  auto spec = w.scenario();
  spec.gpu = "a100-80gb";
  w.editScenario(spec);
  w.setUnsavedPrompt([] { return qf::ui::UnsavedChoice::Discard; });
  REQUIRE(w.newSession());
  const qf::Session blank = w.session();
  CHECK(blank.candidates.empty());
  CHECK(blank.importedRuns.empty());
  CHECK(blank.view.gates.empty());
  CHECK(blank.scenario.gpu == "a100-80gb");  // the scenario stays
  CHECK(w.paretoView()->table()->model()->rowCount() == 0);
  CHECK(w.windowTitle().contains("untitled session"));
  // Imported candidates land alone.
  REQUIRE(w.importFiles({kServe8b}).size() == 1);
  w.attachRuns(qf::ui::AttachRequest{{digestOf(w.session(), kServe8b)}, std::nullopt, {}});
  CHECK(w.session().candidates.size() == 1);
  REQUIRE(w.openExample());
  CHECK(w.session().candidates.size() > 10);
  CHECK(w.windowTitle().contains("example session"));
}
