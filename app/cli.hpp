#pragma once
/// The qfront command line, as a library so tests can run it in-process.
/// Exit codes: 0 success, 2 bad input (one line on stderr naming file and field),
/// 1 internal error.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/session/file_lock.hpp>

namespace qf {
struct MeasuredPoint;
}

namespace qf::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitBadInput = 2;

/// Runs `qfront args...` (args excludes the program name).
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// Sub-commands, each with its own --help.
int cmdModel(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmdCatalog(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmdFrontier(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err);  // cli_frontier.cpp
int cmdImport(const std::vector<std::string>& args, std::ostream& out,
              std::ostream& err);  // cli_import.cpp
int cmdStats(const std::vector<std::string>& args, std::ostream& out,
             std::ostream& err);  // cli_stats.cpp
int cmdCalibrate(const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err);  // cli_calibrate.cpp
int cmdMerge(const std::vector<std::string>& args, std::ostream& out,
             std::ostream& err);  // cli_calibrate.cpp
class Args;
/// qfront stats kl (cli_stats_kl.cpp).
int cmdStatsKl(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// True when `path` starts with the measured-points CSV header (cli_calibrate_e2e.cpp).
bool isMeasuredPointsFile(const std::string& path);
/// qfront calibrate POINTS.csv --gpu ... [--datasheet]: the end-to-end fit from the GPU's
/// calibration as its prior, or free from the datasheet roofline (cli_calibrate_e2e.cpp).
int calibrateFromPoints(const std::string& file, const std::optional<std::string>& gpuArg,
                        bool datasheet, const std::string& format,
                        const std::optional<std::string>& outPath, std::ostream& out,
                        std::ostream& err);
/// qfront calibrate POINTS.csv --gpu ... --check [--datasheet]: each point predicted with the
/// GPU's constants as they are (nothing fitted), with the median |error| per metric
/// (cli_calibrate_e2e.cpp).
int checkPointsFile(const std::string& file, const std::optional<std::string>& gpuArg,
                    bool datasheet, const std::string& format, std::ostream& out,
                    std::ostream& err);
/// The end-to-end fit of measured points (from a CSV or a session's static-batch runs) for
/// the GPU `gpuArg`; `notesIn` are printed first as notes on `file`.
int calibrateFromMeasuredPoints(const std::vector<MeasuredPoint>& points, const std::string& file,
                                const std::string& gpuArg, const std::vector<std::string>& notesIn,
                                bool datasheet, const std::string& format,
                                const std::optional<std::string>& outPath, std::ostream& out,
                                std::ostream& err);
int cmdServing(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err);  // cli_serving.cpp
int cmdSearch(const std::vector<std::string>& args, std::ostream& out,
              std::ostream& err);  // cli_search.cpp
int cmdSession(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err);  // cli_session.cpp

/// True for an argument that names an option ("-o", "--gpu"), not a value: it starts with
/// '-' and is not a number ("-1", "-.5").
bool looksLikeOption(const std::string& s);

/// Small argument scanner shared by the sub-commands: --key value, --key=value, flags. The
/// value after "--key" is never an option name (looksLikeOption): that is a missing value.
class Args {
 public:
  explicit Args(std::vector<std::string> args) : m_args(std::move(args)) {}
  /// True when --help or -h is present.
  [[nodiscard]] bool help() const;
  /// Consumes every occurrence of option `name` (e.g. "--gpu") and returns their values.
  /// Sets `missingValue` when an occurrence has no value.
  std::vector<std::string> take(const std::string& name, bool& missingValue);
  /// Consumes option `name`, which may be given at most once, and returns its value.
  /// Sets `missingValue` when an occurrence has no value and `repeated` when it occurs more
  /// than once (both are bad input).
  std::optional<std::string> takeOne(const std::string& name, bool& missingValue, bool& repeated);
  /// Consumes a flag without a value.
  bool takeFlag(const std::string& name);
  /// What is left after taking options: positionals, or unknown options.
  [[nodiscard]] const std::vector<std::string>& rest() const { return m_args; }

 private:
  std::vector<std::string> m_args;
};

/// --format of a command that prints a table, CSV or JSON: the name (default "table") in
/// `name`. False, with `rc` set, after printing the error.
bool tableCsvJsonFormat(const std::optional<std::string>& format, std::string& name,
                        std::ostream& err, int& rc);

/// Locks `path` for a read-modify-write by command `what` ("qfront import"), waiting at most
/// lockWaitFromEnvironment() for another writer. On failure prints the one line naming the
/// file and the holder, sets `rc` to kExitBadInput and returns nullopt.
std::optional<FileLock> lockForUpdate(const std::string& path, const std::string& what,
                                      std::ostream& err, int& rc);

/// Prints "qfront: <error>" on one line and returns kExitBadInput.
/// How errors name the command line as their source.
inline constexpr const char* kCommandLine = "<cli>";

int badInput(std::ostream& err, const Error& e);
/// badInput for a command-line argument: file "<cli>", field `field`.
int badArg(std::ostream& err, const std::string& field, const std::string& msg);
/// A whole string as a finite number (no trailing text, no NaN/inf).
std::optional<double> parseNumber(const std::string& s);
/// A whole string as an integer.
std::optional<std::int64_t> parseInt(const std::string& s);
/// Splits on commas, keeping empty items.
std::vector<std::string> splitComma(const std::string& s);

/// Largest batch size a batch list may hold, and the most points it may expand to.
inline constexpr double kMaxBatch = 1e7;
inline constexpr std::size_t kMaxBatchPoints = 100'000;
/// Parses a batch list: "1,8,32", "A:B" (powers of two from A to B), "A:B:STEP". Every value
/// (A, B, STEP included) must be an integer in [1, kMaxBatch]; at most kMaxBatchPoints points.
bool parseBatchList(const std::string& spec, std::vector<double>& out, std::string& why);

}  // namespace qf::cli
