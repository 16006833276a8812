#pragma once
/// The window's one way of working off the GUI thread. A job runs `work` on a worker thread
/// and hands its result to `apply` on the GUI thread. Jobs run in lanes (the serving
/// statistics, an import, a measurement, a deployment search, a Pareto
/// analysis); each job of a lane gets the next
/// generation number, and a result is applied only if no newer job of its lane started since, so a
/// stale result never overwrites a newer one. A job can be asked to stop (its `cancelled` flag);
/// its result is still applied, saying it stopped. Programmatic callers that need the result now
/// (an export, an accessor) wait() for it.
#include <QObject>
#include <QThread>
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace qf::ui {

class Background : public QObject {
  Q_OBJECT
 public:
  enum class Lane { Serving, Import, Measure, Deploy, Pareto, Open, Calibrate, Count };

  explicit Background(QObject* parent = nullptr);
  /// Asks every job to stop and waits for them; nothing is applied any more.
  ~Background() override;

  /// Starts `work` (called on a worker thread with the job's stop flag) in `lane`; `apply`
  /// gets its result on this object's thread if the job is still the lane's newest when it
  /// ends. A job whose work throws applies nothing. Returns the job's generation.
  template <class R>
  std::uint64_t run(Lane lane, std::function<R(const std::atomic<bool>& cancelled)> work,
                    std::function<void(R&&)> apply);
  /// True while the lane's newest job has not been applied.
  [[nodiscard]] bool busy(Lane lane) const;
  /// Blocks until the lane's newest job has ended and applies its result now (nothing to do
  /// when the lane is idle).
  void wait(Lane lane);
  /// Asks the lane's newest job to stop; its result is still applied.
  void cancel(Lane lane);
  /// The generation of the lane's newest job (0: none yet).
  [[nodiscard]] std::uint64_t generation(Lane lane) const { return m_generation[index(lane)]; }
  /// Asks the lane's jobs to stop and drops their results: none of them is applied.
  void abandon(Lane lane);
  /// Asks every job to stop, waits for them and applies nothing more (a window closing).
  void stopAll();

 private:
  struct Job {
    Lane lane;
    std::uint64_t generation = 0;
    QThread* thread = nullptr;
    std::shared_ptr<std::atomic<bool>> cancelled;
    std::function<void()> apply;  ///< applies the stored result (on this thread)
  };
  static std::size_t index(Lane lane) { return static_cast<std::size_t>(lane); }
  std::uint64_t start(Lane lane, std::shared_ptr<std::atomic<bool>> cancelled,
                      std::function<void()> body, std::function<void()> apply);
  /// A job's thread ended: joins it and applies its result if it is still its lane's newest.
  void ended(Lane lane, std::uint64_t generation);

  std::array<std::uint64_t, static_cast<std::size_t>(Lane::Count)> m_generation{};
  std::vector<Job> m_jobs;  ///< started and not yet ended, superseded ones too
};

template <class R>
std::uint64_t Background::run(Lane lane, std::function<R(const std::atomic<bool>&)> work,
                              std::function<void(R&&)> apply) {
  auto cancelled = std::make_shared<std::atomic<bool>>(false);
  auto result = std::make_shared<std::optional<R>>();
  auto body = [work = std::move(work), cancelled, result] {
    try {
      result->emplace(work(*cancelled));
    } catch (...) {
      // Nothing to apply: callers turn errors into results (guarded) before they get here.
    }
  };
  auto applyResult = [result, apply = std::move(apply)] {
    if (*result) apply(std::move(**result));
  };
  return start(lane, std::move(cancelled), std::move(body), std::move(applyResult));
}

}  // namespace qf::ui
