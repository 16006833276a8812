// The kernels' own device source, run on the host: int4_magic.cuh's conversion (its host
// branch emulates lop3 and fma.rn.bf16x2 exactly) and the fused W4A16 GEMM's index functions
// (w4a16_layout.cuh) driven through an mma.sync m16n8k16 emulator written from the PTX ISA
// fragment tables, against the fp32 reference.
#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_test_macros.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include "int4_magic.cuh"
#include "w4a16_layout.cuh"

#include <quantfront/core/reference/gemm_reference.hpp>
#include <quantfront/core/reference/numeric_formats.hpp>
#include <quantfront/core/reference/quantize.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <vector>

namespace kk = qf::cuda::kern;
namespace kw = qf::cuda::kern::w4a16;
using namespace qf::ref;

namespace {

uint16_t half(uint32_t pair, int h) {
  return static_cast<uint16_t>(pair >> (16 * h));
}

/// mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 over a warp, from the PTX ISA tables
/// (lane = 4·groupID + threadID_in_group; element i of a register list, low half first):
///  A 16×16: a_i, i = 0..7, row groupID + 8·((i>>1)&1), col 2·tid + (i&1) + 8·(i>>2)
///  B 16×8:  b_i, i = 0..3, row 2·tid + (i&1) + 8·(i>>1), col groupID
///  C/D 16×8: c_i, i = 0..3, row groupID + 8·(i>>1), col 2·tid + (i&1)
/// Written from the tables alone, not from the kernel's index functions.
void mmaEmulate(float (&d)[32][4], const uint32_t (&a)[32][4], const uint32_t (&b)[32][2]) {
  double am[16][16] = {}, bm[16][8] = {}, cm[16][8] = {};
  for (int lane = 0; lane < 32; ++lane) {
    const int gid = lane / 4, tid = lane % 4;
    for (int i = 0; i < 8; ++i) {
      am[gid + 8 * ((i >> 1) & 1)][2 * tid + (i & 1) + 8 * (i >> 2)] =
          bf16ToDouble(half(a[lane][i >> 1], i & 1));
    }
    for (int i = 0; i < 4; ++i) {
      bm[2 * tid + (i & 1) + 8 * (i >> 1)][gid] = bf16ToDouble(half(b[lane][i >> 1], i & 1));
      cm[gid + 8 * (i >> 1)][2 * tid + (i & 1)] = d[lane][i];
    }
  }
  for (int lane = 0; lane < 32; ++lane) {
    const int gid = lane / 4, tid = lane % 4;
    for (int i = 0; i < 4; ++i) {
      const int row = gid + 8 * (i >> 1), col = 2 * tid + (i & 1);
      double sum = cm[row][col];
      for (int kk2 = 0; kk2 < 16; ++kk2) sum += am[row][kk2] * bm[kk2][col];
      d[lane][i] = static_cast<float>(sum);
    }
  }
}

/// The fused kernel's structure on the host: every CTA, warp and lane in turn, each index
/// from w4a16_layout.cuh, each weight converted by int4_magic.cuh, each mma emulated.
/// `aOrder` permutes the A fragment registers handed to the mma (identity = the kernel).
int64_t packedStores = 0;  // bf16x2 stores fusedGemmOnHost made (the kernel's packed path)

std::vector<uint16_t> fusedGemmOnHost(const std::vector<uint16_t>& a, const Int4MmaPacked& p, int m,
                                      int n, int k, int splitsWanted,
                                      std::array<int, 4> aOrder = {0, 1, 2, 3}) {
  const int groups = static_cast<int>(p.kPad / 128);
  const int nPad = static_cast<int>(p.nPad);
  const kw::GridPlan plan = kw::gridPlan(m, p.nPad, p.kPad, splitsWanted);
  const int mTiles = kw::mTilesFor(m);
  const int rows = 16 * mTiles;
  std::vector<uint16_t> c(static_cast<size_t>(m) * n, 0xFFFF);  // poison: a NaN
  std::vector<float> ws(static_cast<size_t>(plan.splits) * m * n, 0.0f);
  std::vector<uint16_t> smem(static_cast<size_t>(rows) * kw::kSmemStride);
  for (int z = 0; z < plan.z; ++z) {
    for (int y = 0; y < plan.splits; ++y) {
      for (int x = 0; x < plan.x; ++x) {
        const int mBase = z * rows;
        const int chunkBegin = y * plan.chunksPerSplit;
        const int chunkEnd = std::min(chunkBegin + plan.chunksPerSplit, kw::chunkCount(groups));
        // acc[warp][mt][lane][r]
        std::vector<float> acc(static_cast<size_t>(kw::kWarps) * mTiles * 32 * 4, 0.0f);
        auto accAt = [&](int warp, int mt) {
          return reinterpret_cast<float(*)[4]>(
              &acc[((static_cast<size_t>(warp) * mTiles) + mt) * 32 * 4]);
        };
        for (int chunk = chunkBegin; chunk < chunkEnd; ++chunk) {
          std::fill(smem.begin(), smem.end(), uint16_t{0x7FC1});  // unstaged reads show as NaN
          for (int v = 0; v < kw::stageVectors(rows); ++v) {
            const kw::StageSlot s = kw::stageSlot(v);
            const int gm = mBase + s.row, gk = chunk * kw::kChunkK + s.col;
            for (int e = 0; e < 8; ++e) {
              smem[static_cast<size_t>(kw::smemOffset(s.row, s.col + e))] =
                  gm < m && gk < k ? a[static_cast<size_t>(gm) * k + gk + e] : uint16_t{0};
            }
          }
          auto smem32 = [&](int word) {
            return static_cast<uint32_t>(smem[static_cast<size_t>(2 * word)]) |
                   static_cast<uint32_t>(smem[static_cast<size_t>(2 * word + 1)]) << 16;
          };
          for (int warp = 0; warp < kw::kWarps; ++warp) {
            const int tile = x * kw::kWarps + warp;
            if (tile * 8 >= nPad) continue;
            for (int j = 0; j < kw::kGroupsPerChunk; ++j) {
              const int grp = chunk * kw::kGroupsPerChunk + j;
              if (grp >= groups) break;
              for (int w = 0; w < 4; ++w) {
                uint32_t bPairs[32][4];
                for (int lane = 0; lane < 32; ++lane) {
                  const kw::LaneCoord lc = kw::laneCoord(lane);
                  const uint32_t q = p.words[kw::weightVector(tile, groups, grp, lane) * 4 +
                                             static_cast<size_t>(w)];
                  const uint32_t scale2 =
                      kk::broadcastBf16(p.scales[kw::scaleIndex(grp, nPad, tile, lc.g)]);
                  kk::int4ToBf16(q, kk::kMagicPlusEightPair, scale2, bPairs[lane]);
                }
                for (int ks = 0; ks < 2; ++ks) {
                  for (int mt = 0; mt < mTiles; ++mt) {
                    uint32_t af[32][4], bf[32][2];
                    for (int lane = 0; lane < 32; ++lane) {
                      int idx[4];
                      kw::aFragmentWords(mt, kw::sliceOfWord(j, w, ks), kw::laneCoord(lane), idx);
                      for (int r = 0; r < 4; ++r)
                        af[lane][r] = smem32(idx[aOrder[static_cast<size_t>(r)]]);
                      bf[lane][0] = bPairs[lane][2 * ks];
                      bf[lane][1] = bPairs[lane][2 * ks + 1];
                    }
                    mmaEmulate(*reinterpret_cast<float(*)[32][4]>(accAt(warp, mt)), af, bf);
                  }
                }
              }
            }
          }
        }
        for (int warp = 0; warp < kw::kWarps; ++warp) {
          const int tile = x * kw::kWarps + warp;
          if (tile * 8 >= nPad) continue;
          for (int mt = 0; mt < mTiles; ++mt) {
            for (int lane = 0; lane < 32; ++lane) {
              const kw::LaneCoord lc = kw::laneCoord(lane);
              for (int r = 0; r < 4; r += 2) {
                const int row = mBase + kw::accRow(mt, lc, r);
                const int col = tile * 8 + kw::accCol(lc, r);
                if (row >= m || col >= n) continue;
                const float* v = &accAt(warp, mt)[lane][r];
                if (plan.splits == 1 && kw::outputPairStorable(col, n)) {
                  // The kernel's packed bf16x2 store: low half = column col.
                  const uint32_t pair = static_cast<uint32_t>(floatToBf16(v[0])) |
                                        static_cast<uint32_t>(floatToBf16(v[1])) << 16;
                  c[static_cast<size_t>(row) * n + col] = half(pair, 0);
                  c[static_cast<size_t>(row) * n + col + 1] = half(pair, 1);
                  ++packedStores;
                  continue;
                }
                for (int e = 0; e < 2; ++e) {
                  if (col + e >= n) continue;
                  if (plan.splits == 1) {
                    c[static_cast<size_t>(row) * n + col + e] = floatToBf16(v[e]);
                  } else {
                    ws[kw::workspaceIndex(y, m, n, row, col + e)] = v[e];
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  if (plan.splits > 1) {  // splitKReduceKernel: fixed order, one rounding
    const size_t elements = static_cast<size_t>(m) * n;
    for (size_t i = 0; i < elements; ++i) {
      float sum = 0.0f;
      for (int s = 0; s < plan.splits; ++s) sum += ws[static_cast<size_t>(s) * elements + i];
      c[i] = floatToBf16(sum);
    }
  }
  return c;
}

struct GemmCase {
  std::vector<uint16_t> a;
  Int4MmaPacked packed;
  std::vector<float> want;
};

GemmCase makeCase(int m, int n, int k, uint64_t seed) {
  GemmCase gc;
  const auto q = quantizeInt4G128(randomUniform(static_cast<int64_t>(n) * k, seed), n, k, false);
  gc.a = floatToBf16(randomUniform(static_cast<int64_t>(m) * k, seed + 1));
  gc.packed = packInt4Mma(q);
  gc.want = gemmReference(bf16ToFloat(gc.a), bf16ToFloat(dequantInt4(q)), m, n, k);
  return gc;
}

}  // namespace

TEST_CASE("the kernel's lop3 and fma.rn.bf16x2 host branches follow the PTX definitions",
          "[cuda][int4]") {
  CHECK(kk::lop3<0xF0>(0x12345678u, 0u, 0u) == 0x12345678u);
  CHECK(kk::lop3<0xCC>(0u, 0x9ABCDEF0u, 0u) == 0x9ABCDEF0u);
  CHECK(kk::lop3<kk::kLutAndOr>(0xFF00FF00u, 0x0F0F0F0Fu, 0x00000011u) == 0x0F000F11u);
  // bf16 pairs: 1.5 · 2 + 0.25 = 3.25 (0x4050); −1 · 3 + 0 = −3 (0xC040).
  CHECK(kk::fmaBf16x2(0x3FC0BF80u, 0x40004040u, 0x3E800000u) == 0x4050C040u);
  // sub: 136 − 136 = +0 in both halves; mul: (+0)·(−1) keeps −0 through the −0 addend.
  CHECK(kk::subBf16x2(0x43084308u, 0x43084308u) == 0x00000000u);
  CHECK(kk::mulBf16x2(0x00000000u, 0xBF80BF80u) == 0x80008000u);
  // One rounding, ties to even: 1 + 2^-8 is a tie between 1 and 1 + 2^-7 → 1.
  CHECK(kk::fmaBf16x2(0x3F803F80u, 0x3F803F80u, 0x3B803B80u) == 0x3F803F80u);
  // Subnormal results are kept (no flush to zero): 2^-126 · 2^-3 = 2^-129 = 0x0010.
  CHECK(kk::mulBf16x2(0x00800080u, 0x3E003E00u) == 0x00100010u);
}

TEST_CASE("int4_magic.cuh converts every byte, zero and scale like integer arithmetic",
          "[cuda][int4]") {
  const uint16_t scales[] = {0x3F80, 0x3C00, 0x3B4D, 0x0001, 0x0005, 0x0080,
                             0x7F7F, 0x7000, 0xBF80, 0xC2F7, 0x3E2B};
  std::mt19937 rng(11);
  int64_t checked = 0, wrong = 0;
  for (int byte = 0; byte < 256; ++byte) {
    for (int position = 0; position < 4; ++position) {
      const uint32_t fill = static_cast<uint32_t>(rng()) & ~(0xFFu << (8 * position));
      const uint32_t word = fill | (static_cast<uint32_t>(byte) << (8 * position));
      for (const uint16_t scale : scales) {
        for (int zero = 0; zero < 16; ++zero) {
          const uint32_t magic = kk::kMagicPair | (static_cast<uint32_t>(zero) * 0x00010001u);
          uint32_t out[4];
          kk::int4ToBf16(word, magic, kk::broadcastBf16(scale), out);
          for (int e = 0; e < 8; ++e) {
            const int code =
                static_cast<int>((word >> (4 * kInt4SlotOfElement[static_cast<size_t>(e)])) & 0xF);
            const uint16_t want = doubleToBf16((code - zero) * bf16ToDouble(scale));
            wrong += half(out[e / 2], e % 2) == want ? 0 : 1;
            ++checked;
          }
        }
      }
    }
  }
  CHECK(checked == 256 * 4 * 11 * 16 * 8);
  CHECK(wrong == 0);
}

TEST_CASE("the mma emulator multiplies a hand-made tile", "[cuda][w4a16]") {
  // A = identity-like (A[r][r] = 1), B[k][c] = k + c: D = B's first 16 rows → D[r][c] = r + c.
  uint32_t a[32][4] = {}, b[32][2] = {};
  float d[32][4] = {};
  for (int lane = 0; lane < 32; ++lane) {
    const int gid = lane / 4, tid = lane % 4;
    for (int i = 0; i < 8; ++i) {
      const int row = gid + 8 * ((i >> 1) & 1), col = 2 * tid + (i & 1) + 8 * (i >> 2);
      if (row == col) a[lane][i >> 1] |= uint32_t{0x3F80} << (16 * (i & 1));
    }
    for (int i = 0; i < 4; ++i) {
      const int kRow = 2 * tid + (i & 1) + 8 * (i >> 1);
      b[lane][i >> 1] |= static_cast<uint32_t>(floatToBf16(static_cast<float>(kRow + gid)))
                         << (16 * (i & 1));
      d[lane][i] = 0.5f;
    }
  }
  mmaEmulate(d, a, b);
  for (int lane = 0; lane < 32; ++lane) {
    const int gid = lane / 4, tid = lane % 4;
    for (int i = 0; i < 4; ++i) {
      const int row = gid + 8 * (i >> 1), col = 2 * tid + (i & 1);
      CHECK(d[lane][i] == static_cast<float>(row + col) + 0.5f);
    }
  }
}

TEST_CASE("the fused W4A16 kernel's index functions reproduce A·Wᵀ for awkward m, n, k, splits",
          "[cuda][w4a16]") {
  int64_t cases = 0;
  packedStores = 0;
  // n = 37 and 203 (odd: every store 16-bit), 64 (even: packed bf16x2 stores).
  for (const auto& [n, k] : {std::pair<int, int>{37, 1064}, {203, 648}, {64, 392}}) {
    for (const int m : {1, 3, 5, 20, 33, 70, 118}) {
      const GemmCase gc = makeCase(m, n, k, static_cast<uint64_t>(m * 7919 + n));
      for (const int splits : {1, 2, 3}) {
        INFO("m " << m << " n " << n << " k " << k << " splits " << splits);
        const auto c = fusedGemmOnHost(gc.a, gc.packed, m, n, k, splits);
        CHECK(std::count(c.begin(), c.end(), uint16_t{0xFFFF}) == 0);  // every element written
        CHECK(relativeError(bf16ToFloat(c), gc.want) < 4e-3);
        ++cases;
      }
    }
  }
  CHECK(cases == 3 * 7 * 3);
  CHECK(packedStores > 0);
}

TEST_CASE("a swapped A fragment register is caught", "[cuda][w4a16]") {
  const int m = 20, n = 37, k = 392;
  const GemmCase gc = makeCase(m, n, k, 99);
  CHECK(relativeError(bf16ToFloat(fusedGemmOnHost(gc.a, gc.packed, m, n, k, 1)), gc.want) < 4e-3);
  // a1 and a2 exchanged (rows g+8 vs k 2t+8): a plausible slip, far off the reference.
  CHECK(relativeError(bf16ToFloat(fusedGemmOnHost(gc.a, gc.packed, m, n, k, 1, {0, 2, 1, 3})),
                      gc.want) > 0.1);
}

TEST_CASE("split-K planning fills at most one wave with at least two chunks per split",
          "[cuda][w4a16]") {
  // Llama-3-8B down_proj at m = 1: n = 4096 → 64 column blocks; k = 14336 → 28 chunks.
  // 132 SMs × 2 resident CTAs = 264: 264 / 64 = 4 splits (256 CTAs, one wave).
  CHECK(kw::chooseSplits(64, 28, 264) == 4);
  // Already a wave: no split.
  CHECK(kw::chooseSplits(300, 28, 264) == 1);
  // Few chunks: at least 2 per split → 3 chunks allow 1 split, 8 chunks allow 4.
  CHECK(kw::chooseSplits(8, 3, 264) == 1);
  CHECK(kw::chooseSplits(8, 8, 264) == 4);
  const kw::GridPlan p = kw::gridPlan(1, 4096, 14336, 4);
  CHECK(p.x == 64);
  CHECK(p.z == 1);
  CHECK(p.chunksPerSplit == 7);
  CHECK(p.splits == 4);
  // 9 chunks wanted in 4 splits: 3 per split → 3 splits (none empty).
  const kw::GridPlan q = kw::gridPlan(118, 1008, 1152 * 4, 4);
  CHECK(q.chunksPerSplit == 3);
  CHECK(q.splits == 3);
  CHECK(q.z == 2);
}
