// Fused W4A16 group-128 GEMM: C[m][n] = A[m][k]·W[n][k]ᵀ, A and C bf16, W symmetric INT4 with
// one bf16 scale per 128 k, fp32 accumulation on the tensor cores (mma.sync m16n8k16 bf16).
//
// Allowed shapes: any m ≥ 1 (rows beyond 64 are further row slices of the work), any n ≥ 1
// (the packer pads n to a multiple of 8 with zero weights, stores are guarded), k % 8 == 0 (so
// each 16-byte row vector of A is wholly inside or outside k; the packer pads k to 128).
//
// Design (decode-sized m: memory-bound on the weight stream; the aim is to keep enough weight
// bytes in flight on every SM and to spend as few issue slots per weight as possible):
// - Work is striped (Marlin's partition): the (128-column block, pipeline stage) units are dealt
//   out in equal contiguous runs to exactly as many CTAs as fit on the chip at once
//   (cudaOccupancyMaxActiveBlocksPerMultiprocessor × SMs), at least kMinGroupsPerCta each. One
//   wave, every CTA the same work whatever n, k and m: no tail wave with idle SMs, and a CTA's
//   run is many pipeline chunks long, so its loads overlap its math.
// - Weights, scales and A stream through a kStages-deep cp.async pipeline (two 128-k groups per
//   stage at 8 and 16 rows, one at 32 and 64). cp.async copies global → shared without passing
//   through registers, so a thread can have three stages (48 KB of weights per CTA at 8 and 16
//   rows, 24 KB at 32 and 64) in flight without holding them, and the loads of later stages
//   overlap the mma of the current one. `.cg`: the data are read once per CTA, so they bypass
//   L1. One __syncthreads per stage: it both publishes the stage that arrived and frees the one
//   the next copy overwrites.
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
//   registers of an m16k16 tile (instead of four 32-bit shared loads), rows padded to 272 (528
//   with two-group stages) bytes so its 8 row addresses per matrix hit 32 distinct banks. For
//   m ≤ 8 the CTA computes Cᵀ = W·Aᵀ: a warp's two weight tiles are the mma's m16 operand as
//   the conversion leaves them, and one ldmatrix.x4 of the 8 staged A rows is the n8 operand of
//   two k16 slices: no zero rows are copied, stored, loaded or multiplied.
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
#include <type_traits>

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

/// Shared-memory loads by 32-bit shared address (the ring offsets stay 32-bit; a generic
/// pointer would be converted back to a shared address on every use).
__device__ __forceinline__ void ldsV4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ uint32_t ldsU32(uint32_t addr) {
  uint32_t v;
  asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(addr));
  return v;
}
__device__ __forceinline__ uint32_t ldsU16(uint32_t addr) {
  uint16_t v;
  asm volatile("ld.shared.u16 %0, [%1];\n" : "=h"(v) : "r"(addr));
  return v;
}

/// 16-byte global → shared copy, asynchronous; srcBytes 0 fills the 16 bytes with zeros
/// (columns ≥ k of A: they meet zero-padded weights and must not be NaN).
__device__ __forceinline__ void cpAsync16(uint32_t smemAddr, const void* src, int srcBytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smemAddr), "l"(src),
               "r"(srcBytes)
               : "memory");
}
__device__ __forceinline__ void cpAsync16(uint32_t smemAddr, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smemAddr), "l"(src) : "memory");
}
/// The same for weights, with an L2 cache policy: evict-first with one row slice (m ≤ 64: each
/// weight byte is read once per launch, so it should not push A, the scales and the split-K
/// slots — all re-read — out of L2), evict-normal with several (each slice re-reads the
/// block's weights). One instruction form either way: the policy is a register.
__device__ __forceinline__ void cpAsync16Policy(uint32_t smemAddr, const void* src,
                                                uint64_t policy) {
  asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;\n" ::"r"(smemAddr),
               "l"(src), "l"(policy)
               : "memory");
}
__device__ __forceinline__ uint64_t weightPolicy(bool evictFirst) {
  uint64_t policy = 0;
  if (evictFirst) {
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
  } else {
    asm volatile("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;\n" : "=l"(policy));
  }
  return policy;
}
/// threadIdx.x and blockIdx.x read where they are used (volatile: the read is not merged with
/// another nor moved out of a loop). What a block's first or last stage needs (aimCopy,
/// finishBlock) comes from these, so none of it is held in a register across the stage loop;
/// the 32- and 64-row variants also read threadIdx.x again in each stage (LoopForm).
__device__ __forceinline__ int tidAgain() {
  uint32_t v;
  asm volatile("mov.u32 %0, %%tid.x;\n" : "=r"(v));
  return static_cast<int>(v);
}
__device__ __forceinline__ int ctaAgain() {
  uint32_t v;
  asm volatile("mov.u32 %0, %%ctaid.x;\n" : "=r"(v));
  return static_cast<int>(v);
}
__device__ __forceinline__ void cpAsyncCommit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
/// Waits until at most kPending committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

/// Shared memory of one SM of the architecture being compiled (the CUDA C++ Programming Guide's
/// per-SM capacity: 164 KB on sm_80/sm_87, 100 KB on sm_86/sm_89/sm_120, 228 KB on sm_90 and
/// sm_100), and the CTAs of a variant it holds at once (1 KB of each CTA is the system's).
constexpr int smemPerSm() {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 870)
  return 164 * 1024;
#elif defined(__CUDA_ARCH__) && \
    (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
  return 100 * 1024;
#else
  return 228 * 1024;
#endif
}
constexpr int ctasBySmem(int rows) {
  const int ctas = smemPerSm() / (smemBytesFor(rows) + 1024);
  return ctas < 1 ? 1 : ctas;
}
/// CTAs per SM the register budget is held to (65,536 registers / 256 threads / CTAs): as many
/// as shared memory lets the SM hold, so the cap never costs a resident CTA and never forces a
/// spill it need not (sm_90: 2, 3, 2 CTAs of 8, 32, 64 rows, at most 128, 80, 128 registers;
/// sm_80: 1, 2, 1; sm_86/sm_89: 1, 1, and 64 rows never runs there). 16 rows keeps 64
/// registers (4 CTAs) although shared memory holds 2 on sm_90 and 1 elsewhere: it fits them
/// without spilling.
constexpr int minCtasPerSm(int rows) {
  return rows == 16 ? 4 : ctasBySmem(rows);
}

/// What the stage loop of a variant holds in registers and what it recomputes. The choice is
/// the one that compiles without a spill under each variant's register cap on sm_80, sm_86,
/// sm_89 and sm_90a (nvcc 13.0; cuda/NOTES.md has the figures): at 32 and 64 rows the
/// accumulators and the mma's operands take most of the registers, so the lane's shared-memory
/// offsets are recomputed from threadIdx.x in each stage; the 32-row variant advances 64-bit
/// source pointers, the others 32-bit element indices (one register each instead of two, and
/// no 64-bit add per stage).
struct LoopForm {
  bool tidPerStage;  ///< threadIdx.x read again in each stage (copy and mma)
  bool indexCursor;  ///< copy sources as 32-bit indices instead of pointers
};
constexpr LoopForm loopFormFor(int rows) {
  return {rows > 16, rows != 32};
}

/// kRows A rows per CTA (8, 16, 32 or 64). Every index comes from w4a16_layout.cuh, which the
/// host tests drive through ldmatrix and mma emulators. One CTA's state and its steps: copy a
/// stage, the mma over a stage, store or reduce a finished block. Member functions instead of
/// lambdas only to keep the kernel short; all of it is inlined.
///
/// The stage loop keeps its address math out of the loop: every source a thread copies from is
/// computed when its copy cursor enters a block (once per block, not per stage) and then
/// advanced by constants per stage; the shared-memory offsets inside a stage (group, tile,
/// k slice) are immediates. Rows ≥ m and tiles beyond nPad are clamped when the cursor enters a
/// block; the k bound and an odd last group only matter in a block's last stage, which takes a
/// separate path.
template <int kRows>
struct W4a16Cta {
  static constexpr bool kT = transposedForRows(kRows);
  static constexpr int kGps = groupsPerStage(kRows);
  static constexpr int kMTiles = mTilesForRows(kRows);
  static constexpr int kAccTiles = kT ? 1 : kTilesPerWarp;  // acc[kAccTiles][kMTiles][4]
  static constexpr int kStage = stageBytes(kRows);
  static constexpr int kAVecs = aVectorsPerThread(kRows);
  static constexpr int kARows = kAVecs / aColumnPasses(kRows);  // A rows per thread (1 or 2)
  static constexpr int kScaleThreads = kGps * kScaleVectors;
  static constexpr LoopForm kForm = loopFormFor(kRows);

  const uint16_t* __restrict__ a;
  const uint4* __restrict__ words;
  const uint16_t* __restrict__ scales;
  uint16_t* __restrict__ c;
  int* __restrict__ tickets;
  float* __restrict__ partials;
  int m, n, k, nPad;
  Striping st;
  uint32_t smemBase;
  int tid;
  uint64_t policy;  // the weights' L2 policy, made once (weightPolicy)
  // Copy cursor: what each thread copies next. Every source is clamped into its array instead
  // of predicated: a row ≥ m of A, a tile or scale column beyond nPad, an odd group beyond
  // `groups` copy some other real data, which is finite, meets nothing (rows and columns are
  // independent in the mma) and is never stored. Only A columns ≥ k must be zeros (they meet
  // the packer's zero weights), in a block's last stage.
  template <class T>
  using Src = std::conditional_t<kForm.indexCursor, uint32_t, const T*>;
  int copyLeft;        // stages of its block after the one it copies next (0: the last)
  Src<uint16_t> aSrc;  // A vector 0 of this thread at the copy step
  int aOff[kARows];    // element offset of row r's vectors from row 0's (rows clamped below m)
  Src<uint4> wSrc;     // tile 0's 16 bytes of this lane, the copy step's group 0
  int wTileOff;        // uint4 offset of tile 1 from tile 0 (0 when tile 1 is beyond nPad)
  Src<uint16_t> sSrc;  // scale vector of this thread (tid < kScaleThreads) at the copy step
  float acc[kAccTiles][kMTiles][4];

  template <class T>
  __device__ __forceinline__ static Src<T> srcAt(const T* base, std::size_t i) {
    if constexpr (kForm.indexCursor) {
      return static_cast<uint32_t>(i);  // < 2^31: launchW4a16Gemm bounds m·k, n·k and the scales
    } else {
      return base + i;
    }
  }
  template <class T>
  __device__ __forceinline__ static const T* ptr(const T* base, Src<T> src) {
    if constexpr (kForm.indexCursor) {
      return base + src;
    } else {
      return src;
    }
  }
  // threadIdx.x in the stage loop: held, or read again (LoopForm).
  __device__ __forceinline__ int stageTid() const { return kForm.tidPerStage ? tidAgain() : tid; }

  // Where this thread's copies of unit `unit` (and of the rest of its block) come from.
  __device__ __forceinline__ void aimCopy(int unit) {
    const int copyBlock = unit / st.steps;
    const int copyStep = unit - copyBlock * st.steps;
    copyLeft = st.steps - 1 - copyStep;
    const int copyX = copyBlock / st.blocksZ;
    const int copyZ = copyBlock - copyX * st.blocksZ;
    const int t = tidAgain();
    const StageSlot a0 = aStageSlot(kRows, t);
    const int gm = copyZ * kRows + a0.row;
    const int row0 = gm < m ? gm : m - 1;
    aSrc = srcAt(a, static_cast<std::size_t>(row0) * k + copyStep * stageK(kRows) + a0.col);
#pragma unroll
    for (int r = 0; r < kARows; ++r) {
      const int row = gm + aVectorStep(kRows, r * aColumnPasses(kRows)).row;
      aOff[r] = ((row < m ? row : m - 1) - row0) * k;
    }
    // A warp wholly beyond nPad copies tile 0 of the launch: valid memory, never stored.
    const int tile0 = tileOf(copyX, t / 32, 0);
    const bool in0 = tile0 * 8 < nPad, in1 = (tile0 + 1) * 8 < nPad;
    wSrc = srcAt(words, weightVector(in0 ? tile0 : 0, st.groups, copyStep * kGps, t % 32));
    wTileOff = in1 ? st.groups * 32 : 0;
    const int col = copyX * kBlockCols + 8 * (t % kScaleVectors);
    sSrc = srcAt(scales, scaleIndex(copyStep * kGps + (t / kScaleVectors) % kGps, nPad,
                                    col < nPad ? col : 0));
  }

  // One stage's copies into the ring slot at byte offset `slot`. kLast: the block's last stage,
  // where A columns ≥ k are zero-filled and an odd group beyond `groups` copies the first
  // group's bytes again (its A columns are ≥ k, so zeros).
  template <bool kLast>
  __device__ __forceinline__ void copyStage(uint32_t slot) {
    const uint32_t base = smemBase + slot;
    const int t = stageTid();
    const StageSlot a0 = aStageSlot(kRows, t);
    const int lastStep = st.steps - 1;  // the copy step when kLast
#pragma unroll
    for (int i = 0; i < kAVecs; ++i) {
      const StageSlot d = aVectorStep(kRows, i);
      const uint32_t dst =
          base + static_cast<uint32_t>(aSmemByte(kRows, a0.row + d.row, a0.col + d.col));
      const uint16_t* src = ptr(a, aSrc) + aOff[i / aColumnPasses(kRows)] + d.col;
      if constexpr (kLast) {
        const bool inK = lastStep * stageK(kRows) + a0.col + d.col < k;
        cpAsync16(dst, inK ? src : a, inK ? 16 : 0);
      } else {
        cpAsync16(dst, src);
      }
    }
#pragma unroll
    for (int g = 0; g < kGps; ++g) {
      const bool gOk = !kLast || g == 0 || lastStep * kGps + g < st.groups;
      const int gOff = gOk ? g * 32 : 0;
      cpAsync16Policy(base + static_cast<uint32_t>(wSmemByte(kRows, g, t, 0)),
                      ptr(words, wSrc) + gOff, policy);
      cpAsync16Policy(base + static_cast<uint32_t>(wSmemByte(kRows, g, t, 1)),
                      ptr(words, wSrc + wTileOff) + gOff, policy);
    }
    if (t < kScaleThreads) {
      const int g = t / kScaleVectors;
      const bool gOk = !kLast || g == 0 || lastStep * kGps + g < st.groups;
      cpAsync16(base + static_cast<uint32_t>(sSmemByte(kRows, 0, t)),
                ptr(scales, gOk ? sSrc : sSrc - g * nPad));
    }
  }

  // Copies the next stage of the stripe into `slot` and moves the copy cursor on. `left`: the
  // math's stages to the stripe's end, so the unit copied is end − left + kStages − 1.
  __device__ __forceinline__ void copyNext(uint32_t slot, int left) {
    if (copyLeft > 0) {
      copyStage<false>(slot);
      --copyLeft;
      aSrc += stageK(kRows);
      wSrc += kGps * 32;
      sSrc += kGps * nPad;
    } else {
      copyStage<true>(slot);
      aimCopy(ctaUnits(st, ctaAgain()).end - left + kStages);
    }
  }

  __device__ __forceinline__ void clearAcc() {
#pragma unroll
    for (int j = 0; j < kAccTiles; ++j) {
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
        for (int r = 0; r < 4; ++r) acc[j][mt][r] = 0.0f;
      }
    }
  }

  // The mma over the stage in ring slot `slot`. Tiles beyond nPad hold clamped copies of real
  // weights: their sums are finite and never stored, so no branch is needed here.
  __device__ __forceinline__ void compute(uint32_t slot) {
    const uint32_t sb = smemBase + slot;
    const int t = stageTid(), warp = t / 32, lane = t % 32;
    const LaneCoord lc = laneCoord(lane);
#pragma unroll
    for (int g = 0; g < kGps; ++g) {
      uint32_t q[kTilesPerWarp][4];
#pragma unroll
      for (int j = 0; j < kTilesPerWarp; ++j) {
        ldsV4(q[j], sb + static_cast<uint32_t>(wSmemByte(kRows, g, t, j)));
      }
      // The group's sums without its scale (weights code − 8, exact in bf16); the scale goes
      // on in fp32 below. That also rounds less than scaling each bf16 weight.
      float part[kAccTiles][kMTiles][4];
#pragma unroll
      for (int j = 0; j < kAccTiles; ++j) {
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
        for (int j = 0; j < kTilesPerWarp; ++j)
          int4ToCentredBf16(q[j][w], kMagicPlusEightPair, b[j]);
        if constexpr (kT) {
          // Cᵀ += Wᵀ-tile · Aᵀ: weights are the m16 operand, A (ldmatrix) the n8 one.
          uint32_t r[4];
          ldmatrixX4(r, sb + static_cast<uint32_t>(
                                 2 * ldsmAddress8(kRows, lane, g * kSlicesPerGroup / 2 + w)));
#pragma unroll
          for (int ks = 0; ks < 2; ++ks) {
            uint32_t wa[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) wa[i] = b[aTileOf(i)][2 * ks + aRegOf(i)];
            uint32_t bb[2];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
              const FragSlot f = ldsm8Slot(i);
              if (f.slice == ks) bb[f.reg] = r[i];
            }
            mmaBf16(part[0][0], wa, bb[0], bb[1]);
          }
        } else {
#pragma unroll
          for (int ks = 0; ks < 2; ++ks) {
#pragma unroll
            for (int mt = 0; mt < kMTiles; ++mt) {
              uint32_t af[4];
              ldmatrixX4(af, sb + static_cast<uint32_t>(
                                      2 * ldsmAddress16(kRows, lane, mt,
                                                        g * kSlicesPerGroup + sliceOfWord(w, ks))));
#pragma unroll
              for (int j = 0; j < kTilesPerWarp; ++j)
                mmaBf16(part[j][mt], af, b[j][2 * ks], b[j][2 * ks + 1]);
            }
          }
        }
      }
      if constexpr (kT) {
        // Accumulators 0, 1: the warp's column g (tile 0); 2, 3: column g + 8 (tile 1).
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const float sc = bf16BitsToFloat(
              ldsU16(sb + static_cast<uint32_t>(accScaleByteT(kRows, g, warp, h, lc))));
          acc[0][0][2 * h] = fmaf(sc, part[0][0][2 * h], acc[0][0][2 * h]);
          acc[0][0][2 * h + 1] = fmaf(sc, part[0][0][2 * h + 1], acc[0][0][2 * h + 1]);
        }
      } else {
#pragma unroll
        for (int j = 0; j < kTilesPerWarp; ++j) {
          // Columns 2t, 2t + 1 of the tile: c0/c2 take the first scale, c1/c3 the second.
          const uint32_t sc =
              ldsU32(sb + static_cast<uint32_t>(accScaleByte(kRows, g, warp, j, lc)));
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
    }
  }

  // The block (x, z) is done for this CTA. A block it owns alone goes out as bf16 at once. A
  // shared block (one-hop split-K, w4a16_layout.cuh): store the partial sums in this CTA's
  // slot, take the block's ticket; the CTA that arrives last sums every slot in rank order,
  // writes bf16 and puts the ticket back to 0. All threads take part (the barrier).
  __device__ __forceinline__ void finishBlock(int block) {
    const int cta = ctaAgain();
    const int t = tidAgain(), warp = t / 32;
    const LaneCoord lc = laneCoord(t % 32);
    const int x = block / st.blocksZ;
    const int z = block - x * st.blocksZ;
    const BlockShare share = blockShare(st, block, cta);
    if (share.count > 1) {
      float* mine = partials + slotIndex(st, partialSlot(st, block, cta), 0, 0);
      forEachAcc(x, z, warp, lc, [&](float& v, int row, int colInBlock) {
        __stcg(mine + row * kBlockCols + colInBlock, v);
      });
      __threadfence();  // this thread's partial sums reach gpu scope before the ticket
      bool last = false;
      if (t == 0) last = atomicAdd(tickets + block, 1) == share.count - 1;
      if (__syncthreads_or(last) == 0) return;  // block-uniform: another CTA finishes it
      __threadfence();  // the other CTAs' slots, published before their tickets, are visible
      // Rank order 0, 1, 2, …, this CTA's own slot included: the same sums, bit for bit,
      // whichever CTA arrived last. L2 loads (__ldcg): L1 is not coherent across SMs.
      const int first = cta - share.rank;
#pragma unroll 1
      for (int q = 0; q < share.count; ++q) {
        const float* from = partials + slotIndex(st, rankSlot(st, block, first, q), 0, 0);
        forEachAcc(x, z, warp, lc, [&](float& v, int row, int colInBlock) {
          const float p = __ldcg(from + row * kBlockCols + colInBlock);
          v = q == 0 ? p : v + p;
        });
      }
      if (t == 0) atomicExch(tickets + block, 0);  // ready for the next launch
    }
    if constexpr (kT) {
      forEachAcc(x, z, warp, lc, [&](float& v, int row, int colInBlock) {
        const int col = x * kBlockCols + colInBlock;
        if (col < n) {
          c[static_cast<std::size_t>(z * kRows + row) * n + col] =
              __bfloat16_as_ushort(__float2bfloat16_rn(v));
        }
      });
    } else {
      // c0,c1 (and c2,c3) are columns 2t and 2t+1 of one row: one 32-bit bf16x2 store.
#pragma unroll
      for (int j = 0; j < kTilesPerWarp; ++j) {
        const int tile = tileOf(x, warp, j);
        if (tile * 8 >= nPad) continue;
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
          for (int r = 0; r < 4; r += 2) {
            const int row = z * kRows + accRow(mt, lc, r);
            const int col = tile * 8 + accCol(lc, r);
            if (row >= m || col >= n) continue;
            const float v0 = acc[j][mt][r];
            const float v1 = acc[j][mt][r + 1];
            const std::size_t o = static_cast<std::size_t>(row) * n + col;
            if (outputPairStorable(col, n)) {
              *reinterpret_cast<__nv_bfloat162*>(c + o) = __floats2bfloat162_rn(v0, v1);
            } else {
              c[o] = __bfloat16_as_ushort(__float2bfloat16_rn(v0));
              if (col + 1 < n) c[o + 1] = __bfloat16_as_ushort(__float2bfloat16_rn(v1));
            }
          }
        }
      }
    }
  }

  // f(accumulator, row in block, column in block) for each accumulator of a tile inside nPad
  // and a row < m.
  template <class F>
  __device__ __forceinline__ void forEachAcc(int x, int z, int warp, LaneCoord lc, F&& f) {
#pragma unroll
    for (int j = 0; j < kAccTiles; ++j) {
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int row = kT ? accRowT(lc, r) : accRow(mt, lc, r);
          const int tile = tileOf(x, warp, kT ? r / 2 : j);
          const int colInTile = kT ? lc.g : accCol(lc, r);
          if (tile * 8 >= nPad || z * kRows + row >= m) continue;
          f(acc[j][mt][r], row, tile * 8 - x * kBlockCols + colInTile);
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
  using Cta = W4a16Cta<kRows>;
  constexpr uint32_t kStage = static_cast<uint32_t>(Cta::kStage);
  Cta cta;
  cta.a = a;
  cta.words = words;
  cta.scales = scales;
  cta.c = c;
  cta.tickets = tickets;
  cta.partials = partials;
  cta.m = m;
  cta.n = n;
  cta.k = k;
  cta.nPad = nPad;
  cta.st = st;
  cta.smemBase = static_cast<uint32_t>(__cvta_generic_to_shared(smemRaw));
  cta.tid = static_cast<int>(threadIdx.x);
  // Made once and held: no per-stage createpolicy and no branch on the row slices in the loop.
  cta.policy = weightPolicy(st.blocksZ == 1);
  cta.clearAcc();
  const UnitRange range = ctaUnits(st, static_cast<int>(blockIdx.x));
  cta.aimCopy(range.begin);
  // The stages of the stripe, counted down by `left`, and those of its first block (the
  // stripe may start inside the block).
  const int count = range.end - range.begin;
  int run = min(cta.copyLeft + 1, count);
  // The ring slot of the stage `left` stages before the stripe's end: the copy for left − 3
  // goes where left + 1 was read. Prologue: kStages − 1 stages in flight before the first mma.
  // Every iteration commits one group (possibly empty), so wait_group<kStages − 2> always
  // means "this stage has landed".
  const auto ringSlot = [](int l) { return static_cast<uint32_t>(l % kStages) * kStage; };
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < count) cta.copyNext(ringSlot(count - s), count + kStages - 1 - s);
    cpAsyncCommit();
  }
  // The math: an inner loop over the stages of one block (the accumulators stay in their
  // registers from stage to stage: no copies on the loop's back edge), then the block's
  // finish. The slot steps down the ring as `left` does.
  int left = count;
  uint32_t slot = ringSlot(count);
  while (true) {
    const int stop = left - run;
    do {
      cpAsyncWait<kStages - 2>();
      __syncthreads();  // this stage visible to all warps; the previous one free for the copy
      if (left > kStages - 1)
        cta.copyNext(slot == (kStages - 1) * kStage ? 0u : slot + kStage, left);
      cpAsyncCommit();
      cta.compute(slot);
      slot = slot == 0 ? (kStages - 1) * kStage : slot - kStage;
    } while (--left > stop);
    cta.finishBlock((ctaUnits(st, ctaAgain()).end - left - 1) / st.steps);
    if (left == 0) break;
    cta.clearAcc();
    run = min(st.steps, left);
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
  plan.groupsPerCta = st.perCta * groupsPerStage(st.rows);
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
      p.m * p.k >= (int64_t{1} << 31) ||
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
