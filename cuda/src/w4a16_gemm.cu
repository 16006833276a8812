// Fused W4A16 group-128 GEMM: C[m][n] = A[m][k]·W[n][k]ᵀ, A and C bf16, W symmetric INT4 with
// one bf16 scale per 128 k, fp32 accumulation on the tensor cores (mma.sync m16n8k16 bf16).
//
// Allowed shapes: any m ≥ 1 (rows beyond 64 are further row slices of the work), any n ≥ 1
// (the packer pads n to a multiple of 8 with zero weights, stores are guarded), k % 8 == 0 (so
// each 16-byte row vector of A is wholly inside or outside k; the packer pads k to 128).
//
// Design (decode-sized m: memory-bound on the weight stream; the aim is to keep enough weight
// bytes in flight on every SM and to spend as few issue slots per weight as possible):
// - Work is striped (Marlin's partition): the (128-column block, 128-k group) units are dealt
//   out in equal contiguous runs to exactly as many CTAs as fit on the chip at once
//   (cudaOccupancyMaxActiveBlocksPerMultiprocessor × SMs), at least kMinGroupsPerCta each. One
//   wave, every CTA the same work whatever n, k and m: no tail wave with idle SMs, and a CTA's
//   run is many pipeline chunks long, so its loads overlap its math.
// - Weights, scales and A stream through a kStages-deep cp.async pipeline (one 128-k group per
//   stage). cp.async copies global → shared without passing through registers, so a thread
//   can have three stages (24 KB of weights per CTA) in flight without holding them, and the
//   loads of later groups overlap the mma of the current one. `.cg`: the data are read once per
//   CTA, so they bypass L1. One __syncthreads per stage: it both publishes the stage that
//   arrived and frees the one the next copy overwrites.
// - Each warp owns two 8-column tiles (128 columns per CTA), so each A fragment it loads
//   feeds two mma and A is staged once per 128 columns.
// - Weight layout (qf::ref::packInt4Mma): for one 8-column tile and one group, the warp's 32
//   lanes each own 16 contiguous bytes, so one cp.async per lane and tile fetches 512
//   contiguous bytes per warp — full sectors. Each lane's four words are already its B-fragment
//   registers for the group's eight k16 slices after conversion: no shuffles, no ldmatrix for W.
// - Dequant in registers with the LOP3 magic-number trick (int4_magic.cuh): 4 LOP3, 3 shifts,
//   4 HFMA2 per 8 weights give code − 8 exactly; the mma sums one group unscaled and 4 FFMA
//   per m16 tile apply the group's scale in fp32 (instead of 4 more HFMA2 per 8 weights): the
//   kernel is near issue-bound at decode m, so every ALU slot per weight counts.
// - A fragments come from shared memory through ldmatrix: one instruction fills all four A
//   registers of an m16k16 tile (instead of four 32-bit shared loads), rows padded to 272 bytes
//   so its 8 row addresses per matrix hit 32 distinct banks. For m ≤ 8 only 8 rows are staged
//   and one ldmatrix.x4 brings two k16 slices of them: the zero rows 8–15 cost no copies, no
//   shared memory and no load issue (the mma gets zero registers for them).
// - Split-K inside the kernel, one hop: every CTA sharing a block stores its fp32 partial sums
//   in its own workspace slot and takes the block's ticket (atomicAdd); the last to arrive
//   sums all slots in rank (k) order, so the result is the same bits whatever the timing,
//   writes bf16 and resets the ticket. No CTA waits for another (no lock chain, no
//   co-residency assumption), no second launch, and the slot traffic stays in L2
//   (reductionBytes counts it).
// - Outputs are rounded once to bf16 and stored as 32-bit bf16x2 pairs where the pair is whole
//   and aligned (n even): half the store instructions, full 32-byte sectors per 4 lanes.
#include "cuda_util.hpp"
#include "int4_magic.cuh"
#include "kernels.hpp"
#include "w4a16_layout.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <string>

namespace qf::cuda::detail {

namespace {

using kern::bf16BitsToFloat;
using kern::int4ToCentredBf16;
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

/// Four 8×8 b16 matrices from shared memory (addresses per w4a16_layout.cuh's ldsm* helpers).
__device__ __forceinline__ void ldmatrixX4(uint32_t (&r)[4], uint32_t smemAddr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smemAddr));
}

/// 16-byte global → shared copy, asynchronous; srcBytes 0 fills the 16 bytes with zeros (rows
/// ≥ m and columns ≥ k of A: they meet zero-padded weights and must not be NaN).
__device__ __forceinline__ void cpAsync16(uint32_t smemAddr, const void* src, int srcBytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smemAddr), "l"(src),
               "r"(srcBytes)
               : "memory");
}
/// The same for weights, with an L2 evict-first policy: with one row slice (m ≤ 64) each weight
/// byte is read once per launch, so it should not push A, the scales and the split-K sums —
/// all re-read — out of L2. With several row slices each slice re-reads the block's weights,
/// and they are copied without the hint.
__device__ __forceinline__ void cpAsync16EvictFirst(uint32_t smemAddr, const void* src,
                                                    uint64_t policy) {
  asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;\n" ::"r"(smemAddr),
               "l"(src), "l"(policy)
               : "memory");
}
__device__ __forceinline__ uint64_t evictFirstPolicy() {
  uint64_t policy = 0;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
  return policy;
}
__device__ __forceinline__ void cpAsyncCommit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
/// Waits until at most kPending committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

/// CTAs per SM the register budget is held to (65,536 registers / 256 threads / CTAs): 4 at
/// m ≤ 16 (64 registers), 3 at 32 rows (85), 2 at 64 rows (128): what the stages' shared
/// memory allows on an H100/H200 (42.5, 51.2, 68.6 and 103.4 KB per CTA out of 228 KB), so no
/// register limit costs a resident CTA. Resident warps hide latency and keep more cp.async
/// bytes in flight per SM.
constexpr int minCtasPerSm(int rows) {
  return rows <= 16 ? 4 : (rows <= 32 ? 3 : 2);
}

/// kRows A rows per CTA (8, 16, 32 or 64). Every index comes from w4a16_layout.cuh, which the
/// host tests drive through ldmatrix and mma emulators.
/// One CTA's state and its steps: copy a stage, the mma over a stage, store or reduce a
/// finished block. Member functions instead of lambdas only to keep the kernel short; all of
/// it is inlined, so the registers are the same.
template <int kRows>
struct W4a16Cta {
  static constexpr int kMTiles = mTilesForRows(kRows);
  static constexpr int kStage = stageBytes(kRows);
  const uint16_t* __restrict__ a;
  const uint4* __restrict__ words;
  const uint16_t* __restrict__ scales;
  uint16_t* __restrict__ c;
  int* __restrict__ tickets;
  float* __restrict__ partials;
  int m, n, k, nPad;
  Striping st;
  const unsigned char* smem;
  uint32_t smemBase;
  int tid, warp, lane;
  LaneCoord lc;
  uint64_t weightPolicy;
  float acc[kTilesPerWarp][kMTiles][4];

  // One stage: A rows of the unit's row slice, the block's weights and scales of its group.
  __device__ __forceinline__ void loadStage(const Unit& un, int stage) {
    const uint32_t base = smemBase + static_cast<uint32_t>(stage * kStage);
    for (int v = tid; v < aStageVectors(kRows); v += kThreads) {
      const StageSlot slot = aStageSlot(v);
      const int gm = un.z * kRows + slot.row;
      const int gk = un.step * kGroupK + slot.col;
      const bool inside = gm < m && gk < k;
      const uint16_t* src = inside ? a + static_cast<size_t>(gm) * k + gk : a;
      cpAsync16(base + static_cast<uint32_t>(aSmemByte(slot.row, slot.col)), src, inside ? 16 : 0);
    }
#pragma unroll
    for (int j = 0; j < kTilesPerWarp; ++j) {
      const int tile = tileOf(un.x, warp, j);
      if (tile * 8 < nPad) {
        const uint32_t dst = base + static_cast<uint32_t>(wSmemByte(kRows, tid, j));
        const uint4* src = words + weightVector(tile, st.groups, un.step, lane);
        if (st.blocksZ == 1) {
          cpAsync16EvictFirst(dst, src, weightPolicy);
        } else {
          cpAsync16(dst, src, 16);
        }
      }
    }
    if (tid < kScaleVectors) {
      const int col = un.x * kBlockCols + 8 * tid;
      if (col < nPad) {
        cpAsync16(base + static_cast<uint32_t>(sSmemByte(kRows, tid)),
                  scales + scaleIndex(un.step, nPad, col), 16);
      }
    }
  }

  __device__ __forceinline__ void clearAcc() {
#pragma unroll
    for (int j = 0; j < kTilesPerWarp; ++j) {
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
        for (int r = 0; r < 4; ++r) acc[j][mt][r] = 0.0f;
      }
    }
  }

  __device__ __forceinline__ void compute(int stage, const Unit& un) {
    // Warp-uniform, and no barrier inside. A second tile beyond nPad is computed from stale
    // shared memory and never stored: cheaper than a branch per mma.
    if (tileOf(un.x, warp, 0) * 8 >= nPad) return;
    const unsigned char* s = smem + stage * kStage;
    uint32_t q[kTilesPerWarp][4];
#pragma unroll
    for (int j = 0; j < kTilesPerWarp; ++j) {
      const uint4 q4 = *reinterpret_cast<const uint4*>(s + wSmemByte(kRows, tid, j));
      q[j][0] = q4.x;
      q[j][1] = q4.y;
      q[j][2] = q4.z;
      q[j][3] = q4.w;
    }
    const uint32_t aBase = smemBase + static_cast<uint32_t>(stage * kStage);
    // The group's sums without its scale (weights code − 8, exact in bf16); the scale goes on
    // in fp32 below. That also rounds less than scaling each bf16 weight.
    float part[kTilesPerWarp][kMTiles][4];
#pragma unroll
    for (int j = 0; j < kTilesPerWarp; ++j) {
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
        for (int r = 0; r < 4; ++r) part[j][mt][r] = 0.0f;
      }
    }
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      uint32_t b[kTilesPerWarp][4];
#pragma unroll
      for (int j = 0; j < kTilesPerWarp; ++j) int4ToCentredBf16(q[j][w], kMagicPlusEightPair, b[j]);
      uint32_t af[2][kMTiles][4];
      if constexpr (kRows == 8) {
        uint32_t r[4];
        ldmatrixX4(r, aBase + static_cast<uint32_t>(2 * ldsmAddress8(lane, w)));
#pragma unroll
        for (int ks = 0; ks < 2; ++ks) {
#pragma unroll
          for (int i = 0; i < 4; ++i) af[ks][0][i] = 0u;
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const FragSlot f = ldsm8Slot(i);
          af[f.slice][0][f.reg] = r[i];
        }
      } else {
#pragma unroll
        for (int ks = 0; ks < 2; ++ks) {
#pragma unroll
          for (int mt = 0; mt < kMTiles; ++mt) {
            ldmatrixX4(af[ks][mt], aBase + static_cast<uint32_t>(
                                               2 * ldsmAddress16(lane, mt, sliceOfWord(w, ks))));
          }
        }
      }
#pragma unroll
      for (int ks = 0; ks < 2; ++ks) {
#pragma unroll
        for (int j = 0; j < kTilesPerWarp; ++j) {
#pragma unroll
          for (int mt = 0; mt < kMTiles; ++mt)
            mmaBf16(part[j][mt], af[ks][mt], b[j][2 * ks], b[j][2 * ks + 1]);
        }
      }
    }
#pragma unroll
    for (int j = 0; j < kTilesPerWarp; ++j) {
      // Columns 2t, 2t + 1 of the tile: c0/c2 take the first scale, c1/c3 the second.
      const uint32_t sc = *reinterpret_cast<const uint32_t*>(s + accScaleByte(kRows, warp, j, lc));
      const float s0 = bf16BitsToFloat(sc & 0xFFFFu);
      const float s1 = bf16BitsToFloat(sc >> 16);
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
        acc[j][mt][0] = fmaf(s0, part[j][mt][0], acc[j][mt][0]);
        acc[j][mt][1] = fmaf(s1, part[j][mt][1], acc[j][mt][1]);
        acc[j][mt][2] = fmaf(s0, part[j][mt][2], acc[j][mt][2]);
        acc[j][mt][3] = fmaf(s1, part[j][mt][3], acc[j][mt][3]);
      }
    }
  }

  // The block is done for this CTA. A block it owns alone goes out as bf16 at once. A shared
  // block (one-hop split-K, w4a16_layout.cuh): store the partial sums in this CTA's slot, take
  // the block's ticket; the CTA that arrives last sums every slot in rank order, writes bf16
  // and puts the ticket back to 0. All threads take part (the barriers); warps whose tiles lie
  // beyond nPad store nothing.
  __device__ __forceinline__ void finishBlock(const Unit& un) {
    const int cta = static_cast<int>(blockIdx.x);
    const BlockShare share = blockShare(st, un.block, cta);
    if (share.count > 1) {
      const int slot = partialSlot(st, un.block, cta);
      forEachAccPair(un, [&](int j, int mt, int r, int row, int colInBlock) {
        __stcg(reinterpret_cast<float2*>(partials + slotIndex(st, slot, row, colInBlock)),
               make_float2(acc[j][mt][r], acc[j][mt][r + 1]));
      });
      __threadfence();  // this thread's partial sums reach gpu scope before the ticket
      bool last = false;
      if (tid == 0) last = atomicAdd(tickets + un.block, 1) == share.count - 1;
      if (__syncthreads_or(last) == 0) return;  // block-uniform: another CTA finishes it
      __threadfence();  // the other CTAs' slots, published before their tickets, are visible
      // Rank order 0, 1, 2, …, this CTA's own slot included: the same sums, bit for bit,
      // whichever CTA arrived last. L2 loads (__ldcg): L1 is not coherent across SMs.
      const int first = firstCtaOf(st, un.block);
      for (int q = 0; q < share.count; ++q) {
        const float* from = partials + slotIndex(st, partialSlot(st, un.block, first + q), 0, 0);
        forEachAccPair(un, [&](int j, int mt, int r, int row, int colInBlock) {
          const float2 p =
              __ldcg(reinterpret_cast<const float2*>(from + row * kBlockCols + colInBlock));
          acc[j][mt][r] = q == 0 ? p.x : acc[j][mt][r] + p.x;
          acc[j][mt][r + 1] = q == 0 ? p.y : acc[j][mt][r + 1] + p.y;
        });
      }
      if (tid == 0) atomicExch(tickets + un.block, 0);  // ready for the next launch
    }
    forEachAccPair(un, [&](int j, int mt, int r, int row, int colInBlock) {
      const int col = un.x * kBlockCols + colInBlock;
      if (col >= n) return;
      const float v0 = acc[j][mt][r];
      const float v1 = acc[j][mt][r + 1];
      const std::size_t o = static_cast<std::size_t>(un.z * kRows + row) * n + col;
      if (outputPairStorable(col, n)) {
        // c0,c1 (and c2,c3) are columns 2t and 2t+1 of one row: one 32-bit bf16x2 store.
        *reinterpret_cast<__nv_bfloat162*>(c + o) = __floats2bfloat162_rn(v0, v1);
      } else {
        c[o] = __bfloat16_as_ushort(__float2bfloat16_rn(v0));
        if (col + 1 < n) c[o + 1] = __bfloat16_as_ushort(__float2bfloat16_rn(v1));
      }
    });
  }

  // f(j, mt, r, row in block, column in block) for each accumulator pair r, r + 1 (r = 0, 2)
  // of the warp's tiles inside nPad and rows < m.
  template <class F>
  __device__ __forceinline__ void forEachAccPair(const Unit& un, F&& f) {
#pragma unroll
    for (int j = 0; j < kTilesPerWarp; ++j) {
      const int tile = tileOf(un.x, warp, j);
      if (tile * 8 >= nPad) continue;
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
        for (int r = 0; r < 4; r += 2) {
          const int row = accRow(mt, lc, r);
          if (un.z * kRows + row >= m) continue;
          f(j, mt, r, row, tile * 8 - un.x * kBlockCols + accCol(lc, r));
        }
      }
    }
  }
};

template <int kRows>
__global__ void __launch_bounds__(kThreads, minCtasPerSm(kRows))
    w4a16GemmKernel(const uint16_t* __restrict__ a, const uint4* __restrict__ words,
                    const uint16_t* __restrict__ scales, uint16_t* __restrict__ c,
                    int* __restrict__ tickets, float* __restrict__ partials, int m, int n, int k,
                    int nPad, Striping st) {
  extern __shared__ uint4 smemRaw[];
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % 32;
  W4a16Cta<kRows> cta{a,
                      words,
                      scales,
                      c,
                      tickets,
                      partials,
                      m,
                      n,
                      k,
                      nPad,
                      st,
                      reinterpret_cast<const unsigned char*>(smemRaw),
                      static_cast<uint32_t>(__cvta_generic_to_shared(smemRaw)),
                      tid,
                      tid / 32,
                      lane,
                      laneCoord(lane),
                      evictFirstPolicy(),
                      {}};
  cta.clearAcc();
  const UnitRange range = ctaUnits(st, static_cast<int>(blockIdx.x));
  // Prologue: kStages − 1 groups in flight before the first mma. Every iteration commits one
  // group (possibly empty), so wait_group<kStages − 2> always means "this stage has landed".
  Unit copyAt = unitAt(st, range.begin);  // the next unit to copy
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (range.begin + s < range.end) {
      cta.loadStage(copyAt, s);
      copyAt = nextUnit(st, copyAt);
    }
    cpAsyncCommit();
  }
  Unit un = unitAt(st, range.begin);  // the unit to compute
  for (int u = range.begin; u < range.end; ++u, un = nextUnit(st, un)) {
    const int i = u - range.begin;
    cpAsyncWait<kStages - 2>();
    __syncthreads();  // stage i visible to all warps; stage i − 1 free for the copy below
    if (u + kStages - 1 < range.end) {
      cta.loadStage(copyAt, copySlot(i));
      copyAt = nextUnit(st, copyAt);
    }
    cpAsyncCommit();
    cta.compute(computeSlot(i), un);
    if (un.step == st.steps - 1 || u == range.end - 1) {
      cta.finishBlock(un);
      cta.clearAcc();
    }
  }
  cpAsyncWait<0>();
}

/// The largest CTA variant the current device's shared memory holds (prepareW4a16Gemm sets
/// it; one device per process, as measure() opens one).
int g_maxRows = 64;

template <int kRows>
void raiseSmemLimit() {
  if (kRows > g_maxRows) return;  // never launched on this device: asking would fail
  QF_CUDA_CHECK(cudaFuncSetAttribute(
      w4a16GemmKernel<kRows>, cudaFuncAttributeMaxDynamicSharedMemorySize, smemBytesFor(kRows)));
}

template <int kRows>
int residentPerSm() {
  int perSm = 0;
  QF_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, w4a16GemmKernel<kRows>,
                                                              kThreads, smemBytesFor(kRows)));
  return perSm;
}

template <int kRows>
void launchTyped(const W4a16GemmArgs& p, const Striping& st, cudaStream_t stream) {
  int* tickets = nullptr;
  float* partials = nullptr;
  if (anyBlockShared(st)) {
    if (p.workspace == nullptr || p.workspaceBytes < workspaceBytes(st))
      throw CudaError("launchW4a16Gemm: the split-K reduction needs a larger workspace");
    tickets = static_cast<int*>(p.workspace);
    partials = reinterpret_cast<float*>(static_cast<unsigned char*>(p.workspace) + ticketBytes(st));
  }
  w4a16GemmKernel<kRows><<<static_cast<unsigned>(st.ctas), kThreads, smemBytesFor(kRows), stream>>>(
      p.a, reinterpret_cast<const uint4*>(p.words), p.scales, p.c, tickets, partials,
      static_cast<int>(p.m), static_cast<int>(p.n), static_cast<int>(p.k), static_cast<int>(p.nPad),
      st);
  checkLaunch("w4a16GemmKernel");
}

Striping planFor(int64_t m, int64_t nPad, int64_t kPad, int residentCtas) {
  return planStriping(m, nPad, kPad, std::max(1, residentCtas), g_maxRows);
}

}  // namespace

int w4a16ResidentCtas(int64_t m, int smCount) {
  int perSm = 0;
  switch (ctaRowsFor(m, g_maxRows)) {
    case 8:
      perSm = residentPerSm<8>();
      break;
    case 16:
      perSm = residentPerSm<16>();
      break;
    case 32:
      perSm = residentPerSm<32>();
      break;
    default:
      perSm = residentPerSm<64>();
      break;
  }
  return std::max(1, perSm) * smCount;
}

W4a16Plan w4a16Plan(int64_t m, int64_t nPad, int64_t kPad, int residentCtas) {
  const Striping st = planFor(m, nPad, kPad, residentCtas);
  W4a16Plan plan;
  plan.ctas = st.ctas;
  plan.groupsPerCta = st.perCta;
  plan.workspaceBytes = workspaceBytes(st);
  plan.reductionBytes = reductionBytes(st, m, nPad);
  plan.ctaRows = st.rows;
  plan.splitDepth = maxCtasPerBlock(st);
  return plan;
}

int prepareW4a16Gemm(int smemPerBlockOptin) {
  g_maxRows = largestRowsWithin(smemPerBlockOptin);
  if (g_maxRows == 0) {
    throw CudaError("the fused W4A16 kernel needs " + std::to_string(smemBytesFor(8)) +
                    " bytes of shared memory per block; this device allows " +
                    std::to_string(smemPerBlockOptin));
  }
  raiseSmemLimit<8>();
  raiseSmemLimit<16>();
  raiseSmemLimit<32>();
  raiseSmemLimit<64>();
  return g_maxRows;
}

void launchW4a16Gemm(const W4a16GemmArgs& p, cudaStream_t stream) {
  if (p.m < 1 || p.n < 1 || p.k % 8 != 0 || p.nPad % 8 != 0 || p.kPad % 128 != 0 || p.nPad < p.n ||
      p.kPad < p.k || p.residentCtas < 1 || p.m > (int64_t{1} << 30) ||
      p.nPad * p.kPad / 8 >= (int64_t{1} << 31) || p.m * p.nPad >= (int64_t{1} << 31) ||
      (p.m + 7) / 8 * ((p.nPad + 63) / 64) * (p.kPad / 128) >= (int64_t{1} << 31)) {
    throw CudaError("launchW4a16Gemm: unsupported shape");
  }
  const Striping st = planFor(p.m, p.nPad, p.kPad, p.residentCtas);
  switch (st.rows) {
    case 8:
      launchTyped<8>(p, st, stream);
      break;
    case 16:
      launchTyped<16>(p, st, stream);
      break;
    case 32:
      launchTyped<32>(p, st, stream);
      break;
    default:
      launchTyped<64>(p, st, stream);
      break;
  }
}

}  // namespace qf::cuda::detail
