// Offscreen: objectives and gates edited as rows: each edit recomputes the frontier exactly as
// core does, a row that cannot be applied is marked and left out, undo restores a row edit, and
// every control explains itself.
#include <catch2/catch.hpp>

#include <QAbstractButton>
#include <QComboBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QToolButton>
#include <QUndoStack>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/frontier_analysis.hpp>
#include <quantfront/core/analysis/metric_dictionary.hpp>
#include <quantfront/core/base/resources.hpp>
#include <quantfront/core/session/session.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/pareto_view.hpp>

#include "support/example_session.hpp"
#include "support/qt_app.hpp"

using qf::ui::ParetoView;

namespace {

qf::Session exampleSession() {
  qf::testing::app();
  return qf::testing::exampleSession();
}

/// The Pareto view showing the bundled example session.
struct Example {
  qf::Session session = exampleSession();
  ParetoView view;
  Example() { view.setContents(session.candidates, session.view.objectives, session.view.gates); }
};

template <class W>
W* cell(QTableWidget* rows, int row, int column) {
  auto* w = qobject_cast<W*>(rows->cellWidget(row, column));
  REQUIRE(w);
  return w;
}

/// Types `text` into a row's line edit (or an editable box's) and finishes the edit.
void type(QLineEdit* edit, const QString& text) {
  edit->setText(text);
  emit edit->editingFinished();
}

QString readable(const std::string& metric) {
  return QString::fromStdString(qf::readableMetricName(metric));
}

std::map<std::string, qf::Verdict> classes(const std::map<std::string, qf::CandidateVerdict>& v) {
  std::map<std::string, qf::Verdict> out;
  for (const auto& [id, verdict] : v) out[id] = verdict.verdict;
  return out;
}

/// What core's analyseFrontier says for these objectives, gates and baseline.
std::map<std::string, qf::Verdict> coreClasses(const std::vector<qf::Candidate>& cands,
                                               const std::vector<qf::Objective>& objectives,
                                               const std::vector<std::string>& gates,
                                               const std::string& baseline = {}) {
  qf::FrontierQuery q;
  q.objectives = objectives;
  auto parsed = qf::parseGateTexts(gates);
  REQUIRE(parsed.ok());
  q.gates = *parsed;
  if (!baseline.empty()) q.baselineId = baseline;
  auto a = qf::analyseFrontier(cands, q, "");
  REQUIRE(a.ok());
  return classes(a->verdicts);
}

}  // namespace

TEST_CASE("a gate row edit classes the candidates exactly as core does with that gate",
          "[ui][pareto]") {
  Example example;
  const qf::Session& session = example.session;
  ParetoView& view = example.view;
  int edits = 0;
  QObject::connect(&view, &ParetoView::selectionChanged, [&] { ++edits; });
  QTableWidget* rows = view.gateEditor();
  REQUIRE(rows->rowCount() == 1);
  CHECK(view.gates() == std::vector<std::string>{"open_llm_v2_recovery_pct>=97"});
  const auto objectives = view.objectives();
  const auto at97 = classes(view.verdicts());
  CHECK(at97 == coreClasses(session.candidates, objectives, {"open_llm_v2_recovery_pct>=97"}));

  // The threshold to 100: the 70B W8A8-INT8 and W4A16 candidates (97.3, 97.4) go out too.
  type(cell<QLineEdit>(rows, 0, ParetoView::GateValueColumn), "100");
  CHECK(edits == 1);
  CHECK(view.gates() == std::vector<std::string>{"open_llm_v2_recovery_pct>=100"});
  const auto at100 = classes(view.verdicts());
  CHECK(at100 == coreClasses(session.candidates, objectives, {"open_llm_v2_recovery_pct>=100"}));
  CHECK(at100 != at97);
  CHECK(at100.at("70b-w4a16-g128-h100-sxmx4") == qf::Verdict::GatedOut);

  // The comparison: below 100 instead.
  auto* test = cell<QComboBox>(rows, 0, ParetoView::GateOpColumn);
  test->setCurrentIndex(test->findText("<"));
  CHECK(edits == 2);
  CHECK(view.gates() == std::vector<std::string>{"open_llm_v2_recovery_pct<100"});
  CHECK(classes(view.verdicts()) ==
        coreClasses(session.candidates, objectives, {"open_llm_v2_recovery_pct<100"}));

  // A finish without a change recomputes nothing new and is no edit.
  emit cell<QLineEdit>(rows, 0, ParetoView::GateValueColumn)->editingFinished();
  CHECK(edits == 2);

  // A second gate, added on the x metric at the worst value: it changes nothing until edited,
  // then a metric picked by typing its readable name applies.
  const auto before = classes(view.verdicts());
  view.addGate();
  REQUIRE(rows->rowCount() == 2);
  CHECK(view.gateRowProblem(1).isEmpty());
  CHECK(view.gates().size() == 2);
  CHECK(classes(view.verdicts()) == before);
  auto* metric = cell<QComboBox>(rows, 1, ParetoView::GateMetricColumn);
  const int step = metric->findData(QString("step_ms_b1"));
  REQUIRE(step >= 0);
  CHECK(metric->itemText(step) != "step_ms_b1");  // shown by its readable name
  type(metric->lineEdit(), metric->itemText(step));
  type(cell<QLineEdit>(rows, 1, ParetoView::GateValueColumn), "10");
  const std::vector<std::string> two = {"open_llm_v2_recovery_pct<100", "step_ms_b1>=10"};
  CHECK(view.gates() == two);
  CHECK(classes(view.verdicts()) == coreClasses(session.candidates, objectives, two));

  // Relative to a baseline: "baseline +" with -1 needs a baseline, then applies.
  auto* reference = cell<QComboBox>(rows, 0, ParetoView::GateReferenceColumn);
  reference->setCurrentIndex(1);
  type(cell<QLineEdit>(rows, 0, ParetoView::GateValueColumn), "-1");
  CHECK(view.gateRowProblem(0).contains("relative to the baseline"));
  // Core names the setting; the window words it as its own control, never as a flag.
  CHECK(view.gateRowProblem(0).contains("Baseline (Pareto tab)"));
  CHECK_FALSE(view.gateRowProblem(0).contains("--"));
  auto* baseline = view.findChild<QComboBox*>("paretoBaseline");
  REQUIRE(baseline);
  baseline->setCurrentIndex(baseline->findData(QString("70b-bf16-h100-sxmx4")));
  CHECK(view.gateRowProblem(0).isEmpty());
  const std::vector<std::string> relative = {"open_llm_v2_recovery_pct<baseline-1",
                                             "step_ms_b1>=10"};
  CHECK(view.gates() == relative);
  CHECK(classes(view.verdicts()) ==
        coreClasses(session.candidates, objectives, relative, "70b-bf16-h100-sxmx4"));

  // Every row's text comes back as the same row.
  ParetoView again;
  again.setContents(session.candidates, objectives, view.gates());
  CHECK(again.gates() == relative);
  CHECK(cell<QComboBox>(again.gateEditor(), 0, ParetoView::GateReferenceColumn)->currentIndex() ==
        1);
  CHECK(cell<QLineEdit>(again.gateEditor(), 0, ParetoView::GateValueColumn)->text() == "-1");

  // Remove: the row and its gate go.
  cell<QToolButton>(rows, 1, ParetoView::GateRemoveColumn)->click();
  CHECK(rows->rowCount() == 1);
  CHECK(view.gates() == std::vector<std::string>{"open_llm_v2_recovery_pct<baseline-1"});
}

TEST_CASE("an invalid gate row is marked and the other rows still apply", "[ui][pareto]") {
  Example example;
  ParetoView& view = example.view;
  const auto valid = classes(view.verdicts());
  QTableWidget* rows = view.gateEditor();
  view.addGate();
  REQUIRE(rows->rowCount() == 2);

  // A threshold that is not a number: core's error, red, "!" on the row; the row is neither
  // applied nor listed (it has no text core reads).
  auto* value = cell<QLineEdit>(rows, 1, ParetoView::GateValueColumn);
  type(value, "abc");
  const QString problem = view.gateRowProblem(1);
  CHECK(problem.contains("'abc' is not a finite number"));
  CHECK(value->toolTip().startsWith("Not applied: " + problem));
  CHECK(value->palette().color(QPalette::Base) != rows->palette().color(QPalette::Base));
  REQUIRE(rows->verticalHeaderItem(1));
  CHECK(rows->verticalHeaderItem(1)->text().endsWith("!"));
  CHECK(view.gateRowProblem(0).isEmpty());
  CHECK(rows->verticalHeaderItem(0)->text() == "1");
  CHECK(view.gates() == std::vector<std::string>{"open_llm_v2_recovery_pct>=97"});
  CHECK(classes(view.verdicts()) == valid);
  CHECK(view.statusText().contains("1 gate row not applied"));

  // A metric nobody carries and the dictionary does not know: core's error; the gate is kept
  // (a session saves it) but not applied.
  type(value, "1");
  CHECK(view.gateRowProblem(1).isEmpty());
  auto* metric = cell<QComboBox>(rows, 1, ParetoView::GateMetricColumn);
  type(metric->lineEdit(), "recovry_pct");
  CHECK(view.gateRowProblem(1).contains(
      "'recovry_pct', which no candidate carries and the metric dictionary does not know"));
  CHECK(view.gates() == std::vector<std::string>{"open_llm_v2_recovery_pct>=97", "recovry_pct>=1"});
  CHECK(view.appliedGates() == std::vector<std::string>{"open_llm_v2_recovery_pct>=97"});
  CHECK(classes(view.verdicts()) == valid);
  REQUIRE(view.result());

  // Fixed by typing the readable name: the mark goes.
  type(metric->lineEdit(), metric->itemText(metric->findData(QString("open_llm_v2_recovery_pct"))));
  CHECK(view.gateRowProblem(1).isEmpty());
  CHECK_FALSE(value->toolTip().startsWith("Not applied"));
  CHECK(rows->verticalHeaderItem(1)->text() == "2");
}

TEST_CASE("objective rows: adding and removing one changes the objectives and the axes",
          "[ui][pareto]") {
  Example example;
  const qf::Session& session = example.session;
  ParetoView& view = example.view;
  QTableWidget* rows = view.objectiveEditor();
  REQUIRE(rows->rowCount() == 2);
  REQUIRE(view.objectives().size() == 2);
  const auto x = view.objectives()[0], y = view.objectives()[1];
  CHECK(view.plot()->xAxis->label().contains(readable(x.metric)));
  CHECK(view.plot()->yAxis->label().contains(readable(y.metric)));
  // The remove buttons stay on while two rows are left.
  CHECK(cell<QToolButton>(rows, 0, ParetoView::ObjectiveRemoveColumn)->isEnabled());

  // A third objective: dominance over three, exactly as core computes it; no band drawn.
  int edits = 0;
  QObject::connect(&view, &ParetoView::selectionChanged, [&] { ++edits; });
  view.addObjective();
  CHECK(edits == 1);
  REQUIRE(rows->rowCount() == 3);
  auto* third = cell<QComboBox>(rows, 2, ParetoView::ObjectiveMetricColumn);
  third->setCurrentIndex(third->findData(QString("weights_gib")));
  // A picked metric takes the dictionary's direction: memory is better smaller.
  CHECK(cell<QComboBox>(rows, 2, ParetoView::ObjectiveDirectionColumn)->currentText() ==
        "minimise");
  const auto three = view.objectives();
  REQUIRE(three.size() == 3);
  CHECK(three[2].metric == "weights_gib");
  CHECK(three[2].direction == qf::Direction::Min);
  REQUIRE(view.result());
  CHECK(view.result()->objectives.size() == 3);
  CHECK(classes(view.verdicts()) == coreClasses(session.candidates, three, view.gates()));
  CHECK(view.statusText().contains("over 3 objectives"));

  // The same metric twice: the second row is marked and left out.
  third->setCurrentIndex(third->findData(QString::fromStdString(x.metric)));
  CHECK(view.objectiveRowProblem(2).contains("already the objective of row 1"));
  CHECK(view.objectives().size() == 2);
  // A metric the candidates do not carry: marked, left out.
  type(third->lineEdit(), "no_such_metric");
  CHECK(view.objectiveRowProblem(2).contains("no candidate carries metric 'no_such_metric'"));
  CHECK(view.objectives().size() == 2);

  // Removing the x row: y becomes the x axis.
  cell<QToolButton>(rows, 2, ParetoView::ObjectiveRemoveColumn)->click();
  cell<QToolButton>(rows, 0, ParetoView::ObjectiveRemoveColumn)->click();
  REQUIRE(rows->rowCount() == 1);
  REQUIRE(view.objectives().size() == 1);
  CHECK(view.objectives()[0].metric == y.metric);
  CHECK(view.plot()->xAxis->label().contains(readable(y.metric)));
  CHECK(classes(view.verdicts()) == coreClasses(session.candidates, {y}, view.gates()));
  // The last row cannot be removed.
  CHECK_FALSE(cell<QToolButton>(rows, 0, ParetoView::ObjectiveRemoveColumn)->isEnabled());
}

TEST_CASE("undo in the window restores gate and objective edits made through the rows",
          "[ui][pareto][undo]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  ParetoView* view = w.paretoView();
  QUndoStack* undo = w.undoStack();
  REQUIRE(undo->count() == 0);
  const auto original = classes(view->verdicts());
  QTableWidget* gates = view->gateEditor();
  REQUIRE(gates->rowCount() == 1);
  auto* test = cell<QComboBox>(gates, 0, ParetoView::GateOpColumn);
  test->setCurrentIndex(test->findText("<="));
  REQUIRE(undo->count() == 1);
  CHECK(undo->undoText() == "change of gates");
  CHECK(w.isModified());
  CHECK(view->gates() == std::vector<std::string>{"open_llm_v2_recovery_pct<=97"});
  CHECK(classes(view->verdicts()) != original);

  undo->undo();
  CHECK(view->gates() == std::vector<std::string>{"open_llm_v2_recovery_pct>=97"});
  REQUIRE(gates->rowCount() == 1);
  CHECK(cell<QComboBox>(gates, 0, ParetoView::GateOpColumn)->currentText() == ">=");
  CHECK(cell<QLineEdit>(gates, 0, ParetoView::GateValueColumn)->text() == "97");
  CHECK(classes(view->verdicts()) == original);
  undo->redo();
  CHECK(cell<QComboBox>(gates, 0, ParetoView::GateOpColumn)->currentText() == "<=");

  // An objective's direction, then undo.
  auto* direction =
      cell<QComboBox>(view->objectiveEditor(), 1, ParetoView::ObjectiveDirectionColumn);
  const QString was = direction->currentText();
  direction->setCurrentIndex(1 - direction->currentIndex());
  REQUIRE(undo->count() == 2);
  CHECK(undo->undoText() == "change of objectives");
  undo->undo();
  CHECK(cell<QComboBox>(view->objectiveEditor(), 1, ParetoView::ObjectiveDirectionColumn)
            ->currentText() == was);
}

TEST_CASE("every control of the Pareto view has a tooltip", "[ui][pareto]") {
  Example example;
  ParetoView& view = example.view;
  view.addGate();
  int controls = 0;
  for (QWidget* c : view.findChildren<QWidget*>()) {
    const bool control = qobject_cast<QComboBox*>(c) || qobject_cast<QPushButton*>(c) ||
                         qobject_cast<QToolButton*>(c) || qobject_cast<QTableWidget*>(c) ||
                         (qobject_cast<QLineEdit*>(c) && !qobject_cast<QComboBox*>(c->parent()));
    if (!control) continue;
    INFO(c->metaObject()->className() << " " << c->objectName().toStdString());
    CHECK_FALSE(c->toolTip().isEmpty());
    ++controls;
  }
  // 2 objective rows × 3, 2 gate rows × 5, 2 tables, 2 add buttons, colour, baseline.
  CHECK(controls >= 22);
}
