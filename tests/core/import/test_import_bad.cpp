// Bad input to the importers: every error names the file, the position and the field;
// nothing crashes; JSON-lines files skip bad lines unless no line parses.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/hash.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/base/json_scanner.hpp>
#include <quantfront/core/import/importers.hpp>
#include "import/formats.hpp"

using namespace qf;

namespace {

std::string fixture(const std::string& name) {
  return std::string(QF_TEST_DATA_DIR) + "/import/" + name;
}

Error importError(const std::string& name) {
  auto r = importFile(fixture(name));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().file == fixture(name));
  return r.error();
}

Error bytesError(std::string_view bytes) {
  auto r = importBytes(bytes, "in.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().file == "in.json");
  return r.error();
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("truncated single-line file: error at the end, naming the array", "[import]") {
  const Error e = importError("bad_truncated_serve.json");
  const auto size = std::filesystem::file_size(fixture("bad_truncated_serve.json"));
  CHECK(e.position == "line 1, column " + std::to_string(size + 1));
  CHECK(e.field == "itls");
  CHECK(contains(e.message, "unexpected end of file"));
}

TEST_CASE("bare NaN in a vLLM file is refused at its line and column", "[import]") {
  const Error e = importError("bad_nan_serve.json");
  CHECK(e.position == "line 23, column 19");
  CHECK(e.field == "mean_ttft_ms");
  CHECK(contains(e.message, "NaN"));
}

TEST_CASE("wrong type for a metric: JSON pointer and field", "[import]") {
  const Error e = importError("bad_type_serve.json");
  CHECK(e.position == "/duration");
  CHECK(e.field == "duration");
  CHECK(e.message == "expected a number, found a string");
}

TEST_CASE("per-request arrays of the wrong shape or length", "[import]") {
  const Error shape = importError("bad_itls_shape.json");
  CHECK(shape.position == "/itls");
  CHECK(shape.field == "itls");
  CHECK(contains(shape.message, "found a list of numbers"));
  const Error length = importError("bad_lengths.json");
  CHECK(length.position == "/output_lens");
  CHECK(length.field == "output_lens");
  CHECK(length.message == "has 4 entries but 'ttfts' has 5 (one per request)");
  // A mixed array is read as a DOM and the first bad element is named.
  const Error mixed = bytesError(
      R"({"date": "d", "model_id": "m", "duration": 1, "completed": 2, "ttfts": [0.1, "x"]})");
  CHECK(mixed.position == "/ttfts/1");
  CHECK(mixed.field == "ttfts");
  // Negative or fractional token counts.
  const Error lens = bytesError(
      R"({"date": "d", "model_id": "m", "completed": 1, "ttfts": [0.1], "output_lens": [2.5]})");
  CHECK(lens.position == "/output_lens/0");
  CHECK(contains(lens.message, "whole number of tokens, found 2.5"));
  // A negative time is no measurement: refused with the request's position.
  const Error ttft =
      bytesError(R"({"date": "d", "model_id": "m", "completed": 2, "ttfts": [0.1, -0.5]})");
  CHECK(ttft.position == "/ttfts/1");
  CHECK(ttft.field == "ttfts");
  CHECK(contains(ttft.message, "found -0.5"));
  const Error lat = bytesError(
      R"({"date": "d", "model_id": "m", "completed": 1, "ttfts": [0.1], "latencies": [-2]})");
  CHECK(lat.position == "/latencies/0");
}

TEST_CASE("invalid UTF-8 inside a string: line and column of the bad byte", "[import]") {
  const Error e = importError("bad_utf8.json");
  CHECK(e.position == "line 3, column 17");
  CHECK(e.field == "backend");
  CHECK(contains(e.message, "invalid UTF-8 (byte 0xC3)"));
  // Garbage outside strings.
  const Error bin = bytesError(std::string("\x89PNG\r\n\x1a\n\0\0\0", 11));
  CHECK(bin.position == "line 1, column 1");
  CHECK(bin.field == "format");
  CHECK(contains(bin.message, "byte 0x89"));
}

TEST_CASE("empty and whitespace-only files", "[import]") {
  const Error e = importError("empty.json");
  CHECK(e.position == "line 1, column 1");
  CHECK(contains(e.message, "file is empty"));
  const Error ws = bytesError(" \n\t\r\n");
  CHECK(contains(ws.message, "file is empty"));
}

TEST_CASE("unknown format names the keys it saw", "[import]") {
  const Error e = importError("unknown_format.json");
  CHECK(e.field == "format");
  CHECK(e.position == "line 1, column 1");
  CHECK(contains(e.message, "unknown format"));
  CHECK(contains(e.message, "keys: name, values"));
  const Error arr = bytesError("[1, 2, 3]");
  CHECK(arr.field == "format");
  CHECK(contains(arr.message, "an array"));
  const Error csv = bytesError("model,ttft_ms\nllama,12\n");
  CHECK(csv.field == "format");
  CHECK(contains(csv.message, "found 'm'"));
}

TEST_CASE("syntax errors give line and column", "[import]") {
  // Trailing comma in a pretty-printed document: the '}' on line 3.
  const Error comma = bytesError("{\n  \"avg_latency\": 0.5,\n}\n");
  CHECK(comma.position == "line 3, column 1");
  CHECK(contains(comma.message, "expected a key"));
  // Leading zero, bare word, single quotes.
  CHECK(bytesError("{\n \"avg_latency\": 01\n}").position == "line 2, column 18");
  CHECK(bytesError("{\n \"avg_latency\": fast\n}").position == "line 2, column 17");
  CHECK(bytesError("{\n 'avg_latency': 1\n}").position == "line 2, column 2");
  // A number too large for a double.
  const Error big = bytesError("{\n \"avg_latency\": 1e999\n}");
  CHECK(big.field == "avg_latency");
  CHECK(contains(big.message, "out of range"));
  // Nesting deeper than the limit is refused without recursion trouble.
  std::string deep = "{\"a\": " + std::string(100000, '[');
  const Error d = bytesError(deep);
  CHECK(contains(d.message, "nested too deeply"));
}

TEST_CASE("JSON lines: bad lines skipped with their line, all bad gives the first error",
          "[import]") {
  const std::string good = R"({"run_name": "r", "batch_size": 4, "input_len": 8, )"
                           R"("output_len": 2, "median_decode_latency": 0.01})";
  auto r = importBytes(
      "{\"run_name\": \"r\", \"batch_size\": \n" + good + "\nnot json\n" + good + " trailing\n",
      "ob.jsonl");
  REQUIRE(r.ok());
  REQUIRE(r->runs.size() == 1);
  CHECK(r->runs[0].decodeStepByBatch.size() == 1);
  REQUIRE(r->warnings.size() == 3);
  CHECK(r->warnings[0].rfind("line 1, column 33:", 0) == 0);
  CHECK(r->warnings[1].rfind("line 3, column 1:", 0) == 0);
  CHECK(r->warnings[2].rfind("line 4, column " + std::to_string(good.size() + 2) + ":", 0) == 0);

  // No line parses: the error of reading the text as one document.
  const Error allBad = bytesError("{\"a\": \n{\"b\": }\n");
  CHECK(allBad.position == "line 2, column 7");
  // A line of the right format with a bad field is skipped; the first such error is returned
  // when no line imports.
  auto partly =
      importBytes("{\"run_name\": \"r\", \"batch_size\": \"four\"}\n" + good + "\n", "ob.jsonl");
  REQUIRE(partly.ok());
  CHECK(partly->warnings.at(0) ==
        "line 1, /batch_size: field 'batch_size': expected a number, found a string; line "
        "skipped");
  const Error none = bytesError("{\"run_name\": \"r\", \"batch_size\": -1}\n");
  CHECK(none.position == "/batch_size");  // one value: a plain JSON pointer
  CHECK(none.field == "batch_size");
}

TEST_CASE("files over maxBytes are refused before reading", "[import]") {
  // A sparse 1 GiB file: refused from its size alone, at once.
  const auto dir = std::filesystem::temp_directory_path() / "qf_test_import_big";
  std::filesystem::create_directories(dir);
  const auto path = (dir / "huge.json").string();
  { std::ofstream(path, std::ios::binary) << "{"; }
  std::filesystem::resize_file(path, 1ull << 30);
  ImportOptions opts;
  opts.maxBytes = 512ull << 20;
  const auto t0 = std::chrono::steady_clock::now();
  auto r = importFile(path, opts);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().file == path);
  CHECK(contains(r.error().message, "1073741824 bytes"));
  CHECK(contains(r.error().message, "refusing"));
  CHECK(seconds < 0.5);
  std::filesystem::remove_all(dir);

  opts.maxBytes = 10;
  auto small = importBytes(R"({"avg_latency": 0.5})", "b.json", opts);
  REQUIRE_FALSE(small.ok());
  CHECK(contains(small.error().message, "larger than the 10-byte import limit"));
  CHECK(importFile(fixture("no_such_file.json")).error().message == "file not found");
}

TEST_CASE("progress is reported and a false return cancels", "[import]") {
  std::vector<double> seen;
  ImportOptions opts;
  opts.progress = [&](double f) {
    seen.push_back(f);
    return true;
  };
  REQUIRE(importFile(fixture("vllm_throughput.json"), opts).ok());
  REQUIRE(seen.size() >= 2);
  CHECK(seen.front() == 0.0);
  CHECK(seen.back() == 1.0);
  CHECK(std::is_sorted(seen.begin(), seen.end()));
  // A 9 MB JSON-lines file with a cut-off last line is read twice (whole, then line by
  // line): progress still never goes back.
  std::string lines;
  const std::string line =
      R"({"elapsed_time": 2.0, "num_requests": 10, "requests_per_second": 5.0, "note": ")" +
      std::string(900, 'x') + "\"}\n";
  while (lines.size() < (9u << 20)) lines += line;
  lines += R"({"elapsed_time": 2.0, "num_req)";
  seen.clear();
  auto big = importBytes(lines, "big.jsonl", opts);
  REQUIRE(big.ok());
  CHECK(big->runs.size() == lines.size() / line.size());
  CHECK(big->warnings.size() == 1);
  CHECK(seen.size() >= 4);
  CHECK(std::is_sorted(seen.begin(), seen.end()));
  opts.progress = [](double f) { return f < 0.05; };
  auto r = importFile(fixture("vllm_throughput.json"), opts);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().isCancelled());
  CHECK(r.error().message == "cancelled");
}

TEST_CASE("scanner: strings, escapes and numbers read exactly", "[import]") {
  const std::string text =
      R"({"s": "a\"b\\c\/d\n\u00e9\ud83d\ude00\ud800x", "i": -42, "u": 18446744073709551615,
         "d": 1.5e-3, "tiny": 1e-400, "t": true, "n": null, "ttfts": [1, 2.5, -0.0],
         "itls": [[], [0.5], [1, 2]], "errors": ["", null, "boom"]})";
  JsonScanner sc(text, "x.json", &importSeriesKeys());
  auto d = sc.parseValue(0, text.size());
  REQUIRE(d.ok());
  const Json& o = d->dom;
  CHECK(o.at("s").get<std::string>() == "a\"b\\c/d\n\xC3\xA9\xF0\x9F\x98\x80\xEF\xBF\xBDx");
  CHECK(o.at("i").get<std::int64_t>() == -42);
  CHECK(o.at("u").get<std::uint64_t>() == 18446744073709551615ull);
  CHECK(o.at("d").get<double>() == 1.5e-3);
  CHECK(o.at("tiny").get<double>() == 0.0);
  CHECK(o.at("t").get<bool>());
  CHECK(o.at("n").is_null());
  CHECK_FALSE(o.contains("ttfts"));  // streamed
  const JsonSeries& ttfts = d->series.at("/ttfts");
  CHECK(ttfts.kind == JsonSeries::Kind::Numbers);
  CHECK(ttfts.values == std::vector<double>{1, 2.5, -0.0});
  const JsonSeries& itls = d->series.at("/itls");
  CHECK(itls.kind == JsonSeries::Kind::NumberLists);
  CHECK(itls.count == 3);
  CHECK(itls.offsets == std::vector<std::size_t>{0, 0, 1, 3});
  CHECK(itls.values == std::vector<double>{0.5, 1, 2});
  const JsonSeries& errors = d->series.at("/errors");
  CHECK(errors.strings == std::vector<std::string>{"", "", "boom"});
  CHECK_FALSE(d->nonFiniteOffset.has_value());
  for (std::size_t at : {std::size_t{0}, std::size_t{5}, text.find("\n") + 3, text.size()}) {
    CHECK(lineColumnFrom(text, 0, 1, at) == lineColumn(text, at));
  }
  CHECK(lineColumnFrom(text, text.find("\n") + 1, 2, text.find("\n") + 3) == "line 2, column 3");
  CHECK(formatNumber(10.0) == "10");
  CHECK(formatNumber(0.5) == "0.5");
}

TEST_CASE("scanner: bare non-finite tokens parse but are recorded", "[import]") {
  const std::string text = R"({"a": 1, "b": [Infinity, -Infinity], "ttfts": [NaN]})";
  JsonScanner sc(text, "x.json", &importSeriesKeys());
  auto d = sc.parseValue(0, text.size());
  REQUIRE(d.ok());
  REQUIRE(d->nonFiniteOffset.has_value());
  CHECK(*d->nonFiniteOffset == text.find("Infinity"));
  CHECK(d->nonFiniteField == "b");
  CHECK(std::isinf(d->dom.at("b")[0].get<double>()));
  CHECK(d->dom.at("b")[1].get<double>() < 0);
  CHECK(std::isnan(d->series.at("/ttfts").values.at(0)));
  // Other bare words are still errors.
  const std::string bad = R"({"a": nan})";
  JsonScanner sc2(bad, "y.json");
  auto e = sc2.parseValue(0, bad.size());
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().position == "line 1, column 7");
  CHECK(e.error().field == "a");
}

TEST_CASE("JSON lines: CRLF endings, and the list of bad lines is capped", "[import]") {
  const std::string good =
      R"({"elapsed_time": 2.0, "num_requests": 10, "requests_per_second": 5.0})";
  auto crlf = importBytes(good + "\r\n" + good + "\r\n", "t.jsonl");
  REQUIRE(crlf.ok());
  CHECK(crlf->runs.size() == 2);
  CHECK(crlf->warnings.empty());
  std::string many;
  for (int i = 0; i < 60; ++i) many += "{\"elapsed_time\": \n";
  many += good + "\n";
  auto capped = importBytes(many, "t.jsonl");
  REQUIRE(capped.ok());
  REQUIRE(capped->runs.size() == 1);
  CHECK(capped->runs[0].metrics.at("request_throughput_req_s") == 5.0);
  REQUIRE(capped->warnings.size() == 51);
  CHECK(capped->warnings[0].rfind("line 1, column 18:", 0) == 0);
  CHECK(capped->warnings[49].rfind("line 50, column 18:", 0) == 0);
  CHECK(capped->warnings[50] == "10 more bad lines skipped");
  // The digest is that of the bytes given.
  CHECK(capped->sha256 == sha256Hex(many));
  CHECK(capped->runs[0].sha256 == capped->sha256);
}
