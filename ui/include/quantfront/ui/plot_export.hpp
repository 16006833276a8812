#pragma once
/// Exports that never lose a good file: plots and engine data are rendered in memory, then
/// written through qf::writeFileAtomic (an exclusively created temporary under an
/// unpredictable name in the target folder, every write and the rename checked). A full disk,
/// a read-only folder or a planted symbolic link gives an error message, and the file that
/// was there before stays as it was.
#include <QByteArray>
#include <QString>
#include <optional>

#include <quantfront/core/model/engine.hpp>

class QCustomPlot;
class QIODevice;
class QTableView;

namespace qf::ui {

/// What an export writes, chosen by the file's extension.
enum class ExportFormat { Png, Pdf, Svg, Csv, Json };

/// The format for `path`'s extension (case-insensitive); nullopt when it is none of
/// .png, .pdf, .svg, .csv, .json.
std::optional<ExportFormat> exportFormatFor(const QString& path);

/// True for the formats a plot renders to (PNG, PDF, SVG).
bool isPlotFormat(ExportFormat format);

/// Renders `plot` in the print theme into `out`. PNG: `widthPx` × `heightPx` pixels (times
/// `scale`); an export wider than kPrintLayoutWidth is laid out as a 180 mm figure and drawn
/// at the density that fills the pixels (the default 2126 px: 300 dpi, written into the
/// file). PDF and SVG: the same figure at its physical size (2126 px: 180 mm wide), vector.
/// Every write to `out` is checked. Returns an error message, empty on success.
/// Precondition: isPlotFormat(format).
QString writePlot(QCustomPlot* plot, ExportFormat format, int widthPx, int heightPx, double scale,
                  QIODevice& out);

/// The engine report's points as CSV (scheme,batch,step_ms,tokens_per_s,bound) or as the
/// report's JSON. Precondition: format is Csv or Json.
QByteArray engineDataBytes(const EngineReport& report, ExportFormat format);

/// Writes `bytes` to `path` atomically; returns an error message naming `path`, or empty.
QString writeFileSafely(const QString& path, const QByteArray& bytes);

/// Renders `plot` to `path` by its extension (.png, .pdf, .svg) and writes it safely.
/// Returns an error message naming `path`, empty on success.
QString exportPlotFile(QCustomPlot* plot, const QString& path, int widthPx, int heightPx,
                       double scale = 1.0);

/// Writes the report's data to `path` by its extension (.csv, .json) safely. Returns an error
/// message naming `path`, empty on success.
QString exportDataFile(const EngineReport& report, const QString& path);

/// A table as CSV: the header row, then each row as shown (sorted as the view sorts it).
QByteArray tableCsv(const QTableView* table);

/// Writes `table` as CSV to `path` (which must end in .csv) safely. Returns an error message
/// naming `path`, empty on success.
QString exportTableFile(const QTableView* table, const QString& path);

}  // namespace qf::ui
