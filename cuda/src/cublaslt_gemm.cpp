// cuBLASLt matmul planning and launch (see cublaslt_gemm.hpp).
#include "cublaslt_gemm.hpp"

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
  const bool isInt = kind == LtKind::kInt8;
  const cublasComputeType_t compute = isInt ? CUBLAS_COMPUTE_32I : CUBLAS_COMPUTE_32F;
  const cudaDataType_t scaleType = isInt ? CUDA_R_32I : CUDA_R_32F;
  const cudaDataType_t outType = isInt ? CUDA_R_32I : CUDA_R_16BF;
  const cudaDataType_t inType = inputType(kind);
  cublasStatus_t s = cublasLtMatmulDescCreate(&m_desc, compute, scaleType);
  if (s != CUBLAS_STATUS_SUCCESS) {
    fail(s, "cublasLtMatmulDescCreate");
    return;
  }
  const cublasOperation_t opT = CUBLAS_OP_T, opN = CUBLAS_OP_N;
  s = cublasLtMatmulDescSetAttribute(m_desc, CUBLASLT_MATMUL_DESC_TRANSA, &opT, sizeof opT);
  if (s == CUBLAS_STATUS_SUCCESS) {
    s = cublasLtMatmulDescSetAttribute(m_desc, CUBLASLT_MATMUL_DESC_TRANSB, &opN, sizeof opN);
  }
  if (s != CUBLAS_STATUS_SUCCESS) {
    fail(s, "set transposes");
    return;
  }
  if (kind == LtKind::kFp8) {
    // Per-tensor dequant factors: D = wScale·aScale·(W·Aᵀ). cuBLASLt's "A" is our W here.
    s = cublasLtMatmulDescSetAttribute(m_desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &wScale,
                                       sizeof wScale);
    if (s == CUBLAS_STATUS_SUCCESS) {
      s = cublasLtMatmulDescSetAttribute(m_desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &aScale,
                                         sizeof aScale);
    }
    if (s != CUBLAS_STATUS_SUCCESS) {
      fail(s, "set FP8 scale pointers");
      return;
    }
  }
  const auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  s = cublasLtMatrixLayoutCreate(&m_w, inType, u(k), u(n), k);  // W: k×n col-major, ld k
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutCreate(&m_a, inType, u(k), u(m), k);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutCreate(&m_c, outType, u(n), u(m), n);
  if (s != CUBLAS_STATUS_SUCCESS) {
    fail(s, "cublasLtMatrixLayoutCreate");
    return;
  }

  cublasLtMatmulPreference_t pref = nullptr;
  s = cublasLtMatmulPreferenceCreate(&pref);
  if (s != CUBLAS_STATUS_SUCCESS) {
    fail(s, "cublasLtMatmulPreferenceCreate");
    return;
  }
  s = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                           &workspaceBytes, sizeof workspaceBytes);
  cublasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  if (s == CUBLAS_STATUS_SUCCESS) {
    s = cublasLtMatmulAlgoGetHeuristic(handle, m_desc, m_w, m_a, m_c, m_c, pref, 1, &result,
                                       &returned);
  }
  cublasLtMatmulPreferenceDestroy(pref);
  if (s != CUBLAS_STATUS_SUCCESS) {
    fail(s, "cublasLtMatmulAlgoGetHeuristic");
    return;
  }
  if (returned == 0) {
    fail(CUBLAS_STATUS_NOT_SUPPORTED, "no heuristic result");
    return;
  }
  m_algo = result.algo;
}

LtGemm::~LtGemm() {
  if (m_c != nullptr) cublasLtMatrixLayoutDestroy(m_c);
  if (m_a != nullptr) cublasLtMatrixLayoutDestroy(m_a);
  if (m_w != nullptr) cublasLtMatrixLayoutDestroy(m_w);
  if (m_desc != nullptr) cublasLtMatmulDescDestroy(m_desc);
}

cublasStatus_t LtGemm::run(const void* act, const void* weights, void* out,
                           cudaStream_t stream) const {
  if (!ok()) return m_status;
  const float alphaF = 1.0f, betaF = 0.0f;
  const int32_t alphaI = 1, betaI = 0;
  const bool isInt = m_kind == LtKind::kInt8;
  const void* alpha = isInt ? static_cast<const void*>(&alphaI) : static_cast<const void*>(&alphaF);
  const void* beta = isInt ? static_cast<const void*>(&betaI) : static_cast<const void*>(&betaF);
  return cublasLtMatmul(m_handle, m_desc, alpha, weights, m_w, act, m_a, beta, out, m_c, out, m_c,
                        &m_algo, m_workspace, m_workspaceBytes, stream);
}

}  // namespace qf::cuda::detail
