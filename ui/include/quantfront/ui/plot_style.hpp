#pragma once
/// Plot styling in one place: palette per scheme, fonts, export sizes.
#include <QColor>
#include <QFont>
#include <QString>

class QCustomPlot;

namespace qf::ui {

/// Stable colour for a scheme id (the same scheme is the same colour in every plot).
QColor schemeColor(const QString& schemeId);
/// Base font for axes and labels.
QFont plotFont(int pointSize = 10);
/// Applies the house style to a plot (background, grid, fonts, legend).
void applyPlotStyle(QCustomPlot* plot);

/// Default export size in pixels (PNG) and points (PDF).
inline constexpr int kExportWidthPx = 1600;
inline constexpr int kExportHeightPx = 1000;

}  // namespace qf::ui
