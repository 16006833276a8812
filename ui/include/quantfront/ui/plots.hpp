#pragma once
/// The engine's plots: step time vs batch, and throughput & capacity. Both draw an
/// EngineReport; neither computes physics.
#include <qcustomplot.h>
#include <QString>
#include <memory>

#include <quantfront/core/analysis/calibration.hpp>
#include <quantfront/core/analysis/curve_intervals.hpp>
#include <quantfront/core/model/engine.hpp>
#include <quantfront/core/model/speculation.hpp>
#include <quantfront/ui/label_layout.hpp>
#include <quantfront/ui/plot.hpp>

namespace qf::ui {

/// Step time vs batch (log batch axis): one curve per scheme, memory floors dashed,
/// ridges and crossovers marked and labelled, regime bands shaded.
class StepTimePlot : public Plot {
  Q_OBJECT
 public:
  explicit StepTimePlot(QWidget* parent = nullptr);
  /// Redraws from a report whose points span [batchMin, batchMax]; `batchAt` (the batch the
  /// deployment runs at, 0: none) is marked by a vertical line labelled "B = N". `intervals`:
  /// the report's (reportIntervals), computed here when null.
  void setReport(const EngineReport& report, double batchMin, double batchMax, double batchAt = 0,
                 std::shared_ptr<const ReportIntervals> intervals = nullptr);
  /// The intervals drawn by the last setReport (bands, ties of the crossovers).
  [[nodiscard]] const ReportIntervals& intervals() const { return *m_intervals; }
  /// Graphs that are scheme curves (excludes floors and markers).
  [[nodiscard]] int schemeCurveCount() const { return m_schemeCurves; }
  [[nodiscard]] int crossoverMarkerCount() const { return m_crossoverMarkers; }
  /// Draws, over the report set last, the measured step times (hollow squares in the
  /// scheme's colour with error bars of their spread) and the calibrated model (the scheme's
  /// colour, dash-dot, "(calibrated)" in the legend). An empty overlay removes them.
  void setOverlay(const MeasurementOverlay& overlay);
  [[nodiscard]] int measuredPointCount() const { return m_measuredPoints; }
  /// Speculative decoding beside the report's curves: each scheme's time per accepted token,
  /// dash-dotted in its colour, named with `label` ("k 3, α 0.70, mtp"), and the crossovers it
  /// moves as hollow diamonds; nullptr removes them. Call after setReport.
  void setSpeculation(const EngineReport& report, const SpeculativeCurves* curves,
                      const QString& label);
  [[nodiscard]] int speculativeCurveCount() const { return m_speculativeCurves; }
  [[nodiscard]] int speculativeCrossoverCount() const { return m_speculativeCrossovers; }
  [[nodiscard]] int calibratedCurveCount() const { return m_calibratedCurves; }
  /// The plot's labels (floors, ridges, crossovers, regimes), placed without overlaps.
  [[nodiscard]] const PlotLabels& labels() const { return m_labels; }
  /// The hover read-out at batch `b`: "B = …" and each scheme's modelled step time there
  /// (from the engine's curve, not from the drawn vertices).
  [[nodiscard]] QString readoutAt(double b) const;
  /// The batch marked "B = N" by the last setReport; 0 when none is drawn (none set, or
  /// outside the plotted range).
  [[nodiscard]] double markedBatch() const { return m_markedBatch; }
  /// Whether some curve runs above the step-time axis, which is fitted to the batches up to
  /// twice the last crossover, ridge or marked batch (the plot then says so in a label).
  [[nodiscard]] bool clippedAbove() const { return m_clippedAbove; }
  /// Whether the crossovers are listed beside the plot at the last layout (their names found
  /// no room on the curves: each marker then carries its number in the list).
  [[nodiscard]] bool crossoverListShown() const {
    return m_crossoverList && m_crossoverList->visible();
  }
  /// The list beside the plot: a heading, then one line per crossover in the plotted range,
  /// numbered along the batch axis.
  [[nodiscard]] QString crossoverListText() const;

 protected:
  /// Lays the plot out with the crossovers named on their curves, and again with them listed
  /// beside the plot when a name found no room.
  void updateLayout() override;

 private:
  /// A crossover's label: its full text on the curve, its number when listed.
  struct CrossoverLabel {
    QCPItemText* item = nullptr;
    QString text, number, listLine;
  };
  void onMouseMove(QMouseEvent* event);
  void clearOverlay();
  /// The crossovers inside [batchMin, batchMax]: a marker each, and a label naming both
  /// schemes, numbered along the batch axis for the list.
  void drawCrossovers(const EngineReport& report, double batchMin, double batchMax);

  /// Moves the crossover names between their curves and the list beside the plot.
  void showCrossoverList(bool on);
  int m_speculativeCurves = 0;
  int m_speculativeCrossovers = 0;
  PlotLabels m_labels;
  std::vector<CrossoverLabel> m_crossoverLabels;
  QCPTextElement* m_crossoverList = nullptr;
  double m_markedBatch = 0;
  bool m_clippedAbove = false;
  std::vector<std::pair<QString, StepCurve>> m_curves;  ///< scheme id and curve, as drawn
  /// Per drawn curve its intervals; per crossover its tie (never null after setReport).
  std::shared_ptr<const ReportIntervals> m_intervals = std::make_shared<const ReportIntervals>();
  QCPTextElement* m_warning = nullptr;
  int m_schemeCurves = 0;
  int m_crossoverMarkers = 0;
  int m_measuredPoints = 0;
  int m_calibratedCurves = 0;
  QCPTextElement* m_title = nullptr;
};

/// Where the model is wrong: (measured − modelled) / modelled step time, in %, against batch,
/// for the datasheet model (filled) and the calibrated model (hollow), one colour per scheme.
class ResidualPlot : public Plot {
  Q_OBJECT
 public:
  explicit ResidualPlot(QWidget* parent = nullptr);
  void setOverlay(const MeasurementOverlay& overlay, const QString& title);
  [[nodiscard]] int pointCount() const { return m_points; }

 private:
  int m_points = 0;
  QCPTextElement* m_title = nullptr;
  QCPItemText* m_empty = nullptr;
};

/// Tokens/s vs batch (log-log), with each scheme's KV capacity (max concurrent sequences)
/// and the throughput there.
class ThroughputPlot : public Plot {
  Q_OBJECT
 public:
  explicit ThroughputPlot(QWidget* parent = nullptr);
  /// Redraws as StepTimePlot::setReport does, with `batchAt` marked the same way.
  void setReport(const EngineReport& report, double batchMin, double batchMax, double batchAt = 0);
  [[nodiscard]] int schemeCurveCount() const { return m_schemeCurves; }
  /// As StepTimePlot::markedBatch.
  [[nodiscard]] double markedBatch() const { return m_markedBatch; }
  /// The capacity labels, placed without overlaps.
  [[nodiscard]] const PlotLabels& labels() const { return m_labels; }

 private:
  PlotLabels m_labels;
  QCPTextElement* m_warning = nullptr;
  int m_schemeCurves = 0;
  double m_markedBatch = 0;
  QCPTextElement* m_title = nullptr;
};

/// The points of a curve worth drawing: Douglas–Peucker in normalised coordinates (x, y on a
/// log scale when `logX`, `logY`; each axis scaled to the curve's span), keeping every point that
/// lies more than `tolerance` (a fraction of the span: 2e-4 is under half a pixel on a 2,000-pixel
/// plot) off the simplified line, and always the first and last. Returns the indices kept, in
/// order. A dense curve (thousands of batches) then draws as fast as a coarse one and looks the
/// same.
std::vector<int> simplifiedCurve(const QVector<double>& x, const QVector<double>& y, bool logX,
                                 bool logY, double tolerance = 2e-4);
/// x and y reduced to the points simplifiedCurve keeps.
void simplifyCurveData(QVector<double>& x, QVector<double>& y, bool logX, bool logY,
                       double tolerance = 2e-4);

/// Human title for a report: "Llama-3-8B on H100 SXM 80GB ×1".
QString reportTitle(const EngineReport& r);
/// The last integer batch at which the crossover's `fasterBelow` scheme is faster.
int lastBatchFaster(const CrossoverReport& c);
/// A crossover in words, naming both schemes: "w4a16-g128 faster than bf16 up to B = 120,
/// bf16 from B = 121"; with `tie` (the batches where the two tie: crossoverTie) a tie, never
/// an ordering: "w4a16-g128 and bf16 tie for B = 96–190 (difference inside the 80% interval;
/// cross at B = 121)".
QString crossoverText(const CrossoverReport& c, const std::optional<TieRange>& tie = std::nullopt);
/// A tie's whole batches: "96–190", "120" when it spans one, "120 (about)" inside one.
QString tieBatches(const TieRange& t);
/// The tie of report crossover `i` in `iv`, nullopt when none (or `iv` is null).
std::optional<TieRange> tieOf(const ReportIntervals* iv, std::size_t i);
/// One line per scheme that does not fit the GPUs (weights beyond the budget, or no room for
/// one sequence's KV): "bf16 does not fit: weights need 140.2 GiB per GPU, have 67.6 GiB
/// (...)". Empty when every scheme fits.
QString fitWarning(const EngineReport& r);

/// core's schemeAtBatch, where the window and the report have always called it.
using qf::SchemeAtBatch;
using qf::schemeAtBatch;

}  // namespace qf::ui
