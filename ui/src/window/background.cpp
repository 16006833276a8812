// The window's work off the GUI thread (background.hpp): jobs in lanes, applied by generation.
#include <quantfront/ui/background.hpp>

#include <algorithm>

namespace qf::ui {

Background::Background(QObject* parent) : QObject(parent) {}

Background::~Background() {
  stopAll();
}

std::uint64_t Background::start(Lane lane, std::shared_ptr<std::atomic<bool>> cancelled,
                                std::function<void()> body, std::function<void()> apply) {
  const std::uint64_t generation = ++m_generation[index(lane)];
  // An older job of the lane is superseded: told to stop, its result dropped when it ends.
  for (const Job& j : m_jobs) {
    if (j.lane == lane) j.cancelled->store(true);
  }
  QThread* thread = QThread::create(std::move(body));
  // Queued to this object's thread: the result is applied where the widgets live.
  connect(thread, &QThread::finished, this, [this, lane, generation] { ended(lane, generation); });
  m_jobs.push_back(Job{lane, generation, thread, std::move(cancelled), std::move(apply)});
  thread->start();
  return generation;
}

void Background::ended(Lane lane, std::uint64_t generation) {
  const auto it = std::find_if(m_jobs.begin(), m_jobs.end(), [&](const Job& j) {
    return j.lane == lane && j.generation == generation;
  });
  if (it == m_jobs.end()) return;  // applied already by wait()
  Job job = std::move(*it);
  m_jobs.erase(it);
  job.thread->wait();
  job.thread->deleteLater();
  if (generation == m_generation[index(lane)]) job.apply();
}

bool Background::busy(Lane lane) const {
  const std::uint64_t newest = m_generation[index(lane)];
  return std::any_of(m_jobs.begin(), m_jobs.end(),
                     [&](const Job& j) { return j.lane == lane && j.generation == newest; });
}

void Background::wait(Lane lane) {
  const std::uint64_t newest = m_generation[index(lane)];
  const auto it = std::find_if(m_jobs.begin(), m_jobs.end(), [&](const Job& j) {
    return j.lane == lane && j.generation == newest;
  });
  if (it == m_jobs.end()) return;
  it->thread->wait();
  ended(lane, newest);
}

void Background::cancel(Lane lane) {
  const std::uint64_t newest = m_generation[index(lane)];
  for (const Job& j : m_jobs) {
    if (j.lane == lane && j.generation == newest) j.cancelled->store(true);
  }
}

void Background::abandon(Lane lane) {
  for (const Job& j : m_jobs) {
    if (j.lane == lane) j.cancelled->store(true);
  }
  ++m_generation[index(lane)];  // a result of an older generation is dropped when it ends
}

void Background::stopAll() {
  for (const Job& j : m_jobs) j.cancelled->store(true);
  for (const Job& j : m_jobs) {
    j.thread->wait();
    delete j.thread;
  }
  m_jobs.clear();
  // A queued ended() still on its way finds no job: nothing is applied.
}

}  // namespace qf::ui
