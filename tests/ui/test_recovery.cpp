// Nothing lost: the dirty flag follows real edits, Close/New ask Save/Discard/Cancel, each
// window autosaves to its own file only with unsaved changes, and a start after a crash offers
// the orphaned autosave before anything overwrites it (also with the real binary killed -9).
#include <catch2/catch.hpp>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QThread>

#include <nlohmann/json.hpp>
#include <quantfront/core/session/session.hpp>
#include <quantfront/ui/autosave.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/scenario_panel.hpp>

#include "quantfront_process.hpp"

using qf::ui::RecoveryChoice;
using qf::ui::UnsavedChoice;

#include "support/qt_app.hpp"

namespace {

QApplication& app() {
  return qf::testing::app();
}

QStringList autosaves(const QString& dir) {
  return QDir(dir).entryList({QString("*") + qf::ui::kAutosaveSuffix}, QDir::Files, QDir::Name);
}

QByteArray readBytes(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll();
}

/// An autosave left by a window that is gone (as after a crash): written, lock released.
QString orphanAutosave(const QString& dir, const QString& sessionPath, const std::string& gpu) {
  qf::Session s;
  s.scenario.gpu = gpu;
  qf::ui::AutosaveSlot slot(dir, sessionPath);
  REQUIRE(slot.ok());
  REQUIRE(slot.write(s, sessionPath).isEmpty());
  return slot.file();
}

}  // namespace

TEST_CASE("viewing a tab is not a change: scenario, gate and import edits are", "[ui][recovery]") {
  app();
  qf::ui::MainWindow w;
  CHECK_FALSE(w.isModified());
  for (const char* tab : {"throughput", "schemes", "pareto", "candidates", "step"}) {
    w.showTab(tab);
    CHECK_FALSE(w.isModified());
  }
  w.scenarioPanel()->setSchemeChecked("w8a8-int8", true);
  CHECK(w.isModified());
  CHECK(w.windowTitle().endsWith(" *"));
  QTemporaryDir dir;
  REQUIRE(w.saveSessionTo(dir.filePath("s.json")).isEmpty());
  CHECK_FALSE(w.isModified());
  CHECK_FALSE(w.windowTitle().endsWith(" *"));
  w.showTab("pareto");
  CHECK_FALSE(w.isModified());
  w.editScenario(w.scenario());
  CHECK(w.isModified());
}

TEST_CASE("close and new ask Save / Discard / Cancel when there are unsaved changes",
          "[ui][recovery]") {
  app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString path = dir.filePath("mine.json");
  qf::ui::MainWindow w;
  REQUIRE(w.saveSessionTo(path).isEmpty());
  int asked = 0;
  UnsavedChoice answer = UnsavedChoice::Cancel;
  w.setUnsavedPrompt([&] {
    ++asked;
    return answer;
  });
  w.show();
  // Nothing changed: no question.
  CHECK(w.newSession());
  CHECK(asked == 0);
  REQUIRE(w.openSession(path));

  auto spec = w.scenario();
  spec.gpu = "a100-80gb";
  w.editScenario(spec);
  // Cancel: the window stays open with the edit.
  CHECK_FALSE(w.close());
  CHECK(asked == 1);
  CHECK(w.isVisible());
  CHECK(w.isModified());
  CHECK_FALSE(w.newSession());
  CHECK(w.scenario().gpu == "a100-80gb");
  // Save: written to the session's file, then the window closes.
  answer = UnsavedChoice::Save;
  CHECK(w.close());
  auto saved = qf::loadSession(path.toStdString());
  REQUIRE(saved);
  CHECK(saved->scenario.gpu == "a100-80gb");

  // Discard: closes without writing.
  qf::ui::MainWindow w2;
  w2.setUnsavedPrompt([] { return UnsavedChoice::Discard; });
  REQUIRE(w2.openSession(path));
  spec.gpu = "h100-sxm";
  w2.editScenario(spec);
  w2.show();
  CHECK(w2.close());
  CHECK(qf::loadSession(path.toStdString())->scenario.gpu == "a100-80gb");
}

TEST_CASE("autosave: own file, only with unsaved changes, removed on a clean close",
          "[ui][recovery]") {
  app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString autosaveDir = dir.filePath("autosave");
  qf::ui::MainWindow w;
  w.startAutosave(autosaveDir, 60000);
  CHECK(w.autosaveNow().isEmpty());
  CHECK(autosaves(autosaveDir).isEmpty());  // no changes: nothing written
  w.showTab("pareto");
  CHECK(w.autosaveNow().isEmpty());
  CHECK(autosaves(autosaveDir).isEmpty());

  auto spec = w.scenario();
  spec.gpu = "a100-80gb";
  w.editScenario(spec);
  REQUIRE(w.autosaveNow().isEmpty());
  REQUIRE(autosaves(autosaveDir).size() == 1);
  CHECK(autosaves(autosaveDir)[0].startsWith("untitled-"));
  qf::ui::AutosaveInfo info;
  auto s = qf::ui::readAutosave(w.autosaveFile(), &info);
  REQUIRE(s);
  CHECK(s->scenario.gpu == "a100-80gb");
  CHECK(info.sessionPath.isEmpty());
  CHECK(info.savedAt.isValid());
  CHECK(info.pid == QCoreApplication::applicationPid());

  // Another window started meanwhile does not see a live window's autosave as orphaned.
  CHECK(qf::ui::findOrphanedAutosaves(autosaveDir).empty());

  // An orphan (a window that crashed) is left alone by this window's clean close.
  const QString orphan = orphanAutosave(autosaveDir, dir.filePath("other.json"), "l40s");
  REQUIRE(QFileInfo(orphan).fileName().startsWith("session-"));
  w.setUnsavedPrompt([] { return UnsavedChoice::Discard; });
  w.show();
  CHECK(w.close());
  CHECK(autosaves(autosaveDir) == QStringList({QFileInfo(orphan).fileName()}));

  // Saving removes the autosave too: nothing is left to recover.
  qf::ui::MainWindow w2;
  w2.startAutosave(autosaveDir, 60000);
  w2.editScenario(spec);
  REQUIRE(w2.autosaveNow().isEmpty());
  REQUIRE(autosaves(autosaveDir).size() == 2);
  REQUIRE(w2.saveSessionTo(dir.filePath("w2.json")).isEmpty());
  CHECK(autosaves(autosaveDir) == QStringList({QFileInfo(orphan).fileName()}));
}

TEST_CASE("a start after a crash offers the autosave before anything overwrites it",
          "[ui][recovery]") {
  app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString autosaveDir = dir.filePath("autosave");
  const QString sessionPath = dir.filePath("crashed.json");
  const QString orphan = orphanAutosave(autosaveDir, sessionPath, "a100-80gb");
  const QByteArray bytes = readBytes(orphan);

  std::vector<qf::ui::AutosaveInfo> offered;
  RecoveryChoice answer = RecoveryChoice::Later;
  auto prompt = [&](const qf::ui::AutosaveInfo& info) {
    offered.push_back(info);
    // Offered before anything was written over it.
    CHECK(readBytes(info.file) == bytes);
    return answer;
  };

  SECTION("Later keeps it for the next start") {
    qf::ui::MainWindow w;
    w.startAutosave(autosaveDir, 60000);
    w.setRecoveryPrompt(prompt);
    CHECK_FALSE(w.offerRecovery());
    REQUIRE(offered.size() == 1);
    CHECK(offered[0].sessionPath == sessionPath);
    CHECK(offered[0].newerThanSession);
    CHECK(readBytes(orphan) == bytes);
    CHECK_FALSE(w.isModified());
    qf::ui::MainWindow again;
    again.startAutosave(autosaveDir, 60000);
    again.setRecoveryPrompt(prompt);
    CHECK_FALSE(again.offerRecovery());
    CHECK(offered.size() == 2);
  }
  SECTION("Discard deletes it") {
    answer = RecoveryChoice::Discard;
    qf::ui::MainWindow w;
    w.startAutosave(autosaveDir, 60000);
    w.setRecoveryPrompt(prompt);
    CHECK_FALSE(w.offerRecovery());
    CHECK(offered.size() == 1);
    CHECK(autosaves(autosaveDir).isEmpty());
  }
  SECTION("Recover opens it, modified, and the window takes the autosave over") {
    answer = RecoveryChoice::Recover;
    qf::ui::MainWindow w;
    w.startAutosave(autosaveDir, 60000);
    w.setRecoveryPrompt(prompt);
    REQUIRE(w.offerRecovery());
    CHECK(w.scenario().gpu == "a100-80gb");
    CHECK(w.isModified());
    CHECK(w.windowTitle().contains("crashed.json (recovered)"));
    CHECK(w.autosaveFile() == orphan);
    // A second window does not offer the file the first one now owns.
    qf::ui::MainWindow other;
    other.startAutosave(autosaveDir, 60000);
    other.setRecoveryPrompt(prompt);
    CHECK_FALSE(other.offerRecovery());
    CHECK(offered.size() == 1);
    // Saving writes the recovered work to its session file and removes the autosave.
    REQUIRE(w.saveSessionTo(sessionPath).isEmpty());
    CHECK(qf::loadSession(sessionPath.toStdString())->scenario.gpu == "a100-80gb");
    CHECK(autosaves(autosaveDir).isEmpty());
  }
}

TEST_CASE("quantfront killed with SIGKILL after an autosave recovers the edit on restart",
          "[ui][recovery][process]") {
  QTemporaryDir home;
  REQUIRE(home.isValid());
  const QString autosaveDir = home.filePath("data/QuantFront/QuantFront/autosave");
  const auto env = qf::test::quantfrontEnv(home.path());

  // A start with an edit, autosaved 100 ms later; then kill -9.
  QProcess p;
  p.setProcessEnvironment(env);
  p.start(QF_QUANTFRONT_EXE, {"--gpu", "a100-80gb", "--apply-as-edit", "--autosave-interval-ms",
                              "100", "--recover", "later"});
  REQUIRE(p.waitForStarted(30000));
  QElapsedTimer t;
  t.start();
  QStringList files;
  while (t.elapsed() < 60000) {
    files = autosaves(autosaveDir);
    if (!files.isEmpty()) break;
    p.waitForFinished(100);
    REQUIRE(p.state() == QProcess::Running);
  }
  REQUIRE(files.size() == 1);
  const QString file = QDir(autosaveDir).filePath(files[0]);
  // Complete (the write is atomic) and holding the edit.
  auto written = qf::ui::readAutosave(file);
  REQUIRE(written);
  CHECK(written->scenario.gpu == "a100-80gb");
  p.kill();  // SIGKILL: no clean exit, no chance to tidy up
  REQUIRE(p.waitForFinished(10000));
  CHECK(p.exitStatus() == QProcess::CrashExit);
  const QByteArray bytes = readBytes(file);
  REQUIRE_FALSE(bytes.isEmpty());

  // A start that says Later leaves it exactly as it was.
  const QString dumpLater = home.filePath("later.json");
  auto r =
      qf::test::runQuantfront({"--recover", "later", "--dump-session", dumpLater}, home.path());
  INFO(r.err.toStdString());
  REQUIRE(r.exitCode == 0);
  CHECK(qf::loadSession(dumpLater.toStdString())->scenario.gpu == "h100-sxm");
  CHECK(readBytes(file) == bytes);

  // A start that accepts recovery shows the edit.
  const QString dump = home.filePath("recovered.json");
  r = qf::test::runQuantfront({"--recover", "accept", "--dump-session", dump}, home.path());
  INFO(r.err.toStdString());
  REQUIRE(r.exitCode == 0);
  auto recovered = qf::loadSession(dump.toStdString());
  REQUIRE(recovered);
  CHECK(recovered->scenario.gpu == "a100-80gb");
  // That start ended without a clean close: the autosave is still there to recover.
  CHECK(autosaves(autosaveDir) == QStringList({files[0]}));

  // Discard removes it; the next start has nothing to offer.
  r = qf::test::runQuantfront({"--recover", "discard", "--dump-session", dump}, home.path());
  REQUIRE(r.exitCode == 0);
  CHECK(qf::loadSession(dump.toStdString())->scenario.gpu == "h100-sxm");
  CHECK(autosaves(autosaveDir).isEmpty());
}

TEST_CASE("an empty or damaged autosave lock is stale once it is old, with a note",
          "[ui][recovery]") {
  app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString autosaveDir = dir.filePath("autosave");
  const QString orphan = orphanAutosave(autosaveDir, dir.filePath("s.json"), "l40s");
  for (const QByteArray& content : {QByteArray(), QByteArray("\x01garbage\xff\n")}) {
    QFile lock(orphan + ".lock");
    REQUIRE(lock.open(QIODevice::WriteOnly | QIODevice::Truncate));
    REQUIRE(lock.write(content) == content.size());
    lock.close();
    // Fresh: it may be a lock being written this instant; the autosave is not offered yet.
    CHECK(qf::ui::findOrphanedAutosaves(autosaveDir).empty());
    // Old: stale, offered, and the note says why.
    REQUIRE(lock.open(QIODevice::ReadWrite));
    const QDateTime old =
        QDateTime::currentDateTime().addSecs(-(qf::ui::kUnreadableLockStaleSeconds + 5));
    REQUIRE(lock.setFileTime(old, QFileDevice::FileModificationTime));
    lock.close();
    const auto found = qf::ui::findOrphanedAutosaves(autosaveDir);
    REQUIRE(found.size() == 1);
    CHECK(found[0].file == orphan);
    CHECK(found[0].note.contains("treated as stale"));
    CHECK(qf::ui::AutosaveSlot::claim(orphan) != nullptr);
  }
}

TEST_CASE("an autosave whose session file changed on disk since is recovered as an untitled copy",
          "[ui][recovery]") {
  app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString autosaveDir = dir.filePath("autosave");
  const QString sessionPath = dir.filePath("shared.session.json");
  qf::Session onDisk;
  onDisk.scenario.gpu = "h100-sxm";
  REQUIRE_FALSE(qf::saveSessionAtomic(onDisk, sessionPath.toStdString()));
  // The crashed window's edits, made on the file as it was then.
  {
    qf::Session edited = onDisk;
    edited.scenario.gpu = "a100-80gb";
    qf::ui::AutosaveSlot slot(autosaveDir, sessionPath);
    REQUIRE(slot.ok());
    REQUIRE(slot.write(edited, sessionPath, qf::ui::sessionFileStamp(sessionPath)).isEmpty());
  }
  std::vector<qf::ui::AutosaveInfo> offered;
  auto accept = [&](const qf::ui::AutosaveInfo& info) {
    offered.push_back(info);
    return RecoveryChoice::Recover;
  };
  SECTION("the file unchanged: recovered onto it") {
    qf::ui::MainWindow w;
    w.startAutosave(autosaveDir, 60000);
    w.setRecoveryPrompt(accept);
    REQUIRE(w.offerRecovery());
    REQUIRE(offered.size() == 1);
    CHECK_FALSE(offered[0].baseChanged);
    CHECK(w.sessionPath() == sessionPath);
  }
  SECTION("the file changed since (an import): an untitled copy, the file left as it is") {
    qf::Session imported = onDisk;
    qf::Candidate c;
    c.id = "added-by-import";
    c.model = "llama-3.1-8b";
    c.schemeLinear = "bf16";
    c.gpu = "h100-sxm";
    imported.candidates.push_back(c);
    QThread::msleep(20);
    const auto saved = qf::saveSessionAtomic(imported, sessionPath.toStdString());
    INFO((saved ? saved->message : std::string()));
    REQUIRE_FALSE(saved);
    const QByteArray before = readBytes(sessionPath);
    qf::ui::MainWindow w;
    w.startAutosave(autosaveDir, 60000);
    w.setRecoveryPrompt(accept);
    REQUIRE(w.offerRecovery());
    REQUIRE(offered.size() == 1);
    CHECK(offered[0].baseChanged);
    CHECK(w.sessionPath().isEmpty());
    CHECK(w.scenario().gpu == "a100-80gb");
    CHECK(w.isModified());
    // Nothing written over the file that gained the import.
    CHECK(readBytes(sessionPath) == before);
    CHECK(qf::loadSession(sessionPath.toStdString())->candidates.size() == 1);
  }
}
