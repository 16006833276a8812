// Event-based timing (see timing.hpp).
#include "timing.hpp"

#include "cuda_util.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace qf::cuda::detail {

namespace {

/// Owns a batch of event pairs.
class EventPairs {
 public:
  explicit EventPairs(int count)
      : m_start(static_cast<size_t>(count)), m_stop(static_cast<size_t>(count)) {
    for (size_t i = 0; i < m_start.size(); ++i) {
      QF_CUDA_CHECK(cudaEventCreate(&m_start[i]));
      QF_CUDA_CHECK(cudaEventCreate(&m_stop[i]));
    }
  }
  ~EventPairs() {
    for (cudaEvent_t e : m_start) {
      if (e != nullptr) cudaEventDestroy(e);
    }
    for (cudaEvent_t e : m_stop) {
      if (e != nullptr) cudaEventDestroy(e);
    }
  }
  EventPairs(const EventPairs&) = delete;
  EventPairs& operator=(const EventPairs&) = delete;
  cudaEvent_t start(int i) const { return m_start[static_cast<size_t>(i)]; }
  cudaEvent_t stop(int i) const { return m_stop[static_cast<size_t>(i)]; }

 private:
  std::vector<cudaEvent_t> m_start, m_stop;
};

constexpr int kBatch = 10;

}  // namespace

TimingResult timeRuns(const std::function<void(int64_t run)>& launch, const TimingOptions& options,
                      cudaStream_t stream) {
  EventPairs events(kBatch);
  int64_t run = 0;
  // First run: module load, lazy loading of the kernel, cuBLASLt kernel selection caches.
  QF_CUDA_CHECK(cudaEventRecord(events.start(0), stream));
  launch(run++);
  QF_CUDA_CHECK(cudaEventRecord(events.stop(0), stream));
  QF_CUDA_CHECK(cudaEventSynchronize(events.stop(0)));
  float firstMs = 0;
  QF_CUDA_CHECK(cudaEventElapsedTime(&firstMs, events.start(0), events.stop(0)));
  const int warmups =
      std::clamp(static_cast<int>(20.0 / std::max(static_cast<double>(firstMs), 1e-3)), 2, 50);
  for (int i = 0; i < warmups; ++i) launch(run++);

  std::vector<double> samples;
  double totalS = 0;
  TimingResult r;
  while (static_cast<int>(samples.size()) < options.maxSamples) {
    for (int b = 0; b < kBatch; ++b) {
      QF_CUDA_CHECK(cudaEventRecord(events.start(b), stream));
      launch(run++);
      QF_CUDA_CHECK(cudaEventRecord(events.stop(b), stream));
    }
    QF_CUDA_CHECK(cudaEventSynchronize(events.stop(kBatch - 1)));
    for (int b = 0; b < kBatch; ++b) {
      float ms = 0;
      QF_CUDA_CHECK(cudaEventElapsedTime(&ms, events.start(b), events.stop(b)));
      samples.push_back(static_cast<double>(ms) * 1e-3);
      totalS += static_cast<double>(ms) * 1e-3;
    }
    double mean = 0;
    for (double s : samples) mean += s;
    mean /= static_cast<double>(samples.size());
    double var = 0;
    for (double s : samples) var += (s - mean) * (s - mean);
    var /= static_cast<double>(samples.size() > 1 ? samples.size() - 1 : 1);
    r.relNoise = mean > 0 ? std::sqrt(var) / mean : 0;
    const bool enough = static_cast<int>(samples.size()) >= options.minSamples;
    if (enough && (r.relNoise <= options.maxRelNoise || totalS >= options.maxSeconds)) break;
  }
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  r.medianS = n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  r.minS = sorted.front();
  r.samples = static_cast<int64_t>(n);
  return r;
}

}  // namespace qf::cuda::detail
