#pragma once
/// The one way numbers become text in the CLI, the report and the window's core-made words
/// (docs/architecture.md, "Numbers in text"): significant figures, fixed decimals, a number
/// a reader takes in at a glance, scientific notation and percentage points. On fmt (header-only,
/// Debian's libfmt-dev; a bare GPU box gets the headers carried with nlohmann's).
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace qf {

/// `v` to `digits` significant figures, as printf's %.*g writes it ("12.35" at 4, "1e+06" at
/// 3): what a stream with setprecision(digits) prints. digits < 1 is taken as 1.
std::string sigFigs(double v, int digits);

/// `v` with `decimals` digits after the point ("3.140" at 3), as printf's %.*f writes it.
std::string fixedDecimals(double v, int decimals);

/// fixedDecimals for a finite `v`, else "inf" (a figure without bound: a queue that grows).
std::string fixedOrInf(double v, int decimals);

/// `v` to `digits` significant figures for a reader: no exponent from 10^digits up to 10^15
/// (1234 at 3 is "1234", not "1.23e+03"); an exponent below 10^-4, as %g writes it.
std::string readable(double v, int digits = 3);

/// `v` in scientific notation with `decimals` digits after the point ("1.234e-12" at 3), as
/// printf's %.*e writes it.
std::string scientific(double v, int decimals);

/// A fraction as percentage points with `decimals` decimals ("1.25 pp" for 0.0125).
std::string percentagePoints(double fraction, int decimals = 2);

/// `v` in hexadecimal digits, lower case, without a prefix ("9e3779b9").
std::string hexadecimal(std::uint64_t v);

namespace detail {
void appendPart(std::string& out, std::string_view text);
void appendPart(std::string& out, char c);
void appendPart(std::string& out, long long v);
void appendPart(std::string& out, unsigned long long v);
void appendPart(std::string& out, double v);
}  // namespace detail

/// A message from its parts, in order: text as it is, integers in full and other numbers to 6
/// significant figures (sigFigs(v, 6)), as a default stream writes them. words("batch ", 64,
/// ", ", 2.5, " ms") is "batch 64, 2.5 ms". A bool is no number here: say what it means.
template <class... Parts>
std::string words(const Parts&... parts) {
  std::string out;
  (
      [&out](const auto& part) {
        using T = std::decay_t<decltype(part)>;
        static_assert(!std::is_same_v<T, bool>, "words() takes no bool: write what it means");
        if constexpr (std::is_same_v<T, char>) {
          detail::appendPart(out, part);
        } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
          detail::appendPart(out, static_cast<long long>(part));
        } else if constexpr (std::is_integral_v<T>) {
          detail::appendPart(out, static_cast<unsigned long long>(part));
        } else if constexpr (std::is_floating_point_v<T>) {
          detail::appendPart(out, static_cast<double>(part));
        } else {
          detail::appendPart(out, std::string_view(part));
        }
      }(parts),
      ...);
  return out;
}

}  // namespace qf
