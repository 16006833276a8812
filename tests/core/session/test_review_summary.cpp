// The report's first page in words: a recommendation per regime among the schemes that fit,
// the frontier, what did not pass and why (not-scored grouped), and the provenance shares.
#include <catch2/catch.hpp>

#include <quantfront/core/session/review_summary.hpp>

using namespace qf;

namespace {

SchemeReport scheme(const std::string& id, double stepB1, double tokS, std::int64_t seqs,
                    bool fits = true) {
  SchemeReport s;
  s.assignment.id = id;
  s.points.push_back({1, stepB1, 1000 / stepB1, Bound::Memory});
  s.capacity.fits = fits;
  s.capacity.maxSeqs = seqs;
  s.capacity.tokensPerSAtCapacity = tokS;
  return s;
}

Candidate cand(const std::string& id, ProvenanceKind score, ProvenanceKind tpot) {
  Candidate c;
  c.id = id;
  c.metrics["score"].provenance.kind = score;
  c.metrics["tpot_ms"].provenance.kind = tpot;
  return c;
}

}  // namespace

TEST_CASE("the summary recommends per regime and says what did not pass", "[session][summary]") {
  EngineReport r;
  r.scenario.model.name = "Llama-3.1-8B";
  r.scenario.gpu.name = "H100 SXM 80GB";
  r.scenario.tp = 1;
  // w4a16 steps fastest at batch 1 (4 ms vs bf16's 10 ms: 2.5x); fp8 serves most at
  // capacity; nvfp4 does not fit and is never recommended however fast.
  r.schemes = {scheme("bf16", 10, 9000, 40), scheme("w8a8-fp8", 5.5, 21000, 90),
               scheme("w4a16-g128", 4, 15000, 110), scheme("nvfp4", 1, 99999, 999, false)};
  const std::vector<Candidate> cands = {
      cand("a", ProvenanceKind::Measured, ProvenanceKind::Modelled),
      cand("b", ProvenanceKind::Published, ProvenanceKind::Modelled),
      cand("c", ProvenanceKind::Measured, ProvenanceKind::Measured),
      cand("d", ProvenanceKind::Measured, ProvenanceKind::Modelled),
      cand("e", ProvenanceKind::Measured, ProvenanceKind::Modelled)};
  const std::vector<Objective> objectives = {{"score", Direction::Max},
                                             {"tpot_ms", Direction::Min}};
  const std::map<std::string, CandidateVerdict> verdicts = {
      {"a", {Verdict::Frontier, ""}},
      {"b", {Verdict::GatedOut, "score>=99: score 95 fails >= 99"}},
      {"c", {Verdict::Undecided, "score>=99: score 97 [93, 101] crosses >= 99"}},
      {"d", {Verdict::NotScored, "missing metric mmlu: no finite value for mmlu"}},
      {"e", {Verdict::NotScored, "missing metric mmlu: no finite value for mmlu"}}};
  const ReviewSummary s = summarizeReview(r, cands, objectives, verdicts);
  CHECK(s.scenario ==
        "Llama-3.1-8B on 1 x H100 SXM 80GB, schemes compared: bf16, w8a8-fp8, w4a16-g128, nvfp4");
  REQUIRE(s.regimes.size() == 3);
  CHECK(s.regimes[0] ==
        "Synchronous (one request at a time, batch 1): w4a16-g128, 4 ms per decode step against "
        "10 ms for bf16 (2.5x faster) [modelled].");
  CHECK(s.regimes[1] ==
        "Saturated (every KV slot busy): w8a8-fp8, 21000 tokens/s at 90 sequences; bf16 9000 at "
        "40; w4a16-g128 15000 at 110 [modelled].");
  CHECK(s.regimes[2].find("disagree") != std::string::npos);
  CHECK(s.doesNotFit.rfind("nvfp4:", 0) == 0);
  CHECK(s.frontier == "On the frontier (1 of 5): a.");
  REQUIRE(s.verdicts.size() == 3);
  CHECK(s.verdicts[0] == "Fails a gate: b (score>=99: score 95 fails >= 99)");
  CHECK(s.verdicts[1].rfind("Undecided, needs more samples: c", 0) == 0);
  CHECK(s.verdicts[2] == "Not scored (missing metric mmlu), 2 candidate(s): d, e");
  // 10 figures: score measured x4, published x1; tpot modelled x4, measured x1.
  CHECK(s.confidence ==
        "Of the 10 figures the objectives compare, 50% are measured, 40% modelled and 10% "
        "cited from publications.");

  // Nothing fits, nothing to compare.
  EngineReport none = r;
  for (auto& x : none.schemes) x.capacity.fits = false;
  const ReviewSummary empty = summarizeReview(none, {}, objectives, {});
  REQUIRE(empty.regimes.size() == 1);
  CHECK(empty.regimes[0].rfind("No scheme fits", 0) == 0);
  CHECK(empty.frontier.rfind("No candidates", 0) == 0);
  CHECK(empty.confidence.rfind("No objective figures", 0) == 0);
}
