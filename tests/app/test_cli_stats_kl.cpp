// qfront stats kl as a user runs it: two run-batch output files, the figures in JSON, the
// candidate's metrics written to a session, and bad input refused with one line.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"
#include "support/temp_dir.hpp"

using qf::testing::TempDir;

namespace {

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// A `vllm run-batch` output line whose one generated token has top-2 logprobs.
std::string line(const std::string& id, const std::string& token, double p, double q) {
  nlohmann::json top = nlohmann::json::array({{{"token", token}, {"logprob", std::log(p)}},
                                              {{"token", "other"}, {"logprob", std::log(q)}}});
  nlohmann::json content =
      nlohmann::json::array({{{"token", token}, {"logprob", std::log(p)}, {"top_logprobs", top}}});
  nlohmann::json body = {{"choices", {{{"index", 0}, {"logprobs", {{"content", content}}}}}}};
  return nlohmann::json{{"custom_id", id}, {"response", {{"status_code", 200}, {"body", body}}}}
             .dump() +
         "\n";
}

}  // namespace

TEST_CASE("qfront stats kl compares two runs and writes the candidate's metrics", "[cli][kl]") {
  TempDir dir;
  const std::string a = dir.file("bf16.jsonl"), b = dir.file("w4a16.jsonl");
  write(a, line("r1", "yes", 0.8, 0.1) + line("r2", "no", 0.6, 0.3));
  write(b, line("r2", "no", 0.5, 0.4) + line("r1", "yes", 0.8, 0.1));
  const std::string session = dir.file("s.json");
  const auto imp = qf::testing::runQfront(
      {"import", std::string(QF_TEST_DATA_DIR) + "/import/vllm_latency.json", "-o", session,
       "--candidate", "w4a16", "--model", "llama-3-8b", "--scheme", "w4a16-g128"});
  INFO(imp.err);
  REQUIRE(imp.rc == 0);
  const auto r =
      qf::testing::runQfront({"stats", "kl", a, b, "--session", session, "--candidate", "w4a16"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["prompts"] == 2);
  CHECK(j["positions"] == 2);
  // r1 is identical (KL 0); r2's two listed tokens carry 0.9 on both sides.
  const double kl2 = 0.6 * std::log(0.6 / 0.5) + 0.3 * std::log(0.3 / 0.4);
  CHECK(double(j["kl_per_token_nats"]["mean"]) == Approx(kl2 / 2));
  CHECK(double(j["token_flip_rate"]) == 0.0);
  std::ifstream in(session);
  std::stringstream text;
  text << in.rdbuf();
  const auto s = nlohmann::json::parse(text.str());
  bool found = false;
  for (const auto& c : s["candidates"]) {
    if (c["id"] != "w4a16") continue;
    found =
        c["metrics"].contains("kl_per_token_nats") && c["metrics"].contains("token_flip_rate_pct");
  }
  CHECK(found);
  // Bad input: one line, exit 2, the session untouched.
  for (const auto& bad : std::vector<std::vector<std::string>>{
           {"stats", "kl", a},
           {"stats", "kl", a, b, "--session", session},
           {"stats", "kl", a, b, "--session", session, "--candidate", "nosuch"},
           {"stats", "kl", a, dir.file("missing.jsonl")},
           {"stats", "kl", a, std::string(QF_TEST_DATA_DIR) + "/import/vllm_latency.json"}}) {
    const auto e = qf::testing::runQfront(bad);
    INFO(e.err);
    CHECK(e.rc == 2);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
  }
}

namespace {
/// A run-batch line without an id (records pair by order), with the given top-2 list.
std::string bareLine(const nlohmann::json& top, double lp) {
  nlohmann::json content =
      nlohmann::json::array({{{"token", "yes"}, {"logprob", lp}, {"top_logprobs", top}}});
  nlohmann::json body = {{"choices", {{{"index", 0}, {"logprobs", {{"content", content}}}}}}};
  return nlohmann::json{{"response", {{"status_code", 200}, {"body", body}}}}.dump() + "\n";
}
nlohmann::json top2(double p, double q) {
  return nlohmann::json::array(
      {{{"token", "yes"}, {"logprob", std::log(p)}}, {{"token", "no"}, {"logprob", std::log(q)}}});
}
}  // namespace

TEST_CASE(
    "qfront stats kl: a blank line does not shift records, malformed alternatives are "
    "refused, one prompt has no interval",
    "[cli][kl]") {
  TempDir dir;
  const std::string a = dir.file("a.jsonl"), b = dir.file("b.jsonl");
  // The same two records; b starts with a blank line. Paired by order they are identical.
  const std::string two =
      bareLine(top2(0.8, 0.1), std::log(0.8)) + bareLine(top2(0.3, 0.6), std::log(0.3));
  write(a, two);
  write(b, "\n" + two);
  auto r = qf::testing::runQfront({"stats", "kl", a, b});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["unmatched"] == 0);
  CHECK(j["prompts"] == 2);
  CHECK(double(j["kl_per_token_nats"]["mean"]) == Approx(0.0).margin(1e-12));

  // "top_logprobs": "lots", and alternatives whose probabilities sum past 1.
  write(b, bareLine("lots", std::log(0.8)));
  r = qf::testing::runQfront({"stats", "kl", a, b});
  CHECK(r.rc == 2);
  CHECK(r.err.find("field 'top_logprobs'") != std::string::npos);
  nlohmann::json five = nlohmann::json::array();
  for (const char* t : {"a", "b", "c", "d", "e"}) five.push_back({{"token", t}, {"logprob", 0.0}});
  write(b, bareLine(five, 0.0));
  r = qf::testing::runQfront({"stats", "kl", a, b});
  CHECK(r.rc == 2);
  CHECK(r.err.find("sum to 5") != std::string::npos);

  // One prompt: a mean, but no bootstrap interval (it would have zero width).
  write(a, bareLine(top2(0.8, 0.1), std::log(0.8)));
  write(b, bareLine(top2(0.7, 0.2), std::log(0.7)));
  r = qf::testing::runQfront({"stats", "kl", a, b});
  REQUIRE(r.rc == 0);
  j = nlohmann::json::parse(r.out);
  CHECK(j["kl_per_token_nats"]["mean"].get<double>() > 0);
  CHECK(j["kl_per_token_nats"]["ci95"].is_null());
}
