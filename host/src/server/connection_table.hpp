// Which connections are open, from which client address, and which are idle: the accounting
// behind the connection caps. At the total cap a new connection takes the place of the
// longest-idle keep-alive connection (an idle connection costs the server a slot and nothing
// else); when none is idle, or the client's address has its share, the new one is refused.
// Not thread-safe: the connection layer uses it from its one I/O thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>

namespace eventsvc::host {

class ConnectionTable {
 public:
  using Id = std::uint64_t;

  enum class Refusal { none, address_cap, total_cap };

  struct Admission {
    Refusal refusal = Refusal::none;
    Id id = 0;                  // the new connection's id when admitted
    std::optional<Id> evicted;  // an idle connection that was removed to make room: close it
  };

  ConnectionTable(std::size_t max_total, std::size_t max_per_address);

  Admission admit(const std::string& address);
  // Idle connections (waiting for a request to start) are the first to go at the cap.
  void set_idle(Id id, bool idle);
  // The connection closed. Unknown ids (already evicted) are ignored.
  void remove(Id id);

  std::size_t open() const { return entries_.size(); }
  std::size_t idle() const { return idle_.size(); }
  std::size_t open_from(const std::string& address) const;

 private:
  struct Entry {
    std::string address;
    std::optional<std::list<Id>::iterator> idle_at;
  };

  std::size_t max_total_;
  std::size_t max_per_address_;
  Id next_id_ = 1;
  std::unordered_map<Id, Entry> entries_;
  std::unordered_map<std::string, std::size_t> per_address_;
  std::list<Id> idle_;  // oldest first
};

const char* refusal_name(ConnectionTable::Refusal refusal);

}  // namespace eventsvc::host
