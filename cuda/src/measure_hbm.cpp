// measure(): the HBM bandwidth probes (copy and read over buffers far larger than L2).
#include "measure_run.hpp"

#include <quantfront/core/reference/gemm_reference.hpp>
#include <quantfront/core/reference/numeric_formats.hpp>
#include <quantfront/core/reference/quantize.hpp>

#include <algorithm>
#include <cmath>

namespace qf::cuda::measure_detail {

bool Session::hbmProbes() {
  // ≥ 8× L2 and ≥ 1 GiB per buffer so the probe measures HBM, capped by free memory.
  const double target = std::max(8.0 * m_l2Bytes, 1024.0 * 1024.0 * 1024.0);
  const double capped = std::min(target, freeBytes() / 4.0);
  const std::size_t bytes = static_cast<std::size_t>(capped) / (1 << 20) * (1 << 20);
  DeviceBuffer src, dst;
  const detail::TimingOptions opt = timingOptions();

  // hbm_copy: check three 1 MiB windows after one copy, then time the copy.
  MeasureRecord copy = record(KernelKind::HbmCopy, "", "cuda/src/measure.cpp");
  copy.n = static_cast<int64_t>(bytes);
  copy.bytesMoved = 2.0 * static_cast<double>(bytes);
  const bool go = measured(copy, [&] {
    MeasureRecord& r = copy;
    src = DeviceBuffer(bytes);
    dst = DeviceBuffer(bytes);
    detail::launchFillWords(src.as<uint32_t>(), bytes / 4, seed(), 0xFFFFFFFFu, 0u, m_stream);
    QF_CUDA_CHECK(cudaMemsetAsync(dst.get(), kPoisonByte, bytes, m_stream));
    QF_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, m_stream));
    const std::size_t window = std::size_t{1} << 20;
    int equal = 0;
    for (const std::size_t off : {std::size_t{0}, bytes / 2, bytes - window}) {
      const auto a = download<uint8_t>(src.as<uint8_t>() + off, window, m_stream);
      const auto b = download<uint8_t>(dst.as<uint8_t>() + off, window, m_stream);
      equal += a == b ? 1 : 0;
    }
    r.valid = equal == 3;
    r.check = "windows_equal=" + std::to_string(equal) + "/3";
    if (r.valid) {
      const auto t = detail::timeRuns(
          [&](int64_t) {
            QF_CUDA_CHECK(
                cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, m_stream));
          },
          opt, m_stream);
      setTiming(r, t);
    }
  });
  if (!go) return false;

  // hbm_read: the kernel writes *sink only when a thread's XOR equals the marker, so a buffer of
  // zeros with the marker planted at the first, a middle and the last 16-byte vector proves that
  // those vectors (including the grid-stride tail) are read.
  MeasureRecord read = record(KernelKind::HbmRead, "", "cuda/src/hbm_probe.cu");
  read.n = static_cast<int64_t>(bytes);
  read.bytesMoved = static_cast<double>(bytes);
  return measured(read, [&] {
    MeasureRecord& r = read;
    if (src.get() == nullptr) throw CudaError("no buffers (hbm_copy could not allocate them)");
    DeviceBuffer sink(sizeof(uint32_t));
    int found = 0;
    const std::size_t vectors = bytes / 16;
    for (const std::size_t v : {std::size_t{0}, vectors / 2 + 3, vectors - 1}) {
      QF_CUDA_CHECK(cudaMemsetAsync(dst.get(), 0, bytes, m_stream));
      const uint32_t marker = 0x9E3779B9u;
      QF_CUDA_CHECK(cudaMemcpyAsync(dst.as<uint8_t>() + v * 16, &marker, 4, cudaMemcpyHostToDevice,
                                    m_stream));
      QF_CUDA_CHECK(cudaMemsetAsync(sink.get(), 0, 4, m_stream));
      detail::launchHbmRead(dst.get(), bytes, sink.as<uint32_t>(), m_smCount, m_stream);
      found += download<uint32_t>(sink.get(), 1, m_stream)[0] == marker ? 1 : 0;
    }
    r.valid = found == 3;
    r.check = "planted_markers_found=" + std::to_string(found) + "/3";
    if (r.valid) {
      DeviceBuffer sink2(sizeof(uint32_t));
      const auto t = detail::timeRuns(
          [&](int64_t) {
            detail::launchHbmRead(src.get(), bytes, sink2.as<uint32_t>(), m_smCount, m_stream);
          },
          opt, m_stream);
      setTiming(r, t);
    }
  });
}

}  // namespace qf::cuda::measure_detail
