#include "merge/background_thread.hpp"

#include "store/thread_priority.hpp"

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
  lower_thread_priority(nice);
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
