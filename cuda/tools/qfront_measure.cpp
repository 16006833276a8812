// qfront-measure: times the dequant and GEMM kernels of a model's decode step on the attached
// GPU and adds the records to a session (atomically, like `qfront import`), for
// `qfront calibrate` and the window's measured points.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <csignal>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/device_json.hpp>
#include <quantfront/core/base/resources.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/core/base/version.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/session/file_lock.hpp>
#include <quantfront/core/session/session.hpp>
#include <quantfront/cuda/device.hpp>
#include <quantfront/cuda/measure.hpp>
#include <quantfront/cuda/measure_session.hpp>

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitBadInput = 2;

constexpr const char* kHelp =
    R"(usage: qfront-measure --out SESSION [--model ID|CONFIG.json] [--schemes LIST]
                      [--m-list M1,M2,...] [--quick] [--device N] [--progress-jsonl]
       qfront-measure --list-devices

Times, on the attached NVIDIA GPU, what a decode step of the model runs: the HBM copy and
read probes, the streaming dequantisation of each 4- and 8-bit scheme, and the model's
weight GEMMs (cuBLASLt bf16 / FP8 e4m3 / INT8, and the fused W4A16 g128 kernel) at each M.
Every kernel is checked against a host reference before it is timed; a kernel that fails
its check is reported and not stored. The records (median, min, relative noise, samples,
declared bytes and FLOPs) and the environment (device, SM count, clocks, driver and CUDA
versions, program version and git commit, date) are added to SESSION, created when missing,
written atomically: a failed or cancelled run leaves SESSION as it was.

  --out SESSION      session file to add the measurements to (its folder must exist)
  --model ID|PATH    catalog model id or a Hugging Face config.json (default llama-3-8b)
  --schemes LIST     comma-separated scheme ids (default bf16,w8a8-fp8,w4a16-g128); any of
                     bf16, w8a8-fp8, w8a8-int8, w4a16-g128, w4a16-g128-asym, w8a16,
                     w8a16-fp8, mxfp4
  --m-list LIST      GEMM rows (batch sizes), 1 to 64 positive integers up to 65536
                     (default 1,2,4,...,4096; with --quick 1,4,16,64,256,1024,4096)
  --quick            shorter sampling caps and fewer M: about a minute on an H100
  --device N         CUDA device index (default 0)
  --progress-jsonl   also one JSON line per record on stdout: {"done": fraction, "what": text,
                     "record": a session holding the record when it is valid} (the window's
                     Measure action reads it)
  --list-devices     print the CUDA devices as JSON ({"devices": [...], "why": ...}) and exit

Then: qfront calibrate SESSION -o my-gpu.json; qfront model --gpu my-gpu.json ...
Exit status: 0 success, 1 a kernel failed its correctness check or the run failed,
2 bad input or no CUDA device (one line on stderr).
)";

/// The most GEMM row counts one run measures.
constexpr std::size_t kMaxMListEntries = 64;

std::atomic<bool> gInterrupted{false};
void onSignal(int) {
  gInterrupted = true;
}

int bad(const std::string& field, const std::string& message) {
  std::cerr << "qfront-measure: <cli>: field '" << field << "': " << message << "\n";
  return kExitBadInput;
}

/// --schemes: each one a scheme a kernel measures; 0, or the exit status of a bad one.
int parseSchemes(const std::string& schemesArg, std::vector<std::string>& schemes) {
  for (const auto& s : qf::splitAt(schemesArg, ',')) {
    if (qf::measurableScheme(s) == nullptr) {
      std::string list;
      for (const auto& k : qf::measurableSchemeIds()) list += (list.empty() ? "" : ", ") + k;
      return bad("schemes", "no kernel measures scheme '" + s + "' (measurable: " + list + ")");
    }
    schemes.push_back(s);
  }
  return kExitOk;
}

/// --m-list: GEMM row counts replacing the default list; 0, or the exit status of a bad one.
int parseMList(const std::string& mArg, std::vector<std::int64_t>& mList) {
  if (mArg.empty()) {
    return bad("m-list",
               "expected at least one GEMM row count; leave --m-list out for the "
               "default list");
  }
  const auto items = qf::splitAt(mArg, ',');
  if (items.size() > kMaxMListEntries) {
    return bad("m-list", "at most " + std::to_string(kMaxMListEntries) +
                             " row counts (each is a full sweep of the model's GEMMs), found " +
                             std::to_string(items.size()));
  }
  mList.clear();
  for (const auto& s : items) {
    std::int64_t m = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), m);
    if (ec != std::errc() || p != s.data() + s.size() || m < 1 || m > 65536) {
      return bad("m-list",
                 "expected positive integers up to 65536 separated by commas, found '" + s + "'");
    }
    mList.push_back(m);
  }
  return kExitOk;
}

}  // namespace

/// --list-devices: the devices as one JSON object on stdout; exit 0 either way.
int listDevices() {
  std::string why;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& d : qf::cuda::queryDevices(why)) list.push_back(qf::deviceToJson(d));
  nlohmann::json out{{"devices", list}};
  if (list.empty()) out["why"] = why.empty() ? "no CUDA device visible" : why;
  qf::writeJsonOutput(std::cout, std::move(out));
  std::cout.flush();
  return kExitOk;
}

/// One record's progress: a line on stderr, and with --progress-jsonl a JSON line on stdout.
void reportRecord(const qf::cuda::MeasureRecord& r, double done, bool jsonl,
                  const std::string& device) {
  const std::string what = r.kernel + " " + r.scheme + " m=" + std::to_string(r.m) +
                           " n=" + std::to_string(r.n) + " k=" + std::to_string(r.k);
  std::cerr << "[" << static_cast<int>(done * 100) << "%] " << what << "  "
            << (r.valid ? std::to_string(r.medianS * 1e6) + " us" : "INVALID: " + r.check) << "\n";
  if (!jsonl) return;
  nlohmann::json line{{"done", done}, {"what", what}};
  if (r.valid) {
    qf::Session one;
    one.kernelMeasurements.push_back(qf::cuda::toKernelMeasurement(r, device, "qfront-measure"));
    line["record"] = qf::sessionToJson(one);
  }
  std::cout << line.dump() << std::endl;  // flushed: the reader shows it as it lands
}

/// What the command line asks for.
struct MeasureArgs {
  std::string out, modelId = "llama-3-8b", schemesArg = "bf16,w8a8-fp8,w4a16-g128", mArg;
  bool quick = false, progressJsonl = false;
  int device = 0;
  std::vector<std::string> seen;  ///< the value options given
};

/// Reads the options into `m`: nullopt to go on, else the exit code (--help, --version and
/// --list-devices done; a bad option said in one line).
std::optional<int> parseArgs(const std::vector<std::string>& args, MeasureArgs& m) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kHelp;
      return kExitOk;
    }
    if (a == "--version") {
      std::cout << "qfront-measure " << qf::qfrontVersion() << "\n";
      return kExitOk;
    }
    if (a == "--list-devices") return listDevices();
    if (a == "--quick" || a == "--progress-jsonl") {
      (a == "--quick" ? m.quick : m.progressJsonl) = true;
      continue;
    }
    const bool takesValue =
        a == "--out" || a == "--model" || a == "--schemes" || a == "--m-list" || a == "--device";
    if (!takesValue) return bad(a, "unknown option '" + a + "' (see qfront-measure --help)");
    if (std::find(m.seen.begin(), m.seen.end(), a) != m.seen.end()) {
      return bad(a.substr(2), "option " + a + " given twice");
    }
    m.seen.push_back(a);
    if (i + 1 >= args.size()) return bad(a.substr(2), "option " + a + " needs a value");
    const std::string& v = args[++i];
    if (v.rfind("--", 0) == 0) {
      return bad(a.substr(2), "option " + a + " needs a value, found the option '" + v + "'");
    }
    if (a == "--out") m.out = v;
    if (a == "--model") m.modelId = v;
    if (a == "--schemes") m.schemesArg = v;
    if (a == "--m-list") m.mArg = v;
    if (a == "--device") {
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), m.device);
      if (ec != std::errc() || p != v.data() + v.size() || m.device < 0 || m.device > 1024) {
        return bad("device", "expected a device index 0..1024, found '" + v + "'");
      }
    }
  }
  return std::nullopt;
}

/// Adds the run's records to the session `out` under its lock (read again there: another
/// writer may have changed it while the GPU ran), written atomically, and says what was
/// added. 0 or the exit code.
int saveResult(const std::string& out, const qf::cuda::MeasureResult& result,
               const qf::cuda::MeasureConfig& plan, const std::string& modelName, double seconds) {
  std::error_code ec;
  const std::filesystem::path outPath(out);
  qf::Session session;
  // Another writer may have changed SESSION while the GPU ran: it is read again under the
  // lock, held until the new file is in place, so neither update is lost.
  auto lock = qf::FileLock::acquire(out, "qfront-measure", qf::lockWaitFromEnvironment());
  if (!lock) {
    std::cerr << "qfront-measure: " << lock.error().str() << "\n";
    return kExitBadInput;
  }
  if (std::filesystem::exists(std::filesystem::symlink_status(outPath, ec))) {
    auto loaded = qf::loadSession(out);
    if (!loaded) {
      std::cerr << "qfront-measure: " << loaded.error().str() << "\n";
      return kExitBadInput;
    }
    session = std::move(*loaded);
  }
  qf::addMeasurements(session,
                      qf::cuda::measurementBatch(result, plan, modelName, qf::utcTimestamp()));
  if (auto e = qf::saveSessionAtomic(session, out)) {
    std::cerr << "qfront-measure: " << e->str() << "\n";
    return kExitBadInput;
  }
  std::size_t valid = 0;
  for (const auto& r : result.records) valid += r.valid ? 1 : 0;
  std::cout << "measured " << result.records.size() << " kernel configurations on "
            << result.environment.name << " in " << static_cast<int>(seconds) << " s; " << valid
            << " valid records added to " << out << "\n";
  return kExitOk;
}

int main(int argc, char** argv) {
  qf::setCommandLine(argc, argv);
  std::vector<std::string> args(argv + 1, argv + argc);
  // A broken install says which file it looked for and where (--help and --version need none).
  const bool about = std::any_of(args.begin(), args.end(), [](const std::string& a) {
    return a == "--help" || a == "-h" || a == "--version";
  });
  if (const auto missing = about ? std::nullopt : qf::missingResource()) {
    std::cerr << "qfront-measure: " << *missing << "\n";
    return kExitBadInput;
  }
  MeasureArgs m;
  if (const auto rc = parseArgs(args, m)) return *rc;
  const std::string& out = m.out;
  const bool quick = m.quick;
  const int device = m.device;
  const std::vector<std::string>& seen = m.seen;
  if (out.empty()) return bad("out", "give the session to write with --out SESSION");

  // Everything the user typed is checked before the GPU is touched.
  const auto& catalog = qf::Catalog::bundled();
  auto model = catalog.resolveModel(m.modelId);
  if (!model) {
    std::cerr << "qfront-measure: " << model.error().from("<cli>").str() << "\n";
    return kExitBadInput;
  }
  std::vector<std::string> schemes;
  if (const int rc = parseSchemes(m.schemesArg, schemes)) return rc;
  std::vector<std::int64_t> mList = qf::cuda::defaultMList(quick);
  if (std::find(seen.begin(), seen.end(), "--m-list") != seen.end()) {
    if (const int rc = parseMList(m.mArg, mList)) return rc;
  }
  const std::filesystem::path outPath(out);
  const auto folder =
      outPath.has_parent_path() ? outPath.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) {
    return bad("out", "folder '" + folder.string() + "' does not exist");
  }
  // A session that cannot be added to is refused before the GPU is touched.
  if (std::filesystem::exists(std::filesystem::symlink_status(outPath, ec))) {
    auto loaded = qf::loadSession(out);
    if (!loaded) {
      std::cerr << "qfront-measure: " << loaded.error().str() << "\n";
      return kExitBadInput;
    }
  }

  std::string why;
  const auto devices = qf::cuda::queryDevices(why);
  if (devices.empty()) {
    std::cerr << "qfront-measure: no CUDA device found (" << (why.empty() ? "none visible" : why)
              << "); analytic model and saved measurements only\n";
    return kExitBadInput;
  }
  if (device >= static_cast<int>(devices.size())) {
    return bad("device", "device " + std::to_string(device) + " does not exist (" +
                             std::to_string(devices.size()) + " found)");
  }

  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  auto plan = qf::cuda::planForModel(*model, schemes, mList, quick, device);
  plan.commandLine = "qfront-measure";
  for (const auto& a : args) plan.commandLine += " " + a;
  std::cerr << "qfront-measure: " << devices[static_cast<std::size_t>(device)].name << ", model "
            << model->name << ", " << plan.shapes.size() << " GEMM shapes, " << mList.size()
            << " M values\n";
  const auto started = std::chrono::steady_clock::now();
  const std::string deviceName = devices[static_cast<std::size_t>(device)].name;
  const auto result = qf::cuda::measure(plan, [&](const qf::cuda::MeasureRecord& r, double done) {
    reportRecord(r, done, m.progressJsonl, deviceName);
    return !gInterrupted.load();
  });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!result.error.empty() && result.records.empty()) {
    std::cerr << "qfront-measure: " << result.error << "; " << out << " left as it was\n";
    return result.error.find("no CUDA device") != std::string::npos ? kExitBadInput : kExitFailed;
  }
  if (!result.error.empty()) {
    // A sticky error (the context was lost) stopped the run: what was measured before it is
    // still saved, and the exit status says the run did not finish.
    std::cerr << "qfront-measure: " << result.error << "; saving the " << result.records.size()
              << " records measured before it\n";
  }
  if (result.cancelled) {
    std::cerr << "qfront-measure: cancelled after " << result.records.size() << " records; " << out
              << " left as it was\n";
    return kExitFailed;
  }
  if (const int rc = saveResult(out, result, plan, model->name, seconds)) return rc;
  return result.allChecksPassed() ? kExitOk : kExitFailed;
}
