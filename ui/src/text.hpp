#pragma once
/// Text helpers the ui sources share.
#include <QString>
#include <string>

#include <quantfront/core/base/numbers.hpp>

namespace qf::ui {

inline QString qs(const std::string& s) {
  return QString::fromStdString(s);
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
