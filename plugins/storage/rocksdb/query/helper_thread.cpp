#include "query/helper_thread.hpp"

namespace eventsvc::plugins::rocksdb_storage {

HelperThread::HelperThread() : thread_([this] { loop(); }) {}

HelperThread::~HelperThread() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wakeup_.notify_one();
  thread_.join();
}

void HelperThread::run_both(const std::function<void(std::size_t)>& part) {
  Job job;
  job.part = &part;
  bool handed = false;
  {
    const std::lock_guard lock(mutex_);
    if (!busy_ && !stopping_) {
      busy_ = true;
      posted_ = &job;
      handed = true;
    }
  }
  if (handed) wakeup_.notify_one();

  std::exception_ptr first;
  try {
    part(0);
  } catch (...) {
    first = std::current_exception();
  }
  bool second_is_ours = !handed;
  if (handed) {
    std::unique_lock lock(mutex_);
    if (posted_ == &job) {
      // Not taken yet (the thread was slow to wake): taking it back costs less than waiting.
      posted_ = nullptr;
      busy_ = false;
      second_is_ours = true;
    } else {
      finished_.wait(lock, [&] { return job.done; });
    }
  }
  if (first) std::rethrow_exception(first);
  if (second_is_ours) {
    part(1);
  } else if (job.failure) {
    std::rethrow_exception(job.failure);
  }
}

void HelperThread::loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wakeup_.wait(lock, [&] { return posted_ != nullptr || stopping_; });
    if (posted_ == nullptr) return;
    Job* job = posted_;
    posted_ = nullptr;
    lock.unlock();
    try {
      (*job->part)(1);
    } catch (...) {
      job->failure = std::current_exception();
    }
    lock.lock();
    job->done = true;
    busy_ = false;
    // Under the lock: the caller's job (on its stack) is not touched after it may return.
    finished_.notify_one();
  }
}

}  // namespace eventsvc::plugins::rocksdb_storage
