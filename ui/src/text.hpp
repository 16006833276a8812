#pragma once
/// Text helpers the ui sources share.
#include <QString>
#include <string>

namespace qf::ui {

inline QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

/// `v` to `digits` significant digits ("12.35" at 4).
inline QString significant(double v, int digits) {
  return QString::number(v, 'g', digits);
}

/// `v` to `digits` significant digits for a reader: no exponent from 10^digits up to 10^15
/// (1234 at 3 is "1234", not "1.23e+03"), nor down to 10^-4.
inline QString readableNumber(double v, int digits = 3) {
  const double a = v < 0 ? -v : v;
  if (a >= 1.0 && a < 1e15 && QString::number(v, 'g', digits).contains('e')) {
    return QString::number(v, 'f', 0);
  }
  return QString::number(v, 'g', digits);
}

/// `v` with `decimals` digits after the point.
inline QString fixedDecimals(double v, int decimals) {
  return QString::number(v, 'f', decimals);
}

}  // namespace qf::ui
