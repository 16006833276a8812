// GUI benchmark: does the window handle input while the Serving tab's statistics (bootstraps
// over every run's per-request records) are computed? The 18-run request-rate sweep of the
// test data is imported and attached, then the Serving tab is clicked while a 2 ms timer
// stands in for input; the longest gap between two of its ticks is how long input waited.
// Measured twice in one run: off the GUI thread (the tab clicked, as a user does) and on it
// (updateServing() from a tick, as every serving update was before). Prints JSON: medians
// over the repetitions of the statistics' wall time and of the longest input gap.
#include <QApplication>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include <quantfront/core/base/version.hpp>
#include <quantfront/ui/background.hpp>
#include <quantfront/ui/evidence_view.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/serving_plot.hpp>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// Runs `start`, then the event loop until `done()`, with a 2 ms timer ticking: returns
/// {wall ms, longest gap between ticks in ms}.
template <class Start, class Done>
std::pair<double, double> probe(Start start, Done done) {
  QElapsedTimer clock;
  clock.start();
  qint64 last = 0;
  double gap = 0;
  QTimer tick;
  tick.setInterval(2);
  QObject::connect(&tick, &QTimer::timeout, [&] {
    const qint64 now = clock.nsecsElapsed();
    gap = std::max(gap, static_cast<double>(now - last) / 1e6);
    last = now;
  });
  tick.start();
  last = clock.nsecsElapsed();
  start();
  while (!done()) QApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
  QApplication::processEvents();  // the tick that was waiting, if one was
  const double wall = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  return {wall, gap};
}

}  // namespace

int main(int argc, char** argv) {
  qf::setCommandLine(argc, argv);
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const int reps = argc > 1 ? std::atoi(argv[1]) : 7;
  qf::ui::MainWindow w;
  w.show();
  const QDir dir(QString(QF_TEST_DATA_DIR) + "/import/sweep");
  QStringList files, names;
  for (const QString& f : dir.entryList({"vllm_serve_*.json"}, QDir::Files, QDir::Name)) {
    files << dir.filePath(f);
    names << QFileInfo(f).fileName();
  }
  w.importFiles(files);
  w.evidenceView()->selectRuns(names);
  w.attachRuns(qf::ui::AttachRequest{w.evidenceView()->selectedDigests(), std::nullopt, {}});
  auto* tabs = w.findChild<QTabWidget*>();
  int serving = 0;
  for (int i = 0; i < tabs->count(); ++i) {
    if (tabs->tabBar()->tabData(i).toString() == "serving") serving = i;
  }
  auto* slo = w.findChild<QDoubleSpinBox*>("sloTtft");
  std::vector<double> offWall, offGap, onWall, onGap;
  for (int r = 0; r < reps; ++r) {
    // Something the statistics depend on changes while another tab is shown, then the user
    // clicks the Serving tab.
    w.showTab("step");
    slo->setValue(slo->value() > 0 ? 0 : 50);
    const auto [wall, gap] =
        probe([&] { tabs->tabBar()->setCurrentIndex(serving); },
              [&] { return !w.background()->busy(qf::ui::Background::Lane::Serving); });
    offWall.push_back(wall);
    offGap.push_back(gap);
    // The same statistics on the GUI thread.
    bool finished = false;
    const auto [wall2, gap2] = probe(
        [&] {
          QTimer::singleShot(0, &w, [&] {
            w.updateServing();
            finished = true;
          });
        },
        [&] { return finished; });
    onWall.push_back(wall2);
    onGap.push_back(gap2);
  }
  // What stays on the GUI thread: the tab switch and the plot drawn once the statistics
  // come (a full replot of the Serving tab's plot, timed alone).
  std::vector<double> replotMs;
  for (int r = 0; r < reps; ++r) {
    QElapsedTimer t;
    t.start();
    w.servingPlot()->replot();
    replotMs.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
  }
  nlohmann::json out{
      {"benchmark",
       "input while the Serving tab's statistics are computed (18-run sweep, bootstraps): "
       "the longest gap between 2 ms timer ticks"},
      {"repetitions", reps},
      {"off_gui_thread",
       {{"statistics_wall_median_ms", median(offWall)},
        {"input_gap_median_ms", median(offGap)},
        {"input_gap_max_ms", *std::max_element(offGap.begin(), offGap.end())}}},
      {"on_gui_thread",
       {{"statistics_wall_median_ms", median(onWall)}, {"input_gap_median_ms", median(onGap)}}},
      {"serving_plot_replot_median_ms", median(replotMs)}};
  qf::writeJsonOutput(std::cout, std::move(out));
  return 0;
}
