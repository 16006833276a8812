#pragma once
// The one QApplication of a GUI test process (inline: every test file shares it).
#include <QApplication>

namespace qf::testing {

inline QApplication& app() {
  static int argc = 1;
  static char name[] = "qf_ui_tests";
  static char* argv[] = {name, nullptr};
  static QApplication a(argc, argv);
  return a;
}

}  // namespace qf::testing
