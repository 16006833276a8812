#pragma once
/// Text helpers the ui sources share.
#include <QString>
#include <string>
#include <string_view>

#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/base/text.hpp>

namespace qf::ui {

/// How the window words a reference to one of the user's settings in a message from core
/// (qf::optionRef, "{--scheme}"): the control that sets it ("Scheme (Attach runs to a
/// candidate)"); a setting the window has no control for keeps its command-line flag.
std::string windowWording(std::string_view optionId);

/// `s` as shown by the window: core's references to the user's settings worded as the window's
/// controls (windowWording).
inline QString qs(const std::string& s) {
  if (s.find("{--") == std::string::npos) return QString::fromStdString(s);
  return QString::fromStdString(qf::wordOptions(s, windowWording));
}

/// `v` to `digits` significant digits ("12.35" at 4): core's qf::sigFigs, as the CLI and the
/// report write it.
inline QString significant(double v, int digits) {
  return qs(qf::sigFigs(v, digits));
}

/// `v` to `digits` significant digits for a reader: no exponent from 10^digits up to 10^15
/// (1234 at 3 is "1234", not "1.23e+03"), nor down to 10^-4 (qf::readable).
inline QString readableNumber(double v, int digits = 3) {
  return qs(qf::readable(v, digits));
}

/// `v` with `decimals` digits after the point (qf::fixedDecimals).
inline QString fixedDecimals(double v, int decimals) {
  return qs(qf::fixedDecimals(v, decimals));
}

}  // namespace qf::ui
