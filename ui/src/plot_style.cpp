#include <quantfront/ui/plot_style.hpp>

#include <qcustomplot.h>

#include <map>

namespace qf::ui {

QColor schemeColor(const QString& schemeId) {
  // Colour-blind-safe palette (Okabe–Ito), fixed per built-in scheme.
  static const std::map<QString, QColor> kFixed = {
      {"bf16", QColor(0, 0, 0)},
      {"w8a8-fp8", QColor(0, 114, 178)},
      {"w8a8-int8", QColor(86, 180, 233)},
      {"w8a16", QColor(0, 158, 115)},
      {"w4a16-g128", QColor(213, 94, 0)},
      {"w4a16-g128-asym", QColor(230, 159, 0)},
      {"w4a8-fp8-g128", QColor(204, 121, 167)},
      {"nvfp4", QColor(120, 94, 240)},
  };
  const auto it = kFixed.find(schemeId);
  if (it != kFixed.end()) return it->second;
  const auto h = static_cast<int>(qHash(schemeId) % 360u);
  return QColor::fromHsv(h, 200, 170);
}

QFont plotFont(int pointSize) {
  QFont f("DejaVu Sans");
  f.setPointSize(pointSize);
  return f;
}

void applyPlotStyle(QCustomPlot* plot) {
  plot->setBackground(Qt::white);
  for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
    axis->setLabelFont(plotFont(11));
    axis->setTickLabelFont(plotFont(9));
    axis->grid()->setPen(QPen(QColor(220, 220, 220), 0, Qt::DotLine));
    axis->grid()->setSubGridVisible(false);
  }
  plot->legend->setVisible(true);
  plot->legend->setFont(plotFont(9));
  plot->legend->setBrush(QBrush(QColor(255, 255, 255, 230)));
  plot->legend->setBorderPen(QPen(QColor(180, 180, 180)));
  plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
}

}  // namespace qf::ui
