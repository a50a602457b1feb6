#include "merge/background_thread.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>

namespace eventsvc::plugins::rocksdb_storage {

BackgroundThread::BackgroundThread(int nice) : thread_([this, nice] { loop(nice); }) {}

BackgroundThread::~BackgroundThread() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wakeup_.notify_one();
  thread_.join();
}

void BackgroundThread::post(std::function<void()> task) {
  {
    const std::lock_guard lock(mutex_);
    task_ = std::move(task);
  }
  wakeup_.notify_one();
}

void BackgroundThread::loop(int nice) {
  if (nice != 0) {
    // PRIO_PROCESS with a thread id sets that thread's nice value alone (Linux). A refusal only
    // leaves the thread at the priority it has.
    const auto self = static_cast<id_t>(gettid());
    errno = 0;
    const int current = getpriority(PRIO_PROCESS, self);
    if (errno == 0) static_cast<void>(setpriority(PRIO_PROCESS, self, current + nice));
  }
  std::unique_lock lock(mutex_);
  while (true) {
    wakeup_.wait(lock, [&] { return task_ || stopping_; });
    if (!task_) return;  // stopping, nothing left to run
    auto task = std::exchange(task_, nullptr);
    lock.unlock();
    task();  // a packaged task: what it throws reaches the caller through its future
    lock.lock();
  }
}

}  // namespace eventsvc::plugins::rocksdb_storage
