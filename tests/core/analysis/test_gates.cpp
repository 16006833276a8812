// Gate and objective parsing, gate outcomes (core/src/analysis/gates.cpp).
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
