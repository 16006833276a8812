// The CUDA measurement backend (backend.hpp): an adapter from core's interface to measure().
#include <quantfront/cuda/backend.hpp>

#include <quantfront/core/base/text.hpp>
#include <quantfront/cuda/device.hpp>
#include <quantfront/cuda/measure.hpp>
#include <quantfront/cuda/measure_session.hpp>

namespace qf::cuda {

namespace {

class CudaBackend final : public MeasurementBackend {
 public:
  std::vector<MeasureDevice> devices(std::string& why) override { return queryDevices(why); }

  Result<MeasurementBatch> measure(const MeasureRequest& request,
                                   const MeasureProgress& progress) override {
    std::vector<std::string> schemes;
    for (const auto& s : request.schemes) {
      if (measurableScheme(s) != nullptr) schemes.push_back(s);
    }
    const MeasureConfig plan = planForModel(request.model, schemes, defaultMList(request.quick),
                                            request.quick, request.device);
    const MeasureResult result = cuda::measure(plan, [&](const MeasureRecord& r, double done) {
      if (!progress) return true;
      const std::string what = r.kernel + " " + r.scheme + " m=" + std::to_string(r.m);
      if (!r.valid) return progress(nullptr, done, what);
      const KernelMeasurement k = toKernelMeasurement(r, r.device, request.sourceLabel);
      return progress(&k, done, what);
    });
    if (!result.error.empty() && result.records.empty()) {
      return Error{"", "", "device", result.error};
    }
    MeasurementBatch batch = measurementBatch(result, plan, request.model.name, utcTimestamp());
    batch.error = result.error;  // what was measured before a run-stopping error is kept
    return batch;
  }
};

}  // namespace

std::shared_ptr<MeasurementBackend> makeCudaBackend() {
  return std::make_shared<CudaBackend>();
}

}  // namespace qf::cuda
