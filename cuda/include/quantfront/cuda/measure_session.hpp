#pragma once
/// From a model to a measurement plan, and from measurements to a session: what
/// qfront-measure and the window's Measure action share. Plain C++ (no CUDA headers).
#include <cstdint>
#include <string>
#include <vector>

#include <quantfront/core/base/records.hpp>
#include <quantfront/core/model/model_config.hpp>
#include <quantfront/core/session/measurement.hpp>
#include <quantfront/core/session/session.hpp>
#include <quantfront/cuda/measure.hpp>

namespace qf::cuda {

/// M ∈ {1, 2, 4, …, 4096} (full) or {1, 4, 16, 64, 256, 1024, 4096} (quick).
std::vector<std::int64_t> defaultMList(bool quick);

/// A measurement plan for `model`: its decode GEMM shapes (distinct N×K), `schemes`, `mList`.
MeasureConfig planForModel(const ModelArch& model, const std::vector<std::string>& schemes,
                           const std::vector<std::int64_t>& mList, bool quick, int device);

/// One valid record as a session record; `device` stands in when the record names none.
KernelMeasurement toKernelMeasurement(const MeasureRecord& record, const std::string& device,
                                      const std::string& sourceLabel);

/// The valid records of `result` as session records (invalid ones are never stored: a kernel
/// that failed its check has no time). `sourceLabel` names the run (e.g. "qfront-measure").
std::vector<KernelMeasurement> toKernelMeasurements(const MeasureResult& result,
                                                    const std::string& sourceLabel);

/// A run of format "qfront-measure" recording where and how the records were measured:
/// device, SM count, clocks, memory, driver/runtime/cuBLASLt versions, the program version and
/// git commit, the date (UTC), the model, schemes and M list, and counts of valid/invalid records.
ImportedRun environmentRun(const MeasureResult& result, const MeasureConfig& config,
                           const std::string& modelName, const std::string& dateUtc);

/// What `result` adds to a session (qf::addMeasurements): its valid records and the
/// environment run; cancelled when the measurement was.
MeasurementBatch measurementBatch(const MeasureResult& result, const MeasureConfig& config,
                                  const std::string& modelName, const std::string& dateUtc);

/// The git commit the binary was built from, 12 digits, "-dirty" when tracked files had changed
/// ("unknown" outside a repository): qf::gitCommit and qf::gitDirty, abbreviated.
std::string buildGitSha();

}  // namespace qf::cuda
