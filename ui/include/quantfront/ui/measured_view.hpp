#pragma once
/// The "Measured vs model" tab: kernel records against the step-time model, and imported
/// end-to-end runs (vLLM bench latency and throughput, SGLang bench_one_batch) against the
/// end-to-end model for the same conditions, datasheet and calibrated side by side.
#include <qcustomplot.h>
#include <QWidget>
#include <string>
#include <vector>

#include <quantfront/core/analysis/calibration.hpp>
#include <quantfront/core/session/e2e_evidence.hpp>
#include <quantfront/ui/plot.hpp>

class QLabel;
class QSplitter;
class QTableWidget;

namespace qf::ui {

class ResidualPlot;

/// One column per imported end-to-end measurement (numbered as the table's rows): the
/// model's error, (model − measured) / measured in %, under the calibrated constants (filled,
/// with the 80% interval as a bar) and the datasheet roofline (hollow), one colour per scheme.
class E2eResidualPlot : public Plot {
  Q_OBJECT
 public:
  explicit E2eResidualPlot(QWidget* parent = nullptr);
  void setRows(const std::vector<E2eComparison>& rows, const QString& title);
  [[nodiscard]] int pointCount() const { return m_points; }

 private:
  int m_points = 0;
  QCPTextElement* m_title = nullptr;
};

class MeasuredView : public QWidget {
  Q_OBJECT
 public:
  explicit MeasuredView(QWidget* parent = nullptr);
  /// Kernel records against the step-time curves.
  void setKernelOverlay(const MeasurementOverlay& overlay, const QString& title);
  /// Imported end-to-end runs against the model; `notes` say which runs were left out.
  void setEndToEnd(const std::vector<E2eComparison>& rows, const std::vector<std::string>& notes,
                   const QString& title);

  [[nodiscard]] ResidualPlot* kernelPlot() const { return m_kernel; }
  [[nodiscard]] E2eResidualPlot* e2ePlot() const { return m_e2ePlot; }
  [[nodiscard]] QTableWidget* table() const { return m_table; }
  /// What an export of the tab draws: the end-to-end plot when it has points, else the
  /// kernel one.
  [[nodiscard]] QCustomPlot* exportPlot() const;
  [[nodiscard]] const std::vector<E2eComparison>& rows() const { return m_rows; }
  /// The line above the table (counts and median errors), for tests and the report.
  [[nodiscard]] QString summaryText() const;

 private:
  void updateVisibility();

  ResidualPlot* m_kernel = nullptr;
  QWidget* m_e2e = nullptr;
  E2eResidualPlot* m_e2ePlot = nullptr;
  QLabel* m_summary = nullptr;
  QTableWidget* m_table = nullptr;
  QLabel* m_notes = nullptr;
  std::vector<E2eComparison> m_rows;
};

}  // namespace qf::ui
