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

#include <nlohmann/json.hpp>
#include <quantfront/core/session/atomic_file.hpp>

namespace qf::ui {

namespace {

/// Screen resolution written into PNG files (what QCustomPlot::savePng wrote).
constexpr double kPngDotsPerInch = 96.0;

QString pathError(const QString& path, const QString& what) {
  return path + ": " + what;
}

QString renderPng(QCustomPlot* plot, int widthPx, int heightPx, double scale, QBuffer& buf) {
  QImage image = plot->toPixmap(widthPx, heightPx, scale).toImage();
  if (image.isNull()) return "could not render the plot";
  const int dotsPerMeter = static_cast<int>(kPngDotsPerInch / 0.0254);
  image.setDotsPerMeterX(dotsPerMeter);
  image.setDotsPerMeterY(dotsPerMeter);
  QImageWriter writer(&buf, "png");
  if (!writer.write(image)) return "could not encode PNG: " + writer.errorString();
  return {};
}

QString renderPdf(QCustomPlot* plot, int widthPt, int heightPt, QBuffer& buf) {
  QPdfWriter pdf(&buf);
  pdf.setCreator("QuantFront");
  pdf.setTitle(plot->windowTitle().isEmpty() ? "QuantFront plot" : plot->windowTitle());
  QPageLayout layout;
  layout.setMode(QPageLayout::FullPageMode);
  layout.setOrientation(QPageLayout::Portrait);
  layout.setMargins(QMarginsF(0, 0, 0, 0));
  layout.setPageSize(
      QPageSize(QSizeF(widthPt, heightPt), QPageSize::Point, QString(), QPageSize::ExactMatch));
  if (!pdf.setPageLayout(layout)) return "could not set the PDF page size";
  QCPPainter painter;
  if (!painter.begin(&pdf)) return "could not start the PDF";
  painter.setMode(QCPPainter::pmVectorized);
  painter.setMode(QCPPainter::pmNoCaching);
  painter.setMode(QCPPainter::pmNonCosmetic);
  painter.setWindow(0, 0, widthPt, heightPt);
  plot->toPainter(&painter, widthPt, heightPt);
  if (!painter.end()) return "could not finish the PDF";
  return {};
}

QString renderSvg(QCustomPlot* plot, int widthPx, int heightPx, QBuffer& buf) {
  QSvgGenerator gen;
  gen.setOutputDevice(&buf);
  gen.setSize(QSize(widthPx, heightPx));
  gen.setViewBox(QRect(0, 0, widthPx, heightPx));
  gen.setTitle("QuantFront plot");
  QCPPainter painter;
  if (!painter.begin(&gen)) return "could not start the SVG";
  plot->toPainter(&painter, widthPx, heightPx);
  if (!painter.end()) return "could not finish the SVG";
  return {};
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
  QByteArray bytes;
  if (format == ExportFormat::Csv) {
    bytes += "scheme,batch,step_ms,tokens_per_s,bound\n";
    for (const auto& s : report.schemes) {
      for (const auto& p : s.points) {
        bytes += QString("%1,%2,%3,%4,%5\n")
                     .arg(QString::fromStdString(s.assignment.id))
                     .arg(p.batch, 0, 'g', 10)
                     .arg(p.stepMs, 0, 'g', 10)
                     .arg(p.tokensPerS, 0, 'g', 10)
                     .arg(boundName(p.bound))
                     .toUtf8();
      }
    }
    return bytes;
  }
  return QByteArray::fromStdString(reportToJson(report).dump(2) + "\n");
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

}  // namespace qf::ui
