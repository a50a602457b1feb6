#include "tail/tail_hub.hpp"

#include <vector>

namespace eventsvc::host {

TailHub::TailHub(sdk::Storage* storage) : storage_(storage) {
  if (storage_ != nullptr) storage_->watch_changes([wakes = wakes_] { wakes->changed(); });
}

TailHub::~TailHub() {
  if (storage_ != nullptr) storage_->watch_changes({});
}

std::shared_ptr<void> TailHub::subscribe(std::function<void()> wake) {
  std::list<std::function<void()>>::iterator entry;
  {
    const std::lock_guard lock(wakes_->mutex);
    entry = wakes_->list.insert(wakes_->list.end(), std::move(wake));
  }
  return {nullptr, [wakes = wakes_, entry](void*) {
            const std::lock_guard lock(wakes->mutex);
            wakes->list.erase(entry);
          }};
}

std::size_t TailHub::open() const {
  const std::lock_guard lock(wakes_->mutex);
  return wakes_->list.size();
}

void TailHub::Wakes::changed() {
  ++generation;
  // Called outside the lock: a wake-up only posts to its connection's strand.
  std::vector<std::function<void()>> now;
  {
    const std::lock_guard lock(mutex);
    now.assign(list.begin(), list.end());
  }
  for (const auto& wake : now)
    wake();
}

}  // namespace eventsvc::host
