// quantfront: the GUI. With --export it renders a view, the review report (or the engine's
// data) headless and exits (no window shown, no display needed), for scripts and
// design-review pipelines. Options are checked as
// qfront checks them: a bad value exits with status 2 and one line naming the option.
#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTimer>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/error.hpp>
#include <quantfront/core/base/version.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/session/session.hpp>
#include <quantfront/ui/autosave.hpp>
#include <quantfront/ui/example_session.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/plot_export.hpp>
#include <quantfront/ui/plot_style.hpp>
#ifdef QF_HAVE_CUDA
#include <quantfront/cuda/backend.hpp>
#endif

namespace {

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 2;
constexpr const char* kCommandLine = "<cli>";

/// Prints one line naming the option and returns the bad-input status.
int badOption(const std::string& field, const std::string& message) {
  std::cerr << "quantfront: " << qf::Error{kCommandLine, "", field, message}.str() << "\n";
  return kExitBadInput;
}

/// Prints a core error (it names its own file or field) and returns the bad-input status.
int badInput(const qf::Error& e) {
  std::cerr << "quantfront: " << e.from(kCommandLine).str() << "\n";
  return kExitBadInput;
}

std::optional<long long> parseInteger(const QString& text) {
  bool ok = false;
  const long long v = text.trimmed().toLongLong(&ok);
  if (!ok) return std::nullopt;
  return v;
}

const QStringList kTabs = {"step",   "throughput", "serving",  "schemes",
                           "pareto", "candidates", "evidence", "measured"};
const QStringList kPlotTabs = {"step", "throughput", "serving", "pareto", "measured"};

bool environmentSet(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0';
}

/// A run that shows no window (an export, a session dump, help or version) needs no display:
/// without one, and without a platform the user chose, it renders offscreen.
void chooseHeadlessPlatform(int argc, char** argv) {
  if (environmentSet("QT_QPA_PLATFORM") || environmentSet("DISPLAY") ||
      environmentSet("WAYLAND_DISPLAY")) {
    return;
  }
  for (int i = 1; i < argc; ++i) {
    for (const char* opt : {"--export", "--dump-session", "--help", "--version", "-h", "-v"}) {
      const std::size_t n = std::strlen(opt);
      if (std::strncmp(argv[i], opt, n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '=')) {
        ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
        return;
      }
    }
  }
}

/// Qt takes "-session"/"--session" for X11 session management before any parser sees it:
/// ours is renamed in argv for QApplication and named back for the parser.
constexpr const char* kSessionStandIn = "--quantfront-session";

void shieldSessionOption(int argc, char** argv, std::vector<std::string>& storage) {
  storage.reserve(static_cast<std::size_t>(argc));
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;
    if (a == "--session" || a == "-session" || a.rfind("--session=", 0) == 0) {
      const auto eq = a.find('=');
      storage.push_back(std::string(kSessionStandIn) +
                        (eq == std::string::npos ? "" : a.substr(eq)));
      argv[i] = storage.back().data();
    }
  }
}

/// The command line as our parser reads it, before QApplication exists: Qt's own GUI options
/// (which QApplication takes out of argv later) are left out here the same way.
QStringList argumentsBeforeApplication(int argc, char** argv) {
  static const QStringList kQtWithValue = {"-platform",
                                           "-platformpluginpath",
                                           "-platformtheme",
                                           "-plugin",
                                           "-qwindowgeometry",
                                           "-qwindowtitle",
                                           "-qwindowicon",
                                           "-style",
                                           "-stylesheet",
                                           "-display",
                                           "-geometry",
                                           "-title",
                                           "-name",
                                           "-visual",
                                           "-ncols",
                                           "-cmap",
                                           "-fn",
                                           "-font",
                                           "-bg",
                                           "-fg",
                                           "-btn"};
  static const QStringList kQtFlags = {"-reverse", "-widgetcount",    "-nograb", "-dograb",
                                       "-sync",    "-graphicssystem", "-im",     "-inputstyle"};
  QStringList args;
  for (int i = 0; i < argc; ++i) {
    const QString a = QString::fromLocal8Bit(argv[i]);
    if (i > 0 && a == "--") {
      for (; i < argc; ++i) args << QString::fromLocal8Bit(argv[i]);
      break;
    }
    if (i > 0 && kQtWithValue.contains(a) && i + 1 < argc) {
      ++i;
      continue;
    }
    if (i > 0 && kQtFlags.contains(a)) continue;
    args << a;
  }
  return args;
}

/// The window tab of an export view name.
QString tabOfView(const QString& view) {
  if (view == "step-time") return "step";
  return view;
}

}  // namespace

int main(int argc, char** argv) {
  // The whole command line is parsed and checked before QApplication exists, so a bad option
  // is the same one line and status 2 with or without a display (QApplication itself aborts
  // when it finds no display).
  QCommandLineParser parser;
  parser.setApplicationDescription(
      "QuantFront: decode step time, capacity and the quality/latency/memory frontier of "
      "quantization schemes.");
  const QCommandLineOption helpOpt = parser.addHelpOption();
  const QCommandLineOption versionOpt = parser.addVersionOption();
  QCommandLineOption modelOpt("model", "Catalog model id or config.json path.", "ID|FILE");
  QCommandLineOption gpuOpt("gpu", "Catalog GPU id or GPU JSON path.", "ID|FILE");
  QCommandLineOption schemesOpt("schemes", "Comma-separated scheme ids.", "S,S,...");
  QCommandLineOption tpOpt("tp", "Tensor-parallel degree (1 to 1024).", "N");
  QCommandLineOption sessionOpt("session", "Open this session (as the positional SESSION does).",
                                "FILE");
  QCommandLineOption exportOpt(
      "export",
      "With --out: export VIEW (step-time, throughput, serving, pareto, measured as .png, .pdf "
      "or .svg; schemes, candidates as .csv; report: the review report PDF) and exit. "
      "Without --out: render the --tab plot to FILE (.png, .pdf, .svg) or write the engine's "
      "data (.csv, .json) and exit. No display needed. A failed write exits with status 2 and "
      "leaves an existing file intact.",
      "VIEW|FILE");
  QCommandLineOption outOpt("out", "The file --export VIEW writes.", "FILE");
  QCommandLineOption tabOpt(
      "tab",
      "Tab to show or export: step, throughput, serving, schemes, pareto, candidates, "
      "evidence, measured "
      "(default: step, or the opened session's).",
      "TAB", "step");
  QCommandLineOption sizeOpt("size",
                             "Export size in pixels, WxH (default 2126x1329: 180 mm at 300 dpi; "
                             "PDF and SVG get the same figure in mm); with --screenshot the "
                             "window's size (default 1400x900).",
                             "WxH", "2126x1329");
  QCommandLineOption shotOpt(
      "screenshot", "Grab the whole window to FILE (.png) after start-up and exit.", "FILE");
  QCommandLineOption recoverOpt(
      "recover",
      "What to do with unsaved work a crashed QuantFront left (its autosave): ask (default), "
      "accept, discard or later.",
      "WHAT", "ask");
  QCommandLineOption dumpOpt("dump-session",
                             "Write the session as it stands after start-up (and recovery) to "
                             "FILE and exit.",
                             "FILE");
  // For tests: autosave soon after the first edit, and take the command line's scenario as
  // an edit (so there is something to autosave).
  QCommandLineOption intervalOpt("autosave-interval-ms", "Autosave this long after an edit.", "MS",
                                 "2000");
  intervalOpt.setFlags(QCommandLineOption::HiddenFromHelp);
  QCommandLineOption asEditOpt("apply-as-edit",
                               "Apply --model, --gpu, --tp, --schemes as an edit.");
  asEditOpt.setFlags(QCommandLineOption::HiddenFromHelp);
  parser.addPositionalArgument("SESSION", "A session file to open.", "[SESSION]");
  parser.addOptions({modelOpt, gpuOpt, schemesOpt, tpOpt, sessionOpt, exportOpt, outOpt, tabOpt,
                     sizeOpt, shotOpt, recoverOpt, dumpOpt, intervalOpt, asEditOpt});
  if (!parser.parse(argumentsBeforeApplication(argc, argv))) {
    std::cerr << "quantfront: " << kCommandLine << ": " << parser.errorText().toStdString()
              << " (see quantfront --help)\n";
    return kExitBadInput;
  }
  if (parser.isSet(helpOpt) || parser.isSet(versionOpt)) {
    chooseHeadlessPlatform(argc, argv);
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName("QuantFront");
    QCoreApplication::setApplicationVersion(qf::qfrontVersion());
    if (parser.isSet(helpOpt)) parser.showHelp(kExitOk);
    parser.showVersion();
  }
  QString sessionPath = parser.value(sessionOpt);
  {
    const QStringList rest = parser.positionalArguments();
    if (rest.size() > 1 || (rest.size() == 1 && parser.isSet(sessionOpt))) {
      const std::string arg = rest.back().toStdString();
      return badOption(arg, "unexpected argument '" + arg +
                                "' (one session at most; see "
                                "quantfront --help)");
    }
    if (rest.size() == 1) sessionPath = rest.front();
  }
  if (!sessionPath.isEmpty() && !QFile::exists(sessionPath)) {
    const std::string name = sessionPath.toStdString();
    return badOption(parser.isSet(sessionOpt) ? "session" : name, "no session file '" + name + "'");
  }
  const bool headless = parser.isSet(exportOpt) || parser.isSet(dumpOpt);

  // Every option is checked before a window exists.
  const QString tab = parser.value(tabOpt);
  if (!kTabs.contains(tab)) {
    return badOption("tab", "expected one of " + kTabs.join(", ").toStdString() + ", found '" +
                                tab.toStdString() + "'");
  }
  std::optional<long long> tp;
  if (parser.isSet(tpOpt)) {
    tp = parseInteger(parser.value(tpOpt));
    if (!tp || *tp < 1 || *tp > 1024) {
      return badOption("tp", "expected an integer from 1 to 1024, found '" +
                                 parser.value(tpOpt).toStdString() + "'");
    }
  }
  int exportW = parser.isSet(shotOpt) && !parser.isSet(sizeOpt) ? 1400 : qf::ui::kExportWidthPx;
  int exportH = parser.isSet(shotOpt) && !parser.isSet(sizeOpt) ? 900 : qf::ui::kExportHeightPx;
  if (parser.isSet(sizeOpt)) {
    const QStringList wh = parser.value(sizeOpt).split('x');
    const auto w = wh.size() == 2 ? parseInteger(wh[0]) : std::nullopt;
    const auto h = wh.size() == 2 ? parseInteger(wh[1]) : std::nullopt;
    if (!w || !h || *w < 64 || *h < 64 || *w > 20000 || *h > 20000) {
      return badOption("size", "expected WxH between 64 and 20000 pixels, found '" +
                                   parser.value(sizeOpt).toStdString() + "'");
    }
    exportW = static_cast<int>(*w);
    exportH = static_cast<int>(*h);
  }
  const QString recover = parser.value(recoverOpt);
  if (!QStringList({"ask", "accept", "discard", "later"}).contains(recover)) {
    return badOption(
        "recover", "expected ask, accept, discard or later, found '" + recover.toStdString() + "'");
  }
  const auto intervalMs = parseInteger(parser.value(intervalOpt));
  if (!intervalMs || *intervalMs < 1 || *intervalMs > 3600000) {
    return badOption("autosave-interval-ms", "expected an integer from 1 to 3600000, found '" +
                                                 parser.value(intervalOpt).toStdString() + "'");
  }
  std::optional<qf::ui::ExportFormat> exportFormat;
  QString exportViewName;  // the new form: --export VIEW --out FILE
  if (parser.isSet(outOpt) && !parser.isSet(exportOpt)) {
    return badOption("out", "--out names the file --export VIEW writes; give --export too");
  }
  if (parser.isSet(exportOpt) && parser.isSet(outOpt)) {
    exportViewName = parser.value(exportOpt);
    const QStringList views = qf::ui::MainWindow::exportViews();
    if (!views.contains(exportViewName)) {
      return badOption("export", "expected a view: " + views.join(", ").toStdString() +
                                     ", found '" + exportViewName.toStdString() + "'");
    }
    const QString out = parser.value(outOpt);
    const auto f = qf::ui::exportFormatFor(out);
    const bool table = exportViewName == "schemes" || exportViewName == "candidates";
    const bool ok = exportViewName == "report" ? f == qf::ui::ExportFormat::Pdf
                    : table                    ? f == qf::ui::ExportFormat::Csv
                                               : f && qf::ui::isPlotFormat(*f);
    if (!ok) {
      const char* want = exportViewName == "report" ? ".pdf"
                         : table                    ? ".csv"
                                                    : ".png, .pdf or .svg";
      return badOption("out", "expected a file ending in " + std::string(want) + " for " +
                                  exportViewName.toStdString() + ", found '" + out.toStdString() +
                                  "'");
    }
  } else if (parser.isSet(exportOpt)) {
    if (qf::ui::MainWindow::exportViews().contains(parser.value(exportOpt))) {
      return badOption("out",
                       "--export " + parser.value(exportOpt).toStdString() + " needs --out FILE");
    }
    exportFormat = qf::ui::exportFormatFor(parser.value(exportOpt));
    if (!exportFormat) {
      return badOption("export",
                       "expected a view (" +
                           qf::ui::MainWindow::exportViews().join(", ").toStdString() +
                           ") with --out, or a file ending in .png, .pdf, .svg, .csv or .json, "
                           "found '" +
                           parser.value(exportOpt).toStdString() + "'");
    }
    if (qf::ui::isPlotFormat(*exportFormat) && !kPlotTabs.contains(tab)) {
      return badOption("tab",
                       "expected step, throughput, serving, pareto or measured for a plot export, "
                       "found '" +
                           tab.toStdString() + "'");
    }
  }
  // The session is read before any window exists: headless, a bad one is one line.
  std::optional<qf::Session> session;
  if (!sessionPath.isEmpty()) {
    try {
      auto loaded = qf::loadSession(QFile::encodeName(sessionPath).toStdString());
      if (loaded) {
        session = std::move(*loaded);
      } else if (headless) {
        return badInput(loaded.error());
      }
    } catch (const std::exception& e) {
      if (headless) {
        return badInput(qf::Error{sessionPath.toStdString(), "", "session",
                                  std::string("cannot read: ") + e.what()});
      }
    }
  }

  const bool explicitScenario =
      parser.isSet(modelOpt) || parser.isSet(gpuOpt) || tp || parser.isSet(schemesOpt);
  // The scenario the window will start from: the session's, else the bundled example's.
  qf::ScenarioSpec spec = session ? session->scenario : qf::ui::bundledExampleSession().scenario;
  if (parser.isSet(modelOpt)) spec.model = parser.value(modelOpt).toStdString();
  if (parser.isSet(gpuOpt)) spec.gpu = parser.value(gpuOpt).toStdString();
  if (tp) spec.tp = static_cast<int>(*tp);
  if (parser.isSet(schemesOpt)) {
    spec.schemes.clear();
    for (const QString& s : parser.value(schemesOpt).split(',', Qt::SkipEmptyParts)) {
      spec.schemes.push_back(s.trimmed().toStdString());
    }
    if (spec.schemes.empty()) return badOption("schemes", "expected at least one scheme id");
  }
  // The same checks the engine makes, so a typo exits instead of opening a window that
  // silently drops it.
  // (An exception a reader lets escape is a bad file too: one line, status 2, no crash.)
  try {
    if (auto scen = qf::resolveScenario(spec); !scen) {
      // A figure the user did not give on the command line came from the session: the
      // error names the session file and its scenario key, not an option never typed.
      qf::Error e = scen.error();
      const bool fromOption = (e.field == "model" && parser.isSet(modelOpt)) ||
                              (e.field == "gpu" && parser.isSet(gpuOpt)) ||
                              (e.field == "tp" && tp) ||
                              (e.field == "schemes" && parser.isSet(schemesOpt));
      if (session && !fromOption && e.file.empty()) {
        e.file = QFile::encodeName(sessionPath).toStdString();
        std::replace(e.field.begin(), e.field.end(), '-', '_');
        e.position = "/scenario/" + e.field;
      }
      return badInput(e);
    }
  } catch (const std::exception& e) {
    const bool gpuFile = QFile::exists(QString::fromStdString(spec.gpu));
    const std::string& file = gpuFile ? spec.gpu : spec.model;
    return badInput(
        qf::Error{file, "", gpuFile ? "gpu" : "model", std::string("cannot read: ") + e.what()});
  }
  if (auto c = qf::makeCandidates(spec.schemes, spec.mixedLinear, spec.mixedMoe, spec.mixedLmHead);
      !c) {
    qf::Error e = c.error();
    if (e.field.empty() || e.field == "scheme") e.field = "schemes";
    return badInput(e);
  }
  // Every option is good: now the application, which needs a display unless the run is
  // headless (an export or a session dump renders offscreen).
  if (!headless && !environmentSet("QT_QPA_PLATFORM") && !environmentSet("DISPLAY") &&
      !environmentSet("WAYLAND_DISPLAY")) {
    return badOption("display",
                     "no display to open the window on (DISPLAY and WAYLAND_DISPLAY are not "
                     "set); run it under xvfb-run, or export headless with --export");
  }
  chooseHeadlessPlatform(argc, argv);
  std::vector<std::string> shielded;
  shieldSessionOption(argc, argv, shielded);
  QApplication app(argc, argv);
  QApplication::setApplicationName("QuantFront");
  QApplication::setOrganizationName("QuantFront");
  QApplication::setApplicationVersion(qf::qfrontVersion());

  qf::ui::MainWindow window;
#ifdef QF_HAVE_CUDA
  window.setMeasurementBackend(qf::cuda::makeCudaBackend());
#endif
  if (session) {
    window.setSession(*session, sessionPath);
  } else if (!sessionPath.isEmpty()) {
    // In the window a bad session is a message; the example session stays.
    QTimer::singleShot(0, &window, [&window, sessionPath] { window.openSession(sessionPath); });
  }
  if (!parser.isSet(asEditOpt) && (explicitScenario || !session)) window.setScenario(spec);
  if (!window.lastError().isEmpty()) {
    std::cerr << "quantfront: " << window.lastError().toStdString() << "\n";
    return kExitBadInput;
  }
  if (!exportViewName.isEmpty()) {
    QElapsedTimer timer;
    timer.start();
    const QString out = parser.value(outOpt);
    window.showTab(tabOfView(exportViewName));
    const QString err = window.exportView(exportViewName, out, exportW, exportH);
    if (!err.isEmpty()) {
      std::cerr << "quantfront: " << err.toStdString() << "\n";
      return kExitBadInput;
    }
    if (qEnvironmentVariableIsSet("QF_EXPORT_TIMING")) {
      std::cerr << "quantfront: exported " << exportViewName.toStdString() << " in "
                << timer.elapsed() << " ms\n";
    }
    return kExitOk;
  }
  if (exportFormat) {
    const QString path = parser.value(exportOpt);
    QString err;
    if (qf::ui::isPlotFormat(*exportFormat)) {
      window.showTab(tab);
      err = qf::ui::exportPlotFile(window.currentPlot(), path, exportW, exportH);
    } else if (!window.report()) {
      err = path + ": no engine report to export";
    } else {
      err = qf::ui::exportDataFile(*window.report(), path);
    }
    if (!err.isEmpty()) {
      std::cerr << "quantfront: " << err.toStdString() << "\n";
      return kExitBadInput;
    }
    return kExitOk;
  }

  // Interactive: autosave this window's unsaved work, and first offer what a crashed one
  // left, before anything is written.
  window.startAutosave(QString(), static_cast<int>(*intervalMs));
  if (recover != "ask") {
    const auto choice = recover == "accept"    ? qf::ui::RecoveryChoice::Recover
                        : recover == "discard" ? qf::ui::RecoveryChoice::Discard
                                               : qf::ui::RecoveryChoice::Later;
    window.setRecoveryPrompt([choice](const qf::ui::AutosaveInfo&) { return choice; });
  }
  // The window opens on the step-time view unless --tab says otherwise or a session was
  // opened explicitly (then its saved tab).
  if (parser.isSet(tabOpt) || !session) window.showTab(tab);
  if (parser.isSet(shotOpt)) window.resize(exportW, exportH);
  if (!parser.isSet(dumpOpt)) window.show();
  const bool recovered = window.offerRecovery();
  if (!recovered && parser.isSet(asEditOpt)) window.editScenario(spec);
  if (parser.isSet(dumpOpt)) {
    const QString dump = parser.value(dumpOpt);
    if (auto e = qf::saveSessionAtomic(window.session(), QFile::encodeName(dump).toStdString())) {
      std::cerr << "quantfront: " << e->str() << "\n";
      return kExitBadInput;
    }
    return kExitOk;
  }
  if (parser.isSet(shotOpt)) {
    const QString shot = parser.value(shotOpt);
    QTimer::singleShot(1500, &window, [&window, shot] {
      window.grab().save(shot);
      QApplication::quit();
    });
  }
  return QApplication::exec();
}
