// `qfront stats serving`: percentiles with bootstrap intervals and goodput from per-request
// arrays, against hand-computed figures from the fixture (TTFTs 0.1..1.0 s, 100 ms gaps).
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "support/temp_dir.hpp"

namespace {
std::string fixture(const std::string& name) {
  return std::string(QF_TEST_DATA_DIR) + "/import/" + name;
}
}  // namespace

TEST_CASE("qfront stats serving: percentiles, intervals, goodput", "[cli][stats]") {
  std::ostringstream out, err;
  const int rc = qf::cli::run({"stats", "serving", fixture("vllm_serve_detailed.json"),
                               "--slo-ttft-ms", "500", "--slo-tpot-ms", "150", "--seed", "7"},
                              out, err);
  REQUIRE(rc == 0);
  const auto j = nlohmann::json::parse(out.str());
  CHECK(j["seed"] == 7);
  REQUIRE(j["runs"].size() == 1);
  const auto& run = j["runs"][0];
  CHECK(run["requests"] == 10);
  // numpy linear percentile of 100..1000 ms: p50 550, p90 910, p99 991.
  CHECK(run["latency"]["ttft"]["p50"]["ms"].get<double>() == Approx(550));
  CHECK(run["latency"]["ttft"]["p90"]["ms"].get<double>() == Approx(910));
  CHECK(run["latency"]["ttft"]["p99"]["ms"].get<double>() == Approx(991));
  const auto ci = run["latency"]["ttft"]["p50"]["ci_ms"];
  CHECK(ci[0].get<double>() <= 550);
  CHECK(ci[1].get<double>() >= 550);
  CHECK(ci[0].get<double>() >= 100);
  CHECK(ci[1].get<double>() <= 1000);
  // Five requests have TTFT <= 500 ms and all meet TPOT 150 ms, over a 3.5 s run.
  CHECK(run["goodput_req_s"]["value"].get<double>() == Approx(5 / 3.5));
  // Same seed, same interval.
  std::ostringstream out2, err2;
  REQUIRE(qf::cli::run({"stats", "serving", fixture("vllm_serve_detailed.json"), "--slo-ttft-ms",
                        "500", "--slo-tpot-ms", "150", "--seed", "7"},
                       out2, err2) == 0);
  CHECK(out2.str() == out.str());
}

TEST_CASE("qfront stats serving: bad input exits 2", "[cli][stats]") {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"stats", "serving", fixture("vllm_serve_summary.json")},
        std::vector<std::string>{"stats", "serving", fixture("vllm_serve_detailed.json"),
                                 "--slo-ttft-ms", "-1"},
        std::vector<std::string>{"stats", "serving"}}) {
    std::ostringstream out, err;
    CHECK(qf::cli::run(args, out, err) == 2);
    const std::string e = err.str();
    CHECK(std::count(e.begin(), e.end(), '\n') == 1);
  }
}

TEST_CASE("qfront stats serving leaves failed and empty requests out", "[cli][stats]") {
  // Two requests with tokens (TTFT 200 and 400 ms) and three empty ones (output_len 0,
  // TTFT 0.0 as vLLM records it), over a 1 s run.
  std::ostringstream out, err;
  const int rc = qf::cli::run({"stats", "serving", fixture("vllm_serve_empty_requests.json"),
                               "--slo-ttft-ms", "0.001", "--resamples", "200"},
                              out, err);
  INFO(err.str());
  REQUIRE(rc == 0);
  const auto j = nlohmann::json::parse(out.str());
  const auto& run = j["runs"][0];
  CHECK(run["requests"] == 5);
  CHECK(run["requests_empty"] == 3);
  CHECK(run["requests_failed"] == 0);
  // No request can meet a 0.001 ms TTFT: goodput 0, interval [0, 0].
  CHECK(run["goodput_req_s"]["value"].get<double>() == 0.0);
  CHECK(run["goodput_req_s"]["ci"][1].get<double>() == 0.0);
  // p50 of {200, 400} ms, not of {0, 0, 0, 200, 400}.
  CHECK(run["latency"]["ttft"]["p50"]["ms"].get<double>() == Approx(300));
  CHECK(run["latency"]["ttft"]["p50"]["ci_ms"][0].get<double>() >= 200);
}

TEST_CASE("qfront stats serving caps --resamples", "[cli][stats]") {
  std::ostringstream out, err;
  CHECK(qf::cli::run(
            {"stats", "serving", fixture("vllm_serve_detailed.json"), "--resamples", "1000000"},
            out, err) == 2);
  CHECK(err.str().find("100000") != std::string::npos);
  CHECK(out.str().empty());
}

TEST_CASE("qfront stats serving refuses a duration no run can have", "[cli][stats]") {
  // The fixture's 10 requests over 3.5 s, with the duration set to 0, -5, 1e-300 s and to
  // 0.5 s (shorter than its slowest request): each gave a goodput (6.3e301 req/s) or silently
  // none; each exits 2 with one line naming the file and the duration.
  std::ifstream in(fixture("vllm_serve_detailed.json"));
  auto doc = nlohmann::json::parse(in);
  qf::testing::TempDir dir;
  for (const double d : {0.0, -5.0, 1e-300, 0.5}) {
    doc["duration"] = d;
    const std::string path = dir.file("run.json");
    std::ofstream(path) << doc.dump();
    std::ostringstream out, err;
    const int rc = qf::cli::run({"stats", "serving", path, "--slo-ttft-ms", "500"}, out, err);
    INFO("duration " << d << ": " << err.str());
    CHECK(rc == 2);
    const std::string e = err.str();
    CHECK(std::count(e.begin(), e.end(), '\n') == 1);
    CHECK(e.find("run.json") != std::string::npos);
    CHECK(e.find("duration") != std::string::npos);
    CHECK(out.str().empty());
  }
}
