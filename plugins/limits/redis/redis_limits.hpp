// Rate limits and concurrency leases kept in Redis, shared by every eventsvc server that points at
// the same Redis: N servers behind one address admit no more than a plan allows in total. Buckets
// and leases are updated by Lua scripts, atomically, on Redis's clock. A lease lives `lease_ttl_s`
// unless its server renews it (every third of that while the request runs), so the leases of a
// server that died are free again within that time.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "eventsvc/sdk/limits.hpp"
#include "redis_link.hpp"

namespace eventsvc::plugins::limits {

class RedisLimits final : public sdk::Limits {
 public:
  static constexpr std::string_view kName = "redis";
  static const sdk::PluginInfo kInfo;  // with its config table, in redis_limits.cpp
  explicit RedisLimits(const sdk::PluginContext& context);
  ~RedisLimits() override;

  void start() override;
  void stop() override;

  sdk::RateDecision charge(std::string_view key, int limit_per_minute) override;
  std::optional<sdk::Lease> acquire(std::string_view key, int limit) override;
  void release(const sdk::Lease& lease) noexcept override;
  void report_metrics(sdk::MetricsSink& sink) override;

 private:
  // Redis cannot answer: throws 503 when refusing; else counts a request admitted without a limit.
  // `limits`: "rate" or "concurrency", for the message.
  void without_redis(std::string_view limits);
  void take_back(const std::string& key, const std::string& token);  // ZREM of a lease
  void renew_leases();

  std::string prefix_;
  bool admit_when_unreachable_ = true;
  std::chrono::milliseconds lease_ttl_;
  std::unique_ptr<RedisLink> link_;
  const LuaScript charge_script_;
  const LuaScript acquire_script_;
  const LuaScript renew_script_;
  std::string server_id_;  // makes lease tokens unique among servers
  std::atomic<std::uint64_t> next_lease_{0};
  std::atomic<std::uint64_t> unlimited_decisions_{0};

  std::mutex held_mutex_;
  std::map<std::string, std::string> held_;  // token -> its key in Redis, while held
  // Leases whose grant may have happened though its answer was lost: taken back when Redis
  // answers again, instead of counting against the plan until they expire.
  std::map<std::string, std::string> orphans_;
  std::condition_variable stop_renewing_;
  bool stopping_ = false;
  std::thread renewer_;
};

}  // namespace eventsvc::plugins::limits
