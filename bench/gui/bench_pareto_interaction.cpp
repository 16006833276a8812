// GUI benchmark: the Pareto tab with many candidates (offscreen platform, 1500×920).
// Builds N candidates (axis `candidates`, 10^5) with a score, a latency and a memory figure
// (some with 95% intervals), shows them, then times
//   - load: setContents until the frontier is shown (analysis on the worker, table, plot), and
//     the longest wait of input meanwhile, the candidates handed over as the window hands them
//     (the document's visible candidates, shared: the hand-over is timed apart). The first
//     repetition is a fresh view's load; later ones load the same candidates again;
//   - hover: a mouse move over the plot (nearest point, tooltip text), one per repetition;
//   - pan: a mouse drag step of 6 px with the plot redrawn at once, one per repetition.
// The harness prints JSON.
#include <QApplication>
#include <QMouseEvent>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <random>
#include <vector>

#include <quantfront/ui/document.hpp>
#include <quantfront/ui/pareto_view.hpp>

#include "harness.hpp"
#include "synthetic_candidates.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

void mouse(QWidget* w, QEvent::Type type, QPointF pos, Qt::MouseButtons buttons) {
  QMouseEvent e(type, pos, w->mapToGlobal(pos),
                type == QEvent::MouseMove ? Qt::NoButton : Qt::LeftButton, buttons, Qt::NoModifier);
  QApplication::sendEvent(w, &e);
}

/// One load as the window runs it: setContents returns once the analysis is on the worker, and
/// the result is drawn when it comes (analysed()). A 2 ms timer stands in for input: the
/// longest gap between its ticks is how long input waited.
struct Load {
  double loadMs = 0, longestGapMs = 0, handoverMs = 0, setContentsMs = 0, viewLongestGapMs = 0;
  /// Every wait of input over 16 ms (a frame): when it ended and how long it was, ms.
  std::vector<std::pair<double, double>> longGaps;
};

Load load(qf::ui::ParetoView& view, qf::ui::Document& doc,
          const std::vector<qf::Objective>& objectives) {
  std::vector<double> gaps, viewGaps;
  std::vector<std::pair<double, double>> longGaps;
  auto last = Clock::now();
  auto t0 = last;
  auto copied = last;
  QTimer tick;
  tick.setInterval(2);
  QObject::connect(&tick, &QTimer::timeout, [&] {
    const auto now = Clock::now();
    gaps.push_back(ms(last, now));
    if (gaps.back() > 16) longGaps.emplace_back(ms(t0, now), gaps.back());
    // The view's own share: the first gap after the hand-over counts from the copy's end.
    viewGaps.push_back(viewGaps.empty() ? ms(copied, now) : gaps.back());
    last = now;
  });
  bool shown = false, drawn = false;
  const auto a = QObject::connect(&view, &qf::ui::ParetoView::analysed, [&] { shown = true; });
  // The frontier is on screen once the plot has replotted after the result came (its replot
  // is queued, as in the window: input is handled between the two).
  const auto b = QObject::connect(view.plot(), &QCustomPlot::afterReplot, [&] { drawn = shown; });
  tick.start();
  t0 = Clock::now();
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
  if (gaps.back() > 16) longGaps.emplace_back(ms(t0, t1), gaps.back());
  viewGaps.push_back(viewGaps.empty() ? ms(copied, t1) : gaps.back());
  tick.stop();
  QObject::disconnect(a);
  QObject::disconnect(b);
  QApplication::processEvents();
  return {ms(t0, t1),
          *std::max_element(gaps.begin(), gaps.end()),
          ms(t0, copied),
          ms(copied, returned),
          *std::max_element(viewGaps.begin(), viewGaps.end()),
          std::move(longGaps)};
}

}  // namespace

int main(int argc, char** argv) {
  qf::bench::Suite suite(argc, argv);
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  // Two objectives on the axes; memory is the colour (the view's default third metric).
  const std::vector<qf::Objective> objectives = {{"gsm8k_exact_match", qf::Direction::Max},
                                                 {"tpot_p99_ms", qf::Direction::Min}};
  std::unique_ptr<qf::ui::Document> doc;
  std::unique_ptr<qf::ui::ParetoView> view;
  suite
      .add("load",
           [&](qf::bench::State& st) {
             // The candidates in a session opened by the window (moved in, as it moves them).
             view.reset();
             doc = std::make_unique<qf::ui::Document>();
             {
               qf::Session session;
               session.candidates =
                   qf::bench::syntheticCandidates(static_cast<int>(st.number("candidates")), rng);
               doc->load(std::move(session));
             }
             view = std::make_unique<qf::ui::ParetoView>();
             view->resize(1500, 920);
             view->show();
             QApplication::processEvents();
             std::vector<Load> loads;
             st.exec([&] { loads.push_back(load(*view, *doc, objectives)); });
             auto med = [&](double Load::*field) {
               std::vector<double> v;
               for (const Load& l : loads) v.push_back(l.*field);
               return qf::bench::median(v);
             };
             st.set("load_ms", med(&Load::loadMs));
             st.set("load_longest_input_gap_ms", med(&Load::longestGapMs));
             st.set("handover_copy_ms", med(&Load::handoverMs));
             st.set("set_contents_ms", med(&Load::setContentsMs));
             st.set("view_longest_input_gap_ms", med(&Load::viewLongestGapMs));
             // Where the first load's input waited: [ended at ms, waited ms].
             qf::bench::Json waits = qf::bench::Json::array();
             for (const auto& [at, gap] : loads.front().longGaps) waits.push_back({at, gap});
             st.set("first_load_waits_over_16_ms", std::move(waits));
             const auto counts = view->plot()->classCounts();
             st.set("classes", {{"frontier", counts[0]},
                                {"uncertain", counts[1]},
                                {"dominated", counts[2]},
                                {"gated_out", counts[3]}});
           })
      .about(
          "setContents until the frontier is shown, and the longest gap between 2 ms input ticks "
          "meanwhile (medians over the repetitions; the first is a fresh view's)")
      .axis("candidates", {100000})
      .repetitions(1);
  suite
      .add("hover",
           [&](qf::bench::State& st) {
             if (!view) return st.fail("no view: the load benchmark did not run");
             auto* plot = view->plot();
             const QRect area = plot->axisRect()->rect();
             std::vector<QPointF> moves;
             st.exec([&] {
               const QPointF pos(area.left() + u(rng) * area.width(),
                                 area.top() + u(rng) * area.height());
               mouse(plot, QEvent::MouseMove, pos, Qt::NoButton);
               moves.push_back(pos);
             });
             st.set("median_ms", st.medianWallS() * 1e3);
             // Outside the timed moves: how many landed on a point.
             int hits = 0;
             for (const QPointF& pos : moves) hits += plot->candidateAt(pos).isEmpty() ? 0 : 1;
             st.set("hits", hits);
           })
      .about("a mouse move over the loaded plot: nearest point and tooltip text")
      .repetitions(200);
  suite
      .add("pan",
           [&](qf::bench::State& st) {
             if (!view) return st.fail("no view: the load benchmark did not run");
             auto* plot = view->plot();
             QPointF pos = plot->axisRect()->rect().center();
             mouse(plot, QEvent::MouseButtonPress, pos, Qt::LeftButton);
             int i = 0;
             st.exec([&] {
               pos += QPointF(i < 60 ? 6 : -6, i % 2 ? 3 : -3);
               ++i;
               mouse(plot, QEvent::MouseMove, pos, Qt::LeftButton);
               plot->replot(QCustomPlot::rpImmediateRefresh);
             });
             mouse(plot, QEvent::MouseButtonRelease, pos, Qt::NoButton);
             st.set("median_ms", st.medianWallS() * 1e3);
           })
      .about("a 6 px drag step over the loaded plot, redrawn at once")
      .repetitions(120);
  const int rc = suite.run(std::cout, std::cerr);
  view.reset();
  return rc;
}
