// Gates and the Pareto frontier against brute force, with ties and intervals.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <quantfront/core/analysis/frontier.hpp>
#include <quantfront/core/analysis/frontier_analysis.hpp>
#include <quantfront/core/analysis/stats.hpp>

using namespace qf;

namespace {

const std::string kData = QF_TEST_DATA_DIR;

bool bruteGe(const std::vector<double>& p, std::size_t a, const std::vector<double>& q,
             std::size_t b, std::size_t dims) {
  bool strict = false;
  for (std::size_t k = 0; k < dims; ++k) {
    if (p[a * dims + k] < q[b * dims + k]) return false;
    if (p[a * dims + k] > q[b * dims + k]) strict = true;
  }
  return strict;
}

/// O(n²) reference: the definition in frontier.md, spelled out.
std::vector<PointClass> bruteClassify(const OrientedPoints& pts) {
  const std::size_t n = pts.size(), d = pts.dims;
  std::vector<PointClass> out(n, PointClass::Frontier);
  for (std::size_t b = 0; b < n; ++b) {
    bool point = false, clear = false;
    for (std::size_t a = 0; a < n; ++a) {
      if (a == b) continue;
      point = point || bruteGe(pts.value, a, pts.value, b, d);
      clear = clear || bruteGe(pts.pessimistic, a, pts.optimistic, b, d);
    }
    out[b] = clear ? PointClass::Dominated : point ? PointClass::Uncertain : PointClass::Frontier;
  }
  return out;
}

/// Random points on a coarse grid (many ties and exact duplicates) with random intervals,
/// some of zero width.
OrientedPoints randomPoints(std::size_t n, std::size_t dims, std::uint64_t seed, int grid,
                            bool intervals) {
  stats::Rng rng(seed);
  OrientedPoints pts;
  pts.dims = dims;
  std::vector<double> v(dims), lo(dims), hi(dims);
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && rng.below(10) == 0) {
      // An exact copy of an earlier point.
      const std::size_t j = rng.below(i);
      for (std::size_t k = 0; k < dims; ++k) {
        v[k] = pts.value[j * dims + k];
        lo[k] = pts.pessimistic[j * dims + k];
        hi[k] = pts.optimistic[j * dims + k];
      }
    } else {
      for (std::size_t k = 0; k < dims; ++k) {
        v[k] = static_cast<double>(rng.below(static_cast<std::uint64_t>(grid))) - grid / 2.0;
        const double w = intervals ? static_cast<double>(rng.below(3)) * 0.5 : 0.0;
        lo[k] = v[k] - w;
        hi[k] = v[k] + (intervals ? static_cast<double>(rng.below(3)) * 0.5 : 0.0);
      }
    }
    pts.add(v, lo, hi);
  }
  return pts;
}

Candidate cand(const std::string& id, std::vector<std::pair<std::string, double>> metrics) {
  Candidate c;
  c.id = id;
  for (auto& [k, v] : metrics) c.metrics[k].value = v;
  return c;
}

}  // namespace

TEST_CASE("frontier classification equals brute force (2, 3, 5 dims; ties; intervals)",
          "[frontier]") {
  for (std::size_t dims : {1u, 2u, 3u, 4u, 5u, 8u}) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      for (bool intervals : {false, true}) {
        const int grid = seed % 2 == 0 ? 5 : 40;
        const auto pts = randomPoints(150 + 40 * seed, dims, seed * 1000 + dims, grid, intervals);
        const auto fast = classifyPoints(pts);
        const auto slow = bruteClassify(pts);
        INFO("dims " << dims << " seed " << seed << " intervals " << intervals);
        REQUIRE(fast.size() == slow.size());
        std::size_t mismatches = 0, frontier = 0, uncertain = 0;
        for (std::size_t i = 0; i < fast.size(); ++i) {
          mismatches += fast[i] != slow[i] ? 1 : 0;
          frontier += slow[i] == PointClass::Frontier ? 1 : 0;
          uncertain += slow[i] == PointClass::Uncertain ? 1 : 0;
        }
        CHECK(mismatches == 0);
        CHECK(frontier > 0);
        if (!intervals) CHECK(uncertain == 0);
      }
    }
  }
}

TEST_CASE("dominatedFlags with different dominator and query sets equals brute force",
          "[frontier]") {
  for (std::size_t dims : {2u, 3u, 5u}) {
    stats::Rng rng(dims);
    std::vector<double> P, Q;
    for (int i = 0; i < 300 * static_cast<int>(dims); ++i) {
      P.push_back(static_cast<double>(rng.below(8)));
      Q.push_back(static_cast<double>(rng.below(8)) + (rng.below(2) ? 0.5 : 0.0));
    }
    const auto flags = dominatedFlags(P, Q, dims);
    const std::size_t nP = P.size() / dims, nQ = Q.size() / dims;
    std::size_t mismatches = 0, dominated = 0;
    for (std::size_t q = 0; q < nQ; ++q) {
      bool any = false;
      for (std::size_t p = 0; p < nP && !any; ++p) any = bruteGe(P, p, Q, q, dims);
      mismatches += (flags[q] != 0) != any ? 1 : 0;
      dominated += any ? 1 : 0;
    }
    INFO("dims " << dims);
    CHECK(mismatches == 0);
    CHECK(dominated > 0);
    CHECK(dominated < nQ);
  }
}

TEST_CASE("ties, duplicates and values one ulp apart", "[frontier]") {
  OrientedPoints pts;
  pts.dims = 2;
  const double x = 1.0, xUp = std::nextafter(1.0, 2.0);
  pts.add(std::vector<double>{x, 5});
  pts.add(std::vector<double>{x, 5});    // equal vector: both on the frontier
  pts.add(std::vector<double>{xUp, 5});  // one ulp better on x: dominates both
  pts.add(std::vector<double>{0, 9});
  const auto c = classifyPoints(pts);
  CHECK(c[0] == PointClass::Dominated);
  CHECK(c[1] == PointClass::Dominated);
  CHECK(c[2] == PointClass::Frontier);
  CHECK(c[3] == PointClass::Frontier);
  OrientedPoints twins;
  twins.dims = 3;
  twins.add(std::vector<double>{1, 2, 3});
  twins.add(std::vector<double>{1, 2, 3});
  const auto t = classifyPoints(twins);
  CHECK(t[0] == PointClass::Frontier);
  CHECK(t[1] == PointClass::Frontier);
  CHECK(clearDominatorsOf(twins, 0).empty());
}

TEST_CASE("uncertain band: dominated on points, not clearly", "[frontier]") {
  OrientedPoints pts;
  pts.dims = 2;
  // A beats B on both points, but B's interval on objective 0 reaches above A's lower end.
  pts.add(std::vector<double>{10, 10}, std::vector<double>{9, 10}, std::vector<double>{11, 10});
  pts.add(std::vector<double>{9.5, 9}, std::vector<double>{9, 9}, std::vector<double>{10, 9});
  // C is clearly below A: its optimistic end is under A's pessimistic end everywhere.
  pts.add(std::vector<double>{7, 8}, std::vector<double>{6, 7}, std::vector<double>{8, 9});
  const auto c = classifyPoints(pts);
  CHECK(c[0] == PointClass::Frontier);
  CHECK(c[1] == PointClass::Uncertain);
  CHECK(c[2] == PointClass::Dominated);
  CHECK(dominates(pts, 0, 1));
  CHECK(!clearlyDominates(pts, 0, 1));
  // Both A and B clear C: B's pessimistic (9, 9) still beats C's optimistic (8, 9).
  CHECK(clearDominatorsOf(pts, 2) == std::vector<std::size_t>{0, 1});
  CHECK(pointDominatorsOf(pts, 1) == std::vector<std::size_t>{0});
  // Intervals that do not contain the value are widened to contain it.
  OrientedPoints w;
  w.dims = 1;
  w.add(std::vector<double>{5}, std::vector<double>{6}, std::vector<double>{4});
  CHECK(w.pessimistic[0] == 5);
  CHECK(w.optimistic[0] == 5);
}

TEST_CASE("gate parsing", "[frontier]") {
  auto g = parseGate("recovery_pct >= 99");
  REQUIRE(g.ok());
  CHECK(g->metric == "recovery_pct");
  CHECK(g->op == GateOp::Ge);
  CHECK(g->threshold == 99);
  CHECK(g->text == "recovery_pct>=99");
  auto rel = parseGate("score>=baseline-0.5");
  REQUIRE(rel.ok());
  CHECK(rel->relativeToBaseline);
  CHECK(rel->threshold == -0.5);
  auto plus = parseGate("kl<=baseline+1e-3");
  REQUIRE(plus.ok());
  CHECK(plus->op == GateOp::Le);
  CHECK(plus->threshold == Approx(1e-3));
  auto bare = parseGate("score>=baseline");
  REQUIRE(bare.ok());
  CHECK(bare->threshold == 0);
  CHECK(parseGate("tpot_p99_ms<70")->op == GateOp::Lt);
  CHECK(parseGate("x>-3")->threshold == -3);
  CHECK(parseGate("max_concurrency==64")->op == GateOp::Eq);
  CHECK(!parseGate("score").ok());
  CHECK(!parseGate(">=3").ok());
  CHECK(!parseGate("score>=").ok());
  CHECK(!parseGate("score>=abc").ok());
  CHECK(!parseGate("score>=nan").ok());
  CHECK(!parseGate("score>=baseline*2").ok());
  CHECK(!parseGate("a>=b>=c").ok());
  CHECK(parseGate("score>=abc").error().field == "gate");
  CHECK(gatePasses(GateOp::Eq, 0.1 + 0.2, 0.3));
  CHECK(!gatePasses(GateOp::Gt, 70, 70));
  CHECK(gatePasses(GateOp::Ge, 70, 70));
}

TEST_CASE("objective parsing and known directions", "[frontier]") {
  auto o = parseObjectives("score:max, tpot_p99_ms:min,weights_gib");
  REQUIRE(o.ok());
  REQUIRE(o->size() == 3);
  CHECK((*o)[1].direction == Direction::Min);
  CHECK((*o)[2].direction == Direction::Min);
  CHECK(!parseObjectives("score:up").ok());
  CHECK(!parseObjectives("mystery").ok());
  CHECK(!parseObjectives("a:max,a:min").ok());
  CHECK(!parseObjectives("a:max,,b:min").ok());
  CHECK(knownDirection("throughput_tok_s") == Direction::Max);
  CHECK(knownDirection("recovery_pct") == Direction::Max);
  CHECK(knownDirection("queries_per_usd") == Direction::Max);
  CHECK(knownDirection("max_concurrency") == Direction::Max);
  CHECK(knownDirection("goodput_req_s") == Direction::Max);
  CHECK(knownDirection("ttft_p50_ms") == Direction::Min);
  CHECK(knownDirection("kv_gib") == Direction::Min);
  CHECK(knownDirection("cost_usd_per_query") == Direction::Min);
  CHECK(knownDirection("mean_kl") == Direction::Min);
  CHECK(knownDirection("flip_rate") == Direction::Min);
  CHECK(knownDirection("load_time_s") == Direction::Min);
  CHECK(!knownDirection("generated_len").has_value());
}

TEST_CASE("gates first: the seed's worked example", "[frontier]") {
  auto t = readCandidateCsv(kData + "/frontier/serving_format.csv");
  REQUIRE(t.ok());
  REQUIRE(t->candidates.size() == 9);
  CHECK(t->metricColumns == std::vector<std::string>{"score", "tpot_p99_ms", "max_concurrency",
                                                     "weights_gib", "queries_per_usd"});
  CHECK(t->candidates[1].metrics.at("score").lo == Approx(81.5));
  CHECK(t->candidates[1].schemeLinear == "w8a8-int8");
  FrontierOptions o;
  o.objectives = *parseObjectives("score:max,tpot_p99_ms:min,queries_per_usd:max");
  for (const char* g : {"score>=baseline-1.0", "tpot_p99_ms<70", "max_concurrency>=64"}) {
    o.gates.push_back(*parseGate(g));
  }
  o.baselineId = "bf16";
  auto r = computeFrontier(t->candidates, o);
  REQUIRE(r.ok());
  CHECK(r->frontier == std::vector<std::string>{"w8a8-int8", "w8a8-int8-copy", "w4a8"});
  // w8a16 (81.6 [80.8, 82.4]) crosses the score gate too: undecided, not in the band.
  CHECK(r->uncertain.empty());
  REQUIRE(r->dominated.size() == 1);
  CHECK(r->dominated[0].id == "w8a16-marlin");
  CHECK(r->dominated[0].by == std::vector<std::string>{"w8a8-int8", "w8a8-int8-copy"});
  CHECK(r->uncertainPointDominators.empty());
  REQUIRE(r->gatedOut.size() == 2);
  CHECK(r->gatedOut[0].id == "bf16");
  CHECK(r->gatedOut[0].gate == "max_concurrency>=64");
  CHECK(r->gatedOut[1].id == "w8a8-fp8-bad");
  CHECK(r->gatedOut[1].gate == "tpot_p99_ms<70");
  // w4a16 scores 80.9 [80.1, 81.7] against 82 - 1 = 81: the interval crosses the threshold,
  // so the gate is undecided, not failed.
  REQUIRE(r->undecided.size() == 2);
  CHECK(r->undecided[1].id == "w8a16");
  CHECK(r->undecided[0].id == "w4a16");
  CHECK(r->undecided[0].gate == "score>=baseline-1.0");
  CHECK(r->undecided[0].reason ==
        "score 80.9 [80.1, 81.7] crosses >= 81 (baseline 82 - 1): the interval cannot decide");
  // nvfp4 has no TPOT: not scored, which is not failing.
  REQUIRE(r->notScored.size() == 1);
  CHECK(r->notScored[0].id == "nvfp4");
  CHECK(r->notScored[0].gate == "missing metric tpot_p99_ms");

  // Without dominator lists the classification is the same and `by` stays empty.
  o.withDominators = false;
  auto lazy = computeFrontier(t->candidates, o);
  REQUIRE(lazy.ok());
  CHECK(lazy->frontier == r->frontier);
  CHECK(lazy->dominated[0].by.empty());

  const Json j = frontierToJson(*r);
  CHECK(j.at("frontier").size() == 3);
  CHECK(j.at("dominated")[0].at("by")[0] == "w8a8-int8");
  CHECK(j.at("not_scored")[0].at("gate") == "missing metric tpot_p99_ms");
  CHECK(j.at("undecided")[0].at("id") == "w4a16");
}

TEST_CASE("missing objective metrics are not scored, not dropped", "[frontier]") {
  std::vector<Candidate> cs = {cand("a", {{"score", 1}, {"tpot_ms", 2}}), cand("b", {{"score", 2}}),
                               cand("c", {{"score", 0.5}, {"tpot_ms", 3}})};
  FrontierOptions o;
  o.objectives = *parseObjectives("score:max,tpot_ms:min");
  auto r = computeFrontier(cs, o);
  REQUIRE(r.ok());
  CHECK(r->frontier == std::vector<std::string>{"a"});
  CHECK(r->gatedOut.empty());
  REQUIRE(r->notScored.size() == 1);
  CHECK(r->notScored[0].id == "b");
  CHECK(r->notScored[0].gate == "missing metric tpot_ms");
  REQUIRE(r->dominated.size() == 1);
  CHECK(r->dominated[0].by == std::vector<std::string>{"a"});
}

TEST_CASE("frontier input errors", "[frontier]") {
  std::vector<Candidate> cs = {cand("a", {{"score", 1}}), cand("b", {{"score", 2}})};
  FrontierOptions o;
  CHECK(!computeFrontier(cs, o).ok());  // no objectives
  o.objectives = *parseObjectives("score:max");
  o.gates.push_back(*parseGate("score>=baseline-0.5"));
  auto noBase = computeFrontier(cs, o);
  REQUIRE(!noBase.ok());
  CHECK(noBase.error().field == "baseline");
  o.baselineId = "zzz";
  CHECK(!computeFrontier(cs, o).ok());
  o.baselineId = "a";
  o.gates = {*parseGate("tpot_ms<=baseline")};
  auto lacks = computeFrontier(cs, o);
  REQUIRE(!lacks.ok());
  CHECK(lacks.error().field == "tpot_ms");
  std::vector<Candidate> dup = {cand("a", {{"score", 1}}), cand("a", {{"score", 2}})};
  o.gates.clear();
  CHECK(!computeFrontier(dup, o).ok());
}

TEST_CASE("candidate CSV errors name line, column and field", "[frontier]") {
  auto ragged = readCandidateCsv(kData + "/frontier/ragged.csv");
  REQUIRE(!ragged.ok());
  CHECK(ragged.error().position == "line 3, column 3");
  CHECK(ragged.error().field == "tpot_p99_ms");
  auto text = readCandidateCsv(kData + "/frontier/not_a_number.csv");
  REQUIRE(!text.ok());
  CHECK(text.error().position == "line 3, column 7");
  CHECK(text.error().field == "tpot_p99_ms");
  auto nan = readCandidateCsv(kData + "/frontier/nan.csv");
  REQUIRE(!nan.ok());
  CHECK(nan.error().position == "line 3, column 3");
  CHECK(nan.error().field == "score");
  CHECK(nan.error().message.find("not a finite number") != std::string::npos);
  auto iv = readCandidateCsv(kData + "/frontier/bad_interval.csv");
  REQUIRE(!iv.ok());
  CHECK(iv.error().field == "score_lo");
  CHECK(!parseCandidateCsv("name,score\na,1\n", "x.csv").ok());
  CHECK(!parseCandidateCsv("id,score,score\na,1,2\n", "x.csv").ok());
  CHECK(!parseCandidateCsv("id,score\na,1\na,2\n", "x.csv").ok());
  CHECK(!parseCandidateCsv("id,score\n\"a,1\n", "x.csv").ok());
  CHECK(!parseCandidateCsv("", "x.csv").ok());

  auto q = readCandidateCsv(kData + "/frontier/quoted.csv");
  REQUIRE(q.ok());
  REQUIRE(q->candidates.size() == 2);
  CHECK(q->candidates[0].notes == "fast, cheap");
  CHECK(q->candidates[1].notes == "says \"hi\"");
  CHECK(q->candidates[1].metrics.at("tpot_p99_ms").value == 50);
  CHECK(q->metricColumns == std::vector<std::string>{"score", "tpot_p99_ms"});
}

TEST_CASE("frontier scales: 2-D sweep on 200k points agrees with the skyline method",
          "[frontier]") {
  // Large-n cross-check between two independent code paths (brute force is too slow here).
  stats::Rng rng(2024);
  const std::size_t n = 200000;
  std::vector<double> pts2(2 * n), pts3(3 * n);
  for (auto& v : pts2) v = static_cast<double>(rng.below(1u << 20));
  for (std::size_t i = 0; i < n; ++i) {
    pts3[3 * i] = pts2[2 * i];
    pts3[3 * i + 1] = pts2[2 * i + 1];
    pts3[3 * i + 2] = 0;  // a constant third objective changes nothing
  }
  const auto f2 = dominatedFlags(pts2, pts2, 2);
  const auto f3 = dominatedFlags(pts3, pts3, 3);
  std::vector<double> pts4(4 * n);
  for (std::size_t i = 0; i < n; ++i) {
    pts4[4 * i] = pts2[2 * i];
    pts4[4 * i + 1] = pts2[2 * i + 1];
  }
  const auto f4 = dominatedFlags(pts4, pts4, 4);
  CHECK(f2 == f3);
  CHECK(f2 == f4);
  const auto onFront = std::count(f2.begin(), f2.end(), 0);
  CHECK(onFront >= 1);
  CHECK(onFront < 100);
}

TEST_CASE("frontier edge cases: nothing passes, one candidate, one objective", "[frontier]") {
  FrontierOptions o;
  o.objectives = *parseObjectives("score:max");
  auto empty = computeFrontier({}, o);
  REQUIRE(empty.ok());
  CHECK(empty->frontier.empty());
  CHECK(empty->gatedOut.empty());
  std::vector<Candidate> one = {cand("solo", {{"score", 0.5}})};
  auto single = computeFrontier(one, o);
  REQUIRE(single.ok());
  CHECK(single->frontier == std::vector<std::string>{"solo"});
  o.gates = {*parseGate("score>0.9")};
  auto none = computeFrontier(one, o);
  REQUIRE(none.ok());
  CHECK(none->frontier.empty());
  REQUIRE(none->gatedOut.size() == 1);
  CHECK(none->gatedOut[0].reason.find("0.5 fails > 0.9") != std::string::npos);
  // One objective: only the best value (and its ties) is on the frontier.
  std::vector<Candidate> three = {cand("a", {{"tpot_ms", 3}}), cand("b", {{"tpot_ms", 2}}),
                                  cand("c", {{"tpot_ms", 2}})};
  FrontierOptions m;
  m.objectives = *parseObjectives("tpot_ms:min");
  auto r = computeFrontier(three, m);
  REQUIRE(r.ok());
  CHECK(r->frontier == std::vector<std::string>{"b", "c"});
  REQUIRE(r->dominated.size() == 1);
  CHECK(r->dominated[0].by == std::vector<std::string>{"b", "c"});
}

TEST_CASE("dominator lists are capped: bounded memory on large inputs", "[frontier]") {
  // A chain: candidate i is dominated by every j < i (score higher, latency lower).
  std::vector<Candidate> cands;
  const int n = 40;
  for (int i = 0; i < n; ++i) {
    Candidate c;
    c.id = "c" + std::to_string(i);
    c.metrics["score"].value = 100.0 - i;
    c.metrics["tpot_ms"].value = 10.0 + i;
    cands.push_back(c);
  }
  FrontierOptions o;
  o.objectives = {{"score", Direction::Max}, {"tpot_ms", Direction::Min}};
  auto r = computeFrontier(cands, o);
  REQUIRE(r.ok());
  CHECK(o.maxDominatorsListed == 10);
  CHECK(r->frontier == std::vector<std::string>{"c0"});
  REQUIRE(r->dominated.size() == static_cast<std::size_t>(n - 1));
  // c5 has five dominators: listed in full; c39 has 39: the first ten, and marked cut.
  CHECK(r->dominated[4].id == "c5");
  CHECK(r->dominated[4].by.size() == 5);
  CHECK_FALSE(r->dominated[4].byTruncated);
  CHECK(r->dominated[9].by.size() == 10);  // c10: exactly ten, nothing cut
  CHECK_FALSE(r->dominated[9].byTruncated);
  CHECK(r->dominated.back().by.size() == 10);
  CHECK(r->dominated.back().by.front() == "c0");
  CHECK(r->dominated.back().by.back() == "c9");
  CHECK(r->dominated.back().byTruncated);
  const Json j = frontierToJson(*r);
  CHECK(j.at("dominated").back().at("by_truncated") == true);
  // 0: every dominator, on request.
  o.maxDominatorsListed = 0;
  auto all = computeFrontier(cands, o);
  REQUIRE(all.ok());
  CHECK(all->dominated.back().by.size() == static_cast<std::size_t>(n - 1));
  CHECK_FALSE(all->dominated.back().byTruncated);
}

TEST_CASE("candidate CSV must be UTF-8", "[frontier]") {
  auto bad = parseCandidateCsv("id,score\nok,1\nx\xFF,2\n", "c.csv");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().position == "line 3, column 2");
  CHECK(bad.error().message.find("invalid UTF-8 (byte 0xFF)") != std::string::npos);
  // Overlong form, surrogate, cut-off sequence: all refused.
  for (const std::string s :
       {"id,score\n\xC0\xAF,1\n", "id,score\n\xED\xA0\x80,1\n", "id,score\nab\xE2\x82"}) {
    CHECK_FALSE(parseCandidateCsv(s, "c.csv").ok());
  }
  auto good = parseCandidateCsv("\xEF\xBB\xBFid,score\n\xE2\x82\xAC\xF0\x9F\x98\x80,1\n", "c.csv");
  REQUIRE(good.ok());
  CHECK(good->candidates.at(0).id == "\xE2\x82\xAC\xF0\x9F\x98\x80");
}

TEST_CASE("gates have three outcomes: pass, fail, undecided", "[frontier][gates]") {
  // The case that read "fails >= 99": 96.75 [92.6, 100.9] cannot say.
  CHECK(gateOutcome(GateOp::Ge, 96.75, 92.6, 100.9, 99) == GateOutcome::Undecided);
  CHECK(gateOutcome(GateOp::Ge, 96.75, std::nullopt, std::nullopt, 99) == GateOutcome::Fail);
  CHECK(gateOutcome(GateOp::Ge, 99.5, 99.1, 99.9, 99) == GateOutcome::Pass);
  CHECK(gateOutcome(GateOp::Ge, 97.0, 96.0, 98.9, 99) == GateOutcome::Fail);
  // A minimum gate on latency: 65 ms [60, 72] against < 70 crosses; [60, 69] passes.
  CHECK(gateOutcome(GateOp::Lt, 65, 60, 72, 70) == GateOutcome::Undecided);
  CHECK(gateOutcome(GateOp::Lt, 65, 60, 69, 70) == GateOutcome::Pass);
  // The interval's end on the threshold decides by the comparison: >= 99 holds at 99.
  CHECK(gateOutcome(GateOp::Ge, 99.5, 99.0, 100, 99) == GateOutcome::Pass);
  CHECK(gateOutcome(GateOp::Gt, 99.5, 99.0, 100, 99) == GateOutcome::Undecided);
  // An interval that does not hold the value is widened to it; a non-finite end is ignored.
  CHECK(gateOutcome(GateOp::Ge, 98, 99.5, 100, 99) == GateOutcome::Undecided);
  CHECK(gateOutcome(GateOp::Ge, 98, std::nan(""), 100, 99) == GateOutcome::Fail);
  // == decides by the value alone.
  CHECK(gateOutcome(GateOp::Eq, 64, 60, 70, 64) == GateOutcome::Pass);
  CHECK(std::string(gateOutcomeName(GateOutcome::Undecided)) == "undecided");

  // In the frontier: the first clear failure wins over an undecided gate; undecided
  // candidates are listed apart and kept off the frontier; verdicts say which.
  std::vector<Candidate> cs = {cand("pass", {{"recovery_pct", 99.6}, {"tpot_ms", 30}}),
                               cand("cross", {{"recovery_pct", 96.75}, {"tpot_ms", 20}}),
                               cand("fail", {{"recovery_pct", 95}, {"tpot_ms", 10}}),
                               cand("unscored", {{"tpot_ms", 5}})};
  cs[0].metrics["recovery_pct"].lo = 99.2;
  cs[0].metrics["recovery_pct"].hi = 100.0;
  cs[1].metrics["recovery_pct"].lo = 92.6;
  cs[1].metrics["recovery_pct"].hi = 100.9;
  cs[2].metrics["recovery_pct"].lo = 94;
  cs[2].metrics["recovery_pct"].hi = 96;
  FrontierQuery q;
  q.objectives = *parseObjectives("recovery_pct:max,tpot_ms:min");
  q.gates = *parseGateTexts({"recovery_pct>=99"});
  auto a = analyseFrontier(cs, q, "gates.csv");
  REQUIRE(a.ok());
  CHECK(a->result.frontier == std::vector<std::string>{"pass"});
  CHECK(a->verdicts.at("cross").verdict == Verdict::Undecided);
  CHECK(a->verdicts.at("cross").detail.find("[92.6, 100.9] crosses >= 99") != std::string::npos);
  CHECK(a->verdicts.at("fail").verdict == Verdict::GatedOut);
  CHECK(a->verdicts.at("fail").detail.find("95 [94, 96] fails >= 99") != std::string::npos);
  CHECK(a->verdicts.at("unscored").verdict == Verdict::NotScored);
  CHECK(std::string(verdictName(Verdict::NotScored)) == "not scored");
}
