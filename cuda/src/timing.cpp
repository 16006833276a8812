// Graph-replay timing (see timing.hpp; the reasons are in docs/benchmarks.md, "Kernel timing").
#include "timing.hpp"

#include "cuda_util.hpp"
#include "timing_math.hpp"

#include <algorithm>
#include <chrono>
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
  /// Seconds between start(i) and stop(i) (both complete).
  double seconds(int i) const {
    float ms = 0;
    QF_CUDA_CHECK(cudaEventElapsedTime(&ms, start(i), stop(i)));
    return static_cast<double>(ms) * 1e-3;
  }

 private:
  std::vector<cudaEvent_t> m_start, m_stop;
};

/// An instantiated graph of `launches` runs, or none where capture was refused.
class GraphRuns {
 public:
  GraphRuns() = default;
  ~GraphRuns() { reset(); }
  GraphRuns(const GraphRuns&) = delete;
  GraphRuns& operator=(const GraphRuns&) = delete;

  /// Captures launch(0 .. launches−1) on `stream`. False (stream usable, error cleared) when
  /// the runtime refuses the capture; a CudaError from launch() itself during capture is
  /// treated the same way, since an uncapturable call surfaces there.
  bool capture(const std::function<void(int64_t)>& launch, int launches, cudaStream_t stream) {
    reset();
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    bool launched = true;
    try {
      for (int i = 0; i < launches; ++i) launch(i);
    } catch (const CudaError&) {
      launched = false;
    }
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    bool ok = launched && ended == cudaSuccess && graph != nullptr;
    if (ok) ok = cudaGraphInstantiate(&m_exec, graph, 0) == cudaSuccess;
    if (graph != nullptr) cudaGraphDestroy(graph);
    if (!ok) {
      cudaGetLastError();  // capture errors are not sticky: clear and fall back
      reset();
      return false;
    }
    m_launches = launches;
    return true;
  }
  /// Enqueues one replay.
  void replay(cudaStream_t stream) const { QF_CUDA_CHECK(cudaGraphLaunch(m_exec, stream)); }
  bool ready() const { return m_exec != nullptr; }
  int launches() const { return m_launches; }

 private:
  void reset() {
    if (m_exec != nullptr) cudaGraphExecDestroy(m_exec);
    m_exec = nullptr;
    m_launches = 0;
  }
  cudaGraphExec_t m_exec = nullptr;
  int m_launches = 0;
};

constexpr int kBatch = 10;  // samples enqueued back to back before one synchronisation

}  // namespace

TimingResult timeRuns(const std::function<void(int64_t run)>& launch, const TimingOptions& options,
                      cudaStream_t stream) {
  const int rotation = std::max(1, options.rotation);
  EventPairs events(kBatch);
  TimingResult r;

  // 1. The cold first launch: module load, lazy kernel loading, library heuristics. Untimed.
  launch(0);
  QF_CUDA_CHECK(cudaStreamSynchronize(stream));

  // 2. A first graph of at least 8 launches (whole rotations) gives the per-launch estimate
  //    free of host enqueue time; recapture once when a 1 ms sample needs more launches.
  GraphRuns graph;
  int launches = launchesPerSample(1.0, 8.0, rotation, options.maxLaunches);
  bool useGraph = graph.capture(launch, launches, stream);
  auto enqueueSample = [&](int i) {
    QF_CUDA_CHECK(cudaEventRecord(events.start(i), stream));
    if (useGraph) {
      graph.replay(stream);
    } else {
      for (int l = 0; l < launches; ++l) launch(l);
    }
    QF_CUDA_CHECK(cudaEventRecord(events.stop(i), stream));
  };
  enqueueSample(0);  // warms the graph's upload
  enqueueSample(1);
  QF_CUDA_CHECK(cudaEventSynchronize(events.stop(1)));
  r.warmupS = events.seconds(0) + events.seconds(1);
  const double estimate = events.seconds(1) / launches;
  const int wanted =
      launchesPerSample(estimate, options.targetSampleS, rotation, options.maxLaunches);
  if (wanted > launches) {
    launches = wanted;
    if (useGraph) useGraph = graph.capture(launch, launches, stream);
  }
  r.method = useGraph ? "cuda_graph" : "stream_batch";
  r.launchesPerSample = launches;

  const int repeats = std::max(1, options.repeats);
  const RepeatBudget budget =
      repeatBudget(options.minSamples, options.maxSamples, options.maxSeconds, repeats);
  std::vector<double> samples, medians;
  if (options.onSampling) options.onSampling(true);
  for (int rep = 0; rep < repeats; ++rep) {
    // An independent repeat: its own instantiated graph (the first repeat keeps the one the
    // estimate was made with), its own warm-up, its own samples.
    if (rep > 0 && useGraph) useGraph = graph.capture(launch, launches, stream);
    // 3. Warm-up by time (clocks, caches, the power state settle), untimed.
    const auto warmStart = std::chrono::steady_clock::now();
    do {
      enqueueSample(0);
      QF_CUDA_CHECK(cudaEventSynchronize(events.stop(0)));
      r.warmupS += events.seconds(0);
    } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - warmStart).count() <
             (rep == 0 ? options.warmupS : 0.25 * options.warmupS));

    // 4. Samples in batches of up to kBatch replays, back to back on the GPU.
    std::vector<double> mine;
    double totalS = 0;
    while (true) {
      const int batch = std::clamp(budget.maxSamples - static_cast<int>(mine.size()), 1, kBatch);
      for (int b = 0; b < batch; ++b) enqueueSample(b);
      QF_CUDA_CHECK(cudaEventSynchronize(events.stop(batch - 1)));
      for (int b = 0; b < batch; ++b) {
        mine.push_back(events.seconds(b));
        totalS += mine.back();
      }
      const SampleSummary part = summarizeSamples(mine, launches);
      if (samplingDone(static_cast<int>(mine.size()), totalS, part.relNoise, budget.minSamples,
                       budget.maxSamples, options.maxRelNoise, budget.maxSeconds)) {
        medians.push_back(part.medianS);
        break;
      }
    }
    samples.insert(samples.end(), mine.begin(), mine.end());
  }
  if (options.onSampling) options.onSampling(false);
  r.method = useGraph ? "cuda_graph" : "stream_batch";
  const SampleSummary summary = summarizeSamples(samples, launches);
  r.medianS = withoutBaseline(summary.medianS, options.baselineS);
  r.minS = withoutBaseline(summary.minS, options.baselineS);
  r.baselineS = summary.medianS - r.medianS;
  r.relNoise = summary.relNoise;
  r.repeatNoise = repeatSpread(medians);
  r.repeats = repeats;
  r.samples = static_cast<int64_t>(samples.size());
  return r;
}

}  // namespace qf::cuda::detail
