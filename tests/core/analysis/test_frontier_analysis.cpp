// analyseFrontier: what qfront frontier and the Pareto view share.
#include <catch2/catch.hpp>

#include <quantfront/core/analysis/frontier_analysis.hpp>

#include <random>

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

TEST_CASE("gate texts split at commas, errors name the source and position", "[analysis]") {
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
  CHECK(a->warnings[1] ==
        "objective 'score' mixes provenance kinds (measured, published) "
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

TEST_CASE("relative objectives compare only candidates of one model", "[analysis][groups]") {
  // Each model's quantized candidate against its own bf16: the 8B int8 recovers more of *its*
  // baseline than the 70B candidates do of theirs, and is faster.
  auto cand = [](const std::string& id, const std::string& model, double recovery, double ms) {
    Candidate c;
    c.id = id;
    c.model = model;
    c.metrics["open_llm_v2_recovery_pct"].value = recovery;
    c.metrics["step_ms_b1"].value = ms;
    return c;
  };
  const std::vector<Candidate> cands = {
      cand("8b-bf16", "llama-3.1-8b", 100, 7.0), cand("8b-int8", "llama-3.1-8b", 101.5, 3.7),
      cand("70b-bf16", "llama-3.1-70b", 100, 20.7), cand("70b-w4", "llama-3.1-70b", 97.4, 5.4),
      cand("70b-fp8", "llama-3.1-70b", 100, 10.4)};
  FrontierQuery q;
  auto grouped = analyseFrontier(cands, q, "s.json");
  REQUIRE(grouped.ok());
  REQUIRE(grouped->groups.size() == 2);
  CHECK(grouped->groups[0].model == "llama-3.1-8b");
  CHECK(grouped->groups[0].ids == std::vector<std::string>{"8b-bf16", "8b-int8"});
  CHECK(grouped->groups[0].result.frontier == std::vector<std::string>{"8b-int8"});
  CHECK(grouped->groups[1].model == "llama-3.1-70b");
  CHECK(grouped->groups[1].result.frontier == std::vector<std::string>{"70b-w4", "70b-fp8"});
  // The flat lists merge the groups in input order.
  CHECK(grouped->result.frontier == std::vector<std::string>{"8b-int8", "70b-w4", "70b-fp8"});
  CHECK(grouped->verdicts.at("70b-fp8").verdict == Verdict::Frontier);
  CHECK(grouped->verdicts.at("70b-bf16").verdict == Verdict::Dominated);
  CHECK(grouped->verdicts.at("70b-bf16").detail == "by 70b-fp8");
  for (const auto& w : grouped->warnings) CHECK(w.find("relative") == std::string::npos);

  // Without grouping the 8B candidate dominates every 70B one, and a warning says why that is
  // not a fair comparison.
  q.groupBy = GroupBy::None;
  auto flat = analyseFrontier(cands, q, "s.json");
  REQUIRE(flat.ok());
  REQUIRE(flat->groups.size() == 1);
  CHECK(flat->result.frontier == std::vector<std::string>{"8b-int8"});
  CHECK(std::any_of(flat->warnings.begin(), flat->warnings.end(), [](const std::string& w) {
    return w.find("'open_llm_v2_recovery_pct' is relative") != std::string::npos &&
           w.find("2 models") != std::string::npos;
  }));

  // Candidates naming no model join the default model's group.
  std::vector<Candidate> mixed = cands;
  mixed.push_back(cand("anon", "", 99, 2.0));
  FrontierQuery d;
  d.defaultModel = "llama-3.1-70b";
  auto withDefault = analyseFrontier(mixed, d, "s.json");
  REQUIRE(withDefault.ok());
  REQUIRE(withDefault->groups.size() == 2);
  CHECK(withDefault->groups[1].ids.back() == "anon");

  // A duplicate id across groups is still an error.
  std::vector<Candidate> dup = cands;
  dup.push_back(cand("8b-bf16", "llama-3.1-70b", 100, 1));
  CHECK_FALSE(analyseFrontier(dup, FrontierQuery{}, "s.json").ok());

  // A baseline-relative gate takes the named baseline from any group, with a warning for the
  // groups of another model.
  FrontierQuery g;
  g.gates = *parseGateTexts({"open_llm_v2_recovery_pct>=baseline-1"});
  g.baselineId = "8b-bf16";
  auto gated = analyseFrontier(cands, g, "s.json");
  REQUIRE(gated.ok());
  CHECK(gated->verdicts.at("70b-w4").verdict == Verdict::GatedOut);
  CHECK(std::any_of(gated->warnings.begin(), gated->warnings.end(), [](const std::string& w) {
    return w.find("another model (llama-3.1-8b)") != std::string::npos;
  }));
  CHECK(parseGroupBy("model") == GroupBy::Model);
  CHECK_FALSE(parseGroupBy("models").has_value());
}

TEST_CASE("gateProblem says why a gate cannot be applied, as analyseFrontier does", "[analysis]") {
  const std::vector<Candidate> cands = {make("a", 0.9, 10, ProvenanceKind::Measured),
                                        make("b", 0.8, 20, ProvenanceKind::Measured)};
  const auto gate = [](const std::string& text) { return *parseGate(text); };
  CHECK_FALSE(gateProblem(gate("score>=0.85"), cands, std::nullopt));
  CHECK_FALSE(gateProblem(gate("score>=baseline-0.05"), cands, std::string("a")));
  // A metric of the dictionary that no candidate carries gates them out; a typo is refused.
  CHECK_FALSE(gateProblem(gate("tpot_p99_ms<70"), cands, std::nullopt));
  const auto typo = gateProblem(gate("scroe>=0.85"), cands, std::nullopt);
  REQUIRE(typo);
  CHECK(typo->message.find("'scroe', which no candidate carries") != std::string::npos);
  const auto noBase = gateProblem(gate("score>=baseline-0.05"), cands, std::nullopt);
  REQUIRE(noBase);
  CHECK(noBase->message.find("relative to the baseline") != std::string::npos);
  const auto unknownBase = gateProblem(gate("score>=baseline"), cands, std::string("z"));
  REQUIRE(unknownBase);
  CHECK(unknownBase->message == "no candidate has id 'z'");
  auto lacking = cands;
  lacking[0].metrics.erase("tpot_ms");
  const auto noValue = gateProblem(gate("tpot_ms<=baseline+1"), lacking, std::string("a"));
  REQUIRE(noValue);
  CHECK(noValue->message.find("the baseline has no value") != std::string::npos);

  // analyseFrontier refuses the same gate with the same message, naming the source.
  FrontierQuery q;
  q.gates = {gate("scroe>=0.85")};
  const auto refused = analyseFrontier(cands, q, "cands.csv");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message == typo->message);
  CHECK(refused.error().file == "cands.csv");
}

TEST_CASE("the uncertain band lies between the optimistic and the pessimistic staircase",
          "[analysis][band]") {
  auto cand = [](const std::string& id, std::array<double, 3> score, std::array<double, 3> ms) {
    Candidate c;
    c.id = id;
    c.model = "m";
    for (const auto& [name, v] : {std::pair{"score", score}, std::pair{"tpot_ms", ms}}) {
      MetricValue& m = c.metrics[name];
      m.value = v[0];
      m.lo = v[1];
      m.hi = v[2];
    }
    return c;
  };
  // a and b: the frontier; c: dominated by a on estimates but not clearly (uncertain); d:
  // clearly dominated by a.
  const std::vector<Candidate> cands = {
      cand("a", {0.80, 0.78, 0.82}, {50, 48, 52}), cand("b", {0.70, 0.68, 0.72}, {30, 29, 31}),
      cand("c", {0.79, 0.75, 0.83}, {51, 47, 53}), cand("d", {0.60, 0.59, 0.61}, {60, 59, 61})};
  FrontierQuery q;
  q.objectives = {{"score", Direction::Max}, {"tpot_ms", Direction::Min}};
  const auto a = analyseFrontier(cands, q, "");
  REQUIRE(a.ok());
  REQUIRE(a->result.frontier == std::vector<std::string>{"a", "b"});
  REQUIRE(a->result.uncertain == std::vector<std::string>{"c"});
  const auto bands = uncertainBands(cands, *a);
  REQUIRE(bands.size() == 1);
  CHECK(bands[0].model == "m");
  using P = std::vector<std::array<double, 2>>;
  // Optimistic ends: b (0.72, 29) and c (0.83, 47), which beats a's (0.82, 48). The ends run
  // out to the worst pessimistic score (b's 0.68) and time (c's 53).
  CHECK(bands[0].optimistic == P{{0.68, 29}, {0.72, 29}, {0.72, 47}, {0.83, 47}, {0.83, 53}});
  // Pessimistic ends: b (0.68, 31) and a (0.78, 52); c's (0.75, 53) is under a's.
  CHECK(bands[0].pessimistic == P{{0.68, 31}, {0.68, 52}, {0.78, 52}, {0.78, 53}});
  const P& poly = bands[0].polygon;
  REQUIRE(poly.size() == 10);
  CHECK(poly.front() == poly.back());
  CHECK(P(poly.begin(), poly.begin() + 5) == bands[0].optimistic);
  CHECK(P(poly.begin() + 5, poly.end() - 1) ==
        P(bands[0].pessimistic.rbegin(), bands[0].pessimistic.rend()));

  // Without intervals nothing is uncertain and there is no band; nor with three objectives.
  auto bare = cands;
  for (auto& c : bare) {
    for (auto& [name, m] : c.metrics) m.lo = m.hi = std::nullopt;
  }
  const auto plain = analyseFrontier(bare, q, "");
  REQUIRE(plain.ok());
  CHECK(uncertainBands(bare, *plain).empty());
  auto three = q;
  three.objectives.push_back({"label_x", Direction::Max});
  auto withLabel = cands;
  for (auto& c : withLabel) c.metrics["label_x"].value = 1;
  const auto a3 = analyseFrontier(withLabel, three, "");
  REQUIRE(a3.ok());
  CHECK(uncertainBands(withLabel, *a3).empty());

  // One band per model group that has intervals.
  auto twoModels = cands;
  for (auto c : bare) {
    c.id += "-other";
    c.model = "other";
    twoModels.push_back(c);
  }
  const auto grouped = analyseFrontier(twoModels, q, "");
  REQUIRE(grouped.ok());
  REQUIRE(grouped->groups.size() == 2);
  const auto perGroup = uncertainBands(twoModels, *grouped);
  REQUIRE(perGroup.size() == 1);
  CHECK(perGroup[0].model == "m");
  CHECK(perGroup[0].polygon == poly);
}

TEST_CASE("dominator lists read on demand equal the eagerly listed ones", "[analysis][lazy]") {
  // Two models (two groups), intervals on every third candidate, a baseline-relative gate
  // that fails some and leaves some undecided, and a candidate without a TPOT.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Candidate> cands;
  for (int i = 0; i < 900; ++i) {
    Candidate c;
    c.id = "c" + std::to_string(i);
    c.model = i % 2 == 0 ? "model-a" : "model-b";
    MetricValue& score = c.metrics["score"];
    score.value = 60 + 30 * u(rng);
    MetricValue& tpot = c.metrics["tpot_ms"];
    tpot.value = 5 + 40 * u(rng) + (score.value - 60) * 0.5;
    if (i % 3 == 0) {
      score.lo = score.value - 1.5;
      score.hi = score.value + 1.5;
      tpot.lo = tpot.value * 0.95;
      tpot.hi = tpot.value * 1.05;
    }
    if (i == 17) c.metrics.erase("tpot_ms");
    if (i == 4) score.value = 85;  // the baseline: the gate's threshold is 65
    cands.push_back(std::move(c));
  }
  FrontierQuery q;
  q.objectives = {{"score", Direction::Max}, {"tpot_ms", Direction::Min}};
  q.gates = *parseGateTexts({"score>=baseline-20"});
  q.baselineId = "c4";
  auto eager = analyseFrontier(cands, q, "");
  REQUIRE(eager.ok());
  q.withDominators = false;
  auto lazy = analyseFrontier(cands, q, "");
  REQUIRE(lazy.ok());
  // The lazy analysis classifies the same way but words no dominated candidate's list.
  REQUIRE(lazy->result.dominated.size() == eager->result.dominated.size());
  REQUIRE(eager->result.dominated.size() > 300);
  REQUIRE(eager->result.uncertain.size() > 5);
  REQUIRE_FALSE(eager->result.gatedOut.empty());
  REQUIRE_FALSE(eager->result.undecided.empty());
  CHECK(lazy->verdicts.at(eager->result.dominated.front().id).detail.empty());

  DominatorLookup lookup(cands, *lazy);
  int dominated = 0, uncertain = 0, truncated = 0, others = 0;
  for (const auto& c : cands) {
    const CandidateVerdict& v = eager->verdicts.at(c.id);
    const auto detail = lookup.detail(c.id);
    if (v.verdict == Verdict::Dominated || v.verdict == Verdict::Uncertain) {
      REQUIRE(detail.has_value());
      CHECK(*detail == v.detail);
      (v.verdict == Verdict::Dominated ? dominated : uncertain) += 1;
    } else {
      CHECK_FALSE(detail.has_value());
      ++others;
    }
  }
  for (const auto& d : eager->result.dominated) truncated += d.byTruncated ? 1 : 0;
  CHECK(dominated == static_cast<int>(eager->result.dominated.size()));
  CHECK(uncertain == static_cast<int>(eager->result.uncertain.size()));
  CHECK(truncated > 0);  // lists cut at ten are cut at the same ten
  CHECK(others > 0);
  CHECK_FALSE(lookup.detail("no-such-id").has_value());
}
