#include "cli.hpp"
#include "shell.hpp"

#include <quantfront/core/base/text.hpp>
#include <quantfront/core/base/version.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <streambuf>
#include <string_view>

#include <nlohmann/json.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/scenario_spec.hpp>

namespace qf::cli {

bool Args::help() const {
  return std::any_of(m_args.begin(), m_args.end(),
                     [](const std::string& a) { return a == "--help" || a == "-h"; });
}

bool looksLikeOption(const std::string& s) {
  return s.size() >= 2 && s[0] == '-' &&
         !(std::isdigit(static_cast<unsigned char>(s[1])) || s[1] == '.');
}

std::vector<std::string> Args::take(const std::string& name, bool& missingValue) {
  std::vector<std::string> values;
  std::vector<std::string> keep;
  for (std::size_t i = 0; i < m_args.size(); ++i) {
    const std::string& a = m_args[i];
    if (a == name) {
      // An option name is never taken as the value of the option before it
      // ("--candidate -o s.json" lacks a candidate); --name=-x gives such a value.
      if (i + 1 < m_args.size() && !looksLikeOption(m_args[i + 1])) {
        values.push_back(m_args[++i]);
      } else {
        missingValue = true;
      }
    } else if (a.rfind(name + "=", 0) == 0) {
      values.push_back(a.substr(name.size() + 1));
    } else {
      keep.push_back(a);
    }
  }
  m_args = std::move(keep);
  return values;
}

std::optional<std::string> Args::takeOne(const std::string& name, bool& missingValue,
                                         bool& repeated) {
  bool missing = false;
  auto values = take(name, missing);
  if (missing) missingValue = true;
  if (values.size() + (missing ? 1 : 0) > 1) repeated = true;
  if (values.empty()) return std::nullopt;
  return values.front();
}

bool tableCsvJsonFormat(const std::optional<std::string>& format, std::string& name,
                        std::ostream& err, int& rc) {
  name = format.value_or("table");
  if (name != "table" && name != "csv" && name != "json") {
    rc = badArg(err, "format", "expected table, csv or json, found '" + name + "'");
    return false;
  }
  return true;
}

bool Args::takeFlag(const std::string& name) {
  const auto it = std::find(m_args.begin(), m_args.end(), name);
  if (it == m_args.end()) return false;
  m_args.erase(it);
  return true;
}

std::optional<FileLock> lockForUpdate(const std::string& path, const std::string& what,
                                      std::ostream& err, int& rc) {
  auto lock = FileLock::acquire(path, what, lockWaitFromEnvironment());
  if (!lock) {
    rc = badInput(err, lock.error());
    return std::nullopt;
  }
  return std::move(*lock);
}

int badInput(std::ostream& err, const Error& e) {
  // An error that names no file came from the command line's own arguments.
  err << "qfront: " << e.from(kCommandLine).str() << "\n";
  return kExitBadInput;
}
int badArg(std::ostream& err, const std::string& field, const std::string& msg) {
  return badInput(err, Error{kCommandLine, "", field, msg});
}

std::optional<double> parseNumber(const std::string& s) {
  double v = 0;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || ptr != e || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parseInt(const std::string& s) {
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::vector<std::string> splitComma(const std::string& s) {
  return splitAt(s, ',');
}

namespace {

constexpr const char* kTopHelp = R"(usage: qfront <command> [options]

QuantFront's command line: the analytic decode model, capacity, catalog.

commands:
  model      step time vs batch, ridges, crossovers and KV capacity per scheme
  catalog    list bundled models, GPUs and schemes
  frontier   quality gates and the Pareto frontier of a session or CSV
  import     import benchmark/eval files into a session
  stats      binomial, power and paired statistics for eval scores
  calibrate  fit bandwidth, tensor rates and dequant cost to a session's kernel measurements
  merge      combine sessions (e.g. one measured session per GPU node)
  serving    one deployment under load: simulated and modelled TTFT, TPOT, throughput
  search     every GPU x count x scheme x KV dtype x batch cap: cost against latency
  session    detach runs from candidates; remove, rename, hide candidates

Run `qfront <command> --help` for a command's options.
Exit status: 0 success, 2 bad input, 1 internal error.
)";

/// A stream on its way to `to` that words core's option references as qfront's flags
/// (optionsAsFlags: "{--scheme}" → "--scheme"). Text is held to the end of its line ('\n' or
/// '\r') or a flush, so a reference is never split between two writes.
class FlagWording : public std::streambuf {
 public:
  explicit FlagWording(std::ostream& to) : m_to(to) {}
  FlagWording(const FlagWording&) = delete;
  FlagWording& operator=(const FlagWording&) = delete;
  ~FlagWording() override { FlagWording::sync(); }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    m_held.push_back(ch);
    if (ch == '\n' || ch == '\r') emitLines();
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    m_held.append(s, static_cast<std::size_t>(n));
    const std::string_view added(s, static_cast<std::size_t>(n));
    if (added.find_first_of("\n\r") != std::string_view::npos) emitLines();
    return n;
  }
  int sync() override {
    if (!m_held.empty()) m_to << optionsAsFlags(m_held);
    m_held.clear();
    return m_to.flush() ? 0 : -1;
  }

 private:
  void emitLines() {
    const std::size_t end = m_held.find_last_of("\n\r");
    if (end == std::string::npos) return;
    m_to << optionsAsFlags(std::string_view(m_held).substr(0, end + 1));
    m_held.erase(0, end + 1);
  }
  std::ostream& m_to;
  std::string m_held;
};

int dispatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args.front() == "--help" || args.front() == "-h" || args.front() == "help") {
    out << kTopHelp;
    return args.empty() ? kExitBadInput : kExitOk;
  }
  // Every JSON output names the command line it answers.
  setCommandLine("qfront", args);
  const std::string cmd = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (cmd == "model") return cmdModel(rest, out, err);
  if (cmd == "catalog") return cmdCatalog(rest, out, err);
  if (cmd == "frontier") return cmdFrontier(rest, out, err);
  if (cmd == "import") return cmdImport(rest, out, err);
  if (cmd == "stats") return cmdStats(rest, out, err);
  if (cmd == "calibrate") return cmdCalibrate(rest, out, err);
  if (cmd == "merge") return cmdMerge(rest, out, err);
  if (cmd == "serving") return cmdServing(rest, out, err);
  if (cmd == "search") return cmdSearch(rest, out, err);
  if (cmd == "session") return cmdSession(rest, out, err);
  if (cmd == "--version") {
    out << "qfront " << qfrontVersion() << "\n";
    return kExitOk;
  }
  err << "qfront: <cli>: field 'command': unknown command '" << cmd << "' (see qfront --help)\n";
  return kExitBadInput;
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  // Core's messages name the user's settings as references; qfront words them as its flags.
  FlagWording outWords(out), errWords(err);
  std::ostream wordedOut(&outWords), wordedErr(&errWords);
  const int rc = dispatch(args, wordedOut, wordedErr);
  wordedOut.flush();
  wordedErr.flush();
  return rc;
}

}  // namespace qf::cli
