// Numbers as text: the one vocabulary against hand-written strings and against what the
// streams the local formatters used to build print for the same requests.
#include <catch2/catch.hpp>

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

#include <quantfront/core/base/numbers.hpp>

namespace {

std::string streamSig(double v, int digits) {
  std::ostringstream o;
  o << std::setprecision(digits) << v;
  return o.str();
}

std::string streamFixed(double v, int decimals) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(decimals) << v;
  return o.str();
}

}  // namespace

TEST_CASE("numbers as text: significant figures and fixed decimals", "[numbers]") {
  CHECK(qf::sigFigs(12.3456, 4) == "12.35");
  CHECK(qf::sigFigs(1234567, 3) == "1.23e+06");
  CHECK(qf::sigFigs(0.000123456, 3) == "0.000123");
  CHECK(qf::sigFigs(2.5, 6) == "2.5");
  CHECK(qf::sigFigs(-0.5, 3) == "-0.5");
  CHECK(qf::sigFigs(7, 0) == "7");  // at least one figure
  CHECK(qf::fixedDecimals(3.14159, 3) == "3.142");
  CHECK(qf::fixedDecimals(2, 0) == "2");
  CHECK(qf::fixedDecimals(-1.005, 1) == "-1.0");
  CHECK(qf::fixedOrInf(std::numeric_limits<double>::infinity(), 3) == "inf");
  CHECK(qf::fixedOrInf(1.5, 2) == "1.50");
  CHECK(qf::readable(1234.4, 3) == "1234");
  CHECK(qf::readable(12.345, 3) == "12.3");
  CHECK(qf::readable(0.00001234, 3) == "1.23e-05");
  CHECK(qf::readable(3e15, 3) == "3e+15");
  // The streams each local formatter used print the same for every figure and precision.
  const double values[] = {0.0,  1.0,     -1.0,   0.1,     1.0 / 3, 2.0 / 3,    123456.789,
                           1e-7, 9.99e-5, 1e21,   -2.5e-3, 5e-324,  1.7976e308, 0.5,
                           1.5,  2.5,     1000.0, 999.95,  6.39,    0.757,      66.7};
  for (double v : values) {
    for (int p : {1, 2, 3, 4, 6, 8, 12, 17}) {
      INFO(v << " at " << p);
      CHECK(qf::sigFigs(v, p) == streamSig(v, p));
      CHECK(qf::fixedDecimals(v, p) == streamFixed(v, p));
    }
  }
  CHECK(qf::sigFigs(std::numeric_limits<double>::infinity(), 3) ==
        streamSig(std::numeric_limits<double>::infinity(), 3));
}

TEST_CASE("numbers as text: scientific and percentage points", "[numbers]") {
  CHECK(qf::scientific(1.2345e-12, 3) == "1.235e-12");
  CHECK(qf::scientific(3.81e-13, 2) == "3.81e-13");
  CHECK(qf::scientific(0, 1) == "0.0e+00");
  CHECK(qf::percentagePoints(0.0125) == "1.25 pp");
  CHECK(qf::percentagePoints(-0.5, 1) == "-50.0 pp");
  for (double v : {1.2345e-12, 6.02e23, -4.4e-5, 1.0}) {
    std::ostringstream o;
    o << std::scientific << std::setprecision(3) << v;
    CHECK(qf::scientific(v, 3) == o.str());
  }
}

TEST_CASE("words: a message from its parts, as a default stream wrote it", "[numbers]") {
  CHECK(qf::words("batch ", 64, ", ", 2.5, " ms") == "batch 64, 2.5 ms");
  CHECK(qf::words(std::string("a"), '|', std::string_view("b")) == "a|b");
  CHECK(qf::hexadecimal(0x9E3779B97F4A7C15ULL) == "9e3779b97f4a7c15");
  // Every kind of number the replaced ostringstreams were given, against the stream itself.
  const double doubles[] = {0.0,
                            -0.0,
                            1.0,
                            0.92,
                            6.4,
                            3.14159265358979,
                            1e15,
                            2e8,
                            1234567.0,
                            1e-7,
                            -42.125,
                            8192.0,
                            1.0 / 3,
                            1e300,
                            123456.5,
                            0.1 + 0.2,
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity()};
  for (double v : doubles) {
    std::ostringstream o;
    o << "x=" << v << " GiB";
    CHECK(qf::words("x=", v, " GiB") == o.str());
  }
  std::ostringstream ints;
  const long long big = 9'007'199'254'740'993LL;
  const std::size_t size = 18'446'744'073'709'551'615ULL;
  const int negative = -7;
  const std::int64_t layers = 126;
  const unsigned resamples = 2000;
  ints << big << ' ' << size << ' ' << negative << ' ' << layers << ' ' << resamples;
  CHECK(qf::words(big, ' ', size, ' ', negative, ' ', layers, ' ', resamples) == ints.str());
  // A float is widened as a stream widens it.
  std::ostringstream f;
  f << 0.7f;
  CHECK(qf::words(0.7f) == f.str());
  CHECK(qf::words(std::nan("")).find("nan") != std::string::npos);
}
