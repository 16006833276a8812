#pragma once
// Index functions of the fused W4A16 GEMM (w4a16_gemm.cu): which element each thread copies
// into the cp.async pipeline, which shared-memory row each lane hands to ldmatrix, which
// register goes to which mma operand, which CTA owns which (column block, k group) unit, and in
// which order the CTAs sharing a block reduce it. `__host__ __device__`, so the host tests drive
// these same functions through ldmatrix and mma.sync emulators written from the PTX ISA tables
// (tests/cuda/test_device_source.cpp) and compare with the fp32 reference.
#include "int4_magic.cuh"

#include <cstddef>
#include <cstdint>

namespace qf::cuda::kern::w4a16 {

inline constexpr int kWarps = 8;
inline constexpr int kThreads = kWarps * 32;
/// 8-column tiles per warp: each A fragment loaded by ldmatrix feeds this many mma, and A is
/// staged once per 128 columns, not once per 64 (half the ldmatrix and A copies per weight).
inline constexpr int kTilesPerWarp = 2;
inline constexpr int kBlockCols = kWarps * kTilesPerWarp * 8;  ///< 128 columns per CTA
inline constexpr int kGroupK = 128;        ///< k per scale group (groupsPerStage per stage)
inline constexpr int kSlicesPerGroup = 8;  ///< k16 slices in a group
inline constexpr int kStages = 4;          ///< cp.async pipeline depth (3 stages in flight)
/// Fewest k groups (pipeline chunks) a CTA gets: with fewer, the 3-stage prologue is most of
/// the CTA's life and nothing overlaps it.
inline constexpr int kMinGroupsPerCta = 4;
/// Weight bytes of one group in a stage: 16 tiles × 32 lanes × 16 bytes (8 KB).
inline constexpr int kWGroupBytes = kTilesPerWarp * kThreads * 16;
inline constexpr int kScaleVectors = kBlockCols / 8;  ///< 128 bf16 scales = 16 × 16 bytes

/// Lane coordinates inside an mma fragment: lane = 4·g + t.
struct LaneCoord {
  int g;  ///< groupID: B column, A/C row (and row + 8)
  int t;  ///< thread in group: k pair (A, B), column pair (C)
};
QF_HD LaneCoord laneCoord(int lane) {
  return {lane / 4, lane % 4};
}

// ----- CTA shape ------------------------------------------------------------------------------

/// A rows per CTA: 8 (m ≤ 8: only 8 rows are staged and loaded), 16, 32 or 64, never more
/// than `maxRows` (the largest variant the device's shared memory holds: largestRowsWithin).
QF_HD int ctaRowsFor(int64_t m, int maxRows = 64) {
  const int rows = m <= 8 ? 8 : (m <= 16 ? 16 : (m <= 32 ? 32 : 64));
  return rows < maxRows ? rows : maxRows;
}
/// The 8-row CTA computes Cᵀ = W·Aᵀ: the weights are the mma's m16 side (a warp's 16 columns,
/// its two 8-column tiles, are one m16 tile) and the ≤ 8 A rows its n8 side. No zero rows, no
/// register shuffles, and half the mma of an m16 tile with 8 empty rows.
QF_HD constexpr bool transposedForRows(int rows) {
  return rows <= 8;
}
/// m16 tiles of A rows per CTA in the m16 form (16, 32, 64 rows); 1 in the transposed form.
QF_HD constexpr int mTilesForRows(int rows) {
  return rows <= 16 ? 1 : rows / 16;
}
/// 128-k groups per pipeline stage (one barrier, one ring slot of the 4): two for the 8- and
/// 16-row CTAs (half the barriers, waits and cursor steps per weight), one for the 32- and
/// 64-row ones, whose stages would not fit the 99 KB of sm_86/sm_89 (nor 64 rows the 163 KB of
/// sm_80) with two.
QF_HD constexpr int groupsPerStage(int rows) {
  return rows <= 16 ? 2 : 1;
}
/// k of one stage.
QF_HD constexpr int stageK(int rows) {
  return groupsPerStage(rows) * kGroupK;
}
/// Staged A row: stageK bf16 + 8 bf16 pad (272 or 528 bytes). ldmatrix reads one 16-byte row
/// per lane address, 8 rows per 8×8 matrix in one shared-memory phase; rows 256 (512) bytes
/// apart would all start in the same 4 banks (8-way conflict). 272 (528) bytes apart, row r
/// starts at bank 4r mod 32: the 8 rows cover all 32 banks once.
QF_HD constexpr int aStrideFor(int rows) {
  return stageK(rows) + 8;
}
/// Bytes of one pipeline stage: A (rows × stride), weights (8 KB per group), scales (256 B per
/// group), all 16-byte aligned (cp.async of 16 bytes needs 16-byte aligned shared addresses).
QF_HD constexpr int aStageBytes(int rows) {
  return rows * aStrideFor(rows) * 2;
}
QF_HD constexpr int wStageBytes(int rows) {
  return groupsPerStage(rows) * kWGroupBytes;
}
QF_HD constexpr int stageBytes(int rows) {
  return aStageBytes(rows) + wStageBytes(rows) + groupsPerStage(rows) * kScaleVectors * 16;
}
QF_HD constexpr int smemBytesFor(int rows) {
  return kStages * stageBytes(rows);
}

/// The largest CTA variant (64, 32, 16 or 8 rows) whose stages fit in `smemPerBlockOptin`
/// bytes of dynamic shared memory (cudaDevAttrMaxSharedMemoryPerBlockOptin); 0 when not even
/// the 8-row one does. The 64-row variant's 103,424 bytes exceed the 99 KB of sm_86/sm_89
/// (A10, A40, L4, L40S, RTX 3090/4090): there m > 32 runs as 32-row CTAs. The 16-row variant
/// (two groups per stage) needs exactly those 99 KB.
QF_HD constexpr int largestRowsWithin(int smemPerBlockOptin) {
  for (int rows = 64; rows >= 8; rows /= 2) {
    if (smemBytesFor(rows) <= smemPerBlockOptin) return rows;
  }
  return 0;
}

/// Dynamic shared memory one block may opt into, by compute capability (the CUDA C++
/// Programming Guide's "Technical Specifications per Compute Capability"): what a plan for a
/// device can be checked against without the device. 0 for a capability not in the table.
struct SmemOptinLimit {
  int major, minor, bytes;
};
inline constexpr SmemOptinLimit kSmemOptinLimits[] = {
    {8, 0, 166912},   // A100, A30: 163 KB
    {8, 6, 101376},   // A10, A40, RTX 30xx: 99 KB
    {8, 7, 166912},   // Jetson Orin: 163 KB
    {8, 9, 101376},   // L4, L40S, RTX 40xx: 99 KB
    {9, 0, 232448},   // H100, H200, H20: 227 KB
    {10, 0, 232448},  // B200, GB200: 227 KB
    {12, 0, 101376},  // RTX 50xx: 99 KB
};
constexpr int smemOptinBytesFor(int major, int minor) {  // host only: the table is host data
  for (const auto& l : kSmemOptinLimits) {
    if (l.major == major && l.minor == minor) return l.bytes;
  }
  return 0;
}

// ----- pipeline staging (global → shared, one 16-byte cp.async each) ---------------------------

/// The ring slots of iteration i of a CTA's stripe: its math reads slot i mod kStages, and it
/// starts the copy of unit i + kStages − 1 into the slot iteration i − 1 read (free once every
/// warp has passed the iteration's barrier). The prologue fills slots 0 .. kStages − 2.
QF_HD int computeSlot(int i) {
  return i % kStages;
}
QF_HD int copySlot(int i) {
  return (i + kStages - 1) % kStages;
}

QF_HD constexpr int aStageVectors(int rows) {
  return rows * stageK(rows) / 8;
}
/// A vectors (16 bytes) each thread copies per stage: 1, 2, 2, 4 at 8, 16, 32, 64 rows.
QF_HD constexpr int aVectorsPerThread(int rows) {
  return aStageVectors(rows) / kThreads;
}
/// Threads that copy one staged A row in one pass: all of a thread's vectors lie in one row
/// (kThreads / rows threads per row, 32, 16, 8 at 8, 16, 32 rows), so one clamped row
/// address serves them all and the others are immediate offsets from it; never fewer than 8,
/// so each quarter warp still writes 128 contiguous shared bytes (no bank conflict) and reads
/// whole 32-byte sectors — at 64 rows a thread's four vectors are two rows × two columns.
QF_HD constexpr int aThreadsPerRow(int rows) {
  return kThreads / rows < 8 ? 8 : kThreads / rows;
}
/// Column passes: a thread's vectors in one row, aThreadsPerRow vectors apart.
QF_HD constexpr int aColumnPasses(int rows) {
  return stageK(rows) / 8 / aThreadsPerRow(rows);
}
/// A vector v (0 .. aStageVectors) of a stage: staged row `row`, bf16 column `col` of the
/// stage's k range, from A[mBase + row][step·stageK + col]. Thread t copies vectors t,
/// t + 256, …: vector t + 256·i is aStageSlot(rows, t) moved by aVectorStep(rows, i).
struct StageSlot {
  int row, col;
};
QF_HD constexpr StageSlot aVectorStep(int rows, int i) {
  const int tpr = aThreadsPerRow(rows);
  return {i / aColumnPasses(rows) * (kThreads / tpr), i % aColumnPasses(rows) * tpr * 8};
}
QF_HD StageSlot aStageSlot(int rows, int v) {
  const int t = v % kThreads;
  const int tpr = aThreadsPerRow(rows);
  const StageSlot step = aVectorStep(rows, v / kThreads);
  return {t / tpr + step.row, (t % tpr) * 8 + step.col};
}
/// Byte offset of A element (row, col) inside a stage.
QF_HD int aSmemByte(int rows, int row, int col) {
  return (row * aStrideFor(rows) + col) * 2;
}
/// The 8-column tile j (0, 1) of warp `warp` in column block x.
QF_HD int tileOf(int x, int warp, int j) {
  return (x * kWarps + warp) * kTilesPerWarp + j;
}
/// Thread `tid` (warp, lane) copies its own 16 bytes of its tile j's group g (of the stage) to
/// this byte offset of the stage and reads them back from there (no other thread reads them).
QF_HD int wSmemByte(int rows, int g, int tid, int j) {
  return aStageBytes(rows) + g * kWGroupBytes + (j * kThreads + tid) * 16;
}
/// Scale vector v (0..15) of group g of the stage: the bf16 scales of block columns 8v .. 8v+7.
/// Thread tid < 16 · groupsPerStage copies vector tid % 16 of group tid / 16.
QF_HD int sSmemByte(int rows, int g, int v) {
  return aStageBytes(rows) + wStageBytes(rows) + (g * kScaleVectors + v) * 16;
}

/// The uint4 of packed weights lane `lane` needs for 8-column tile `tile`, group `grp`
/// (qf::ref::packInt4Mma: per tile and group, 32 lanes × 16 contiguous bytes).
QF_HD std::size_t weightVector(int tile, int groups, int grp, int lane) {
  return (static_cast<std::size_t>(tile) * groups + grp) * 32 + lane;
}
/// The bf16 scale of column col in group grp (scales are [kPad/128][nPad]).
QF_HD std::size_t scaleIndex(int grp, int nPad, int col) {
  return static_cast<std::size_t>(grp) * nPad + col;
}

// ----- A fragments: ldmatrix addresses and register mapping ----------------------------------

/// ldmatrix.x4 (PTX ISA): lane L supplies the address of row L%8 of matrix L/8; lane i receives
/// in register j the 32-bit word at row i/4, columns 2(i%4), 2(i%4)+1 of matrix j. With
/// matrices 0..3 = (rows 0–7, k 0–7), (rows 8–15, k 0–7), (rows 0–7, k 8–15), (rows 8–15,
/// k 8–15) of a 16×16 tile, lane 4g + t gets (row g, k 2t), (g + 8, 2t), (g, 2t + 8),
/// (g + 8, 2t + 8): exactly the mma's a0..a3. One instruction instead of four 32-bit loads.
/// Element offset (bf16) of the row lane `lane` points at, m-tile mt, k16 slice `slice` of
/// the stage (0 .. 8 · groupsPerStage − 1).
QF_HD int ldsmAddress16(int rows, int lane, int mt, int slice) {
  const int matrix = lane / 8;
  const int row = mt * 16 + lane % 8 + 8 * (matrix % 2);
  const int col = slice * 16 + 8 * (matrix / 2);
  return row * aStrideFor(rows) + col;
}
/// Transposed form (8 rows): A is the mma's B operand (k16 × n8, n = A row), whose b0 is
/// (k 2t, 2t + 1; row g) and b1 (k 2t + 8, 2t + 9; row g): an 8×8 ldmatrix matrix of A rows
/// gives lane 4g + t exactly that word. One ldmatrix.x4 covers two k16 slices: matrix j =
/// rows 0–7, k 32·pair + 8j .. +7 (pair 0 .. 4 · groupsPerStage − 1).
QF_HD int ldsmAddress8(int rows, int lane, int pair) {
  return (lane % 8) * aStrideFor(rows) + pair * 32 + 8 * (lane / 8);
}
/// Which mma B register ldmatrix register j (transposed form) becomes: slice 2·pair + j/2,
/// b0 (k 2t) for even j, b1 (k 2t + 8) for odd j.
struct FragSlot {
  int slice;  ///< 0 or 1 within the pair
  int reg;    ///< 0, 1: b0, b1
};
QF_HD FragSlot ldsm8Slot(int j) {
  return {j / 2, j % 2};
}
/// Transposed form: the mma's A operand (16 × k16, row = the warp's column 0..15) from the two
/// tiles' converted weights. Tile j's pairs are B fragments of that tile (k 2t / 2t + 8,
/// column g), so a0 = tile 0's b0 (row g), a1 = tile 1's b0 (row g + 8), a2 = tile 0's b1,
/// a3 = tile 1's b1. Register i of A: tile aTileOf(i), B register aRegOf(i).
QF_HD int aTileOf(int i) {
  return i % 2;
}
QF_HD int aRegOf(int i) {
  return i / 2;
}

/// Packed word w (0..3) of a lane's uint4 converts to pairs for the k16 slices 2w (b0 = pair 0,
/// b1 = pair 1) and 2w + 1 (pairs 2, 3).
QF_HD int sliceOfWord(int w, int ks) {
  return 2 * w + ks;
}

/// Accumulator element r (0..3) of m-tile mt → row offset inside the CTA's rows and column
/// offset inside the warp's 8 columns: c0, c1 row g cols 2t, 2t+1; c2, c3 row g + 8.
QF_HD int accRow(int mt, LaneCoord c, int r) {
  return mt * 16 + c.g + 8 * (r / 2);
}
QF_HD int accCol(LaneCoord c, int r) {
  return 2 * c.t + (r % 2);
}
/// Transposed form: accumulator r is Cᵀ's (row g + 8·(r/2), column 2t + r%2), i.e. A row
/// 2t + r%2 and the warp's column g + 8·(r/2) (tile r/2, column g of it).
QF_HD int accRowT(LaneCoord c, int r) {
  return 2 * c.t + (r % 2);
}
QF_HD int accColT(LaneCoord c, int r) {
  return c.g + 8 * (r / 2);
}

/// Byte offset in a stage of the two bf16 scales a lane applies to its accumulators of tile j
/// in group g: columns 2t and 2t + 1 of the tile (c0/c2 and c1/c3), one 32-bit shared load.
QF_HD int accScaleByte(int rows, int g, int warp, int j, LaneCoord c) {
  return sSmemByte(rows, g, 0) + 2 * ((warp * kTilesPerWarp + j) * 8 + 2 * c.t);
}
/// Transposed form: the scale of the warp's column g + 8·half (accumulators 2·half, 2·half+1).
QF_HD int accScaleByteT(int rows, int g, int warp, int half, LaneCoord c) {
  return sSmemByte(rows, g, 0) + 2 * (warp * kTilesPerWarp * 8 + c.g + 8 * half);
}

/// Whether output columns col, col + 1 (col even) go out as one 32-bit bf16x2 store: both
/// inside the row and the pair 4-byte aligned (n even, so row·n + col is even).
QF_HD bool outputPairStorable(int col, int n) {
  return n % 2 == 0 && col + 1 < n;
}

// ----- work partition: stripes of (block, group) units over one wave of CTAs ----------------

/// The work of one launch: blocksX column blocks of 128 × blocksZ row slices, each `groups`
/// k groups long, walked in `steps` pipeline stages of groupsPerStage(rows) groups. A unit is
/// one (block, step); units are numbered block-major (block = x·blocksZ + z, so the row slices of a
/// column block are neighbours and read the same weights from L2 at about the same time), and
/// CTA b takes the contiguous units [b·perCta, (b+1)·perCta): every CTA gets the same number
/// of units whatever the shape (Marlin's striping), so `ctas` CTAs — never more than fit on
/// the chip at once — finish together in one wave.
struct Striping {
  int rows = 8;  ///< A rows per CTA (ctaRowsFor)
  int blocksX = 1, blocksZ = 1, groups = 1;
  int steps = 1;             ///< stages per block: groups / groupsPerStage(rows), rounded up
  int ctas = 1, perCta = 1;  ///< perCta: units (steps) per CTA
};
QF_HD int64_t unitCount(const Striping& s) {
  return static_cast<int64_t>(s.blocksX) * s.blocksZ * s.steps;
}

/// The striping for m rows, nPad × kPad weights and `residentCtas` CTAs resident at once
/// (cudaOccupancyMaxActiveBlocksPerMultiprocessor × SMs), CTAs of at most `maxRows` rows
/// (largestRowsWithin the device's shared memory): as many CTAs as fit, but at least
/// kMinGroupsPerCta groups each, and no empty CTA.
QF_HD Striping planStriping(int64_t m, int64_t nPad, int64_t kPad, int64_t residentCtas,
                            int maxRows = 64) {
  Striping s;
  s.rows = ctaRowsFor(m, maxRows);
  s.blocksX = static_cast<int>((nPad + kBlockCols - 1) / kBlockCols);
  s.blocksZ = static_cast<int>((m + s.rows - 1) / s.rows);
  s.groups = static_cast<int>(kPad / kGroupK);
  if (s.groups < 1) s.groups = 1;
  const int gps = groupsPerStage(s.rows);
  s.steps = (s.groups + gps - 1) / gps;
  const int64_t units = unitCount(s);
  int64_t ctas = units / ((kMinGroupsPerCta + gps - 1) / gps);
  if (ctas > residentCtas) ctas = residentCtas;
  if (ctas < 1) ctas = 1;
  const int64_t per = (units + ctas - 1) / ctas;
  s.perCta = static_cast<int>(per);
  s.ctas = static_cast<int>((units + per - 1) / per);
  return s;
}

/// CTA b's units [begin, end).
struct UnitRange {
  int begin, end;
};
QF_HD UnitRange ctaUnits(const Striping& s, int cta) {
  const int64_t begin = static_cast<int64_t>(cta) * s.perCta;
  const int64_t end = begin + s.perCta;
  const int64_t units = unitCount(s);
  return {static_cast<int>(begin), static_cast<int>(end < units ? end : units)};
}

/// The split depth of a striping: the most CTAs that share one output block (1 when no block
/// is split). Each extra CTA on a block is one more partial sum its reduction waits for.
QF_HD int maxCtasPerBlock(const Striping& s) {
  int most = 1;
  const int64_t blocks = static_cast<int64_t>(s.blocksX) * s.blocksZ;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t first = b * s.steps / s.perCta;
    const int64_t last = ((b + 1) * s.steps - 1) / s.perCta;
    const int n = static_cast<int>(last - first + 1);
    most = n > most ? n : most;
  }
  return most;
}

/// Unit u → its block (x, z) and k step (groups step·gps .. step·gps + gps − 1).
struct Unit {
  int block, x, z, step;
};
QF_HD Unit unitAt(const Striping& s, int u) {
  Unit r{};
  r.block = u / s.steps;
  r.step = u % s.steps;
  r.x = r.block / s.blocksZ;
  r.z = r.block % s.blocksZ;
  return r;
}

/// The unit after `un` in unit order, without the two integer divisions of unitAt (each a
/// few dozen instructions on the GPU, which has no integer divide): the host emulator walks
/// the stripes with it; the kernel counts stages to the stripe's and the block's end instead.
QF_HD Unit nextUnit(const Striping& s, Unit un) {
  if (++un.step < s.steps) return un;
  un.step = 0;
  ++un.block;
  if (++un.z < s.blocksZ) return un;
  un.z = 0;
  ++un.x;
  return un;
}

/// The CTAs that share block `block` (they hold consecutive k ranges of it: CTAs first ..
/// first + count − 1) and this CTA's rank among them, ascending with CTA index, i.e. in k
/// order. The reduction sums the partials in rank order 0, 1, 2, … whichever CTA arrives
/// last, so its result does not depend on timing.
struct BlockShare {
  int rank;   ///< 0 .. count−1: this CTA's place in the fixed summation order
  int count;  ///< CTAs contributing to the block
};
QF_HD int firstCtaOf(const Striping& s, int block) {
  return block * s.steps / s.perCta;  // < 2^31: launchW4a16Gemm bounds the unit count
}
QF_HD BlockShare blockShare(const Striping& s, int block, int cta) {
  const int first = firstCtaOf(s, block);
  const int last = ((block + 1) * s.steps - 1) / s.perCta;
  return {cta - first, last - first + 1};
}

/// One-hop split-K. Every CTA that shares a block stores its fp32 partial sums in its own slot
/// of the workspace, then takes the block's ticket (an atomicAdd); the CTA that draws ticket
/// count − 1 arrived last: it reads all the slots, sums the partials in rank order, writes
/// bf16 and puts the ticket back to 0 for the next launch. Nobody waits for anybody: no lock
/// chain, no co-residency assumption.
///
/// Slots: each CTA owns two, one for the first block of its stripe and one for its last (the
/// only blocks it can share with other CTAs; a stripe inside one block uses the first). Slot
/// of CTA `cta` for block `block`:
QF_HD int partialSlot(const Striping& s, int block, int cta) {
  const int firstBlock = cta * s.perCta / s.steps;
  return 2 * cta + (block == firstBlock ? 0 : 1);
}
/// The slot of the partial sums of rank q of block `block`: every CTA of rank ≥ 1 starts its
/// stripe inside the block, so its slot is its first, 2 · (first + q); rank 0 may have started
/// in an earlier block. What the last arrival walks, without a division per rank.
QF_HD int rankSlot(const Striping& s, int block, int first, int q) {
  return q == 0 ? partialSlot(s, block, first) : 2 * (first + q);
}
/// A slot holds the block's rows × 128 columns, row-major, fp32; only rows < m and column
/// tiles < nPad are written and read.
QF_HD std::size_t slotFloats(const Striping& s) {
  return static_cast<std::size_t>(s.rows) * kBlockCols;
}
/// Element (row, colInBlock) of slot `slot` (row < rows, colInBlock < 128).
QF_HD std::size_t slotIndex(const Striping& s, int slot, int row, int colInBlock) {
  return (static_cast<std::size_t>(slot) * s.rows + row) * kBlockCols + colInBlock;
}

/// Workspace: one int ticket per block (rounded to 16 bytes), then 2 · ctas slots. Needed
/// only when a block is shared (some CTA boundary falls inside a block, i.e. perCta is no
/// multiple of steps); the kernel leaves every ticket back at 0, so one zeroing after
/// allocation serves every launch (the slots need none: each is written before it is read).
QF_HD bool anyBlockShared(const Striping& s) {
  return s.ctas > 1 && s.perCta % s.steps != 0;
}
QF_HD std::size_t ticketBytes(const Striping& s) {
  return (static_cast<std::size_t>(s.blocksX) * s.blocksZ * 4 + 15) / 16 * 16;
}
QF_HD std::size_t workspaceBytes(const Striping& s) {
  return anyBlockShared(s)
             ? ticketBytes(s) + 2 * static_cast<std::size_t>(s.ctas) * slotFloats(s) * sizeof(float)
             : 0;
}

/// fp32 bytes the reduction moves: for a block shared by c CTAs, c slots written and all c
/// read back by the last arrival, over the block's real rows × columns (rows < m, columns <
/// nPad).
inline double reductionBytes(const Striping& s, int64_t m, int64_t nPad) {
  double bytes = 0;
  for (int x = 0; x < s.blocksX; ++x) {
    for (int z = 0; z < s.blocksZ; ++z) {
      const int block = x * s.blocksZ + z;
      const int c = blockShare(s, block, 0).count;
      if (c < 2) continue;
      const int64_t rows = m - static_cast<int64_t>(z) * s.rows < s.rows
                               ? m - static_cast<int64_t>(z) * s.rows
                               : s.rows;
      const int64_t cols = nPad - static_cast<int64_t>(x) * kBlockCols < kBlockCols
                               ? nPad - static_cast<int64_t>(x) * kBlockCols
                               : kBlockCols;
      bytes += 2.0 * c * 4.0 * static_cast<double>(rows * cols);
    }
  }
  return bytes;
}

}  // namespace qf::cuda::kern::w4a16
