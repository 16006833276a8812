// The window measures through core's MeasurementBackend: a fake one here, so the Measure
// action is exercised without CUDA (ui/ neither includes nor links it).
#include <catch2/catch.hpp>

#include <QApplication>
#include <QLabel>
#include <QPushButton>
#include <QTest>
#include <filesystem>
#include <memory>

#include <quantfront/core/base/kernels.hpp>
#include <quantfront/core/session/measure_process.hpp>
#include <quantfront/core/session/measurement.hpp>
#include <quantfront/ui/main_window.hpp>

#include "support/qt_app.hpp"

namespace {

/// Two devices; measuring yields one valid GEMM record, one invalid one and an environment run.
class FakeBackend final : public qf::MeasurementBackend {
 public:
  std::vector<qf::MeasureDevice> devices(std::string&) override {
    return {{0, "Fake GPU", 9, 0, 132, 80.0}, {1, "Second fake", 9, 0, 132, 80.0}};
  }
  qf::Result<qf::MeasurementBatch> measure(const qf::MeasureRequest& request,
                                           const qf::MeasureProgress& progress) override {
    lastRequest = request;
    qf::KernelMeasurement k;
    k.kind = qf::KernelKind::Gemm;
    k.scheme = "bf16";
    k.kernel = qf::kernelName(k.kind, k.scheme);
    k.device = "Fake GPU";
    k.m = 16;
    k.n = 4096;
    k.k = 4096;
    k.medianS = 2e-5;
    k.flops = 2.0 * 16 * 4096 * 4096;
    if (progress && !progress(&k, 0.5, "gemm_bf16 bf16 m=16")) return cancelled();
    if (progress && !progress(nullptr, 1.0, "gemm_int8 w8a8-int8 m=16")) return cancelled();
    qf::MeasurementBatch b;
    b.records.push_back(k);
    qf::ImportedRun env;
    env.format = qf::kMeasureRunFormat;
    env.kind = qf::RunKind::Kernels;
    env.sourceFile = qf::kMeasureRunFormat;
    b.runs.push_back(env);
    return b;
  }
  qf::MeasureRequest lastRequest;

 private:
  static qf::MeasurementBatch cancelled() {
    qf::MeasurementBatch b;
    b.cancelled = true;
    return b;
  }
};

}  // namespace

TEST_CASE("Measure runs the plugged-in backend and adds what it measured", "[ui][measure]") {
  qf::testing::app();
  qf::ui::MainWindow w;
  auto* measure = w.findChild<QPushButton*>("measure");
  auto* status = w.findChild<QLabel*>("gpuStatus");
  REQUIRE(measure);
  REQUIRE(status);
  // Without a backend there is nothing to measure with.
  CHECK_FALSE(measure->isEnabled());

  auto backend = std::make_shared<FakeBackend>();
  w.setMeasurementBackend(backend);
  CHECK(measure->isEnabled());
  CHECK(status->text().contains("Fake GPU"));

  const std::size_t records = w.session().kernelMeasurements.size();
  const std::size_t runs = w.session().importedRuns.size();
  measure->click();
  // The backend runs on a worker thread; the button reads Measure again when it is done.
  REQUIRE(QTest::qWaitFor([&] { return measure->text() == "Measure"; }, 10000));
  CHECK(w.session().kernelMeasurements.size() == records + 1);
  CHECK(w.session().importedRuns.size() == runs + 1);
  CHECK(w.session().kernelMeasurements.back().kind == qf::KernelKind::Gemm);
  // The request named the scenario's model and only schemes the kernels can time.
  CHECK(backend->lastRequest.model.name == w.report()->scenario.model.name);
  REQUIRE_FALSE(backend->lastRequest.schemes.empty());
  for (const auto& s : backend->lastRequest.schemes) CHECK(qf::measurableScheme(s) != nullptr);

  w.setMeasurementBackend(nullptr);
  CHECK_FALSE(measure->isEnabled());
}

#ifdef QF_MEASURE_EXE
TEST_CASE("the window's executable finds qfront-measure in the build tree and asks it for devices",
          "[ui][measure]") {
  const std::string found = qf::findMeasureExecutable(QF_QUANTFRONT_EXE);
  REQUIRE_FALSE(found.empty());
  CHECK(std::filesystem::equivalent(found, QF_MEASURE_EXE));
  // Through the child-process backend: the real qfront-measure answers (here without a GPU:
  // no device and the reason; with one: its name).
  auto backend = qf::makeChildProcessBackend(found);
  std::string why;
  const auto devices = backend->devices(why);
  CHECK((devices.empty() ? !why.empty() : !devices.front().name.empty()));
}
#endif
