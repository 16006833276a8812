// Numbers as text (numbers.hpp).
#include <quantfront/core/base/numbers.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

namespace qf {

std::string sigFigs(double v, int digits) {
  return fmt::format("{:.{}g}", v, std::max(1, digits));
}

std::string fixedDecimals(double v, int decimals) {
  return fmt::format("{:.{}f}", v, std::max(0, decimals));
}

std::string fixedOrInf(double v, int decimals) {
  return std::isfinite(v) ? fixedDecimals(v, decimals) : std::string("inf");
}

std::string scientific(double v, int decimals) {
  return fmt::format("{:.{}e}", v, std::max(0, decimals));
}

std::string percentagePoints(double fraction, int decimals) {
  return fixedDecimals(fraction * 100.0, decimals) + " pp";
}

std::string readable(double v, int digits) {
  const double a = std::abs(v);
  std::string g = sigFigs(v, digits);
  if (a >= 1.0 && a < 1e15 && g.find('e') != std::string::npos) return fixedDecimals(v, 0);
  return g;
}

std::string hexadecimal(std::uint64_t v) {
  return fmt::format("{:x}", v);
}

namespace detail {

void appendPart(std::string& out, std::string_view text) {
  out.append(text);
}

void appendPart(std::string& out, char c) {
  out.push_back(c);
}

void appendPart(std::string& out, long long v) {
  fmt::format_to(std::back_inserter(out), "{}", v);
}

void appendPart(std::string& out, unsigned long long v) {
  fmt::format_to(std::back_inserter(out), "{}", v);
}

void appendPart(std::string& out, double v) {
  out += sigFigs(v, 6);
}

}  // namespace detail

}  // namespace qf
