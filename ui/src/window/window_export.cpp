// The window's exports: the current plot or table, a view by name (quantfront --export
// VIEW), the review report and the engine's data.
#include <quantfront/ui/background.hpp>
#include <quantfront/ui/deploy_view.hpp>
#include <quantfront/ui/document.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/measured_view.hpp>

#include <QFileDialog>
#include <QMessageBox>
#include <QStatusBar>
#include <QTableWidget>

#include <quantfront/core/session/evidence_edit.hpp>
#include <quantfront/ui/pareto_view.hpp>
#include <quantfront/ui/plot_export.hpp>
#include <quantfront/ui/plot_style.hpp>
#include <quantfront/ui/plots.hpp>
#include <quantfront/ui/review_report.hpp>
#include <quantfront/ui/serving_plot.hpp>
#include <quantfront/ui/tabs.hpp>

namespace qf::ui {

void MainWindow::exportPlotInteractive() {
  // A table view exports its table, never silently another view's plot.
  if (QTableView* table = currentTable()) {
    const QString path = QFileDialog::getSaveFileName(
        this, "Export table", QString("quantfront-%1.csv").arg(currentTabKey()), "CSV (*.csv)");
    if (path.isEmpty()) return;
    if (const QString err = exportTableFile(table, path); !err.isEmpty()) {
      QMessageBox::warning(this, "Export failed", err);
    } else {
      statusBar()->showMessage("Exported " + path, 5000);
    }
    return;
  }
  QCustomPlot* plot = currentPlot();
  if (!plot) return;
  const QString path =
      QFileDialog::getSaveFileName(this, "Export plot (180 mm wide; PNG at 300 dpi)",
                                   QString("quantfront-%1.png").arg(currentTabKey()),
                                   "PNG image (*.png);;PDF (*.pdf);;SVG (*.svg)");
  if (path.isEmpty()) return;
  const QString err = exportPlotFile(plot, path, kExportWidthPx, kExportHeightPx);
  if (!err.isEmpty()) {
    QMessageBox::warning(this, "Export failed", err);
  } else {
    statusBar()->showMessage("Exported " + path, 5000);
  }
}

void MainWindow::exportReportInteractive() {
  const QString path = QFileDialog::getSaveFileName(this, "Export review report",
                                                    "quantfront-review.pdf", "PDF (*.pdf)");
  if (path.isEmpty()) return;
  int pages = 0;
  if (const QString err = exportReviewReport(path, &pages); !err.isEmpty()) {
    QMessageBox::warning(this, "Export failed", err);
    return;
  }
  statusBar()->showMessage(QString("Exported %1 (%2 pages)").arg(path).arg(pages), 8000);
}

QStringList MainWindow::exportViews() {
  return exportViewNames();
}

QString MainWindow::exportView(const QString& view, const QString& path, int widthPx,
                               int heightPx) {
  if (view == "report") return exportReviewReport(path);
  const TabSpec* tab = tabByView(view);
  if (!tab) {
    return QString("unknown view '%1' (expected one of %2)").arg(view, exportViews().join(", "));
  }
  // A tab that lags the document is drawn first, and what it computes off the GUI thread
  // waited for.
  const TabView& v = tabView(tab->id);
  m_background->wait(Background::Lane::Serving);
  if (tab->exports == TabExport::Table) return exportTableFile(v.table, path);
  return exportPlotFile(v.plot, path, widthPx, heightPx);
}

QString MainWindow::exportReviewReport(const QString& path, int* pages, QStringList* pageText,
                                       QStringList* brokenHeaders) {
  if (!m_doc->report()) return path + ": no engine report to write (" + m_lastError + ")";
  const Session s = withoutHidden(session());  // a hidden candidate is not reported
  ReviewReportInputs in;
  in.report = &*m_doc->report();
  in.intervals = m_doc->intervals().get();
  in.session = &s;
  in.sessionName = m_sessionPath.isEmpty() ? sessionName() : m_sessionPath;
  in.stepPlot = m_stepPlot;
  in.throughputPlot = throughputPlot();
  tabView(Tab::Serving);
  in.servingPlot = servingPlot();
  in.serving = &servingSweeps();
  in.paretoPlot = m_pareto->plot();
  tabView(Tab::Measured);
  in.residualPlot = m_measured->kernelPlot();
  in.e2ePlot = m_measured->e2ePlot();
  in.e2eRows = &m_measured->rows();
  in.e2eSummary = m_measured->summaryText();
  in.paretoStatus = m_pareto->statusText();
  if (m_deploy->result()) {
    in.deploySummary = m_deploy->status();
    in.deployPlot = m_deploy->plot();
    in.deployTable = m_deploy->table();
  }
  in.objectives = m_pareto->objectives();
  in.gates = m_pareto->appliedGates();
  in.verdicts = m_pareto->verdicts();
  return qf::ui::exportReviewReport(in, path, pages, pageText, brokenHeaders);
}

void MainWindow::exportDataInteractive() {
  if (!m_doc->report()) return;
  const QString path = QFileDialog::getSaveFileName(this, "Export data", "quantfront-model.json",
                                                    "JSON (*.json);;CSV (*.csv)");
  if (path.isEmpty()) return;
  if (const QString err = exportDataFile(*m_doc->report(), path); !err.isEmpty()) {
    QMessageBox::warning(this, "Export failed", err);
    return;
  }
  statusBar()->showMessage("Exported " + path, 5000);
}

}  // namespace qf::ui
