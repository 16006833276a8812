// Evidence taken back: model mismatches refused, runs moved and detached, candidates removed,
// renamed and hidden. Figures always follow the runs they came from.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <quantfront/core/import/importers.hpp>
#include <quantfront/core/session/attach_runs.hpp>
#include <quantfront/core/session/candidate_source.hpp>
#include <quantfront/core/session/evidence_edit.hpp>
#include <quantfront/core/session/session.hpp>

using namespace qf;

namespace {

const std::string kData = std::string(QF_TEST_DATA_DIR) + "/import";
const std::string kE2e = kData + "/e2e";

/// Imports `files` into `s`; returns their digests in order.
std::vector<std::string> importInto(Session& s, const std::vector<std::string>& files) {
  std::vector<std::string> digests;
  for (const auto& f : files) {
    auto rep = importFile(f);
    REQUIRE(rep.ok());
    digests.push_back(rep->sha256);
    mergeImport(s, *rep);
  }
  return digests;
}

const Candidate* find(const Session& s, const std::string& id) {
  for (const auto& c : s.candidates) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

/// How many figures of any candidate cite the run with this digest.
std::size_t citing(const Session& s, const std::string& digest) {
  std::size_t n = 0;
  for (const auto& c : s.candidates) {
    for (const auto& [name, m] : c.metrics) n += m.provenance.sha256 == digest ? 1 : 0;
  }
  return n;
}

std::string candidateOf(const Session& s, const std::string& digest) {
  for (const auto& r : s.importedRuns) {
    if (r.sha256 != digest) continue;
    const auto it = r.setup.find(kCandidateSetupKey);
    return it == r.setup.end() ? std::string() : it->second;
  }
  return "?";
}

const std::string kBf16 = "meta-llama/Llama-3.1-8B-Instruct";
const std::string kFp8 = "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8";

/// The three checkpoints of the e2e data attached one candidate per model, on an H100.
Session threeCheckpoints(std::vector<std::string>& digests) {
  Session s;
  std::vector<std::string> files;
  for (const char* tag : {"bf16", "fp8", "w4a16"}) {
    files.push_back(kE2e + "/vllm_serve_" + tag + ".json");
    files.push_back(kE2e + "/lm_eval_results_" + tag + ".json");
  }
  digests = importInto(s, files);
  AttachOptions opts;
  opts.runDigests = digests;
  opts.gpu = "h100-sxm";
  REQUIRE(attachRunsToCandidates(s, opts).ok());
  REQUIRE(s.candidates.size() == 3);
  return s;
}

}  // namespace

TEST_CASE("a run of another model is refused unless forced, and then moves",
          "[session][evidence]") {
  std::vector<std::string> d;
  Session s = threeCheckpoints(d);
  Candidate big;
  big.id = "llama-70b-bf16";
  big.model = "llama-3.1-70b";
  big.schemeLinear = "bf16";
  big.gpu = "h100-sxm";
  big.gpuCount = 4;
  s.candidates.push_back(big);
  const auto before = sessionToJson(s);

  // The bf16 serving run (Llama-3.1-8B) onto the 70B candidate.
  AttachOptions opts;
  opts.candidateId = big.id;
  opts.runDigests = {d[0]};
  const auto mm = findModelMismatches(s, opts);
  REQUIRE(mm.size() == 1);
  CHECK(mm[0].runModel == kBf16);
  CHECK(mm[0].candidateModel == "llama-3.1-70b");
  const std::string line = describeMismatch(mm[0]);
  CHECK(line.find(kBf16) != std::string::npos);
  CHECK(line.find("'llama-3.1-70b'") != std::string::npos);
  CHECK(line.find("vllm_serve_bf16.json") != std::string::npos);
  auto refused = attachRunsToCandidates(s, opts);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().field == "model");
  CHECK(refused.error().message.find(kBf16) != std::string::npos);
  CHECK(sessionToJson(s) == before);  // nothing changed

  // The same model under another name is no mismatch: the FP8 checkpoint is llama-3.1-8b.
  AttachOptions sameModel;
  sameModel.candidateId = kBf16;
  sameModel.runDigests = {d[2]};
  CHECK(findModelMismatches(s, sameModel).empty());
  // A file naming no model is compared by the --model given.
  Session g;
  const auto gd = importInto(g, {kData + "/gsm8k_eval.json"});
  g.candidates.push_back(big);
  AttachOptions byFlag;
  byFlag.candidateId = big.id;
  byFlag.runDigests = gd;
  CHECK(findModelMismatches(g, byFlag).empty());  // no model known: nothing to compare
  byFlag.model = "llama-3.1-8b";
  REQUIRE(findModelMismatches(g, byFlag).size() == 1);
  CHECK_FALSE(attachRunsToCandidates(g, byFlag).ok());

  // Forced: the figures move to the 70B candidate and leave the 8B one.
  const double tpot = find(s, kBf16)->metrics.at("tpot_p99_ms").value;
  const std::size_t citingBefore = citing(s, d[0]);
  REQUIRE(citingBefore > 5);
  opts.allowModelMismatch = true;
  auto forced = attachRunsToCandidates(s, opts);
  REQUIRE(forced.ok());
  CHECK(find(s, big.id)->metrics.at("tpot_p99_ms").value == tpot);
  CHECK(find(s, kBf16)->metrics.count("tpot_p99_ms") == 0);
  CHECK(find(s, kBf16)->metrics.count("gsm8k_exact_match") == 1);  // the eval file stays
  CHECK(citing(s, d[0]) == citingBefore);                          // moved, not copied
  CHECK(candidateOf(s, d[0]) == big.id);
  bool noted = false;
  for (const auto& n : forced->notes) noted |= n.find("removed from '" + kBf16 + "'") != n.npos;
  CHECK(noted);
}

TEST_CASE("detaching a run removes its figures and those derived from it", "[session][evidence]") {
  std::vector<std::string> d;
  Session s = threeCheckpoints(d);
  // d: serve bf16, eval bf16, serve fp8, eval fp8, serve w4a16, eval w4a16.
  const Candidate* fp8 = find(s, kFp8);
  REQUIRE(fp8->metrics.count("gsm8k_recovery_pct") == 1);
  REQUIRE(find(s, kBf16)->metrics.count("gsm8k_exact_match") == 1);

  // Unknown run: an error, nothing changed.
  const auto before = sessionToJson(s);
  auto bad = detachRuns(s, {"no-such-file.json"});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("no-such-file.json") != std::string::npos);
  CHECK(sessionToJson(s) == before);

  // The baseline's eval file: its score goes, and every recovery measured against it.
  auto rep = detachRuns(s, {d[1]});
  REQUIRE(rep.ok());
  CHECK(rep->runsDetached == 1);
  CHECK(citing(s, d[1]) == 0);
  CHECK(candidateOf(s, d[1]).empty());
  CHECK(s.importedRuns.size() == 6);  // the run stays in the session
  const Candidate* base = find(s, kBf16);
  CHECK(base->metrics.count("gsm8k_exact_match") == 0);
  CHECK(base->metrics.count("gsm8k_recovery_pct") == 0);
  CHECK(base->metrics.count("tpot_p99_ms") == 1);  // the serving run is still attached
  for (const std::string& id :
       {kFp8, std::string("neuralmagic/Meta-Llama-3.1-8B-Instruct-quantized.w4a16")}) {
    INFO(id);
    CHECK(find(s, id)->metrics.count("gsm8k_exact_match") == 1);
    CHECK(find(s, id)->metrics.count("gsm8k_recovery_pct") == 0);
  }
  // Per candidate: 1 score + its recovery on the baseline, 1 recovery on each other = 4 figures
  // at least (lm-eval files may carry more metrics of the task).
  CHECK(rep->figuresRemoved >= 4);
  REQUIRE(rep->candidates.size() == 3);
  CHECK(rep->candidates[0] == kBf16);

  // The detached session saves and loads back.
  CHECK(parseSessionText(sessionToText(s), "detached.json").ok());
}

TEST_CASE("detaching the lowest load of a sweep gives the candidate the next one",
          "[session][evidence]") {
  Session s;
  const auto d = importInto(s, {kData + "/sweep/vllm_serve_bf16_rate1.json",
                                kData + "/sweep/vllm_serve_bf16_rate2.json"});
  AttachOptions opts;
  opts.candidateId = "base";
  opts.runDigests = d;
  REQUIRE(attachRunsToCandidates(s, opts).ok());
  const double rate1 = s.importedRuns[0].metrics.at("tpot_p99_ms");
  const double rate2 = s.importedRuns[1].metrics.at("tpot_p99_ms");
  REQUIRE(rate1 != rate2);
  CHECK(find(s, "base")->metrics.at("tpot_p99_ms").value == rate1);
  auto rep = detachRuns(s, {d[0]});
  REQUIRE(rep.ok());
  CHECK(find(s, "base")->metrics.at("tpot_p99_ms").value == rate2);
  CHECK(citing(s, d[0]) == 0);
  CHECK(candidateOf(s, d[1]) == "base");
}

TEST_CASE("candidates removed, renamed and hidden", "[session][evidence]") {
  std::vector<std::string> d;
  Session s = threeCheckpoints(d);

  SECTION("rename: runs and recovery notes follow") {
    REQUIRE_FALSE(renameCandidate(s, kBf16, kFp8) == std::nullopt);  // taken
    REQUIRE_FALSE(renameCandidate(s, kBf16, "") == std::nullopt);
    REQUIRE_FALSE(renameCandidate(s, kBf16, " base") == std::nullopt);
    const auto missing = renameCandidate(s, "nope", "x");
    REQUIRE(missing.has_value());
    CHECK(missing->message.find("'nope'") != std::string::npos);
    REQUIRE(renameCandidate(s, kBf16, "llama-8b-bf16") == std::nullopt);
    CHECK(find(s, kBf16) == nullptr);
    REQUIRE(find(s, "llama-8b-bf16") != nullptr);
    CHECK(candidateOf(s, d[0]) == "llama-8b-bf16");
    CHECK(candidateOf(s, d[1]) == "llama-8b-bf16");
    const std::string& note = find(s, kFp8)->metrics.at("gsm8k_recovery_pct").provenance.note;
    CHECK(note.find("baseline 'llama-8b-bf16'") != std::string::npos);
    CHECK(note.find(kBf16 + "'") == std::string::npos);
  }
  SECTION("remove: its runs feed none, recovery against it goes") {
    REQUIRE(removeCandidate(s, kBf16) == std::nullopt);
    CHECK(s.candidates.size() == 2);
    CHECK(candidateOf(s, d[0]).empty());
    CHECK(candidateOf(s, d[1]).empty());
    CHECK(find(s, kFp8)->metrics.count("gsm8k_recovery_pct") == 0);
    CHECK(find(s, kFp8)->metrics.count("gsm8k_exact_match") == 1);
    CHECK(removeCandidate(s, kBf16).has_value());
  }
  SECTION("hide: kept and saved, left out of the frontier's candidates") {
    REQUIRE(setCandidateHidden(s, kFp8, true) == std::nullopt);
    REQUIRE(setCandidateHidden(s, kFp8, true) == std::nullopt);  // once in the list
    CHECK(s.view.hidden == std::vector<std::string>{kFp8});
    CHECK(setCandidateHidden(s, "nope", true).has_value());
    const auto visible = visibleCandidates(s.candidates, s.view.hidden);
    REQUIRE(visible.size() == 2);
    CHECK(visible[0].id == kBf16);
    const std::string text = sessionToText(s);
    auto back = parseSessionText(text, "hidden.json");
    REQUIRE(back.ok());
    CHECK(back->candidates.size() == 3);
    CHECK(isHidden(*back, kFp8));
    CHECK_FALSE(isHidden(*back, kBf16));
    auto src = parseCandidateSource(text, "hidden.json");
    REQUIRE(src.ok());
    CHECK(src->candidates.size() == 2);
    REQUIRE(src->hidden.size() == 1);
    CHECK(src->hidden[0] == kFp8);
    // What the plots and the report see: neither the candidate nor its two runs.
    const Session shown = withoutHidden(s);
    CHECK(shown.candidates.size() == 2);
    CHECK(shown.importedRuns.size() == 4);
    CHECK(shown.view.hidden.empty());
    CHECK(withoutHidden(shown).importedRuns.size() == 4);
    // Rename and remove keep the list in step.
    REQUIRE(renameCandidate(s, kFp8, "fp8") == std::nullopt);
    CHECK(s.view.hidden == std::vector<std::string>{"fp8"});
    REQUIRE(removeCandidate(s, "fp8") == std::nullopt);
    CHECK(s.view.hidden.empty());
    CHECK(sessionToText(s).find("\"hidden\"") == std::string::npos);
  }
}
