// GUI benchmark: does the window handle input while it opens a session of many candidates?
// Writes a session of N candidates (default 10^5; a score, a latency and a memory figure
// each, some with 95% intervals), then opens it in a window on the Pareto tab (File > Open,
// as a user does) while a 2 ms timer stands in for input, until the frontier is drawn. The
// longest gap between two ticks is how long input waited. Prints JSON: the file's size, the
// time openSession took (the read off the GUI thread, then the session put in place), the
// time until the frontier was shown, and the longest input gap during the read, during the
// session's hand-over to the views, and after, until the frontier was drawn.
#include <QApplication>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include <quantfront/core/base/version.hpp>
#include <quantfront/core/session/session.hpp>
#include <quantfront/ui/background.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/pareto_plot.hpp>
#include <quantfront/ui/pareto_view.hpp>

#include "synthetic_candidates.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

qf::Session manyCandidates(int n) {
  std::mt19937_64 rng(7);
  qf::Session s;
  s.candidates = qf::bench::syntheticCandidates(n, rng);
  s.view.objectives = {{"gsm8k_exact_match", qf::Direction::Max},
                       {"tpot_p99_ms", qf::Direction::Min}};
  s.view.tab = "pareto";
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  qf::setCommandLine(argc, argv);
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 100000;
  QTemporaryDir dir;
  if (!dir.isValid()) {
    std::cerr << "bench_open_session: no temporary directory\n";
    return 1;
  }
  const std::string path = dir.filePath("many.json").toStdString();
  if (const auto e = qf::saveSessionAtomic(manyCandidates(n), path)) {
    std::cerr << "bench_open_session: " << e->str() << "\n";
    return 1;
  }

  qf::ui::MainWindow w;
  w.resize(1500, 920);
  w.show();
  QApplication::processEvents();

  // The phases, by the time their first tick came: reading (the Open lane busy), handing
  // over (openSession not yet returned, the read done), then until the frontier is drawn.
  enum Phase { Reading, HandingOver, Drawing };
  Phase phase = Reading;
  double longest[3] = {0, 0, 0};
  auto last = Clock::now();
  QTimer tick;
  tick.setInterval(2);
  QObject::connect(&tick, &QTimer::timeout, [&] {
    const auto now = Clock::now();
    const Phase at = phase == Reading && !w.background()->busy(qf::ui::Background::Lane::Open)
                         ? HandingOver
                         : phase;
    longest[at] = std::max(longest[at], ms(last, now));
    last = now;
  });
  bool shown = false, drawn = false;
  QObject::connect(w.paretoView(), &qf::ui::ParetoView::analysed, [&] { shown = true; });
  QObject::connect(w.paretoView()->plot(), &QCustomPlot::afterReplot, [&] { drawn = shown; });
  tick.start();
  const auto t0 = Clock::now();
  last = t0;
  const bool opened = w.openSession(QString::fromStdString(path));
  const auto t1 = Clock::now();
  longest[phase == Reading ? HandingOver : phase] =
      std::max(longest[phase == Reading ? HandingOver : phase], ms(last, t1));
  phase = Drawing;
  last = t1;
  while (opened && !drawn) QApplication::processEvents(QEventLoop::WaitForMoreEvents);
  const auto t2 = Clock::now();
  longest[Drawing] = std::max(longest[Drawing], ms(last, t2));
  tick.stop();

  nlohmann::json out{
      {"benchmark", "open a session of many candidates in the window, on the Pareto tab"},
      {"candidates", n},
      {"file_bytes", std::filesystem::file_size(path)},
      {"opened", opened},
      {"open_session_ms", ms(t0, t1)},
      {"until_frontier_shown_ms", ms(t0, t2)},
      {"longest_input_gap_reading_ms", longest[Reading]},
      {"longest_input_gap_handing_over_ms", longest[HandingOver]},
      {"longest_input_gap_drawing_ms", longest[Drawing]}};
  qf::writeJsonOutput(std::cout, std::move(out));
  return opened ? 0 : 1;
}
