// The window's document is the one source of truth: edits go through it as undo steps, it
// says what changed, a failed evaluation keeps the last report, and the window's widgets only
// show it (an edit made on the document reaches the panel, the session and the plots).
#include <catch2/catch.hpp>

#include <QUndoStack>
#include <nlohmann/json.hpp>
#include <vector>

#include <quantfront/core/session/session.hpp>
#include <quantfront/ui/document.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/scenario_panel.hpp>

#include "support/qt_app.hpp"

namespace {

using qf::ui::Document;

qf::ScenarioSpec smallSpec() {
  qf::ScenarioSpec s;
  s.model = "llama-3-8b";
  s.gpu = "h100-sxm";
  s.schemes = {"bf16", "w4a16-g128"};
  s.batchMin = 1;
  s.batchMax = 256;
  return s;
}

/// Every changed() a document emits, in order.
struct ChangeLog {
  explicit ChangeLog(Document& d) {
    QObject::connect(&d, &Document::changed, [this](unsigned p) { parts.push_back(p); });
    QObject::connect(&d, &Document::edited, [this] { ++edits; });
  }
  [[nodiscard]] unsigned all() const {
    unsigned u = 0;
    for (unsigned p : parts) u |= p;
    return u;
  }
  std::vector<unsigned> parts;
  int edits = 0;
};

/// Loads a session of smallSpec() and `candidates` into `doc`.
void loadSmall(Document& doc, std::vector<qf::Candidate> candidates = {}) {
  qf::testing::app();
  qf::Session s;
  s.scenario = smallSpec();
  s.candidates = std::move(candidates);
  doc.load(s);
}

double firstFloor(const Document& d) {
  return d.report()->schemes.front().memoryFloorMs;
}

}  // namespace

TEST_CASE("document: a scenario edit is one named undo step, and undo brings back its report",
          "[document]") {
  Document doc;
  loadSmall(doc);
  REQUIRE(doc.report());
  CHECK(doc.undoStack()->count() == 0);
  const double h100 = firstFloor(doc);

  ChangeLog log(doc);
  qf::ScenarioSpec a100 = smallSpec();
  a100.gpu = "a100-80gb";
  doc.editScenario(a100);
  CHECK(doc.undoStack()->count() == 1);
  CHECK(doc.undoStack()->undoText() == "change of GPU");
  CHECK((log.all() & qf::ui::kScenarioPart) != 0);
  CHECK((log.all() & qf::ui::kReportPart) != 0);
  CHECK(log.edits == 1);
  // The A100's 2.0 TB/s against the H100's 3.35: the weights' stream takes longer.
  CHECK(firstFloor(doc) > 1.4 * h100);

  // The same scenario again is no new step.
  doc.editScenario(a100);
  CHECK(doc.undoStack()->count() == 1);

  doc.undoStack()->undo();
  CHECK(doc.scenario().gpu == "h100-sxm");
  CHECK(firstFloor(doc) == Approx(h100));
  CHECK(log.edits == 2);
  doc.undoStack()->redo();
  CHECK(doc.scenario().gpu == "a100-80gb");
  CHECK(firstFloor(doc) > 1.4 * h100);
}

TEST_CASE("document: undoing a scenario edit keeps a later evidence edit, and each names itself",
          "[document]") {
  Document doc;
  qf::Candidate c;
  c.id = "llama-bf16";
  c.model = "llama-3-8b";
  c.schemeLinear = "bf16";
  c.gpu = "h100-sxm";
  loadSmall(doc, {c});

  qf::ScenarioSpec tp2 = smallSpec();
  tp2.tp = 2;
  doc.editScenario(tp2);
  qf::Session next = doc.session();
  next.view.hidden = {"llama-bf16"};
  doc.commitEvidence(next, "hide llama-bf16");
  CHECK(doc.undoStack()->undoText() == "hide llama-bf16");
  REQUIRE(doc.session().view.hidden.size() == 1);

  doc.undoStack()->undo();  // the hiding
  CHECK(doc.session().view.hidden.empty());
  CHECK(doc.scenario().tp == 2);
  CHECK(doc.undoStack()->undoText() == "change of GPU count");
  doc.undoStack()->undo();  // the TP
  CHECK(doc.scenario().tp == 1);
  doc.undoStack()->redo();
  doc.undoStack()->redo();
  CHECK(doc.scenario().tp == 2);
  CHECK(doc.session().view.hidden == std::vector<std::string>{"llama-bf16"});

  // A gate edit is its own step.
  doc.editSelection(doc.session().view.objectives, {"accuracy >= 0.6"});
  CHECK(doc.undoStack()->undoText() == "change of gates");
  doc.undoStack()->undo();
  CHECK(doc.session().view.gates.empty());
}

TEST_CASE("document: a view is handed the session's own candidates, and keeps them across an edit",
          "[document]") {
  Document doc;
  std::vector<qf::Candidate> cands(3);
  for (std::size_t i = 0; i < cands.size(); ++i) {
    cands[i].id = "c" + std::to_string(i);
    cands[i].model = "llama-3-8b";
    cands[i].schemeLinear = "bf16";
  }
  loadSmall(doc, cands);

  // None hidden: the view's list is the session's own, not a copy.
  const auto shown = doc.visibleCandidates();
  REQUIRE(shown->size() == 3);
  CHECK(shown.get() == &doc.session().candidates);
  CHECK(doc.visibleCandidates().get() == shown.get());

  // An evidence edit while a view (a worker's analysis) still holds the list goes to a new
  // session: what the view holds does not change under it.
  qf::Session next = doc.session();
  next.candidates.pop_back();
  next.view.hidden = {"c0"};
  doc.commitEvidence(std::move(next), "remove c2, hide c0");
  REQUIRE(shown->size() == 3);
  CHECK(shown->back().id == "c2");
  CHECK(doc.session().candidates.size() == 2);

  // One hidden: the view's list leaves it out, made once until the evidence changes.
  const auto filtered = doc.visibleCandidates();
  REQUIRE(filtered->size() == 1);
  CHECK(filtered->front().id == "c1");
  CHECK(doc.visibleCandidates().get() == filtered.get());

  // Undo puts the three back, each one seen again.
  doc.undoStack()->undo();
  const auto restored = doc.visibleCandidates();
  REQUIRE(restored->size() == 3);
  CHECK(restored.get() == &doc.session().candidates);
  CHECK(filtered->size() == 1);
}

TEST_CASE("document: an evidence edit while a view holds the candidates keeps every other part",
          "[document]") {
  qf::testing::app();
  Document doc;
  // A version-1 file: a title, an imported run, candidates, and load notes from its migration.
  auto loaded = qf::loadSession(std::string(QF_TEST_DATA_DIR) + "/session/v1_session.json");
  REQUIRE(loaded);
  qf::Session example = *loaded;
  example.notes = "kept notes";
  REQUIRE(example.candidates.size() >= 2);
  REQUIRE_FALSE(example.importedRuns.empty());
  REQUIRE_FALSE(example.loadNotes.empty());
  doc.load(example);
  const auto held = doc.visibleCandidates();  // a worker's analysis holds the list
  qf::Session next = doc.session();
  next.candidates.pop_back();
  next.view.hidden = {next.candidates.front().id};
  const qf::Json expected = qf::sessionToJson(next);
  doc.commitEvidence(next, "remove one, hide one");
  // The new session is the edit, to the last field; what the view holds is untouched.
  CHECK(qf::sessionToJson(doc.session()) == expected);
  CHECK(doc.session().loadNotes == example.loadNotes);
  CHECK(doc.session().loadedVersion == example.loadedVersion);
  CHECK(held->size() == example.candidates.size());
  // Undo (the view still holding the first list) brings back the session as loaded.
  doc.undoStack()->undo();
  CHECK(qf::sessionToJson(doc.session()) == qf::sessionToJson(example));
  CHECK(doc.session().title == example.title);
  CHECK(doc.session().notes == "kept notes");
}

TEST_CASE("document: a scenario that does not evaluate says why and keeps the last report",
          "[document]") {
  Document doc;
  loadSmall(doc);
  REQUIRE(doc.lastError().isEmpty());
  const double before = firstFloor(doc);
  qf::ScenarioSpec bad = smallSpec();
  bad.model = "no-such-model";
  doc.editScenario(bad);
  CHECK(doc.lastError().contains("no-such-model"));
  REQUIRE(doc.report());
  CHECK(doc.report()->scenario.model.id == "llama-3-8b");
  CHECK(firstFloor(doc) == Approx(before));
  doc.undoStack()->undo();
  CHECK(doc.lastError().isEmpty());
}

TEST_CASE("document: the window's panel and session show the document, never the other way",
          "[document]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  Document* doc = w.document();
  qf::ScenarioSpec spec = w.scenario();
  spec.tp = 2;
  spec.batchMax = 512;
  // An edit made on the document (as undo, a script or another view would make it) reaches
  // the panel, the session the window saves and the report it draws.
  doc->editScenario(spec);
  CHECK(w.scenarioPanel()->spec().tp == 2);
  CHECK(w.scenarioPanel()->spec().batchMax == 512);
  CHECK(w.session().scenario.tp == 2);
  REQUIRE(w.report());
  CHECK(w.report()->scenario.tp == 2);
  CHECK(w.isModified());
  // One stack: the window's undo is the document's.
  CHECK(w.undoStack() == doc->undoStack());
  w.undoStack()->undo();
  CHECK(w.scenarioPanel()->spec().tp == 1);
  CHECK(w.report()->scenario.tp == 1);
}
