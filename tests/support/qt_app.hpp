#pragma once
// The one QApplication of a GUI test process (inline: every test file shares it). Test mode
// keeps QSettings (recent files) and QStandardPaths (autosaves) out of the user's own
// folders: they go to ~/.qttest, never into the real configuration.
#include <QApplication>
#include <QStandardPaths>

namespace qf::testing {

inline QApplication& app() {
  QStandardPaths::setTestModeEnabled(true);
  static int argc = 1;
  static char name[] = "qf_ui_tests";
  static char* argv[] = {name, nullptr};
  static QApplication a(argc, argv);
  return a;
}

}  // namespace qf::testing
