#pragma once
/// The session the window starts with and File › New opens.
#include <quantfront/core/session/session.hpp>

namespace qf::ui {

/// The bundled example session (an empty one should the bundle not parse). Needs no
/// QApplication: quantfront checks a command line's scenario against it before one exists.
Session bundledExampleSession();

}  // namespace qf::ui
