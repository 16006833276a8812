#pragma once
/// Merging whole sessions: a fleet of GPU nodes each writes its own measured session
/// (scripts/measure-fleet.sbatch); `qfront merge` combines them. Kernel records keep their
/// device, so a later calibration fits one device at a time.
#include <cstddef>
#include <string>
#include <vector>

#include <quantfront/core/session/session.hpp>

namespace qf {

/// What mergeSession did.
struct SessionMergeResult {
  std::size_t measurementsAdded = 0;
  std::size_t measurementsDuplicate = 0;  ///< identical records already present
  std::size_t runsAdded = 0;
  std::size_t runsDuplicate = 0;  ///< same digest, or the same measurement run again
  std::size_t candidatesAdded = 0;
  std::vector<std::string> warnings;  ///< candidates left out (id taken by another)
};

/// Adds `from`'s kernel measurements, imported runs and candidates to `into`. Records are
/// keyed by kernel, scheme, device and shape; under one key every record is kept (two nodes'
/// measurements of one shape are both evidence) except a copy of one already there, equal
/// bit for bit in every figure and source (merging a session twice adds nothing);
/// a run with the same SHA-256 (or, for runs without a file digest, the same format, label and
/// setup) is a duplicate; a candidate whose id `into` already has is kept as it is in `into`
/// (a warning names it). The scenario and view of `into` stay.
SessionMergeResult mergeSession(Session& into, const Session& from);

}  // namespace qf
