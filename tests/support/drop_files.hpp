#pragma once
// Files dropped on a window as a file manager drops them, and the import summary box that
// follows read and closed.
#include <catch2/catch.hpp>

#include <QApplication>
#include <QDropEvent>
#include <QMessageBox>
#include <QMimeData>
#include <QTest>
#include <QTimer>
#include <QUrl>
#include <functional>

namespace qf::testing {

/// Drops `paths` on `window`, runs `afterDrop` (the files are then being read on the worker
/// thread), waits for the import's message box and returns its text, closing it.
inline QString dropFilesAndReadSummary(QWidget& window, const QStringList& paths,
                                       const std::function<void()>& afterDrop = {}) {
  QMimeData mime;
  QList<QUrl> urls;
  for (const QString& p : paths) urls << QUrl::fromLocalFile(p);
  mime.setUrls(urls);
  // The summary is a message box: close it as soon as it is up.
  QString shown;
  QTimer closer;
  QObject::connect(&closer, &QTimer::timeout, [&] {
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
      shown = box->text();
      box->accept();
    }
  });
  closer.start(20);
  QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&window, &enter);
  REQUIRE(enter.isAccepted());
  QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&window, &drop);
  if (afterDrop) afterDrop();
  REQUIRE(QTest::qWaitFor([&] { return !shown.isEmpty(); }, 20000));
  return shown;
}

}  // namespace qf::testing
