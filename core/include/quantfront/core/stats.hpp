#pragma once
/// Sample-size statistics for eval scores (spec: model.md "Statistics", frontier.md).
/// Proportions are fractions in [0, 1]; results are fractions too (×100 for pp).
#include <cstdint>

namespace qf::stats {

/// z for a two-sided 95% interval, as the seed uses it.
inline constexpr double kZ95 = 1.96;
/// z for 80% power, as the seed uses it.
inline constexpr double kZ80 = 0.84;

/// Binomial standard error sqrt(p(1−p)/n). Preconditions: 0 ≤ p ≤ 1, n > 0.
double binomialSe(double p, double n);
/// Half-width of the 95% normal interval: 1.96·SE.
double ci95HalfWidth(double p, double n);
/// Smallest difference two independent runs resolve at 95%: 1.96·sqrt(2)·SE.
double minDetectableDiff(double p, double n);
/// Questions per arm to resolve δ at 95% confidence and the given power:
/// (z_{α/2} + z_β)²·2p(1−p)/δ². With power 0.8 this is the seed's (1.96+0.84)².
double samplesPerArm(double p, double delta, double power = 0.8);
/// Paired standard error sqrt(f/n) with f the flip rate.
double pairedSe(double flipRate, double n);
/// Smallest difference a paired comparison resolves at 95%: 1.96·sqrt(f/n).
double pairedMinDetectableDiff(double flipRate, double n);
/// Standard normal quantile (inverse CDF), |error| < 1e-9 on (0, 1).
double normalQuantile(double prob);

}  // namespace qf::stats
