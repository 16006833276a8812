// GUI benchmark: does the window handle input while the Serving tab's statistics (bootstraps
// over every run's per-request records) are computed? The 18-run request-rate sweep of the
// test data is imported and attached, then the Serving tab is clicked while a 2 ms timer
// stands in for input; the longest gap between two of its ticks is how long input waited.
// Measured twice in one run: off the GUI thread (the tab clicked, as a user does) and on it
// (updateServing() from a tick, as every serving update was before), one benchmark each;
// each repetition is one statistics run. The harness prints JSON: medians over the
// repetitions of the statistics' wall time and of the longest input gap.
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
#include <functional>
#include <iostream>
#include <vector>

#include <quantfront/ui/background.hpp>
#include <quantfront/ui/evidence_view.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/serving_plot.hpp>

#include "harness.hpp"

namespace {

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
  qf::bench::Suite suite(argc, argv);
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
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
  // Something the statistics depend on changes while another tab is shown.
  auto invalidate = [&] {
    w.showTab("step");
    slo->setValue(slo->value() > 0 ? 0 : 50);
  };
  // Each repetition: a change on another tab, then the statistics computed one way (`run`,
  // timed by probe: {wall ms, longest input gap ms}); medians over the repetitions.
  auto repeat = [&](qf::bench::State& st, const std::function<std::pair<double, double>()>& run) {
    std::vector<double> wall, gap;
    st.exec([&] {
      invalidate();
      const auto [w1, g1] = run();
      wall.push_back(w1);
      gap.push_back(g1);
    });
    st.set("runs", names.size());
    st.set("statistics_wall_median_ms", qf::bench::median(wall));
    st.set("input_gap_median_ms", qf::bench::median(gap));
    st.set("input_gap_max_ms", *std::max_element(gap.begin(), gap.end()));
  };
  suite
      .add("off_gui_thread",
           [&](qf::bench::State& st) {
             // The user clicks the Serving tab.
             repeat(st, [&] {
               return probe(
                   [&] { tabs->tabBar()->setCurrentIndex(serving); },
                   [&] { return !w.background()->busy(qf::ui::Background::Lane::Serving); });
             });
           })
      .about("the Serving tab clicked after a change: the statistics on the worker")
      .repetitions(7);
  suite
      .add("on_gui_thread",
           [&](qf::bench::State& st) {
             // The same statistics on the GUI thread.
             repeat(st, [&] {
               bool finished = false;
               return probe(
                   [&] {
                     QTimer::singleShot(0, &w, [&] {
                       w.updateServing();
                       finished = true;
                     });
                   },
                   [&] { return finished; });
             });
           })
      .about("the same statistics computed on the GUI thread (updateServing from a tick)")
      .repetitions(7);
  // What stays on the GUI thread: the tab switch and the plot drawn once the statistics come
  // (a full replot of the Serving tab's plot, timed alone).
  suite
      .add("serving_plot_replot",
           [&](qf::bench::State& st) {
             st.exec([&] { w.servingPlot()->replot(); });
             st.set("median_ms", st.medianWallS() * 1e3);
           })
      .about("a full replot of the Serving tab's plot")
      .repetitions(7);
  return suite.run(std::cout, std::cerr);
}
