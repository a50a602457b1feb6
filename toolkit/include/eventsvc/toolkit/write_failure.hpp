// Why the last write to an embedded database failed, while no later write has succeeded: what a
// plugin with a database of its own reports (its 503's message, /readyz) until a write succeeds
// again. Thread-safe; a success costs one relaxed load while nothing has failed.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <utility>

namespace eventsvc::toolkit {

class WriteFailure {
 public:
  void succeeded() {
    if (!failing_.load(std::memory_order_relaxed)) return;
    const std::lock_guard lock(mutex_);
    message_.clear();
    failing_ = false;
  }
  void failed(std::string message) {
    const std::lock_guard lock(mutex_);
    message_ = std::move(message);
    since_ = std::chrono::steady_clock::now();
    failing_ = true;
  }
  bool failing() const { return failing_.load(); }
  // The failure's message; empty while the last write succeeded.
  std::string message() const {
    if (!failing_.load()) return {};
    const std::lock_guard lock(mutex_);
    return message_;
  }
  // How long ago the failure was; zero while none stands.
  std::chrono::steady_clock::duration age() const {
    if (!failing_.load()) return {};
    const std::lock_guard lock(mutex_);
    return std::chrono::steady_clock::now() - since_;
  }

 private:
  std::atomic<bool> failing_{false};
  mutable std::mutex mutex_;
  std::string message_;                          // guarded by mutex_
  std::chrono::steady_clock::time_point since_;  // guarded by mutex_
};

}  // namespace eventsvc::toolkit
