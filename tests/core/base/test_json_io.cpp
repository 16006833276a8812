// Reading users' JSON: positions, non-finite tokens, size limits, typed fields.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/json_io.hpp>

using namespace qf;

TEST_CASE("parse errors carry line and column", "[json]") {
  auto r = parseJson("{\n  \"a\": 1,\n  \"b\": ]\n}", "x.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().file == "x.json");
  CHECK(r.error().position == "line 3, column 8");
  auto empty = parseJson("   \n", "e.json");
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().message.find("empty") != std::string::npos);
}

TEST_CASE("bare NaN names its field in strict mode, accepted in lenient mode", "[json]") {
  const std::string text = "{\"name\": \"g\",\n \"hbm_bandwidth_tbs\": NaN, \"x\": -Infinity}";
  auto strict = parseJson(text, "g.json");
  REQUIRE_FALSE(strict.ok());
  CHECK(strict.error().field == "hbm_bandwidth_tbs");
  CHECK(strict.error().position == "line 2, column 23");
  CHECK(strict.error().message.find("NaN") == 0);
  auto lenient = parseJson(text, "g.json", true);
  REQUIRE(lenient.ok());
  CHECK(std::isnan((*lenient)["hbm_bandwidth_tbs"].get<double>()));
  CHECK((*lenient)["x"].get<double>() == -INFINITY);
  // Tokens inside strings are left alone.
  auto s = parseJson("{\"a\": \"NaN Infinity\"}", "s.json", true);
  REQUIRE(s.ok());
  CHECK((*s)["a"] == "NaN Infinity");
  // Other non-standard tokens stay errors.
  CHECK_FALSE(parseJson("{\"a\": nan}", "n.json", true).ok());
  CHECK_FALSE(parseJson("{\"a\": NaNa}", "n.json", true).ok());
}

TEST_CASE("files over the size limit are refused before reading", "[json]") {
  const std::string path = "qf_test_big.json";
  {
    std::ofstream f(path);
    f << "[" << std::string(4096, ' ') << "]";
  }
  auto r = readJsonFile(path, false, 1024);
  std::remove(path.c_str());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("limit") != std::string::npos);
  auto missing = readJsonFile("/no/such/file.json");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "file not found");
}

TEST_CASE("JsonReader names pointer and field", "[json]") {
  const Json j = Json::parse(R"({"gpu": {"bw": -1, "name": 3, "n": 2.5}})");
  JsonReader rd(j, "f.json");
  auto bw = rd.number(j["gpu"], "/gpu", "bw", true);
  REQUIRE_FALSE(bw.ok());
  CHECK(bw.error().position == "/gpu/bw");
  CHECK(bw.error().field == "bw");
  auto name = rd.string(j["gpu"], "/gpu", "name");
  REQUIRE_FALSE(name.ok());
  CHECK(name.error().message.find("string") != std::string::npos);
  auto n = rd.integer(j["gpu"], "/gpu", "n");
  REQUIRE_FALSE(n.ok());
  auto missing = rd.number(j["gpu"], "/gpu", "absent");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("missing") != std::string::npos);
}

TEST_CASE("JsonReader: one reader for sessions, importers and config files", "[json]") {
  const Json j = Json::parse(R"({"o": {"i": -2, "f": 2.5, "big": 7, "s": "", "l": ["a", ""],
    "b": "yes", "loose": "Infinity", "text": "1.5e-3", "null": null, "extra": 1}})");
  const Json& o = j["o"];
  SECTION("a value of a JSON-lines file names its line") {
    const JsonReader lines("f.jsonl", std::size_t{3});
    auto e = lines.number(o, "/o", "s");
    REQUIRE_FALSE(e.ok());
    CHECK(e.error().position == "line 3, /o/s");
    CHECK(e.error().message == "expected a number, found a string");
    CHECK(JsonReader("f.json").error("", "x", "m").position == "/");
  }
  SECTION("integers within a range") {
    const JsonReader rd("f.json");
    CHECK(rd.integer(o, "/o", "i").error().message == "must not be negative, found -2");
    CHECK(rd.integer(o, "/o", "big", 1, 5).error().message == "must be an integer from 1 to 5");
    CHECK(rd.integer(o, "/o", "big", 8).error().message == "must be at least 8, found 7");
    CHECK(rd.integer(o, "/o", "f").error().field == "f");
    CHECK(*rd.integer(o, "/o", "big", 1, 7) == 7);
    CHECK_FALSE(rd.optInteger(o, "/o", "null")->has_value());
  }
  SECTION("strings, lists, booleans and the looser numbers") {
    std::vector<std::string> notes;
    const JsonReader rd("f.json", &notes);
    CHECK(rd.string(o, "/o", "s", false).error().message == "must not be empty");
    CHECK(rd.optStringList(o, "/o", "l", false).error().position == "/o/l/1");
    CHECK(rd.optStringList(o, "/o", "l", true)->value().size() == 2);
    CHECK(rd.optBoolean(o, "/o", "b").error().message == "expected true or false, found a string");
    CHECK(std::isinf(*rd.looseNumber(o["loose"], "/o/loose", "loose")));
    CHECK(**rd.optNumberOrNumericString(o, "/o", "text") == 1.5e-3);
    CHECK(rd.string(o, "/o", "null").error().message == "required string is missing");
    REQUIRE_FALSE(
        rd.object(o, "/o", "o", {"i", "f", "big", "s", "l", "b", "loose", "text", "null"}));
    CHECK(notes == std::vector<std::string>{"ignored unknown key /o/extra"});
    CHECK(JsonReader::stringOr(o, "b") == "yes");
    CHECK(JsonReader::numberOr(o, "b", 4) == 4);
  }
}

TEST_CASE("numbers beyond double and mistyped names are errors, not exceptions (fuzz findings)",
          "[base]") {
  const std::string dir = std::string(QF_SOURCE_DIR) + "/fuzz/regressions/";
  // A session, a GPU file: the number overflow names the file and where the number is.
  for (const char* name : {"session-number-overflow.json", "gpu-number-overflow.json"}) {
    INFO(name);
    auto bytes = qf::readFileBytes(dir + name);
    REQUIRE(bytes.ok());
    auto j = qf::parseJson(*bytes, name);
    REQUIRE_FALSE(j.ok());
    CHECK(j.error().file == name);
    CHECK(j.error().message.find("beyond the range of a double") != std::string::npos);
    CHECK(j.error().position.rfind("line ", 0) == 0);
  }
  auto inline1 = qf::parseJson(R"({"a": [1, 2, -3e999]})", "x.json");
  REQUIRE_FALSE(inline1.ok());
  CHECK(inline1.error().position == "line 1, column 14");  // the "-" of -3e999
}

TEST_CASE("a key given twice in one object is refused with its position", "[json]") {
  auto r = parseJson("{\n  \"memory_gib\": 80,\n  \"name\": \"x\",\n  \"memory_gib\": 141\n}",
                     "gpu.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().file == "gpu.json");
  CHECK(r.error().field == "memory_gib");
  CHECK(r.error().position == "line 4, column 3");
  CHECK(r.error().message.find("given twice") != std::string::npos);
  // Nested: a session's second "candidates".
  auto nested = parseJson(R"({"s": {"candidates": [], "candidates": [1]}})", "s.json");
  REQUIRE_FALSE(nested.ok());
  CHECK(nested.error().field == "candidates");
  // The same key in sibling objects, or in an object inside the one that has it, is fine.
  auto fine = parseJson(R"({"a": {"x": 1}, "b": {"x": 2}, "x": {"x": [{"x": 3}]}})", "f.json");
  REQUIRE(fine.ok());
  CHECK((*fine)["x"]["x"][0]["x"] == 3);
}

TEST_CASE("a document past the memory budget is refused where it grows, before memory runs out",
          "[json]") {
  // 10^5 zeros under /candidates/1/extra: 200 KB of text, 2.4 MB in memory.
  std::string zeros = "0";
  for (int i = 1; i < 100000; ++i) zeros += ",0";
  const std::string text = R"({"candidates": [{"id": "a"}, {"extra": [)" + zeros + "]}]}";
  auto r = parseJson(text, "big.session.json", false, 1024 * 1024);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().file == "big.session.json");
  CHECK(r.error().position == "/candidates/1/extra");
  CHECK(r.error().message.find("more than 1 MiB in memory") != std::string::npos);
  // Under a budget it holds, and under the default, the same document parses.
  auto fits = parseJson(text, "big.session.json", false, 8 * 1024 * 1024);
  REQUIRE(fits.ok());
  CHECK((*fits)["candidates"][1]["extra"].size() == 100000);
  CHECK(parseJson(text, "big.session.json").ok());
}
