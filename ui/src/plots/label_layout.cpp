#include <quantfront/ui/label_layout.hpp>

#include <qcustomplot.h>

#include <QFontMetricsF>
#include <cmath>

#include <quantfront/ui/plot_style.hpp>

namespace qf::ui {

namespace {

constexpr double kPadding = 2;  ///< around the text inside its box

bool clear(const QRectF& r, const QRectF& bounds, const std::vector<QRectF>& occupied) {
  if (!bounds.contains(r)) return false;
  for (const QRectF& o : occupied) {
    if (o.intersects(r)) return false;
  }
  return true;
}

QRectF boxAt(const LabelRequest& q, bool right, double dy) {
  const double x = right ? q.anchor.x() + q.gap : q.anchor.x() - q.gap - q.size.width();
  const double y0 = q.below ? q.anchor.y() + q.gap : q.anchor.y() - q.gap - q.size.height();
  return {QPointF(x, y0 + dy), q.size};
}

}  // namespace

std::vector<QRectF> placeLabels(const std::vector<LabelRequest>& requests, const QRectF& bounds,
                                std::vector<QRectF> occupied) {
  std::vector<QRectF> out;
  out.reserve(requests.size());
  for (const LabelRequest& q : requests) {
    const double step = q.size.height() + 2;
    QRectF chosen;
    bool found = false;
    std::vector<bool> sides = {q.right};
    if (q.mayFlip) sides.push_back(!q.right);
    // Nearest first: 0, +1, −1, +2, −2, ... steps of one label height, each side in turn.
    for (int k = 0; k <= 40 && !found; ++k) {
      for (const int sign : {1, -1}) {
        if (k == 0 && sign < 0) continue;
        const double dy = sign * k * step;
        for (const bool right : sides) {
          const QRectF r = boxAt(q, right, dy);
          if (clear(r, bounds, occupied)) {
            chosen = r;
            found = true;
            break;
          }
        }
        if (found) break;
      }
    }
    if (!found) {
      // No free place: left out rather than drawn over another label.
      out.emplace_back();
      continue;
    }
    occupied.push_back(chosen);
    out.push_back(chosen);
  }
  return out;
}

PlotLabels::PlotLabels(QCustomPlot* plot) : m_plot(plot) {
  QObject::connect(plot, &QCustomPlot::afterLayout, plot, [this] { place(); });
}

void PlotLabels::clear() {
  m_labels.clear();
}

QCPLayer* PlotLabels::layer() const {
  // Above every curve, band and marker (the "main" layer, where plottables are drawn in the
  // order they were made): a label made before a later scheme's curve was struck through by
  // it. Below the axes and the legend.
  constexpr const char* kName = "labels";
  if (QCPLayer* l = m_plot->layer(kName)) return l;
  m_plot->addLayer(kName, m_plot->layer("main"), QCustomPlot::limAbove);
  return m_plot->layer(kName);
}

QCPItemText* PlotLabels::add(double x, double y, const QString& text, const QColor& color,
                             bool right, bool below, bool mayFlip, bool leader) {
  Label l;
  l.item = new QCPItemText(m_plot);
  l.item->setLayer(layer());
  l.item->position->setType(QCPItemPosition::ptAbsolute);
  l.item->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
  l.item->setTextAlignment(Qt::AlignLeft);
  l.item->setPadding(QMargins(2, 2, 2, 2));
  l.item->setText(text);
  l.item->setFont(plotFont(8));
  l.item->setColor(color);
  l.item->setBrush(QColor(255, 255, 255, 165));
  l.item->setClipToAxisRect(true);
  if (leader) {
    l.leader = new QCPItemLine(m_plot);
    l.leader->start->setType(QCPItemPosition::ptAbsolute);
    l.leader->end->setType(QCPItemPosition::ptAbsolute);
    QColor c = color;
    c.setAlpha(150);
    l.leader->setPen(QPen(c, 0.8));
    l.leader->setClipToAxisRect(true);
    l.leader->setLayer(layer());
  }
  l.x = x;
  l.y = y;
  l.right = right;
  l.below = below;
  l.mayFlip = mayFlip;
  m_labels.push_back(l);
  return l.item;
}

void PlotLabels::place() {
  if (m_labels.empty()) return;
  QCPAxisRect* rect = m_plot->axisRect();
  const QRectF bounds = QRectF(rect->rect()).adjusted(2, 2, -2, -2);
  std::vector<QRectF> occupied;
  if (m_plot->legend->visible() && m_plot->legend->layout() == rect->insetLayout()) {
    occupied.push_back(QRectF(m_plot->legend->outerRect()).adjusted(-3, -3, 3, 3));
  }
  std::vector<LabelRequest> requests;
  requests.reserve(m_labels.size());
  for (Label& l : m_labels) {
    LabelRequest q;
    q.anchor = QPointF(m_plot->xAxis->coordToPixel(l.x), m_plot->yAxis->coordToPixel(l.y));
    const QSizeF text = l.measured.get(l.item->text(), l.item->font(), 0, [&] {
      return QFontMetricsF(l.item->font())
          .boundingRect(QRectF(0, 0, 4000, 4000), Qt::AlignLeft | Qt::AlignTop, l.item->text())
          .size();
    });
    q.size = QSizeF(text.width() + 2 * kPadding + 2, text.height() + 2 * kPadding);
    q.right = l.right;
    q.below = l.below;
    q.mayFlip = l.mayFlip;
    requests.push_back(q);
  }
  const auto boxes = placeLabels(requests, bounds, occupied);
  for (std::size_t i = 0; i < m_labels.size(); ++i) {
    Label& l = m_labels[i];
    l.box = boxes[i];
    l.item->setVisible(!l.box.isNull());
    if (l.leader) l.leader->setVisible(false);
    if (l.box.isNull()) continue;
    l.item->position->setCoords(l.box.topLeft());
    if (l.leader) {
      const QPointF a = requests[i].anchor;
      const QPointF near(std::clamp(a.x(), l.box.left(), l.box.right()),
                         std::clamp(a.y(), l.box.top(), l.box.bottom()));
      const bool far = std::hypot(near.x() - a.x(), near.y() - a.y()) > requests[i].gap + 3;
      l.leader->setVisible(far);
      l.leader->start->setCoords(a);
      l.leader->end->setCoords(near);
    }
  }
}

std::vector<QRectF> PlotLabels::placedBoxes() const {
  std::vector<QRectF> out;
  for (const Label& l : m_labels) {
    if (!l.box.isNull()) out.push_back(l.box);
  }
  return out;
}

int PlotLabels::hiddenCount() const {
  int n = 0;
  for (const Label& l : m_labels) n += l.box.isNull() ? 1 : 0;
  return n;
}

std::vector<QString> PlotLabels::placedTexts() const {
  std::vector<QString> out;
  for (const Label& l : m_labels) {
    if (!l.box.isNull()) out.push_back(l.item->text());
  }
  return out;
}

bool PlotLabels::isPlaced(const QCPItemText* item) const {
  for (const Label& l : m_labels) {
    if (l.item == item) return !l.box.isNull();
  }
  return false;
}

}  // namespace qf::ui
