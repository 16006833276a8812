#pragma once
/// The base of the window's plots: a QCustomPlot that draws a new size from a zero-interval
/// timer instead of at once. A layout change (a status line appearing, rows added on a first
/// load) resized a plot and drew it into reallocated buffers before input waiting since was
/// handled: 25-50 ms on this project's test machines for an empty plot, as long as a pan step
/// for 10^5 points. replotSoon() is the same for new data. A paint that comes before the
/// timer after a resize draws first (no frame shows a drawing of the old size); after new
/// data alone it shows the last drawing until the timer draws the new one.
#include <qcustomplot.h>

class QTimer;

namespace qf::ui {

class Plot : public QCustomPlot {
 public:
  explicit Plot(QWidget* parent = nullptr);
  /// Draws from a zero-interval timer (a timer, not a posted event: input and timers due
  /// come first); calls before it fires draw once.
  void replotSoon();
  /// A fixed floor, not the plot layout's own minimum (which QCustomPlot reports): a warning
  /// row or a legend of many entries made that 950 pixels tall, and a hidden tab's plot then
  /// held the whole window taller than a 720-pixel screen.
  [[nodiscard]] QSize minimumSizeHint() const override { return {360, 280}; }

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void paintEvent(QPaintEvent* event) override;

 private:
  QTimer* m_drawSoon = nullptr;
  bool m_resized = false;  ///< the viewport changed since the buffers were last drawn
};

}  // namespace qf::ui
