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
  // Never destroyed: a static QApplication is destroyed at exit after Qt's own registry of
  // input devices, and deleting the pointing device a shown table view registers then
  // crashes the process after its tests passed.
  static QApplication* a = new QApplication(argc, argv);
  return *a;
}

}  // namespace qf::testing
