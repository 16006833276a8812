// Offscreen: the scenario panel's edited GPU drives the window's engine, is one undo step,
// survives a save and reopen, and an invalid figure changes nothing.
#include <catch2/catch.hpp>

#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>

#include <nlohmann/json.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/scenario_panel.hpp>

#include "support/qt_app.hpp"

using qf::ui::GpuEditChoice;
using qf::ui::GpuFieldTexts;

namespace {

qf::GpuSpec catalogGpu(const std::string& id) {
  auto gpu = qf::Catalog::bundled().resolveGpu(id);
  REQUIRE(gpu.ok());
  return *gpu;
}

/// The window's memory floor of its first scheme, ms.
double floorMs(const qf::ui::MainWindow& w) {
  REQUIRE(w.report().has_value());
  REQUIRE_FALSE(w.report()->schemes.empty());
  return w.report()->schemes.front().memoryFloorMs;
}

QString gpuLabel(const qf::ui::ScenarioPanel& panel) {
  return panel.findChild<QComboBox*>("gpu")->currentText();
}

}  // namespace

TEST_CASE("GPU fields: prefilled from the GPU, read back as its document", "[ui][gpu-edit]") {
  const qf::GpuSpec h100 = catalogGpu("h100-sxm");
  GpuFieldTexts t = qf::ui::gpuFieldTexts(h100);
  CHECK(t.name == "H100 SXM 80GB");
  CHECK(t.hbmBandwidthTBps == "3.35");
  CHECK(t.tensorTflops[static_cast<std::size_t>(qf::TensorPath::Fp4)].isEmpty());  // no fp4 path

  t.hbmBandwidthTBps = " 1.675 ";
  t.tensorTflops[static_cast<std::size_t>(qf::TensorPath::Fp8)].clear();  // drop the fp8 path
  t.pricePerGpuHourUsd = "2.5";
  auto g = qf::ui::editedGpu(h100, t);
  if (!g) FAIL(g.error().str());
  CHECK(g->id == "h100-sxm");
  CHECK(g->hbmBandwidthTBps == 1.675);
  CHECK_FALSE(g->hasPath(qf::TensorPath::Fp8));
  CHECK(g->tensorTflops[static_cast<std::size_t>(qf::TensorPath::Bf16)] ==
        989.4);  // H100 SXM dense bf16, kept as it was
  CHECK(g->pricePerGpuHourUsd == 2.5);
  CHECK(g->priceSource == "entered by hand");
  CHECK(g->source == h100.source);
  // The same figures as the catalog's: equal to it, so no edit.
  auto same = qf::ui::editedGpu(h100, qf::ui::gpuFieldTexts(h100));
  REQUIRE(same.ok());
  CHECK(*same == h100);

  // Errors name the field and the text or value at fault.
  struct Bad {
    QString GpuFieldTexts::*field;
    QString text;
    std::string key;
    std::string says;
  };
  const Bad cases[] = {
      {&GpuFieldTexts::hbmBandwidthTBps, "-1", "hbm_bandwidth_tbs", "found -1"},
      {&GpuFieldTexts::hbmBandwidthTBps, "fast", "hbm_bandwidth_tbs", "found 'fast'"},
      {&GpuFieldTexts::memoryGib, "1e308", "memory_gib", "found 1e+308"},
      {&GpuFieldTexts::memoryGib, "", "memory_gib", "missing"},
      {&GpuFieldTexts::nvlinkGBps, "0", "nvlink_gbs", "found 0"},
  };
  for (const auto& bad : cases) {
    GpuFieldTexts b = qf::ui::gpuFieldTexts(h100);
    b.*(bad.field) = bad.text;
    INFO(bad.key << " = '" << bad.text.toStdString() << "'");
    auto r = qf::ui::editedGpu(h100, b);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().field == bad.key);
    CHECK_THAT(r.error().message, Catch::Contains(bad.says));
  }
  GpuFieldTexts noBf16 = qf::ui::gpuFieldTexts(h100);
  noBf16.tensorTflops[static_cast<std::size_t>(qf::TensorPath::Bf16)].clear();
  noBf16.tensorTflops[static_cast<std::size_t>(qf::TensorPath::Fp16)].clear();
  auto r = qf::ui::editedGpu(h100, noBf16);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().field == "tensor_tflops");
}

TEST_CASE("edited GPU: the window recomputes, undo restores, the session keeps it",
          "[ui][gpu-edit]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  qf::ui::ScenarioPanel* panel = w.scenarioPanel();
  REQUIRE(w.scenario().gpu == "h100-sxm");
  const double before = floorMs(w);
  const int steps = w.undoStack()->count();
  CHECK_FALSE(w.isModified());

  // Halve the bandwidth: bytes / bandwidth at batch 1, so the floor doubles.
  GpuFieldTexts t = qf::ui::gpuFieldTexts(catalogGpu("h100-sxm"));
  t.hbmBandwidthTBps = "1.675";
  REQUIRE_FALSE(panel->applyGpuEdit(t).has_value());
  CHECK(floorMs(w) / before == Approx(2.0).epsilon(1e-12));
  CHECK(w.scenario().gpu == "h100-sxm");
  CHECK(w.scenario().gpuSpec.has_value());
  CHECK(gpuLabel(*panel) == "H100 SXM 80GB (edited)");
  CHECK(w.isModified());
  REQUIRE(w.undoStack()->count() == steps + 1);
  CHECK(w.undoStack()->undoText() == "change of GPU");

  // An invalid figure: an error naming the field, nothing changed, no undo step.
  t.hbmBandwidthTBps = "-3";
  const auto err = panel->applyGpuEdit(t);
  REQUIRE(err.has_value());
  CHECK(err->field == "hbm_bandwidth_tbs");
  CHECK(floorMs(w) / before == Approx(2.0).epsilon(1e-12));
  CHECK(w.undoStack()->count() == steps + 1);

  // Saved and opened again: the edited copy and its floor come back.
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString path = dir.filePath("edited.json");
  REQUIRE(w.saveSessionTo(path).isEmpty());
  {
    qf::ui::MainWindow w2;
    REQUIRE(w2.openSession(path));
    CHECK(w2.scenario().gpuSpec == w.scenario().gpuSpec);
    CHECK(floorMs(w2) / before == Approx(2.0).epsilon(1e-12));
    CHECK(gpuLabel(*w2.scenarioPanel()) == "H100 SXM 80GB (edited)");
  }

  // Undo: the catalog figures again; redo: the edit again.
  w.undoStack()->undo();
  CHECK(floorMs(w) == Approx(before).epsilon(1e-12));
  CHECK_FALSE(w.scenario().gpuSpec.has_value());
  CHECK(gpuLabel(*panel) == "H100 SXM 80GB");
  w.undoStack()->redo();
  CHECK(floorMs(w) / before == Approx(2.0).epsilon(1e-12));
  CHECK(gpuLabel(*panel) == "H100 SXM 80GB (edited)");

  // Choosing another GPU drops the edited copy (it belonged to the H100).
  auto spec = w.scenario();
  spec.gpu = "a100-80gb";
  spec.gpuSpec.reset();
  w.setScenario(spec);
  CHECK_FALSE(w.scenario().gpuSpec.has_value());
  CHECK(gpuLabel(*panel) == "A100 SXM 80GB");
}

TEST_CASE("Edit GPU button: the editor's choice is applied, reset and cancel", "[ui][gpu-edit]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  qf::ui::ScenarioPanel* panel = w.scenarioPanel();
  auto* button = panel->findChild<QPushButton*>("editGpu");
  REQUIRE(button);
  CHECK_FALSE(button->toolTip().isEmpty());
  const double before = floorMs(w);

  GpuEditChoice next;
  bool shownEdited = true;
  QString shownBandwidth;
  panel->setGpuEditor([&](const qf::GpuSpec& current, bool edited) {
    shownEdited = edited;
    shownBandwidth = qf::ui::gpuFieldTexts(current).hbmBandwidthTBps;
    return next;
  });

  // Apply: a quarter of the bandwidth, four times the floor.
  next.action = GpuEditChoice::Action::Apply;
  next.texts = qf::ui::gpuFieldTexts(catalogGpu("h100-sxm"));
  next.texts.hbmBandwidthTBps = "0.8375";
  button->click();
  CHECK_FALSE(shownEdited);
  CHECK(shownBandwidth == "3.35");
  CHECK(floorMs(w) / before == Approx(4.0).epsilon(1e-12));

  // The editor is prefilled from the edited copy; Cancel changes nothing.
  next.action = GpuEditChoice::Action::Cancel;
  const int steps = w.undoStack()->count();
  button->click();
  CHECK(shownEdited);
  CHECK(shownBandwidth == "0.8375");
  CHECK(w.undoStack()->count() == steps);
  CHECK(floorMs(w) / before == Approx(4.0).epsilon(1e-12));

  // Reset to catalog: the datasheet figures, one more undo step.
  next.action = GpuEditChoice::Action::Reset;
  button->click();
  CHECK_FALSE(w.scenario().gpuSpec.has_value());
  CHECK(floorMs(w) == Approx(before).epsilon(1e-12));
  CHECK(w.undoStack()->count() == steps + 1);

  // Figures equal to the catalog's are no edit.
  next.action = GpuEditChoice::Action::Apply;
  next.texts = qf::ui::gpuFieldTexts(catalogGpu("h100-sxm"));
  button->click();
  CHECK_FALSE(w.scenario().gpuSpec.has_value());
  CHECK(w.undoStack()->count() == steps + 1);
}

TEST_CASE("Edit GPU dialog: an invalid figure keeps it open with the field named",
          "[ui][gpu-edit]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  qf::ui::ScenarioPanel* panel = w.scenarioPanel();
  const double before = floorMs(w);
  bool stayedOpen = false;
  QString errorShown;
  bool resetEnabled = true;
  // The dialog is modal: drive it from the event loop it runs.
  QTimer::singleShot(0, [&] {
    auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
    REQUIRE(dialog);
    auto* bandwidth = dialog->findChild<QLineEdit*>("hbm_bandwidth_tbs");
    auto* buttons = dialog->findChild<QDialogButtonBox*>();
    REQUIRE(bandwidth);
    REQUIRE(buttons);
    resetEnabled = dialog->findChild<QPushButton*>("resetGpu")->isEnabled();
    CHECK(bandwidth->text() == "3.35");
    bandwidth->setText("-1");
    buttons->button(QDialogButtonBox::Ok)->click();
    stayedOpen = dialog->isVisible();
    errorShown = dialog->findChild<QLabel*>("gpuEditError")->text();
    bandwidth->setText("1.675");
    buttons->button(QDialogButtonBox::Ok)->click();
  });
  panel->editGpu();
  CHECK(stayedOpen);
  CHECK_FALSE(resetEnabled);  // nothing to reset yet
  CHECK(errorShown.contains("HBM bandwidth"));
  CHECK(errorShown.contains("found -1"));
  CHECK(floorMs(w) / before == Approx(2.0).epsilon(1e-12));

  // Cancel changes nothing.
  const std::optional<qf::GpuSpec> edited = w.scenario().gpuSpec;
  QTimer::singleShot(0, [&] {
    auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
    REQUIRE(dialog);
    dialog->findChild<QLineEdit*>("hbm_bandwidth_tbs")->setText("0.5");
    dialog->reject();
  });
  panel->editGpu();
  REQUIRE(edited.has_value());
  CHECK(w.scenario().gpuSpec == edited);
}
