// Concurrency leases per (workspace, environment): search, query, analyze and receipt lookups hold
// one while they run. A lease is released when its holder goes out of scope.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace eventsvc::host {

class ConcurrencyLimiter {
 public:
  class Lease {
   public:
    Lease() = default;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&& other) noexcept;
    ~Lease();

    int active() const {
      return active_;
    }  // leases held when this one was acquired, itself included

   private:
    friend class ConcurrencyLimiter;
    Lease(ConcurrencyLimiter* owner, std::string key, int active)
        : owner_(owner), key_(std::move(key)), active_(active) {}
    void release();

    ConcurrencyLimiter* owner_ = nullptr;
    std::string key_;
    int active_ = 0;
  };

  // nullopt when `limit` leases are already held for `key`.
  std::optional<Lease> acquire(std::string_view key, int limit);
  int active(std::string_view key) const;

 private:
  void release(const std::string& key);

  mutable std::mutex mutex_;
  std::unordered_map<std::string, int> active_;
};

}  // namespace eventsvc::host
