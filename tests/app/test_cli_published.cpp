// The model against published H100/H200 end-to-end figures (resources/calibration/published):
// the bundled defaults on every point, and a calibration fitted on one half of a set checked on
// the other half. The figures are other people's measurements, not the model's: these tests
// fail if a change to the model makes it predict them worse than the stated targets
// (docs/benchmarks.md, "End-to-end prediction against published H100/H200 figures").
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"
#include "support/temp_dir.hpp"

using qf::testing::TempDir;

namespace {

const std::string kDir = std::string(QF_RESOURCE_DIR) + "/calibration/published/";

nlohmann::json check(const std::string& points, const std::string& gpu,
                     const std::vector<std::string>& more = {}) {
  std::vector<std::string> args{"calibrate", points, "--gpu", gpu, "--check", "--format", "json"};
  args.insert(args.end(), more.begin(), more.end());
  const auto r = qf::testing::runQfront(args);
  INFO(r.err);
  REQUIRE(r.rc == 0);
  return nlohmann::json::parse(r.out);
}

/// The two halves of a set joined (the held-out half's rows after the fitted half's), in the
/// set's folder so that its config.json models resolve.
std::string joined(const TempDir& dir, const std::string& set) {
  std::ifstream fit(kDir + set + "-fit.csv"), test(kDir + set + "-test.csv");
  std::stringstream all;
  all << fit.rdbuf();
  std::string header;
  std::getline(test, header);
  all << test.rdbuf();
  std::string text = all.str();
  // Relative config.json paths become absolute: the joined file lives elsewhere.
  std::string out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("llama-2-", 0) == 0) line = kDir + line;
    out += line + "\n";
  }
  const std::string path = dir.file(set + "-every.csv");
  std::ofstream(path) << out;
  return path;
}

double medianAbs(const nlohmann::json& j, const char* group) {
  return j[group]["median_abs_error_pct"].get<double>();
}

}  // namespace

TEST_CASE("calibrated on half of a GPU's published points, the other half is predicted",
          "[cli][published]") {
  TempDir dir;
  struct Set {
    const char* name;
    const char* gpu;
    double latencyPct;     // target: median |error| of the held-out latencies at most this
    double throughputPct;  // and of the held-out throughputs (0: the set has none)
  };
  double insideAll = 0, withIntervalAll = 0;
  for (const Set& s : {Set{"h100-vllm", "h100-sxm", 12, 0}, Set{"h100-trtllm", "h100-sxm", 12, 20},
                       Set{"h200-trtllm", "h200-sxm", 12, 20}}) {
    INFO(s.name);
    const std::string gpuFile = dir.file(std::string(s.name) + ".cal.json");
    const auto fit = qf::testing::runQfront(
        {"calibrate", kDir + s.name + "-fit.csv", "--gpu", s.gpu, "-o", gpuFile});
    INFO(fit.err);
    REQUIRE(fit.rc == 0);
    const auto held = check(kDir + s.name + "-test.csv", gpuFile);
    CHECK(medianAbs(held, "latency") <= s.latencyPct);
    if (s.throughputPct > 0) CHECK(medianAbs(held, "throughput") <= s.throughputPct);
    // The 80% intervals cover most held-out points inside the fit's range (a fit too sure of
    // itself would not). Outside it the interval claims nothing: the vLLM fit half holds
    // batches 16-64 only, and its batch-1 points, all in the other half, come out 6-20% slow
    // (16 of 35 inside; docs/benchmarks.md).
    double inside = 0, withInterval = 0;
    for (const auto& p : held["points"]) {
      if (p["extrapolated"].get<bool>() || !p.contains("low")) continue;
      withInterval += 1;
      const double m = p["measured"].get<double>();
      if (p["low"].get<double>() <= m && m <= p["high"].get<double>()) inside += 1;
    }
    REQUIRE(withInterval > 0);
    // Each set alone: 30 points have a binomial spread of 7 points about 80%, so a set is held
    // at 70%; the 75-85% target is on all of them (below). The vLLM set is at 22 of 30 since
    // the FP8 cache's attention bandwidth became a fitted constant (2026-12-07): its fit
    // explains more of its own half, and the held-out half's batch-1 and TP-2 shapes are not
    // in it.
    CHECK(inside / withInterval >= 0.70);
    insideAll += inside;
    withIntervalAll += withInterval;
    // The datasheet roofline is far off the same points: what calibration is for.
    const auto ideal = check(kDir + s.name + "-test.csv", s.gpu, {"--datasheet"});
    CHECK(medianAbs(ideal, "all") > 2 * medianAbs(held, "all"));
  }
  // Target: 75-85% of the held-out points in the fits' ranges inside their 80% interval
  // (each set alone has too few points to hold to a 10-point band: 8 throughputs give 6 or 7 of
  // 8). Measured 86 of 102 (84.3%, docs/benchmarks.md); the band's top is held at 87%, so a
  // widening of the intervals still fails here.
  INFO(insideAll << " of " << withIntervalAll
                 << " held-out points in range inside their 80% interval");
  CHECK(insideAll / withIntervalAll >= 0.75);
  CHECK(insideAll / withIntervalAll <= 0.87);
}

TEST_CASE("the bundled Hopper constants on the held-out saturated halves, per TP degree",
          "[cli][published]") {
  // Fitted to the H100 fit halves only (scripts/fit-bundled-hopper.sh); the H200 carries them.
  // Target: saturated throughput within 15% median |error| at each of TP 1, 2, 4 and 8
  // (before the GEMM-shape constants and a fitted α: 12.6 / 32.7 / 43.5 / 56.8% on all).
  for (const char* gpu : {"h100-sxm", "h200-sxm"}) {
    INFO(gpu);
    const auto held = check(kDir + "saturated-test.csv", gpu);
    for (const char* tp : {"1", "2", "4", "8"}) {
      INFO("TP " << tp);
      REQUIRE(held["by_tp"].contains(tp));
      CHECK(held["by_tp"][tp]["median_abs_error_pct"].get<double>() <= 15.0);
    }
  }
}

TEST_CASE("each engine's held-out static figures with its own bundled constants",
          "[cli][published][engine]") {
  // vLLM's rows take the GPU's block, TensorRT-LLM's (engine column trtllm) its engines.trtllm
  // block: fitted to each engine's fit half, each scores its own held-out half better than
  // one joint fit did (11.5% and 14.8% median |error|, docs/benchmarks.md "Constants per
  // serving engine"). Target: each within 10%.
  const auto vllm = check(kDir + "h100-vllm-test.csv", "h100-sxm");
  CHECK(vllm["constants_source"].get<std::string>().find("vLLM figures") != std::string::npos);
  CHECK(vllm["constants_source"].get<std::string>().find("TensorRT-LLM") == std::string::npos);
  CHECK(medianAbs(vllm, "all") <= 10);
  const auto trt = check(kDir + "h100-trtllm-test.csv", "h100-sxm");
  CHECK(trt["constants_source"].get<std::string>().find("TensorRT-LLM figures") !=
        std::string::npos);
  CHECK(medianAbs(trt, "all") <= 10);
  // The same TensorRT-LLM rows priced with vLLM's constants are further off: the engines differ.
  TempDir dir;
  std::ifstream in(kDir + "h100-trtllm-test.csv");
  std::ofstream out(dir.file("as-vllm.csv"));
  std::string line;
  for (bool head = true; std::getline(in, line); head = false) {
    if (!head && line.size() > 7 && line.substr(line.size() - 7) == ",trtllm")
      line = line.substr(0, line.size() - 7) + ",vllm";
    // Model config paths are relative to the CSV: make them absolute.
    if (!head && line.rfind("llama-2-", 0) == 0) line = kDir + line;
    out << line << "\n";
  }
  out.close();
  const auto asVllm = check(dir.file("as-vllm.csv"), "h100-sxm");
  CHECK(medianAbs(asVllm, "all") > medianAbs(trt, "all") * 1.5);
}

TEST_CASE("the bundled defaults on every published point", "[cli][published]") {
  TempDir dir;
  // Targets: median |error| at most 25% on latency and 35% on throughput.
  for (auto [set, gpu] : {std::pair{"h100-vllm", "h100-sxm"},
                          {"h100-trtllm", "h100-sxm"},
                          {"h200-trtllm", "h200-sxm"}}) {
    INFO(set);
    const auto every = check(joined(dir, set), gpu);
    CHECK(every["constants_source"].get<std::string>().find("bundled defaults") !=
          std::string::npos);
    CHECK(medianAbs(every, "latency") <= 25);
    if (every["throughput"]["points"].get<int>() > 0) CHECK(medianAbs(every, "throughput") <= 35);
  }
}

namespace {

/// Median TPOT (ms) of `scheme` at each load, simulated by `qfront serving`.
std::vector<std::pair<double, double>> tpotByLoad(const std::string& model, const std::string& gpu,
                                                  int tp, const std::string& scheme,
                                                  const std::string& useCase,
                                                  const std::vector<double>& loads) {
  std::string list;
  for (double l : loads) list += (list.empty() ? "" : ",") + std::to_string(l);
  const auto r = qf::testing::runQfront(
      {"serving", "--model", model, "--gpu", gpu, "--tp", std::to_string(tp), "--scheme", scheme,
       "--use-case", useCase, "--load", list, "--requests", "1000", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  std::vector<std::pair<double, double>> out;
  const auto doc = nlohmann::json::parse(r.out);
  for (const auto& row : doc["loads"]) {
    out.emplace_back(row["requests_per_s"].get<double>(), row["tpot_p50_ms"].get<double>());
  }
  return out;
}

/// The offered load where W8A8-INT8's median TPOT first drops below W4A16's (interpolated
/// between grid loads); 0 when it never does on the grid.
double int8OvertakesW4a16(const std::string& model, const std::string& gpu, int tp,
                          const std::string& useCase, const std::vector<double>& loads) {
  const auto w4 = tpotByLoad(model, gpu, tp, "w4a16-g128", useCase, loads);
  const auto i8 = tpotByLoad(model, gpu, tp, "w8a8-int8", useCase, loads);
  REQUIRE(w4.size() == loads.size());
  REQUIRE(i8.size() == loads.size());
  REQUIRE(w4.front().second < i8.front().second);  // W4A16 leads at low load
  for (std::size_t i = 1; i < loads.size(); ++i) {
    const double d0 = w4[i - 1].second - i8[i - 1].second, d1 = w4[i].second - i8[i].second;
    if (d0 < 0 && d1 >= 0) return loads[i - 1] + (loads[i] - loads[i - 1]) * (-d0) / (d1 - d0);
  }
  return 0;
}

std::vector<double> grid(double from, double to, int n) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(from + (to - from) * i / (n - 1));
  return out;
}

}  // namespace

TEST_CASE("seed 001's load crossovers (Figures 2 and 3) within 2x of the paper's",
          "[cli][published][serving]") {
  // Figure 2: Llama-3.1-8B on one A6000, docstring generation: W8A8-INT8 overtakes W4A16 at
  // about 3.5 QPS. The bundled A6000 constants alone.
  const double fig2 =
      int8OvertakesW4a16("llama-3.1-8b", "a6000", 1, "docstring-generation", grid(1, 7, 13));
  INFO("Figure 2 crossover " << fig2 << " QPS");
  CHECK(fig2 >= 3.5 / 2);
  CHECK(fig2 <= 3.5 * 2);

  // Figure 3: Llama-3.1-70B on 2 x A100, code fixing: about 0.35 QPS. The bundled A100
  // constants (t0, bandwidth) do not know that W4A16's kernel pays for dequant at moderate
  // batches: with the kernel constants that reproduce the published Marlin-vs-cuBLAS ratios on
  // an A100 (docs/model.md, "The datasheet model against published measurements": η_P bf16
  // and int8 0.74, W4A16 0.6275, dequant 3.81e-13 s per weight), as `qfront calibrate` would
  // fit them from kernel records, the crossover lands within 2x.
  TempDir dir;
  const auto cat = qf::testing::runQfront({"catalog", "--format", "json"});
  REQUIRE(cat.rc == 0);
  nlohmann::json a100;
  const auto catalog = nlohmann::json::parse(cat.out);
  for (const auto& g : catalog["gpus"]) {
    if (g["id"] == "a100-80gb") a100 = g;
  }
  REQUIRE(a100.is_object());
  std::ifstream bundledFile(std::string(QF_RESOURCE_DIR) + "/catalog/calibration.json");
  const auto bundled = nlohmann::json::parse(bundledFile)["gpus"]["a100-80gb"];
  a100["calibration"] = {
      {"source", "bundled A100 fit with the published Marlin kernel ratios"},
      {"overhead_ms", bundled["overhead_ms"]},
      {"bandwidth_efficiency", bundled["bandwidth_efficiency"]},
      {"compute_efficiency", {{"bf16", 0.74}, {"int8", 0.74}, {"w4a16-g128", 0.6275}}},
      {"dequant_s_per_weight", {{"w4a16-g128", 3.81e-13}}}};
  const std::string gpuFile = dir.file("a100-marlin.json");
  std::ofstream(gpuFile) << a100.dump();
  const double fig3 =
      int8OvertakesW4a16("llama-3.1-70b", gpuFile, 2, "code-fixing", grid(0.1, 1.0, 19));
  INFO("Figure 3 crossover " << fig3 << " QPS");
  CHECK(fig3 >= 0.35 / 2);
  CHECK(fig3 <= 0.35 * 2);
}

TEST_CASE("the bundled per-request cost centres the published single-client TTFTs",
          "[cli][published]") {
  // resources/calibration/published/request-overhead.csv: TTFT at one client, short prompts,
  // where prefill is a few ms and the rest is the server's fixed cost per request. The bundled
  // t_req is their median difference from the model (scripts/bundle-request-overhead.sh), so
  // the model's median signed error over them is near zero; without t_req it is 6 ms short.
  const auto j = check(kDir + "request-overhead.csv", "a100-80gb");
  std::vector<double> diffs;
  for (const auto& p : j["points"]) {
    if (p["metric"] == "ttft_ms")
      diffs.push_back(p["measured"].get<double>() - p["predicted"].get<double>());
  }
  REQUIRE(diffs.size() == 8);
  std::sort(diffs.begin(), diffs.end());
  const double median = 0.5 * (diffs[3] + diffs[4]);
  CHECK(std::abs(median) < 0.5);
  // Every TTFT carries t_req's spread: the 80% interval of the 0.6B's 128-token TTFT is at
  // least as wide as 2.6-15.5 ms of t_req alone would make it.
  bool found = false;
  for (const auto& p : j["points"]) {
    if (p["metric"] != "ttft_ms" || p["origin"] != "request-overhead.csv row 2") continue;
    found = true;
    CHECK(p["high"].get<double>() - p["low"].get<double>() > 10.0);
  }
  CHECK(found);
}

TEST_CASE("the bundled constants on a published load curve they were not fitted to",
          "[cli][published][serving]") {
  // resources/calibration/published/load-curves.csv (S11): Llama-3.3-70B in FP8 on two H100,
  // 5,000 + 500 tokens, closed loops of 1 to 250 clients, mean TTFT, mean TPOT and output
  // tok/s as published. The targets for load curves: throughput within 10%, TPOT
  // within 15%, TTFT within 25% median |error|; the 80% intervals near 80% coverage.
  const auto j = check(kDir + "load-curves.csv", "h100-sxm");
  REQUIRE(j["all"]["points"] == 24);
  const auto& m = j["by_metric"];
  CHECK(m["output_tok_s"]["median_abs_error_pct"].get<double>() <= 10.0);
  CHECK(m["tpot_ms"]["median_abs_error_pct"].get<double>() <= 15.0);
  CHECK(m["ttft_ms"]["median_abs_error_pct"].get<double>() <= 25.0);
  // The 24 points are one deployment's curve, their errors correlated: coverage here can say
  // the intervals are too narrow, not that they are too wide (all 24 fall inside since the
  // prefill wait is modelled). That the intervals are not vacuous is held by their width: the
  // fit's scale (about 0.13 in log) gives every point an 80% half-width near 20% (20-22%).
  const double covered = j["all"]["inside_interval"].get<double>() / 24.0;
  CHECK(covered >= 0.70);
  int narrow = 0;
  for (const auto& p : j["points"]) {
    const double pred = p["predicted"].get<double>();
    const double half = 0.5 * (p["high"].get<double>() - p["low"].get<double>()) / pred;
    if (half < 0.30) ++narrow;
  }
  CHECK(narrow == 24);
  // Past the 85 sequences the KV cache holds, the clients queue: TTFT grows with them
  // (published 8.0 s at 100 clients to 88.6 s at 250) while throughput stays flat.
  std::map<std::string, double> ttft, tput;
  for (const auto& p : j["points"]) {
    const std::string load = p["load"];
    if (p["metric"] == "ttft_ms") ttft[load] = p["predicted"].get<double>();
    if (p["metric"] == "output_tok_s") tput[load] = p["predicted"].get<double>();
  }
  CHECK(ttft["c250"] > 5.0 * ttft["c100"]);
  CHECK(tput["c250"] == Approx(tput["c100"]).epsilon(0.01));
}

TEST_CASE("calibrated from half a published load curve, the other half is predicted",
          "[cli][published][serving]") {
  // load-curves.csv's eight loads split alternately (1, 25, 100, 200 clients and 5, 50, 150,
  // 250), each half fitted from the bundled constants and checked on the other. The issue's
  // targets: throughput within 7%, TPOT within 10%, TTFT within 15% median |error|.
  TempDir dir;
  std::ifstream in(kDir + "load-curves.csv");
  std::string header, line;
  std::getline(in, header);
  std::string half[2] = {header + "\n", header + "\n"};
  for (int i = 0; std::getline(in, line); ++i) half[(i / 3) % 2] += line + "\n";
  for (int fitted = 0; fitted < 2; ++fitted) {
    INFO("fitted half " << fitted);
    const std::string fitCsv = dir.file("fit" + std::to_string(fitted) + ".csv");
    const std::string testCsv = dir.file("test" + std::to_string(fitted) + ".csv");
    std::ofstream(fitCsv) << half[fitted];
    std::ofstream(testCsv) << half[1 - fitted];
    const std::string gpuFile = dir.file("cal" + std::to_string(fitted) + ".json");
    const auto fit =
        qf::testing::runQfront({"calibrate", fitCsv, "--gpu", "h100-sxm", "-o", gpuFile});
    INFO(fit.err);
    REQUIRE(fit.rc == 0);
    const auto held = check(testCsv, gpuFile);
    REQUIRE(held["all"]["points"] == 12);
    const auto& m = held["by_metric"];
    CHECK(m["output_tok_s"]["median_abs_error_pct"].get<double>() <= 7.0);
    CHECK(m["tpot_ms"]["median_abs_error_pct"].get<double>() <= 10.0);
    CHECK(m["ttft_ms"]["median_abs_error_pct"].get<double>() <= 15.0);
  }
}

TEST_CASE("qfront calibrate says when a few points predict each other worse than the prior",
          "[cli][calibration]") {
  // Five published vLLM rows: two slow long-context FP8-cache runs at batch 32 among three the
  // bundled constants predict within 5% (docs/benchmarks.md, "A prior the points check
  // themselves").
  std::ifstream in(kDir + "h100-vllm-test.csv");
  std::string header, line, rows;
  std::getline(in, header);
  for (int row = 2; std::getline(in, line); ++row) {
    if (row == 24 || row == 34 || row == 61 || row == 67 || row == 71) rows += line + "\n";
  }
  TempDir dir;
  const std::string path = dir.file("five.csv");
  std::ofstream(path) << header << "\n" << rows;
  const auto r =
      qf::testing::runQfront({"calibrate", path, "--gpu", "h100-sxm", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto& fit = j["calibration"]["e2e_fit"];
  const double cv = fit["cross_validated_median_abs_error_pct"].get<double>();
  const double prior = fit["prior_median_abs_error_pct"].get<double>();
  CHECK(cv > 0);
  CHECK(prior > 0);
  bool said = false;
  for (const auto& w : j["warnings"])
    said = said || w.get<std::string>().find("fit of the others") != std::string::npos;
  CHECK(said == (cv > prior));
  // Both caches are read: the FP8 cache's attention bandwidth is fitted (vLLM's, below 0.5).
  CHECK(fit["constants"]["attention_bandwidth_efficiency.fp8"]["value"].get<double>() < 0.5);
}

TEST_CASE("the published 96-H100 DeepSeek-V3 deployment: EP 72 decode and EP 32 prefill held out",
          "[cli][published][moe]") {
  // SGLang's PD-disaggregated DeepSeek-V3 on 12 H100 nodes (LMSYS, 2025-05-05; its launch
  // flags in sgl-project/sglang#6017): decode on 9 nodes at EP 72 with DP attention, 32
  // redundant expert slots and 256 running sequences a GPU, 22,282 output tok/s a node;
  // prefill on 4 nodes at EP 32, 52,300 input tok/s a node, both at 2,000-token prompts. Not
  // fitted: the bundled H100 constants price it. Without two-batch overlap (which those runs
  // use to hide the all-to-all under the GEMMs) the model is low; these bands fail if a change
  // takes it further off (docs/benchmarks.md, "Expert parallelism against a published
  // deployment"). With it, below, both are within 10%.
  auto model = [](const std::vector<std::string>& more) {
    std::vector<std::string> args{
        "model",           "--model",  "deepseek-v3", "--gpu", "h100-sxm",
        "--scheme",        "w8a8-fp8", "--kv-dtype",  "fp8",   "--dp-attention",
        "--max-model-len", "4096",     "--format",    "json"};
    args.insert(args.end(), more.begin(), more.end());
    const auto r = qf::testing::runQfront(args);
    INFO(r.err);
    REQUIRE(r.rc == 0);
    return nlohmann::json::parse(r.out)["schemes"][0]["points"][0];
  };
  const auto decode = model({"--tp", "72", "--ep", "72", "--redundant-experts", "32", "--batch",
                             "18432", "--context", "2050"});
  const double perNode = decode["tokens_per_s"].get<double>() / 9.0;
  const double decodeError = perNode / 22282.0 - 1.0;
  const auto prefill = model(
      {"--tp", "32", "--ep", "32", "--batch", "256", "--input-len", "2000", "--output-len", "2"});
  const double inPerNode = 256.0 * 2000.0 / (prefill["ttft_ms"].get<double>() * 1e-3) / 4.0;
  const double prefillError = inPerNode / 52300.0 - 1.0;
  INFO("decode " << perNode << " tok/s a node (" << decodeError * 100 << "%), prefill " << inPerNode
                 << " (" << prefillError * 100 << "%)");
  CHECK(decodeError > -0.40);
  CHECK(decodeError < 0.20);
  CHECK(prefillError > -0.55);
  CHECK(prefillError < 0.20);
  // The published runs hide the all-to-all under a second micro-batch (SGLang
  // --enable-two-batch-overlap): priced so, both are within 10%, still held out.
  auto overlapped = [&](std::vector<std::string> more) {
    more.push_back("--two-batch-overlap");
    return model(more);
  };
  const double tboPerNode = overlapped({"--tp", "72", "--ep", "72", "--redundant-experts", "32",
                                        "--batch", "18432", "--context", "2050"})["tokens_per_s"]
                                .get<double>() /
                            9.0;
  const double tboIn = 256.0 * 2000.0 /
                       (overlapped({"--tp", "32", "--ep", "32", "--batch", "256", "--input-len",
                                    "2000", "--output-len", "2"})["ttft_ms"]
                            .get<double>() *
                        1e-3) /
                       4.0;
  INFO("with two-batch overlap: decode " << tboPerNode << ", prefill " << tboIn);
  CHECK(std::abs(tboPerNode / 22282.0 - 1.0) < 0.10);
  CHECK(std::abs(tboIn / 52300.0 - 1.0) < 0.10);
  CHECK(tboPerNode > perNode);
  CHECK(tboIn > inPerNode);
  // The step's all-to-all is the network's: 64 of a token's 72 destinations are off its node.
  const auto onOneNode = model({"--tp", "8", "--ep", "8", "--batch", "2048", "--context", "2050"});
  CHECK(onOneNode["tokens_per_s"].get<double>() > perNode);
}
