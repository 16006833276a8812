#pragma once
// Index functions of the fused W4A16 GEMM (w4a16_gemm.cu): which element each lane loads,
// stages, hands to mma.sync and stores. `__host__ __device__`, so the host tests drive the
// same functions through an mma.sync emulator written from the PTX ISA fragment tables
// (tests/cuda/test_device_source.cpp) and compare with the fp32 reference.
#include "int4_magic.cuh"

#include <cstddef>
#include <cstdint>

namespace qf::cuda::kern::w4a16 {

inline constexpr int kWarps = 8;  ///< 8 column tiles of 8 → 64 columns per CTA
inline constexpr int kThreads = kWarps * 32;
inline constexpr int kGroupsPerChunk = 4;  ///< 512 k per shared-memory chunk
inline constexpr int kChunkK = kGroupsPerChunk * 128;
inline constexpr int kSmemStride = kChunkK + 8;           ///< bf16 per staged A row (+16 B pad)
inline constexpr int kSmemStrideWords = kSmemStride / 2;  ///< 260 words ≡ 4 (mod 32) banks
inline constexpr int kSlicesPerGroup = 8;                 ///< k16 slices in a 128-k group

/// Lane coordinates inside an mma fragment: lane = 4·g + t.
struct LaneCoord {
  int g;  ///< groupID: B column, A/C row (and row + 8)
  int t;  ///< thread in group: k pair (A, B), column pair (C)
};
QF_HD LaneCoord laneCoord(int lane) {
  return {lane / 4, lane % 4};
}

/// The uint4 of packed weights lane `lane` loads for 8-column tile `tile`, group `grp`
/// (qf::ref::packInt4Mma: per tile and group, 32 lanes × 16 contiguous bytes).
QF_HD std::size_t weightVector(int tile, int groups, int grp, int lane) {
  return (static_cast<std::size_t>(tile) * groups + grp) * 32 + lane;
}

/// The bf16 scale of column tile·8 + g in group grp (scales are [kPad/128][nPad]).
QF_HD std::size_t scaleIndex(int grp, int nPad, int tile, int g) {
  return static_cast<std::size_t>(grp) * nPad + tile * 8 + g;
}

/// Staging of A: vector v (16 bytes = 8 bf16) of the chunk goes to shared row `row`, column
/// `col` (bf16 units) from A[mBase + row][kChunk0 + col].
struct StageSlot {
  int row, col;
};
QF_HD StageSlot stageSlot(int v) {
  return {v / (kChunkK / 8), (v % (kChunkK / 8)) * 8};
}
QF_HD int stageVectors(int rows) {
  return rows * (kChunkK / 8);
}
/// bf16 offset of (row, col) in the staged A chunk.
QF_HD int smemOffset(int row, int col) {
  return row * kSmemStride + col;
}

/// The four 32-bit words of the A fragment of m-tile `mt`, k16 slice `slice` of the chunk, as
/// word offsets into the staged chunk: a0 (row g, k 2t), a1 (row g+8, k 2t), a2 (row g,
/// k 2t+8), a3 (row g+8, k 2t+8). Rows padded to 260 words: lane (g, t) hits bank
/// 4g + t + const, all 32 distinct.
QF_HD void aFragmentWords(int mt, int slice, LaneCoord c, int (&words)[4]) {
  const int r0 = (mt * 16 + c.g) * kSmemStrideWords;
  const int r1 = r0 + 8 * kSmemStrideWords;
  const int colWord = slice * 8 + c.t;  // (16·slice + 2t) / 2
  words[0] = r0 + colWord;
  words[1] = r1 + colWord;
  words[2] = r0 + colWord + 4;
  words[3] = r1 + colWord + 4;
}

/// Packed word w (0..3) of a lane's uint4 for group j of the chunk converts to pairs for the
/// k16 slices 2w (b0 = pair 0, b1 = pair 1) and 2w + 1 (pairs 2, 3).
QF_HD int sliceOfWord(int j, int w, int ks) {
  return j * kSlicesPerGroup + 2 * w + ks;
}

/// Accumulator element r (0..3) of m-tile mt → row offset inside the CTA's rows and column
/// offset inside the warp's 8 columns: c0, c1 row g cols 2t, 2t+1; c2, c3 row g + 8.
QF_HD int accRow(int mt, LaneCoord c, int r) {
  return mt * 16 + c.g + 8 * (r / 2);
}
QF_HD int accCol(LaneCoord c, int r) {
  return 2 * c.t + (r % 2);
}

/// Whether output columns col, col + 1 (col even) go out as one 32-bit bf16x2 store: both
/// inside the row and the pair 4-byte aligned (n even, so row·n + col is even).
QF_HD bool outputPairStorable(int col, int n) {
  return n % 2 == 0 && col + 1 < n;
}

/// Split-K partial (split s, row, col) in the fp32 workspace [splits][m][n].
QF_HD std::size_t workspaceIndex(int split, int m, int n, int row, int col) {
  return (static_cast<std::size_t>(split) * m + row) * n + col;
}

/// Chunks of a K range of `groups` groups, and the chunk range of split `split`.
QF_HD int chunkCount(int groups) {
  return (groups + kGroupsPerChunk - 1) / kGroupsPerChunk;
}

/// m16 tiles per CTA: 1 for m ≤ 16, 2 for m ≤ 32, else 4 (64 rows per grid.z slice).
QF_HD int mTilesFor(int64_t m) {
  return m <= 16 ? 1 : (m <= 32 ? 2 : 4);
}

/// The launch grid: x column blocks of 64, y K splits of chunksPerSplit chunks, z row slices.
struct GridPlan {
  int x = 1, splits = 1, chunksPerSplit = 1, z = 1;
};

/// Splits for `ctas` CTAs (column blocks × row slices) over `chunks` K chunks when
/// `residentCtas` fit on the chip at once (occupancy × SMs): never more CTAs than one whole
/// wave (a second, partial wave would leave SMs idle at the tail), and every split at least 2
/// chunks so the next chunk's weight loads overlap the current chunk's math.
QF_HD int chooseSplits(int64_t ctas, int chunks, int64_t residentCtas) {
  if (ctas <= 0 || ctas >= residentCtas) return 1;
  const int maxSplits = chunks / 2 > 1 ? chunks / 2 : 1;
  int64_t want = residentCtas / ctas;
  if (want > maxSplits) want = maxSplits;
  return want < 1 ? 1 : static_cast<int>(want);
}

/// The grid for m rows, nPad × kPad padded weights and `splitsWanted` K splits; the split
/// count is reduced so that no split is empty.
QF_HD GridPlan gridPlan(int64_t m, int64_t nPad, int64_t kPad, int splitsWanted) {
  GridPlan p;
  const int rows = 16 * mTilesFor(m);
  const int chunks = chunkCount(static_cast<int>(kPad / 128));
  const int wanted = splitsWanted < 1 ? 1 : splitsWanted;
  p.x = static_cast<int>((nPad / 8 + kWarps - 1) / kWarps);
  p.chunksPerSplit = (chunks + wanted - 1) / wanted;
  if (p.chunksPerSplit < 1) p.chunksPerSplit = 1;
  p.splits = (chunks + p.chunksPerSplit - 1) / p.chunksPerSplit;
  if (p.splits < 1) p.splits = 1;
  p.z = static_cast<int>((m + rows - 1) / rows);
  return p;
}

}  // namespace qf::cuda::kern::w4a16
