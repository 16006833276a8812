#pragma once
// cuBLASLt GEMMs for C[m][n] = A[m][k]·W[n][k]ᵀ (row-major). In cuBLAS's column-major terms
// this is Cᵀ(n×m) = op(W)·Aᵀ with W viewed as a k×n column-major matrix transposed ("T") and
// A as k×m not transposed ("N"): the TN layout, the only one Hopper's FP8 cuBLASLt kernels
// accept. Not part of the public facade.
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace qf::cuda::detail {

/// Which GEMM.
enum class LtKind {
  kBf16,  ///< bf16 in, fp32 accumulate, bf16 out
  kFp8,   ///< e4m3 in with per-tensor scales (device pointers), fp32 accumulate, bf16 out,
          ///< with cuBLASLt's fast accumulation (CUBLASLT_MATMUL_DESC_FAST_ACCUM), the setting
          ///< serving engines use for FP8 linear layers
  kInt8,  ///< int8 in, int32 accumulate, bf16 out where cuBLASLt offers it (the serving
          ///< pipelines' epilogue), else int32 out; outputBytes() says which
};

/// One planned cuBLASLt matmul (descriptors + heuristic algorithm), reusable across runs.
class LtGemm {
 public:
  /// Plans the matmul; check ok() / status() before run(). wScale/aScale: device floats
  /// (FP8 only; dequant factors of W and A).
  LtGemm(cublasLtHandle_t handle, LtKind kind, int64_t m, int64_t n, int64_t k, void* workspace,
         std::size_t workspaceBytes, const float* wScale = nullptr, const float* aScale = nullptr);
  ~LtGemm();
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;
  /// True when descriptors were created and the heuristic returned an algorithm.
  bool ok() const { return m_status == CUBLAS_STATUS_SUCCESS; }
  /// Why not ok: the cuBLAS status name and the step that failed.
  const std::string& why() const { return m_why; }
  /// Bytes of one output element: 2 (bf16) or 4 (int32, INT8 without a bf16 epilogue).
  int outputBytes() const { return m_int32Out ? 4 : 2; }
  /// The configuration in words for the record, e.g. "out=bf16 fast_accum=1".
  std::string describe() const;
  /// The heuristic's algorithm as record fields: algo_id, tile_id, stages_id (cuBLASLt's
  /// enums) and split_k; a field the library does not report is left out.
  std::map<std::string, double> planFields() const;
  /// Enqueues one matmul: act [m][k], weights [n][k], out [m][n]. Returns the cuBLAS status.
  cublasStatus_t run(const void* act, const void* weights, void* out, cudaStream_t stream) const;

 private:
  void fail(cublasStatus_t s, const char* step);
  /// Descriptors and the heuristic for one output type; false (status kept) when refused.
  bool plan(int64_t m, int64_t n, int64_t k, bool int32Out, const float* wScale,
            const float* aScale);
  void release();
  bool m_int32Out = false;
  bool m_fastAccum = false;
  cublasLtHandle_t m_handle = nullptr;
  LtKind m_kind = LtKind::kBf16;
  cublasLtMatmulDesc_t m_desc = nullptr;
  cublasLtMatrixLayout_t m_w = nullptr, m_a = nullptr, m_c = nullptr;
  cublasLtMatmulAlgo_t m_algo{};
  void* m_workspace = nullptr;
  std::size_t m_workspaceBytes = 0;
  cublasStatus_t m_status = CUBLAS_STATUS_SUCCESS;
  std::string m_why;
};

}  // namespace qf::cuda::detail
