#pragma once
/// A measurement backend that runs `qfront-measure` in a child process, so a kernel fault or a
/// lost CUDA context ends the child, never the window or its open session. The window's
/// Measure action uses it; the protocol (docs/architecture.md, "Measuring in a child
/// process"):
///   qfront-measure --list-devices      one JSON object on stdout: {"devices": [{"index",
///                                      "name", "sm_major", "sm_minor", "sm_count",
///                                      "memory_gib"}], "why": text when there are none}
///   qfront-measure --out TMP --model M --schemes LIST --device N [--quick] --progress-jsonl
///                                      one JSON line per record on stdout: {"done": fraction,
///                                      "what": text, "record": a session holding the record
///                                      when it is valid}; TMP holds the finished session
///                                      (records and the runs saying where and how)
/// SIGTERM cancels the child (it leaves TMP as it was).
#include <memory>
#include <string>

#include <quantfront/core/session/measurement.hpp>

namespace qf {

/// The backend running `executable` (a path to qfront-measure).
std::shared_ptr<MeasurementBackend> makeChildProcessBackend(const std::string& executable);

/// qfront-measure beside `selfExecutable` (the same folder, or ../cuda in a build tree), else
/// empty when there is none.
std::string findMeasureExecutable(const std::string& selfExecutable);

}  // namespace qf
