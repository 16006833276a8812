// GUI benchmark: the Pareto tab with many candidates (offscreen platform, 1500×920).
// Builds N candidates (default 10^5) with a score, a latency and a memory figure (some with
// 95% intervals), shows them, then times
//   - load: setContents until the frontier is shown (analysis on the worker, table, plot) once,
//     and the longest wait of input meanwhile, the candidates handed over as the window hands
//     them (the document's visible candidates, shared: the hand-over is timed apart);
//   - hover: a mouse move over the plot (nearest point, tooltip text) — median over 200 moves;
//   - pan: a mouse drag step of 6 px with the plot redrawn at once — median over 120 steps.
// Prints JSON.
#include <QApplication>
#include <QMouseEvent>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include <quantfront/core/base/version.hpp>
#include <quantfront/ui/document.hpp>
#include <quantfront/ui/pareto_view.hpp>

#include "synthetic_candidates.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

nlohmann::json summary(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {{"n", v.size()},
          {"median_ms", v[v.size() / 2]},
          {"p90_ms", v[v.size() * 9 / 10]},
          {"max_ms", v.back()}};
}

void mouse(QWidget* w, QEvent::Type type, QPointF pos, Qt::MouseButtons buttons) {
  QMouseEvent e(type, pos, w->mapToGlobal(pos),
                type == QEvent::MouseMove ? Qt::NoButton : Qt::LeftButton, buttons, Qt::NoModifier);
  QApplication::sendEvent(w, &e);
}

}  // namespace

int main(int argc, char** argv) {
  qf::setCommandLine(argc, argv);
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 100000;
  std::mt19937_64 rng(7);
  std::vector<qf::Candidate> cands = qf::bench::syntheticCandidates(n, rng);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  // The candidates in a session opened by the window (moved in, as it moves them).
  qf::ui::Document doc;
  {
    qf::Session session;
    session.candidates = std::move(cands);
    doc.load(std::move(session));
  }
  qf::ui::ParetoView view;
  view.resize(1500, 920);
  view.show();
  QApplication::processEvents();
  // Two objectives on the axes; memory is the colour (the view's default third metric).
  const std::vector<qf::Objective> objectives = {{"gsm8k_exact_match", qf::Direction::Max},
                                                 {"tpot_p99_ms", qf::Direction::Min}};
  // The load as the window runs it: setContents returns once the analysis is on the worker,
  // and the result is drawn when it comes (analysed()). A 2 ms timer stands in for input:
  // the longest gap between its ticks is how long input waited.
  std::vector<double> gaps, viewGaps;
  auto last = Clock::now();
  auto copied = last;
  QTimer tick;
  tick.setInterval(2);
  QObject::connect(&tick, &QTimer::timeout, [&] {
    const auto now = Clock::now();
    gaps.push_back(ms(last, now));
    // The view's own share: the first gap after the hand-over counts from the copy's end.
    viewGaps.push_back(viewGaps.empty() ? ms(copied, now) : gaps.back());
    last = now;
  });
  bool shown = false, drawn = false;
  QObject::connect(&view, &qf::ui::ParetoView::analysed, [&] { shown = true; });
  // The frontier is on screen once the plot has replotted after the result came (its replot
  // is queued, as in the window: input is handled between the two).
  QObject::connect(view.plot(), &QCustomPlot::afterReplot, [&] { drawn = shown; });
  tick.start();
  const auto t0 = Clock::now();
  last = t0;
  // Handed over as the window hands the view its visible candidates: the document's, shared
  // (timed apart: the caller's, not the view's).
  auto handed = doc.visibleCandidates();
  copied = Clock::now();
  view.setContents(std::move(handed), objectives, {});
  const auto returned = Clock::now();
  while (!drawn) QApplication::processEvents(QEventLoop::WaitForMoreEvents);
  const auto t1 = Clock::now();
  gaps.push_back(ms(last, t1));
  viewGaps.push_back(viewGaps.empty() ? ms(copied, t1) : gaps.back());
  tick.stop();
  QApplication::processEvents();

  QCustomPlot* plot = view.plot();
  const QRect area = plot->axisRect()->rect();
  std::vector<double> hover;
  int hits = 0;
  for (int i = 0; i < 200; ++i) {
    const QPointF pos(area.left() + u(rng) * area.width(), area.top() + u(rng) * area.height());
    const auto a = Clock::now();
    mouse(plot, QEvent::MouseMove, pos, Qt::NoButton);
    const auto b = Clock::now();
    hover.push_back(ms(a, b));
    if (!view.plot()->candidateAt(pos).isEmpty()) ++hits;
  }

  std::vector<double> pan;
  QPointF pos = area.center();
  mouse(plot, QEvent::MouseButtonPress, pos, Qt::LeftButton);
  for (int i = 0; i < 120; ++i) {
    pos += QPointF(i < 60 ? 6 : -6, i % 2 ? 3 : -3);
    const auto a = Clock::now();
    mouse(plot, QEvent::MouseMove, pos, Qt::LeftButton);
    plot->replot(QCustomPlot::rpImmediateRefresh);
    const auto b = Clock::now();
    pan.push_back(ms(a, b));
  }
  mouse(plot, QEvent::MouseButtonRelease, pos, Qt::NoButton);

  const auto counts = view.plot()->classCounts();
  nlohmann::json out{
      {"benchmark", "Pareto tab: load, hover and pan with many candidates"},
      {"candidates", n},
      {"classes",
       {{"frontier", counts[0]},
        {"uncertain", counts[1]},
        {"dominated", counts[2]},
        {"gated_out", counts[3]}}},
      {"load_ms", ms(t0, t1)},
      {"load_longest_input_gap_ms", *std::max_element(gaps.begin(), gaps.end())},
      {"handover_copy_ms", ms(t0, copied)},
      {"set_contents_ms", ms(copied, returned)},
      {"view_longest_input_gap_ms", *std::max_element(viewGaps.begin(), viewGaps.end())},
      {"hover", summary(hover)},
      {"hover_hits", hits},
      {"pan", summary(pan)}};
  qf::writeJsonOutput(std::cout, std::move(out));
  return 0;
}
