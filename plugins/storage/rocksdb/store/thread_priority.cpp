#include "store/thread_priority.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>

namespace eventsvc::plugins::rocksdb_storage {

void lower_thread_priority(int nice) {
  if (nice == 0) return;
  // PRIO_PROCESS with a thread id sets that thread's nice value alone (Linux).
  const auto self = static_cast<id_t>(gettid());
  errno = 0;
  const int current = getpriority(PRIO_PROCESS, self);
  if (errno == 0) static_cast<void>(setpriority(PRIO_PROCESS, self, current + nice));
}

}  // namespace eventsvc::plugins::rocksdb_storage
