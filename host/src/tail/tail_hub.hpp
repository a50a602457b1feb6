// What the open live tails share: the storage's news that its change feed grew, passed on to every
// tail's connection as a wake-up, so that a tail waiting for events is woken the moment they are
// searchable rather than polling storage.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>

#include "eventsvc/sdk/storage.hpp"

namespace eventsvc::host {

class TailHub {
 public:
  // Watches `storage`'s change feed (may be null: no storage plugin, no tails).
  explicit TailHub(sdk::Storage* storage);
  ~TailHub();
  TailHub(const TailHub&) = delete;
  TailHub& operator=(const TailHub&) = delete;

  // Calls `wake` after each growth of the feed until the returned registration is dropped.
  std::shared_ptr<void> subscribe(std::function<void()> wake);
  // How many times the feed has grown: a tail that saw this number has nothing new to read.
  std::uint64_t generation() const { return wakes_->generation.load(); }
  // Tails open on this server now.
  std::size_t open() const;

 private:
  // Shared with the storage's callback, which may outlive the hub by a call under way.
  struct Wakes {
    std::atomic<std::uint64_t> generation{0};
    std::mutex mutex;
    std::list<std::function<void()>> list;
    void changed();
  };

  sdk::Storage* storage_;
  std::shared_ptr<Wakes> wakes_ = std::make_shared<Wakes>();
};

}  // namespace eventsvc::host
