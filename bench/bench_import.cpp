// Import speed and memory on a ~100 MB detailed vLLM `bench serve --save-result` file.
//
// Writes the file (deterministic content: per-request ttfts, itls as lists of seconds,
// lengths, errors, generated texts, as vLLM writes them with --save-detailed), then imports
// it once per repetition, each in a fresh process (this binary re-run with --import-once) so
// that the peak resident set (getrusage ru_maxrss) is the import's alone. The harness prints
// JSON: per point the child's import times (wall and CPU), the peak RSS and its ratio to the
// file size, against the targets (< 2 s, < 3x the file size).
//
// Usage: qf_bench_import [--repetitions N] [--axis bytes=N,...] [--axis file=PATH]
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/version.hpp>
#include <quantfront/core/import/importers.hpp>

#include "harness.hpp"

namespace {

constexpr double kTargetWallS = 2.0;
constexpr double kTargetRssRatio = 3.0;

/// Small deterministic generator (64-bit LCG, high bits).
class Lcg {
 public:
  explicit Lcg(std::uint64_t seed) : m_state(seed) {}
  double uniform() {
    m_state = m_state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(m_state >> 11) * (1.0 / 9007199254740992.0);
  }

 private:
  std::uint64_t m_state;
};

void appendNumber(std::string& out, double v) {
  std::array<char, 32> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  out.append(buf.data(), r.ptr);
}

/// Writes a detailed vLLM serve result of about `targetBytes`; returns the request count.
std::size_t writeVllmFile(const std::string& path, std::uint64_t targetBytes) {
  constexpr std::size_t kGapsPerRequest = 200;
  constexpr double kBytesPerRequest = 4500.0;  // ~4.2 KB of gaps, text and lengths
  const auto requests =
      static_cast<std::size_t>(static_cast<double>(targetBytes) / kBytesPerRequest);
  Lcg rng(20260722);
  std::vector<double> ttfts(requests);
  std::vector<std::size_t> outLens(requests);
  for (std::size_t i = 0; i < requests; ++i) {
    ttfts[i] = 0.02 + 0.5 * rng.uniform();
    outLens[i] = kGapsPerRequest / 2 + static_cast<std::size_t>(rng.uniform() * kGapsPerRequest);
  }
  std::ofstream out(path, std::ios::binary);
  std::string chunk;
  chunk.reserve(1u << 20);
  auto flush = [&]() {
    out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    chunk.clear();
  };
  chunk +=
      "{\"date\": \"20260722-060114\", \"endpoint_type\": \"openai\", \"backend\": \"vllm\", "
      "\"label\": null, \"model_id\": \"meta-llama/Llama-3.1-8B-Instruct\", "
      "\"tokenizer_id\": \"meta-llama/Llama-3.1-8B-Instruct\", \"num_prompts\": ";
  chunk += std::to_string(requests);
  chunk +=
      ", \"request_rate\": \"inf\", \"burstiness\": 1.0, \"max_concurrency\": 256, "
      "\"duration\": 600.5, \"completed\": ";
  chunk += std::to_string(requests);
  chunk +=
      ", \"failed\": 0, \"total_input_tokens\": 1, \"total_output_tokens\": 1, "
      "\"request_throughput\": 30.1, \"request_goodput\": null, \"output_throughput\": "
      "4500.2, \"total_token_throughput\": 35000.0, \"input_lens\": [";
  for (std::size_t i = 0; i < requests; ++i) {
    chunk += (i ? ", " : "") + std::to_string(512 + (i * 37) % 1500);
  }
  chunk += "], \"output_lens\": [";
  for (std::size_t i = 0; i < requests; ++i) chunk += (i ? ", " : "") + std::to_string(outLens[i]);
  chunk += "], \"ttfts\": [";
  for (std::size_t i = 0; i < requests; ++i) {
    if (i) chunk += ", ";
    appendNumber(chunk, ttfts[i]);
  }
  chunk += "], \"itls\": [";
  for (std::size_t i = 0; i < requests; ++i) {
    chunk += i ? ", [" : "[";
    for (std::size_t g = 0; g + 1 < outLens[i]; ++g) {
      if (g) chunk += ", ";
      appendNumber(chunk, 0.008 + 0.03 * rng.uniform());
    }
    chunk += "]";
    if (chunk.size() > (1u << 20) - 8192) flush();
  }
  chunk += "], \"generated_texts\": [";
  for (std::size_t i = 0; i < requests; ++i) {
    chunk += i ? ", \"" : "\"";
    for (int w = 0; w < 40; ++w) chunk += " token";
    chunk += " \\u00e9\\n\"";
    if (chunk.size() > (1u << 20) - 8192) flush();
  }
  chunk += "], \"errors\": [";
  for (std::size_t i = 0; i < requests; ++i) chunk += i ? ", \"\"" : "\"\"";
  chunk +=
      "], \"mean_ttft_ms\": 270.0, \"median_ttft_ms\": 270.0, \"std_ttft_ms\": 144.3, "
      "\"p99_ttft_ms\": 515.0, \"mean_tpot_ms\": 23.0, \"median_tpot_ms\": 23.0, "
      "\"std_tpot_ms\": 0.6, \"p99_tpot_ms\": 24.5, \"mean_itl_ms\": 23.0, "
      "\"median_itl_ms\": 23.0, \"std_itl_ms\": 8.6, \"p99_itl_ms\": 37.7}";
  flush();
  return requests;
}

long maxRssKb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

/// User + system CPU seconds this process has used.
double cpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto s = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  return s(usage.ru_utime) + s(usage.ru_stime);
}

/// The 1-minute load average: on a shared machine, wall time depends on it.
std::string loadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string first;
  in >> first;
  return first.empty() ? "null" : first;
}

/// Child mode: import once, print "seconds cpu_seconds rss_kb requests itl_values".
int importOnce(const std::string& path) {
  const double cpu0 = cpuSeconds();
  const auto t0 = std::chrono::steady_clock::now();
  auto report = qf::importFile(path);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = cpuSeconds() - cpu0;
  if (!report) {
    std::cerr << report.error().str() << "\n";
    return 1;
  }
  std::size_t gaps = 0;
  for (const auto& r : report->runs.at(0).requests) gaps += r.itlsS.size();
  std::cout << seconds << " " << cpu << " " << maxRssKb() << " "
            << report->runs.at(0).requests.size() << " " << gaps << "\n";
  return 0;
}

/// Child mode: do nothing; the resident set of a bare process for reference.
int baselineOnce() {
  std::cout << maxRssKb() << "\n";
  return 0;
}

std::string selfPath() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

std::string runChild(const std::string& args) {
  const std::string command = "'" + selfPath() + "' " + args;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {};
  std::string out;
  std::array<char, 256> buf{};
  while (fgets(buf.data(), static_cast<int>(buf.size()), pipe)) out += buf.data();
  if (pclose(pipe) != 0) return {};
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  // The child modes come first: they are this binary re-run by the benchmark.
  if (argc == 3 && std::string(argv[1]) == "--import-once") return importOnce(argv[2]);
  if (argc == 2 && std::string(argv[1]) == "--baseline-once") return baselineOnce();
  qf::bench::Suite suite(argc, argv);
  suite
      .add("import_vllm_serve_detailed",
           [](qf::bench::State& st) {
             const std::string path = st.text("file");
             const auto targetBytes = static_cast<std::uint64_t>(st.number("bytes"));
             const auto tGen = std::chrono::steady_clock::now();
             const std::size_t requests = writeVllmFile(path, targetBytes);
             st.set("generate_s",
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - tGen).count());
             const auto fileBytes = std::filesystem::file_size(path);
             // Each repetition imports in a child: its own times and peak RSS are the figures.
             std::vector<double> walls, cpus;
             long peakKb = 0;
             std::size_t readRequests = 0, gaps = 0;
             bool ok = true;
             st.exec([&] {
               std::istringstream in(runChild("--import-once '" + path + "'"));
               double s = 0, cpu = 0;
               long kb = 0;
               if (!(in >> s >> cpu >> kb >> readRequests >> gaps)) {
                 ok = false;
                 return;
               }
               walls.push_back(s);
               cpus.push_back(cpu);
               peakKb = std::max(peakKb, kb);
             });
             if (!ok) return st.fail("the import child failed");
             long baselineKb = 0;
             std::istringstream(runChild("--baseline-once")) >> baselineKb;
             const double peakBytes = static_cast<double>(peakKb) * 1024.0;
             const double ratio = peakBytes / static_cast<double>(fileBytes);
             st.set("file", path);
             st.set("file_bytes", fileBytes);
             st.set("requests", readRequests);
             st.set("itl_values", gaps);
             st.set("import_wall_s_runs", walls);
             st.set("import_wall_s_median", qf::bench::median(walls));
             st.set("import_cpu_s_median", qf::bench::median(cpus));
             st.set("load_average_1min", loadAverage());
             st.set("peak_rss_bytes", static_cast<long long>(peakBytes));
             st.set("baseline_rss_bytes", baselineKb * 1024);
             st.set("peak_rss_to_file_ratio", ratio);
             st.set("pass", qf::bench::median(walls) < kTargetWallS && ratio < kTargetRssRatio &&
                                readRequests == requests);
           })
      .about(
          "a detailed vLLM bench serve result (per-request ttfts, itls, texts) imported in a "
          "fresh process per repetition")
      .axis("bytes", {100.0 * 1000 * 1000})
      .axis("file", {"/tmp/qf_bench_import_vllm_serve.json"});
  suite.set("target_wall_s", kTargetWallS);
  suite.set("target_rss_ratio", kTargetRssRatio);
  return suite.run(std::cout, std::cerr);
}
