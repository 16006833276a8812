#pragma once
/// What the main window's source files share (main_window.cpp, window_*.cpp).
#include <QString>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <quantfront/core/base/error.hpp>
#include <quantfront/ui/await_progress.hpp>
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

}  // namespace qf::ui
