#pragma once
/// Per-session autosaves. Each window writes its own file in the autosave folder
/// (QStandardPaths::AppDataLocation/autosave/), named after the session's path hash (or
/// "untitled") plus a random tag, and holds a lock file next to it (QLockFile: process id,
/// host, program) while it runs. The file is a small JSON header (session path, time, pid)
/// around the session. A clean close removes the window's own file; a crash leaves it, and the
/// next start finds it orphaned (its lock is stale: the owner process is gone) and offers it.
#include <QDateTime>
#include <QString>
#include <memory>
#include <vector>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/session/session.hpp>

class QLockFile;

namespace qf::ui {

/// The value of the "format" key of an autosave file.
inline constexpr const char* kAutosaveFormat = "quantfront-autosave";
/// Autosave files end in this.
inline constexpr const char* kAutosaveSuffix = ".autosave.json";

/// An autosave file's header, as found on disk.
struct AutosaveInfo {
  QString file;                  ///< the autosave file
  QString sessionPath;           ///< the session it belongs to; empty for an untitled session
  QDateTime savedAt;             ///< when it was written (UTC)
  qint64 pid = 0;                ///< the process that wrote it
  bool newerThanSession = true;  ///< false when the session file was saved after it
  /// sessionFileStamp() of the session file as the window last read or wrote it (empty for an
  /// untitled session, or an autosave written before the stamp was kept).
  QString baseStamp;
  /// True when the session file is not the one the autosave's edits were made on (an import
  /// or another window's save since): recovering it over the file would drop those changes.
  bool baseChanged = false;
  QString note;  ///< e.g. that an unreadable lock file was taken as stale
};

/// An autosave lock file that names no owner (empty or damaged, as a crash while writing it
/// leaves) is stale once it is this old; a lock naming a process is stale when it is gone.
inline constexpr qint64 kUnreadableLockStaleSeconds = 30;

/// Where autosaves go by default: QStandardPaths::AppDataLocation + "/autosave".
QString defaultAutosaveDir();

/// A session file's identity on disk: its size and modification time (to the millisecond),
/// or empty when there is no such file. An autosave keeps the stamp of the file its edits
/// were made on, so that recovery can tell the file has changed since.
QString sessionFileStamp(const QString& path);

/// Autosaves in `dir` that no running process owns (the writer crashed, was killed or its
/// machine lost power; or the lock names no owner and is old, with a note), newest first. Files
/// whose header cannot be read are listed too, with an invalid savedAt, so a damaged autosave is
/// still offered rather than silently kept.
std::vector<AutosaveInfo> findOrphanedAutosaves(const QString& dir);

/// Reads an autosave file: its header into `info` (when given) and the session.
/// Errors name the autosave file.
Result<Session> readAutosave(const QString& file, AutosaveInfo* info = nullptr);

/// One window's autosave file and its lock. The file is written only when asked and removed
/// only by remove(); destroying the slot releases the lock and leaves the file (as a crash
/// would), so an unsaved session is never lost by accident.
class AutosaveSlot {
 public:
  /// A new slot in `dir` for the session at `sessionPath` (empty: untitled). Takes its lock;
  /// writes nothing yet. Check ok().
  AutosaveSlot(const QString& dir, const QString& sessionPath);
  /// Takes over the orphaned autosave `file` (as findOrphanedAutosaves lists it). nullptr
  /// when another running process holds it.
  static std::unique_ptr<AutosaveSlot> claim(const QString& file);
  ~AutosaveSlot();
  AutosaveSlot(const AutosaveSlot&) = delete;
  AutosaveSlot& operator=(const AutosaveSlot&) = delete;

  /// True when the lock is held (the slot may write).
  [[nodiscard]] bool ok() const;
  /// The autosave file.
  [[nodiscard]] const QString& file() const { return m_file; }
  /// Writes `session` (belonging to `sessionPath`, whose file had `baseStamp` when the
  /// window read or wrote it) atomically. Returns an error, empty on success.
  QString write(const Session& session, const QString& sessionPath, const QString& baseStamp = {});
  /// Removes the autosave file (a clean close, a save, a discard).
  void remove();

 private:
  explicit AutosaveSlot(QString file);
  QString m_file;
  std::unique_ptr<QLockFile> m_lock;
};

}  // namespace qf::ui
