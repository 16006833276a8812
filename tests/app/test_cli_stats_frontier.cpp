// qfront stats and qfront frontier, run in-process: JSON round trips and exit codes.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli.hpp"

namespace {

const std::string kData = QF_TEST_DATA_DIR;
const std::string kA = kData + "/stats/bf16/samples_gsm8k_2024-11-01T10-00-00.123456.jsonl";
const std::string kB = kData + "/stats/w4a16/samples_gsm8k_2024-11-02T11-30-00.654321.jsonl";

struct Run {
  int rc = -1;
  std::string out, err;
};

Run run(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  Run r;
  r.rc = qf::cli::run(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

nlohmann::json json(const Run& r) {
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  return nlohmann::json::parse(r.out);
}

/// Writes `bytes` to a fresh file in the temporary directory; returns its path.
std::string tempFile(const std::string& name, const std::string& bytes) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("qf_cli_frontier_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Exit code 2 with exactly one line on stderr that starts "qfront: ".
void checkBadInput(const Run& r) {
  INFO(r.err);
  CHECK(r.rc == 2);
  CHECK(r.err.rfind("qfront: ", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

}  // namespace

TEST_CASE("qfront stats binomial: the seed's figures as fractions", "[stats][cli]") {
  const auto j = json(run({"stats", "binomial", "--p", "0.8", "--n", "1319"}));
  CHECK(j.at("se").get<double>() == Approx(0.011014).epsilon(1e-4));
  CHECK(j.at("ci_half_width").get<double>() == Approx(0.021588).epsilon(1e-4));
  CHECK(j.at("ci")[0].get<double>() == Approx(0.8 - 0.021588).epsilon(1e-5));
  CHECK(j.at("min_detectable_diff").get<double>() == Approx(0.030530).epsilon(1e-4));
  CHECK(j.at("wilson")[0].get<double>() == Approx(0.7775554853).epsilon(1e-9));
  CHECK(j.at("n").get<double>() == 1319);
  const auto t = run({"stats", "binomial", "--p=0.8", "--n=1319", "--format", "table"});
  CHECK(t.rc == 0);
  CHECK(t.out.find("1.10 pp") != std::string::npos);
  CHECK(t.out.find("2.16 pp") != std::string::npos);
}

TEST_CASE("qfront stats power and diff", "[stats][cli]") {
  const auto j = json(run({"stats", "power", "--p", "0.8", "--delta", "0.01"}));
  CHECK(j.at("n_per_arm").get<double>() == 25088);
  CHECK(j.at("power").get<double>() == 0.8);
  const auto paired =
      json(run({"stats", "power", "--p", "0.8", "--delta", "0.01", "--flip-rate", "0.1"}));
  CHECK(paired.at("n_paired").get<double>() == 7840);
  const auto p9 = json(run({"stats", "power", "--p", "0.8", "--delta", "0.01", "--power", "0.9"}));
  CHECK(p9.at("n_per_arm").get<double>() > 25088);
  const auto d =
      json(run({"stats", "diff", "--p1", "0.78", "--n1", "1000", "--p2", "0.82", "--n2", "1000"}));
  CHECK(d.at("diff").get<double>() == Approx(0.04));
  CHECK(d.at("significant").get<bool>());
  CHECK(d.at("diff_ci").size() == 2);
}

TEST_CASE("qfront stats paired: flips, McNemar and CI from two lm-eval files", "[stats][cli]") {
  const auto j = json(run({"stats", "paired", kA, kB, "--filter", "strict-match"}));
  CHECK(j.at("n").get<int>() == 40);
  CHECK(j.at("flips_right_to_wrong").get<int>() == 10);
  CHECK(j.at("flips_wrong_to_right").get<int>() == 2);
  CHECK(j.at("flip_rate").get<double>() == Approx(0.3));
  CHECK(j.at("mcnemar_p").get<double>() == Approx(0.03857421875).epsilon(1e-12));
  CHECK(j.at("paired_se").get<double>() == Approx(std::sqrt(0.3 / 40)));
  CHECK(j.at("diff").get<double>() == Approx(-0.2));
  CHECK(j.at("diff_ci")[1].get<double>() < 0);
  CHECK(j.at("metric") == "exact_match");
  CHECK(j.at("warnings").empty());
  const auto t =
      run({"stats", "paired", kA, kB, "--filter", "flexible-extract", "--format", "table"});
  CHECK(t.rc == 0);
  CHECK(t.out.find("right -> wrong (b)") != std::string::npos);

  // A prompt_hash difference is a warning on stderr (and in the JSON), not an error.
  const std::string pr =
      kData + "/stats/w4a16_prompt/samples_gsm8k_2024-11-03T09-00-00.000001.jsonl";
  const auto w = run({"stats", "paired", kA, pr, "--filter", "strict-match"});
  CHECK(w.rc == 0);
  CHECK(w.err.find("warning") != std::string::npos);
  CHECK(nlohmann::json::parse(w.out).at("prompt_hash_mismatches") == 3);
}

TEST_CASE("qfront stats paired: no discordant pairs give an interval of honest width",
          "[stats][cli]") {
  // A file paired with itself: 40 strict-match questions, no flips.
  const auto j = json(run({"stats", "paired", kA, kA, "--filter", "strict-match"}));
  CHECK(j["n"] == 40);
  CHECK(j["flip_rate"] == 0.0);
  const double bound = 1.0 - std::pow(0.025, 1.0 / 40);  // exact 95% upper end of 0 of 40
  CHECK(j["flip_rate_ci"][1].get<double>() == Approx(bound));
  CHECK(j["diff_ci"][0].get<double>() == Approx(-bound));
  CHECK(j["diff_ci"][1].get<double>() == Approx(bound));
  CHECK(j["diff_ci"][1].get<double>() > j["diff_ci"][0].get<double>());
  CHECK(j["warnings"].dump().find("no discordant pairs") != std::string::npos);
}

TEST_CASE("qfront stats: bad input exits 2 with one line", "[stats][cli]") {
  checkBadInput(run({"stats", "binomial", "--p", "80", "--n", "1319"}));
  checkBadInput(run({"stats", "binomial", "--p", "0.8"}));
  checkBadInput(run({"stats", "binomial", "--p", "0.8", "--n", "-3"}));
  checkBadInput(run({"stats", "binomial", "--p", "0.8", "--n", "10", "--bogus"}));
  checkBadInput(run({"stats", "power", "--p", "0.8", "--delta", "0"}));
  checkBadInput(run({"stats", "power", "--p", "0.8", "--delta", "0.01", "--power", "1.5"}));
  checkBadInput(run({"stats", "frobnicate"}));
  checkBadInput(run({"stats", "paired", kA}));
  {
    // Two filters, none chosen: paired on strict-match, with a warning on stderr.
    const auto two = run({"stats", "paired", kA, kB});
    CHECK(two.rc == 0);
    CHECK(two.err.find("strict-match") != std::string::npos);
    CHECK(nlohmann::json::parse(two.out)["flips_right_to_wrong"] == 10);
  }
  const std::string bad =
      kData + "/stats/w4a16_badhash/samples_gsm8k_2024-11-02T11-30-00.654321.jsonl";
  const auto hash = run({"stats", "paired", kA, bad, "--filter", "strict-match"});
  checkBadInput(hash);
  CHECK(hash.err.find("field 'doc_hash'") != std::string::npos);
  CHECK(hash.err.find(kA) != std::string::npos);
  CHECK(hash.err.find(bad) != std::string::npos);
  CHECK(hash.err.find("doc_id 7") != std::string::npos);
  const auto line =
      run({"stats", "paired",
           kData + "/stats/bad_line/samples_gsm8k_2024-11-04T00-00-00.000000.jsonl", kB});
  checkBadInput(line);
  CHECK(line.err.find("line 3, column") != std::string::npos);
  checkBadInput(run({"stats", "paired", kA, kData + "/stats/missing.jsonl"}));
}

TEST_CASE("qfront stats --help", "[stats][cli]") {
  for (const auto& sub : {"binomial", "power", "diff", "paired"}) {
    CHECK(run({"stats", sub, "--help"}).rc == 0);
    // The documented fraction arguments are checked: a p outside (0, 1) is refused.
    CHECK(run({"stats", sub, "--p", "1.5", "--n", "100"}).rc == 2);
  }
  CHECK(run({"stats", "--help"}).rc == 0);
}

TEST_CASE("qfront frontier: JSON round trip on the seed's worked example", "[frontier][cli]") {
  const auto j = json(run({"frontier", kData + "/frontier/serving_format.csv", "--objectives",
                           "score:max,tpot_p99_ms:min,queries_per_usd:max", "--gate",
                           "score>=baseline-1.0", "--gate", "tpot_p99_ms<70,max_concurrency>=64",
                           "--baseline", "bf16", "--format", "json"}));
  CHECK(j.at("frontier") == nlohmann::json({"w8a8-int8", "w8a8-int8-copy", "w4a8"}));
  CHECK(j.at("uncertain").empty());  // w8a16's score interval crosses the gate: undecided
  REQUIRE(j.at("dominated").size() == 1);
  CHECK(j.at("dominated")[0].at("id") == "w8a16-marlin");
  CHECK(j.at("dominated")[0].at("by") == nlohmann::json({"w8a8-int8", "w8a8-int8-copy"}));
  REQUIRE(j.at("gated_out").size() == 2);
  CHECK(j.at("gated_out")[0].at("id") == "bf16");
  CHECK(j.at("gated_out")[0].at("gate") == "max_concurrency>=64");
  REQUIRE(j.at("undecided").size() == 2);
  CHECK(j.at("undecided")[0].at("id") == "w4a16");
  REQUIRE(j.at("not_scored").size() == 1);
  CHECK(j.at("not_scored")[0].at("gate") == "missing metric tpot_p99_ms");
  CHECK(j.at("baseline") == "bf16");

  // --no-by: same classification, empty dominator lists.
  const auto lazy =
      json(run({"frontier", kData + "/frontier/serving_format.csv", "--objectives",
                "score:max,tpot_p99_ms:min,queries_per_usd:max", "--no-by", "--format", "json"}));
  for (const auto& d : lazy.at("dominated")) CHECK(d.at("by").empty());

  const auto table = run({"frontier", kData + "/frontier/serving_format.csv", "--objectives",
                          "score:max,tpot_p99_ms:min", "--gate", "tpot_p99_ms<70"});
  CHECK(table.rc == 0);
  CHECK(table.out.find("gated out") != std::string::npos);
  CHECK(table.out.find("frontier: ") != std::string::npos);
}

TEST_CASE("qfront frontier: default objectives from the known-metric table", "[frontier][cli]") {
  const auto j =
      json(run({"frontier", kData + "/frontier/serving_format.csv", "--format", "json"}));
  std::vector<std::string> metrics;
  for (const auto& o : j.at("objectives")) metrics.push_back(o.at("metric").get<std::string>());
  CHECK(metrics == std::vector<std::string>{"score", "tpot_p99_ms", "max_concurrency",
                                            "weights_gib", "queries_per_usd"});
  CHECK(j.at("objectives")[1].at("direction") == "min");
  CHECK(j.at("objectives")[2].at("direction") == "max");
  // nvfp4 lacks two objectives: reported as not scored, not dropped.
  bool found = false;
  for (const auto& g : j.at("not_scored")) found = found || g.at("id") == "nvfp4";
  CHECK(found);
}

TEST_CASE("qfront frontier: bad input exits 2 naming file, line, column and field",
          "[frontier][cli]") {
  const auto ragged = run({"frontier", kData + "/frontier/ragged.csv"});
  checkBadInput(ragged);
  CHECK(ragged.err.find("ragged.csv: line 3, column 3: field 'tpot_p99_ms'") != std::string::npos);
  const auto text = run({"frontier", kData + "/frontier/not_a_number.csv"});
  checkBadInput(text);
  CHECK(text.err.find("line 3, column 7: field 'tpot_p99_ms'") != std::string::npos);
  const auto nan = run({"frontier", kData + "/frontier/nan.csv"});
  checkBadInput(nan);
  CHECK(nan.err.find("line 3, column 3: field 'score'") != std::string::npos);
  checkBadInput(run({"frontier", kData + "/frontier/bad_interval.csv"}));
  checkBadInput(run({"frontier", kData + "/frontier/no_such.csv"}));
  checkBadInput(run({"frontier"}));
  checkBadInput(run({"frontier", kData + "/frontier/serving_format.csv", "--gate", "score>>1"}));
  checkBadInput(run({"frontier", kData + "/frontier/serving_format.csv", "--gate",
                     "score>=baseline-0.5"}));  // no --baseline
  checkBadInput(
      run({"frontier", kData + "/frontier/serving_format.csv", "--objectives", "score:up"}));
  checkBadInput(run({"frontier", kData + "/frontier/serving_format.csv", "--format", "xml"}));
  checkBadInput(run({"frontier", kA}));  // not a CSV with an id column
  CHECK(run({"frontier", "--help"}).rc == 0);
}

TEST_CASE("qfront frontier reads a session: its objectives, gates and intervals",
          "[frontier][cli]") {
  const std::string session = kData + "/frontier/session_small.json";
  const auto r = run({"frontier", session, "--format", "json"});
  const auto j = json(r);
  CHECK(j.at("frontier") == nlohmann::json({"bf16", "w8a8"}));
  CHECK(j.at("uncertain") == nlohmann::json({"w8a16"}));
  CHECK(j.at("dominated").empty());
  // w4a16 scores 80.0 [79.5, 80.5]: the interval reaches 80.5, so the gate is undecided.
  CHECK(j.at("gated_out").empty());
  REQUIRE(j.at("undecided").size() == 1);
  CHECK(j.at("undecided")[0].at("id") == "w4a16");
  CHECK(j.at("undecided")[0].at("gate") == "score>=80.5");
  CHECK(j.at("objectives")[1].at("direction") == "min");
  // tpot_p99_ms is modelled for three candidates and published for one: said, not hidden.
  CHECK(r.err.find("mixes provenance kinds (modelled, published)") != std::string::npos);
  CHECK(j.at("warnings").size() == 1);

  // Command-line gates and objectives replace the session's.
  const auto over = json(run({"frontier", session, "--objectives", "score:max", "--gate",
                              "tpot_p99_ms<=40", "--format", "json"}));
  CHECK(over.at("frontier") == nlohmann::json({"w8a8"}));
  CHECK(over.at("uncertain") == nlohmann::json({"w8a16"}));  // 81.6 [80.8, 82.4] vs 81.7
  REQUIRE(over.at("dominated").size() == 1);                 // 80.0 [79.5, 80.5]: clearly below
  CHECK(over.at("dominated")[0].at("by") == nlohmann::json({"w8a8", "w8a16"}));
  REQUIRE(over.at("gated_out").size() == 1);
  CHECK(over.at("gated_out")[0].at("id") == "bf16");

  // The bundled example session loads and classifies.
  const auto example =
      run({"frontier", std::string(QF_RESOURCE_DIR) + "/sessions/llama-3.1-8b-70b.json", "--format",
           "json"});
  CHECK(example.rc == 0);
  const auto ex = nlohmann::json::parse(example.out);
  CHECK(!ex.at("frontier").empty());
  // Grouped by model: each model has a frontier of its own, and the 70B candidates are not
  // ranked against 8B recoveries measured against another baseline.
  CHECK(ex.at("group_by") == "model");
  REQUIRE(ex.at("groups").size() == 2);
  for (const auto& g : ex.at("groups")) {
    INFO(g.at("model"));
    CHECK(!g.at("frontier").empty());
    for (const auto& id : g.at("frontier")) {
      CHECK(id.get<std::string>().rfind(g.at("model") == "llama-3.1-8b" ? "8b-" : "70b-", 0) == 0);
    }
  }
  const auto flat =
      run({"frontier", std::string(QF_RESOURCE_DIR) + "/sessions/llama-3.1-8b-70b.json",
           "--group-by", "none", "--format", "json"});
  CHECK(flat.rc == 0);
  CHECK(flat.err.find("is relative to each model's own baseline") != std::string::npos);
  const auto flatJson = nlohmann::json::parse(flat.out);  // outlives the loop below
  for (const auto& id : flatJson.at("frontier")) {
    CHECK(id.get<std::string>().rfind("8b-", 0) == 0);  // what grouping avoids
  }
  checkBadInput(run({"frontier", std::string(QF_RESOURCE_DIR) + "/sessions/llama-3.1-8b-70b.json",
                     "--group-by", "gpu"}));

  // JSON that is not a session is refused, naming the format field.
  const auto notSession = run({"frontier", kData + "/cli/gpu_custom.json"});
  checkBadInput(notSession);
  CHECK(notSession.err.find("field 'format'") != std::string::npos);
}

TEST_CASE("qfront frontier: invalid UTF-8 in a CSV exits 2 naming file, line and column",
          "[frontier][cli]") {
  // A Latin-1 'é' (0xE9) in the header, then in an id.
  const std::string header = tempFile("bad_header.csv", "id,sc\xE9re\nbf16,0.8\n");
  const auto h = run({"frontier", header, "--format", "json"});
  checkBadInput(h);
  CHECK(h.err.find(header + ": line 1, column 6: field 'header': invalid UTF-8 (byte 0xE9)") !=
        std::string::npos);
  const std::string id = tempFile("bad_id.csv", "id,score\nbf16,0.8\nw4\xC3(,0.7\n");
  const auto i = run({"frontier", id, "--format", "json"});
  checkBadInput(i);
  CHECK(i.err.find(id + ": line 3, column 3:") != std::string::npos);
  CHECK(i.err.find("invalid UTF-8 (byte 0xC3)") != std::string::npos);
  // Valid multi-byte UTF-8 is fine.
  const std::string ok = tempFile("ok_utf8.csv", "id,score\nw4a16-\xC3\xA9,0.8\n");
  const auto j = json(run({"frontier", ok, "--format", "json"}));
  CHECK(j.at("frontier") == nlohmann::json({"w4a16-\xC3\xA9"}));
  for (const auto& f : {header, id, ok}) std::filesystem::remove(f);
}

TEST_CASE("qfront frontier reads a session as import does: BOM and nesting limit",
          "[frontier][cli]") {
  const std::string session = kData + "/frontier/session_small.json";
  const std::string text = slurp(session);
  REQUIRE(text.front() == '{');
  // A UTF-8 byte-order mark before the session: read as without it.
  const std::string bom = tempFile("bom_session.json", "\xEF\xBB\xBF" + text);
  const auto plain = json(run({"frontier", session, "--format", "json"}));
  const auto withBom = json(run({"frontier", bom, "--format", "json"}));
  CHECK(withBom.at("frontier") == plain.at("frontier"));
  CHECK(withBom.at("uncertain") == plain.at("uncertain"));
  // Nesting beyond the session limit (64) under an unknown key: refused before parsing, by
  // frontier and by import alike.
  std::string deep = text;
  const auto brace = deep.find('{');
  deep.insert(brace + 1, "\"deep\": " + std::string(100, '[') + std::string(100, ']') + ",");
  const std::string nested = tempFile("nested_session.json", deep);
  const auto f = run({"frontier", nested, "--format", "json"});
  checkBadInput(f);
  CHECK(f.err.find("nested deeper than 64") != std::string::npos);
  const auto imp = run({"import", kData + "/import/vllm_serve_detailed.json", "-o", nested});
  CHECK(imp.rc == 2);
  CHECK(imp.err.find("nested deeper than 64") != std::string::npos);
  // At the limit's side that a session never reaches, it still opens.
  std::string shallow = text;
  shallow.insert(brace + 1, "\"shallow\": " + std::string(10, '[') + std::string(10, ']') + ",");
  const std::string ok = tempFile("shallow_session.json", shallow);
  const auto s = run({"frontier", ok, "--format", "json"});
  CHECK(s.rc == 0);
  for (const auto& p : {bom, nested, ok}) std::filesystem::remove(p);
}

TEST_CASE("qfront frontier ranks the example session by a modelled cost per use case",
          "[frontier][cli]") {
  const std::string example = std::string(QF_RESOURCE_DIR) + "/sessions/llama-3.1-8b-70b.json";
  const auto r = run(
      {"frontier", example, "--objectives", "queries_per_usd_code_completion", "--format", "json"});
  const auto j = json(r);
  REQUIRE(j.at("objectives").size() == 1);
  CHECK(j.at("objectives")[0].at("metric") == "queries_per_usd_code_completion");
  CHECK(j.at("objectives")[0].at("direction") == "max");  // the bare name's known direction
  CHECK(j.at("objectives")[0].at("unit") == "queries/USD");
  CHECK(r.err.find("mixes provenance") == std::string::npos);  // every value is modelled

  // One objective: each model's frontier is its passing candidate with the most queries per
  // USD, read here from the file itself.
  std::set<std::string> gated;  // failed, undecided or not scored: not on any frontier
  for (const char* list : {"gated_out", "undecided", "not_scored"}) {
    for (const auto& g : j.at(list)) gated.insert(g.at("id").get<std::string>());
  }
  const auto session = nlohmann::json::parse(slurp(example));
  std::map<std::string, std::pair<std::string, double>> best;  // model → (id, value)
  for (const auto& c : session.at("candidates")) {
    const std::string id = c.at("id");
    if (gated.count(id) != 0) continue;
    const auto& metric = c.at("metrics").at("queries_per_usd_code_completion");
    CHECK(metric.at("provenance").at("kind") == "modelled");
    const double v = metric.at("value");
    auto& b = best[c.at("model").get<std::string>()];
    if (b.first.empty() || v > b.second) b = {id, v};
  }
  REQUIRE(best.size() == 2);
  REQUIRE(j.at("groups").size() == 2);
  for (const auto& g : j.at("groups")) {
    INFO(g.at("model"));
    CHECK(g.at("frontier") == nlohmann::json({best.at(g.at("model").get<std::string>()).first}));
  }

  // The code-completion latency is published for two candidates and modelled for the rest:
  // ranking by it says so.
  const auto mixed = run({"frontier", example, "--objectives",
                          "cost_reduction_pct_code_completion,latency_code_completion_sync_s",
                          "--format", "json"});
  CHECK(mixed.rc == 0);
  CHECK(mixed.err.find("'latency_code_completion_sync_s' mixes provenance kinds") !=
        std::string::npos);
}

TEST_CASE("qfront frontier: an objective on an unknown metric exits 2 as a gate does",
          "[frontier][cli]") {
  const std::string csv = kData + "/frontier/serving_format.csv";
  const auto typo = run({"frontier", csv, "--objectives", "scroe:max"});
  checkBadInput(typo);
  CHECK(typo.err.find("field 'objectives'") != std::string::npos);
  CHECK(typo.err.find("scroe") != std::string::npos);
  const auto two = run({"frontier", csv, "--objectives", "score:max:min"});
  checkBadInput(two);
  CHECK(two.err.find("score:max:min") != std::string::npos);
}

TEST_CASE("qfront frontier --max-by 0 is bounded", "[frontier][cli]") {
  std::string rows = "id,score,tpot_p99_ms\n";
  for (int i = 0; i < 2001; ++i) {
    rows += "c" + std::to_string(i) + "," + std::to_string(0.5 + 1e-4 * i) + "," +
            std::to_string(10 + i) + "\n";
  }
  const std::string csv = tempFile("many.csv", rows);
  const auto all = run({"frontier", csv, "--max-by", "0", "--format", "json"});
  checkBadInput(all);
  CHECK(all.err.find("field 'max-by'") != std::string::npos);
  CHECK(run({"frontier", csv, "--max-by", "0", "--no-by", "--format", "json"}).rc == 0);
  CHECK(run({"frontier", csv, "--max-by", "5", "--format", "json"}).rc == 0);
  std::filesystem::remove(csv);
}

TEST_CASE("qfront stats power: a delta no eval can resolve exits 2", "[stats][cli]") {
  for (const char* d : {"1e-300", "1e-9"}) {
    const auto r = run({"stats", "power", "--p", "0.8", "--delta", d});
    checkBadInput(r);
    CHECK(r.err.find("field 'delta'") != std::string::npos);
    CHECK(r.out.empty());
  }
  const auto paired =
      run({"stats", "power", "--p", "0.8", "--delta", "1e-300", "--flip-rate", "0.1"});
  checkBadInput(paired);
  // The seed's figure still comes out.
  CHECK(json(run({"stats", "power", "--p", "0.80", "--delta", "0.01"}))["n_per_arm"] == 25088);
}
