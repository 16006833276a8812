// Exports for design reviews: every view as PNG, PDF and SVG in the print theme at a
// document size, tables as CSV, the review report as one multi-page PDF, and the headless
// `--export VIEW --out FILE` form that needs no display.
#include <catch2/catch.hpp>

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QRegularExpression>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <set>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/resources.hpp>
#include <quantfront/ui/example_session.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/pareto_view.hpp>
#include <quantfront/ui/plot_export.hpp>
#include <quantfront/ui/plot_style.hpp>
#include <quantfront/ui/plots.hpp>
#include <quantfront/ui/review_report.hpp>

#include "quantfront_process.hpp"
#include "support/qt_app.hpp"

namespace {

QByteArray readAll(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll();
}

/// Pages of a PDF: its "/Type /Page" objects (not "/Pages").
int pdfPages(const QByteArray& pdf) {
  static const QRegularExpression page("/Type\\s*/Page(?![a-zA-Z])");
  int n = 0;
  auto it = page.globalMatch(QString::fromLatin1(pdf));
  while (it.hasNext()) {
    it.next();
    ++n;
  }
  return n;
}

/// The first page's MediaBox width and height in points.
std::pair<double, double> mediaBox(const QByteArray& pdf) {
  static const QRegularExpression box(
      "/MediaBox\\s*\\[\\s*([-0-9.]+)\\s+([-0-9.]+)\\s+([-0-9.]+)\\s+([-0-9.]+)\\s*\\]");
  const auto m = box.match(QString::fromLatin1(pdf));
  if (!m.hasMatch()) return {0, 0};
  return {m.captured(3).toDouble() - m.captured(1).toDouble(),
          m.captured(4).toDouble() - m.captured(2).toDouble()};
}

int distinctColours(const QImage& img) {
  std::set<QRgb> colours;
  for (int y = 0; y < img.height(); y += 3) {
    for (int x = 0; x < img.width(); x += 3) colours.insert(img.pixel(x, y));
  }
  return static_cast<int>(colours.size());
}

bool svgParses(const QByteArray& svg) {
  QXmlStreamReader xml(svg);
  bool sawSvg = false;
  while (!xml.atEnd()) {
    xml.readNext();
    if (xml.isStartElement() && xml.name() == QStringLiteral("svg")) sawSvg = true;
  }
  return sawSvg && !xml.hasError();
}

QString bundledSessionPath(const QTemporaryDir& dir) {
  const auto text = qf::bundledFile("sessions/llama-3.1-8b-70b.json");
  REQUIRE(text);
  const QString path = dir.filePath("example.json");
  QFile f(path);
  REQUIRE(f.open(QIODevice::WriteOnly));
  f.write(text->data(), static_cast<qint64>(text->size()));
  return path;
}

}  // namespace

TEST_CASE("every plot view exports as PNG, PDF and SVG at a document size", "[ui][export]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  for (const QString view : {"step-time", "throughput", "serving", "pareto", "measured"}) {
    INFO(view.toStdString());
    const QString png = dir.filePath(view + ".png");
    REQUIRE(w.exportView(view, png, qf::ui::kExportWidthPx, qf::ui::kExportHeightPx).isEmpty());
    const QImage img(png);
    REQUIRE(!img.isNull());
    CHECK(img.width() == 2126);
    CHECK(img.height() == 1329);
    // 300 dpi written into the file: 180 mm wide on paper.
    CHECK(std::abs(img.dotsPerMeterX() * 0.0254 - 300) < 1);
    CHECK(distinctColours(img) > 50);

    const QString pdf = dir.filePath(view + ".pdf");
    REQUIRE(w.exportView(view, pdf, qf::ui::kExportWidthPx, qf::ui::kExportHeightPx).isEmpty());
    const QByteArray pdfBytes = readAll(pdf);
    CHECK(pdfBytes.startsWith("%PDF-"));
    const auto [wPt, hPt] = mediaBox(pdfBytes);
    // 180 mm = 510 pt (the old export was 1600 pt, 564 mm).
    CHECK(std::abs(wPt - 510.2) < 3);
    CHECK(std::abs(hPt - 318.9) < 3);

    const QString svg = dir.filePath(view + ".svg");
    REQUIRE(w.exportView(view, svg, qf::ui::kExportWidthPx, qf::ui::kExportHeightPx).isEmpty());
    CHECK(svgParses(readAll(svg)));
  }
}

TEST_CASE("a table view exports its table as CSV, never a plot", "[ui][export]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString schemes = dir.filePath("schemes.csv");
  REQUIRE(w.exportView("schemes", schemes, 100, 100).isEmpty());
  const QByteArray s = readAll(schemes);
  // The example runs at B = 32: its answer there comes first, and every scheme fits there.
  CHECK(s.startsWith("scheme,step ms at B=32,tok/s at B=32,fits at B=32?,bits/weight,path,"));
  CHECK(s.count(",yes,") == static_cast<int>(w.report()->schemes.size()));
  CHECK(s.count('\n') == 1 + static_cast<int>(w.report()->schemes.size()));
  const QString cands = dir.filePath("candidates.csv");
  REQUIRE(w.exportView("candidates", cands, 100, 100).isEmpty());
  CHECK(readAll(cands).startsWith("id,status,"));
  CHECK(readAll(cands).count('\n') == 1 + static_cast<int>(w.session().candidates.size()));
  // A table to a plot format is refused, naming the file.
  const QString png = dir.filePath("schemes.png");
  CHECK(w.exportView("schemes", png, 640, 400).contains(png));
  CHECK_FALSE(QFile::exists(png));
  CHECK(w.exportView("bogus", dir.filePath("x.png"), 640, 400).contains("bogus"));

  w.showTab("schemes");
  CHECK(w.currentTable() == w.schemesTable());
  CHECK(w.currentPlot() == nullptr);
  w.showTab("candidates");
  CHECK(w.currentTable() == w.paretoView()->table());
  w.showTab("step");
  CHECK(w.currentTable() == nullptr);
}

TEST_CASE("the review report is one PDF of at least five pages, written in under 3 s",
          "[ui][export][report]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString pdf = dir.filePath("review.pdf");
  QElapsedTimer timer;
  timer.start();
  int pages = 0;
  REQUIRE(w.exportReviewReport(pdf, &pages).isEmpty());
  const qint64 ms = timer.elapsed();
  WARN("review report: " << pages << " pages in " << ms << " ms");
  CHECK(ms < 3000);
  const QByteArray bytes = readAll(pdf);
  CHECK(bytes.startsWith("%PDF-"));
  CHECK(pages >= 6);
  CHECK(pdfPages(bytes) == pages);
  // A4 portrait.
  const auto [wPt, hPt] = mediaBox(bytes);
  CHECK(std::abs(wPt - 595.3) < 3);
  CHECK(std::abs(hPt - 841.9) < 3);
  // Not a .pdf: refused, nothing written.
  CHECK_FALSE(w.exportReviewReport(dir.filePath("review.png")).isEmpty());
  CHECK_FALSE(QFile::exists(dir.filePath("review.png")));
}

TEST_CASE("headless --export VIEW --out FILE needs no display and checks its input",
          "[ui][export][options]") {
  QTemporaryDir home;
  REQUIRE(home.isValid());
  const QString session = bundledSessionPath(home);
  // No display and no platform chosen: quantfront renders offscreen by itself.
  QProcessEnvironment env = qf::test::quantfrontEnv(home.path());
  env.remove("QT_QPA_PLATFORM");
  env.remove("DISPLAY");
  env.remove("WAYLAND_DISPLAY");
  struct Case {
    const char* view;
    const char* file;
  };
  for (const Case c :
       {Case{"report", "r.pdf"}, Case{"step-time", "s.png"}, Case{"throughput", "t.svg"},
        Case{"serving", "v.pdf"}, Case{"pareto", "p.png"}, Case{"candidates", "c.csv"}}) {
    const QString out = home.filePath(c.file);
    const auto r = qf::test::runProgram(
        QF_QUANTFRONT_EXE, {"--session", session, "--export", c.view, "--out", out}, env);
    INFO(c.view << ": " << r.err.toStdString());
    REQUIRE(r.finished);
    CHECK(r.exitCode == 0);
    CHECK(QFileInfo(out).size() > 1000);
  }
  CHECK(pdfPages(readAll(home.filePath("r.pdf"))) >= 5);
  CHECK(distinctColours(QImage(home.filePath("s.png"))) > 50);
  CHECK(svgParses(readAll(home.filePath("t.svg"))));
  // The positional session and --size work too.
  const QString small = home.filePath("small.png");
  auto r = qf::test::runProgram(
      QF_QUANTFRONT_EXE, {session, "--export", "step-time", "--out", small, "--size", "800x500"},
      env);
  REQUIRE(r.exitCode == 0);
  CHECK(QImage(small).width() == 800);

  auto refused = [&](const QStringList& args, const QString& mentions) {
    const auto res = qf::test::runProgram(QF_QUANTFRONT_EXE, args, env);
    INFO(args.join(' ').toStdString() << "\n" << res.err.toStdString());
    REQUIRE(res.finished);
    CHECK_FALSE(res.crashed);
    CHECK(res.exitCode == 2);
    const QStringList lines = qf::test::errorLines(res.err);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].contains(mentions));
  };
  refused({"--session", session, "--export", "bogus", "--out", home.filePath("x.png")}, "bogus");
  refused({"--export", "report", "--out", home.filePath("x.png")}, "x.png");
  refused({"--export", "report"}, "--out");
  refused({"--session", home.filePath("missing.json"), "--export", "report", "--out",
           home.filePath("x.pdf")},
          "missing.json");
  QFile bad(home.filePath("bad.json"));
  REQUIRE(bad.open(QIODevice::WriteOnly));
  bad.write("{\"format\": \"quantfront-session\", \"version\": ");
  bad.close();
  refused({home.filePath("bad.json"), "--export", "step-time", "--out", home.filePath("y.png")},
          "bad.json");
  CHECK_FALSE(QFile::exists(home.filePath("x.pdf")));
  CHECK_FALSE(QFile::exists(home.filePath("y.png")));
}

TEST_CASE("a session opened on the command line keeps its scenario and its tab", "[ui][options]") {
  QTemporaryDir home;
  REQUIRE(home.isValid());
  qf::testing::app();
  qf::ui::MainWindow w;
  auto spec = w.scenario();
  spec.gpu = "a100-80gb";
  w.setScenario(spec);
  w.showTab("throughput");
  const QString path = home.filePath("mine.json");
  REQUIRE(w.saveSessionTo(path).isEmpty());
  const QString dump = home.filePath("dump.json");
  const auto r = qf::test::runQuantfront({path, "--dump-session", dump}, home.path());
  INFO(r.err.toStdString());
  REQUIRE(r.exitCode == 0);
  const auto doc = nlohmann::json::parse(readAll(dump).toStdString());
  CHECK(doc["scenario"]["gpu"] == "a100-80gb");
  CHECK(doc["view"]["tab"] == "throughput");
}

TEST_CASE("the review report lists at most kMaxReportCandidates candidates, the rest summarised",
          "[ui][export][report]") {
  qf::testing::app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  // Pages of the report of the example session with `n` copies of its first candidate.
  auto pagesWith = [&](std::size_t n) {
    qf::Session s = qf::ui::bundledExampleSession();
    REQUIRE_FALSE(s.candidates.empty());
    const qf::Candidate first = s.candidates.front();
    for (std::size_t i = 0; i < n; ++i) {
      qf::Candidate c = first;
      c.id = first.id + "-copy-" + std::to_string(i);
      s.candidates.push_back(c);
    }
    qf::ui::MainWindow w;
    w.setSession(s, QString());
    int pages = 0;
    const QString pdf = dir.filePath(QString("report-%1.pdf").arg(n));
    REQUIRE(w.exportReviewReport(pdf, &pages).isEmpty());
    CHECK(pdfPages(readAll(pdf)) == pages);
    return pages;
  };
  const int capped = pagesWith(qf::ui::kMaxReportCandidates + 50);
  // Four times as many candidates: the same pages (only the summary line's count changes).
  CHECK(pagesWith(4 * qf::ui::kMaxReportCandidates) == capped);
  CHECK(pagesWith(10) < capped);
}

TEST_CASE("the report's headers fit their columns and its provenance is one row per evidence file",
          "[ui][export][report]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  int pages = 0;
  QStringList text, broken;
  REQUIRE(w.exportReviewReport(dir.filePath("r.pdf"), &pages, &text, &broken).isEmpty());
  // Every table's columns are at least as wide as their headers' longest words.
  INFO(broken.join(", ").toStdString());
  CHECK(broken.isEmpty());
  // Titled from the session.
  const qf::Session& s = w.session();
  REQUIRE_FALSE(s.title.empty());
  REQUIRE_FALSE(text.isEmpty());
  CHECK(text[0].startsWith(QString::fromStdString(s.title)));
  // The provenance table: one row per evidence file or citation (and one for the analytic
  // engine), not one per figure.
  std::set<std::pair<QString, QString>> evidence;
  std::size_t figures = 0;
  for (const auto& c : s.candidates) {
    for (const auto& [name, m] : c.metrics) {
      const auto& p = m.provenance;
      const QString source = p.kind == qf::ProvenanceKind::Modelled ? QString("analytic engine")
                             : !p.sourceFile.empty()
                                 ? QFileInfo(QString::fromStdString(p.sourceFile)).fileName()
                                 : QString::fromStdString(p.citation);
      evidence.insert({source, QString(qf::provenanceName(p.kind))});
      ++figures;
    }
  }
  REQUIRE(figures > evidence.size() * 2);
  const QStringList lines = text.join('\n').split('\n');
  const auto header = std::find_if(lines.begin(), lines.end(), [](const QString& l) {
    return l.startsWith("evidence") && l.contains(" | kind | ") && l.endsWith(" | figures");
  });
  REQUIRE(header != lines.end());
  std::size_t rows = 0;
  // (A table that runs onto the next page continues after the page's empty line.)
  for (auto it = header + 1; it != lines.end() && (it->isEmpty() || it->contains(" | ")); ++it) {
    if (it->isEmpty()) continue;
    const QStringList cells = it->split(" | ");
    INFO(it->toStdString());
    CHECK(evidence.count({cells[0], cells[1]}) == 1);
    ++rows;
  }
  CHECK(rows == evidence.size());
}
