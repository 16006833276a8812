// cuBLASLt matmul planning and launch (see cublaslt_gemm.hpp).
#include "cublaslt_gemm.hpp"

#include <map>

namespace qf::cuda::detail {

namespace {

cudaDataType_t inputType(LtKind kind) {
  switch (kind) {
    case LtKind::kBf16:
      return CUDA_R_16BF;
    case LtKind::kFp8:
      return CUDA_R_8F_E4M3;
    case LtKind::kInt8:
      return CUDA_R_8I;
  }
  return CUDA_R_16BF;
}

}  // namespace

void LtGemm::fail(cublasStatus_t s, const char* step) {
  if (m_status != CUBLAS_STATUS_SUCCESS) return;
  m_status = s;
  m_why =
      std::string(step) + ": " + cublasLtGetStatusName(s) + " (" + cublasLtGetStatusString(s) + ")";
}

LtGemm::LtGemm(cublasLtHandle_t handle, LtKind kind, int64_t m, int64_t n, int64_t k,
               void* workspace, std::size_t workspaceBytes, const float* wScale,
               const float* aScale)
    : m_handle(handle), m_kind(kind), m_workspace(workspace), m_workspaceBytes(workspaceBytes) {
  if (kind == LtKind::kInt8) {
    // bf16 output first (what serving pipelines write after an INT8 GEMM); the int32 output
    // where this cuBLASLt offers no INT8 kernel with a bf16 epilogue for the shape.
    if (plan(m, n, k, false, wScale, aScale)) return;
    release();
    m_status = CUBLAS_STATUS_SUCCESS;
    m_why.clear();
  }
  plan(m, n, k, kind == LtKind::kInt8, wScale, aScale);
}

void LtGemm::release() {
  if (m_c != nullptr) cublasLtMatrixLayoutDestroy(m_c);
  if (m_a != nullptr) cublasLtMatrixLayoutDestroy(m_a);
  if (m_w != nullptr) cublasLtMatrixLayoutDestroy(m_w);
  if (m_desc != nullptr) cublasLtMatmulDescDestroy(m_desc);
  m_c = m_a = m_w = nullptr;
  m_desc = nullptr;
}

bool LtGemm::plan(int64_t m, int64_t n, int64_t k, bool int32Out, const float* wScale,
                  const float* aScale) {
  m_int32Out = int32Out;
  const bool isInt = m_kind == LtKind::kInt8;
  const cublasComputeType_t compute = isInt ? CUBLAS_COMPUTE_32I : CUBLAS_COMPUTE_32F;
  // int32 output takes int32 alpha/beta; a bf16 output (INT8 too) takes float ones.
  const cudaDataType_t scaleType = int32Out ? CUDA_R_32I : CUDA_R_32F;
  const cudaDataType_t outType = int32Out ? CUDA_R_32I : CUDA_R_16BF;
  const cudaDataType_t inType = inputType(m_kind);
  cublasStatus_t s = cublasLtMatmulDescCreate(&m_desc, compute, scaleType);
  if (s != CUBLAS_STATUS_SUCCESS) {
    fail(s, "cublasLtMatmulDescCreate");
    return false;
  }
  const cublasOperation_t opT = CUBLAS_OP_T, opN = CUBLAS_OP_N;
  s = cublasLtMatmulDescSetAttribute(m_desc, CUBLASLT_MATMUL_DESC_TRANSA, &opT, sizeof opT);
  if (s == CUBLAS_STATUS_SUCCESS) {
    s = cublasLtMatmulDescSetAttribute(m_desc, CUBLASLT_MATMUL_DESC_TRANSB, &opN, sizeof opN);
  }
  if (s != CUBLAS_STATUS_SUCCESS) {
    fail(s, "set transposes");
    return false;
  }
  if (m_kind == LtKind::kFp8) {
    // Per-tensor dequant factors: D = wScale·aScale·(W·Aᵀ). cuBLASLt's "A" is our W here.
    s = cublasLtMatmulDescSetAttribute(m_desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &wScale,
                                       sizeof wScale);
    if (s == CUBLAS_STATUS_SUCCESS) {
      s = cublasLtMatmulDescSetAttribute(m_desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &aScale,
                                         sizeof aScale);
    }
    // Fast accumulation: Hopper's FP8 tensor cores keep partial sums in reduced precision
    // unless the kernel promotes them to fp32 every few k-blocks; "fast" skips that promotion.
    // Serving engines (vLLM's and TensorRT-LLM's FP8 linear layers) run with it, so the timed
    // figure is the one they would see. The check tolerance (1e-2) still applies.
    const int8_t fastAccum = 1;
    if (s == CUBLAS_STATUS_SUCCESS) {
      s = cublasLtMatmulDescSetAttribute(m_desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fastAccum,
                                         sizeof fastAccum);
      m_fastAccum = s == CUBLAS_STATUS_SUCCESS;
    }
    if (s != CUBLAS_STATUS_SUCCESS) {
      fail(s, "set FP8 scale pointers and fast accumulation");
      return false;
    }
  }
  const auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  s = cublasLtMatrixLayoutCreate(&m_w, inType, u(k), u(n), k);  // W: k×n col-major, ld k
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutCreate(&m_a, inType, u(k), u(m), k);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutCreate(&m_c, outType, u(n), u(m), n);
  if (s != CUBLAS_STATUS_SUCCESS) {
    fail(s, "cublasLtMatrixLayoutCreate");
    return false;
  }

  cublasLtMatmulPreference_t pref = nullptr;
  s = cublasLtMatmulPreferenceCreate(&pref);
  if (s != CUBLAS_STATUS_SUCCESS) {
    fail(s, "cublasLtMatmulPreferenceCreate");
    return false;
  }
  s = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                           &m_workspaceBytes, sizeof m_workspaceBytes);
  cublasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  if (s == CUBLAS_STATUS_SUCCESS) {
    s = cublasLtMatmulAlgoGetHeuristic(m_handle, m_desc, m_w, m_a, m_c, m_c, pref, 1, &result,
                                       &returned);
  }
  cublasLtMatmulPreferenceDestroy(pref);
  if (s != CUBLAS_STATUS_SUCCESS) {
    fail(s, "cublasLtMatmulAlgoGetHeuristic");
    return false;
  }
  if (returned == 0) {
    fail(CUBLAS_STATUS_NOT_SUPPORTED, "no heuristic result");
    return false;
  }
  m_algo = result.algo;
  return true;
}

LtGemm::~LtGemm() {
  release();
}

std::string LtGemm::describe() const {
  std::string d = std::string("out=") + (m_int32Out ? "int32" : "bf16");
  if (m_kind == LtKind::kFp8) d += m_fastAccum ? " fast_accum=1" : " fast_accum=0";
  return d;
}

std::map<std::string, double> LtGemm::planFields() const {
  std::map<std::string, double> out;
  if (!ok()) return out;
  auto get = [&](cublasLtMatmulAlgoConfigAttributes_t attr, const char* name, auto zero) {
    auto v = zero;
    std::size_t written = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(&m_algo, attr, &v, sizeof v, &written) ==
            CUBLAS_STATUS_SUCCESS &&
        written == sizeof v) {
      out[name] = static_cast<double>(v);
    }
  };
  get(CUBLASLT_ALGO_CONFIG_ID, "algo_id", int32_t{0});
  get(CUBLASLT_ALGO_CONFIG_TILE_ID, "tile_id", uint32_t{0});
  get(CUBLASLT_ALGO_CONFIG_STAGES_ID, "stages_id", uint32_t{0});
  get(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, "split_k", int32_t{0});
  return out;
}

cublasStatus_t LtGemm::run(const void* act, const void* weights, void* out,
                           cudaStream_t stream) const {
  if (!ok()) return m_status;
  const float alphaF = 1.0f, betaF = 0.0f;
  const int32_t alphaI = 1, betaI = 0;
  const void* alpha =
      m_int32Out ? static_cast<const void*>(&alphaI) : static_cast<const void*>(&alphaF);
  const void* beta =
      m_int32Out ? static_cast<const void*>(&betaI) : static_cast<const void*>(&betaF);
  return cublasLtMatmul(m_handle, m_desc, alpha, weights, m_w, act, m_a, beta, out, m_c, out, m_c,
                        &m_algo, m_workspace, m_workspaceBytes, stream);
}

}  // namespace qf::cuda::detail
