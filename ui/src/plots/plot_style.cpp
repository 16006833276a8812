#include <quantfront/ui/plot_style.hpp>

#include <QFontMetrics>

#include <qcustomplot.h>

#include <algorithm>
#include <map>

#include <quantfront/core/model/catalog.hpp>

namespace qf::ui {

namespace {

struct SchemeStyle {
  QColor color;
  QVector<qreal> dashes;  ///< empty: solid
};

// Okabe-Ito hues for schemes the catalog gives no style (mixed candidates, user schemes).
const QColor kBlue(0, 114, 178);
const QColor kVermillion(213, 94, 0);
const QColor kGreen(0, 158, 115);
const QColor kOrange(125, 75, 20);
const QColor kSky(40, 150, 210);
const QColor kPurple(190, 90, 150);
const QColor kYellow(150, 135, 0);

/// The catalog's "plot_style" of each built-in scheme (resources/catalog/schemes.json), read
/// once: styleFor runs for every curve of every replot.
const std::map<QString, SchemeStyle>& catalogStyles() {
  static const std::map<QString, SchemeStyle> kStyles = [] {
    std::map<QString, SchemeStyle> m;
    const Catalog& cat = Catalog::bundled();
    for (const auto& sc : cat.schemes()) {
      const SchemeEntry* e = cat.schemeEntry(sc.id);
      if (!e || e->plotColor.empty()) continue;
      SchemeStyle s{QColor(QString::fromStdString(e->plotColor)), {}};
      for (const double d : e->plotDashes) s.dashes.push_back(d);
      m.emplace(QString::fromStdString(sc.id), std::move(s));
    }
    return m;
  }();
  return kStyles;
}

SchemeStyle styleFor(const QString& id) {
  const auto& known = catalogStyles();
  if (const auto it = known.find(id); it != known.end()) return it->second;
  // Other ids (mixed candidates, user schemes): a palette colour and a pattern by hash.
  static const QColor kPalette[] = {kBlue, kVermillion, kGreen, kOrange, kSky, kPurple, kYellow};
  static const QVector<qreal> kPatterns[] = {{3, 2, 3, 6}, {8, 2, 2, 2}, {5, 5}, {1, 3}};
  const auto h = qHash(id);
  return {kPalette[h % 7u], kPatterns[(h / 7u) % 4u]};
}

enum FontKind { kAxisLabel, kTickLabel, kLegend, kTitle, kItemText };

/// A text element that measures its text once per text and font: QCPTextElement lays the
/// whole text out on every size query, and a layout asks several times a replot (the
/// crossover list beside the step-time plot is measured by the title's row as well).
class MeasuredTextElement : public QCPTextElement {
 public:
  explicit MeasuredTextElement(QCustomPlot* plot) : QCPTextElement(plot) {}

 protected:
  QSize minimumOuterSizeHint() const override {
    return textSize() +
           QSize(mMargins.left() + mMargins.right(), mMargins.top() + mMargins.bottom());
  }
  QSize maximumOuterSizeHint() const override {
    return {QWIDGETSIZE_MAX, textSize().height() + mMargins.top() + mMargins.bottom()};
  }

 private:
  [[nodiscard]] QSize textSize() const {
    auto measure = [&] {
      return QSizeF(QFontMetrics(mFont).boundingRect(0, 0, 0, 0, Qt::TextDontClip, mText).size());
    };
    return m_measured.get(mText, mFont, 0, measure).toSize();
  }
  mutable TextSizeCache m_measured;
};

/// A text row that wraps at the width its layout can give it. QCPTextElement asks for its
/// text's full width on one line: a title longer than the plot made the layout wider than the
/// plot, and the row was cut off at both ends.
class WrappedTextRow : public QCPTextElement {
 public:
  WrappedTextRow(QCustomPlot* plot, const QFont& font) : QCPTextElement(plot, "", font) {
    setTextFlags(Qt::AlignCenter | Qt::TextWordWrap);
  }
  /// The least outer width it asks for: the text wraps to whatever it is given.
  [[nodiscard]] int narrowest() const { return kNarrowest + mMargins.left() + mMargins.right(); }

 protected:
  QSize minimumOuterSizeHint() const override { return {narrowest(), wrappedHeight()}; }
  QSize maximumOuterSizeHint() const override { return {QWIDGETSIZE_MAX, wrappedHeight()}; }

 private:
  static constexpr int kNarrowest = 40;
  /// The plot's width less the other columns' least widths and this row's margins.
  [[nodiscard]] int availableWidth() const {
    int w = mParentPlot->viewport().width();
    if (auto* grid = qobject_cast<QCPLayoutGrid*>(layout())) {
      auto inColumn = [&](int c, const QCPLayoutElement* el) {
        for (int r = 0; r < grid->rowCount(); ++r)
          if (grid->hasElement(r, c) && grid->element(r, c) == el) return true;
        return false;
      };
      for (int c = 0; c < grid->columnCount(); ++c) {
        // This row's own column is what is left: only the others are measured (their hints
        // recurse into legends and axes, on every layout).
        if (inColumn(c, this)) continue;
        int least = 0;
        for (int r = 0; r < grid->rowCount(); ++r) {
          if (!grid->hasElement(r, c)) continue;
          QCPLayoutElement* el = grid->element(r, c);
          if (auto* row = dynamic_cast<const WrappedTextRow*>(el)) {
            // Its least width is fixed (asking for its hint would ask this row's back).
            least = std::max(least, row->narrowest());
          } else if (el) {
            least = std::max(least, el->minimumOuterSizeHint().width());
          }
        }
        if (least > 0) w -= least + grid->columnSpacing();
      }
    }
    return std::max(kNarrowest, w - mMargins.left() - mMargins.right());
  }
  [[nodiscard]] int wrappedHeight() const {
    const int width = availableWidth();
    const QFont font = mainFont();
    auto measure = [&] {
      const QRect r = QFontMetrics(font).boundingRect(QRect(0, 0, width, 100000),
                                                      Qt::TextWordWrap | Qt::AlignCenter, mText);
      return QSizeF(0, r.height());
    };
    const double height = m_measured.get(mText, font, width, measure).height();
    return static_cast<int>(height) + mMargins.top() + mMargins.bottom();
  }
  mutable TextSizeCache m_measured;  ///< the layout asks for the hints several times a replot
};

}  // namespace

QCPTextElement* newPlotTextRow(QCustomPlot* plot, const QFont& font) {
  return new WrappedTextRow(plot, font);
}

QCPTextElement* newPlotTextElement(QCustomPlot* plot) {
  return new MeasuredTextElement(plot);
}

QColor schemeColor(const QString& schemeId) {
  return styleFor(schemeId).color;
}

QVector<qreal> schemeDashPattern(const QString& schemeId) {
  return styleFor(schemeId).dashes;
}

QPen schemePen(const QString& schemeId, double width) {
  const SchemeStyle s = styleFor(schemeId);
  QPen pen(s.color, width);
  if (!s.dashes.isEmpty()) pen.setDashPattern(s.dashes);
  pen.setCapStyle(Qt::FlatCap);
  return pen;
}

QFont plotFont(int pointSize) {
  QFont f("DejaVu Sans");
  f.setPointSize(pointSize);
  return f;
}

QCPTextElement* ensurePlotTitle(QCustomPlot* plot, QCPTextElement* title) {
  if (title) return title;
  plot->plotLayout()->insertRow(0);
  QCPTextElement* t = newPlotTextRow(plot, plotFont(12));
  plot->plotLayout()->addElement(0, 0, t);
  return t;
}

QCPTextElement* setWarningRow(QCustomPlot* plot, QCPTextElement* row, const QString& text,
                              int pointSize) {
  if (text.isEmpty()) {
    if (row) {
      plot->plotLayout()->remove(row);
      plot->plotLayout()->simplify();
    }
    return nullptr;
  }
  if (!row) {
    plot->plotLayout()->insertRow(1);
    QFont f = plotFont(pointSize);
    f.setBold(true);
    row = newPlotTextRow(plot, f);
    row->setTextColor(QColor(176, 0, 0));
    plot->plotLayout()->addElement(1, 0, row);
  }
  row->setText(text);
  return row;
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

namespace {

constexpr const char* kFitLabels = "qfFitLabels";

/// The label fitAxisLabel chose for `axis` at its axis rect's size now.
QString fittingLabel(const QCPAxis* axis, const QStringList& labels) {
  const QRect rect = axis->axisRect()->rect();
  const bool vertical = axis->axisType() == QCPAxis::atLeft || axis->axisType() == QCPAxis::atRight;
  const int room = vertical ? rect.height() : rect.width();
  const QFontMetrics metrics(axis->labelFont());
  for (const QString& label : labels) {
    int longest = 0;  // a label of several lines is as long as its longest
    for (const QString& line : label.split('\n')) {
      longest = std::max(longest, metrics.horizontalAdvance(line));
    }
    if (longest <= room) return label;
  }
  return labels.isEmpty() ? QString() : labels.back();
}

}  // namespace

void fitAxisLabel(QCPAxis* axis, const QStringList& labels) {
  axis->setProperty(kFitLabels, labels);
  axis->setLabel(fittingLabel(axis, labels));
  QCustomPlot* plot = axis->parentPlot();
  if (plot->property(kFitLabels).toBool()) return;
  plot->setProperty(kFitLabels, true);
  // After the layout sized the axis rects, before anything is drawn: a label's text changes
  // its length along the axis, not the margin it takes.
  QObject::connect(plot, &QCustomPlot::afterLayout, plot, [plot] {
    for (QCPAxisRect* rect : plot->axisRects()) {
      for (QCPAxis* a : rect->axes()) {
        const QStringList fit = a->property(kFitLabels).toStringList();
        if (fit.isEmpty()) continue;
        const QString label = fittingLabel(a, fit);
        if (label != a->label()) a->setLabel(label);
      }
    }
  });
}

PrintTheme::PrintTheme(QCustomPlot* plot) {
  auto save = [this](QObject* o, const QFont& f, int kind) { m_fonts.push_back({o, f, kind}); };
  for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
    save(axis, axis->labelFont(), kAxisLabel);
    save(axis, axis->tickLabelFont(), kTickLabel);
    axis->setLabelFont(plotFont(9));
    axis->setTickLabelFont(plotFont(8));
  }
  save(plot->legend, plot->legend->font(), kLegend);
  QFont legendFont = plotFont(7);
  plot->legend->setFont(legendFont);
  for (int i = 0; i < plot->legend->itemCount(); ++i) {
    if (QCPAbstractLegendItem* item = plot->legend->item(i)) {
      save(item, item->font(), kLegend);
      item->setFont(legendFont);
    }
  }
  for (QCPLayoutElement* el : plot->plotLayout()->elements(true)) {
    if (auto* t = qobject_cast<QCPTextElement*>(el)) {
      save(t, t->font(), kTitle);
      QFont f = plotFont(10);
      f.setBold(true);
      t->setFont(f);
    }
  }
  for (int i = 0; i < plot->itemCount(); ++i) {
    if (auto* t = qobject_cast<QCPItemText*>(plot->item(i))) {
      save(t, t->font(), kItemText);
      QFont f = t->font();
      f.setPointSizeF(std::min(7.0, f.pointSizeF()));
      t->setFont(f);
    }
  }
  // The background stays the screen's white (applyPlotStyle): QCustomPlot has no getter for
  // its background brush, and restoring one read from background() (the background pixmap)
  // left the plot drawing no background at all, so switching tabs showed the last tab through.
}

PrintTheme::~PrintTheme() {
  // Restored in reverse, so an axis gets its label font and its tick font back in order.
  for (auto it = m_fonts.rbegin(); it != m_fonts.rend(); ++it) {
    switch (it->kind) {
      case kAxisLabel:
        static_cast<QCPAxis*>(it->object)->setLabelFont(it->font);
        break;
      case kTickLabel:
        static_cast<QCPAxis*>(it->object)->setTickLabelFont(it->font);
        break;
      case kLegend:
        if (auto* l = qobject_cast<QCPLegend*>(it->object)) {
          l->setFont(it->font);
        } else {
          static_cast<QCPAbstractLegendItem*>(it->object)->setFont(it->font);
        }
        break;
      case kTitle:
        static_cast<QCPTextElement*>(it->object)->setFont(it->font);
        break;
      case kItemText:
        static_cast<QCPItemText*>(it->object)->setFont(it->font);
        break;
      default:
        break;
    }
  }
}

}  // namespace qf::ui
