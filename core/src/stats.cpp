#include <quantfront/core/stats.hpp>

#include <cmath>
#include <limits>

namespace qf::stats {

double binomialSe(double p, double n) { return std::sqrt(p * (1.0 - p) / n); }

double ci95HalfWidth(double p, double n) { return kZ95 * binomialSe(p, n); }

double minDetectableDiff(double p, double n) { return kZ95 * std::sqrt(2.0) * binomialSe(p, n); }

double samplesPerArm(double p, double delta, double power) {
  // The seed rounds z to 0.84 for 80% power; keep that exact figure there.
  const double zBeta = std::abs(power - 0.8) < 1e-12 ? kZ80 : normalQuantile(power);
  const double z = kZ95 + zBeta;
  return z * z * 2.0 * p * (1.0 - p) / (delta * delta);
}

double pairedSe(double flipRate, double n) { return std::sqrt(flipRate / n); }

double pairedMinDetectableDiff(double flipRate, double n) { return kZ95 * pairedSe(flipRate, n); }

double normalQuantile(double prob) {
  if (!(prob > 0 && prob < 1)) return std::numeric_limits<double>::quiet_NaN();
  // Acklam's rational approximation, refined by one Halley step on erfc.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01,  -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double pLow = 0.02425;
  double x = 0;
  if (prob < pLow) {
    const double q = std::sqrt(-2 * std::log(prob));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (prob <= 1 - pLow) {
    const double q = prob - 0.5;
    const double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log(1 - prob));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - prob;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

}  // namespace qf::stats
