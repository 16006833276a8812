#pragma once
/// The benchmarks' harness: a benchmark declares its axes (each a name and the values it
/// takes) and how many repetitions each point runs; its body sets up one point and hands the
/// harness the region to time (State::exec). The harness runs the cross product of the axes,
/// times every repetition (wall and the process's CPU time), and writes one JSON document
/// through core's output writer (format version, program version, git sha and dirty state,
/// argv, the machine). Every benchmark binary takes the same command line:
///   --repetitions N        every benchmark's repetitions
///   --axis NAME=V1,V2,...  the values of axis NAME (a number where it reads as one)
///   --list                 the benchmarks and their axes, nothing run
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace qf::bench {

using Json = nlohmann::json;

/// One point of a benchmark's axes, while its body runs.
class State {
 public:
  /// The value of axis `name` at this point.
  [[nodiscard]] const Json& axis(const std::string& name) const;
  [[nodiscard]] double number(const std::string& name) const;
  [[nodiscard]] std::string text(const std::string& name) const;
  /// Runs `region` once per repetition, timing each run: what the point's times are of.
  void exec(const std::function<void()>& region);
  /// The median wall and CPU seconds of the runs exec() timed so far (0 before any).
  [[nodiscard]] double medianWallS() const;
  [[nodiscard]] double medianCpuS() const;
  /// A figure the point reports beside its times (a count, bytes, a checksum).
  void set(const std::string& key, Json value);
  /// The point did not run: `why` is reported in its place (a failed setup, for instance).
  void fail(const std::string& why);

 private:
  friend class Suite;
  Json m_axes;
  int m_repetitions = 1;
  std::vector<double> m_wallS, m_cpuS;
  Json m_figures = Json::object();
  std::string m_failure;
};

/// A benchmark: its name, what it measures, its axes and repetitions, its body.
class Benchmark {
 public:
  Benchmark(std::string name, std::function<void(State&)> body)
      : m_name(std::move(name)), m_body(std::move(body)) {}
  Benchmark& about(std::string text);
  Benchmark& axis(std::string name, std::vector<Json> values);
  Benchmark& repetitions(int n);

 private:
  friend class Suite;
  std::string m_name, m_about;
  std::vector<std::pair<std::string, std::vector<Json>>> m_axes;
  int m_repetitions = 3;
  std::function<void(State&)> m_body;
};

/// The benchmarks of one binary.
class Suite {
 public:
  Suite(int argc, char** argv);
  Benchmark& add(std::string name, std::function<void(State&)> body);
  /// Figures of the whole run (a target, a note) written beside the benchmarks.
  void set(const std::string& key, Json value);
  /// Runs every benchmark (or lists them with --list) and writes the JSON document to `out`.
  /// 0, or 2 on a bad command line (one line on `err`) and 1 when a point failed.
  int run(std::ostream& out, std::ostream& err);

 private:
  std::vector<std::string> m_args;
  std::vector<std::unique_ptr<Benchmark>> m_benchmarks;
  Json m_figures = Json::object();
};

/// The q-quantile of `v` as the harness reports its times: the element at ⌊q·n⌋ of the
/// sorted values (the last at most), 0 for none. median is q = 0.5 (the upper one of an even
/// count), min q = 0.
double quantile(std::vector<double> v, double q);
double median(std::vector<double> v);

/// Peak resident set of this process so far (VmHWM), bytes; 0 where unknown.
double peakRssBytes();

}  // namespace qf::bench
