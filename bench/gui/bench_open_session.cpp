// GUI benchmark: does the window handle input while it opens a session of many candidates?
// Writes a session of N candidates (axis `candidates`, 10^5; a score, a latency and a memory
// figure each, some with 95% intervals), then opens it in a new window on the Pareto tab
// (File > Open, as a user does) while a 2 ms timer stands in for input, until the frontier is
// drawn: one window per repetition. The longest gap between two ticks is how long input waited.
// The harness prints JSON: the file's size, the time openSession took (the read off the GUI
// thread, then the session put in place), the time until the frontier was shown, and the
// longest input gap during the read, during the session's hand-over to the views, and after,
// until the frontier was drawn (medians over the repetitions).
#include <QApplication>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>
#include <vector>

#include <quantfront/core/session/session.hpp>
#include <quantfront/ui/background.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/pareto_plot.hpp>
#include <quantfront/ui/pareto_view.hpp>

#include "harness.hpp"
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

/// What one opening measured, in ms.
struct Opening {
  bool opened = false;
  double openSession = 0, untilShown = 0, reading = 0, handingOver = 0, drawing = 0;
};

Opening openIn(qf::ui::MainWindow& w, const std::string& path) {
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
  return {opened, ms(t0, t1), ms(t0, t2), longest[Reading], longest[HandingOver], longest[Drawing]};
}

}  // namespace

int main(int argc, char** argv) {
  qf::bench::Suite suite(argc, argv);
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QTemporaryDir dir;
  if (!dir.isValid()) {
    std::cerr << "bench_open_session: no temporary directory\n";
    return 1;
  }
  suite
      .add("open",
           [&dir](qf::bench::State& st) {
             const int n = static_cast<int>(st.number("candidates"));
             const std::string path = dir.filePath(QString("many-%1.json").arg(n)).toStdString();
             if (const auto e = qf::saveSessionAtomic(manyCandidates(n), path)) {
               return st.fail(e->str());
             }
             std::vector<Opening> openings;
             st.exec([&] {
               qf::ui::MainWindow w;
               w.resize(1500, 920);
               w.show();
               QApplication::processEvents();
               openings.push_back(openIn(w, path));
             });
             if (std::any_of(openings.begin(), openings.end(),
                             [](const Opening& o) { return !o.opened; })) {
               return st.fail("the window did not open " + path);
             }
             auto med = [&](double Opening::*field) {
               std::vector<double> v;
               for (const Opening& o : openings) v.push_back(o.*field);
               return qf::bench::median(v);
             };
             st.set("file_bytes", std::filesystem::file_size(path));
             st.set("open_session_ms", med(&Opening::openSession));
             st.set("until_frontier_shown_ms", med(&Opening::untilShown));
             st.set("longest_input_gap_reading_ms", med(&Opening::reading));
             st.set("longest_input_gap_handing_over_ms", med(&Opening::handingOver));
             st.set("longest_input_gap_drawing_ms", med(&Opening::drawing));
           })
      .about(
          "open a session of many candidates in a new window, on the Pareto tab, until the "
          "frontier is drawn (wall_s includes the window's construction)")
      .axis("candidates", {100000})
      .repetitions(1);
  return suite.run(std::cout, std::cerr);
}
