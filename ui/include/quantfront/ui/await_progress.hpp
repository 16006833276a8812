#pragma once
/// A wait the user can see and give up: the window's modal form of Background's jobs (opening
/// a session, a calibration's fit).
#include <QEventLoop>
#include <QObject>
#include <QProgressDialog>
#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>

#include <quantfront/ui/background.hpp>

namespace qf::ui {

/// Runs `work` in `lane` off the GUI thread while the window keeps painting under a
/// window-modal progress dialog saying `label` (shown after 400 ms) whose Cancel gives the
/// work up; the caller gets the result when this returns, or nullopt when it was given up (the
/// work finishes on its own and is dropped: a newer generation of the lane).
template <class R>
std::optional<R> awaitWithProgress(Background& background, Background::Lane lane, QWidget* parent,
                                   const QString& label,
                                   std::function<R(const std::atomic<bool>&)> work) {
  struct Waiting {
    std::optional<R> result;
    QEventLoop* loop = nullptr;
  };
  auto waiting = std::make_shared<Waiting>();
  QEventLoop loop;
  waiting->loop = &loop;
  background.run<R>(lane, std::move(work), [waiting](R&& result) {
    waiting->result = std::move(result);
    if (waiting->loop) waiting->loop->quit();
  });
  {
    QProgressDialog progress(label, "Cancel", 0, 0, parent);
    progress.setWindowModality(Qt::WindowModal);
    // A dialog with no range starts its minimum duration only from a value at its minimum:
    // without setValue(0) it came at Qt's default 4 s, after most reads had ended.
    progress.setValue(0);
    progress.setMinimumDuration(400);
    QObject::connect(&progress, &QProgressDialog::canceled, &loop, &QEventLoop::quit);
    // The result may be in already (applied while the dialog was set up): then no loop.
    if (!waiting->result) loop.exec();
  }
  waiting->loop = nullptr;
  if (!waiting->result) background.abandon(lane);
  return std::move(waiting->result);
}

}  // namespace qf::ui
