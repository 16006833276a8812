#pragma once
/// Plot styling in one place: palette and line style per scheme, fonts, the print theme and
/// export sizes.
#include <QColor>
#include <QFont>
#include <QPen>
#include <QSizeF>
#include <QString>
#include <QStringList>
#include <vector>

class QCustomPlot;
class QCPAxis;
class QCPTextElement;
class QCPAbstractItem;

namespace qf::ui {

/// A text's size, measured again only when the text, the font or the width it is laid out in
/// changes: measuring shapes the whole text, and a plot's layout asks for it several times a
/// replot (titles, the crossover list, every label). `measure` does the measuring.
class TextSizeCache {
 public:
  template <class Measure>
  QSizeF get(const QString& text, const QFont& font, int width, Measure measure) {
    if (!m_valid || width != m_width || text != m_text || font != m_font) {
      m_size = measure();
      m_text = text;
      m_font = font;
      m_width = width;
      m_valid = true;
    }
    return m_size;
  }

 private:
  bool m_valid = false;
  QString m_text;
  QFont m_font;
  int m_width = 0;
  QSizeF m_size;
};

/// Stable colour for a scheme id (the same scheme is the same colour in every plot): the
/// colour-blind-safe Okabe–Ito palette, one colour per built-in scheme.
QColor schemeColor(const QString& schemeId);
/// Dash pattern of a scheme's curve (empty: solid), in units of the pen width. Every built-in
/// scheme has its own, so two schemes differ in line style as well as colour.
QVector<qreal> schemeDashPattern(const QString& schemeId);
/// The pen of a scheme's curve: its colour and its dash pattern.
QPen schemePen(const QString& schemeId, double width = 2.2);
/// Base font for axes and labels.
QFont plotFont(int pointSize = 10);
/// Applies the house style to a plot (background, grid, fonts, legend).
void applyPlotStyle(QCustomPlot* plot);
/// Labels `axis` with the longest of `labels` (longest first) whose text fits the axis's
/// length at its label font, chosen again at every layout of the plot (a small plot takes a
/// shorter one instead of clipping the long one at its edges); the last when none fits.
void fitAxisLabel(QCPAxis* axis, const QStringList& labels);
/// A row of text for a plot's layout (a title, a warning) that wraps at the width the plot
/// gives it rather than widening the layout past the plot's edges.
QCPTextElement* newPlotTextRow(QCustomPlot* plot, const QFont& font);
/// A text element (not wrapped) that measures its text once per text and font, not on every
/// size query of every layout.
QCPTextElement* newPlotTextElement(QCustomPlot* plot);
/// The plot's title row: `title` when it exists, else a new one (a newPlotTextRow) above the
/// axes.
QCPTextElement* ensurePlotTitle(QCustomPlot* plot, QCPTextElement* title);
/// A bold red row under the title (schemes that do not fit, a serving plot's notes): `row`
/// given `text`, created when missing; removed (nullptr returned) when `text` is empty.
QCPTextElement* setWarningRow(QCustomPlot* plot, QCPTextElement* row, const QString& text,
                              int pointSize = 10);

/// The print theme for the lifetime of the object: the house style's white background, fonts
/// sized for a figure about 180 mm wide (title 10 pt, axis labels 9 pt, ticks 8 pt, legend and
/// labels 7 pt), legend inside the axis rect. The screen fonts come back on destruction.
class PrintTheme {
 public:
  explicit PrintTheme(QCustomPlot* plot);
  ~PrintTheme();
  PrintTheme(const PrintTheme&) = delete;
  PrintTheme& operator=(const PrintTheme&) = delete;

 private:
  struct SavedFont {
    QObject* object;
    QFont font;
    int kind;
  };
  std::vector<SavedFont> m_fonts;
};

/// Default export size: 180 mm wide at 300 dpi (PNG pixels; PDF and SVG take the same figure
/// in millimetres: 180 × 112.5 mm).
inline constexpr int kExportWidthPx = 2126;
inline constexpr int kExportHeightPx = 1329;
/// The width (logical pixels at 96 dpi) a figure is laid out at for print: 180 mm.
inline constexpr int kPrintLayoutWidth = 680;
/// Logical (96 dpi) pixels per millimetre.
inline constexpr double kLogicalPxPerMm = 96.0 / 25.4;

}  // namespace qf::ui
