// Per-token KL and flip rates between two runs against hand-computed cases, and the logprob
// readers' formats and refusals.
#include <catch2/catch.hpp>

#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>

#include <quantfront/core/analysis/divergence.hpp>

using namespace qf;
using namespace qf::stats;
using Catch::Detail::Approx;

namespace {

/// A number as JSON text with every digit (std::to_string keeps six decimals only).
std::string num(double v) {
  std::ostringstream o;
  o << std::setprecision(17) << v;
  return o.str();
}

TokenLogprobs tok(std::string t, double p, std::vector<std::pair<std::string, double>> top) {
  TokenLogprobs out;
  out.token = std::move(t);
  out.logprob = std::log(p);
  for (auto& [k, v] : top) out.top.emplace_back(k, std::log(v));
  return out;
}

/// One chat-completions response line with per-token top-2 logprobs.
std::string chatLine(const std::string& id, const std::vector<std::pair<std::string, double>>& toks,
                     double second) {
  std::string content;
  for (const auto& [t, p] : toks) {
    if (!content.empty()) content += ",";
    content += R"({"token":")" + t + R"(","logprob":)" + num(std::log(p)) +
               R"(,"top_logprobs":[{"token":")" + t + R"(","logprob":)" + num(std::log(p)) +
               R"(},{"token":"zz","logprob":)" + num(std::log(second)) + "}]}";
  }
  return R"({"custom_id":")" + id +
         R"(","response":{"status_code":200,"body":{"choices":[{"index":0,"logprobs":{"content":[)" +
         content + "]}}]}}}\n";
}

}  // namespace

TEST_CASE("token KL over the top-k lists, by hand", "[stats][kl]") {
  const auto a = tok("a", 0.6, {{"a", 0.6}, {"b", 0.3}});
  const auto b = tok("a", 0.5, {{"a", 0.5}, {"b", 0.4}});
  // Listed mass 0.9 on both sides: the rest buckets are equal and add nothing.
  CHECK(tokenKl(a, b) == Approx(0.6 * std::log(0.6 / 0.5) + 0.3 * std::log(0.3 / 0.4)));
  CHECK(tokenKl(a, a) == Approx(0.0).margin(1e-15));
  // B does not list "b": it gets B's smallest listed probability (0.2); B's rest is 0.3.
  const auto c = tok("a", 0.5, {{"a", 0.5}, {"c", 0.2}});
  CHECK(tokenKl(a, c) ==
        Approx(0.6 * std::log(0.6 / 0.5) + 0.3 * std::log(0.3 / 0.2) + 0.1 * std::log(0.1 / 0.3)));
}

TEST_CASE("two runs' generations compared until they diverge", "[stats][kl]") {
  // Prompt p1: identical. Prompt p2: the second token differs, so its third is left out.
  const std::string a = chatLine("p1", {{"x", 0.9}, {"y", 0.8}}, 0.05) +
                        chatLine("p2", {{"x", 0.7}, {"y", 0.6}, {"w", 0.5}}, 0.2);
  const std::string b = chatLine("p2", {{"x", 0.6}, {"q", 0.5}, {"w", 0.5}}, 0.3) +
                        chatLine("p1", {{"x", 0.9}, {"y", 0.8}}, 0.05);
  auto ra = parseLogprobSamples(a, "a.jsonl");
  auto rb = parseLogprobSamples(b, "b.jsonl");
  REQUIRE(ra.ok());
  REQUIRE(rb.ok());
  BootstrapOptions o;
  o.resamples = 200;
  auto d = compareDivergence(*ra, "a.jsonl", *rb, "b.jsonl", o);
  REQUIRE(d.ok());
  CHECK(d->prompts == 2);
  CHECK(d->positions == 4);  // p1: 2, p2: 2 (the divergence position counts, the next does not)
  CHECK(d->positionsAfter == 1);
  CHECK(d->diverged == 1);
  const double k1 =
      tokenKl(tok("x", 0.7, {{"x", 0.7}, {"zz", 0.2}}), tok("x", 0.6, {{"x", 0.6}, {"zz", 0.3}}));
  const double k2 =
      tokenKl(tok("y", 0.6, {{"y", 0.6}, {"zz", 0.2}}), tok("q", 0.5, {{"q", 0.5}, {"zz", 0.3}}));
  CHECK(d->meanTokenKl == Approx((k1 + k2) / 4));
  CHECK(d->tokenFlipRate == Approx(0.25));  // one of four positions' top token differs
  REQUIRE(d->meanTokenKlCi);
  CHECK(d->meanTokenKlCi->lo <= d->meanTokenKl);
  CHECK(d->meanTokenKlCi->hi >= d->meanTokenKl);
  CHECK(d->unmatched == 0);
}

TEST_CASE("a run that stops early: its missing positions are counted as left out", "[stats][kl]") {
  const std::string a = chatLine("p", {{"x", 0.9}, {"y", 0.8}, {"z", 0.7}}, 0.05);
  const std::string b = chatLine("p", {{"x", 0.9}, {"y", 0.8}}, 0.05);
  auto ra = parseLogprobSamples(a, "a");
  auto rb = parseLogprobSamples(b, "b");
  REQUIRE(ra.ok());
  REQUIRE(rb.ok());
  auto d = compareDivergence(*ra, "a", *rb, "b");
  REQUIRE(d.ok());
  CHECK(d->positions == 2);
  CHECK(d->positionsAfter == 1);
  CHECK(d->diverged == 1);
  // Top-k entries of one text add up (byte-fallback pieces decode alike).
  TokenLogprobs t1 = tok("a", 0.4, {{"a", 0.4}, {"\xef\xbf\xbd", 0.2}, {"\xef\xbf\xbd", 0.2}});
  TokenLogprobs t2 = tok("a", 0.4, {{"a", 0.4}, {"\xef\xbf\xbd", 0.4}});
  CHECK(tokenKl(t1, t2) == Approx(0.0).margin(1e-12));
}

TEST_CASE("multiple-choice samples: KL over the choices and the answer flip rate", "[stats][kl]") {
  auto line = [](int doc, double p0, double p1, double p2) {
    return R"({"doc_id": )" + std::to_string(doc) + R"(, "arguments": {}, "resps": [[[")" +
           num(std::log(p0)) + R"(", "False"]], [[")" + num(std::log(p1)) + R"(", "False"]], [[)" +
           num(std::log(p2)) + "," + "false]]]}\n";
  };
  auto a = parseLogprobSamples(line(0, 0.7, 0.2, 0.1) + line(1, 0.5, 0.4, 0.1), "a");
  auto b = parseLogprobSamples(line(0, 0.5, 0.3, 0.2) + line(1, 0.3, 0.6, 0.1), "b");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  auto d = compareDivergence(*a, "a", *b, "b");
  REQUIRE(d.ok());
  CHECK(d->choiceQuestions == 2);
  const double kl0 = 0.7 * std::log(0.7 / 0.5) + 0.2 * std::log(0.2 / 0.3) + 0.1 * std::log(0.5);
  const double kl1 = 0.5 * std::log(0.5 / 0.3) + 0.4 * std::log(0.4 / 0.6);
  CHECK(d->meanChoiceKl == Approx((kl0 + kl1) / 2).epsilon(1e-5));
  CHECK(d->answerFlipRate == Approx(0.5));  // question 1's most likely choice moved
  CHECK(d->positions == 0);
}

TEST_CASE("logprob readers refuse what they cannot compare, naming line and field", "[stats][kl]") {
  auto noLogprobs = parseLogprobSamples(R"({"choices":[{"text":"hi"}]})", "x.jsonl");
  REQUIRE_FALSE(noLogprobs.ok());
  CHECK(noLogprobs.error().file == "x.jsonl line 1");
  CHECK(noLogprobs.error().field == "logprobs");
  auto generate = parseLogprobSamples(R"({"doc_id": 3, "resps": [["The answer is 5"]]})", "s");
  REQUIRE_FALSE(generate.ok());
  CHECK(generate.error().message.find("generate_until") != std::string::npos);
  auto positive = parseLogprobSamples(
      R"({"choices":[{"logprobs":{"tokens":["a"],"token_logprobs":[0.5]}}]})", "p");
  REQUIRE_FALSE(positive.ok());
  CHECK(positive.error().field == "token_logprobs");
  const std::string one = chatLine("k", {{"x", 0.5}}, 0.1);
  auto dup = parseLogprobSamples(one + one, "d");
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().file == "d line 2");
  auto notJson = parseLogprobSamples("{\n", "n");
  REQUIRE_FALSE(notJson.ok());
  // No common key.
  auto a = parseLogprobSamples(chatLine("k1", {{"x", 0.5}}, 0.1), "a");
  auto b = parseLogprobSamples(chatLine("k2", {{"x", 0.5}}, 0.1), "b");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK_FALSE(compareDivergence(*a, "a", *b, "b").ok());
}
