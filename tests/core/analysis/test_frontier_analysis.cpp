// analyseFrontier: what qfront frontier and the Pareto view share.
#include <catch2/catch.hpp>

#include <quantfront/core/analysis/frontier_analysis.hpp>

using namespace qf;

namespace {
Candidate make(const std::string& id, double score, double ms, ProvenanceKind kind) {
  Candidate c;
  c.id = id;
  c.metrics["score"].value = score;
  c.metrics["score"].provenance.kind = kind;
  c.metrics["tpot_ms"].value = ms;
  c.metrics["tpot_ms"].provenance.kind = ProvenanceKind::Measured;
  c.metrics["label_x"].value = 1;
  return c;
}
}  // namespace

TEST_CASE("default objectives take known directions and name the rest", "[analysis]") {
  const auto choice = defaultObjectives({"score", "label_x", "tpot_ms"});
  REQUIRE(choice.objectives.size() == 2);
  CHECK(choice.objectives[0].metric == "score");
  CHECK(choice.objectives[0].direction == Direction::Max);
  CHECK(choice.objectives[1].metric == "tpot_ms");
  CHECK(choice.objectives[1].direction == Direction::Min);
  REQUIRE(choice.warnings.size() == 1);
  CHECK(choice.warnings[0].find("'label_x' has no known direction") != std::string::npos);
}

TEST_CASE("gate texts split at commas; errors name the source and position", "[analysis]") {
  auto gates = parseGateTexts({"score>=0.5, tpot_ms<70", "score>=baseline-1"});
  REQUIRE(gates.ok());
  REQUIRE(gates->size() == 3);
  CHECK((*gates)[1].metric == "tpot_ms");
  CHECK((*gates)[2].relativeToBaseline);
  auto bad = parseGateTexts({"score>>1"}, "s.json", "/view/gates");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().file == "s.json");
  CHECK(bad.error().position == "/view/gates");
}

TEST_CASE("analyseFrontier: verdicts, provenance warnings and the caller's source", "[analysis]") {
  const std::vector<Candidate> cands = {make("a", 0.9, 10, ProvenanceKind::Measured),
                                        make("b", 0.8, 20, ProvenanceKind::Published),
                                        make("c", 0.95, 30, ProvenanceKind::Measured)};
  FrontierQuery q;
  q.gates = *parseGateTexts({"score>=0.85"});
  auto a = analyseFrontier(cands, q, "cands.csv");
  REQUIRE(a.ok());
  // score (max) and tpot_ms (min) are the defaults; label_x is left out with a warning.
  REQUIRE(a->options.objectives.size() == 2);
  REQUIRE(a->warnings.size() == 2);
  CHECK(a->warnings[1] == "objective 'score' mixes provenance kinds (measured, published) "
                         "across candidates");
  CHECK(a->verdicts.at("a").verdict == Verdict::Frontier);
  CHECK(a->verdicts.at("c").verdict == Verdict::Frontier);
  CHECK(a->verdicts.at("b").verdict == Verdict::GatedOut);
  CHECK(a->verdicts.at("b").detail.rfind("score>=0.85: ", 0) == 0);
  CHECK(std::string(verdictName(Verdict::GatedOut)) == "gated out");

  // a dominates d on both objectives: d is dominated "by a".
  auto more = cands;
  more.push_back(make("d", 0.88, 12, ProvenanceKind::Measured));
  q.gates.clear();
  q.objectives = {{"score", Direction::Max}, {"tpot_ms", Direction::Min}};
  auto b = analyseFrontier(more, q, "cands.csv");
  REQUIRE(b.ok());
  CHECK(b->verdicts.at("d").verdict == Verdict::Dominated);
  CHECK(b->verdicts.at("d").detail == "by a");

  // A baseline gate without a baseline: the error names where the candidates came from.
  q.gates = *parseGateTexts({"score>=baseline-1"});
  auto bad = analyseFrontier(cands, q, "cands.csv");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().file == "cands.csv");
}
