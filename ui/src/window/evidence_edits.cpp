// The window's evidence edits: detach runs, remove / rename / hide candidates, the model
// mismatch question, each one undoable step. The edits themselves are core's
// (evidence_edit.hpp); this file hands them to the document (document.hpp) as undoable steps.
#include <QInputDialog>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include <QTableWidget>
#include <algorithm>

#include <quantfront/core/session/attach_runs.hpp>
#include <quantfront/core/session/evidence_edit.hpp>
#include <quantfront/ui/document.hpp>
#include <quantfront/ui/evidence_view.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/pareto_view.hpp>

#include "text.hpp"

namespace qf::ui {

void MainWindow::addDeploymentCandidate(const Candidate& c) {
  Session next = session();
  Candidate k = c;
  auto taken = [&](const std::string& id) {
    return std::any_of(next.candidates.begin(), next.candidates.end(),
                       [&](const Candidate& o) { return o.id == id; });
  };
  for (int n = 2; taken(k.id); ++n) k.id = c.id + "-" + std::to_string(n);
  next.candidates.push_back(k);
  if (auto e = refreshModelledMetrics(next)) {
    statusBar()->showMessage("Deployment added without modelled figures: " + qs(e->str()), 10000);
  }
  m_doc->commitEvidence(std::move(next), "Add deployment " + qs(k.id));
  statusBar()->showMessage("Added candidate " + qs(k.id) + " (Candidates and Pareto tabs)", 10000);
}

void MainWindow::setMismatchPrompt(std::function<bool(const QString&)> prompt) {
  m_mismatchPrompt = std::move(prompt);
}

bool MainWindow::confirmModelMismatch(const Session& s, AttachOptions& opts, QString& refusal) {
  if (opts.allowModelMismatch) return true;
  const auto found = findModelMismatches(s, opts);
  if (found.empty()) return true;
  QStringList lines;
  for (const auto& m : found) lines << qs(describeMismatch(m));
  bool go = false;
  if (m_mismatchPrompt) {
    go = m_mismatchPrompt(lines.join("\n"));
  } else {
    QMessageBox box(this);
    box.setIcon(QMessageBox::Warning);
    box.setWindowTitle("Attach to a candidate of another model?");
    box.setText(
        QString("%1 run(s) would be attached to a candidate of another model:").arg(found.size()));
    box.setInformativeText(lines.join("\n") +
                           "\n\nTheir figures would be reported as measured on that candidate.");
    QPushButton* attach = box.addButton("Attach anyway", QMessageBox::DestructiveRole);
    QPushButton* cancel = box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(cancel);
    box.exec();
    go = box.clickedButton() == attach;
  }
  if (!go) {
    refusal = lines.front() +
              (lines.size() > 1 ? QString(" (and %1 more)").arg(lines.size() - 1) : QString());
    statusBar()->showMessage("Not attached: " + refusal, 15000);
    return false;
  }
  opts.allowModelMismatch = true;
  return true;
}

QString MainWindow::detachRuns(const QStringList& digests) {
  Session s = session();
  std::vector<std::string> runs;
  for (const QString& d : digests) runs.push_back(d.toStdString());
  auto rep = qf::detachRuns(s, runs);
  if (!rep) return qs(rep.error().str());
  QString msg = QString("%1 run(s) detached, %2 figure(s) removed")
                    .arg(rep->runsDetached)
                    .arg(rep->figuresRemoved);
  if (rep->runsDetached == 0) return msg + " (the runs fed no candidate)";
  m_doc->commitEvidence(std::move(s), QString("detach %1 run(s)").arg(rep->runsDetached));
  statusBar()->showMessage(msg, 10000);
  return {};
}

QString MainWindow::removeCandidate(const QString& id) {
  Session s = session();
  if (auto e = qf::removeCandidate(s, id.toStdString())) return qs(e->str());
  m_doc->commitEvidence(std::move(s), "remove candidate " + id);
  return {};
}

QString MainWindow::renameCandidate(const QString& id, const QString& newId) {
  Session s = session();
  if (auto e = qf::renameCandidate(s, id.toStdString(), newId.toStdString())) {
    return qs(e->str());
  }
  if (id == newId) return {};
  m_doc->commitEvidence(std::move(s), QString("rename %1 to %2").arg(id, newId));
  if (m_evidence->shownCandidate().isEmpty() || m_evidence->shownCandidate() == id) {
    m_evidence->showCandidate(newId);
  }
  return {};
}

QString MainWindow::setCandidateHidden(const QString& id, bool hidden) {
  Session s = session();
  if (auto e = qf::setCandidateHidden(s, id.toStdString(), hidden)) return qs(e->str());
  m_doc->commitEvidence(std::move(s), (hidden ? "hide " : "show ") + id);
  return {};
}

void MainWindow::installCandidateMenu() {
  QTableView* table = m_pareto->table();
  table->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(table, &QWidget::customContextMenuRequested, this, [this, table](const QPoint& pos) {
    const QModelIndex at = table->indexAt(pos);
    const QString id = at.isValid() ? m_pareto->candidateAt(at.row()) : QString();
    auto report = [this](const QString& err) {
      if (!err.isEmpty()) QMessageBox::warning(this, "Candidate not changed", err);
    };
    QMenu menu(this);
    if (!id.isEmpty()) {
      menu.addAction("Rename " + id + "…", this, [this, id, report] {
        bool ok = false;
        const QString to =
            QInputDialog::getText(this, "Rename candidate", "New id:", QLineEdit::Normal, id, &ok);
        if (ok) report(renameCandidate(id, to.trimmed()));
      });
      menu.addAction("Hide " + id, this,
                     [this, id, report] { report(setCandidateHidden(id, true)); });
      menu.addAction("Remove " + id, this, [this, id, report] { report(removeCandidate(id)); });
    }
    QMenu* hidden = menu.addMenu("Show hidden candidate");
    for (const auto& hid : m_doc->session().view.hidden) {
      const QString h = qs(hid);
      hidden->addAction(h, this, [this, h, report] { report(setCandidateHidden(h, false)); });
    }
    hidden->setEnabled(!hidden->isEmpty());
    menu.exec(table->viewport()->mapToGlobal(pos));
  });
  connect(m_evidence, &EvidenceView::detachRequested, this, [this](const QStringList& digests) {
    if (const QString err = detachRuns(digests); !err.isEmpty()) {
      statusBar()->showMessage("Not detached: " + err, 15000);
    }
  });
}

}  // namespace qf::ui
