#pragma once
/// What the main window's source files share (main_window.cpp, window_*.cpp).
#include <QEventLoop>
#include <QProgressDialog>
#include <QString>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <quantfront/core/base/error.hpp>
#include <quantfront/ui/background.hpp>

#include "text.hpp"

namespace qf::ui {

/// Runs a core call, turning an exception that escaped it into an Error naming `source`: a bad
/// file gives a message, never ends the program.
template <class F>
auto guarded(const std::string& source, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    return Error{source, "", "", std::string("cannot read: ") + e.what()};
  }
}

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
