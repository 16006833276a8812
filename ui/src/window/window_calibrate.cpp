// File › Calibrate from the session's runs…: the end-to-end fit of the session's imported runs,
// shown (constants, spreads, held-out check) before it is applied to the scenario's GPU.
#include <quantfront/ui/background.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/scenario_panel.hpp>

#include <QDialog>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStatusBar>
#include <QTableWidget>
#include <QVBoxLayout>

#include <quantfront/core/analysis/calibration.hpp>
#include <quantfront/core/model/scenario_spec.hpp>

#include "text.hpp"
#include "window_internal.hpp"

namespace qf::ui {

namespace {

QString number(double v, int digits = 4) {
  return significant(v, digits);
}

/// The calibration in a dialog: what was fitted and how well it predicts what it did not see.
bool showCalibration(const SessionCalibration& c, QWidget* parent) {
  QDialog dlg(parent);
  dlg.setWindowTitle("Calibrate from the session's runs");
  auto* layout = new QVBoxLayout(&dlg);
  auto* head = new QLabel(
      QString("<b>%1</b>: %2 end-to-end points, %3 degrees of freedom. The fit starts from %4 "
              "and moves each constant only as far as the points determine it.")
          .arg(qs(c.gpu.name))
          .arg(c.points)
          .arg(c.fit.dof)
          .arg(qs(constantsProvenance(c.prior))),
      &dlg);
  head->setWordWrap(true);
  layout->addWidget(head);

  auto* table = new QTableWidget(&dlg);
  table->setObjectName("calibrationConstants");
  table->setColumnCount(5);
  table->setHorizontalHeaderLabels({"constant", "prior", "fitted", "spread (1σ)", "status"});
  auto row = [&](const std::string& name, const QString& fitted, const QString& spread,
                 const QString& status) {
    const int r = table->rowCount();
    table->insertRow(r);
    table->setItem(r, 0, new QTableWidgetItem(qs(name)));
    table->setItem(r, 1, new QTableWidgetItem(number(e2eConstantValue(c.prior, name))));
    table->setItem(r, 2, new QTableWidgetItem(fitted));
    table->setItem(r, 3, new QTableWidgetItem(spread));
    table->setItem(r, 4, new QTableWidgetItem(status));
  };
  for (const auto& k : c.fit.constants) row(k.name, number(k.value), number(k.spread, 2), "fitted");
  for (const auto& k : c.fit.held) {
    row(k, number(e2eConstantValue(c.fit.efficiency, k)), "–", "held: implausible as fitted");
  }
  for (const auto& k : c.fit.fixed) row(k, "–", "–", "not determined by these points: prior kept");
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table->verticalHeader()->hide();
  layout->addWidget(table, 1);

  QString check = QString(
                      "Residual spread %1% (log); median |error| %2% on the points fitted "
                      "(datasheet roofline: %3%).")
                      .arg(number(100 * c.fit.sigmaLog, 3))
                      .arg(number(c.fit.medianAbsErrorPct, 3))
                      .arg(number(c.fit.datasheetMedianAbsErrorPct, 3));
  if (c.fit.priorPct > 0) {
    check += QString(
                 "\nEach point predicted by a fit of the others: median |error| %1% (the "
                 "prior's on them: %2%).")
                 .arg(number(c.fit.crossValidatedPct, 3))
                 .arg(number(c.fit.priorPct, 3));
  }
  if (c.heldOut) {
    const auto& h = *c.heldOut;
    check += QString(
                 "\nHeld out: fitted on %1 points (every other one), the other %2 predicted "
                 "with median |error| %3%, against %4% with the constants it started from.")
                 .arg(h.fitted)
                 .arg(h.scored)
                 .arg(number(h.calibratedMedianPct, 3))
                 .arg(number(h.priorMedianPct, 3));
    if (h.calibratedMedianPct > h.priorMedianPct) {
      check +=
          " The calibration predicts unseen points worse than the prior: apply it only if "
          "these runs are what you will deploy.";
    }
  } else if (c.points < 4) {
    check += "\nToo few points for a held-out check (4 or more).";
  } else {
    check += "\nNo held-out check: half of the points alone could not be fitted.";
  }
  auto* checkLabel = new QLabel(check, &dlg);
  checkLabel->setObjectName("calibrationCheck");
  checkLabel->setWordWrap(true);
  layout->addWidget(checkLabel);
  QStringList more;
  for (const auto& w : c.fit.warnings) more << "warning: " + qs(w);
  for (std::size_t i = 0; i < c.notes.size() && i < 3; ++i) more << "note: " + qs(c.notes[i]);
  if (c.notes.size() > 3) more << QString("(%1 more notes)").arg(c.notes.size() - 3);
  if (!more.isEmpty()) {
    auto* notes = new QLabel(more.join("\n"), &dlg);
    notes->setWordWrap(true);
    notes->setStyleSheet("color: #8a4b00");
    layout->addWidget(notes);
  }
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, &dlg);
  QPushButton* apply =
      buttons->addButton("Apply to " + qs(c.gpu.name), QDialogButtonBox::AcceptRole);
  apply->setDefault(true);
  QObject::connect(buttons, &QDialogButtonBox::accepted, &dlg, &QDialog::accept);
  QObject::connect(buttons, &QDialogButtonBox::rejected, &dlg, &QDialog::reject);
  layout->addWidget(buttons);
  dlg.resize(720, 480);
  return dlg.exec() == QDialog::Accepted;
}

}  // namespace

void MainWindow::setCalibrationPrompt(std::function<bool(const SessionCalibration&)> prompt) {
  m_calibrationPrompt = std::move(prompt);
}

QString MainWindow::calibrateInteractive() {
  const std::string file = (m_sessionPath.isEmpty() ? sessionName() : m_sessionPath).toStdString();
  const std::string label = "File > Calibrate on " + file;
  // The fits (the points, their held-out half, their cross-validation) run off the GUI thread,
  // as a session opens: the window keeps handling input, and Cancel gives up on them.
  auto fit = awaitWithProgress<Result<SessionCalibration>>(
      *m_background, Background::Lane::Calibrate, this, "Calibrating from the session's runs…",
      [s = session(), file, label](const std::atomic<bool>&) {
        return guarded(file, [&]() -> Result<SessionCalibration> {
          auto c = calibrateSession(s, file, label);
          // Runs on several GPUs: the scenario's GPU is the one to calibrate.
          if (!c && c.error().message.find("several GPUs") != std::string::npos)
            c = calibrateSession(s, file, label, s.scenario.gpu);
          return c;
        });
      });
  if (!fit) {
    const QString done = "Calibration given up; the scenario is as it was";
    statusBar()->showMessage(done, 15000);
    return done;
  }
  auto& cal = *fit;
  QString done;
  if (!cal) {
    done = "Calibration not possible: " + qs(cal.error().message);
  } else {
    const bool go = m_calibrationPrompt ? m_calibrationPrompt(*cal) : showCalibration(*cal, this);
    if (!go) {
      done = "Calibration not applied";
    } else if (!m_panel->applyCalibratedGpu(cal->gpu, cal->gpuId)) {
      done = "Calibration not applied: the GPU '" + qs(cal->gpuId) + "' is not in the GPU list";
    } else {
      done = QString("Calibrated %1 from %2 end-to-end points (Edit › Undo takes it back)")
                 .arg(qs(cal->gpu.name))
                 .arg(cal->points);
    }
  }
  statusBar()->showMessage(done, 15000);
  return done;
}

}  // namespace qf::ui
