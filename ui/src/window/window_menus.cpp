// The window's File and Edit menus and its tool bar.
#include <quantfront/ui/main_window.hpp>

#include <QMenuBar>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>
#include <QUndoStack>

namespace qf::ui {

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("New session", this, &MainWindow::newSession)->setShortcut(QKeySequence::New);
  file->addAction("Open session…", this, &MainWindow::openInteractive)
      ->setShortcut(QKeySequence::Open);
  file->addAction("Open example (Llama-3.1 8B/70B, arXiv:2411.02355)", this,
                  &MainWindow::openExample);
  QMenu* recent = file->addMenu("Open recent");
  connect(recent, &QMenu::aboutToShow, this, [this, recent] {
    recent->clear();
    for (const QString& p : QSettings().value("recent").toStringList()) {
      recent->addAction(p, this, [this, p] {
        if (maybeSaveChanges()) openSession(p);
      });
    }
    recent
        ->addAction("Recover autosave…", this,
                    [this] {
                      if (!offerRecovery()) statusBar()->showMessage("No autosave recovered", 5000);
                    })
        ->setEnabled(!m_autosaveDir.isEmpty());
  });
  file->addAction("Save", this, [this] { saveInteractive(false); })
      ->setShortcut(QKeySequence::Save);
  file->addAction("Save as…", this, [this] { saveInteractive(true); })
      ->setShortcut(QKeySequence("Ctrl+Shift+S"));
  file->addAction("Import results…", this, &MainWindow::importInteractive)
      ->setShortcut(QKeySequence("Ctrl+I"));
  file->addAction("Calibrate from the session's runs…", this, [this] { calibrateInteractive(); });
  file->addAction("Open model config…", this, &MainWindow::openModelInteractive)
      ->setShortcut(QKeySequence("Ctrl+M"));
  file->addSeparator();
  QAction* exportPlot =
      file->addAction("Export plot or table…", this, &MainWindow::exportPlotInteractive);
  exportPlot->setShortcut(QKeySequence("Ctrl+E"));
  file->addAction("Export data (CSV/JSON)…", this, &MainWindow::exportDataInteractive);
  file->addAction("Export review report (PDF)…", this, &MainWindow::exportReportInteractive)
      ->setShortcut(QKeySequence("Ctrl+R"));
  file->addSeparator();
  // Quit closes the window, which asks about unsaved changes first.
  QAction* quit = file->addAction("Quit", this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* edit = menuBar()->addMenu("&Edit");
  QAction* undo = undoStack()->createUndoAction(this, "Undo");
  undo->setObjectName("undo");
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = undoStack()->createRedoAction(this, "Redo");
  redo->setObjectName("redo");
  // Ctrl+Shift+Z and the platform's Redo keys, each once: a key bound twice to one action is
  // an ambiguous shortcut, and Qt then fires neither (on X11 Redo already holds Ctrl+Shift+Z).
  QList<QKeySequence> redoKeys = {QKeySequence("Ctrl+Shift+Z")};
  for (const QKeySequence& k : QKeySequence::keyBindings(QKeySequence::Redo)) {
    if (!redoKeys.contains(k)) redoKeys << k;
  }
  redo->setShortcuts(redoKeys);
  edit->addAction(undo);
  edit->addAction(redo);
}

void MainWindow::buildToolBar() {
  QToolBar* bar = addToolBar("Main");
  bar->setObjectName("mainToolBar");
  bar->setMovable(false);
  bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
  auto add = [&](const QString& text, const QString& tip, auto slot) {
    QAction* a = bar->addAction(text, this, slot);
    a->setToolTip(tip);
    a->setStatusTip(tip);
    return a;
  };
  add("Open", "Open a session file (Ctrl+O)", &MainWindow::openInteractive);
  add("Save", "Save the session (Ctrl+S); autosaved while unsaved",
      [this] { saveInteractive(false); });
  add("Import", "Import vLLM, SGLang, lm-eval or nvbench results into the session (Ctrl+I)",
      &MainWindow::importInteractive);
  add("Model config", "Use a Hugging Face config.json as the model (Ctrl+M)",
      &MainWindow::openModelInteractive);
  bar->addSeparator();
  for (QAction* a : menuBar()->findChildren<QAction*>()) {
    if (a->objectName() == "undo" || a->objectName() == "redo") {
      a->setToolTip(a->objectName() == "undo" ? "Undo the last scenario or gate edit (Ctrl+Z)"
                                              : "Redo the edit undone last (Ctrl+Shift+Z)");
      bar->addAction(a);
    }
  }
  bar->addSeparator();
  add("Export",
      "Export the current plot (PNG, PDF, SVG; 180 mm at 300 dpi) or table (CSV) (Ctrl+E)",
      &MainWindow::exportPlotInteractive);
  add("Report",
      "Export the review report: one PDF with every view, the candidates and the "
      "provenance of every number (Ctrl+R)",
      &MainWindow::exportReportInteractive);
}

}  // namespace qf::ui
