#include "server/connection_table.hpp"

namespace eventsvc::host {

ConnectionTable::ConnectionTable(std::size_t max_total, std::size_t max_per_address)
    : max_total_(max_total), max_per_address_(max_per_address) {}

ConnectionTable::Admission ConnectionTable::admit(const std::string& address) {
  Admission admission;
  if (open_from(address) >= max_per_address_) {
    admission.refusal = Refusal::address_cap;
    return admission;
  }
  if (entries_.size() >= max_total_) {
    if (idle_.empty()) {
      admission.refusal = Refusal::total_cap;
      return admission;
    }
    admission.evicted = idle_.front();
    remove(idle_.front());
  }
  admission.id = next_id_++;
  entries_.emplace(admission.id, Entry{address, std::nullopt});
  ++per_address_[address];
  return admission;
}

void ConnectionTable::set_idle(Id id, bool idle) {
  const auto it = entries_.find(id);
  if (it == entries_.end() || it->second.idle_at.has_value() == idle) return;
  if (idle) {
    it->second.idle_at = idle_.insert(idle_.end(), id);
  } else {
    idle_.erase(*it->second.idle_at);
    it->second.idle_at.reset();
  }
}

void ConnectionTable::remove(Id id) {
  const auto it = entries_.find(id);
  if (it == entries_.end()) return;
  if (it->second.idle_at) idle_.erase(*it->second.idle_at);
  const auto count = per_address_.find(it->second.address);
  if (--count->second == 0) per_address_.erase(count);
  entries_.erase(it);
}

std::size_t ConnectionTable::open_from(const std::string& address) const {
  const auto it = per_address_.find(address);
  return it == per_address_.end() ? 0 : it->second;
}

const char* refusal_name(ConnectionTable::Refusal refusal) {
  switch (refusal) {
    case ConnectionTable::Refusal::address_cap:
      return "address_cap";
    case ConnectionTable::Refusal::total_cap:
      return "total_cap";
    case ConnectionTable::Refusal::none:
      break;
  }
  return "none";
}

}  // namespace eventsvc::host
