// Fused W4A16 group-128 GEMM: C[m][n] = A[m][k]·W[n][k]ᵀ, A and C bf16, W symmetric INT4 with
// one bf16 scale per 128 k, fp32 accumulation on the tensor cores (mma.sync m16n8k16 bf16).
//
// Allowed shapes: any m ≥ 1 (rows beyond 64 loop over grid.z), any n ≥ 1 (the packer pads n to
// a multiple of 8 with zero weights, stores are guarded), k % 8 == 0 (so each 16-byte row
// vector of A is wholly inside or outside k; the packer pads k to a multiple of 128).
//
// Design (decode-sized m, memory-bound on the weight stream):
// - Weight layout (qf::ref::packInt4Mma): for one 8-column tile and one 128-k group, the warp's
//   32 lanes each own 16 contiguous bytes, so one 128-bit load per lane fetches 512 contiguous
//   bytes per warp — full sectors, no shared-memory round trip for B. Each lane's four words
//   are already its B-fragment registers for the group's eight k16 slices after conversion:
//   no shuffles, no ldmatrix for W.
// - Dequant in registers with the LOP3 magic-number trick (int4_magic.cuh): 4 LOP3, 3 shifts,
//   4 HSUB2, 4 HMUL2 per 8 weights, on the FP/ALU pipes while the tensor core is mostly idle.
// - A is tiny at decode m (≤ 1.8 MB for m=64, k=14336) and reused by every column tile, so
//   each CTA stages its A chunk once in shared memory and its 8 warps (8 column tiles) read
//   fragments from there. Rows padded by 8 bf16 (16 bytes = 4 banks): fragment loads of lane
//   (g, t) hit bank 4g + t + c, all 32 distinct, so no bank conflicts.
// - Many CTAs over n plus split-K keep ~4 CTAs per SM streaming; partial sums go to an fp32
//   workspace and a second small kernel reduces them (deterministic, no atomics).
// - Next chunk's weights are loaded into registers before the current chunk is computed, so
//   each warp has 2 × 64 bytes per lane in flight across the compute.
#include "cuda_util.hpp"
#include "int4_magic.cuh"
#include "kernels.hpp"
#include "w4a16_layout.cuh"

#include <cuda_bf16.h>

#include <algorithm>

namespace qf::cuda::detail {

namespace {

using kern::broadcastBf16;
using kern::int4ToBf16;
using kern::kMagicPlusEightPair;

using namespace kern::w4a16;

/// D += A·B on one m16n8k16 tile, bf16 inputs, fp32 accumulators. Fragment layout (PTX ISA):
/// lane = 4g + t; a0:(row g, k 2t..2t+1) a1:(g+8, 2t..) a2:(g, 2t+8..) a3:(g+8, 2t+8..);
/// b0:(k 2t..2t+1, col g) b1:(k 2t+8.., col g); c0,c1:(row g, cols 2t, 2t+1) c2,c3: row g+8.
__device__ __forceinline__ void mmaBf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                        uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// kMTiles m16 tiles per CTA (1, 2 or 4: m ≤ 16, ≤ 32, otherwise 64 rows per grid.z slice).
/// Every index comes from w4a16_layout.cuh, which the host tests drive through an mma
/// emulator.
template <int kMTiles>
__global__ void __launch_bounds__(kThreads)
    w4a16GemmKernel(const uint16_t* __restrict__ a, const uint4* __restrict__ words,
                    const uint16_t* __restrict__ scales, uint16_t* __restrict__ c,
                    float* __restrict__ workspace, int m, int n, int k, int nPad, int groups,
                    int chunksPerSplit) {
  extern __shared__ uint4 smemRaw[];
  auto* smemA = reinterpret_cast<uint16_t*>(smemRaw);
  const auto* smemA32 = reinterpret_cast<const uint32_t*>(smemRaw);

  constexpr int kRows = 16 * kMTiles;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const LaneCoord lc = laneCoord(lane);
  const int tile = blockIdx.x * kWarps + warp;  // 8-column tile of this warp
  const bool tileValid = tile * 8 < nPad;
  const int mBase = blockIdx.z * kRows;
  const int chunkBegin = blockIdx.y * chunksPerSplit;
  const int chunkEnd = min(chunkBegin + chunksPerSplit, chunkCount(groups));

  float acc[kMTiles][4];
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
    for (int r = 0; r < 4; ++r) acc[mt][r] = 0.0f;
  }

  // Weight registers for one chunk: lane's 16 bytes of each of the chunk's 4 groups.
  uint4 wNext[kGroupsPerChunk];
  uint16_t sNext[kGroupsPerChunk];
  auto loadWeights = [&](int chunk) {
#pragma unroll
    for (int j = 0; j < kGroupsPerChunk; ++j) {
      const int grp = chunk * kGroupsPerChunk + j;
      if (tileValid && chunk < chunkEnd && grp < groups) {
        // Each weight byte is used once per CTA: streaming load, evict-first in L2/L1.
        wNext[j] = __ldcs(words + weightVector(tile, groups, grp, lane));
        sNext[j] = scales[scaleIndex(grp, nPad, tile, lc.g)];
      } else {
        wNext[j] = make_uint4(0, 0, 0, 0);
        sNext[j] = 0;
      }
    }
  };
  loadWeights(chunkBegin);

  for (int chunk = chunkBegin; chunk < chunkEnd; ++chunk) {
    const int kChunk0 = chunk * kChunkK;
    // Stage A[mBase .. mBase+kRows)[kChunk0 .. kChunk0+512) in shared memory; rows ≥ m and
    // columns ≥ k read as zero (they meet zero-padded weights, and never NaN).
    __syncthreads();  // previous chunk's fragment reads are done
    for (int v = threadIdx.x; v < stageVectors(kRows); v += kThreads) {
      const StageSlot slot = stageSlot(v);
      const int gm = mBase + slot.row;
      const int gk = kChunk0 + slot.col;
      uint4 val = make_uint4(0, 0, 0, 0);
      if (gm < m && gk < k)
        val = *reinterpret_cast<const uint4*>(a + static_cast<size_t>(gm) * k + gk);
      *reinterpret_cast<uint4*>(smemA + smemOffset(slot.row, slot.col)) = val;
    }
    __syncthreads();

    uint4 wCur[kGroupsPerChunk];
    uint16_t sCur[kGroupsPerChunk];
#pragma unroll
    for (int j = 0; j < kGroupsPerChunk; ++j) {
      wCur[j] = wNext[j];
      sCur[j] = sNext[j];
    }
    loadWeights(chunk + 1);  // in flight while this chunk computes

    if (tileValid) {
#pragma unroll
      for (int j = 0; j < kGroupsPerChunk; ++j) {
        if (chunk * kGroupsPerChunk + j >= groups) break;
        const uint32_t scale2 = broadcastBf16(sCur[j]);
        const uint32_t q[4] = {wCur[j].x, wCur[j].y, wCur[j].z, wCur[j].w};
#pragma unroll
        for (int w = 0; w < 4; ++w) {
          uint32_t b[4];
          int4ToBf16(q[w], kMagicPlusEightPair, scale2, b);
#pragma unroll
          for (int ks = 0; ks < 2; ++ks) {
#pragma unroll
            for (int mt = 0; mt < kMTiles; ++mt) {
              int idx[4];
              aFragmentWords(mt, sliceOfWord(j, w, ks), lc, idx);
              const uint32_t af[4] = {smemA32[idx[0]], smemA32[idx[1]], smemA32[idx[2]],
                                      smemA32[idx[3]]};
              mmaBf16(acc[mt], af, b[2 * ks], b[2 * ks + 1]);
            }
          }
        }
      }
    }
  }

  if (!tileValid) return;
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
    for (int r = 0; r < 4; r += 2) {
      // c0,c1 (and c2,c3) are columns 2t and 2t+1 of one row: one 32-bit bf16x2 store where the
      // pair is whole and 4-byte aligned (n even), instead of two 16-bit stores — half the
      // store instructions, and a warp's stores cover each row's 16 bytes in one transaction.
      const int row = mBase + accRow(mt, lc, r);
      const int col = tile * 8 + accCol(lc, r);
      if (row >= m || col >= n) continue;
      if (workspace == nullptr && outputPairStorable(col, n)) {
        const __nv_bfloat162 pair = __floats2bfloat162_rn(acc[mt][r], acc[mt][r + 1]);
        *reinterpret_cast<__nv_bfloat162*>(c + static_cast<size_t>(row) * n + col) = pair;
        continue;
      }
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        if (col + e >= n) continue;
        const float v = acc[mt][r + e];
        if (workspace == nullptr) {
          c[static_cast<size_t>(row) * n + col + e] = __bfloat16_as_ushort(__float2bfloat16_rn(v));
        } else {
          workspace[workspaceIndex(blockIdx.y, m, n, row, col + e)] = v;
        }
      }
    }
  }
}

/// Sums split-K partials in a fixed order (deterministic) and rounds once to bf16.
__global__ void splitKReduceKernel(const float* __restrict__ workspace, uint16_t* __restrict__ c,
                                   size_t elements, int splits) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < elements;
       i += stride) {
    float sum = 0.0f;
    for (int s = 0; s < splits; ++s) sum += workspace[static_cast<size_t>(s) * elements + i];
    c[i] = __bfloat16_as_ushort(__float2bfloat16_rn(sum));
  }
}

template <int kMTiles>
constexpr size_t smemBytes() {
  return static_cast<size_t>(16 * kMTiles) * kSmemStride * sizeof(uint16_t);
}

/// 4 m-tiles need 66.5 KB: above the 48 KB default, so the dynamic limit is raised once per
/// device (prepareW4a16Gemm), never per launch: a launch is then one API call, as in a graph.
template <int kMTiles>
void raiseSmemLimit() {
  QF_CUDA_CHECK(cudaFuncSetAttribute(w4a16GemmKernel<kMTiles>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(smemBytes<kMTiles>())));
}

template <int kMTiles>
void launchTyped(const W4a16GemmArgs& p, cudaStream_t stream) {
  const int groups = static_cast<int>(p.kPad / 128);
  const GridPlan plan = gridPlan(p.m, p.nPad, p.kPad, p.splits);
  const int chunksPerSplit = plan.chunksPerSplit;
  const int splits = plan.splits;
  const dim3 grid(static_cast<unsigned>(plan.x), static_cast<unsigned>(plan.splits),
                  static_cast<unsigned>(plan.z));
  const size_t smem = smemBytes<kMTiles>();
  float* ws = splits > 1 ? p.workspace : nullptr;
  if (splits > 1 && ws == nullptr) throw CudaError("launchW4a16Gemm: split-K needs a workspace");
  w4a16GemmKernel<kMTiles><<<grid, kThreads, smem, stream>>>(
      p.a, reinterpret_cast<const uint4*>(p.words), p.scales, p.c, ws, static_cast<int>(p.m),
      static_cast<int>(p.n), static_cast<int>(p.k), static_cast<int>(p.nPad), groups,
      chunksPerSplit);
  checkLaunch("w4a16GemmKernel");
  if (splits > 1) {
    const size_t elements = static_cast<size_t>(p.m) * static_cast<size_t>(p.n);
    const unsigned blocks = static_cast<unsigned>(std::min<size_t>((elements + 255) / 256, 4096));
    splitKReduceKernel<<<blocks, 256, 0, stream>>>(p.workspace, p.c, elements, splits);
    checkLaunch("splitKReduceKernel");
  }
}

}  // namespace

int w4a16ResidentCtas(int64_t m, int smCount) {
  int perSm = 0;
  const int tiles = mTilesFor(m);
  const auto smem = static_cast<int>(tiles == 1   ? smemBytes<1>()
                                     : tiles == 2 ? smemBytes<2>()
                                                  : smemBytes<4>());
  if (tiles == 1) {
    QF_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, w4a16GemmKernel<1>, kThreads, smem));
  } else if (tiles == 2) {
    QF_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, w4a16GemmKernel<2>, kThreads, smem));
  } else {
    QF_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, w4a16GemmKernel<4>, kThreads, smem));
  }
  return std::max(1, perSm) * smCount;
}

int w4a16Splits(int64_t m, int64_t nPad, int64_t kPad, int residentCtas) {
  const GridPlan one = gridPlan(m, nPad, kPad, 1);
  return chooseSplits(static_cast<int64_t>(one.x) * one.z, chunkCount(static_cast<int>(kPad / 128)),
                      residentCtas);
}

std::size_t w4a16WorkspaceBytes(int64_t m, int64_t n, int splits) {
  return splits > 1 ? static_cast<std::size_t>(splits) * static_cast<std::size_t>(m * n) * 4 : 0;
}

void prepareW4a16Gemm() {
  raiseSmemLimit<1>();
  raiseSmemLimit<2>();
  raiseSmemLimit<4>();
}

void launchW4a16Gemm(const W4a16GemmArgs& p, cudaStream_t stream) {
  if (p.m < 1 || p.n < 1 || p.k % 8 != 0 || p.nPad % 8 != 0 || p.kPad % 128 != 0 || p.splits < 1 ||
      p.m * 1 > (int64_t{1} << 30) || p.nPad * p.kPad / 8 >= (int64_t{1} << 31)) {
    throw CudaError("launchW4a16Gemm: unsupported shape");
  }
  switch (mTilesFor(p.m)) {
    case 1:
      launchTyped<1>(p, stream);
      break;
    case 2:
      launchTyped<2>(p, stream);
      break;
    default:
      launchTyped<4>(p, stream);
      break;
  }
}

}  // namespace qf::cuda::detail
