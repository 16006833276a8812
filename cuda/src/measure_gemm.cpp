// measure(): the GEMM kernels (cuBLASLt bf16, FP8, INT8 and the W4A16 kernel), each checked
// against the host reference GEMM on awkward shapes and per record, then timed per M.
#include "measure_run.hpp"

#include <quantfront/core/reference/gemm_reference.hpp>
#include <quantfront/core/reference/numeric_formats.hpp>
#include <quantfront/core/reference/quantize.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

namespace qf::cuda::measure_detail {

namespace {

/// Bytes one GEMM run moves at minimum: W, A and C once each.
double gemmBytes(GemmKind kind, int64_t m, int64_t n, int64_t k) {
  const double mn = static_cast<double>(m) * static_cast<double>(n);
  const double mk = static_cast<double>(m) * static_cast<double>(k);
  const double nk = static_cast<double>(n) * static_cast<double>(k);
  switch (kind) {
    case GemmKind::kBf16:
      return 2 * nk + 2 * mk + 2 * mn;
    case GemmKind::kFp8:
      return nk + mk + 2 * mn;
    case GemmKind::kInt8:
      return nk + mk + 4 * mn;
    case GemmKind::kW4a16:
      return nk / 2 + 2 * nk / 128 + 2 * mk + 2 * mn;
  }
  return 0;
}

}  // namespace

void Session::fillWeights(GemmKind kind, GemmWeights& gw, int64_t n, int64_t k) {
  const std::size_t nk = static_cast<std::size_t>(n * k);
  switch (kind) {
    case GemmKind::kBf16:
      gw.w = DeviceBuffer(nk * 2);
      detail::launchFillBf16(gw.w.as<uint16_t>(), nk, seed(), -1.0f, 1.0f, m_stream);
      break;
    case GemmKind::kFp8:
      gw.w = DeviceBuffer((nk + 3) / 4 * 4);
      detail::launchFillWords(gw.w.as<uint32_t>(), (nk + 3) / 4, seed(), 0xBFBFBFBFu, 0u, m_stream);
      break;
    case GemmKind::kInt8:
      gw.w = DeviceBuffer((nk + 3) / 4 * 4);
      detail::launchFillWords(gw.w.as<uint32_t>(), (nk + 3) / 4, seed(), 0xFFFFFFFFu, 0u, m_stream);
      break;
    case GemmKind::kW4a16: {
      gw.nPad = (n + 7) / 8 * 8;
      gw.kPad = (k + 127) / 128 * 128;
      const std::size_t words = static_cast<std::size_t>(gw.nPad * gw.kPad / 8);
      gw.w = DeviceBuffer(words * 4);
      detail::launchFillWords(gw.w.as<uint32_t>(), words, seed(), 0xFFFFFFFFu, 0u, m_stream);
      const std::size_t scales = static_cast<std::size_t>(gw.kPad / 128 * gw.nPad);
      gw.scales = DeviceBuffer(scales * 2);
      detail::launchFillBf16(gw.scales.as<uint16_t>(), scales, seed(), 0.001f, 0.01f, m_stream);
      break;
    }
  }
}

std::unique_ptr<detail::LtGemm> Session::planLt(GemmKind kind, int64_t m, int64_t n, int64_t k) {
  const detail::LtKind lk = kind == GemmKind::kBf16  ? detail::LtKind::kBf16
                            : kind == GemmKind::kFp8 ? detail::LtKind::kFp8
                                                     : detail::LtKind::kInt8;
  return std::make_unique<detail::LtGemm>(m_lt, lk, m, n, k, m_ltWorkspace.get(), kLtWorkspaceBytes,
                                          m_fp8Scales.as<float>(), m_fp8Scales.as<float>() + 1);
}

void Session::launchGemm(GemmKind kind, const GemmWeights& gw, const detail::LtGemm* lt,
                         const void* a, void* c, DeviceBuffer& workspace, int64_t m, int64_t n,
                         int64_t k, int residentCtas) {
  if (kind == GemmKind::kW4a16) {
    detail::W4a16GemmArgs p;
    p.a = static_cast<const uint16_t*>(a);
    p.words = gw.w.as<uint32_t>();
    p.scales = gw.scales.as<uint16_t>();
    p.c = static_cast<uint16_t*>(c);
    p.workspace = workspace.get();
    p.workspaceBytes = workspace.bytes();
    p.m = m;
    p.n = n;
    p.k = k;
    p.nPad = gw.nPad;
    p.kPad = gw.kPad;
    p.residentCtas = residentCtas;
    detail::launchW4a16Gemm(p, m_stream);
    return;
  }
  const cublasStatus_t s = lt->run(a, gw.w.get(), c, m_stream);
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw CudaError(std::string("cublasLtMatmul: ") + cublasLtGetStatusName(s), cudaSuccess,
                    s == CUBLAS_STATUS_NOT_SUPPORTED);
  }
}

/// Builds host inputs for one check case, uploads them, runs the kernel once into a poisoned
/// output and returns ‖C − C_ref‖/‖C_ref‖ (inf on NaN or an unwritten element).
std::string Session::checkGemmKernel(const GemmInfo& g, bool& ok) {
  // M = 1, 3, 118 (118: not a multiple of 16, more than one 64-row slice for the fused
  // kernel); N, K not multiples of 128. cuBLASLt needs 16-byte aligned leading dimensions for
  // FP8 (k % 16) and bf16 outputs (n % 8); the fused kernel takes any n and k % 8 == 0.
  const bool fused = g.kind == GemmKind::kW4a16;
  const int64_t n = fused ? 1003 : 1008;
  const int64_t k = fused ? 1064 : 1040;
  double worst = 0;
  ok = true;
  std::string detailText;
  for (const int64_t m : {int64_t{1}, int64_t{3}, int64_t{118}}) {
    const std::vector<float> a = ref::randomUniform(m * k, seed());
    const std::vector<float> w = ref::randomUniform(n * k, seed());
    std::vector<float> want;
    GemmWeights gw;
    DeviceBuffer da, dc, ws;
    std::unique_ptr<detail::LtGemm> lt;
    const std::size_t mn = static_cast<std::size_t>(m * n);
    int resident = 1;
    switch (g.kind) {
      case GemmKind::kBf16: {
        const auto ab = ref::floatToBf16(a), wb = ref::floatToBf16(w);
        want = ref::gemmReference(ref::bf16ToFloat(ab), ref::bf16ToFloat(wb), m, n, k);
        upload(da, ab, m_stream);
        upload(gw.w, wb, m_stream);
        break;
      }
      case GemmKind::kFp8: {
        float sa = 0, sw = 0;
        const auto aq = ref::quantizeE4m3PerTensor(a, sa), wq = ref::quantizeE4m3PerTensor(w, sw);
        std::vector<float> ad(aq.size()), wd(wq.size());
        for (std::size_t i = 0; i < aq.size(); ++i) ad[i] = ref::decodeE4m3(aq[i]);
        for (std::size_t i = 0; i < wq.size(); ++i) wd[i] = ref::decodeE4m3(wq[i]);
        want = ref::gemmReference(ad, wd, m, n, k);
        for (float& v : want) v *= sa * sw;
        upload(da, aq, m_stream);
        upload(gw.w, wq, m_stream);
        QF_CUDA_CHECK(cudaMemcpyAsync(m_fp8Scales.get(), std::vector<float>{sw, sa}.data(), 8,
                                      cudaMemcpyHostToDevice, m_stream));
        QF_CUDA_CHECK(cudaStreamSynchronize(m_stream));
        break;
      }
      case GemmKind::kInt8: {
        float sa = 0, sw = 0;
        const auto aq = ref::quantizeInt8PerTensor(a, sa), wq = ref::quantizeInt8PerTensor(w, sw);
        want = ref::gemmReference(std::vector<float>(aq.begin(), aq.end()),
                                  std::vector<float>(wq.begin(), wq.end()), m, n, k);
        upload(da, aq, m_stream);
        upload(gw.w, wq, m_stream);
        break;
      }
      case GemmKind::kW4a16: {
        const auto ab = ref::floatToBf16(a);
        const auto q = ref::quantizeInt4G128(w, n, k, false);
        want = ref::gemmReference(ref::bf16ToFloat(ab), ref::bf16ToFloat(ref::dequantInt4(q)), m, n,
                                  k);
        const auto packed = ref::packInt4Mma(q);
        upload(da, ab, m_stream);
        upload(gw.w, packed.words, m_stream);
        upload(gw.scales, packed.scales, m_stream);
        gw.nPad = packed.nPad;
        gw.kPad = packed.kPad;
        resident = detail::w4a16ResidentCtas(m, m_smCount);
        ws = w4a16Workspace(detail::w4a16Plan(m, gw.nPad, gw.kPad, resident), m_stream);
        break;
      }
    }
    if (!fused) {
      lt = planLt(g.kind, m, n, k);
      if (!lt->ok()) {
        detailText += " (m=" + std::to_string(m) + " unsupported: " + lt->why() + ")";
        continue;
      }
    }
    const bool intOut = lt != nullptr && lt->outputBytes() == 4;
    dc = DeviceBuffer(mn * (intOut ? 4 : 2));
    // The fused kernel twice: the second launch finds the workspace as the first left it (its
    // split-K tickets back at 0), as every launch of a timed graph does; its output is checked.
    for (int launch = 0; launch < (fused ? 2 : 1); ++launch) {
      QF_CUDA_CHECK(
          cudaMemsetAsync(dc.get(), intOut ? kPoisonByteInt : kPoisonByte, dc.bytes(), m_stream));
      launchGemm(g.kind, gw, lt.get(), da.get(), dc.get(), ws, m, n, k, resident);
    }
    std::vector<float> got(mn);
    int64_t poisoned = 0;
    if (intOut) {
      const auto raw = download<int32_t>(dc.get(), mn, m_stream);
      for (std::size_t i = 0; i < mn; ++i) {
        poisoned += static_cast<uint32_t>(raw[i]) == kPoisonInt32 ? 1 : 0;
        got[i] = static_cast<float>(raw[i]);
      }
    } else {
      const auto raw = download<uint16_t>(dc.get(), mn, m_stream);
      for (std::size_t i = 0; i < mn; ++i) poisoned += raw[i] == kPoisonBf16 ? 1 : 0;
      got = ref::bf16ToFloat(raw);
    }
    const double err = poisoned > 0 ? INFINITY : ref::relativeError(got, want);
    worst = std::max(worst, err);
    if (!(err < kGemmTolerance)) {
      ok = false;
      detailText += " FAIL m=" + std::to_string(m) + fmt(" rel_err=%.2e", err) +
                    " unwritten=" + std::to_string(poisoned);
    }
  }
  return "check_shapes(m=1,3,118 n=" + std::to_string(n) + " k=" + std::to_string(k) + ")" +
         fmt(" max_rel_err=%.2e", worst) + detailText;
}

std::vector<float> Session::hostRow(GemmKind kind, const void* a, int64_t row, int64_t k,
                                    float fp8Scale) {
  const std::size_t ku = static_cast<std::size_t>(k);
  std::vector<float> out(ku);
  if (kind == GemmKind::kBf16 || kind == GemmKind::kW4a16) {
    const auto raw = download<uint16_t>(static_cast<const uint16_t*>(a) + row * k, ku, m_stream);
    out = ref::bf16ToFloat(raw);
  } else {
    const auto raw = download<uint8_t>(static_cast<const uint8_t*>(a) + row * k, ku, m_stream);
    for (std::size_t i = 0; i < ku; ++i) {
      out[i] = kind == GemmKind::kFp8 ? ref::decodeE4m3(raw[i]) * fp8Scale
                                      : static_cast<float>(static_cast<int8_t>(raw[i]));
    }
  }
  return out;
}

std::vector<float> Session::hostWeightRow(GemmKind kind, const GemmWeights& gw,
                                          const std::vector<uint16_t>& w4Scales, int64_t row,
                                          int64_t k) {
  if (kind == GemmKind::kW4a16) {
    // Copy the row's 8-row tile (contiguous in the packed layout) and unpack it on the host.
    const int64_t groups = gw.kPad / 128;
    const int64_t tile = row / 8;
    ref::Int4MmaPacked p;
    p.n = 8;
    p.k = gw.kPad;
    p.nPad = 8;
    p.kPad = gw.kPad;
    p.words = download<uint32_t>(gw.w.as<uint32_t>() + tile * groups * 128,
                                 static_cast<std::size_t>(groups * 128), m_stream);
    p.scales.resize(static_cast<std::size_t>(groups * 8));
    for (int64_t g = 0; g < groups; ++g) {
      for (int64_t r = 0; r < 8; ++r) {
        p.scales[static_cast<std::size_t>(g * 8 + r)] =
            w4Scales[static_cast<std::size_t>(g * gw.nPad + tile * 8 + r)];
      }
    }
    const auto deq = ref::bf16ToFloat(ref::dequantInt4(ref::unpackInt4Mma(p)));
    const auto begin = deq.begin() + static_cast<std::ptrdiff_t>((row % 8) * gw.kPad);
    return std::vector<float>(begin, begin + static_cast<std::ptrdiff_t>(k));
  }
  return hostRow(kind, gw.w.get(), row, k, kFp8WScale);
}

std::vector<std::pair<std::pair<int64_t, int64_t>, std::string>> Session::distinctShapes(
    const std::vector<MeasureConfig::Shape>& all) {
  // Distinct N×K shapes, names joined.
  std::vector<std::pair<std::pair<int64_t, int64_t>, std::string>> shapes;
  for (const MeasureConfig::Shape& s : all) {
    auto it = std::find_if(shapes.begin(), shapes.end(),
                           [&](const auto& e) { return e.first == std::make_pair(s.n, s.k); });
    if (it == shapes.end()) {
      shapes.push_back({{s.n, s.k}, s.name});
    } else {
      it->second += "+" + s.name;
    }
  }
  return shapes;
}

std::string Session::gemmKernelCheck(const GemmInfo& g, bool& kernelOk, bool& noPath) {
  std::string kernelCheck;
  const auto& env = m_result.environment;
  if (g.kind == GemmKind::kFp8 && env.smMajor * 10 + env.smMinor < 89) {
    // FP8 tensor cores start at compute capability 8.9 (L4/L40S, H100/H200); an A100 or A10
    // has none, and cuBLASLt would only report NOT_SUPPORTED for every shape.
    kernelOk = false;
    noPath = true;
    kernelCheck = "skipped: compute capability " + std::to_string(env.smMajor) + "." +
                  std::to_string(env.smMinor) + " has no FP8 tensor cores (8.9 or newer)";
  }
  if (!noPath) {
    try {
      kernelCheck = checkGemmKernel(g, kernelOk);
    } catch (const CudaError& e) {
      kernelOk = false;
      kernelCheck = std::string("check_shapes error: ") + e.what();
      stopIfSticky(e.code, kernelCheck);
    }
  }
  return kernelCheck;
}

void Session::fillActivations(GemmKind kind, int aSets, int64_t m, int64_t n, int64_t k,
                              std::size_t actElem, std::size_t outElem,
                              std::vector<DeviceBuffer>& acts, std::vector<DeviceBuffer>& outs) {
  for (int i = 0; i < aSets; ++i) {
    const std::size_t aCount = static_cast<std::size_t>(m * k);
    DeviceBuffer a(aCount * actElem);
    if (actElem == 2) {
      detail::launchFillBf16(a.as<uint16_t>(), aCount, seed(), -1.0f, 1.0f, m_stream);
    } else {
      const std::size_t words = aCount / 4;  // tail bytes stay uninitialised-free below
      QF_CUDA_CHECK(cudaMemsetAsync(a.get(), 0x11, a.bytes(), m_stream));
      detail::launchFillWords(a.as<uint32_t>(), words, seed(),
                              kind == GemmKind::kFp8 ? 0xBFBFBFBFu : 0xFFFFFFFFu, 0u, m_stream);
    }
    acts.push_back(std::move(a));
    outs.emplace_back(static_cast<std::size_t>(m * n) * outElem);
  }
}

void Session::checkGemmRecord(MeasureRecord& r, GemmKind kind, const GemmWeights& gw,
                              const std::vector<uint16_t>& w4Scales, const detail::LtGemm* lt,
                              const DeviceBuffer& act, DeviceBuffer& out, DeviceBuffer& ws,
                              int64_t m, int64_t n, int64_t k, int residentCtas, bool intOut,
                              const std::string& kernelCheck) {
  void* c = out.get();
  QF_CUDA_CHECK(cudaMemsetAsync(c, intOut ? kPoisonByteInt : kPoisonByte, out.bytes(), m_stream));
  launchGemm(kind, gw, lt, act.get(), c, ws, m, n, k, residentCtas);
  const std::size_t mn = static_cast<std::size_t>(m * n);
  if (intOut) {
    detail::launchCountPattern32(static_cast<const uint32_t*>(c), mn, kPoisonInt32,
                                 m_counter.as<unsigned long long>(), m_stream);
  } else {
    detail::launchCountPattern16(static_cast<const uint16_t*>(c), mn, kPoisonBf16,
                                 m_counter.as<unsigned long long>(), m_stream);
  }
  const auto unwritten = download<unsigned long long>(m_counter.get(), 1, m_stream)[0];
  std::mt19937_64 rng(seed());
  std::set<int64_t> rows{0, m - 1}, cols{0, n - 1};
  while (static_cast<int64_t>(rows.size()) < std::min<int64_t>(m, 6))
    rows.insert(static_cast<int64_t>(rng() % static_cast<uint64_t>(m)));
  while (static_cast<int64_t>(cols.size()) < std::min<int64_t>(n, 8))
    cols.insert(static_cast<int64_t>(rng() % static_cast<uint64_t>(n)));
  std::map<int64_t, std::vector<float>> wRows;
  for (const int64_t j : cols) wRows[j] = hostWeightRow(kind, gw, w4Scales, j, k);
  std::vector<float> got, want;
  for (const int64_t i : rows) {
    const std::vector<float> aRow = hostRow(kind, act.get(), i, k, kFp8AScale);
    std::vector<float> cRow(static_cast<std::size_t>(n));
    if (intOut) {
      const auto raw = download<int32_t>(static_cast<const int32_t*>(c) + i * n,
                                         static_cast<std::size_t>(n), m_stream);
      for (std::size_t j = 0; j < raw.size(); ++j) cRow[j] = static_cast<float>(raw[j]);
    } else {
      cRow = ref::bf16ToFloat(download<uint16_t>(static_cast<const uint16_t*>(c) + i * n,
                                                 static_cast<std::size_t>(n), m_stream));
    }
    for (const int64_t j : cols) {
      const auto one = ref::gemmReference(aRow, wRows[j], 1, 1, k);
      want.push_back(one[0]);
      got.push_back(cRow[static_cast<std::size_t>(j)]);
    }
  }
  const double err = ref::relativeError(got, want);
  r.valid = unwritten == 0 && err < kGemmTolerance;
  r.check = (lt != nullptr ? lt->describe() + " " : std::string()) + fmt("rel_err=%.2e", err) +
            " sampled=" + std::to_string(got.size()) + " unwritten=" + std::to_string(unwritten) +
            "; " + kernelCheck;
}

bool Session::gemmProbes() {
  const auto shapes = distinctShapes(m_cfg.shapes);
  const detail::TimingOptions opt = timingOptions();
  for (const GemmInfo& g : kGemms) {
    if (!wants(g.scheme)) continue;
    bool kernelOk = true;
    bool noPath = false;  // the chip has no hardware path for this GEMM: skipped, with a note
    const std::string kernelCheck = gemmKernelCheck(g, kernelOk, noPath);
    QF_CUDA_CHECK(cudaMemcpyAsync(m_fp8Scales.get(),
                                  std::vector<float>{kFp8WScale, kFp8AScale}.data(), 8,
                                  cudaMemcpyHostToDevice, m_stream));
    QF_CUDA_CHECK(cudaStreamSynchronize(m_stream));
    const std::size_t actElem = (g.kind == GemmKind::kBf16 || g.kind == GemmKind::kW4a16) ? 2 : 1;
    for (const auto& [nk, names] : shapes) {
      const auto [n, k] = nk;
      double wBytes = gemmBytes(g.kind, 0, n, k);
      std::vector<GemmWeights> wsets;
      std::vector<uint16_t> w4Scales;
      int nSets = 0;
      std::string weightError;  // the shape's weights could not be set up (out of memory, say)
      if (kernelOk) {
        try {
          nSets = rotationSets(wBytes, freeBytes() * 0.4);
          wsets.resize(static_cast<std::size_t>(nSets));
          for (GemmWeights& gw : wsets) fillWeights(g.kind, gw, n, k);
          if (g.kind == GemmKind::kW4a16) {
            w4Scales =
                download<uint16_t>(wsets[0].scales.get(), wsets[0].scales.bytes() / 2, m_stream);
          }
        } catch (const CudaError& e) {
          wsets.clear();
          weightError = std::string("weights for ") + names + ": " + e.what();
          stopIfSticky(e.code, weightError);
        }
      }
      for (const int64_t m : m_cfg.mList) {
        MeasureRecord rec = record(KernelKind::Gemm, g.scheme, g.source);
        rec.shape = names;
        rec.m = m;
        rec.n = n;
        rec.k = k;
        rec.flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
        rec.bytesMoved = gemmBytes(g.kind, m, n, k);
        const bool go = measured(rec, [&] {
          MeasureRecord& r = rec;
          if (!kernelOk) {
            r.valid = false;
            r.supported = !noPath;
            r.check = kernelCheck;
            return;
          }
          if (!weightError.empty()) throw CudaError(weightError);
          std::unique_ptr<detail::LtGemm> lt;
          if (g.kind != GemmKind::kW4a16) {
            lt = planLt(g.kind, m, n, k);
            if (!lt->ok()) {
              r.valid = false;
              r.supported = false;
              r.check = "unsupported: " + lt->why();
              return;
            }
          }
          const bool intOut = lt != nullptr && lt->outputBytes() == 4;
          const std::size_t outElem = intOut ? 4 : 2;
          if (g.kind == GemmKind::kInt8 && !intOut) {
            r.bytesMoved -= 2.0 * static_cast<double>(m) * static_cast<double>(n);  // bf16 out
          }
          // Activation/output sets: as many as the weight sets while memory allows.
          const double aoBytes =
              static_cast<double>(m) * static_cast<double>(k * static_cast<int64_t>(actElem) +
                                                           n * static_cast<int64_t>(outElem));
          // A divisor of nSets, so one graph of whole weight rotations also rotates these evenly.
          int aSets = std::max(1, std::min(nSets, rotationSets(aoBytes, freeBytes() * 0.5)));
          while (nSets % aSets != 0) --aSets;
          std::vector<DeviceBuffer> acts, outs;
          fillActivations(g.kind, aSets, m, n, k, actElem, outElem, acts, outs);
          int resident = 1;
          DeviceBuffer ws;
          std::string planText;
          if (g.kind == GemmKind::kW4a16) {
            resident = detail::w4a16ResidentCtas(m, m_smCount);
            const detail::W4a16Plan plan =
                detail::w4a16Plan(m, wsets[0].nPad, wsets[0].kPad, resident);
            ws = w4a16Workspace(plan, m_stream);
            // Split-K partial sums are written and read back inside the kernel (fp32, mostly
            // in L2): counted, so the record's bandwidth is everything the run moved.
            r.bytesMoved += plan.reductionBytes;
            planText = " ctas=" + std::to_string(plan.ctas) +
                       " groups_per_cta=" + std::to_string(plan.groupsPerCta);
            r.plan = {{"ctas", plan.ctas},
                      {"groups_per_cta", plan.groupsPerCta},
                      {"cta_rows", plan.ctaRows},
                      {"split_depth", plan.splitDepth}};
          } else {
            r.plan = lt->planFields();
          }
          // Check this exact configuration: poisoned output, full unwritten-element scan, and
          // ‖C − C_ref‖/‖C_ref‖ over sampled rows × columns against host dot products.
          checkGemmRecord(r, g.kind, wsets[0], w4Scales, lt.get(), acts[0], outs[0], ws, m, n, k,
                          resident, intOut, kernelCheck + planText);
          if (r.valid) {
            const auto t = detail::timeRuns(
                [&](int64_t run) {
                  const auto wi = static_cast<std::size_t>(run % nSets);
                  const auto ai = static_cast<std::size_t>(run % aSets);
                  launchGemm(g.kind, wsets[wi], lt.get(), acts[ai].get(), outs[ai].get(), ws, m, n,
                             k, resident);
                },
                rotated(opt, nSets), m_stream);
            setTiming(r, t);
          }
        });
        if (!go) return false;
      }
    }
  }
  return true;
}

}  // namespace qf::cuda::measure_detail
