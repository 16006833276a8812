// The benchmarks' harness (harness.hpp).
#include "harness.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <optional>
#include <ostream>
#include <stdexcept>

#include <quantfront/core/base/text.hpp>
#include <quantfront/core/base/version.hpp>

namespace qf::bench {

namespace {

double cpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

Json summary(std::vector<double> v) {
  if (v.empty()) return nullptr;
  std::sort(v.begin(), v.end());
  return {{"median", v[v.size() / 2]},
          {"min", v.front()},
          {"p90", v[std::min(v.size() - 1, v.size() * 9 / 10)]},
          {"max", v.back()}};
}

/// A value given on the command line: a number where it reads as one, else the text.
Json valueOf(const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size())
      return v == static_cast<double>(static_cast<long long>(v)) ? Json(static_cast<long long>(v))
                                                                 : Json(v);
  } catch (const std::exception&) {
  }
  return text;
}

/// Every point of the cross product of `axes`, the first axis slowest.
std::vector<Json> points(const std::vector<std::pair<std::string, std::vector<Json>>>& axes) {
  std::vector<Json> out{Json::object()};
  for (const auto& [name, values] : axes) {
    std::vector<Json> next;
    for (const Json& p : out) {
      for (const Json& v : values) {
        Json q = p;
        q[name] = v;
        next.push_back(std::move(q));
      }
    }
    out = std::move(next);
  }
  return out;
}

}  // namespace

const Json& State::axis(const std::string& name) const {
  const auto it = m_axes.find(name);
  if (it == m_axes.end()) throw std::invalid_argument("no axis '" + name + "'");
  return *it;
}

double State::number(const std::string& name) const {
  return axis(name).get<double>();
}

std::string State::text(const std::string& name) const {
  const Json& v = axis(name);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

void State::exec(const std::function<void()>& region) {
  for (int r = 0; r < m_repetitions; ++r) {
    const auto wall0 = std::chrono::steady_clock::now();
    const double cpu0 = cpuSeconds();
    region();
    m_cpuS.push_back(cpuSeconds() - cpu0);
    m_wallS.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count());
  }
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto at = static_cast<std::size_t>(std::max(0.0, q) * static_cast<double>(v.size()));
  return v[std::min(v.size() - 1, at)];
}

double median(std::vector<double> v) {
  return quantile(std::move(v), 0.5);
}

double State::medianWallS() const {
  return median(m_wallS);
}

double State::medianCpuS() const {
  return median(m_cpuS);
}

void State::set(const std::string& key, Json value) {
  m_figures[key] = std::move(value);
}

void State::fail(const std::string& why) {
  m_failure = why;
}

Benchmark& Benchmark::about(std::string text) {
  m_about = std::move(text);
  return *this;
}

Benchmark& Benchmark::axis(std::string name, std::vector<Json> values) {
  m_axes.emplace_back(std::move(name), std::move(values));
  return *this;
}

Benchmark& Benchmark::repetitions(int n) {
  m_repetitions = std::max(1, n);
  return *this;
}

Suite::Suite(int argc, char** argv) : m_args(argv + 1, argv + argc) {
  setCommandLine(argc, argv);
}

Benchmark& Suite::add(std::string name, std::function<void(State&)> body) {
  m_benchmarks.push_back(std::make_unique<Benchmark>(std::move(name), std::move(body)));
  return *m_benchmarks.back();
}

void Suite::set(const std::string& key, Json value) {
  m_figures[key] = std::move(value);
}

int Suite::run(std::ostream& out, std::ostream& err) {
  std::optional<int> repetitions;
  std::map<std::string, std::vector<Json>> axisValues;
  bool list = false;
  for (std::size_t i = 0; i < m_args.size(); ++i) {
    const std::string& a = m_args[i];
    if (a == "--list") {
      list = true;
    } else if ((a == "--repetitions" || a == "--axis") && i + 1 < m_args.size()) {
      const std::string v = m_args[++i];
      if (a == "--repetitions") {
        const Json n = valueOf(v);
        if (!n.is_number_integer() || n.get<long long>() < 1) {
          err << "bench: field 'repetitions': expected a whole number >= 1, found '" << v << "'\n";
          return 2;
        }
        repetitions = static_cast<int>(n.get<long long>());
      } else {
        const auto eq = v.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == v.size()) {
          err << "bench: field 'axis': expected NAME=V1,V2,..., found '" << v << "'\n";
          return 2;
        }
        auto& values = axisValues[v.substr(0, eq)];
        for (const auto& piece : splitAt(v.substr(eq + 1), ',')) values.push_back(valueOf(piece));
      }
    } else {
      err << "bench: field '" << a << "': unknown argument '" << a
          << "' (expected --repetitions N, --axis NAME=V1,V2,... or --list)\n";
      return 2;
    }
  }
  for (const auto& [name, values] : axisValues) {
    const bool known = std::any_of(m_benchmarks.begin(), m_benchmarks.end(), [&](const auto& b) {
      return std::any_of(b->m_axes.begin(), b->m_axes.end(),
                         [&](const auto& ax) { return ax.first == name; });
    });
    if (!known) {
      err << "bench: field 'axis': no benchmark here has an axis '" << name << "'\n";
      return 2;
    }
  }
  const double rss0 = peakRssBytes();
  Json doc = m_figures;
  doc["benchmarks"] = Json::array();
  bool failed = false;
  for (const auto& b : m_benchmarks) {
    auto axes = b->m_axes;
    for (auto& [name, values] : axes) {
      if (const auto it = axisValues.find(name); it != axisValues.end()) values = it->second;
    }
    const int reps = repetitions.value_or(b->m_repetitions);
    Json entry{{"name", b->m_name}, {"about", b->m_about}, {"repetitions", reps}};
    entry["axes"] = Json::object();
    for (const auto& [name, values] : axes) entry["axes"][name] = values;
    entry["results"] = Json::array();
    if (!list) {
      for (const Json& p : points(axes)) {
        State st;
        st.m_axes = p;
        st.m_repetitions = reps;
        b->m_body(st);
        Json r{{"axes", p}};
        if (!st.m_failure.empty()) {
          r["failed"] = st.m_failure;
          failed = true;
        } else {
          r["wall_s"] = summary(st.m_wallS);
          r["cpu_s"] = summary(st.m_cpuS);
        }
        r.update(st.m_figures);
        entry["results"].push_back(std::move(r));
      }
    }
    doc["benchmarks"].push_back(std::move(entry));
  }
  if (!list) {
    doc["peak_rss_bytes"] = peakRssBytes();
    doc["baseline_rss_bytes"] = rss0;
  }
  writeJsonOutput(out, std::move(doc));
  return failed ? 1 : 0;
}

double peakRssBytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) * 1024.0;
  }
  return 0;
}

}  // namespace qf::bench
