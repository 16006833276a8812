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
#include <cmath>
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

/// ldmatrix.sync.aligned.m8n8.x4.b16 over a warp, from the PTX ISA: thread 8j + r supplies the
/// address (here a bf16 offset into `smem`) of row r of matrix j; thread i receives in register
/// j the 32-bit word at row i/4, columns 2(i%4) and 2(i%4)+1 of matrix j (low half first).
/// Written from the table alone, not from the kernel's index functions.
void ldmatrixEmulate(const std::vector<uint16_t>& smem, const int (&rowAddress)[32],
                     uint32_t (&out)[32][4]) {
  for (int i = 0; i < 32; ++i) {
    for (int j = 0; j < 4; ++j) {
      const auto at = static_cast<size_t>(rowAddress[8 * j + i / 4] + 2 * (i % 4));
      out[i][j] = static_cast<uint32_t>(smem.at(at)) | static_cast<uint32_t>(smem.at(at + 1)) << 16;
    }
  }
}

/// Deliberate slips the emulation can apply, each of which the tests must catch.
struct Mutation {
  std::array<int, 4> aOrder{0, 1, 2, 3};  ///< permutes the A registers handed to the mma
  bool swapMatrices = false;  ///< ldmatrix lanes 8–15 and 16–23 exchange their addresses
  bool arrivalOrder = false;  ///< the last CTA sums the partials in arrival, not rank, order
};

/// The split-K workspace as the kernel sees it, kept across launches: one ticket per block
/// and the partial-sum slots (poisoned with NaN before the first launch).
struct HostWorkspace {
  std::vector<int> tickets;
  std::vector<float> partials;
};

/// One emulated launch and what it did besides C.
struct HostRun {
  std::vector<uint16_t> c;
  kw::Striping plan;
  double reductionBytes = 0;  ///< fp32 bytes written to and read from the slots
  bool ticketsZero = true;    ///< every ticket back at 0 afterwards (the next launch's start)
  int64_t packedStores = 0;   ///< bf16x2 stores
  int lastArrivals = 0;       ///< shared blocks reduced (one last arrival each)
};

/// The fused kernel's structure on the host: every CTA's stripe of units through the kStages
/// ring of shared-memory stages (cp.async staging with zero fill), every warp's ldmatrix and
/// mma on it, then the one-hop split-K protocol with the CTAs' finished blocks arriving in an
/// order drawn from `arrivalSeed` (0: CTA order). Every index is the kernel's own, from
/// w4a16_layout.cuh; every weight is converted by int4_magic.cuh.
HostRun fusedGemmOnHost(const std::vector<uint16_t>& a, const Int4MmaPacked& p, int m, int n, int k,
                        int64_t residentCtas, const Mutation& mut = {},
                        HostWorkspace* workspace = nullptr, uint64_t arrivalSeed = 0) {
  HostRun run;
  const int nPad = static_cast<int>(p.nPad);
  const kw::Striping st = kw::planStriping(m, p.nPad, p.kPad, residentCtas);
  run.plan = st;
  const int rows = st.rows;
  const bool tr = kw::transposedForRows(rows);
  const int gps = kw::groupsPerStage(rows);
  const int mTiles = kw::mTilesForRows(rows);
  const int stage = kw::stageBytes(rows);
  run.c.assign(static_cast<size_t>(m) * n, 0xFFFF);  // poison: a NaN

  // Per CTA, per block it touches, its sums as a dense [rows][128] block (NaN where no
  // accumulator lands: rows ≥ m, tiles beyond nPad), placed by the kernel's accRow / accCol
  // (accRowT / accColT in the transposed form).
  struct Partial {
    int block;
    std::vector<float> sums;
  };
  std::vector<std::vector<Partial>> partials(static_cast<size_t>(st.ctas));
  // Shared memory as bf16 halves; unloaded bytes read as NaN.
  std::vector<uint16_t> smem(static_cast<size_t>(kw::smemBytesFor(rows) / 2));
  const auto half16 = [&](int byte) -> uint16_t& { return smem.at(static_cast<size_t>(byte / 2)); };
  const auto word32 = [&](int byte) {
    return static_cast<uint32_t>(half16(byte)) | static_cast<uint32_t>(half16(byte + 2)) << 16;
  };

  for (int cta = 0; cta < st.ctas; ++cta) {
    std::fill(smem.begin(), smem.end(), uint16_t{0x7FC1});
    const kw::UnitRange range = kw::ctaUnits(st, cta);
    // The kernel's copies (aimCopy / copyStage), clamped as it clamps: rows ≥ m copy row
    // m − 1, tiles and scale columns beyond nPad copy tile 0 / column 0, an odd group beyond
    // `groups` copies the step's first group again; only A columns ≥ k are zeros.
    const auto loadStage = [&](const kw::Unit& un, int slot) {
      const int base = slot * stage;
      const bool last = un.step == st.steps - 1;
      for (int v = 0; v < kw::aStageVectors(rows); ++v) {
        const kw::StageSlot s = kw::aStageSlot(rows, v);
        const int gm = std::min(un.z * rows + s.row, m - 1);
        const int gk = un.step * kw::stageK(rows) + s.col;
        for (int e = 0; e < 8; ++e) {  // cp.async 16 bytes, or 16 zero bytes (src-size 0)
          half16(base + kw::aSmemByte(rows, s.row, s.col + e)) =
              !last || gk < k ? a.at(static_cast<size_t>(gm) * k + gk + e) : uint16_t{0};
        }
      }
      for (int g = 0; g < gps; ++g) {
        const int grp = un.step * gps + (un.step * gps + g < st.groups ? g : 0);
        for (int t = 0; t < kw::kThreads; ++t) {
          for (int j = 0; j < kw::kTilesPerWarp; ++j) {
            int tile = kw::tileOf(un.x, t / 32, j);
            if (tile * 8 >= nPad) tile = j == 0 ? 0 : tile - 1;  // the kernel's clamps
            if (kw::tileOf(un.x, t / 32, 0) * 8 >= nPad) tile = 0;
            const size_t vec = kw::weightVector(tile, st.groups, grp, t % 32);
            for (int w = 0; w < 4; ++w) {
              const uint32_t word = p.words.at(vec * 4 + static_cast<size_t>(w));
              half16(base + kw::wSmemByte(rows, g, t, j) + 4 * w) = static_cast<uint16_t>(word);
              half16(base + kw::wSmemByte(rows, g, t, j) + 4 * w + 2) =
                  static_cast<uint16_t>(word >> 16);
            }
          }
        }
        for (int v = 0; v < kw::kScaleVectors; ++v) {
          int col = un.x * kw::kBlockCols + 8 * v;
          if (col >= nPad) col = 0;
          for (int e = 0; e < 8; ++e) {
            half16(base + kw::sSmemByte(rows, g, v) + 2 * e) =
                p.scales.at(kw::scaleIndex(grp, nPad, col) + static_cast<size_t>(e));
          }
        }
      }
    };
    // acc[warp][accTile][mt][lane][r]: two tiles per warp in the m16 form, one m16 tile of
    // the warp's 16 columns in the transposed form.
    const int accTiles = tr ? 1 : kw::kTilesPerWarp;
    const size_t accSize = static_cast<size_t>(kw::kWarps * accTiles * mTiles) * 32 * 4;
    std::vector<float> acc(accSize, 0.0f);
    const auto accAt = [&](std::vector<float>& v, int warp, int j, int mt) {
      return reinterpret_cast<float(*)[32][4]>(
          &v[(((static_cast<size_t>(warp) * accTiles + j) * mTiles) + mt) * 32 * 4]);
    };
    const auto addressLane = [&](int lane) {
      return mut.swapMatrices && lane >= 8 && lane < 24 ? lane ^ 24 : lane;
    };
    const auto finish = [&](const kw::Unit& un) {
      Partial part{un.block,
                   std::vector<float>(static_cast<size_t>(rows) * kw::kBlockCols, std::nanf(""))};
      for (int warp = 0; warp < kw::kWarps; ++warp) {
        for (int j = 0; j < accTiles; ++j) {
          for (int mt = 0; mt < mTiles; ++mt) {
            for (int lane = 0; lane < 32; ++lane) {
              const kw::LaneCoord lc = kw::laneCoord(lane);
              for (int r = 0; r < 4; ++r) {
                const int row = tr ? kw::accRowT(lc, r) : kw::accRow(mt, lc, r);
                const int tile = kw::tileOf(un.x, warp, tr ? r / 2 : j);
                const int col = tile * 8 - un.x * kw::kBlockCols + (tr ? lc.g : kw::accCol(lc, r));
                if (tile * 8 >= nPad || un.z * rows + row >= m) continue;
                part.sums.at(static_cast<size_t>(row) * kw::kBlockCols + static_cast<size_t>(col)) =
                    (*accAt(acc, warp, j, mt))[lane][r];
              }
            }
          }
        }
      }
      partials[static_cast<size_t>(cta)].push_back(std::move(part));
      std::fill(acc.begin(), acc.end(), 0.0f);
    };
    kw::Unit copyAt = kw::unitAt(st, range.begin);  // the kernel's copy cursor
    for (int s = 0; s < kw::kStages - 1; ++s) {
      if (range.begin + s < range.end) {
        loadStage(copyAt, s);
        copyAt = kw::nextUnit(st, copyAt);
      }
    }
    kw::Unit un = kw::unitAt(st, range.begin);
    for (int u = range.begin; u < range.end; ++u, un = kw::nextUnit(st, un)) {
      const int i = u - range.begin;
      if (u + kw::kStages - 1 < range.end) {
        loadStage(copyAt, kw::copySlot(i));
        copyAt = kw::nextUnit(st, copyAt);
      }
      const int base = kw::computeSlot(i) * stage;
      for (int warp = 0; warp < kw::kWarps; ++warp) {
        for (int g = 0; g < gps; ++g) {
          std::vector<float> part(accSize / kw::kWarps, 0.0f);  // the group's unscaled sums
          const auto partAt = [&](int j, int mt) {
            return reinterpret_cast<float(*)[32][4]>(
                &part[((static_cast<size_t>(j) * mTiles) + mt) * 32 * 4]);
          };
          for (int w = 0; w < 4; ++w) {
            uint32_t bPairs[kw::kTilesPerWarp][32][4];
            for (int j = 0; j < kw::kTilesPerWarp; ++j) {
              for (int lane = 0; lane < 32; ++lane) {
                const uint32_t q =
                    word32(base + kw::wSmemByte(rows, g, warp * 32 + lane, j) + 4 * w);
                kk::int4ToCentredBf16(q, kk::kMagicPlusEightPair, bPairs[j][lane]);
              }
            }
            uint32_t out[32][4], am[32][4], bm[32][2];
            int addr[32];
            if (tr) {
              // Cᵀ = W·Aᵀ: the weights are the A operand, ldmatrix of A rows the B operand.
              for (int lane = 0; lane < 32; ++lane)
                addr[lane] = base / 2 + kw::ldsmAddress8(rows, addressLane(lane),
                                                         g * kw::kSlicesPerGroup / 2 + w);
              ldmatrixEmulate(smem, addr, out);
              for (int ks = 0; ks < 2; ++ks) {
                for (int lane = 0; lane < 32; ++lane) {
                  uint32_t wa[4];
                  for (int i4 = 0; i4 < 4; ++i4)
                    wa[i4] = bPairs[kw::aTileOf(i4)][lane][2 * ks + kw::aRegOf(i4)];
                  for (int i4 = 0; i4 < 4; ++i4)
                    am[lane][i4] = wa[mut.aOrder[static_cast<size_t>(i4)]];
                  for (int i4 = 0; i4 < 4; ++i4) {
                    const kw::FragSlot f = kw::ldsm8Slot(i4);
                    if (f.slice == ks) bm[lane][f.reg] = out[lane][i4];
                  }
                }
                mmaEmulate(*partAt(0, 0), am, bm);
              }
            } else {
              for (int ks = 0; ks < 2; ++ks) {
                for (int mt = 0; mt < mTiles; ++mt) {
                  for (int lane = 0; lane < 32; ++lane) {
                    addr[lane] = base / 2 + kw::ldsmAddress16(
                                                rows, addressLane(lane), mt,
                                                g * kw::kSlicesPerGroup + kw::sliceOfWord(w, ks));
                  }
                  ldmatrixEmulate(smem, addr, out);
                  for (int lane = 0; lane < 32; ++lane) {
                    for (int r = 0; r < 4; ++r)
                      am[lane][r] = out[lane][mut.aOrder[static_cast<size_t>(r)]];
                  }
                  for (int j = 0; j < kw::kTilesPerWarp; ++j) {
                    for (int lane = 0; lane < 32; ++lane) {
                      bm[lane][0] = bPairs[j][lane][2 * ks];
                      bm[lane][1] = bPairs[j][lane][2 * ks + 1];
                    }
                    mmaEmulate(*partAt(j, mt), am, bm);
                  }
                }
              }
            }
          }
          // The group's scale in fp32 (FFMA).
          for (int lane = 0; lane < 32; ++lane) {
            const kw::LaneCoord lc = kw::laneCoord(lane);
            for (int j = 0; j < accTiles; ++j) {
              for (int mt = 0; mt < mTiles; ++mt) {
                for (int r = 0; r < 4; ++r) {
                  const int sb = tr ? base + kw::accScaleByteT(rows, g, warp, r / 2, lc)
                                    : base + kw::accScaleByte(rows, g, warp, j, lc) + 2 * (r % 2);
                  float& into = (*accAt(acc, warp, j, mt))[lane][r];
                  into = std::fma(kk::bf16BitsToFloat(half16(sb)), (*partAt(j, mt))[lane][r], into);
                }
              }
            }
          }
        }
      }
      if (un.step == st.steps - 1 || u == range.end - 1) finish(un);
    }
  }

  // The kernel's finishBlock, per (CTA, block) in arrival order: each CTA's blocks arrive in
  // its own order, the CTAs interleave at random.
  const int blocks = st.blocksX * st.blocksZ;
  HostWorkspace local;
  HostWorkspace& ws = workspace != nullptr ? *workspace : local;
  const size_t slotFloats =
      kw::anyBlockShared(st) ? (kw::workspaceBytes(st) - kw::ticketBytes(st)) / 4 : 0;
  if (ws.tickets.empty()) {
    ws.tickets.assign(static_cast<size_t>(blocks), 0);
    ws.partials.assign(slotFloats, std::nanf(""));
  }
  REQUIRE(ws.tickets.size() == static_cast<size_t>(blocks));
  REQUIRE(ws.partials.size() == slotFloats);
  // The elements a CTA stores and reads: rows < m, tiles inside nPad (not NaN in `sums`).
  const auto present = [&](const Partial& part, size_t e) { return !std::isnan(part.sums[e]); };
  const auto store = [&](const kw::Unit& un, const std::vector<float>& sums, const Partial& mask) {
    for (int row = 0; row < rows; ++row) {
      for (int col = 0; col < kw::kBlockCols; ++col) {
        const size_t e = static_cast<size_t>(row) * kw::kBlockCols + static_cast<size_t>(col);
        const int gcol = un.x * kw::kBlockCols + col;
        if (!present(mask, e) || gcol >= n) continue;
        const size_t o = static_cast<size_t>(un.z * rows + row) * n + gcol;
        if (!tr && col % 2 == 0 && kw::outputPairStorable(gcol, n)) {  // bf16x2
          const uint32_t pair = static_cast<uint32_t>(floatToBf16(sums[e])) |
                                static_cast<uint32_t>(floatToBf16(sums[e + 1])) << 16;
          run.c[o] = half(pair, 0);
          run.c[o + 1] = half(pair, 1);
          ++run.packedStores;
          ++col;
          continue;
        }
        run.c[o] = floatToBf16(sums[e]);
      }
    }
  };
  std::vector<size_t> next(static_cast<size_t>(st.ctas), 0);
  std::vector<std::vector<int>> arrived(static_cast<size_t>(blocks));  // CTAs, arrival order
  std::mt19937_64 rng(arrivalSeed);
  for (;;) {
    std::vector<int> ready;
    for (int cta = 0; cta < st.ctas; ++cta) {
      if (next[static_cast<size_t>(cta)] < partials[static_cast<size_t>(cta)].size())
        ready.push_back(cta);
    }
    if (ready.empty()) break;
    const int cta = arrivalSeed == 0 ? ready.front() : ready[rng() % ready.size()];
    const Partial& part = partials[static_cast<size_t>(cta)][next[static_cast<size_t>(cta)]++];
    const kw::Unit un = kw::unitAt(st, part.block * st.steps);
    std::vector<float> sums = part.sums;
    const kw::BlockShare share = kw::blockShare(st, part.block, cta);
    if (share.count > 1) {
      const auto b = static_cast<size_t>(part.block);
      const int slot = kw::partialSlot(st, part.block, cta);
      float* slots = ws.partials.data();
      for (size_t e = 0; e < sums.size(); ++e) {
        if (!present(part, e)) continue;
        const int row = static_cast<int>(e) / kw::kBlockCols,
                  col = static_cast<int>(e) % kw::kBlockCols;
        slots[kw::slotIndex(st, slot, row, col)] = sums[e];
        run.reductionBytes += 4;
      }
      arrived[b].push_back(cta);
      if (ws.tickets[b]++ != share.count - 1) continue;  // not the last: done with it
      // The last arrival: every slot, its own included, in rank order (rankSlot).
      const int first = cta - share.rank;
      REQUIRE(first == kw::firstCtaOf(st, part.block));
      std::vector<int> order;  // slots, in summation order
      for (int q = 0; q < share.count; ++q) {
        REQUIRE(kw::rankSlot(st, part.block, first, q) ==
                kw::partialSlot(st, part.block, first + q));
        order.push_back(kw::rankSlot(st, part.block, first, q));
      }
      if (mut.arrivalOrder) {
        order.clear();
        for (const int c : arrived[b]) order.push_back(kw::partialSlot(st, part.block, c));
      }
      for (size_t e = 0; e < sums.size(); ++e) {
        if (!present(part, e)) continue;
        const int row = static_cast<int>(e) / kw::kBlockCols,
                  col = static_cast<int>(e) % kw::kBlockCols;
        float v = 0;
        for (size_t i = 0; i < order.size(); ++i) {
          const float p2 = slots[kw::slotIndex(st, order[i], row, col)];
          v = i == 0 ? p2 : v + p2;
          run.reductionBytes += 4;
        }
        sums[e] = v;
      }
      ws.tickets[b] = 0;
      ++run.lastArrivals;
    }
    store(un, sums, part);
  }
  run.ticketsZero = std::count(ws.tickets.begin(), ws.tickets.end(), 0) == blocks;
  return run;
}

struct GemmCase {
  std::vector<uint16_t> a;
  Int4MmaPacked packed;
  std::vector<float> want;
};

GemmCase makeCase(int m, int n, int k, uint64_t seed) {
  GemmCase gc;
  // Rows (output columns) of magnitudes 1/4 .. 4, so each column's scale differs from its
  // neighbours' by 2× or more: a scale applied to the wrong column is far off.
  std::vector<float> w = randomUniform(static_cast<int64_t>(n) * k, seed);
  for (size_t i = 0; i < w.size(); ++i) w[i] *= std::ldexp(1.0f, static_cast<int>(i / k % 5) - 2);
  const auto q = quantizeInt4G128(w, n, k, false);
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
          uint32_t centred[4];
          kk::int4ToCentredBf16(word, magic, centred);
          for (int e = 0; e < 8; ++e) {
            const int code =
                static_cast<int>((word >> (4 * kInt4SlotOfElement[static_cast<size_t>(e)])) & 0xF);
            const uint16_t want = doubleToBf16((code - zero) * bf16ToDouble(scale));
            wrong += half(out[e / 2], e % 2) == want ? 0 : 1;
            // The fused GEMM's form: code − zero exactly, the scale applied later.
            wrong += bf16ToDouble(half(centred[e / 2], e % 2)) == code - zero ? 0 : 1;
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

TEST_CASE("the ldmatrix emulator hands out the PTX ISA fragment of a hand-made tile",
          "[cuda][w4a16]") {
  // Four 8×8 matrices, element (matrix j, row r, col c) = 64j + 8r + c, rows 16 halves apart.
  std::vector<uint16_t> smem(4 * 8 * 16);
  int addr[32];
  for (int j = 0; j < 4; ++j) {
    for (int r = 0; r < 8; ++r) {
      addr[8 * j + r] = (8 * j + r) * 16;
      for (int col = 0; col < 8; ++col)
        smem[static_cast<size_t>((8 * j + r) * 16 + col)] =
            static_cast<uint16_t>(64 * j + 8 * r + col);
    }
  }
  uint32_t out[32][4];
  ldmatrixEmulate(smem, addr, out);
  for (int i = 0; i < 32; ++i) {
    for (int j = 0; j < 4; ++j) {
      CHECK(half(out[i][j], 0) == 64 * j + 8 * (i / 4) + 2 * (i % 4));
      CHECK(half(out[i][j], 1) == 64 * j + 8 * (i / 4) + 2 * (i % 4) + 1);
    }
  }
}

TEST_CASE("the ldmatrix addresses give every lane its mma A (m16) or B (transposed) fragment",
          "[cuda][w4a16]") {
  const auto element = [](int row, int col) { return static_cast<uint16_t>(row * 512 + col); };
  for (const int rows : {8, 16, 32, 64}) {
    INFO("rows " << rows);
    // Staged element (row, col) holds row·512 + col: each received word names its source.
    const int stride = kw::aStrideFor(rows), sliceCount = kw::stageK(rows) / 16;
    std::vector<uint16_t> smem(static_cast<size_t>(rows * stride));
    for (int row = 0; row < rows; ++row) {
      for (int col = 0; col < kw::stageK(rows); ++col)
        smem[static_cast<size_t>(row * stride + col)] = element(row, col);
    }
    uint32_t out[32][4];
    int addr[32];
    if (kw::transposedForRows(rows)) {
      // Two slices per ldmatrix; b0 = (k 2t, row g), b1 = (k 2t + 8, row g) of each.
      for (int pair = 0; pair < sliceCount / 2; ++pair) {
        for (int lane = 0; lane < 32; ++lane) addr[lane] = kw::ldsmAddress8(rows, lane, pair);
        ldmatrixEmulate(smem, addr, out);
        for (int lane = 0; lane < 32; ++lane) {
          const kw::LaneCoord lc = kw::laneCoord(lane);
          for (int j = 0; j < 4; ++j) {
            const kw::FragSlot f = kw::ldsm8Slot(j);
            const int col = (2 * pair + f.slice) * 16 + 2 * lc.t + 8 * f.reg;
            CHECK(half(out[lane][j], 0) == element(lc.g, col));
            CHECK(half(out[lane][j], 1) == element(lc.g, col + 1));
          }
        }
        for (int lane = 0; lane < 32; ++lane) CHECK(addr[lane] / stride < 8);  // rows 0–7 only
      }
      continue;
    }
    for (int mt = 0; mt < kw::mTilesForRows(rows); ++mt) {
      for (int slice = 0; slice < sliceCount; ++slice) {
        for (int lane = 0; lane < 32; ++lane) addr[lane] = kw::ldsmAddress16(rows, lane, mt, slice);
        ldmatrixEmulate(smem, addr, out);
        for (int lane = 0; lane < 32; ++lane) {
          const kw::LaneCoord lc = kw::laneCoord(lane);
          for (int r = 0; r < 4; ++r) {  // a_r: row g + 8(r%2), k 2t + 8(r/2)
            const int row = mt * 16 + lc.g + 8 * (r % 2), col = slice * 16 + 2 * lc.t + 8 * (r / 2);
            CHECK(half(out[lane][r], 0) == element(row, col));
            CHECK(half(out[lane][r], 1) == element(row, col + 1));
          }
        }
      }
    }
  }
}

TEST_CASE("the transposed form's weight operand is the two tiles' B fragments", "[cuda][w4a16]") {
  // mma A (16 × 16, row = the warp's column): a_i = (row g + 8·((i>>1)&1)... per register:
  // a0 (row g, k 2t), a1 (row g + 8, k 2t), a2 (row g, k 2t + 8), a3 (row g + 8, k 2t + 8).
  // Tile j's B fragment: b0 (k 2t, column g), b1 (k 2t + 8, column g) of columns 8j .. 8j + 7.
  for (int i = 0; i < 4; ++i) {
    const int rowHalf = i % 2, kHalf = i / 2;  // from the PTX ISA A table
    CHECK(kw::aTileOf(i) == rowHalf);
    CHECK(kw::aRegOf(i) == kHalf);
  }
  // Accumulators: Cᵀ (row g + 8·(r/2), column 2t + r%2) = A row 2t + r%2, warp column g + 8·(r/2).
  for (int lane = 0; lane < 32; ++lane) {
    const kw::LaneCoord lc = kw::laneCoord(lane);
    for (int r = 0; r < 4; ++r) {
      CHECK(kw::accRowT(lc, r) == 2 * lc.t + r % 2);
      CHECK(kw::accColT(lc, r) == lc.g + 8 * (r / 2));
    }
  }
}

TEST_CASE("the fused W4A16 kernel's pipeline, ldmatrix, mma and split-K reproduce A·Wᵀ",
          "[cuda][w4a16]") {
  int64_t cases = 0, packed = 0, shared = 0;
  // n = 37 and 203 (odd: 16-bit stores), 64 (even: packed bf16x2 stores); k not a multiple of
  // 128 in the first two. Resident CTAs 1 (no split), 3 (long stripes over several blocks) and
  // 1000 (as many CTAs as kMinGroupsPerCta allows: most blocks shared).
  for (const auto& [n, k] : {std::pair<int, int>{37, 1064}, {203, 648}, {64, 392}}) {
    for (const int m : {1, 3, 5, 20, 33, 70, 118}) {
      const GemmCase gc = makeCase(m, n, k, static_cast<uint64_t>(m * 7919 + n));
      for (const int64_t resident : {1, 3, 1000}) {
        INFO("m " << m << " n " << n << " k " << k << " resident " << resident);
        const HostRun run = fusedGemmOnHost(gc.a, gc.packed, m, n, k, resident);
        CHECK(run.ticketsZero);
        CHECK(std::count(run.c.begin(), run.c.end(), uint16_t{0xFFFF}) == 0);  // all written
        CHECK(relativeError(bf16ToFloat(run.c), gc.want) < 4e-3);
        // What the kernel reports as reduction traffic is what the protocol moved.
        CHECK(run.reductionBytes == kw::reductionBytes(run.plan, m, gc.packed.nPad));
        shared += kw::anyBlockShared(run.plan) ? 1 : 0;
        packed += run.packedStores;
        ++cases;
      }
    }
  }
  CHECK(cases == 3 * 7 * 3);
  CHECK(packed > 0);
  CHECK(shared >= 2 * 7 * 2);  // the split-K paths really ran
}

TEST_CASE("a swapped A register or a wrong ldmatrix mapping is caught", "[cuda][w4a16]") {
  for (const int m : {5, 20}) {  // the 8-row form and the m16 form
    INFO("m " << m);
    const int n = 37, k = 392;
    const GemmCase gc = makeCase(m, n, k, 99);
    const auto err = [&](const Mutation& mut) {
      return relativeError(bf16ToFloat(fusedGemmOnHost(gc.a, gc.packed, m, n, k, 1, mut).c),
                           gc.want);
    };
    CHECK(err({}) < 4e-3);
    // a1 and a2 exchanged (m16: rows g+8 vs k 2t+8; 8 rows: the two slices' a2 and a0).
    Mutation swapped;
    swapped.aOrder = {0, 2, 1, 3};
    CHECK(err(swapped) > 0.1);
    // ldmatrix matrices 1 and 2 swapped (lanes 8–15 point at matrix 2's rows and back).
    Mutation matrices;
    matrices.swapMatrices = true;
    CHECK(err(matrices) > 0.1);
  }
}

TEST_CASE("one-hop split-K: every split depth, any arrival order, the same bits, tickets reset",
          "[cuda][w4a16]") {
  // k = 4184: 33 groups, not a multiple of 128; n = 37 and 203 odd (one and two column
  // blocks); m = 3 (8-row CTAs) and 20 (16-row CTAs). For each split depth 1 .. the deepest
  // the striping makes, three launches on one workspace with different arrival orders: the
  // same bits each time, every ticket back at 0 after each, and C right. Then the same with
  // the partials summed in arrival order instead of rank order: some launches then differ,
  // so the determinism check does see the order (two partials commute, three need not).
  const int k = 4184;
  bool arrivalOrderSeen = false;
  for (const auto& [m, n] : {std::pair<int, int>{3, 37}, {3, 203}, {20, 37}}) {
    const GemmCase gc = makeCase(m, n, k, static_cast<uint64_t>(31 * m + n));
    const int deepest =
        kw::maxCtasPerBlock(kw::planStriping(m, gc.packed.nPad, gc.packed.kPad, 1 << 20));
    REQUIRE(deepest >= 5);
    std::vector<int> depths;
    for (int64_t resident = 1; resident <= 64; ++resident) {
      const kw::Striping st = kw::planStriping(m, gc.packed.nPad, gc.packed.kPad, resident);
      const int depth = kw::maxCtasPerBlock(st);
      if (std::find(depths.begin(), depths.end(), depth) != depths.end()) continue;
      depths.push_back(depth);
      INFO("m " << m << " n " << n << " resident " << resident << " depth " << depth);
      HostWorkspace ws;
      std::vector<uint16_t> first;
      for (const uint64_t seed : {0, 1, 2}) {
        const HostRun run = fusedGemmOnHost(gc.a, gc.packed, m, n, k, resident, {}, &ws, seed);
        CHECK(run.ticketsZero);
        CHECK(relativeError(bf16ToFloat(run.c), gc.want) < 4e-3);
        CHECK(run.reductionBytes == kw::reductionBytes(st, m, gc.packed.nPad));
        CHECK(run.lastArrivals == (depth > 1 ? (run.plan.blocksX * run.plan.blocksZ) : 0));
        if (seed == 0) first = run.c;
        CHECK(run.c == first);
      }
      Mutation arrival;
      arrival.arrivalOrder = true;
      HostWorkspace ws2;
      std::vector<uint16_t> base;
      for (uint64_t seed = 1; seed <= 6; ++seed) {
        const HostRun run =
            fusedGemmOnHost(gc.a, gc.packed, m, n, k, resident, arrival, &ws2, seed);
        if (seed == 1) base = run.c;
        arrivalOrderSeen = arrivalOrderSeen || run.c != base;
      }
    }
    std::sort(depths.begin(), depths.end());
    std::vector<int> all(static_cast<size_t>(deepest));
    for (int d = 1; d <= deepest; ++d) all[static_cast<size_t>(d - 1)] = d;
    // One column block: every split depth 1 .. deepest ran (two blocks skip some depths).
    if (n == 37) CHECK(depths == all);
  }
  CHECK(arrivalOrderSeen);
}

TEST_CASE("no CTA variant asks for more shared memory than sm_80, sm_86, sm_89 or sm_90 allow",
          "[cuda][w4a16]") {
  // The opt-in limits by compute capability (a table: no GPU needed). Before per-device
  // plans, the 64-row variant's 103,424 bytes were asked of every device, and an sm_86/sm_89
  // board (A10, L4, L40S, RTX 4090: 101,376 bytes) failed when it opened.
  CHECK(kw::smemBytesFor(64) == 103424);
  // Two groups per stage at 8 and 16 rows: 82.5 and 99 KB (the 16-row one exactly the 99 KB
  // of sm_86/sm_89); one group at 32 and 64 rows.
  CHECK(kw::smemBytesFor(8) == 84480);
  CHECK(kw::smemBytesFor(16) == 101376);
  CHECK(kw::smemBytesFor(32) == 68608);
  struct Arch {
    int major, minor, bytes, maxRows;
  };
  for (const Arch a : {Arch{8, 0, 166912, 64}, Arch{8, 6, 101376, 32}, Arch{8, 9, 101376, 32},
                       Arch{9, 0, 232448, 64}}) {
    INFO("sm_" << a.major << a.minor);
    CHECK(kw::smemOptinBytesFor(a.major, a.minor) == a.bytes);
    const int rows = kw::largestRowsWithin(a.bytes);
    CHECK(rows == a.maxRows);
    // Every plan a device gets fits its shared memory, at every m.
    for (int64_t m : {1, 8, 9, 16, 17, 32, 33, 64, 65, 512, 4096}) {
      const kw::Striping st = kw::planStriping(m, 4096, 14336, 528, rows);
      INFO("m " << m);
      CHECK(st.rows <= rows);
      CHECK(kw::smemBytesFor(st.rows) <= a.bytes);
      // The row slices still cover every row of A.
      CHECK(static_cast<int64_t>(st.blocksZ) * st.rows >= m);
      CHECK(static_cast<int64_t>(st.blocksZ - 1) * st.rows < m);
    }
  }
  // The split depth the record carries: Llama-3-8B's down_proj at m = 1 on 528 resident CTAs
  // has 56 two-group steps a block over stripes of 4: 14 CTAs share each block. On the 264
  // CTAs an H200 holds (2 per SM), stripes of 7 steps: 8 CTAs a block.
  CHECK(kw::maxCtasPerBlock(kw::planStriping(1, 4096, 14336, 528)) == 14);
  CHECK(kw::maxCtasPerBlock(kw::planStriping(1, 4096, 14336, 264)) == 8);
  // One block of 9 groups over 2 CTAs of 5: both share it.
  CHECK(kw::maxCtasPerBlock(kw::planStriping(1, 40, 1152, 528)) == 2);
  // A stripe that holds whole blocks splits none.
  CHECK(kw::maxCtasPerBlock(kw::planStriping(1, 128, 512, 1)) == 1);
  // A capability the table does not know gets 0: the caller asks the device instead.
  CHECK(kw::smemOptinBytesFor(7, 5) == 0);
  CHECK(kw::largestRowsWithin(1000) == 0);
  // m > 32 on a 99 KB device runs as 32-row CTAs; on an H100 as 64-row ones.
  CHECK(kw::ctaRowsFor(118, 32) == 32);
  CHECK(kw::ctaRowsFor(118) == 64);
  CHECK(kw::ctaRowsFor(5, 32) == 8);
}

TEST_CASE("striping fills one wave with equal stripes of at least kMinGroupsPerCta units",
          "[cuda][w4a16]") {
  // Llama-3-8B down_proj at m = 1 on 528 CTAs: 32 blocks of 128 columns × 56 steps of two
  // groups = 1792 units over 528 CTAs → 4 per CTA → 448 CTAs.
  const kw::Striping down = kw::planStriping(1, 4096, 14336, 528);
  CHECK(down.rows == 8);
  CHECK(down.blocksX == 32);
  CHECK(down.groups == 112);
  CHECK(down.steps == 56);
  CHECK(down.perCta == 4);
  CHECK(down.ctas == 448);
  // An odd group count: 9 groups → 5 steps (the last one group).
  CHECK(kw::planStriping(1, 40, 1152, 528).steps == 5);
  CHECK(kw::planStriping(40, 40, 1152, 528).steps == 9);  // 64 rows: one group a step
  // Little work: 1 block × 9 groups → 2 CTAs (not 9 CTAs of one group each).
  CHECK(kw::planStriping(1, 40, 1152, 528).ctas == 2);
  // 118 rows: two 64-row slices.
  const kw::Striping tall = kw::planStriping(118, 1008, 1152, 264);
  CHECK(tall.rows == 64);
  CHECK(tall.blocksZ == 2);
  std::mt19937 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t m = 1 + rng() % 300, nPad = 8 * (1 + rng() % 2000),
                  kPad = 128 * (1 + rng() % 120);
    const int64_t resident = 1 + rng() % 1100;
    const kw::Striping s = kw::planStriping(m, nPad, kPad, resident);
    INFO("m " << m << " nPad " << nPad << " kPad " << kPad << " resident " << resident);
    const int64_t units = kw::unitCount(s);
    REQUIRE(s.ctas >= 1);
    CHECK(s.ctas <= resident);  // one wave: every CTA resident at once
    CHECK((s.perCta * kw::groupsPerStage(s.rows) >= kw::kMinGroupsPerCta || s.ctas == 1));
    // Contiguous, complete, no empty CTA.
    CHECK(kw::ctaUnits(s, 0).begin == 0);
    CHECK(kw::ctaUnits(s, s.ctas - 1).end == units);
    CHECK(kw::ctaUnits(s, s.ctas - 1).end > kw::ctaUnits(s, s.ctas - 1).begin);
    // Each block: its CTAs hold ranks 0 .. count−1 once, in CTA (k) order.
    const int blocks = s.blocksX * s.blocksZ;
    for (int block = 0; block < blocks; block += 1 + blocks / 17) {
      std::vector<int> ranks;
      for (int cta = 0; cta < s.ctas; ++cta) {
        const kw::UnitRange r = kw::ctaUnits(s, cta);
        if (r.end <= block * s.steps || r.begin >= (block + 1) * s.steps) continue;
        const kw::BlockShare share = kw::blockShare(s, block, cta);
        CHECK(share.count >= 1);
        ranks.push_back(share.rank);
      }
      std::vector<int> want(ranks.size());
      for (size_t i = 0; i < want.size(); ++i) want[i] = static_cast<int>(i);
      CHECK(ranks == want);
      CHECK(kw::blockShare(s, block, 0).count == static_cast<int>(ranks.size()));
    }
    CHECK(kw::anyBlockShared(s) == (kw::reductionBytes(s, m, nPad) > 0));
    // The kernel's cursor walk visits the units unitAt names, across block and slice ends.
    kw::Unit cursor = kw::unitAt(s, 0);
    int64_t wrong = 0;
    for (int u = 0; u < units; ++u, cursor = kw::nextUnit(s, cursor)) {
      const kw::Unit want = kw::unitAt(s, u);
      wrong += cursor.block == want.block && cursor.x == want.x && cursor.z == want.z &&
                       cursor.step == want.step
                   ? 0
                   : 1;
    }
    CHECK(wrong == 0);
  }
}
