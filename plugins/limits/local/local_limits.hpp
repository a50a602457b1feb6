// Rate limits and concurrency leases kept in this process: the limits of one server. Nothing is
// shared with other servers and nothing survives a restart (buckets start full again).
#pragma once

#include "concurrency_limiter.hpp"
#include "eventsvc/sdk/limits.hpp"
#include "rate_limiter.hpp"

namespace eventsvc::plugins::limits {

class LocalLimits final : public sdk::Limits {
 public:
  static constexpr std::string_view kName = "local";
  static constexpr sdk::PluginInfo kInfo{
      "1.0.0", "Rate limits and concurrency leases in the server's memory: one server's limits"};
  explicit LocalLimits(const sdk::PluginContext& context);

  sdk::RateDecision charge(std::string_view key, int limit_per_minute) override;
  std::optional<sdk::Lease> acquire(std::string_view key, int limit) override;
  void release(const sdk::Lease& lease) noexcept override;
  void report_metrics(sdk::MetricsSink& sink) override;

 private:
  RateLimiter buckets_;
  ConcurrencyLimiter leases_;
};

}  // namespace eventsvc::plugins::limits
