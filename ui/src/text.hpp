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

/// `v` with `decimals` digits after the point.
inline QString fixedDecimals(double v, int decimals) {
  return QString::number(v, 'f', decimals);
}

}  // namespace qf::ui
