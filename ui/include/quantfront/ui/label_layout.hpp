#pragma once
/// Plot labels that never overlap each other, the legend or the plot's edge. Labels are
/// placed again every time the plot is laid out (on screen, on resize, on zoom and for every
/// export size), with a simple collision avoidance: a label flips to the other side of its
/// anchor near an edge and staggers vertically past the labels already placed; a label moved
/// away from its anchor gets a thin leader line back to it.
#include <QColor>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <vector>

#include <quantfront/ui/plot_style.hpp>

class QCustomPlot;
class QCPItemText;
class QCPLayer;
class QCPItemLine;

namespace qf::ui {

/// One label to place: its anchor (pixels) and box size, the side it prefers and whether it
/// may move to the other side of the anchor.
struct LabelRequest {
  QPointF anchor;
  QSizeF size;
  bool right = true;    ///< box to the right of the anchor (else to the left)
  bool below = true;    ///< box below the anchor (else above)
  bool mayFlip = true;  ///< may go to the other side horizontally
  double gap = 5;       ///< pixels between the anchor and the box
};

/// Boxes for `requests` in order, each inside `bounds` and clear of `occupied` and of the
/// boxes placed before it; a null box for a label that finds no free place (it is then left
/// out: the tables list every crossover). Pure geometry, for tests.
std::vector<QRectF> placeLabels(const std::vector<LabelRequest>& requests, const QRectF& bounds,
                                std::vector<QRectF> occupied = {});

/// The labels of one plot, placed by placeLabels whenever the plot is laid out.
class PlotLabels {
 public:
  explicit PlotLabels(QCustomPlot* plot);
  /// Forgets every label (call after QCustomPlot::clearItems, which deleted them).
  void clear();
  /// Adds a label anchored at plot coordinates (x, y). Labels added first are placed first
  /// and keep their preferred place most often.
  QCPItemText* add(double x, double y, const QString& text, const QColor& color, bool right,
                   bool below, bool mayFlip, bool leader);
  /// Places every label for the plot's current layout (connected to afterLayout).
  void place();
  /// The boxes of the labels shown, in pixels (tests).
  [[nodiscard]] std::vector<QRectF> placedBoxes() const;
  /// Labels left out for want of room at the last layout.
  [[nodiscard]] int hiddenCount() const;
  /// The texts of the labels shown, in the order of placedBoxes (tests).
  [[nodiscard]] std::vector<QString> placedTexts() const;
  /// Whether `item` (one of this plot's labels) found a place at the last layout.
  [[nodiscard]] bool isPlaced(const QCPItemText* item) const;
  [[nodiscard]] int count() const { return static_cast<int>(m_labels.size()); }
  /// The layer the labels and their leader lines are drawn on: made on first use just above
  /// "main", where the curves are, so that no curve strikes a label through.
  [[nodiscard]] QCPLayer* layer() const;

 private:
  struct Label {
    QCPItemText* item = nullptr;
    QCPItemLine* leader = nullptr;
    double x = 0, y = 0;
    bool right = true, below = true, mayFlip = true;
    QRectF box;
    TextSizeCache measured;  ///< the labels are placed at every layout
  };
  QCustomPlot* m_plot;
  std::vector<Label> m_labels;
};

}  // namespace qf::ui
