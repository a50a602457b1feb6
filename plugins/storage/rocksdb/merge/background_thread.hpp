// A thread of lower scheduling priority that runs one task at a time for a caller who waits for
// it. The merge thread prepares merges and purges here (reading and building the merged chunk:
// most of a merge's CPU), so that on a busy machine projection rounds, ingest and questions go
// first and merges take the CPU left over. The caller keeps its own priority for what it does
// while holding a lock a projection round also takes (a merge's commit): a low-priority holder
// would keep the round waiting for as long as the busy machine kept it off a core.
#pragma once

#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>

namespace eventsvc::plugins::rocksdb_storage {

class BackgroundThread {
 public:
  // `nice`: added to the thread's nice value (Linux: per thread); 0 leaves it as it is. Where the
  // system refuses, the thread runs at the caller's priority.
  explicit BackgroundThread(int nice);
  ~BackgroundThread();
  BackgroundThread(const BackgroundThread&) = delete;
  BackgroundThread& operator=(const BackgroundThread&) = delete;

  // Runs `task` on the thread and returns what it returns, or throws what it threw. Callers on
  // several threads take turns: the thread holds one task at a time.
  template <class Task>
  std::invoke_result_t<Task&> run(Task&& task) {
    const std::lock_guard turn(calling_);
    std::packaged_task<std::invoke_result_t<Task&>()> packaged(std::forward<Task>(task));
    auto result = packaged.get_future();
    post([&packaged] { packaged(); });
    return result.get();
  }

 private:
  void post(std::function<void()> task);
  void loop(int nice);

  std::mutex calling_;  // held by a caller from posting its task to taking its result
  std::mutex mutex_;
  std::condition_variable wakeup_;
  std::function<void()> task_;  // guarded by mutex_
  bool stopping_ = false;       // guarded by mutex_
  std::thread thread_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
