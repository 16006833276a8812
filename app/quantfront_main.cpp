// quantfront: the GUI. With --export it renders a view, the review report (or the engine's
// data) headless and exits (no window shown, no display needed), for scripts and
// design-review pipelines. Options are checked as
// qfront checks them: a bad value exits with status 2 and one line naming the option.
#include <QApplication>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QIcon>
#include <QMessageBox>
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
#include <quantfront/core/base/resources.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/core/base/version.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/session/measure_process.hpp>
#include <quantfront/core/session/session.hpp>
#include <quantfront/ui/autosave.hpp>
#include <quantfront/ui/example_session.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/plot_export.hpp>
#include <quantfront/ui/plot_style.hpp>
#include <quantfront/ui/tabs.hpp>

#include "shell.hpp"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 2;
constexpr const char* kCommandLine = "<cli>";

/// Prints one line naming the option and returns the bad-input status.
int badOption(const std::string& field, const std::string& message) {
  std::cerr << "quantfront: "
            << qf::optionsAsFlags(qf::Error{kCommandLine, "", field, message}.str()) << "\n";
  return kExitBadInput;
}

/// Prints a core error (it names its own file or field) and returns the bad-input status.
int badInput(const qf::Error& e) {
  // On the window's command line a setting is named as its flag.
  std::cerr << "quantfront: " << qf::optionsAsFlags(e.from(kCommandLine).str()) << "\n";
  return kExitBadInput;
}

std::optional<long long> parseInteger(const QString& text) {
  bool ok = false;
  const long long v = text.trimmed().toLongLong(&ok);
  if (!ok) return std::nullopt;
  return v;
}

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
  const qf::ui::TabSpec* tab = qf::ui::tabByView(view);
  return tab ? QString(tab->key) : view;
}

/// "a, b or c".
QString orList(QStringList items) {
  const QString last = items.isEmpty() ? QString() : items.takeLast();
  return items.isEmpty() ? last : items.join(", ") + " or " + last;
}

/// The command line's options: the command shell's table (app/shell.hpp) gives --help and the
/// refusals of a missing, repeated, unknown or out-of-range option, as it does qfront's.
const qf::cli::CommandSpec& quantfrontCommand() {
  using qf::cli::OptionSpec;
  // Texts made from the window's own tables, kept for the program's life.
  static const std::string exportHelp =
      "With --out: export VIEW (" +
      qf::ui::exportedViews(qf::ui::TabExport::Plot).join(", ").toStdString() +
      " as .png, .pdf or .svg; " +
      qf::ui::exportedViews(qf::ui::TabExport::Table).join(", ").toStdString() +
      " as .csv; report: the review report PDF) and exit. Without --out: render the --tab plot "
      "to FILE (.png, .pdf, .svg) or write the engine's data (.csv, .json) and exit. No display "
      "needed. A failed write exits with status 2 and leaves an existing file intact.";
  static const std::string tabHelp =
      "tab to show or export: " + qf::ui::tabKeys().join(", ").toStdString() +
      " (default: step, or the opened session's)";
  static const OptionSpec options[] = {
      {"--model", "ID|FILE", "catalog model id or config.json path"},
      {"--gpu", "ID|FILE", "catalog GPU id or GPU JSON path"},
      {"--schemes", "S,S,...", "comma-separated scheme ids"},
      {"--tp", "N", "tensor-parallel degree (1 to 1024)", qf::cli::integerIn(1, 1024)},
      {"--session", "FILE", "open this session (as the positional SESSION does)"},
      {"--export", "VIEW|FILE", exportHelp},
      {"--out", "FILE", "the file --export VIEW writes"},
      {"--tab", "TAB", tabHelp},
      {"--size", "WxH",
       "export size in pixels, WxH (default 2126x1329: 180 mm at 300 dpi;\nPDF and SVG get the "
       "same figure in mm); with --screenshot the\nwindow's size (default 1400x900)"},
      {"--screenshot", "FILE", "grab the whole window to FILE (.png) after start-up and exit"},
      {"--recover", "WHAT",
       "what to do with unsaved work a crashed QuantFront left (its\nautosave): ask (default), "
       "accept, discard or later",
       qf::cli::oneOf("ask|accept|discard|later")},
      {"--dump-session", "FILE",
       "write the session as it stands after start-up (and recovery) to\nFILE and exit"},
      {"--version", "", "print the version and exit"},
      // For tests: autosave soon after the first edit, and take the command line's scenario as
      // an edit (so there is something to autosave).
      {"--autosave-interval-ms", "MS", "autosave this long after an edit",
       qf::cli::integerIn(1, 3600000), false, true},
      {"--apply-as-edit", "", "apply --model, --gpu, --tp, --schemes as an edit", {}, false, true},
  };
  static const qf::cli::CommandSpec command{
      "quantfront",
      "",
      "usage: quantfront [options] [SESSION]\n",
      "QuantFront: decode step time, capacity and the quality/latency/memory frontier of\n"
      "quantization schemes. SESSION: a session file to open.\n",
      {options},
      "Exit status: 0 on success, 2 on bad input (one line naming the file and field).\n",
      16};  // more than one SESSION is refused by checkSessionArgument, naming the extra one
  return command;
}

/// An option's value as text (`fallback` when not given).
QString given(const qf::cli::ParsedOptions& p, std::string_view name, const char* fallback = "") {
  const auto v = p.value(name);
  return v ? QString::fromStdString(*v) : QString(fallback);
}

/// What the checked command line asks for.
struct Checked {
  QString sessionPath;
  bool headless = false;
  bool readAfterWindow = false;  ///< the session is read once the window is up (opensAfterWindow)
  QString tab;
  std::optional<long long> tp;
  int exportW = qf::ui::kExportWidthPx, exportH = qf::ui::kExportHeightPx;
  QString recover;
  std::optional<long long> intervalMs;
  std::optional<qf::ui::ExportFormat> exportFormat;  ///< the old form: --export FILE
  QString exportViewName;                            ///< the new form: --export VIEW --out FILE
  std::optional<qf::Session> session;
  bool explicitScenario = false;
  qf::ScenarioSpec spec;  ///< the scenario the window will start from
};

/// The session to open: --session or the positional SESSION, which must exist.
std::optional<int> checkSessionArgument(const qf::cli::ParsedOptions& p, Checked& c) {
  c.sessionPath = given(p, "--session");
  {
    const std::vector<std::string>& rest = p.positionals();
    if (rest.size() > 1 || (rest.size() == 1 && p.has("--session"))) {
      const std::string arg = rest.back();
      return badOption(arg, "unexpected argument '" + arg +
                                "' (one session at most; see "
                                "quantfront --help)");
    }
    if (rest.size() == 1) c.sessionPath = QString::fromLocal8Bit(rest.front());
  }
  if (!c.sessionPath.isEmpty() && !QFile::exists(c.sessionPath)) {
    const std::string name = c.sessionPath.toStdString();
    return badOption(p.has("--session") ? "session" : name, "no session file '" + name + "'");
  }
  return std::nullopt;
}

/// --tab, --tp, --size, --recover and the autosave interval.
std::optional<int> checkScalarOptions(const qf::cli::ParsedOptions& p, Checked& c) {
  // Every option is checked before a window exists.
  // A screenshot is a PNG of the window (it exited 0 and wrote nothing for x.pdf).
  if (p.has("--screenshot") && !given(p, "--screenshot").endsWith(".png", Qt::CaseInsensitive)) {
    return badOption("screenshot",
                     "writes a PNG of the window: expected a file ending in .png, "
                     "found '" +
                         given(p, "--screenshot").toStdString() + "'");
  }
  c.tab = given(p, "--tab", "step");
  if (!qf::ui::tabByKey(c.tab)) {
    return badOption("tab", "expected one of " + qf::ui::tabKeys().join(", ").toStdString() +
                                ", found '" + c.tab.toStdString() + "'");
  }
  if (p.has("--tp")) {
    c.tp = parseInteger(given(p, "--tp"));
    if (!c.tp || *c.tp < 1 || *c.tp > 1024) {
      return badOption("tp", "expected an integer from 1 to 1024, found '" +
                                 given(p, "--tp").toStdString() + "'");
    }
  }
  c.exportW = p.has("--screenshot") && !p.has("--size") ? 1400 : qf::ui::kExportWidthPx;
  c.exportH = p.has("--screenshot") && !p.has("--size") ? 900 : qf::ui::kExportHeightPx;
  if (p.has("--size")) {
    const QStringList wh = given(p, "--size").split('x');
    const auto w = wh.size() == 2 ? parseInteger(wh[0]) : std::nullopt;
    const auto h = wh.size() == 2 ? parseInteger(wh[1]) : std::nullopt;
    if (!w || !h || *w < 64 || *h < 64 || *w > 20000 || *h > 20000) {
      return badOption("size", "expected WxH between 64 and 20000 pixels, found '" +
                                   given(p, "--size").toStdString() + "'");
    }
    c.exportW = static_cast<int>(*w);
    c.exportH = static_cast<int>(*h);
  }
  c.recover = given(p, "--recover", "ask");
  if (!QStringList({"ask", "accept", "discard", "later"}).contains(c.recover)) {
    return badOption("recover", "expected ask, accept, discard or later, found '" +
                                    c.recover.toStdString() + "'");
  }
  c.intervalMs = parseInteger(given(p, "--autosave-interval-ms", "2000"));
  if (!c.intervalMs || *c.intervalMs < 1 || *c.intervalMs > 3600000) {
    return badOption("autosave-interval-ms",
                     "expected an integer from 1 to 3600000, found '" +
                         given(p, "--autosave-interval-ms", "2000").toStdString() + "'");
  }
  return std::nullopt;
}

/// --export VIEW --out FILE, or --export FILE with the --tab plot.
std::optional<int> checkExport(const qf::cli::ParsedOptions& p, Checked& c) {
  if (p.has("--out") && !p.has("--export")) {
    return badOption("out", "--out names the file --export VIEW writes; give --export too");
  }
  if (p.has("--export") && p.has("--out")) {
    c.exportViewName = given(p, "--export");
    const QStringList views = qf::ui::MainWindow::exportViews();
    if (!views.contains(c.exportViewName)) {
      return badOption("export", "expected a view: " + views.join(", ").toStdString() +
                                     ", found '" + c.exportViewName.toStdString() + "'");
    }
    const QString out = given(p, "--out");
    const auto f = qf::ui::exportFormatFor(out);
    const qf::ui::TabSpec* view = qf::ui::tabByView(c.exportViewName);
    const bool table = view && view->exports == qf::ui::TabExport::Table;
    const bool ok = c.exportViewName == "report" ? f == qf::ui::ExportFormat::Pdf
                    : table                      ? f == qf::ui::ExportFormat::Csv
                                                 : f && qf::ui::isPlotFormat(*f);
    if (!ok) {
      const char* want = c.exportViewName == "report" ? ".pdf"
                         : table                      ? ".csv"
                                                      : ".png, .pdf or .svg";
      return badOption("out", "expected a file ending in " + std::string(want) + " for " +
                                  c.exportViewName.toStdString() + ", found '" + out.toStdString() +
                                  "'");
    }
  } else if (p.has("--export")) {
    if (qf::ui::MainWindow::exportViews().contains(given(p, "--export"))) {
      return badOption("out",
                       "--export " + given(p, "--export").toStdString() + " needs --out FILE");
    }
    c.exportFormat = qf::ui::exportFormatFor(given(p, "--export"));
    if (!c.exportFormat) {
      return badOption("export",
                       "expected a view (" +
                           qf::ui::MainWindow::exportViews().join(", ").toStdString() +
                           ") with --out, or a file ending in .png, .pdf, .svg, .csv or .json, "
                           "found '" +
                           given(p, "--export").toStdString() + "'");
    }
    if (qf::ui::isPlotFormat(*c.exportFormat) && !qf::ui::plotTabKeys().contains(c.tab)) {
      return badOption("tab", "expected " + orList(qf::ui::plotTabKeys()).toStdString() +
                                  " for a plot export, found '" + c.tab.toStdString() + "'");
    }
  }
  return std::nullopt;
}

/// No output replaces the session being read (`--export data.json` naming it used to put the
/// engine's data export in its place): compared as files, so another spelling of the same
/// path, or a link to it, is caught too.
std::optional<int> checkOutputsSpareSession(const qf::cli::ParsedOptions& p, const Checked& c) {
  if (c.sessionPath.isEmpty()) return std::nullopt;
  const QFileInfo session(c.sessionPath);
  for (const char* field : {"export", "out", "dump-session"}) {
    const auto value = p.value("--" + std::string(field));
    if (!value) continue;
    const QFileInfo target(QString::fromStdString(*value));
    if (target.exists() && session.exists() &&
        target.canonicalFilePath() == session.canonicalFilePath()) {
      return badOption(field, "'" + *value +
                                  "' is the session being read; an output never replaces it "
                                  "(name another file)");
    }
  }
  return std::nullopt;
}

/// Whether the window opens first and reads the session after, as File › Open does (off the
/// GUI thread, behind a progress dialog that can give it up): an interactive start whose
/// scenario is the session's own. A session of 10^5 candidates is seconds of parsing, which
/// used to pass with nothing on screen. Read before the window instead: an export or a dump
/// (headless, a bad session is one line), a screenshot (taken at a fixed time after start-up),
/// and --model, --gpu, --tp or --schemes (they edit the session's scenario, checked first).
bool opensAfterWindow(const qf::cli::ParsedOptions& p, const Checked& c) {
  return !c.sessionPath.isEmpty() && !c.headless && !p.has("--screenshot") && !p.has("--model") &&
         !p.has("--gpu") && !p.has("--tp") && !p.has("--schemes");
}

/// The session is read before any window exists (unless opensAfterWindow): headless, a bad
/// one is one line.
std::optional<int> loadSessionArgument(const qf::cli::ParsedOptions& p, Checked& c) {
  c.readAfterWindow = opensAfterWindow(p, c);
  if (!c.sessionPath.isEmpty() && !c.readAfterWindow) {
    try {
      auto loaded = qf::loadSession(QFile::encodeName(c.sessionPath).toStdString());
      if (loaded) {
        c.session = std::move(*loaded);
      } else if (c.headless) {
        return badInput(loaded.error());
      }
    } catch (const std::exception& e) {
      if (c.headless) {
        return badInput(qf::Error{c.sessionPath.toStdString(), "", "session",
                                  std::string("cannot read: ") + e.what()});
      }
    }
  }

  return std::nullopt;
}

/// The scenario the window will start from (the session's, else the bundled example's, with
/// --model, --gpu, --tp, --schemes), checked as the engine checks it.
std::optional<int> checkScenario(const qf::cli::ParsedOptions& p, Checked& c) {
  c.explicitScenario = p.has("--model") || p.has("--gpu") || c.tp || p.has("--schemes");
  qf::ScenarioSpec& spec = c.spec;
  spec = c.session ? c.session->scenario : qf::ui::bundledExampleSession().scenario;
  if (p.has("--model")) spec.model = given(p, "--model").toStdString();
  if (p.has("--gpu")) spec.gpu = given(p, "--gpu").toStdString();
  if (c.tp) spec.tp = static_cast<int>(*c.tp);
  if (p.has("--schemes")) {
    spec.schemes.clear();
    for (const QString& s : given(p, "--schemes").split(',', Qt::SkipEmptyParts)) {
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
      const bool fromOption = (e.field == "model" && p.has("--model")) ||
                              (e.field == "gpu" && p.has("--gpu")) || (e.field == "tp" && c.tp) ||
                              (e.field == "schemes" && p.has("--schemes"));
      if (c.session && !fromOption && e.file.empty()) {
        e.file = QFile::encodeName(c.sessionPath).toStdString();
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
  if (auto cands =
          qf::makeCandidates(spec.schemes, spec.mixedLinear, spec.mixedMoe, spec.mixedLmHead);
      !cands) {
    qf::Error e = cands.error();
    if (e.field.empty() || e.field == "scheme") e.field = "schemes";
    return badInput(e);
  }
  return std::nullopt;
}

/// The headless exports: a view by name, or the --tab plot or the engine's data to a file;
/// none when the command line asks for none.
std::optional<int> runExport(qf::ui::MainWindow& window, const qf::cli::ParsedOptions& p,
                             const Checked& c) {
  if (!c.exportViewName.isEmpty()) {
    QElapsedTimer timer;
    timer.start();
    const QString out = given(p, "--out");
    window.showTab(tabOfView(c.exportViewName));
    const QString err = window.exportView(c.exportViewName, out, c.exportW, c.exportH);
    if (!err.isEmpty()) {
      std::cerr << "quantfront: " << err.toStdString() << "\n";
      return kExitBadInput;
    }
    if (qEnvironmentVariableIsSet("QF_EXPORT_TIMING")) {
      std::cerr << "quantfront: exported " << c.exportViewName.toStdString() << " in "
                << timer.elapsed() << " ms\n";
    }
    return kExitOk;
  }
  if (c.exportFormat) {
    const QString path = given(p, "--export");
    QString err;
    if (qf::ui::isPlotFormat(*c.exportFormat)) {
      window.showTab(c.tab);
      err = qf::ui::exportPlotFile(window.currentPlot(), path, c.exportW, c.exportH);
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

  return std::nullopt;
}

/// The window, interactive: autosave and recovery, then the event loop (or a session dump or
/// a screenshot).
int runWindow(qf::ui::MainWindow& window, const qf::cli::ParsedOptions& p, const Checked& c) {
  // Interactive: autosave this window's unsaved work, and first offer what a crashed one
  // left, before anything is written.
  window.startAutosave(QString(), static_cast<int>(*c.intervalMs));
  if (c.recover != "ask") {
    const auto choice = c.recover == "accept"    ? qf::ui::RecoveryChoice::Recover
                        : c.recover == "discard" ? qf::ui::RecoveryChoice::Discard
                                                 : qf::ui::RecoveryChoice::Later;
    window.setRecoveryPrompt([choice](const qf::ui::AutosaveInfo&) { return choice; });
  }
  // The window opens on the step-time view unless --tab says otherwise or a session was
  // opened explicitly (then its saved tab).
  if (p.has("--tab") || !c.session) window.showTab(c.tab);
  if (p.has("--screenshot")) window.resize(c.exportW, c.exportH);
  if (!p.has("--dump-session")) window.show();
  const bool recovered = window.offerRecovery();
  if (!recovered && p.has("--apply-as-edit")) window.editScenario(c.spec);
  // Recovered work stands in for the session, as it does when the session was read first.
  if (!recovered && c.readAfterWindow) {
    window.openSessionWhenShown(c.sessionPath, p.has("--tab") ? c.tab : QString());
  }
  if (p.has("--dump-session")) {
    const QString dump = given(p, "--dump-session");
    if (auto e = qf::saveSessionAtomic(window.session(), QFile::encodeName(dump).toStdString())) {
      std::cerr << "quantfront: " << qf::optionsAsFlags(e->str()) << "\n";
      return kExitBadInput;
    }
    return kExitOk;
  }
  if (p.has("--screenshot")) {
    const QString shot = given(p, "--screenshot");
    QTimer::singleShot(1500, &window, [&window, shot] {
      if (window.grab().save(shot, "PNG")) {
        QApplication::quit();
      } else {
        std::cerr << "quantfront: " << shot.toStdString()
                  << ": field 'screenshot': cannot write the PNG\n";
        QApplication::exit(kExitBadInput);
      }
    });
  }
  return QApplication::exec();
}

}  // namespace

int main(int argc, char** argv) {
  qf::setCommandLine(argc, argv);  // named by the JSON it exports
  // The whole command line is parsed and checked before QApplication exists, so a bad option
  // is the same one line and status 2 with or without a display (QApplication itself aborts
  // when it finds no display).
  int parseRc = kExitOk;
  const QStringList qtFree = argumentsBeforeApplication(argc, argv);
  std::vector<std::string> args;
  for (qsizetype i = 1; i < qtFree.size(); ++i) {
    const std::string a = qtFree[i].toLocal8Bit().toStdString();
    if (a == "--") continue;  // what follows is positional
    args.push_back(a == "-v" ? "--version" : a);
  }
  const auto parsed =
      qf::cli::parseCommand(quantfrontCommand(), args, std::cout, std::cerr, parseRc);
  if (!parsed) return parseRc;
  const qf::cli::ParsedOptions& p = *parsed;
  if (p.flag("--version")) {
    std::cout << "QuantFront " << qf::qfrontVersion() << "\n";
    return kExitOk;
  }
  // A broken install (its data folder or a file in it missing) is one line and status 2; when
  // started from the desktop menu there is no terminal, so a display also gets a dialog.
  if (const auto missing = qf::missingResource()) {
    std::cerr << "quantfront: " << *missing << "\n";
    if (environmentSet("DISPLAY") || environmentSet("WAYLAND_DISPLAY")) {
      QApplication app(argc, argv);
      QMessageBox::critical(
          nullptr, "QuantFront cannot start",
          QString::fromStdString("QuantFront is not installed completely.\n\n" + *missing));
    }
    return kExitBadInput;
  }
  Checked c;
  if (auto rc = checkSessionArgument(p, c)) return *rc;
  c.headless = p.has("--export") || p.has("--dump-session");
  // Every option is checked before a window exists.
  if (auto rc = checkScalarOptions(p, c)) return *rc;
  if (auto rc = checkOutputsSpareSession(p, c)) return *rc;
  if (auto rc = checkExport(p, c)) return *rc;
  if (auto rc = loadSessionArgument(p, c)) return *rc;
  if (auto rc = checkScenario(p, c)) return *rc;
  // Every option is good: now the application, which needs a display unless the run is
  // headless (an export or a session dump renders offscreen).
  if (!c.headless && !environmentSet("QT_QPA_PLATFORM") && !environmentSet("DISPLAY") &&
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
  QApplication::setDesktopFileName("quantfront");
  QApplication::setWindowIcon(QIcon(":/icons/quantfront.svg"));

  qf::ui::MainWindow window;
  // Measure runs qfront-measure in a child process: a kernel fault ends the child, never the
  // window or the open session. Without it (a build without CUDA) Measure says so. A headless
  // export measures nothing, so it does not start the child to ask for devices (0.1 s).
  if (const std::string measure =
          p.has("--export")
              ? std::string()
              : qf::findMeasureExecutable(QCoreApplication::applicationFilePath().toStdString());
      !measure.empty()) {
    window.setMeasurementBackend(qf::makeChildProcessBackend(measure));
  }
  if (c.session) {
    window.setSession(std::move(*c.session), c.sessionPath);
  } else if (!c.sessionPath.isEmpty() && !c.readAfterWindow) {
    // In the window a bad session is a message; the example session stays.
    window.openSessionWhenShown(c.sessionPath);
  }
  if (!p.has("--apply-as-edit") && (c.explicitScenario || !c.session)) window.setScenario(c.spec);
  if (!window.lastError().isEmpty()) {
    std::cerr << "quantfront: " << window.lastError().toStdString() << "\n";
    return kExitBadInput;
  }
  if (auto rc = runExport(window, p, c)) return *rc;
  return runWindow(window, p, c);
}
