#include "local_limits.hpp"

namespace eventsvc::plugins::limits {

LocalLimits::LocalLimits(const sdk::PluginContext& context) {
  (void)context;
}

sdk::RateDecision LocalLimits::charge(std::string_view key, int limit_per_minute) {
  return buckets_.charge(key, limit_per_minute);
}

std::optional<sdk::Lease> LocalLimits::acquire(std::string_view key, int limit) {
  const auto active = leases_.acquire(key, limit);
  if (!active) return std::nullopt;
  return sdk::Lease{std::string(key), {}, *active};
}

void LocalLimits::release(const sdk::Lease& lease) noexcept {
  leases_.release(lease.key);
}

void LocalLimits::report_metrics(sdk::MetricsSink& sink) {
  sink.gauge("limits_buckets", "Rate-limit buckets kept in memory (idle full ones are dropped)",
             static_cast<double>(buckets_.bucket_count()));
}

}  // namespace eventsvc::plugins::limits
