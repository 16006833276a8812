// The window's plots' base (plot.hpp): a new size or new data drawn from a timer.
#include <quantfront/ui/plot.hpp>

#include <QTimer>

namespace qf::ui {

Plot::Plot(QWidget* parent) : QCustomPlot(parent), m_drawSoon(new QTimer(this)) {
  m_drawSoon->setSingleShot(true);
  m_drawSoon->setInterval(0);
  connect(m_drawSoon, &QTimer::timeout, this, [this] { replot(); });
  connect(this, &QCustomPlot::beforeReplot, this, [this] { m_resized = false; });
}

void Plot::replotSoon() {
  m_drawSoon->start();
}

void Plot::resizeEvent(QResizeEvent* /*event*/) {
  setViewport(rect());
  m_resized = true;
  m_drawSoon->start();
}

void Plot::paintEvent(QPaintEvent* event) {
  if (m_resized) {
    // Drawn into buffers of the new size now (QCustomPlot asks for one more paint after,
    // which finds nothing pending).
    m_drawSoon->stop();
    replot(QCustomPlot::rpQueuedRefresh);
  }
  QCustomPlot::paintEvent(event);
}

}  // namespace qf::ui
