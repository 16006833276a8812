#include <quantfront/ui/autosave.hpp>

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <algorithm>

#include <nlohmann/json.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/session/atomic_file.hpp>

namespace qf::ui {

namespace {

/// The autosave format version this build writes and reads.
constexpr int kAutosaveVersion = 1;

std::string localPath(const QString& path) {
  const QByteArray b = QFile::encodeName(path);
  return std::string(b.constData(), static_cast<std::size_t>(b.size()));
}

QString lockPathFor(const QString& file) {
  return file + ".lock";
}

std::unique_ptr<QLockFile> tryLock(const QString& file, QString* note = nullptr) {
  auto lock = std::make_unique<QLockFile>(lockPathFor(file));
  // A running window holds its lock for hours: only a dead owner makes a lock stale.
  lock->setStaleLockTime(0);
  if (lock->tryLock(0)) return lock;
  // A lock that names no owner (empty or damaged: a crash while it was being written) can
  // never be proved stale by its owner; after kUnreadableLockStaleSeconds it is stale.
  qint64 pid = 0;
  QString host, app;
  if (lock->error() != QLockFile::LockFailedError || lock->getLockInfo(&pid, &host, &app)) {
    return nullptr;
  }
  const QFileInfo fi(lockPathFor(file));
  const qint64 age = fi.lastModified().secsTo(QDateTime::currentDateTime());
  if (!fi.exists() || age < kUnreadableLockStaleSeconds) return nullptr;
  if (!lock->removeStaleLockFile() || !lock->tryLock(0)) return nullptr;
  if (note) {
    *note = QString(
                "its lock file %1 named no owner (empty or damaged) and was %2 s old: "
                "treated as stale")
                .arg(fi.filePath())
                .arg(age);
  }
  return lock;
}

/// "session-<12 hex of SHA-256 of the absolute path>" or "untitled", plus a random tag so
/// two windows on one session never share a file.
QString autosaveName(const QString& sessionPath) {
  QString key = "untitled";
  if (!sessionPath.isEmpty()) {
    const QByteArray abs = QFileInfo(sessionPath).absoluteFilePath().toUtf8();
    key = "session-" +
          QString::fromLatin1(
              QCryptographicHash::hash(abs, QCryptographicHash::Sha256).toHex().left(12));
  }
  const quint64 tag = QRandomGenerator::system()->generate64();
  return QString("%1-%2%3").arg(key).arg(tag, 16, 16, QChar('0')).arg(kAutosaveSuffix);
}

Error autosaveError(const QString& file, const std::string& field, const std::string& message) {
  return Error{localPath(file), "", field, message};
}

}  // namespace

QString sessionFileStamp(const QString& path) {
  const QFileInfo fi(path);
  if (path.isEmpty() || !fi.exists()) return {};
  return QString("%1 bytes, modified %2")
      .arg(fi.size())
      .arg(fi.lastModified().toUTC().toString(Qt::ISODateWithMs));
}

QString defaultAutosaveDir() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
      .filePath("autosave");
}

namespace {

/// readAutosave without the guard.
Result<Session> readAutosaveFile(const QString& file, AutosaveInfo* info) {
  auto bytes = readFileBytes(localPath(file), kMaxSessionFileBytes);
  if (!bytes) return bytes.error();
  auto doc = parseSessionJson(*bytes, localPath(file));
  if (!doc) return doc.error();
  const Json& j = *doc;
  if (!j.is_object() || j.value("format", Json()) != kAutosaveFormat) {
    return autosaveError(file, "format", "not a QuantFront autosave");
  }
  if (!j.contains("version") || !j["version"].is_number_integer() ||
      j["version"].get<int>() > kAutosaveVersion) {
    return autosaveError(file, "version", "expected an autosave version up to 1");
  }
  AutosaveInfo header;
  header.file = file;
  if (j.contains("session_path") && j["session_path"].is_string()) {
    header.sessionPath = QString::fromStdString(j["session_path"].get<std::string>());
  }
  if (j.contains("saved_at") && j["saved_at"].is_string()) {
    header.savedAt = QDateTime::fromString(QString::fromStdString(j["saved_at"].get<std::string>()),
                                           Qt::ISODateWithMs);
  }
  if (j.contains("pid") && j["pid"].is_number_integer()) header.pid = j["pid"].get<qint64>();
  if (!header.sessionPath.isEmpty() && header.savedAt.isValid()) {
    const QFileInfo fi(header.sessionPath);
    header.newerThanSession = !fi.exists() || fi.lastModified() <= header.savedAt;
  }
  if (j.contains("base") && j["base"].is_string()) {
    header.baseStamp = QString::fromStdString(j["base"].get<std::string>());
    header.baseChanged =
        !header.sessionPath.isEmpty() && sessionFileStamp(header.sessionPath) != header.baseStamp;
  }
  if (info) *info = header;
  if (!j.contains("session")) return autosaveError(file, "session", "missing the session");
  return parseSession(j["session"], localPath(file));
}

}  // namespace

Result<Session> readAutosave(const QString& file, AutosaveInfo* info) {
  // A damaged autosave gives a message, never ends the program that offers it.
  try {
    return readAutosaveFile(file, info);
  } catch (const std::exception& e) {
    return autosaveError(file, "", std::string("cannot read: ") + e.what());
  }
}

std::vector<AutosaveInfo> findOrphanedAutosaves(const QString& dir) {
  std::vector<AutosaveInfo> out;
  const QDir d(dir);
  for (const QString& name : d.entryList({QString("*") + kAutosaveSuffix}, QDir::Files)) {
    const QString file = d.filePath(name);
    // Free (or stale: the owner process is gone) means orphaned. The lock is let go at
    // once; claim() takes it again before anything is done with the file.
    QString note;
    if (!tryLock(file, &note)) continue;
    AutosaveInfo info;
    info.file = file;
    (void)readAutosave(file, &info);
    info.file = file;
    info.note = note;
    out.push_back(info);
  }
  std::sort(out.begin(), out.end(), [](const AutosaveInfo& a, const AutosaveInfo& b) {
    if (a.savedAt.isValid() != b.savedAt.isValid()) return a.savedAt.isValid();
    return a.savedAt > b.savedAt;
  });
  return out;
}

AutosaveSlot::AutosaveSlot(QString file) : m_file(std::move(file)) {}

AutosaveSlot::AutosaveSlot(const QString& dir, const QString& sessionPath)
    : m_file(QDir(dir).filePath(autosaveName(sessionPath))) {
  QDir().mkpath(dir);
  m_lock = tryLock(m_file);
}

std::unique_ptr<AutosaveSlot> AutosaveSlot::claim(const QString& file) {
  auto lock = tryLock(file);
  if (!lock) return nullptr;
  std::unique_ptr<AutosaveSlot> slot(new AutosaveSlot(file));
  slot->m_lock = std::move(lock);
  return slot;
}

AutosaveSlot::~AutosaveSlot() = default;

bool AutosaveSlot::ok() const {
  return m_lock && m_lock->isLocked();
}

QString AutosaveSlot::write(const Session& session, const QString& sessionPath,
                            const QString& baseStamp) {
  if (!ok()) return m_file + ": autosave file is locked by another process";
  Json doc = Json::object();
  doc["format"] = kAutosaveFormat;
  doc["version"] = kAutosaveVersion;
  doc["session_path"] = sessionPath.toStdString();
  doc["saved_at"] = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toStdString();
  doc["pid"] = QCoreApplication::applicationPid();
  if (!baseStamp.isEmpty()) doc["base"] = baseStamp.toStdString();
  doc["session"] = sessionToJson(session);
  if (auto e = writeFileAtomic(localPath(m_file), doc.dump(2) + "\n")) {
    return QString::fromStdString(e->str());
  }
  return {};
}

void AutosaveSlot::remove() {
  QFile::remove(m_file);
}

}  // namespace qf::ui
