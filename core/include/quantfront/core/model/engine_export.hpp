#pragma once
/// The engine's data as files, the same for `qfront model --format csv|json` and the window's
/// Export data: one implementation.
#include <string>

#include <quantfront/core/model/engine.hpp>

namespace qf {

/// CSV: `scheme,batch,step_ms,tokens_per_s,bound,compute_eff,bw_eff,overhead_ms,
/// efficiency_source`, one row per scheme and batch; the efficiency columns say which values
/// produced each row (the linear kind's η_P, η_β, t0 and where they came from).
std::string engineCsvText(const EngineReport& report);

/// The report as the CLI's JSON contract (see README).
Json reportToJson(const EngineReport& r);

/// reportToJson with the program version and output format version, indented, one newline.
std::string engineJsonText(const EngineReport& report);

}  // namespace qf
