// Candidates read from CSV (core/src/analysis/candidate_csv.cpp).
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

}  // namespace

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
