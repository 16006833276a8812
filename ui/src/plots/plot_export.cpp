#include <quantfront/core/model/engine_export.hpp>
#include <quantfront/ui/plot_export.hpp>

#include <qcustomplot.h>
#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QImageWriter>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QSvgGenerator>

#include <QTableView>
#include <cmath>

#include <nlohmann/json.hpp>
#include <quantfront/core/session/atomic_file.hpp>
#include <quantfront/ui/plot_style.hpp>

namespace qf::ui {

namespace {

QString pathError(const QString& path, const QString& what) {
  return path + ": " + what;
}

/// The layout size (logical pixels at 96 dpi) and the pixel density of an export `widthPx`
/// × `heightPx` wide: wide exports are laid out as a 180 mm print figure and drawn at the
/// density that fills the pixels (2126 px wide: 300 dpi); narrow ones are laid out as they are.
struct Layout {
  int width;
  int height;
  double density;  ///< output pixels per logical pixel
};

Layout layoutFor(int widthPx, int heightPx) {
  const double density = std::max(1.0, static_cast<double>(widthPx) / kPrintLayoutWidth);
  return {std::max(1, static_cast<int>(std::lround(widthPx / density))),
          std::max(1, static_cast<int>(std::lround(heightPx / density))), density};
}

QString renderPng(QCustomPlot* plot, int widthPx, int heightPx, double scale, QBuffer& buf) {
  const Layout l = layoutFor(widthPx, heightPx);
  const int outW = std::max(1, static_cast<int>(std::lround(widthPx * scale)));
  const int outH = std::max(1, static_cast<int>(std::lround(heightPx * scale)));
  QImage image(outW, outH, QImage::Format_ARGB32_Premultiplied);
  if (image.isNull()) return "could not allocate the image";
  image.fill(Qt::white);
  {
    QCPPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.setMode(QCPPainter::pmNonCosmetic);
    painter.scale(static_cast<double>(outW) / l.width, static_cast<double>(outH) / l.height);
    plot->toPainter(&painter, l.width, l.height);
    painter.end();
  }
  const double dpi = 96.0 * l.density * scale;
  const int dotsPerMeter = static_cast<int>(std::lround(dpi / 0.0254));
  image.setDotsPerMeterX(dotsPerMeter);
  image.setDotsPerMeterY(dotsPerMeter);
  QImageWriter writer(&buf, "png");
  if (!writer.write(image.convertToFormat(QImage::Format_RGB32))) {
    return "could not encode PNG: " + writer.errorString();
  }
  return {};
}

QString renderPdf(QCustomPlot* plot, int widthPx, int heightPx, QBuffer& buf) {
  const Layout l = layoutFor(widthPx, heightPx);
  QPdfWriter pdf(&buf);
  pdf.setCreator("QuantFront");
  pdf.setTitle(plot->windowTitle().isEmpty() ? "QuantFront plot" : plot->windowTitle());
  pdf.setResolution(96);
  QPageLayout layout;
  layout.setMode(QPageLayout::FullPageMode);
  layout.setOrientation(QPageLayout::Portrait);
  layout.setMargins(QMarginsF(0, 0, 0, 0));
  layout.setPageSize(QPageSize(QSizeF(l.width / kLogicalPxPerMm, l.height / kLogicalPxPerMm),
                               QPageSize::Millimeter, QString(), QPageSize::ExactMatch));
  if (!pdf.setPageLayout(layout)) return "could not set the PDF page size";
  QCPPainter painter;
  if (!painter.begin(&pdf)) return "could not start the PDF";
  painter.setMode(QCPPainter::pmVectorized);
  painter.setMode(QCPPainter::pmNoCaching);
  painter.setMode(QCPPainter::pmNonCosmetic);
  plot->toPainter(&painter, l.width, l.height);
  if (!painter.end()) return "could not finish the PDF";
  return {};
}

QString renderSvg(QCustomPlot* plot, int widthPx, int heightPx, QBuffer& buf) {
  const Layout l = layoutFor(widthPx, heightPx);
  QSvgGenerator gen;
  gen.setOutputDevice(&buf);
  gen.setResolution(96);
  gen.setSize(QSize(l.width, l.height));
  gen.setViewBox(QRect(0, 0, l.width, l.height));
  gen.setTitle("QuantFront plot");
  QCPPainter painter;
  if (!painter.begin(&gen)) return "could not start the SVG";
  painter.setMode(QCPPainter::pmVectorized);
  painter.setMode(QCPPainter::pmNoCaching);
  plot->toPainter(&painter, l.width, l.height);
  if (!painter.end()) return "could not finish the SVG";
  return {};
}

QString csvCell(QString text) {
  if (text.contains(',') || text.contains('"') || text.contains('\n')) {
    text.replace('"', "\"\"");
    return '"' + text + '"';
  }
  return text;
}

}  // namespace

std::optional<ExportFormat> exportFormatFor(const QString& path) {
  const QString ext = QFileInfo(path).suffix().toLower();
  if (ext == "png") return ExportFormat::Png;
  if (ext == "pdf") return ExportFormat::Pdf;
  if (ext == "svg") return ExportFormat::Svg;
  if (ext == "csv") return ExportFormat::Csv;
  if (ext == "json") return ExportFormat::Json;
  return std::nullopt;
}

bool isPlotFormat(ExportFormat format) {
  return format == ExportFormat::Png || format == ExportFormat::Pdf || format == ExportFormat::Svg;
}

QString writePlot(QCustomPlot* plot, ExportFormat format, int widthPx, int heightPx, double scale,
                  QIODevice& out) {
  if (!plot) return "no plot to export";
  QByteArray bytes;
  QBuffer buf(&bytes);
  buf.open(QIODevice::WriteOnly);
  QString err;
  {
    // Exports wear the print theme; the screen's style comes back when it ends.
    const PrintTheme theme(plot);
    switch (format) {
      case ExportFormat::Png:
        err = renderPng(plot, widthPx, heightPx, scale, buf);
        break;
      case ExportFormat::Pdf:
        err = renderPdf(plot, widthPx, heightPx, buf);
        break;
      case ExportFormat::Svg:
        err = renderSvg(plot, widthPx, heightPx, buf);
        break;
      case ExportFormat::Csv:
      case ExportFormat::Json:
        err = "not a plot format";
        break;
    }
  }
  // The labels go back to the screen's layout.
  plot->replot(QCustomPlot::rpQueuedReplot);
  buf.close();
  if (!err.isEmpty()) return err;
  if (bytes.isEmpty()) return "the plot rendered to nothing";
  qint64 done = 0;
  while (done < bytes.size()) {
    const qint64 n = out.write(bytes.constData() + done, bytes.size() - done);
    if (n <= 0) return "cannot write: " + out.errorString();
    done += n;
  }
  return {};
}

QByteArray engineDataBytes(const EngineReport& report, ExportFormat format) {
  return QByteArray::fromStdString(format == ExportFormat::Csv ? engineCsvText(report)
                                                               : engineJsonText(report));
}

QString writeFileSafely(const QString& path, const QByteArray& bytes) {
  const QByteArray local = QFile::encodeName(path);
  if (auto e = writeFileAtomic(
          std::string(local.constData(), static_cast<std::size_t>(local.size())),
          std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())))) {
    return pathError(path, QString::fromStdString(e->message));
  }
  return {};
}

QString exportPlotFile(QCustomPlot* plot, const QString& path, int widthPx, int heightPx,
                       double scale) {
  const auto format = exportFormatFor(path);
  if (!format || !isPlotFormat(*format)) {
    return pathError(
        path,
        QString("unknown plot format '%1' (use .png, .pdf or .svg)").arg(QFileInfo(path).suffix()));
  }
  QByteArray bytes;
  QBuffer buf(&bytes);
  buf.open(QIODevice::WriteOnly);
  if (const QString err = writePlot(plot, *format, widthPx, heightPx, scale, buf); !err.isEmpty()) {
    return pathError(path, err);
  }
  return writeFileSafely(path, bytes);
}

QString exportDataFile(const EngineReport& report, const QString& path) {
  const auto format = exportFormatFor(path);
  if (!format || isPlotFormat(*format)) {
    return pathError(
        path,
        QString("unknown data format '%1' (use .csv or .json)").arg(QFileInfo(path).suffix()));
  }
  return writeFileSafely(path, engineDataBytes(report, *format));
}

QByteArray tableCsv(const QTableView* table) {
  QByteArray bytes;
  QStringList cells;
  const QAbstractItemModel* model = table->model();
  if (!model) return bytes;
  for (int c = 0; c < model->columnCount(); ++c) {
    cells << csvCell(model->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString());
  }
  bytes += cells.join(',').toUtf8() + "\n";
  for (int r = 0; r < model->rowCount(); ++r) {
    cells.clear();
    for (int c = 0; c < model->columnCount(); ++c) {
      cells << csvCell(model->index(r, c).data(Qt::DisplayRole).toString());
    }
    bytes += cells.join(',').toUtf8() + "\n";
  }
  return bytes;
}

QString exportTableFile(const QTableView* table, const QString& path) {
  if (exportFormatFor(path) != ExportFormat::Csv) {
    return pathError(
        path,
        QString("a table exports as CSV, found '.%1' (use .csv)").arg(QFileInfo(path).suffix()));
  }
  return writeFileSafely(path, tableCsv(table));
}

}  // namespace qf::ui
