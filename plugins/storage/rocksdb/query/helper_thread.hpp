// A thread kept for the questions that share their chunks between two threads. Starting and
// joining a thread for each such question cost a rare word's search at 1,000,000 events about a
// twentieth of the server's CPU in clone() alone, before the new thread's first touches of its
// thread-local state. A question's second part runs here when this thread is free; when it is
// busy with another question's part, or has not taken this one's by the time the caller finished
// its own part, the caller runs the second part itself: a question never waits behind another's
// work, and on two cores several questions at once each use one.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace eventsvc::plugins::rocksdb_storage {

class HelperThread {
 public:
  HelperThread();
  ~HelperThread();
  HelperThread(const HelperThread&) = delete;
  HelperThread& operator=(const HelperThread&) = delete;

  // Runs part(0) on the calling thread and part(1) here or there (above); returns once both have
  // run, and rethrows what one threw (part 0's first). Part 1 is skipped when part 0 threw before
  // this thread took it.
  void run_both(const std::function<void(std::size_t)>& part);

 private:
  struct Job {
    const std::function<void(std::size_t)>* part = nullptr;
    bool done = false;           // guarded by mutex_
    std::exception_ptr failure;  // part 1's, written before done
  };
  void loop();

  std::mutex mutex_;
  std::condition_variable wakeup_;    // a job posted, or stopping
  std::condition_variable finished_;  // a job done
  Job* posted_ = nullptr;             // guarded by mutex_: handed over, not yet taken
  bool busy_ = false;                 // guarded by mutex_: a job posted or running
  bool stopping_ = false;             // guarded by mutex_
  std::thread thread_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
