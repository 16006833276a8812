// qfront model --input-len/--output-len and qfront calibrate POINTS.csv as a user runs them.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"
#include "support/temp_dir.hpp"

using qf::testing::readAll;
using qf::testing::TempDir;

namespace {
qf::testing::CliRun qfront(const std::vector<std::string>& args) {
  return qf::testing::runQfront(args);
}
void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}
/// The catalog's H100 with known constants (t0 4 ms, η_β 0.8, η_P bf16 0.6, W4A16 dequant
/// 5e-13 s/weight): the truth synthetic measurements are made with.
void writeTruthGpu(const std::string& path) {
  const auto cat = qfront({"catalog", "--format", "json"});
  REQUIRE(cat.rc == 0);
  auto gpu = nlohmann::json::parse(cat.out)["gpus"][0];
  REQUIRE(gpu["id"] == "h100-sxm");
  gpu["calibration"] = {{"source", "truth"},
                        {"overhead_ms", 4.0},
                        {"bandwidth_efficiency", 0.8},
                        {"compute_efficiency", {{"bf16", 0.6}}},
                        {"dequant_s_per_weight", {{"w4a16-g128", 5e-13}}}};
  write(path, gpu.dump());
}
nlohmann::json readJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}
std::size_t lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}
}  // namespace

TEST_CASE("qfront model --input-len --output-len in JSON, CSV and table", "[cli][e2e]") {
  const std::vector<std::string> base{
      "model",    "--model",         "llama-3-8b", "--gpu",         "h100-sxm",
      "--scheme", "bf16,w4a16-g128", "--batch",    "1,16",          "--input-len",
      "2048",     "--output-len",    "128",        "--overhead-ms", "2"};
  auto args = base;
  args.insert(args.end(), {"--format", "json"});
  const auto r = qfront(args);
  INFO(r.err);
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["scenario"]["input_len"] == 2048);
  CHECK(j["scenario"]["output_len"] == 128);
  CHECK(j["efficiency"]["overhead_ms"] == 2.0);
  for (const auto& s : j["schemes"]) {
    for (const auto& p : s["points"]) {
      const double b = p["batch"];
      const double lat = p["e2e_latency_s"];
      const double ttft = p["ttft_ms"];
      const double tpot = p["tpot_ms"];
      CHECK(lat == Approx(ttft / 1e3 + 127 * tpot / 1e3).epsilon(1e-12));
      CHECK(double(p["output_tokens_per_s"]) == Approx(b * 128 / lat));
      CHECK(double(p["total_tokens_per_s"]) == Approx(b * 2176 / lat));
      // The overhead is in every step: TPOT is at least the memory floor + 2 ms.
      CHECK(tpot > double(p["step_ms"]) - 1e-9);
    }
  }
  args = base;
  args.insert(args.end(), {"--format", "csv"});
  const auto c = qfront(args);
  REQUIRE(c.rc == 0);
  CHECK(c.out.rfind("scheme,batch,step_ms,tokens_per_s,bound,compute_eff,bw_eff,overhead_ms,"
                    "efficiency_source,input_len,output_len,ttft_ms,tpot_ms,e2e_latency_s,output_"
                    "tokens_per_s,total_tokens_per_s\n",
                    0) == 0);
  CHECK(lines(c.out) == 5);
  const auto t = qfront(base);
  REQUIRE(t.rc == 0);
  CHECK(t.out.find("static batch of 2048 prompt + 128 output tokens") != std::string::npos);
  CHECK(t.out.find("TTFT ms") != std::string::npos);
  // Without the lengths, no end-to-end columns.
  const auto plain = qfront({"model", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--scheme",
                             "bf16", "--batch", "1", "--format", "csv"});
  REQUIRE(plain.rc == 0);
  CHECK(plain.out.find("ttft_ms") == std::string::npos);
  // One length alone, or a bad one, is refused with exit 2.
  for (const auto& bad :
       std::vector<std::vector<std::string>>{{"--input-len", "128"},
                                             {"--input-len", "0", "--output-len", "5"},
                                             {"--input-len", "12", "--output-len", "x"}}) {
    std::vector<std::string> a{"model", "--model", "llama-3-8b", "--gpu", "h100-sxm"};
    a.insert(a.end(), bad.begin(), bad.end());
    const auto b = qfront(a);
    CHECK(b.rc == 2);
    CHECK(lines(b.err) == 1);
  }
}

TEST_CASE("qfront calibrate POINTS.csv fits, writes a GPU file qfront model reads", "[cli][e2e]") {
  TempDir dir;
  // Points made by the model itself with known constants (t0 4 ms, η_β 0.8, η_P bf16 0.6,
  // W4A16 dequant 5e-13 s/weight), then read back from the CSV.
  std::string csv = "model,gpu,tp,scheme,kv_dtype,batch,input_len,output_len,metric,value,unit\n";
  const std::string gpuFile = dir.file("truth.json");
  writeTruthGpu(gpuFile);
  for (const char* scheme : {"bf16", "w4a16-g128"}) {
    for (const char* batch : {"1", "8", "64"}) {
      for (auto [in, out] : {std::pair{"128", "256"}, {"2048", "128"}}) {
        const auto r =
            qfront({"model", "--model", "llama-3-8b", "--gpu", gpuFile, "--scheme", scheme,
                    "--batch", batch, "--input-len", in, "--output-len", out, "--format", "json"});
        REQUIRE(r.rc == 0);
        const auto p = nlohmann::json::parse(r.out)["schemes"][0]["points"][0];
        std::ostringstream row;
        row.precision(12);
        row << "llama-3-8b,h100-sxm,1," << scheme << ",bf16," << batch << "," << in << "," << out
            << ",e2e_latency_s," << double(p["e2e_latency_s"]) << ",s\n";
        row << "llama-3-8b,h100-sxm,1," << scheme << ",bf16," << batch << "," << in << "," << out
            << ",ttft_ms," << double(p["ttft_ms"]) << ",ms\n";
        csv += row.str();
      }
    }
  }
  // A row of another GPU is left out with a note.
  csv += "llama-3-8b,a100-80gb,1,bf16,bf16,1,128,128,e2e_latency_s,3.0,s\n";
  const std::string points = dir.file("points.csv");
  write(points, csv);
  const std::string outGpu = dir.file("h100.cal.json");
  // A free fit (--datasheet): the bundled H100 constants would otherwise be its prior.
  const auto r = qfront(
      {"calibrate", points, "--gpu", "h100-sxm", "--datasheet", "-o", outGpu, "--format", "json"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("1 point on a100-80gb left out") != std::string::npos);
  const auto j = nlohmann::json::parse(r.out);
  const auto& cal = j["calibration"];
  CHECK(double(cal["overhead_ms"]) == Approx(4.0).epsilon(1e-3));
  CHECK(double(cal["bandwidth_efficiency"]) == Approx(0.8).epsilon(1e-3));
  CHECK(double(cal["compute_efficiency"]["bf16"]) == Approx(0.6).epsilon(1e-3));
  CHECK(double(cal["dequant_s_per_weight"]["w4a16-g128"]) == Approx(5e-13).epsilon(1e-3));
  CHECK(cal["e2e_fit"]["residuals"].size() == 24);
  // The written file is a GPU file qfront model reads, and says where its constants came from.
  const auto m = qfront({"model", "--model", "llama-3-8b", "--gpu", outGpu, "--scheme", "bf16",
                         "--batch", "1", "--format", "json"});
  REQUIRE(m.rc == 0);
  CHECK(nlohmann::json::parse(m.out)["efficiency"]["source"].get<std::string>().find(
            "qfront calibrate on") != std::string::npos);
  // The table lists every constant with its spread and every point's residual.
  const auto t = qfront({"calibrate", points, "--gpu", "h100-sxm", "--datasheet"});
  REQUIRE(t.rc == 0);
  CHECK(t.out.find("overhead_ms") != std::string::npos);
  CHECK(t.out.find("points.csv row 25") != std::string::npos);
}

TEST_CASE("qfront calibrate POINTS.csv refuses bad input with one line and writes nothing",
          "[cli][e2e]") {
  TempDir dir;
  const std::string header =
      "model,gpu,tp,scheme,kv_dtype,batch,input_len,output_len,metric,value,unit\n";
  const std::string ok = "llama-3-8b,h100-sxm,1,bf16,bf16,1,128,128,e2e_latency_s,1.2,s\n";
  struct Case {
    std::string body;
    std::string says;
  };
  for (const auto& c : std::vector<Case>{
           {ok + "llama-3-8b,h100-sxm,1,bf16,bf16,1,128,128,e2e_latency_s\n", "row 3"},
           {ok + "llama-3-8b,h100-sxm,1,bf16,bf16,1,128,128,speed,3,s\n", "metric"},
           {ok + "llama-3-8b,h100-sxm,1,bf16,bf16,1,128,128,e2e_latency_s,-3,s\n", "value"},
           {ok + "nope,h100-sxm,1,bf16,bf16,1,128,128,e2e_latency_s,3,s\n", "model"},
           {ok + "llama-3-8b,nope,1,bf16,bf16,1,128,128,e2e_latency_s,3,s\n", "gpu"},
           {ok, "cannot determine"}}) {
    const std::string path = dir.file("bad.csv");
    const std::string outGpu = dir.file("out.json");
    write(path, header + c.body);
    const auto r = qfront({"calibrate", path, "--gpu", "h100-sxm", "--datasheet", "-o", outGpu});
    CHECK(r.rc == 2);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find(c.says) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(outGpu));
  }
  // --gpu is required for a CSV.
  const std::string path = dir.file("p.csv");
  write(path, header + ok);
  const auto r = qfront({"calibrate", path});
  CHECK(r.rc == 2);
  CHECK(r.err.find("--gpu") != std::string::npos);
  // --device and --model pick a session's kernel records: with a CSV they were ignored.
  for (const auto& [opt, field] :
       {std::pair<std::string, std::string>{"--device", "device"}, {"--model", "model"}}) {
    const auto d = qfront({"calibrate", path, "--gpu", "h100-sxm", opt, "x"});
    CHECK(d.rc == 2);
    CHECK(lines(d.err) == 1);
    CHECK(d.err.find("field '" + field + "'") != std::string::npos);
  }
}

namespace {

/// Mean over the seven use cases of arXiv:2411.02355 (prompt + output tokens, one request at
/// a time) of bf16's modelled latency over `scheme`'s, on `tp` of `gpu`: the paper's
/// synchronous cost reduction at a fixed GPU count.
double costReduction(const std::string& model, const std::string& gpu, int tp,
                     const std::string& scheme) {
  const std::pair<int, int> useCases[] = {{256, 1024}, {768, 128}, {1024, 1024}, {1024, 128},
                                          {256, 128},  {512, 256}, {4096, 512}};
  double sum = 0;
  for (auto [in, out] : useCases) {
    const auto r =
        qfront({"model", "--model", model, "--gpu", gpu, "--tp", std::to_string(tp), "--scheme",
                "bf16," + scheme, "--batch", "1", "--input-len", std::to_string(in), "--output-len",
                std::to_string(out), "--format", "json"});
    INFO(r.err);
    REQUIRE(r.rc == 0);
    const auto j = nlohmann::json::parse(r.out);
    sum += j["schemes"][0]["points"][0]["e2e_latency_s"].get<double>() /
           j["schemes"][1]["points"][0]["e2e_latency_s"].get<double>();
  }
  return sum / 7;
}

/// arXiv:2411.02355's asynchronous speedup as its text quotes it: the scheme's saturated
/// output rate over bf16's on the same GPUs, the mean over its seven use cases.
double asyncSpeedup(const std::string& model, const std::string& gpu, int tp,
                    const std::string& scheme) {
  const std::pair<int, int> useCases[] = {{256, 1024}, {768, 128}, {1024, 1024}, {1024, 128},
                                          {256, 128},  {512, 256}, {4096, 512}};
  auto rate = [&](const std::string& id, int in, int out) {
    const auto r =
        qfront({"serving", "--model", model, "--gpu", gpu, "--tp", std::to_string(tp), "--scheme",
                id, "--input-len", std::to_string(in), "--output-len", std::to_string(out),
                "--load", "max", "--requests", "200", "--format", "json"});
    INFO(r.err);
    REQUIRE(r.rc == 0);
    return nlohmann::json::parse(r.out)["loads"][0]["analytic_output_tok_s"].get<double>();
  };
  double sum = 0;
  for (auto [in, out] : useCases) sum += rate(scheme, in, out) / rate("bf16", in, out);
  return sum / 7;
}

}  // namespace

TEST_CASE("the paper's asynchronous INT8 speedups on the A6000 are not overstated",
          "[cli][e2e][bundled]") {
  // 1.38x (8B, one A6000) and 1.91x (70B, four) published. The bundled A6000 constants state
  // bf16's fraction of its tensor peak alone (0.676); INT8 takes that fraction of its own peak.
  // At the datasheet's whole INT8 peak, as before, these read 1.85x and 2.80x (+34%, +46%).
  const double int8 = asyncSpeedup("llama-3.1-8b", "a6000", 1, "w8a8-int8");
  CHECK(int8 == Approx(1.38).epsilon(0.20));
  const double int8x4 = asyncSpeedup("llama-3.1-70b", "a6000", 4, "w8a8-int8");
  CHECK(int8x4 == Approx(1.91).epsilon(0.25));
  // INT8's tensor rate on an A6000 is twice bf16's: at saturation the ratio stays below 2.5x.
  CHECK(int8x4 < 2.5);
}

TEST_CASE("Hopper's Marlin bandwidth reproduces the paper's H100 cost reduction",
          "[cli][e2e][bundled]") {
  // W4A16 and FP8 over bf16, Llama-3.1-70B on 2 H100s, 2.11x and 1.84x published. Not fitted:
  // the bundled H100 constants come from the published H100 sets (a step's fixed costs, t0 +
  // 2·L·α, 7.7 ms, where vLLM 0.6.4's runs here imply about 2 ms), which dilutes both ratios
  // alike by about 14% (docs/benchmarks.md); the ranking holds. (Fitted to this one ratio
  // before, Marlin's η_k read 0.679; with these constants the ratio would ask 0.96.)
  const double w4h100 = costReduction("llama-3.1-70b", "h100-sxm", 2, "w4a16-g128");
  const double fp8h100 = costReduction("llama-3.1-70b", "h100-sxm", 2, "w8a8-fp8");
  CHECK(w4h100 == Approx(2.11).epsilon(0.16));
  CHECK(fp8h100 == Approx(1.84).epsilon(0.16));
  CHECK(w4h100 > fp8h100);
  // The Ampere ratios, which the H100 constants do not touch (W4A16 2.67x on 2 A100s, 2.39x on
  // one A6000; W8A8-INT8 1.81x and 1.54x).
  CHECK(costReduction("llama-3.1-70b", "a100-80gb", 2, "w4a16-g128") == Approx(2.67).epsilon(0.06));
  CHECK(costReduction("llama-3.1-70b", "a100-80gb", 2, "w8a8-int8") == Approx(1.81).epsilon(0.06));
  CHECK(costReduction("llama-3.1-8b", "a6000", 1, "w4a16-g128") == Approx(2.39).epsilon(0.12));
  CHECK(costReduction("llama-3.1-8b", "a6000", 1, "w8a8-int8") == Approx(1.54).epsilon(0.15));
  // The 8B on one H100 at batch 1: W4A16 about 1.6x bf16 end to end, far below the 3.9x the
  // storage ratio alone says (the per-step fixed cost, Marlin's 0.679 of the bandwidth and the
  // bf16 LM head); its fallbacks (NVFP4, W4A8-FP8 on Hopper run as W4A16) are never faster.
  const double w4 = costReduction("llama-3.1-8b", "h100-sxm", 1, "w4a16-g128");
  CHECK(w4 > 1.3);
  CHECK(w4 < 1.75);
  CHECK(costReduction("llama-3.1-8b", "h100-sxm", 1, "nvfp4") <= w4 * (1 + 1e-9));
}

TEST_CASE("bundled defaults are the fit to the published figures, and say so", "[cli][e2e]") {
  const std::string points = std::string(QF_RESOURCE_DIR) + "/calibration/seed001-points.csv";
  const auto cat = qfront({"catalog", "--format", "json"});
  REQUIRE(cat.rc == 0);
  for (const char* gpu : {"a6000", "a100-80gb"}) {
    INFO(gpu);
    // Refit from the published points: the bundled constants come out again (the fit starts
    // from the bundled record as its prior; scripts/fit-bundled-seed001.sh repeats it to a fixed
    // point within 1e-4).
    const auto fit = qfront({"calibrate", points, "--gpu", gpu, "--format", "json"});
    INFO(fit.err);
    REQUIRE(fit.rc == 0);
    const auto cal = nlohmann::json::parse(fit.out)["calibration"];
    const auto m = qfront({"model", "--model", "llama-3.1-8b", "--gpu", gpu, "--scheme", "bf16",
                           "--batch", "1", "--format", "json"});
    REQUIRE(m.rc == 0);
    const auto eff = nlohmann::json::parse(m.out)["efficiency"];
    CHECK(eff["source"].get<std::string>().rfind("bundled defaults: fitted to", 0) == 0);
    CHECK(double(eff["overhead_ms"]) == Approx(double(cal["overhead_ms"])).epsilon(1e-4));
    CHECK(double(eff["bandwidth_efficiency"]) ==
          Approx(double(cal["bandwidth_efficiency"])).epsilon(1e-4));
    // The refit's scatter is the bundled record's (the 6 A6000 points; the A100's two points,
    // which two constants meet exactly, are taken to scatter by the 10% reference scale).
    CHECK(double(cal["e2e_fit"]["sigma_log"]) >= 0.1);
  }
  // So the A100's figures carry an interval: a 70B step at batch 64 on four is known to no
  // better than about ±20%, not to the 0.01% an exact fit of two points claimed.
  const auto a100 = qfront({"model", "--model", "llama-3.1-70b", "--gpu", "a100-80gb", "--tp", "4",
                            "--scheme", "bf16", "--batch", "64", "--format", "json"});
  REQUIRE(a100.rc == 0);
  const auto pt = nlohmann::json::parse(a100.out)["schemes"][0]["points"][0];
  CHECK(pt["step_ms_interval"][1].get<double>() / pt["step_ms_interval"][0].get<double>() > 1.2);
  // The H200 carries the H100 SXM fit over, marked so; a GPU without published figures of
  // its generation carries the A6000 fit.
  const auto h = qfront({"model", "--model", "llama-3-8b", "--gpu", "h200-sxm", "--scheme", "bf16",
                         "--batch", "1", "--format", "json"});
  REQUIRE(h.rc == 0);
  CHECK(nlohmann::json::parse(h.out)["efficiency"]["source"].get<std::string>().find(
            "carried over from the H100 SXM fit") != std::string::npos);
  const auto l = qfront({"model", "--model", "llama-3-8b", "--gpu", "l40s", "--scheme", "bf16",
                         "--batch", "1", "--format", "json"});
  REQUIRE(l.rc == 0);
  CHECK(nlohmann::json::parse(l.out)["efficiency"]["source"].get<std::string>().find(
            "carried over from the A6000 fit") != std::string::npos);
  // The defaults predict the published A6000 latencies far better than the datasheet: Llama-3.1-8B
  // bf16 and W4A16, 256 prompt + 1024 output tokens, one request: 24.5 s and 9.7 s
  // (arXiv:2411.02355 Table 5).
  for (auto [scheme, published] : {std::pair{"bf16", 24.5}, {"w4a16-g128", 9.7}}) {
    std::vector<std::string> args{"model", "--model",     "llama-3.1-8b", "--gpu",
                                  "a6000", "--scheme",    scheme,         "--batch",
                                  "1",     "--input-len", "256",          "--output-len",
                                  "1024",  "--format",    "json"};
    const auto c = qfront(args);
    args.push_back("--datasheet");
    const auto d = qfront(args);
    REQUIRE(c.rc == 0);
    REQUIRE(d.rc == 0);
    const double calibrated =
        nlohmann::json::parse(c.out)["schemes"][0]["points"][0]["e2e_latency_s"];
    const double datasheet =
        nlohmann::json::parse(d.out)["schemes"][0]["points"][0]["e2e_latency_s"];
    CHECK(std::abs(calibrated / published - 1) < 0.12);
    CHECK(std::abs(datasheet / published - 1) > 0.15);
  }
}

TEST_CASE("qfront calibrate SESSION fits the session's static-batch runs", "[cli][e2e]") {
  TempDir dir;
  // vLLM bench latency files made by the model with known constants (t0 4 ms, η_β 0.8, η_P
  // bf16 0.6, W4A16 dequant 5e-13 s/weight), imported with the batch and lengths they were
  // "timed" at; calibrating the session recovers the constants.
  const std::string gpuFile = dir.file("truth.json");
  writeTruthGpu(gpuFile);
  const std::string session = dir.file("measured.json");
  int files = 0;
  for (const char* scheme : {"bf16", "w4a16-g128"}) {
    for (const char* batch : {"1", "8", "64"}) {
      for (auto [in, out] : {std::pair{"128", "256"}, {"2048", "128"}, {"512", "32"}}) {
        const auto r =
            qfront({"model", "--model", "llama-3-8b", "--gpu", gpuFile, "--scheme", scheme,
                    "--batch", batch, "--input-len", in, "--output-len", out, "--format", "json"});
        REQUIRE(r.rc == 0);
        const double v = nlohmann::json::parse(r.out)["schemes"][0]["points"][0]["e2e_latency_s"];
        const std::string file = dir.file("latency" + std::to_string(files++) + ".json");
        write(file, nlohmann::json{{"avg_latency", v},
                                   {"latencies", {v, v, v}},
                                   {"percentiles", {{"50", v}, {"99", v}}}}
                        .dump());
        const auto imp =
            qfront({"import", file, "-o", session, "--candidate", std::string("c-") + scheme,
                    "--model", "llama-3-8b", "--scheme", scheme, "--gpu", "h100-sxm", "--batch",
                    batch, "--input-len", in, "--output-len", out});
        INFO(imp.err);
        REQUIRE(imp.rc == 0);
      }
    }
  }
  // A latency file imported without its batch is left out with a note saying what to do.
  const std::string bare = dir.file("bare.json");
  write(bare, R"({"avg_latency": 0.5, "latencies": [0.5], "percentiles": {"50": 0.5}})");
  REQUIRE(qfront({"import", bare, "-o", session, "--candidate", "c-bf16"}).rc == 0);

  const std::string outGpu = dir.file("h100.cal.json");
  // A free fit (--datasheet), as the CSV's above.
  const auto r = qfront({"calibrate", session, "--datasheet", "-o", outGpu, "--format", "json"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("bare.json: its file states no batch or lengths; import it with --batch") !=
        std::string::npos);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["gpu"] == "h100-sxm");  // the candidates' GPU, since --gpu was not given
  CHECK(j["points"] == 18);
  const auto& cal = j["calibration"];
  CHECK(double(cal["overhead_ms"]) == Approx(4.0).epsilon(0.03));
  CHECK(double(cal["bandwidth_efficiency"]) == Approx(0.8).epsilon(0.03));
  CHECK(double(cal["compute_efficiency"]["bf16"]) == Approx(0.6).epsilon(0.03));
  CHECK(double(cal["dequant_s_per_weight"]["w4a16-g128"]) == Approx(5e-13).epsilon(0.03));
  // The written GPU file is one qfront model reads.
  CHECK(qfront(
            {"model", "--model", "llama-3-8b", "--gpu", outGpu, "--scheme", "bf16", "--batch", "1"})
            .rc == 0);
}

TEST_CASE("qfront import --batch needs all three lengths, each a whole number", "[cli][e2e]") {
  TempDir dir;
  const std::string file = std::string(QF_TEST_DATA_DIR) + "/import/vllm_latency.json";
  const std::string session = dir.file("s.json");
  for (const auto& bad : std::vector<std::vector<std::string>>{
           {"--batch", "8"},
           {"--batch", "8", "--input-len", "128"},
           {"--batch", "0", "--input-len", "128", "--output-len", "16"},
           {"--batch", "8", "--input-len", "1.5", "--output-len", "16"},
           {"--batch", "8", "--input-len", "128", "--output-len", "-o"}}) {
    std::vector<std::string> a{"import", file, "-o", session};
    a.insert(a.end(), bad.begin(), bad.end());
    const auto r = qfront(a);
    INFO(r.err);
    CHECK(r.rc == 2);
    CHECK(lines(r.err) == 1);
  }
  std::ifstream in(session);
  CHECK_FALSE(in.good());  // nothing written
  const auto ok = qfront({"import", file, "-o", session, "--batch", "8", "--input-len", "128",
                          "--output-len", "16", "--format", "json"});
  INFO(ok.err);
  REQUIRE(ok.rc == 0);
  const auto s = readJson(session);
  bool stamped = false;
  for (const auto& run : s["imported_runs"]) {
    if (run.contains("setup") && run["setup"].contains("quantfront/batch")) {
      stamped = run["setup"]["quantfront/batch"] == "8" &&
                run["setup"]["quantfront/input_len"] == "128" &&
                run["setup"]["quantfront/output_len"] == "16";
    }
  }
  CHECK(stamped);
}

TEST_CASE("qfront import --tp records the TP of a static-batch run, alone or with --batch",
          "[cli][e2e]") {
  TempDir dir;
  const std::string file = std::string(QF_TEST_DATA_DIR) + "/import/vllm_latency.json";
  const std::string session = dir.file("s.json");
  for (const char* bad : {"0", "2.5", "x", "2000"}) {
    const auto r = qfront({"import", file, "-o", session, "--tp", bad});
    CHECK(r.rc == 2);
    CHECK(r.err.find("tp") != std::string::npos);
    CHECK(lines(r.err) == 1);
  }
  const auto ok = qfront({"import", file, "-o", session, "--tp", "2"});
  INFO(ok.err);
  REQUIRE(ok.rc == 0);
  const auto s = readJson(session);
  int withTp = 0;
  for (const auto& run : s["imported_runs"]) {
    if (!run.contains("setup")) continue;
    if (run["setup"].value("quantfront/tp", "") == "2") ++withTp;
    CHECK_FALSE(run["setup"].contains("quantfront/batch"));  // --tp alone stamps no batch
  }
  CHECK(withTp == 1);
}

TEST_CASE("qfront calibrate --check predicts each point with the GPU's constants, fitting nothing",
          "[cli][e2e]") {
  TempDir dir;
  const std::string gpuFile = dir.file("truth.json");
  writeTruthGpu(gpuFile);
  // Points the model makes at the truth constants, with a trailing source column.
  std::string csv =
      "model,gpu,tp,scheme,kv_dtype,batch,input_len,output_len,metric,value,unit,source\n";
  for (const char* batch : {"1", "16"}) {
    const auto r =
        qfront({"model", "--model", "llama-3-8b", "--gpu", gpuFile, "--scheme", "bf16", "--batch",
                batch, "--input-len", "512", "--output-len", "256", "--format", "json"});
    REQUIRE(r.rc == 0);
    const auto p = nlohmann::json::parse(r.out)["schemes"][0]["points"][0];
    std::ostringstream row;
    row.precision(12);
    row << "llama-3-8b,h100-sxm,1,bf16,bf16," << batch << ",512,256,e2e_latency_s,"
        << double(p["e2e_latency_s"]) << ",s,made by the model\n";
    row << "llama-3-8b,h100-sxm,1,bf16,bf16," << batch << ",512,256,total_tok_s,"
        << double(p["total_tokens_per_s"]) << ",tok/s,made by the model\n";
    csv += row.str();
  }
  const std::string points = dir.file("points.csv");
  write(points, csv);
  // The truth constants reproduce their own points exactly.
  const auto truth = qfront({"calibrate", points, "--gpu", gpuFile, "--check", "--format", "json"});
  INFO(truth.err);
  REQUIRE(truth.rc == 0);
  const auto j = nlohmann::json::parse(truth.out);
  CHECK(j["all"]["points"] == 4);
  CHECK(j["latency"]["points"] == 2);
  CHECK(j["throughput"]["points"] == 2);
  CHECK(double(j["all"]["median_abs_error_pct"]) < 1e-6);
  CHECK(j["constants_source"].get<std::string>().find("truth") != std::string::npos);
  // The ideal roofline is faster than the truth (4 ms a step more, 80% of the bandwidth):
  // latencies predicted short, throughputs high.
  const auto ideal =
      qfront({"calibrate", points, "--gpu", gpuFile, "--check", "--datasheet", "--format", "json"});
  REQUIRE(ideal.rc == 0);
  const auto d = nlohmann::json::parse(ideal.out);
  CHECK(d["roofline"] == "datasheet");
  CHECK(double(d["latency"]["median_error_pct"]) < -10);
  CHECK(double(d["throughput"]["median_error_pct"]) > 10);
  for (const auto& p : d["points"]) CHECK(p["low"] == p["high"]);  // no fit, no interval
  // The table names every point and a summary line per group.
  const auto t = qfront({"calibrate", points, "--gpu", gpuFile, "--check"});
  REQUIRE(t.rc == 0);
  CHECK(t.out.find("points.csv row 5") != std::string::npos);
  CHECK(t.out.find("throughput  2 points") != std::string::npos);
  // --check writes nothing and takes a CSV; --datasheet only with it.
  for (const auto& bad : std::vector<std::vector<std::string>>{
           {"calibrate", points, "--gpu", gpuFile, "--check", "-o", dir.file("x.json")},
           {"calibrate", points, "--gpu", gpuFile, "--datasheet"},
           {"calibrate", points, "--check"}}) {
    const auto r = qfront(bad);
    CHECK(r.rc == 2);
    CHECK(lines(r.err) == 1);
  }
  std::ifstream none(dir.file("x.json"));
  CHECK_FALSE(none.good());
}

TEST_CASE(
    "qfront calibrate counts a repeated row once and refuses points faster than the "
    "roofline",
    "[cli][calibrate]") {
  TempDir dir;
  const std::string published =
      std::string(QF_RESOURCE_DIR) + "/calibration/published/h100-vllm-test.csv";
  std::istringstream in(readAll(published));
  std::string header, line;
  std::getline(in, header);
  std::vector<std::string> rows;
  while (rows.size() < 5 && std::getline(in, line)) rows.push_back(line);
  REQUIRE(rows.size() == 5);
  auto csvOf = [&](int copies) {
    std::string csv = header + "\n";
    for (int c = 0; c < copies; ++c) {
      for (const auto& r : rows) csv += r + "\n";
    }
    return csv;
  };
  const std::string five = dir.file("five.csv"), many = dir.file("many.csv");
  write(five, csvOf(1));
  write(many, csvOf(200));
  const auto once = qfront({"calibrate", five, "--gpu", "h100-sxm", "--format", "json"});
  const auto repeated = qfront({"calibrate", many, "--gpu", "h100-sxm", "--format", "json"});
  INFO(once.err + repeated.err);
  REQUIRE(once.rc == 0);
  REQUIRE(repeated.rc == 0);
  CHECK(repeated.err.find("995 rows repeat a point already given") != std::string::npos);
  const auto a = nlohmann::json::parse(once.out), b = nlohmann::json::parse(repeated.out);
  // The same five points: the same constants and spreads (1,000 rows used to outweigh the
  // prior 200-fold and shrink every spread).
  for (const char* k : {"overhead_ms", "bandwidth_efficiency", "seq_overhead_us"}) {
    CAPTURE(k);
    CHECK(double(b["calibration"][k]) == Approx(double(a["calibration"][k])).epsilon(1e-9));
  }
  CHECK(double(b["calibration"]["compute_efficiency"]["bf16"]) ==
        Approx(double(a["calibration"]["compute_efficiency"]["bf16"])).epsilon(1e-9));

  // A whole batch in 1 ns on an H100.
  std::string fast = header + "\n";
  for (auto r : rows) {
    // value is the 10th column
    std::size_t at = 0;
    for (int c = 0; c < 9; ++c) at = r.find(',', at) + 1;
    r.replace(at, r.find(',', at) - at, "1e-09");
    fast += r + "\n";
  }
  const std::string fastFile = dir.file("fast.csv");
  write(fastFile, fast);
  for (const bool check : {false, true}) {
    std::vector<std::string> args = {"calibrate", fastFile, "--gpu", "h100-sxm"};
    if (check) args.push_back("--check");
    const auto r = qfront(args);
    CHECK(r.rc == 2);
    CHECK(r.err.find("field 'value'") != std::string::npos);
    CHECK(r.err.find("datasheet roofline allows") != std::string::npos);
  }
}

TEST_CASE("qfront calibrate SESSION refuses a sweep with a run of another model", "[cli][e2e]") {
  TempDir dir;
  const std::string sweep = std::string(QF_TEST_DATA_DIR) + "/import/sweep/";
  const std::string session = dir.file("s.json");
  // The FP8 8B's sweep; one of its files attached to a 70B candidate (as attaching a run to
  // the candidate on display can do).
  for (const char* rate : {"1", "2", "4"}) {
    const bool wrong = std::string(rate) == "4";
    const auto imp =
        qfront({"import", sweep + "vllm_serve_fp8_rate" + rate + ".json", "-o", session,
                "--candidate", wrong ? "c-70b" : "c-8b", "--gpu", "h100-sxm"});
    INFO(imp.err);
    REQUIRE(imp.rc == 0);
  }
  auto j = nlohmann::json::parse(std::ifstream(session));
  for (auto& c : j["candidates"]) {
    if (c["id"] == "c-70b") c["model"] = "llama-3.1-70b";
  }
  std::ofstream(session) << j.dump();
  const std::string outGpu = dir.file("cal.json");
  const auto r = qfront({"calibrate", session, "-o", outGpu});
  INFO(r.err);
  CHECK(r.rc == 2);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("vllm_serve_fp8_rate4.json") != std::string::npos);
  CHECK(r.err.find("model_id") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(outGpu));
}
