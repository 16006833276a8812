// quantfront checks its options as qfront does: a bad value exits with status 2 and one line
// naming the option; an imported file the session cannot hold is refused naming that file.
#include <catch2/catch.hpp>

#include <QApplication>
#include <QFile>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>
#include <quantfront/ui/example_session.hpp>
#include <quantfront/ui/main_window.hpp>

#include "quantfront_process.hpp"

using qf::test::errorLines;
using qf::test::runQuantfront;

#include "support/qt_app.hpp"

namespace {

QApplication& app() {
  return qf::testing::app();
}

/// Expects `r` (a run of quantfront `args`) to have exited with status 2 and exactly one line
/// naming `field`; returns that line.
QString expectOneLineRefusal(const qf::test::ProcessResult& r, const QStringList& args,
                             const QString& field) {
  INFO("args: " << args.join(' ').toStdString() << "\nstderr: " << r.err.toStdString());
  REQUIRE(r.finished);
  CHECK_FALSE(r.crashed);
  CHECK(r.exitCode == 2);
  const QStringList lines = errorLines(r.err);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].startsWith("quantfront: "));
  CHECK(lines[0].contains("'" + field + "'"));
  return lines[0];
}

/// Runs quantfront with `args`, expects exit status 2 and exactly one line naming `field`.
void expectRefused(const QStringList& args, const QString& field, const QString& mentions = {}) {
  QTemporaryDir home;
  REQUIRE(home.isValid());
  const QString line = expectOneLineRefusal(runQuantfront(args, home.path()), args, field);
  if (!mentions.isEmpty()) CHECK(line.contains(mentions));
}

/// The bundled nvbench fixture with one number replaced (text substitution on the JSON).
QString nvbenchWith(const QTemporaryDir& dir, const QString& name, const QByteArray& from,
                    const QByteArray& to) {
  QFile in(QString(QF_TEST_DATA_DIR) + "/import/nvbench_dequant.json");
  REQUIRE(in.open(QIODevice::ReadOnly));
  QByteArray bytes = in.readAll();
  REQUIRE(bytes.contains(from));
  bytes.replace(from, to);
  const QString path = dir.filePath(name);
  QFile out(path);
  REQUIRE(out.open(QIODevice::WriteOnly));
  REQUIRE(out.write(bytes) == bytes.size());
  return path;
}

}  // namespace

TEST_CASE("quantfront refuses a bad --tp, --schemes or --tab with status 2", "[ui][options]") {
  expectRefused({"--tp", "abc"}, "tp", "abc");
  expectRefused({"--tp", "0"}, "tp");
  expectRefused({"--tp", "2x"}, "tp");
  expectRefused({"--schemes", "bogus"}, "schemes", "bogus");
  // Given twice: refused as qfront refuses it (the last one used to win).
  expectRefused({"--tab", "pareto", "--tab", "deploy"}, "tab", "2 times");
  expectRefused({"--out", "a.png", "--out", "b.png"}, "out", "2 times");
  // A screenshot is a PNG: x.pdf exited 0 and wrote nothing.
  expectRefused({"--screenshot", "x.pdf"}, "screenshot", "x.pdf");
  expectRefused({"--schemes", "bf16,bogus", "--export", "x.png"}, "schemes", "bogus");
  expectRefused({"--tab", "bogus"}, "tab", "bogus");
  expectRefused({"--tab", "schemes", "--export", "x.png"}, "tab");
  expectRefused({"--model", "no-such-model"}, "model");
  expectRefused({"--gpu", "no-such-gpu"}, "gpu");
  expectRefused({"--size", "10x10", "--export", "x.png"}, "size");
  expectRefused({"--size", "axb", "--export", "x.png"}, "size");
  expectRefused({"--export", "x.txt"}, "export", "x.txt");
  expectRefused({"stray-argument"}, "stray-argument");
}

TEST_CASE("quantfront refuses an unknown option with status 2", "[ui][options]") {
  QTemporaryDir home;
  const auto r = runQuantfront({"--no-such-option"}, home.path());
  REQUIRE(r.finished);
  CHECK(r.exitCode == 2);
  const QStringList lines = errorLines(r.err);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].contains("no-such-option"));
}

TEST_CASE("quantfront --export writes engine data as CSV and JSON", "[ui][options]") {
  QTemporaryDir home;
  REQUIRE(home.isValid());
  const QString csv = home.filePath("model.csv");
  auto r =
      runQuantfront({"--export", csv, "--schemes", "bf16,w4a16-g128", "--tp", "2"}, home.path());
  INFO(r.err.toStdString());
  REQUIRE(r.exitCode == 0);
  QFile f(csv);
  REQUIRE(f.open(QIODevice::ReadOnly));
  CHECK(
      f.readLine() ==
      "scheme,batch,step_ms,tokens_per_s,bound,compute_eff,bw_eff,overhead_ms,efficiency_source\n");
  const QByteArray rest = f.readAll();
  CHECK(rest.contains("w4a16-g128,"));
  CHECK_FALSE(rest.contains("w8a8-fp8,"));

  const QString json = home.filePath("model.json");
  r = runQuantfront({"--export", json, "--gpu", "a100-80gb"}, home.path());
  REQUIRE(r.exitCode == 0);
  QFile j(json);
  REQUIRE(j.open(QIODevice::ReadOnly));
  const auto doc = nlohmann::json::parse(j.readAll().toStdString());
  CHECK(doc.contains("schemes"));
}

TEST_CASE("an nvbench file with numbers out of range is refused naming the input file",
          "[ui][options]") {
  app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  qf::ui::MainWindow w;
  const auto before = w.session().importedRuns.size();
  const QString hugeM =
      nvbenchWith(dir, "huge_m.json", R"({"name": "M", "type": "int64", "value": "1"})",
                  R"({"name": "M", "type": "int64", "value": "1e23"})");
  const QString negTime = nvbenchWith(dir, "negative_time.json", R"("value": "1.0034e-05")",
                                      R"("value": "-1.0034e-05")");
  for (const QString& path : {hugeM, negTime}) {
    const QStringList lines = w.importFiles({path});
    INFO(lines.join('\n').toStdString());
    REQUIRE(lines.size() == 1);
    // The line names the input file (first), never the session.
    CHECK(lines[0].startsWith(path + ": "));
    CHECK_FALSE(lines[0].contains("session"));
    CHECK_FALSE(lines[0].contains(" run(s)"));  // refused, not imported
  }
  CHECK_FALSE(w.isModified());
  CHECK(w.session().importedRuns.size() == before);
  // The unmodified fixture imports.
  qf::ui::MainWindow w2;
  const QStringList ok =
      w2.importFiles({QString(QF_TEST_DATA_DIR) + "/import/nvbench_dequant.json"});
  REQUIRE(ok.size() == 1);
  CHECK(ok[0].contains("run(s)"));
  CHECK(w2.isModified());
}

TEST_CASE("a number beyond double in a GPU file exits 2 with one line, no crash", "[ui][options]") {
  QTemporaryDir home;
  REQUIRE(home.isValid());
  const QString gpu = home.filePath("gpu_2e308.json");
  QFile f(gpu);
  REQUIRE(f.open(QIODevice::WriteOnly));
  f.write(R"({"name": "x", "memory_gib": 2e308, "hbm_bandwidth_tbs": 3.35,
              "tensor_tflops": {"bf16": 989.4}, "vector_fp32_tflops": 67, "source": "t"})");
  f.close();
  for (const QStringList& extra :
       {QStringList(), QStringList({"--export", home.filePath("x.png")})}) {
    const auto r = runQuantfront(QStringList({"--gpu", gpu}) + extra, home.path());
    INFO(r.err.toStdString());
    REQUIRE(r.finished);
    CHECK_FALSE(r.crashed);
    CHECK(r.exitCode == 2);
    const QStringList lines = errorLines(r.err);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].contains(gpu));
  }
}

TEST_CASE("without a display a bad option is the same one line and status 2", "[ui][options]") {
  // The options are checked before QApplication exists: with no display (no DISPLAY,
  // WAYLAND_DISPLAY or QT_QPA_PLATFORM) a bad one used to end in SIGABRT and Qt's text.
  QTemporaryDir home;
  REQUIRE(home.isValid());
  QProcessEnvironment env = qf::test::quantfrontEnv(home.path());
  env.remove("QT_QPA_PLATFORM");
  env.remove("DISPLAY");
  env.remove("WAYLAND_DISPLAY");
  const QString missing = home.filePath("missing.json");
  const std::vector<std::pair<QStringList, QString>> cases = {
      {{"--tab", "bogus"}, "tab"},
      {{"--model", "nosuch"}, "model"},
      {{"--tp", "0"}, "tp"},
      {{"--session", missing}, "session"},
      {{"--recover", "bogus"}, "recover"},
      {{"--out", home.filePath("x.png")}, "out"},
      {{}, "display"}};
  for (const auto& [args, field] : cases) {
    const QString line = expectOneLineRefusal(
        qf::test::runProgram(QString(QF_QUANTFRONT_EXE), args, env), args, field);
    // The same answer with a display (offscreen here) for a bad option.
    if (field != "display") {
      const auto shown = runQuantfront(args, home.path());
      CHECK(shown.exitCode == 2);
      CHECK(errorLines(shown.err) == QStringList{line});
    }
  }
}

TEST_CASE("a session figure the engine refuses is named by its session key, not an option",
          "[ui][options]") {
  QTemporaryDir home;
  REQUIRE(home.isValid());
  qf::Session s = qf::ui::bundledExampleSession();
  s.scenario.reserveGib = 1e5;  // leaves no KV budget on any GPU
  const QString path = home.filePath("s.json");
  REQUIRE_FALSE(qf::saveSessionAtomic(s, path.toStdString()).has_value());
  const QStringList args = {path, "--export", home.filePath("x.csv")};
  const QString line = expectOneLineRefusal(runQuantfront(args, home.path()), args, "reserve_gib");
  CHECK(line.contains(path));
  CHECK_FALSE(line.contains("<cli>"));
}

TEST_CASE("no quantfront output replaces the session it reads", "[ui][options]") {
  // `--export data.json` naming the open session put the engine's data export in its place.
  QTemporaryDir home;
  REQUIRE(home.isValid());
  const QString session = home.filePath("mine.json");
  REQUIRE_FALSE(qf::saveSessionAtomic(qf::ui::bundledExampleSession(), session.toStdString()));
  QFile before(session);
  REQUIRE(before.open(QIODevice::ReadOnly));
  const QByteArray bytes = before.readAll();
  before.close();
  const QString sameFile = home.path() + "/./mine.json";  // another spelling of the same file
  for (const QStringList& args :
       {QStringList{session, "--export", session}, QStringList{session, "--export", sameFile},
        QStringList{session, "--export", "step-time", "--out", sameFile},
        QStringList{session, "--dump-session", session}}) {
    const QString field = args.contains("--out")            ? "out"
                          : args.contains("--dump-session") ? "dump-session"
                                                            : "export";
    const QString line = expectOneLineRefusal(runQuantfront(args, home.path()), args, field);
    CHECK(line.contains("is the session being read"));
    QFile after(session);
    REQUIRE(after.open(QIODevice::ReadOnly));
    CHECK(after.readAll() == bytes);
  }
}
