#include "feed/recent_feed.hpp"

#include <algorithm>

namespace eventsvc::plugins::rocksdb_storage {

void RecentFeed::append(const std::string& tenant, const std::string& start, RecentEntry entry) {
  const std::lock_guard lock(mutex_);
  auto [window, created] = windows_.try_emplace(tenant);
  if (created) window->second.start = start;
  versions_ += entry.records.size();
  window->second.entries.push_back(std::make_shared<const RecentEntry>(std::move(entry)));
  order_.push_back(tenant);
  trim();
}

void RecentFeed::forget(const std::string& tenant) {
  const std::lock_guard lock(mutex_);
  const auto window = windows_.find(tenant);
  if (window == windows_.end()) return;
  for (const auto& entry : window->second.entries)
    versions_ -= entry->records.size();
  windows_.erase(window);
  // Their places in `order_` stay; trim() skips a tenant whose window is shorter than it expects.
}

void RecentFeed::forget_all() {
  const std::lock_guard lock(mutex_);
  windows_.clear();
  order_.clear();
  versions_ = 0;
}

void RecentFeed::trim() {
  while (versions_ > capacity_ && !order_.empty()) {
    const std::string tenant = std::move(order_.front());
    order_.pop_front();
    const auto window = windows_.find(tenant);
    if (window == windows_.end() || window->second.entries.empty()) continue;
    auto& entries = window->second.entries;
    versions_ -= entries.front()->records.size();
    window->second.start = entries.front()->place;
    entries.pop_front();
    if (entries.empty()) windows_.erase(window);
  }
}

std::optional<RecentFeed::Span> RecentFeed::after(const std::string& tenant,
                                                  const std::string& after_place,
                                                  std::size_t max_versions) const {
  const std::lock_guard lock(mutex_);
  const auto window = windows_.find(tenant);
  if (window == windows_.end() || after_place < window->second.start) return std::nullopt;
  const auto& entries = window->second.entries;
  auto it = std::lower_bound(entries.begin(), entries.end(), after_place,
                             [](const std::shared_ptr<const RecentEntry>& entry,
                                const std::string& place) { return entry->place < place; });
  Span out;
  std::size_t versions = 0;
  for (; it != entries.end() && versions < max_versions; ++it) {
    out.entries.push_back(*it);
    versions += (*it)->records.size();
  }
  out.to_the_end = it == entries.end();
  return out;
}

std::shared_ptr<const RecentEntry> RecentFeed::update_verification(
    const std::string& tenant, const std::shared_ptr<const RecentEntry>& entry,
    sdk::Verification verification) {
  auto updated = std::make_shared<RecentEntry>(*entry);
  for (auto& record : updated->records) {
    if (!record || record->verification == verification) continue;
    auto copy = std::make_shared<sdk::Record>(*record);
    copy->verification = verification;
    record = std::move(copy);
  }
  std::shared_ptr<const RecentEntry> result = std::move(updated);
  const std::lock_guard lock(mutex_);
  const auto window = windows_.find(tenant);
  if (window == windows_.end()) return result;
  auto& entries = window->second.entries;
  const auto held =
      std::lower_bound(entries.begin(), entries.end(), entry->place,
                       [](const std::shared_ptr<const RecentEntry>& candidate,
                          const std::string& place) { return candidate->place < place; });
  if (held != entries.end() && *held == entry) *held = result;
  return result;
}

}  // namespace eventsvc::plugins::rocksdb_storage
