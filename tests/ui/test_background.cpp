// The window's one worker idiom: jobs run off the GUI thread, a stale result never overwrites
// a newer one, a stopped job still says so, a closing window applies nothing, and the
// window handles input while the serving statistics are computed.
#include <catch2/catch.hpp>

#include <QApplication>
#include <QDir>
#include <QProgressDialog>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTimer>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <quantfront/core/session/session.hpp>
#include <quantfront/ui/await_progress.hpp>
#include <quantfront/ui/background.hpp>
#include <quantfront/ui/document.hpp>
#include <quantfront/ui/evidence_view.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/serving_plot.hpp>

#include "support/qt_app.hpp"

namespace {

using qf::ui::Background;
using Lane = Background::Lane;

/// Work that returns `value` once `release` is set (or after 10 s), or -1 when told to stop.
std::function<int(const std::atomic<bool>&)> gated(int value, const std::atomic<bool>& release) {
  return [value, &release](const std::atomic<bool>& cancelled) {
    for (int i = 0; i < 10000 && !release.load(); ++i) {
      if (cancelled.load()) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return value;
  };
}

/// A session of `n` candidates c0, c1, ... with a score each.
qf::Session numberedCandidates(int n) {
  qf::Session s;
  for (int i = 0; i < n; ++i) {
    qf::Candidate c;
    c.id = "c" + std::to_string(i);
    c.model = "llama-3-8b";
    c.schemeLinear = "bf16";
    c.gpu = "h100-sxm";
    c.metrics["score"].value = i;
    s.candidates.push_back(std::move(c));
  }
  return s;
}

}  // namespace

TEST_CASE("background: an abandoned job is told to stop and nothing of it is applied",
          "[background]") {
  qf::testing::app();
  Background bg;
  std::vector<int> applied;
  std::atomic<bool> release{false};
  bg.run<int>(Lane::Open, gated(7, release), [&](int&& v) { applied.push_back(v); });
  REQUIRE(bg.busy(Lane::Open));
  bg.abandon(Lane::Open);
  CHECK_FALSE(bg.busy(Lane::Open));
  // It stops at its next look at the flag, and ends without its result applied.
  for (int i = 0; i < 200 && applied.empty(); ++i) QTest::qWait(5);
  CHECK(applied.empty());
  // The lane takes a new job as before.
  std::atomic<bool> go{true};
  bg.run<int>(Lane::Open, gated(8, go), [&](int&& v) { applied.push_back(v); });
  bg.wait(Lane::Open);
  CHECK(applied == std::vector<int>{8});
}

TEST_CASE("background: a stale result never overwrites a newer one", "[background]") {
  qf::testing::app();
  Background bg;
  std::vector<int> applied;
  std::atomic<bool> releaseOld{false}, releaseNew{true};
  const auto apply = [&](int&& v) { applied.push_back(v); };
  // The old job is still running when a newer one of its lane starts and ends.
  const auto first = bg.run<int>(Lane::Serving, gated(1, releaseOld), apply);
  const auto second = bg.run<int>(Lane::Serving, gated(2, releaseNew), apply);
  CHECK(second == first + 1);
  CHECK(bg.generation(Lane::Serving) == second);
  CHECK(bg.busy(Lane::Serving));
  bg.wait(Lane::Serving);
  CHECK(applied == std::vector<int>{2});
  CHECK_FALSE(bg.busy(Lane::Serving));
  // The old one ends later (it was told to stop: superseded): nothing of it is applied.
  releaseOld = true;
  QTest::qWait(50);
  CHECK(applied == std::vector<int>{2});
}

TEST_CASE("background: lanes are apart, and a stopped job's result is still applied",
          "[background]") {
  qf::testing::app();
  Background bg;
  std::atomic<bool> hold{false};
  int serving = 0, measure = 0;
  bg.run<int>(Lane::Serving, gated(7, hold), [&](int&& v) { serving = v; });
  bg.run<int>(Lane::Measure, gated(9, hold), [&](int&& v) { measure = v; });
  CHECK(bg.busy(Lane::Serving));
  CHECK(bg.busy(Lane::Measure));
  CHECK_FALSE(bg.busy(Lane::Import));
  // Asked to stop: the job sees its flag, and what it returns then is applied (the window
  // says "cancelled" from it).
  bg.cancel(Lane::Measure);
  bg.wait(Lane::Measure);
  CHECK(measure == -1);
  CHECK(bg.busy(Lane::Serving));  // another lane's job runs on
  hold = true;
  // Applied on this thread, from the event loop, without anyone waiting.
  REQUIRE(QTest::qWaitFor([&] { return serving != 0; }, 10000));
  CHECK(serving == 7);
}

TEST_CASE("background: a window closing stops its jobs and applies nothing", "[background]") {
  qf::testing::app();
  bool applied = false;
  std::atomic<bool> never{false};
  {
    Background bg;
    bg.run<int>(Lane::Import, gated(1, never), [&](int&&) { applied = true; });
    REQUIRE(bg.busy(Lane::Import));
  }  // destroyed with the job running: stopped, joined
  QTest::qWait(20);
  CHECK_FALSE(applied);
}

TEST_CASE("the window handles input while the serving statistics are computed off its thread",
          "[background][serving]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  const QDir dir(QString(QF_TEST_DATA_DIR) + "/import/sweep");
  QStringList files;
  for (const QString& f : dir.entryList({"vllm_serve_*.json"}, QDir::Files, QDir::Name)) {
    files << dir.filePath(f);
  }
  REQUIRE(w.importFiles(files).size() == 18);
  auto* ev = w.evidenceView();
  QStringList names;
  for (const QString& f : files) names << QFileInfo(f).fileName();
  ev->selectRuns(names);
  w.attachRuns(qf::ui::AttachRequest{ev->selectedDigests(), std::nullopt, {}});
  // The user clicks the Serving tab: the bootstraps over 18 runs' requests start off the GUI
  // thread and the click returns at once.
  auto* tabs = w.findChild<QTabWidget*>();
  REQUIRE(tabs != nullptr);
  int serving = -1;
  for (int i = 0; i < tabs->count(); ++i) {
    if (tabs->tabBar()->tabData(i).toString() == "serving") serving = i;
  }
  REQUIRE(serving >= 0);
  tabs->tabBar()->setCurrentIndex(serving);
  REQUIRE(w.background()->busy(Lane::Serving));
  // Input arrives meanwhile: the event loop handles it while the statistics are still running.
  bool handled = false, busyWhenHandled = false;
  QTimer::singleShot(0, &w, [&] {
    handled = true;
    busyWhenHandled = w.background()->busy(Lane::Serving);
  });
  REQUIRE(QTest::qWaitFor([&] { return handled; }, 10000));
  CHECK(busyWhenHandled);
  // The plot, asked for, is the finished one.
  CHECK(w.servingPlot()->candidateCount() == 3);
  CHECK_FALSE(w.background()->busy(Lane::Serving));
}

TEST_CASE("the window handles input while a session it opens is read off its thread",
          "[background]") {
  qf::testing::app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString path = dir.filePath("many.json");
  const qf::Session many = numberedCandidates(500);
  const auto saved = qf::saveSessionAtomic(many, path.toStdString());
  INFO((saved ? saved->str() : std::string()));
  REQUIRE_FALSE(saved);

  qf::ui::MainWindow w;
  // Input that arrives once the opening has started is handled while the file is read.
  bool handled = false, readingWhenHandled = false;
  QTimer::singleShot(0, &w, [&] {
    handled = true;
    readingWhenHandled = w.background()->busy(Lane::Open);
  });
  REQUIRE(w.openSession(path));
  CHECK(handled);
  CHECK(readingWhenHandled);
  // What openSession returns with is the session read.
  REQUIRE(w.document()->session().candidates.size() == 500);
  CHECK(w.document()->session().candidates.back().id == "c499");
  CHECK_FALSE(w.background()->busy(Lane::Open));
}

TEST_CASE("a session named at start-up is read after the window is up, and a given tab wins",
          "[background]") {
  // quantfront SESSION used to read the whole file before the window existed: seconds with
  // nothing on screen for 10^5 candidates.
  qf::testing::app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString path = dir.filePath("saved-on-pareto.json");
  qf::Session s = numberedCandidates(200);
  s.view.tab = "pareto";
  REQUIRE_FALSE(qf::saveSessionAtomic(s, path.toStdString()));

  for (const QString& given : {QString(), QString("candidates")}) {
    INFO("given tab: " << given.toStdString());
    qf::ui::MainWindow w;
    w.show();
    const auto before = w.document()->session().candidates.size();
    w.openSessionWhenShown(path, given);
    // It returns before anything is read: the window keeps what it shows until the read ends.
    CHECK(w.document()->session().candidates.size() == before);
    CHECK_FALSE(w.background()->busy(Lane::Open));
    REQUIRE(
        QTest::qWaitFor([&] { return w.document()->session().candidates.size() == 200; }, 20000));
    CHECK(w.sessionPath() == path);
    CHECK(w.currentTabKey() == (given.isEmpty() ? QString("pareto") : given));
  }
}

TEST_CASE("a long wait behind a progress dialog shows the dialog", "[background]") {
  // The dialog (no range: a busy indicator) never appeared: opening a session of 10^5
  // candidates kept the window blocked for seconds with nothing saying why.
  qf::testing::app();
  QWidget parent;
  parent.show();
  Background bg;
  std::atomic<bool> seen{false};
  QTimer poll;
  QObject::connect(&poll, &QTimer::timeout, [&] {
    for (QWidget* w : QApplication::topLevelWidgets()) {
      if (auto* d = qobject_cast<QProgressDialog*>(w); d && d->isVisible()) {
        seen = d->labelText() == "Waiting for the test";
      }
    }
  });
  poll.start(20);
  // The work ends once the dialog is seen, or after 3 s: the dialog is due after 0.4 s (it
  // used to come after Qt's default 4 s, when a 10^5-candidate session was read already).
  const auto result = qf::ui::awaitWithProgress<int>(
      bg, Lane::Open, &parent, "Waiting for the test", [&seen](const std::atomic<bool>&) {
        for (int i = 0; i < 3000 && !seen.load(); ++i) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        return 5;
      });
  REQUIRE(result);
  CHECK(*result == 5);
  CHECK(seen);
}

TEST_CASE("edits made while a session is read are asked about and never dropped", "[background]") {
  // The progress dialog takes the input only after 0.4 s: an edit before it used to be
  // replaced by the session read, unasked.
  qf::testing::app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString path = dir.filePath("other.json");
  REQUIRE_FALSE(qf::saveSessionAtomic(numberedCandidates(300), path.toStdString()));
  for (const auto answer : {qf::ui::UnsavedChoice::Cancel, qf::ui::UnsavedChoice::Discard}) {
    qf::ui::MainWindow w;
    int asked = 0;
    w.setUnsavedPrompt([&] {
      ++asked;
      return answer;
    });
    qf::ScenarioSpec edited = w.document()->scenario();
    edited.batchMax = edited.batchMax / 2;
    // Handled while the file is read, as input is.
    QTimer::singleShot(0, &w, [&] { w.editScenario(edited); });
    const bool opened = w.openSession(path);
    CHECK(asked == 1);
    if (answer == qf::ui::UnsavedChoice::Cancel) {
      CHECK_FALSE(opened);
      CHECK(w.document()->scenario().batchMax == edited.batchMax);
      CHECK(w.document()->session().candidates.size() != 300);
    } else {
      CHECK(opened);
      CHECK(w.document()->session().candidates.size() == 300);
    }
  }
}
