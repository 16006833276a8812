#pragma once
// Starts the real quantfront binary for tests: offscreen, with its data, config and home
// folders in a temporary directory so nothing touches the user's own files.
#include <QDir>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace qf::test {

/// What a finished quantfront run gave.
struct ProcessResult {
  int exitCode = -1;
  bool crashed = false;
  bool finished = false;
  QString out;
  QString err;
};

/// The environment a test run gets: offscreen platform, XDG_DATA_HOME, XDG_CONFIG_HOME,
/// XDG_CACHE_HOME and HOME under `home` (created).
inline QProcessEnvironment quantfrontEnv(const QString& home) {
  QDir().mkpath(home + "/data");
  QDir().mkpath(home + "/config");
  QDir().mkpath(home + "/cache");
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("QT_QPA_PLATFORM", "offscreen");
  env.insert("HOME", home);
  env.insert("XDG_DATA_HOME", home + "/data");
  env.insert("XDG_CONFIG_HOME", home + "/config");
  env.insert("XDG_CACHE_HOME", home + "/cache");
  env.insert("XDG_RUNTIME_DIR", home);
  return env;
}

/// Runs `program args` to completion (killed after `timeoutMs`).
inline ProcessResult runProgram(const QString& program, const QStringList& args,
                                const QProcessEnvironment& env, int timeoutMs = 60000) {
  QProcess p;
  p.setProcessEnvironment(env);
  p.start(program, args);
  ProcessResult r;
  if (!p.waitForStarted(timeoutMs)) return r;
  r.finished = p.waitForFinished(timeoutMs);
  if (!r.finished) {
    p.kill();
    p.waitForFinished(5000);
  }
  r.crashed = p.exitStatus() == QProcess::CrashExit;
  r.exitCode = p.exitCode();
  r.out = QString::fromLocal8Bit(p.readAllStandardOutput());
  r.err = QString::fromLocal8Bit(p.readAllStandardError());
  return r;
}

/// Runs quantfront with `args` in the environment quantfrontEnv(home) gives.
inline ProcessResult runQuantfront(const QStringList& args, const QString& home,
                                   int timeoutMs = 60000) {
  return runProgram(QString(QF_QUANTFRONT_EXE), args, quantfrontEnv(home), timeoutMs);
}

/// stderr without Qt's own platform chatter (lines starting "QStandardPaths:" or "qt.").
inline QStringList errorLines(const QString& err) {
  QStringList lines;
  for (const QString& l : err.split('\n', Qt::SkipEmptyParts)) {
    if (l.startsWith("QStandardPaths:") || l.startsWith("qt.")) continue;
    lines << l;
  }
  return lines;
}

}  // namespace qf::test
