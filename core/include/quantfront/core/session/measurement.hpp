#pragma once
/// Live kernel measurements as core sees them: a backend that lists devices and measures a
/// model's kernels, and the one way a measurement enters a session. cuda/ implements the
/// backend (qf::cuda::makeCudaBackend); the window and qfront-measure use it through this
/// interface, so ui/ neither includes nor links the CUDA library, and tests plug in a fake.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <quantfront/core/base/device.hpp>
#include <quantfront/core/base/error.hpp>
#include <quantfront/core/base/records.hpp>
#include <quantfront/core/model/model_config.hpp>
#include <quantfront/core/session/session.hpp>

namespace qf {

/// A device a backend can measure on.
using MeasureDevice = DeviceDescription;

/// What to measure: the kernels of `model`'s decode GEMM shapes for `schemes` (ids of
/// measurableSchemes(); others are left out).
struct MeasureRequest {
  ModelArch model;
  std::vector<std::string> schemes;
  bool quick = true;  ///< the short M list and time caps
  int device = 0;
  std::string sourceLabel = "quantfront Measure";  ///< names the run in the records' source
};

/// What a measurement adds to a session: the valid records and the runs recording where and
/// how they were measured.
struct MeasurementBatch {
  std::vector<KernelMeasurement> records;
  std::vector<ImportedRun> runs;
  bool cancelled = false;  ///< stopped before the plan finished (nothing is to be added)
  /// Set when an error stopped the run part way (a lost CUDA context): the records measured
  /// before it are kept and added; the error is shown beside them.
  std::string error;
};

/// Called after each record with the record (null when it was not valid), the fraction done
/// and what was measured; return false to cancel.
using MeasureProgress = std::function<bool(const KernelMeasurement* record, double fractionDone,
                                           const std::string& what)>;

class MeasurementBackend {
 public:
  virtual ~MeasurementBackend() = default;
  /// Devices to measure on; empty, with `why` set, when there are none.
  virtual std::vector<MeasureDevice> devices(std::string& why) = 0;
  /// Measures; an error says why nothing could be measured (no device, a CUDA failure).
  virtual Result<MeasurementBatch> measure(const MeasureRequest& request,
                                           const MeasureProgress& progress) = 0;
};

/// Appends the batch's records and runs to the session (a cancelled batch adds nothing):
/// what qfront-measure and the window's Measure action both do.
void addMeasurements(Session& session, const MeasurementBatch& batch);

}  // namespace qf
