// Offscreen: a session that holds kernel measurements shows measured step-time points with
// error bars, the calibrated curves beside the datasheet ones, and the residual view.
#include <catch2/catch.hpp>

#include <QTabWidget>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>
#include <quantfront/core/model/gemm_shapes.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/plots.hpp>

#include "support/qt_app.hpp"
#include "support/synthetic_measurements.hpp"

TEST_CASE("measured points, calibrated curves and residuals come from the session", "[ui]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  w.startAutosave(QTemporaryDir().path(), 60000);
  REQUIRE(w.report());
  // The example session has no kernel records: no overlay.
  CHECK(w.stepTimePlot()->measuredPointCount() == 0);
  CHECK(w.stepTimePlot()->calibratedCurveCount() == 0);

  qf::Session s = w.session();
  s.kernelMeasurements = qf::testing::synthetic("NVIDIA H100 80GB HBM3", 1.0);
  // Small-M GEMM records for bf16 so that the measured step time exists at B = 1..4096.
  for (const auto& shape : qf::decodeGemmShapes(w.report()->scenario.model)) {
    for (std::int64_t m : {1, 16, 256, 1024, 2048, 4096}) {
      const double bytes = 2.0 * static_cast<double>(shape.n * shape.k);
      const double flops = 2.0 * static_cast<double>(m * shape.n * shape.k);
      const double t = std::max(bytes / qf::testing::kBeta, flops / qf::testing::kBf16Flops);
      auto r =
          qf::testing::rec("gemm_bf16", "bf16", "NVIDIA H100 80GB HBM3", m, shape.n, shape.k, t);
      r.flops = flops;
      r.bytesMoved = bytes;
      s.kernelMeasurements.push_back(r);
    }
  }
  w.setSession(s, QString());
  REQUIRE(w.report());
  // bf16 is measured at six batches (the fp8 records start at M = 1024: three more).
  CHECK(w.stepTimePlot()->measuredPointCount() == 6 + 3);
  // One calibrated curve per scheme of the scenario (bf16, FP8, W4A16 in the example).
  CHECK(w.stepTimePlot()->calibratedCurveCount() == static_cast<int>(w.report()->schemes.size()));
  auto* residuals = w.findChild<qf::ui::ResidualPlot*>();
  REQUIRE(residuals);
  // Each measured point has a residual against the datasheet and the calibrated model.
  CHECK(residuals->pointCount() == 2 * (6 + 3));
  // The legend names the measured and calibrated series apart from the datasheet curves.
  QStringList names;
  for (int i = 0; i < w.stepTimePlot()->graphCount(); ++i) {
    names << w.stepTimePlot()->graph(i)->name();
  }
  CHECK(names.filter("(measured, NVIDIA H100 80GB HBM3)").size() == 2);
  CHECK(names.filter("(calibrated to NVIDIA H100 80GB HBM3)").size() == 3);
}
