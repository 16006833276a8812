// The window's files: sessions opened, saved and autosaved (recovery after a crash, unsaved
// changes asked about), result files imported (read on a worker thread, dropped or chosen),
// runs attached, a model config opened.
#include <quantfront/ui/background.hpp>
#include <quantfront/ui/document.hpp>
#include <quantfront/ui/main_window.hpp>

#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QEventLoop>
#include <QFileDialog>
#include <QHash>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QProgressDialog>
#include <QPushButton>
#include <QSet>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QThread>
#include <QTimer>
#include <QUndoStack>

#include <quantfront/core/model/model_config.hpp>
#include <quantfront/core/session/attach_runs.hpp>
#include <quantfront/core/session/file_lock.hpp>
#include <quantfront/core/session/import_session.hpp>
#include <quantfront/ui/autosave.hpp>
#include <quantfront/ui/evidence_view.hpp>
#include <quantfront/ui/example_session.hpp>
#include <quantfront/ui/pareto_view.hpp>
#include <quantfront/ui/scenario_panel.hpp>

#include "window_internal.hpp"

namespace qf::ui {

namespace {
/// The window imports file by file: a file it cannot read or the session cannot hold is
/// reported and the others are kept; attaching is a separate step (the Evidence tab).
ImportPlan windowImportPlan() {
  ImportPlan plan;
  plan.allOrNothing = false;
  plan.validateEach = true;
  return plan;
}

/// One entry per file: what was imported, or why not; then the file's warnings, one a line,
/// as core lists them (FileImport::warnings, what `qfront import` prints).
QStringList importLines(const ImportOutcome& outcome) {
  QStringList lines;
  for (const FileImport& f : outcome.files) {
    const QString p = qs(f.file);
    if (!f.report) {
      lines << qs(f.error ? f.error->str() : f.file + ": not read");
    } else if (f.error) {
      // What the session cannot hold (a number out of range, say) is refused here, naming
      // the input file, rather than later when the session is saved.
      lines << QString("%1: not imported: %2%3")
                   .arg(p,
                        f.error->field.empty() ? QString() : "field '" + qs(f.error->field) + "': ",
                        qs(f.error->message));
    } else if (f.merge.duplicate && f.merge.runsAdded == 0) {
      lines << QString("%1: already imported (same SHA-256 as %2)").arg(p, qs(f.merge.duplicateOf));
    } else {
      QString line = QString("%1: %2, %3 run(s), %4 warning(s)")
                         .arg(p, qs(f.report->format))
                         .arg(f.merge.runsAdded)
                         .arg(f.warnings.size());
      if (f.failedRuns > 0) {
        line += QString("; %1 failed run(s): every request failed, no figures").arg(f.failedRuns);
      }
      for (const auto& w : f.warnings) line += "\n    warning: " + qs(w);
      lines << line;
    }
  }
  return lines;
}

/// The lines the import message box shows in full; the rest go to its details.
constexpr int kImportBoxLines = 30;
}  // namespace

void MainWindow::startAutosave(const QString& dir, int intervalMs) {
  m_autosaveDir = dir.isEmpty() ? defaultAutosaveDir() : dir;
  m_autosave.setInterval(std::max(1, intervalMs));
  if (m_dirty) m_autosave.start();
}

QString MainWindow::autosaveFile() const {
  return m_autosaveSlot ? m_autosaveSlot->file() : QString();
}

QString MainWindow::autosaveNow() {
  if (m_autosaveDir.isEmpty() || !m_dirty) return {};
  if (!m_autosaveSlot) {
    auto slot = std::make_unique<AutosaveSlot>(m_autosaveDir, m_sessionPath);
    if (!slot->ok()) {
      const QString err = slot->file() + ": cannot lock the autosave file";
      statusBar()->showMessage("Autosave failed: " + err, 10000);
      return err;
    }
    m_autosaveSlot = std::move(slot);
  }
  const QString err = m_autosaveSlot->write(session(), m_sessionPath, m_baseStamp);
  if (!err.isEmpty()) statusBar()->showMessage("Autosave failed: " + err, 10000);
  return err;
}

void MainWindow::dropAutosave() {
  m_autosave.stop();
  if (m_autosaveSlot) {
    m_autosaveSlot->remove();
    m_autosaveSlot.reset();
  }
}

void MainWindow::setRecoveryPrompt(std::function<RecoveryChoice(const AutosaveInfo&)> prompt) {
  m_recoveryPrompt = std::move(prompt);
}

void MainWindow::setUnsavedPrompt(std::function<UnsavedChoice()> prompt) {
  m_unsavedPrompt = std::move(prompt);
}

RecoveryChoice MainWindow::askRecovery(const AutosaveInfo& info) {
  QMessageBox box(this);
  box.setIcon(QMessageBox::Warning);
  box.setWindowTitle("Recover unsaved work?");
  const QString what = info.sessionPath.isEmpty()
                           ? QString("an untitled session")
                           : QString("<b>%1</b>").arg(info.sessionPath.toHtmlEscaped());
  const QString when = info.savedAt.isValid()
                           ? info.savedAt.toLocalTime().toString("yyyy-MM-dd HH:mm:ss")
                           : QString("an unknown time");
  box.setText(
      QString("QuantFront did not close normally. Unsaved changes to %1 were autosaved at %2.")
          .arg(what, when));
  QString more =
      "Recover opens them (save to keep them); Discard deletes the autosave; Later "
      "keeps it for the next start or File › Open recent › Recover autosave.";
  if (info.baseChanged) {
    more.prepend(
        "The session file has changed on disk since these edits were made (an import, or a "
        "save from another window): Recover opens them as an untitled copy, so that saving "
        "cannot overwrite those changes. ");
  } else if (!info.newerThanSession) {
    more.prepend("The session file was saved after this autosave. ");
  }
  if (!info.note.isEmpty()) more += "\nNote: " + info.note + ".";
  box.setInformativeText(more);
  QPushButton* recover = box.addButton("Recover", QMessageBox::AcceptRole);
  QPushButton* discard = box.addButton("Discard", QMessageBox::DestructiveRole);
  QPushButton* later = box.addButton("Later", QMessageBox::RejectRole);
  box.setDefaultButton(recover);
  box.setEscapeButton(later);
  box.exec();
  if (box.clickedButton() == recover) return RecoveryChoice::Recover;
  if (box.clickedButton() == discard) return RecoveryChoice::Discard;
  return RecoveryChoice::Later;
}

bool MainWindow::offerRecovery() {
  if (m_autosaveDir.isEmpty()) return false;
  for (const AutosaveInfo& info : findOrphanedAutosaves(m_autosaveDir)) {
    if (m_autosaveSlot && info.file == m_autosaveSlot->file()) continue;
    // Held while the user decides: no other starting window offers the same file.
    auto slot = AutosaveSlot::claim(info.file);
    if (!slot) continue;
    const RecoveryChoice choice = m_recoveryPrompt ? m_recoveryPrompt(info) : askRecovery(info);
    if (choice == RecoveryChoice::Later) continue;
    if (choice == RecoveryChoice::Discard) {
      slot->remove();
      continue;
    }
    auto recovered = readAutosave(info.file);
    if (!recovered) {
      const QString err = qs(recovered.error().str());
      if (m_recoveryPrompt) {
        qWarning("quantfront: cannot recover: %s", qPrintable(err));
      } else {
        QMessageBox::warning(this, "Cannot recover", err + "\nThe autosave file is kept.");
      }
      continue;
    }
    if (!maybeSaveChanges()) return false;
    // Edits made on a file that has changed since (an import, another window's save) come
    // back as an untitled copy: saving them over the file would silently drop its changes.
    const QString path = info.baseChanged ? QString() : info.sessionPath;
    setSession(std::move(*recovered), path);
    if (!info.baseChanged && !info.baseStamp.isEmpty()) m_baseStamp = info.baseStamp;
    m_autosaveSlot = std::move(slot);
    m_recovered = true;
    markChanged();
    const QString where = info.baseChanged
                              ? QString(
                                    "; %1 changed on disk since, so they are an untitled copy "
                                    "(save them under another name)")
                                    .arg(info.sessionPath)
                              : QString();
    if (info.baseChanged && m_recoveryPrompt) {
      qWarning(
          "quantfront: recovered %s as an untitled copy: %s changed on disk since the "
          "autosave's edits were made",
          qPrintable(info.file), qPrintable(info.sessionPath));
    }
    statusBar()->showMessage("Recovered unsaved changes from " + info.file + where, 15000);
    return true;
  }
  return false;
}

UnsavedChoice MainWindow::askUnsaved() {
  const auto button = QMessageBox::warning(
      this, "Unsaved changes",
      QString("The %1 has changes that are not saved. Save them?").arg(sessionName()),
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (button == QMessageBox::Save) return UnsavedChoice::Save;
  if (button == QMessageBox::Discard) return UnsavedChoice::Discard;
  return UnsavedChoice::Cancel;
}

bool MainWindow::maybeSaveChanges() {
  if (!m_dirty) return true;
  switch (m_unsavedPrompt ? m_unsavedPrompt() : askUnsaved()) {
    case UnsavedChoice::Save:
      return saveInteractive(false);
    case UnsavedChoice::Discard:
      return true;
    case UnsavedChoice::Cancel:
      return false;
  }
  return false;
}

bool MainWindow::newSession() {
  if (!maybeSaveChanges()) return false;
  Session blank;
  blank.scenario = m_doc->scenario();
  setSession(std::move(blank), QString());
  showTab("step");
  return true;
}

bool MainWindow::openExample() {
  if (!maybeSaveChanges()) return false;
  setSession(bundledExampleSession(), QString());
  m_example = true;
  updateTitle();
  showTab("step");
  return true;
}

bool MainWindow::openSession(const QString& path) {
  // One opening at a time: a second, started from a menu while the first is read, would leave
  // the first waiting for a result its lane no longer applies.
  if (m_background->busy(Background::Lane::Open)) {
    statusBar()->showMessage("A session is being opened: wait for it or cancel it first", 8000);
    return false;
  }
  // Read on the worker (a session of 10^5 candidates is seconds of parsing) while the window
  // keeps painting under a window-modal progress dialog that can give the opening up; the
  // caller gets the outcome when it returns, as before.
  const std::uint64_t editsBefore = m_edits;
  auto read =
      awaitWithProgress<Result<Session>>(*m_background, Background::Lane::Open, this,
                                         QString("Opening %1…").arg(QFileInfo(path).fileName()),
                                         [file = path.toStdString()](const std::atomic<bool>&) {
                                           return guarded(file, [&] { return loadSession(file); });
                                         });
  if (!read) {
    statusBar()->showMessage(QString("Opening %1 given up; the session is as it was").arg(path),
                             10000);
    return false;
  }
  auto& s = *read;
  if (!s) {
    QMessageBox::warning(this, "Cannot open session", qs(s.error().str()));
    return false;
  }
  // Edits made while the file was read (before the progress dialog took the input) are the
  // user's work: asked about as any unsaved edits are, never dropped.
  if (m_edits != editsBefore && !maybeSaveChanges()) {
    statusBar()->showMessage(
        QString("Opening %1 given up: the edits made while it was read are kept").arg(path), 10000);
    return false;
  }
  setSession(std::move(*s), path);
  QSettings settings;
  QStringList recent = settings.value("recent").toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  settings.setValue("recent", recent.mid(0, 8));
  return true;
}

void MainWindow::openSessionWhenShown(const QString& path, const QString& tab) {
  QTimer::singleShot(0, this, [this, path, tab] {
    if (openSession(path) && !tab.isEmpty()) showTab(tab);
  });
}

QString MainWindow::saveSessionTo(const QString& path) {
  Session s = session();
  // The command-line importers lock the file while they change it: the save waits for them
  // (bounded) instead of interleaving with one, and says who holds it when it gives up.
  auto lock = FileLock::acquire(path.toStdString(), "quantfront save");
  if (!lock) return qs(lock.error().str());
  if (auto e = saveSessionAtomic(s, path.toStdString())) return qs(e->str());
  // Saved: nothing is left to recover. A new path gets its own autosave on the next edit.
  dropAutosave();
  m_sessionPath = path;
  m_baseStamp = sessionFileStamp(path);
  m_dirty = false;
  m_recovered = false;
  m_example = false;
  updateTitle();
  return {};
}

QStringList MainWindow::importFiles(const QStringList& paths) {
  std::vector<std::string> files;
  for (const QString& p : paths) files.push_back(p.toStdString());
  auto read = guarded("import", [&] { return readImports(files, windowImportPlan()); });
  if (!read) return {qs(read.error().str())};
  return mergeReadFiles(std::move(*read));
}

QStringList MainWindow::mergeReadFiles(std::vector<FileImport> read) {
  Session s = session();
  auto outcome =
      guarded("import", [&] { return mergeImports(s, std::move(read), windowImportPlan()); });
  if (!outcome) return {qs(outcome.error().str())};
  if (outcome->runsAdded() > 0) m_doc->replace(std::move(s), kRunsPart);
  return importLines(*outcome);
}

void MainWindow::importAndShow(const QStringList& paths) {
  if (importRunning()) {
    statusBar()->showMessage("An import is running: wait for it or cancel it first", 8000);
    return;
  }
  std::vector<std::string> files;
  for (const QString& p : paths) files.push_back(p.toStdString());
  auto* progress = new QProgressDialog("Reading " + QString::number(paths.size()) + " file(s)…",
                                       "Cancel", 0, 1000, this);
  progress->setObjectName("importProgress");
  progress->setWindowTitle("Import");
  progress->setWindowModality(Qt::WindowModal);
  progress->setMinimumDuration(400);  // a quick import shows no dialog
  progress->setAutoClose(false);
  progress->setAutoReset(false);
  connect(progress, &QProgressDialog::canceled, this,
          [this] { m_background->cancel(Background::Lane::Import); });
  QPointer<QProgressDialog> dialog(progress);
  auto reading = [files, dialog](const std::atomic<bool>& cancelled) {
    ImportPlan plan = windowImportPlan();
    plan.progress = [dialog, &cancelled](double done, const std::string& file) {
      QMetaObject::invokeMethod(
          dialog,
          [dialog, done, file] {
            if (!dialog) return;
            dialog->setValue(static_cast<int>(done * 1000));
            if (!file.empty()) dialog->setLabelText("Reading " + QFileInfo(qs(file)).fileName());
          },
          Qt::QueuedConnection);
      return !cancelled.load();
    };
    return guarded("import", [&] { return readImports(files, plan); });
  };
  auto done = [this, progress](Result<std::vector<FileImport>>&& read) {
    // Closed now, not at the next turn of the event loop: the summary's own loop would
    // otherwise run under a window-modal dialog at 100% whose Cancel alone frees its OK.
    progress->reset();
    progress->hide();
    progress->deleteLater();
    if (!read) {
      if (read.error().isCancelled()) {
        statusBar()->showMessage("Import cancelled: the session is unchanged", 8000);
      } else {
        QMessageBox::warning(this, "Import", qs(read.error().str()));
      }
      return;
    }
    const std::size_t before = m_doc->session().importedRuns.size();
    showImportOutcome(before, mergeReadFiles(std::move(*read)));
  };
  m_background->run<Result<std::vector<FileImport>>>(Background::Lane::Import, std::move(reading),
                                                     std::move(done));
}

bool MainWindow::importRunning() const {
  return m_background->busy(Background::Lane::Import);
}

void MainWindow::showImportOutcome(std::size_t runsBefore, QStringList lines) {
  const auto& runs = m_doc->session().importedRuns;
  if (runs.size() > runsBefore) {
    // The next step is attaching: the Evidence tab with the new runs selected.
    QStringList files;
    for (std::size_t i = runsBefore; i < runs.size(); ++i) {
      files << QFileInfo(qs(runs[i].sourceFile)).fileName();
    }
    showTab("evidence");
    m_evidence->selectRuns(files);
    lines << ""
          << "The new runs are selected on the Evidence tab: attach them to a candidate "
             "(\"Attach to candidate…\") or let each model become one (\"One candidate per "
             "model\"); their figures then reach the Pareto and Serving tabs.";
  }
  // Every warning is listed; one that several files share once, with their count; a long
  // list continues under "Show Details..." (which keeps every line as core gave it).
  const QString text = lines.join("\n");
  QStringList shown = collapseRepeatedWarnings(text.split('\n'));
  QMessageBox box(QMessageBox::Information, "Import", QString(), QMessageBox::Ok, this);
  box.setTextFormat(Qt::PlainText);
  if (shown.size() > kImportBoxLines) {
    const auto more = shown.size() - kImportBoxLines;
    shown = shown.mid(0, kImportBoxLines);
    shown << QString("… %1 more line(s) under Show Details").arg(more);
    box.setDetailedText(text);
  }
  box.setText(shown.join("\n"));
  box.exec();
}

QStringList collapseRepeatedWarnings(const QStringList& lines) {
  QHash<QString, int> count;
  for (const QString& l : lines) {
    if (l.trimmed().startsWith("warning: ")) ++count[l.trimmed()];
  }
  QStringList out;
  QSet<QString> seen;
  for (const QString& l : lines) {
    const QString key = l.trimmed();
    const int n = count.value(key, 0);
    if (n < 2) {
      out << l;
    } else if (!seen.contains(key)) {
      seen.insert(key);
      out << l + QString("  (and %1 more time(s) in this import)").arg(n - 1);
    }
  }
  return out;
}

QStringList MainWindow::attachRuns(const AttachRequest& req) {
  Session s = session();
  AttachOptions opts;
  if (req.candidateId) opts.candidateId = req.candidateId->toStdString();
  opts.scheme = req.scheme.toStdString();
  opts.gpu = req.gpu.toStdString();
  if (req.gpuCount > 0) opts.gpuCount = req.gpuCount;
  for (const QString& d : req.digests) opts.runDigests.push_back(d.toStdString());
  opts.setViewObjectives = s.view.objectives.empty();
  opts.allowModelMismatch = req.allowModelMismatch;
  if (QString refused; !confirmModelMismatch(s, opts, refused)) return {"not attached: " + refused};
  auto rep = guarded("attach", [&] { return attachRunsToCandidates(s, opts); });
  if (!rep) {
    const QString err = qs(rep.error().str());
    statusBar()->showMessage("Not attached: " + err, 15000);
    return {"not attached: " + err};
  }
  QStringList lines;
  for (const auto& id : rep->created) lines << "created candidate " + qs(id);
  for (const auto& id : rep->updated) lines << "updated candidate " + qs(id);
  lines << QString("%1 measured metric(s) attached, %2 recovery figure(s) derived")
               .arg(rep->metricsAttached)
               .arg(rep->recoveryDerived);
  for (const auto& n : rep->notes) lines << qs(n);
  for (const auto& w : rep->warnings) lines << "warning: " + qs(w);
  if (rep->created.empty() && rep->updated.empty()) return lines;
  // One undoable step; a session without objectives takes the ones attaching chose.
  m_doc->commitEvidence(std::move(s),
                        req.candidateId ? "attach to " + *req.candidateId : QString("attach runs"));
  if (req.candidateId) m_evidence->showCandidate(*req.candidateId);
  return lines;
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  if (watched != m_pareto->table()->viewport()) return QMainWindow::eventFilter(watched, event);
  const auto type = event->type();
  if (type != QEvent::DragEnter && type != QEvent::DragMove && type != QEvent::Drop) {
    return QMainWindow::eventFilter(watched, event);
  }
  auto* drop = static_cast<QDropEvent*>(event);
  if (!drop->mimeData()->hasFormat(EvidenceView::kRunsMime)) {
    return QMainWindow::eventFilter(watched, event);
  }
  const QModelIndex row = m_pareto->table()->indexAt(drop->position().toPoint());
  const QString id = row.isValid() ? m_pareto->candidateAt(row.row()) : QString();
  if (id.isEmpty()) {
    drop->ignore();
    return true;
  }
  drop->acceptProposedAction();
  if (type == QEvent::Drop) {
    const QStringList digests = QString::fromUtf8(drop->mimeData()->data(EvidenceView::kRunsMime))
                                    .split('\n', Qt::SkipEmptyParts);
    statusBar()->showMessage(attachRuns(AttachRequest{digests, id, {}}).join("; "), 15000);
  }
  return true;
}

void MainWindow::openInteractive() {
  if (!maybeSaveChanges()) return;
  const QString path =
      QFileDialog::getOpenFileName(this, "Open session", QString(), "QuantFront session (*.json)");
  if (!path.isEmpty()) openSession(path);
}

bool MainWindow::saveInteractive(bool saveAs) {
  QString path = m_sessionPath;
  if (saveAs || path.isEmpty()) {
    path = QFileDialog::getSaveFileName(this, "Save session", "session.quantfront.json",
                                        "QuantFront session (*.json)");
    if (path.isEmpty()) return false;
  }
  const QString err = saveSessionTo(path);
  if (!err.isEmpty()) {
    if (!m_autosaveDir.isEmpty()) autosaveNow();
    QMessageBox::warning(
        this, "Save failed",
        err + (m_autosaveDir.isEmpty() ? QString("\nYour work is still open.")
                                       : QString("\nYour work is still open and autosaved.")));
    return false;
  }
  statusBar()->showMessage("Saved " + path, 5000);
  return true;
}

void MainWindow::importInteractive() {
  const QStringList paths =
      QFileDialog::getOpenFileNames(this, "Import benchmark or eval results", QString(),
                                    "Results (*.json *.jsonl);;All files (*)");
  if (paths.isEmpty()) return;
  importAndShow(paths);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  QStringList paths;
  for (const QUrl& u : event->mimeData()->urls()) {
    if (u.isLocalFile()) paths << u.toLocalFile();
  }
  if (paths.isEmpty()) return;
  // A session opens, a model's config.json becomes the scenario's model; anything else is
  // imported into the current session.
  if (paths.size() == 1) {
    auto bytes = readFileBytes(paths.front().toStdString(), 64ull * 1024 * 1024);
    if (bytes && bytes->find("\"quantfront-session\"") != std::string::npos) {
      if (maybeSaveChanges()) openSession(paths.front());
      return;
    }
    if (QFileInfo(paths.front()).fileName() == "config.json") {
      openModelConfig(paths.front());
      return;
    }
  }
  importAndShow(paths);
}

bool MainWindow::openModelConfig(const QString& path, bool quiet) {
  auto model = guarded(path.toStdString(), [&] { return loadModelConfigFile(path.toStdString()); });
  if (!model) {
    const QString err = qs(model.error().str());
    if (quiet) {
      m_lastError = err;
    } else {
      QMessageBox::warning(this, "Cannot open model config", err + "\nThe model is unchanged.");
    }
    return false;
  }
  ScenarioSpec spec = m_doc->scenario();
  spec.model = path.toStdString();
  editScenario(spec);
  statusBar()->showMessage("Model: " + qs(model->name) + " from " + path, 8000);
  return true;
}

void MainWindow::openModelInteractive() {
  const QString path = QFileDialog::getOpenFileName(this, "Open a Hugging Face config.json",
                                                    QString(), "Model config (*.json)");
  // Cancelled: the current model stays.
  if (!path.isEmpty()) openModelConfig(path);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybeSaveChanges()) {
    event->ignore();
    return;
  }
  // A clean close: this window's autosave (and only it) goes.
  dropAutosave();
  event->accept();
}

}  // namespace qf::ui
