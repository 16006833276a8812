// The one way a measurement enters a session (measurement.hpp).
#include <quantfront/core/session/measurement.hpp>

namespace qf {

void addMeasurements(Session& session, const MeasurementBatch& batch) {
  if (batch.cancelled) return;
  session.kernelMeasurements.insert(session.kernelMeasurements.end(), batch.records.begin(),
                                    batch.records.end());
  session.importedRuns.insert(session.importedRuns.end(), batch.runs.begin(), batch.runs.end());
}

}  // namespace qf
