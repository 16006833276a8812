// The benchmarks' harness: axes, repetitions, its command line and its one JSON document.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

struct Ran {
  int rc = 0;
  qf::bench::Json doc;
  std::string err;
};

/// A suite of one benchmark over axes a (1, 2, 3) and b ("x", "y") that records each point.
Ran runSuite(std::vector<std::string> args, std::vector<std::string>* seen = nullptr) {
  std::vector<std::string> storage{"bench"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : storage) argv.push_back(a.data());
  qf::bench::Suite suite(static_cast<int>(argv.size()), argv.data());
  suite.set("target_s", 1.5);
  int calls = 0;
  suite
      .add("sum",
           [&](qf::bench::State& st) {
             if (seen)
               seen->push_back(std::to_string(static_cast<int>(st.number("a"))) + st.text("b"));
             if (st.text("b") == "fail") return st.fail("asked to");
             st.exec([&] { ++calls; });
             st.set("calls_so_far", calls);
           })
      .about("a test")
      .axis("a", {1, 2, 3})
      .axis("b", {"x", "y"})
      .repetitions(4);
  std::ostringstream out, err;
  Ran r;
  r.rc = suite.run(out, err);
  r.err = err.str();
  if (!out.str().empty()) r.doc = qf::bench::Json::parse(out.str());
  return r;
}

}  // namespace

TEST_CASE("the harness runs every point of the axes, each its repetitions", "[bench]") {
  std::vector<std::string> seen;
  const Ran r = runSuite({}, &seen);
  REQUIRE(r.rc == 0);
  CHECK(seen == std::vector<std::string>{"1x", "1y", "2x", "2y", "3x", "3y"});
  const auto& b = r.doc["benchmarks"][0];
  CHECK(b["name"] == "sum");
  CHECK(b["repetitions"] == 4);
  REQUIRE(b["results"].size() == 6);
  // Four timed runs per point: the region ran 4, 8, ... 24 times in all.
  CHECK(b["results"][5]["calls_so_far"] == 24);
  CHECK(b["results"][2]["axes"]["a"] == 2);
  CHECK(b["results"][2]["axes"]["b"] == "x");
  const auto& wall = b["results"][0]["wall_s"];
  CHECK(wall["min"].get<double>() <= wall["median"].get<double>());
  CHECK(wall["median"].get<double>() <= wall["max"].get<double>());
  // The suite's own figures and the output writer's stamps.
  CHECK(r.doc["target_s"] == 1.5);
  CHECK(r.doc.contains("output_format_version"));
  CHECK(r.doc["producer"].contains("git_commit"));
  CHECK(r.doc["peak_rss_bytes"].get<double>() > 0);
}

TEST_CASE("the harness's command line sets repetitions and axis values", "[bench]") {
  std::vector<std::string> seen;
  const Ran r = runSuite({"--repetitions", "2", "--axis", "a=7,8", "--axis", "b=fail"}, &seen);
  // A point that fails says why, and the run exits 1.
  CHECK(r.rc == 1);
  CHECK(seen == std::vector<std::string>{"7fail", "8fail"});
  CHECK(r.doc["benchmarks"][0]["results"][0]["failed"] == "asked to");
  const Ran twice = runSuite({"--repetitions", "2", "--axis", "b=y"});
  REQUIRE(twice.rc == 0);
  CHECK(twice.doc["benchmarks"][0]["repetitions"] == 2);
  CHECK(twice.doc["producer"]["argv"] ==
        qf::bench::Json::array({"--repetitions", "2", "--axis", "b=y"}));
  CHECK(twice.doc["benchmarks"][0]["results"][2]["calls_so_far"] == 6);
  // --list runs nothing.
  std::vector<std::string> none;
  const Ran listed = runSuite({"--list"}, &none);
  CHECK(listed.rc == 0);
  CHECK(none.empty());
  CHECK(listed.doc["benchmarks"][0]["axes"]["b"] == qf::bench::Json::array({"x", "y"}));
}

TEST_CASE("the harness refuses a bad command line with one line and exit status 2", "[bench]") {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--repetitions", "0"},
                                                                {"--repetitions", "two"},
                                                                {"--axis", "a"},
                                                                {"--axis", "c=1"},
                                                                {"--fast"}}) {
    const Ran r = runSuite(args);
    INFO(args.front() << " " << r.err);
    CHECK(r.rc == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.doc.is_null());
  }
}
