// The frontier over candidates (core/src/analysis/frontier.cpp): gates first, objectives,
// input errors, edge cases, capped dominator lists.
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

Candidate cand(const std::string& id, std::vector<std::pair<std::string, double>> metrics) {
  Candidate c;
  c.id = id;
  for (auto& [k, v] : metrics) c.metrics[k].value = v;
  return c;
}

}  // namespace

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
