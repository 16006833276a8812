// GUI benchmark: recompute + replot after an input change (offscreen platform), the step-time
// tab in view: the window draws a hidden plot when it is shown, so the throughput plot's
// refresh and replot are timed apart (with_throughput_plot_median_ms).
// Alternates the GPU between H100 SXM and A100 so that every iteration redraws new data.
// Axes: the schemes (the window's default three, or eight built-in ones) over B = 1..4096, at
// the window's 400 log-spaced batches (plus every power of two) or at 4,096 batches per curve.
// Each repetition is one input change; the harness prints JSON with, per point, the median
// and p90 over the repetitions.
#include <QApplication>
#include <algorithm>
#include <chrono>
#include <iostream>
#include <vector>

#include <quantfront/core/model/catalog.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/plots.hpp>

#include "harness.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double msBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

int main(int argc, char** argv) {
  qf::bench::Suite suite(argc, argv);
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  qf::ui::MainWindow w;
  w.show();
  QApplication::processEvents();
  const auto initial = w.scenario();
  suite
      .add("recompute_replot",
           [&w, &initial](qf::bench::State& st) {
             auto spec = initial;
             if (st.axis("schemes") != "default") {
               if (!st.axis("schemes").is_number()) {
                 return st.fail("axis 'schemes': expected 'default' or a count");
               }
               const auto count = static_cast<std::size_t>(st.number("schemes"));
               spec.schemes.clear();
               for (const auto& s : qf::Catalog::bundled().schemes()) {
                 if (spec.schemes.size() < count) spec.schemes.push_back(s.id);
               }
               spec.batchMin = 1;
               spec.batchMax = 4096;
             }
             w.setCurvePoints(static_cast<int>(st.number("points_per_curve")));
             std::vector<double> ms, recomputeMs, replotMs, bothMs;
             int i = 0;
             st.exec([&] {
               spec.gpu = i++ % 2 ? "a100-80gb" : "h100-sxm";
               const auto t0 = Clock::now();
               w.setScenario(spec);
               const auto t1 = Clock::now();
               w.stepTimePlot()->replot(QCustomPlot::rpImmediateRefresh);
               const auto t2 = Clock::now();
               // The hidden throughput plot, brought up to date and drawn as when its tab is
               // shown: the figure this benchmark measured before the window drew hidden plots
               // on demand.
               w.throughputPlot()->replot(QCustomPlot::rpImmediateRefresh);
               const auto t3 = Clock::now();
               ms.push_back(msBetween(t0, t2));
               recomputeMs.push_back(msBetween(t0, t1));
               replotMs.push_back(msBetween(t1, t2));
               bothMs.push_back(msBetween(t0, t3));
               QApplication::processEvents();
             });
             const auto report = w.report();
             st.set("schemes", report ? report->schemes.size() : 0);
             st.set("points_per_curve",
                    report && !report->schemes.empty() ? report->schemes.front().points.size() : 0);
             st.set("median_ms", qf::bench::quantile(ms, 0.5));
             st.set("p90_ms", qf::bench::quantile(ms, 0.9));
             st.set("min_ms", qf::bench::quantile(ms, 0.0));
             st.set("recompute_median_ms", qf::bench::quantile(recomputeMs, 0.5));
             st.set("replot_median_ms", qf::bench::quantile(replotMs, 0.5));
             st.set("with_throughput_plot_median_ms", qf::bench::quantile(bothMs, 0.5));
           })
      .about(
          "GUI recompute + replot after an input change, the step-time tab in view (median_ms); "
          "with the hidden throughput plot refreshed and drawn too "
          "(with_throughput_plot_median_ms)")
      .axis("schemes", {"default", 8})
      .axis("points_per_curve", {400, 4096})
      .repetitions(101);
  return suite.run(std::cout, std::cerr);
}
