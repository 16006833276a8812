// quantfront: the GUI. With --export it renders a plot (or the engine's data) headless and
// exits (no window shown), for scripts and design-review pipelines. Options are checked as
// qfront checks them: a bad value exits with status 2 and one line naming the option.
#include <QApplication>
#include <QCommandLineParser>
#include <QFile>
#include <QTimer>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/error.hpp>
#include <quantfront/core/base/version.hpp>
#include <quantfront/core/model/scenario_spec.hpp>
#include <quantfront/core/session/session.hpp>
#include <quantfront/ui/autosave.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/plot_export.hpp>
#include <quantfront/ui/plot_style.hpp>

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

const QStringList kTabs = {"step", "throughput", "schemes", "pareto", "candidates"};
const QStringList kPlotTabs = {"step", "throughput", "pareto"};

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("QuantFront");
  QApplication::setOrganizationName("QuantFront");
  QApplication::setApplicationVersion(qf::qfrontVersion());

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
  QCommandLineOption exportOpt(
      "export",
      "Render the plot to FILE (.png, .pdf, .svg) or write the engine's data (.csv, .json) "
      "and exit. A failed write exits with status 2 and leaves an existing FILE intact.",
      "FILE");
  QCommandLineOption tabOpt("tab",
                            "Tab to show or export: step, throughput, schemes, pareto, candidates.",
                            "TAB", "step");
  QCommandLineOption sizeOpt("size", "Export size in pixels, WxH (default 1600x1000).", "WxH",
                             "1600x1000");
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
  parser.addOptions({modelOpt, gpuOpt, schemesOpt, tpOpt, exportOpt, tabOpt, sizeOpt, shotOpt,
                     recoverOpt, dumpOpt, intervalOpt, asEditOpt});
  if (!parser.parse(QApplication::arguments())) {
    std::cerr << "quantfront: " << kCommandLine << ": " << parser.errorText().toStdString()
              << " (see quantfront --help)\n";
    return kExitBadInput;
  }
  if (parser.isSet(helpOpt)) parser.showHelp(kExitOk);
  if (parser.isSet(versionOpt)) parser.showVersion();
  if (!parser.positionalArguments().isEmpty()) {
    const std::string arg = parser.positionalArguments().front().toStdString();
    return badOption(arg, "unexpected argument '" + arg + "' (see quantfront --help)");
  }

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
  int exportW = qf::ui::kExportWidthPx;
  int exportH = qf::ui::kExportHeightPx;
  {
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
  if (parser.isSet(exportOpt)) {
    exportFormat = qf::ui::exportFormatFor(parser.value(exportOpt));
    if (!exportFormat) {
      return badOption("export",
                       "expected a file ending in .png, .pdf, .svg, .csv or .json, found '" +
                           parser.value(exportOpt).toStdString() + "'");
    }
    if (qf::ui::isPlotFormat(*exportFormat) && !kPlotTabs.contains(tab)) {
      return badOption("tab", "expected step, throughput or pareto for a plot export, found '" +
                                  tab.toStdString() + "'");
    }
  }

  qf::ui::MainWindow window;
  qf::ScenarioSpec spec = window.scenario();
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
    if (auto scen = qf::resolveScenario(spec); !scen) return badInput(scen.error());
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
  if (!parser.isSet(asEditOpt)) window.setScenario(spec);
  if (!window.lastError().isEmpty()) {
    std::cerr << "quantfront: " << window.lastError().toStdString() << "\n";
    return kExitBadInput;
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
  window.showTab(tab);
  if (!parser.isSet(dumpOpt)) window.show();
  const bool recovered = window.offerRecovery();
  if (!recovered && parser.isSet(asEditOpt)) window.editScenario(spec);
  if (parser.isSet(dumpOpt)) {
    const QString path = parser.value(dumpOpt);
    if (auto e = qf::saveSessionAtomic(window.session(), QFile::encodeName(path).toStdString())) {
      std::cerr << "quantfront: " << e->str() << "\n";
      return kExitBadInput;
    }
    return kExitOk;
  }
  if (parser.isSet(shotOpt)) {
    const QString path = parser.value(shotOpt);
    QTimer::singleShot(1500, &window, [&window, path] {
      window.grab().save(path);
      QApplication::quit();
    });
  }
  return QApplication::exec();
}
