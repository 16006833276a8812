// Offscreen: a session that holds kernel measurements shows measured step-time points with
// error bars, the calibrated curves beside the datasheet ones, and the residual view.
#include <catch2/catch.hpp>

#include <QImage>
#include <QLabel>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <cmath>

#include <nlohmann/json.hpp>
#include <quantfront/core/model/gemm_shapes.hpp>
#include <quantfront/core/session/attach_runs.hpp>
#include <quantfront/core/session/e2e_evidence.hpp>
#include <quantfront/ui/background.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/measured_view.hpp>
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

namespace {

/// A latency run of `candidate` (batch 1, 1,024 → 512 tokens) that measured `seconds`.
qf::ImportedRun latencyRun(const std::string& file, const std::string& candidate, double seconds) {
  qf::ImportedRun r;
  r.kind = qf::RunKind::Latency;
  r.format = "vllm-latency";
  r.sourceFile = file;
  r.sha256 = std::string(64, file.back());
  r.metrics["latency_p50_s"] = seconds;
  if (!candidate.empty()) r.setup[qf::kCandidateSetupKey] = candidate;
  std::vector<qf::ImportedRun> runs{r};
  qf::stampStaticBatch(runs, qf::StaticBatch{1, 1024, 512});
  return runs.front();
}

}  // namespace

TEST_CASE("imported end-to-end runs are drawn and listed against the model", "[ui][e2e]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  qf::Session s;
  qf::Candidate c;
  c.id = "8b-bf16";
  c.model = "llama-3-8b";
  c.schemeLinear = "bf16";
  c.gpu = "h100-sxm";
  s.candidates.push_back(c);
  s.importedRuns = {latencyRun("lat-a.json", "8b-bf16", 4.0),
                    latencyRun("lat-b.json", "8b-bf16", 5.0),
                    latencyRun("lat-c.json", "", 5.0)};  // attached to nothing: left out
  w.setSession(s, QString());
  qf::ui::MeasuredView* view = w.measuredView();
  REQUIRE(view);
  // Computed when the tab is shown (as the Serving sweeps are).
  w.showTab("measured");
  REQUIRE(w.currentTabKey() == "measured");
  REQUIRE(view->rows().size() == 2);
  CHECK(view->table()->rowCount() == 2);
  CHECK(view->e2ePlot()->pointCount() == 2);
  CHECK(view->exportPlot() == view->e2ePlot());
  // No kernel records: the kernel residual plot steps aside for the end-to-end one.
  CHECK(view->kernelPlot()->isHidden());
  CHECK_FALSE(view->e2ePlot()->isHidden());

  // The table's figures are core's comparison, row by row.
  const auto& r = view->rows()[0];
  CHECK(view->table()->item(0, 1)->text() == "8b-bf16");
  CHECK(view->table()->item(0, 2)->text() == "lat-a.json");
  CHECK(view->table()->item(0, 3)->text() == "e2e_latency_s");
  CHECK(view->table()->item(0, 7)->text() == "4 s");
  CHECK(view->table()->item(0, 10)->text() == QString::number(r.calibrated.value, 'g', 3));
  const double err = 100.0 * (r.calibrated.value / 4.0 - 1.0);
  CHECK(view->table()->item(0, 12)->text() ==
        QString("%1%2%").arg(err > 0 ? "+" : "").arg(QString::number(err, 'f', 1)));
  CHECK(view->summaryText().contains("2 end-to-end measurements"));
  CHECK(view->summaryText().contains("datasheet roofline"));
  CHECK(view->findChild<QLabel*>("e2eNotes")->text().contains("lat-c.json"));

  // The legend tells calibrated and datasheet apart.
  QStringList names;
  for (int i = 0; i < view->e2ePlot()->graphCount(); ++i)
    names << view->e2ePlot()->graph(i)->name();
  CHECK(names.contains("bf16  calibrated (bar: 80% interval)"));
  CHECK(names.contains("bf16  datasheet roofline"));

  // Exporting the tab draws the end-to-end plot.
  QTemporaryDir dir;
  const QString png = dir.filePath("measured.png");
  CHECK(w.exportView("measured", png, 800, 500).isEmpty());
  CHECK(QImage(png).width() == 800);
}

TEST_CASE("File > Calibrate fits the session's runs, shows them, and applies them undoably",
          "[ui][e2e][calibrate]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  qf::Session s;
  for (const char* scheme : {"bf16", "w4a16-g128"}) {
    qf::Candidate c;
    c.id = std::string("8b-") + scheme;
    c.model = "llama-3-8b";
    c.schemeLinear = scheme;
    c.gpu = "h100-sxm";
    s.candidates.push_back(c);
  }
  // Measured 30% slower than the bundled H100 constants say, at four batches per scheme.
  int n = 0;
  for (const char* id : {"8b-bf16", "8b-w4a16-g128"}) {
    for (double seconds : {6.0, 6.5, 7.5, 9.0}) {
      auto r = latencyRun("cal-" + std::to_string(n++) + ".json", id, seconds);
      std::vector<qf::ImportedRun> runs{r};
      qf::stampStaticBatch(runs, qf::StaticBatch{std::pow(4.0, n % 4), 1024, 512});
      s.importedRuns.push_back(runs.front());
    }
  }
  w.setSession(s, QString());
  const QString before = w.windowTitle();
  REQUIRE(before.contains("bundled constants"));

  // Declined: nothing changes.
  const qf::SessionCalibration* shown = nullptr;
  qf::SessionCalibration seen;
  w.setCalibrationPrompt([&](const qf::SessionCalibration& c) {
    seen = c;
    shown = &seen;
    return false;
  });
  // The fits run off the GUI thread: input that arrives once they have started is handled
  // while they run.
  bool handled = false, fittingWhenHandled = false;
  QTimer::singleShot(0, &w, [&] {
    handled = true;
    fittingWhenHandled = w.background()->busy(qf::ui::Background::Lane::Calibrate);
  });
  CHECK(w.calibrateInteractive() == "Calibration not applied");
  CHECK(handled);
  CHECK(fittingWhenHandled);
  CHECK_FALSE(w.background()->busy(qf::ui::Background::Lane::Calibrate));
  REQUIRE(shown);
  CHECK(seen.points == 8);
  CHECK_FALSE(seen.fit.constants.empty());
  REQUIRE(seen.heldOut);
  CHECK(seen.heldOut->scored == 4);
  CHECK_FALSE(w.session().scenario.gpuSpec.has_value());
  CHECK(w.windowTitle() == before);

  // Accepted: the scenario's GPU carries the calibration, the title says whose it is, and one
  // undo takes it back.
  w.setCalibrationPrompt([](const qf::SessionCalibration&) { return true; });
  CHECK(w.calibrateInteractive().startsWith("Calibrated "));
  REQUIRE(w.session().scenario.gpuSpec.has_value());
  CHECK(w.session().scenario.gpuSpec->calibration.has_value());
  INFO(w.windowTitle().toStdString());
  CHECK(w.windowTitle().contains("your calibration: File > Calibrate on"));
  w.undoStack()->undo();
  CHECK_FALSE(w.session().scenario.gpuSpec.has_value());
  CHECK(w.windowTitle().contains("bundled constants"));
  CHECK_FALSE(w.windowTitle().contains("your calibration"));
}

TEST_CASE("measured vs model with nothing measured shows its note and no empty legend",
          "[ui][measured]") {
  qf::testing::app();
  qf::ui::ResidualPlot plot;
  plot.setOverlay({}, "Llama-3.1-8B on H100");
  CHECK(plot.pointCount() == 0);
  CHECK(plot.legend->itemCount() == 0);
  CHECK_FALSE(plot.legend->visible());  // a legend box naming nothing was drawn before
}
