// quantfront: the GUI. With --export it renders a plot headless and exits (no window shown),
// for scripts and design-review pipelines.
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>
#include <iostream>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/version.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/plot_style.hpp>
#include <quantfront/ui/plots.hpp>

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("QuantFront");
  QApplication::setOrganizationName("QuantFront");
  QApplication::setApplicationVersion(qf::qfrontVersion());

  QCommandLineParser parser;
  parser.setApplicationDescription(
      "QuantFront: decode step time, capacity and the quality/latency/memory frontier of "
      "quantization schemes.");
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption modelOpt("model", "Catalog model id or config.json path.", "ID|FILE");
  QCommandLineOption gpuOpt("gpu", "Catalog GPU id or GPU JSON path.", "ID|FILE");
  QCommandLineOption schemesOpt("schemes", "Comma-separated scheme ids.", "S,S,...");
  QCommandLineOption tpOpt("tp", "Tensor-parallel degree.", "N");
  QCommandLineOption exportOpt("export", "Render the plot to FILE (.png, .pdf, .svg) and exit.", "FILE");
  QCommandLineOption tabOpt("tab", "Tab to show or export: step, throughput, schemes, pareto, candidates.", "TAB", "step");
  QCommandLineOption sizeOpt("size", "Export size in pixels, WxH (default 1600x1000).", "WxH", "1600x1000");
  QCommandLineOption shotOpt("screenshot", "Grab the whole window to FILE (.png) after start-up and exit.", "FILE");
  parser.addOptions({modelOpt, gpuOpt, schemesOpt, tpOpt, exportOpt, tabOpt, sizeOpt, shotOpt});
  parser.process(app);

  qf::ui::MainWindow window;
  qf::ScenarioSpec spec = window.scenario();
  if (parser.isSet(modelOpt)) spec.model = parser.value(modelOpt).toStdString();
  if (parser.isSet(gpuOpt)) spec.gpu = parser.value(gpuOpt).toStdString();
  if (parser.isSet(tpOpt)) spec.tp = parser.value(tpOpt).toInt();
  if (parser.isSet(schemesOpt)) {
    spec.schemes.clear();
    for (const QString& s : parser.value(schemesOpt).split(',', Qt::SkipEmptyParts)) {
      spec.schemes.push_back(s.trimmed().toStdString());
    }
  }
  window.setScenario(spec);
  if (!window.lastError().isEmpty()) {
    std::cerr << "quantfront: " << window.lastError().toStdString() << "\n";
    if (parser.isSet(exportOpt)) return 2;
  }
  if (parser.isSet(exportOpt)) {
    const QStringList wh = parser.value(sizeOpt).split('x');
    const int w = wh.size() == 2 ? wh[0].toInt() : qf::ui::kExportWidthPx;
    const int h = wh.size() == 2 ? wh[1].toInt() : qf::ui::kExportHeightPx;
    if (w < 64 || h < 64 || w > 20000 || h > 20000) {
      std::cerr << "quantfront: <cli>: field 'size': expected WxH between 64 and 20000 pixels\n";
      return 2;
    }
    window.showTab(parser.value(tabOpt));
    QCustomPlot* plot = window.currentPlot();
    if (!plot) {
      std::cerr << "quantfront: <cli>: field 'tab': expected step, throughput or pareto\n";
      return 2;
    }
    const QString err = qf::ui::exportPlot(plot, parser.value(exportOpt), w, h);
    if (!err.isEmpty()) {
      std::cerr << "quantfront: " << err.toStdString() << "\n";
      return 1;
    }
    return 0;
  }
  if (parser.isSet(tabOpt)) window.showTab(parser.value(tabOpt));
  window.show();
  if (parser.isSet(shotOpt)) {
    const QString path = parser.value(shotOpt);
    QTimer::singleShot(1500, &window, [&window, path] {
      window.grab().save(path);
      QApplication::quit();
    });
  }
  return app.exec();
}
