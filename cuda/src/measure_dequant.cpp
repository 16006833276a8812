// measure(): the streaming dequant kernels, each checked row by row against the host
// reference dequantisation (core/reference), then timed over rotating input sets.
#include "measure_run.hpp"

#include <quantfront/core/reference/gemm_reference.hpp>
#include <quantfront/core/reference/numeric_formats.hpp>
#include <quantfront/core/reference/quantize.hpp>

#include <algorithm>
#include <cmath>
#include <random>

namespace qf::cuda::measure_detail {

namespace {

/// Step 1 of a dequant probe: a bit-exact check with the timed launch configuration (the same
/// grid, from the SM count) over 1.5 passes of its grid-stride loop: every unrolled slot, the
/// loop's second pass and a partial tail run, as they do when timed. Odd row count, nine
/// groups per row. Sets `r.valid` and `r.check`.
void checkDequantBitExact(detail::DequantFormat format, int smCount, cudaStream_t stream,
                          uint32_t seedValue, MeasureRecord& r) {
  const bool isInt4 =
      format == detail::DequantFormat::kInt4Sym || format == detail::DequantFormat::kInt4Asym;
  const int64_t k = 1152;
  const int64_t n = (detail::dequantUnitsPerPass(smCount) * 3 / 2 * 8 / k) | 1;
  const std::vector<float> w = ref::randomUniform(n * k, seedValue, -1.0f, 1.0f);
  std::vector<uint16_t> want;
  DeviceBuffer dw, ds, dz;
  detail::DequantArgs args;
  args.format = format;
  args.n = n;
  args.k = k;
  if (isInt4) {
    const auto q = ref::quantizeInt4G128(w, n, k, format == detail::DequantFormat::kInt4Asym);
    want = ref::dequantInt4(q);
    upload(dw, ref::packInt4Interleaved(q.codes, n, k), stream);
    upload(ds, q.scales, stream);
    if (q.asymmetric) upload(dz, q.zeros, stream);
  } else if (format == detail::DequantFormat::kInt8) {
    const auto q = ref::quantizeInt8PerChannel(w, n, k);
    want = ref::dequantInt8(q);
    upload(dw, q.q, stream);
    upload(ds, q.scales, stream);
  } else if (format == detail::DequantFormat::kFp8) {
    const auto q = ref::quantizeFp8PerChannel(w, n, k);
    want = ref::dequantFp8(q);
    upload(dw, q.q, stream);
    upload(ds, q.scales, stream);
  } else {
    const auto q = ref::quantizeMxfp4(w, n, k);
    want = ref::dequantMxfp4(q);
    upload(dw, q.packed, stream);
    upload(ds, q.scales, stream);
  }
  DeviceBuffer out(static_cast<std::size_t>(n * k) * 2);
  QF_CUDA_CHECK(cudaMemsetAsync(out.get(), kPoisonByte, out.bytes(), stream));
  args.weights = dw.get();
  args.scales = ds.get();
  args.zeros = dz.as<uint8_t>();
  args.out = out.as<uint16_t>();
  detail::launchDequant(args, smCount, stream);
  const auto got = download<uint16_t>(out.get(), static_cast<std::size_t>(n * k), stream);
  const int64_t bad = ref::countBf16Mismatches(got, want);
  r.valid = bad == 0;
  r.check = "bit_exact mismatches=" + std::to_string(bad) + "/" + std::to_string(n * k) +
            " (timed grid, " + std::to_string(n * k / 8) + " units = 1.5 loop passes)";
}

}  // namespace

bool Session::dequantProbes() {
  for (const DequantInfo& d : kDequants) {
    if (!wants(d.scheme)) continue;
    MeasureRecord rec = record(KernelKind::Dequant, d.scheme, "cuda/src/dequant_kernels.cu");
    const bool go = measured(rec, [&] {
      MeasureRecord& r = rec;
      // 1. Bit-exact check with the timed launch configuration.
      checkDequantBitExact(d.format, m_smCount, m_stream, seed(), r);

      // 2. Timing on device-generated random data, rotating buffer sets.
      const int64_t k = 4096;
      const int64_t n = std::max<int64_t>(1, m_cfg.dequantWeights / k);
      r.n = n;
      r.k = k;
      r.bytesMoved = detail::dequantBytesMoved(d.format, n, k);
      if (r.valid) {
        const int sets = rotationSets(r.bytesMoved, freeBytes() * 0.5);
        struct Set {
          DeviceBuffer w, s, z, out;
        };
        std::vector<Set> bufs(static_cast<std::size_t>(sets));
        const std::size_t weights = static_cast<std::size_t>(n * k);
        for (Set& b : bufs) {
          std::size_t wBytes = weights, sCount = 0;
          uint32_t mask = 0xFFFFFFFFu, orBits = 0;
          switch (d.format) {
            case detail::DequantFormat::kInt4Sym:
            case detail::DequantFormat::kInt4Asym:
              wBytes = weights / 2;
              sCount = weights / 128;
              break;
            case detail::DequantFormat::kInt8:
              sCount = static_cast<std::size_t>(n);
              break;
            case detail::DequantFormat::kFp8:
              sCount = static_cast<std::size_t>(n);
              mask = 0xBFBFBFBFu;  // exponent ≤ 7: no NaN codes
              break;
            case detail::DequantFormat::kMxfp4:
              wBytes = weights / 2;
              break;
          }
          b.w = DeviceBuffer(wBytes);
          detail::launchFillWords(b.w.as<uint32_t>(), wBytes / 4, seed(), mask, orBits, m_stream);
          if (d.format == detail::DequantFormat::kMxfp4) {
            b.s = DeviceBuffer(weights / 32);
            detail::launchFillWords(b.s.as<uint32_t>(), weights / 32 / 4, seed(), 0x03030303u,
                                    0x7C7C7C7Cu, m_stream);
          } else {
            b.s = DeviceBuffer(sCount * 2);
            detail::launchFillBf16(b.s.as<uint16_t>(), sCount, seed(), 0.001f, 0.01f, m_stream);
          }
          if (d.format == detail::DequantFormat::kInt4Asym) {
            b.z = DeviceBuffer(weights / 128);
            detail::launchFillWords(b.z.as<uint32_t>(), weights / 128 / 4, seed(), 0x0F0F0F0Fu, 0u,
                                    m_stream);
          }
          b.out = DeviceBuffer(weights * 2);
        }
        const auto t = detail::timeRuns(
            [&](int64_t run) {
              const Set& b = bufs[static_cast<std::size_t>(run % sets)];
              detail::DequantArgs args;
              args.format = d.format;
              args.weights = b.w.get();
              args.scales = b.s.get();
              args.zeros = b.z.as<uint8_t>();
              args.out = b.out.as<uint16_t>();
              args.n = n;
              args.k = k;
              detail::launchDequant(args, m_smCount, m_stream);
            },
            rotated(timingOptions(), sets), m_stream);
        setTiming(r, t);
        // 3. Spot check of what was timed: three rows of buffer set 0 (the first, a middle one
        //    and the last, which the grid-stride loop's tail writes) against the host
        //    reference computed from that set's own device-generated inputs.
        int64_t bad = 0;
        for (const int64_t row : {int64_t{0}, n / 2 + 1, n - 1}) {
          bad += ref::countBf16Mismatches(
              download<uint16_t>(bufs[0].out.as<uint16_t>() + row * k, static_cast<std::size_t>(k),
                                 m_stream),
              hostDequantRow(d.format, bufs[0].w.get(), bufs[0].s.get(), bufs[0].z.get(), row, k));
        }
        r.check += " timed_rows_mismatches=" + std::to_string(bad) + "/" + std::to_string(3 * k);
        if (bad != 0) r.valid = false;
      }
    });
    if (!go) return false;
  }
  return true;
}

std::vector<uint16_t> Session::hostDequantRow(detail::DequantFormat format, const void* weights,
                                              const void* scales, const void* zeros, int64_t row,
                                              int64_t k) {
  const auto ku = static_cast<std::size_t>(k);
  const auto* wb = static_cast<const uint8_t*>(weights);
  const auto* sb = static_cast<const uint8_t*>(scales);
  // INT8 and FP8: one byte per weight, one bf16 scale per row.
  const auto perChannelRow = [&](auto q) {
    q.n = 1;
    q.k = k;
    q.q = download<typename decltype(q.q)::value_type>(wb + row * k, ku, m_stream);
    q.scales = download<uint16_t>(sb + row * 2, 1, m_stream);
    return q;
  };
  switch (format) {
    case detail::DequantFormat::kInt4Sym:
    case detail::DequantFormat::kInt4Asym: {
      ref::Int4Weights q;
      q.n = 1;
      q.k = k;
      q.asymmetric = format == detail::DequantFormat::kInt4Asym;
      const auto groups = static_cast<std::size_t>(q.groups());
      q.codes =
          ref::unpackInt4Interleaved(download<uint32_t>(wb + row * k / 2, ku / 8, m_stream), 1, k);
      q.scales = download<uint16_t>(sb + row * q.groups() * 2, groups, m_stream);
      if (q.asymmetric) {
        q.zeros = download<uint8_t>(static_cast<const uint8_t*>(zeros) + row * q.groups(), groups,
                                    m_stream);
      }
      return ref::dequantInt4(q);
    }
    case detail::DequantFormat::kInt8:
      return ref::dequantInt8(perChannelRow(ref::Int8Weights{}));
    case detail::DequantFormat::kFp8:
      return ref::dequantFp8(perChannelRow(ref::Fp8Weights{}));
    case detail::DequantFormat::kMxfp4: {
      ref::Mxfp4Weights q;
      q.n = 1;
      q.k = k;
      q.packed = download<uint8_t>(wb + row * k / 2, ku / 2, m_stream);
      q.scales = download<uint8_t>(sb + row * k / 32, ku / 32, m_stream);
      return ref::dequantMxfp4(q);
    }
  }
  return {};
}

}  // namespace qf::cuda::measure_detail
