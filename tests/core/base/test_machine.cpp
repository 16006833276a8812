// The machine as the program sees it: the cores it may use follow its CPU affinity, which
// sizes the bootstrap's worker threads.
#include <catch2/catch.hpp>

#include <thread>

#ifdef __linux__
#include <sched.h>
#endif

#include <quantfront/core/base/version.hpp>

TEST_CASE("usable cores are at least one and at most the machine's", "[machine]") {
  const unsigned n = qf::usableCores();
  CHECK(n >= 1);
  if (std::thread::hardware_concurrency() > 0) CHECK(n <= std::thread::hardware_concurrency());
}

#ifdef __linux__
TEST_CASE("usable cores follow the thread's CPU affinity", "[machine]") {
  cpu_set_t before;
  CPU_ZERO(&before);
  REQUIRE(sched_getaffinity(0, sizeof(before), &before) == 0);
  const int allowed = CPU_COUNT(&before);
  CHECK(qf::usableCores() == static_cast<unsigned>(allowed));
  // Pinned to the first core it may use (as `taskset -c` pins a process): one.
  int first = 0;
  while (first < CPU_SETSIZE && !CPU_ISSET(first, &before)) ++first;
  REQUIRE(first < CPU_SETSIZE);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  REQUIRE(sched_setaffinity(0, sizeof(one), &one) == 0);
  CHECK(qf::usableCores() == 1);
  REQUIRE(sched_setaffinity(0, sizeof(before), &before) == 0);
  CHECK(qf::usableCores() == static_cast<unsigned>(allowed));
}
#endif
