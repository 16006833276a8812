// The window's keyboard: its shortcuts keep working while a text field has the focus, Ctrl+Tab
// walks the tabs, and the Help menu (About, the docs, the keyboard map).
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QFile>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QShortcut>
#include <QSplitter>
#include <QTabWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <quantfront/core/base/version.hpp>
#include <quantfront/ui/main_window.hpp>

namespace qf::ui {

namespace {

/// A text field takes Ctrl+E (end of line) and Ctrl+Z (its own undo) before the window's
/// actions see them. This lets the window's action have the key instead: Ctrl+E always
/// (End does the same in a field), Ctrl+Z / Ctrl+Shift+Z when the field has nothing of its
/// own to undo or redo.
class ShortcutPassThrough : public QObject {
 public:
  explicit ShortcutPassThrough(QWidget* window) : m_window(window) {}
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() != QEvent::ShortcutOverride || !m_window) return false;
    auto* w = qobject_cast<QWidget*>(watched);
    if (!w || w->window() != m_window) return false;
    QLineEdit* edit = qobject_cast<QLineEdit*>(w);
    if (!edit) {
      if (auto* spin = qobject_cast<QAbstractSpinBox*>(w)) edit = spin->findChild<QLineEdit*>();
      if (auto* combo = qobject_cast<QComboBox*>(w)) edit = combo->lineEdit();
    }
    if (!edit && !qobject_cast<QAbstractSpinBox*>(w)) return false;
    auto* key = static_cast<QKeyEvent*>(event);
    const QKeyCombination k = key->keyCombination();
    const bool ctrlE = k == QKeyCombination(Qt::ControlModifier, Qt::Key_E);
    const bool undo = key->matches(QKeySequence::Undo);
    const bool redo = key->matches(QKeySequence::Redo) ||
                      k == QKeyCombination(Qt::ControlModifier | Qt::ShiftModifier, Qt::Key_Z);
    const bool fieldUndo = edit && edit->isUndoAvailable();
    const bool fieldRedo = edit && edit->isRedoAvailable();
    if (ctrlE || (undo && !fieldUndo) || (redo && !fieldRedo)) {
      // Not accepted: the override is declined, so the key becomes the window's shortcut.
      event->ignore();
      return true;
    }
    return false;
  }

 private:
  QPointer<QWidget> m_window;
};

/// The keyboard map the Help menu shows: every menu action with a shortcut, and the tab keys.
QString keyboardMap(const QMenuBar* bar) {
  QString rows;
  for (const QAction* menu : bar->actions()) {
    if (!menu->menu()) continue;
    for (const QAction* a : menu->menu()->actions()) {
      if (a->shortcut().isEmpty()) continue;
      rows +=
          QString("<tr><td>%1</td><td>%2 › %3</td></tr>")
              .arg(a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped(),
                   menu->text().remove('&').toHtmlEscaped(), a->text().remove('&').toHtmlEscaped());
    }
  }
  rows +=
      "<tr><td>Ctrl+Tab, Ctrl+Shift+Tab</td><td>next, previous tab</td></tr>"
      "<tr><td>Ctrl+PgDown, Ctrl+PgUp</td><td>next, previous tab</td></tr>";
  return "<table cellspacing=6>" + rows + "</table>";
}

}  // namespace

void MainWindow::installKeys(QTabWidget* tabs) {
  // Removed with the window, before the window's children go.
  auto* filter = new ShortcutPassThrough(this);
  qApp->installEventFilter(filter);
  connect(this, &QObject::destroyed, filter, [filter] {
    qApp->removeEventFilter(filter);
    delete filter;
  });
  auto step = [tabs](int by) {
    const int n = tabs->count();
    if (n > 0) tabs->setCurrentIndex((tabs->currentIndex() + by + n) % n);
  };
  for (const auto& [keys, by] : {std::pair{QStringList{"Ctrl+Tab", "Ctrl+PgDown"}, 1},
                                 std::pair{QStringList{"Ctrl+Shift+Tab", "Ctrl+PgUp"}, -1}}) {
    for (const QString& k : keys) {
      auto* s = new QShortcut(QKeySequence(k), this);
      s->setContext(Qt::WindowShortcut);
      connect(s, &QShortcut::activated, this, [step, by = by] { step(by); });
    }
  }

  QMenu* help = menuBar()->addMenu("&Help");
  help->addAction(
          "Keyboard map", this,
          [this] { QMessageBox::information(this, "Keyboard map", keyboardMap(menuBar())); })
      ->setShortcut(QKeySequence::HelpContents);
  help->addAction("Documentation", this, [this] { showDocumentation(); });
  help->addAction("About QuantFront", this, [this] {
    QMessageBox::about(
        this, "About QuantFront",
        QString("<b>QuantFront %1</b><p>Should I quantize, how, and for which workload? An "
                "analytic decode model, imported benchmark and eval results with their "
                "provenance, and the quality / latency / memory frontier.</p><p>The model and "
                "its sources: docs/model.md; session files: docs/session-format.md; the command "
                "line: <tt>qfront --help</tt>.</p>")
            .arg(QString(qfrontVersion())));
  });
}

QString MainWindow::keyboardMapText() const {
  return keyboardMap(menuBar());
}

QDialog* MainWindow::showDocumentation() {
  if (m_docs) {
    m_docs->show();  // closed (hidden) since: shown again
    m_docs->raise();
    m_docs->activateWindow();
    return m_docs;
  }
  m_docs = new QDialog(this);
  m_docs->setObjectName("documentation");
  m_docs->setWindowTitle("QuantFront documentation");
  auto* list = new QListWidget(m_docs);
  list->setObjectName("documentationList");
  auto* view = new QTextBrowser(m_docs);
  view->setObjectName("documentationText");
  view->setOpenExternalLinks(true);
  const std::pair<const char*, const char*> docs[] = {
      {"README.md", "Overview and commands"},
      {"docs/model.md", "The model: equations, constants, limits"},
      {"docs/statistics.md", "Statistics: intervals, tests, gates"},
      {"docs/session-format.md", "The session file"},
      {"docs/architecture.md", "Where each computation lives"},
      {"docs/benchmarks.md", "Speed, memory and held-out error"}};
  for (const auto& [file, title] : docs) {
    auto* item = new QListWidgetItem(QString("%1  (%2)").arg(title, file), list);
    item->setData(Qt::UserRole, QString(":/docs/") + file);
  }
  connect(list, &QListWidget::currentItemChanged, view, [view](QListWidgetItem* item) {
    if (!item) return;
    QFile f(item->data(Qt::UserRole).toString());
    view->setMarkdown(f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll())
                                                  : "Not built into this program: " + f.fileName());
  });
  auto* split = new QSplitter(m_docs);
  split->addWidget(list);
  split->addWidget(view);
  split->setStretchFactor(1, 3);
  split->setSizes({300, 700});
  auto* layout = new QVBoxLayout(m_docs);
  layout->addWidget(split);
  layout->addWidget(
      new QLabel("Command line: qfront --help, qfront <command> --help; window "
                 "options: quantfront --help.",
                 m_docs));
  m_docs->resize(1000, 700);
  list->setCurrentRow(0);
  m_docs->show();
  return m_docs;
}

}  // namespace qf::ui
