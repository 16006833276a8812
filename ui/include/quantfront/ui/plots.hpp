#pragma once
/// The engine's plots: step time vs batch, and throughput & capacity. Both draw an
/// EngineReport; neither computes physics.
#include <QString>
#include <qcustomplot.h>

#include <quantfront/core/model/engine.hpp>

namespace qf::ui {

/// Step time vs batch (log batch axis): one curve per scheme, memory floors dashed,
/// ridges and crossovers marked and labelled, regime bands shaded.
class StepTimePlot : public QCustomPlot {
  Q_OBJECT
 public:
  explicit StepTimePlot(QWidget* parent = nullptr);
  /// Redraws from a report whose points span [batchMin, batchMax].
  void setReport(const EngineReport& report, double batchMin, double batchMax);
  /// Graphs that are scheme curves (excludes floors and markers).
  [[nodiscard]] int schemeCurveCount() const { return m_schemeCurves; }
  [[nodiscard]] int crossoverMarkerCount() const { return m_crossoverMarkers; }

 private:
  void onMouseMove(QMouseEvent* event);
  int m_schemeCurves = 0;
  int m_crossoverMarkers = 0;
  QCPTextElement* m_title = nullptr;
};

/// Tokens/s vs batch (log-log), with each scheme's KV capacity (max concurrent sequences)
/// and the throughput there.
class ThroughputPlot : public QCustomPlot {
  Q_OBJECT
 public:
  explicit ThroughputPlot(QWidget* parent = nullptr);
  void setReport(const EngineReport& report, double batchMin, double batchMax);
  [[nodiscard]] int schemeCurveCount() const { return m_schemeCurves; }

 private:
  int m_schemeCurves = 0;
  QCPTextElement* m_title = nullptr;
};

/// Writes a plot to PNG, PDF or SVG by the file's extension. Returns an error message
/// (empty on success). `scale` multiplies the PNG's pixel density.
QString exportPlot(QCustomPlot* plot, const QString& path, int widthPx, int heightPx,
                   double scale = 1.0);

/// Human title for a report: "Llama-3-8B on H100 SXM 80GB ×1".
QString reportTitle(const EngineReport& r);

}  // namespace qf::ui
