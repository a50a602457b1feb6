#include "redis_limits.hpp"

#include <charconv>
#include <cstring>
#include <random>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/time.hpp"
#include "eventsvc/toolkit/hex.hpp"
#include "eventsvc/toolkit/time.hpp"
#include "limit_scripts.hpp"

namespace eventsvc::plugins::limits {

namespace {

using Poco::Redis::Array;
using Poco::Redis::BulkString;

constexpr std::string_view kWhenUnreachable[] = {"admit", "refuse"};

constexpr sdk::ConfigKey kConfig[] = {
    sdk::ConfigKey::string("address", "host:port of the Redis primary (without sentinels)")
        .defaults_to(R"("127.0.0.1:6379")"),
    sdk::ConfigKey::string_list("sentinels",
                                "host:port of Redis Sentinels that name the primary; "
                                "when set, `address` is not used")
        .defaults_to("[]"),
    sdk::ConfigKey::string("master_name", "The primary's name at the sentinels")
        .defaults_to(R"("eventsvc")"),
    sdk::ConfigKey::string("password", "Sent with AUTH when not empty").defaults_to(R"("")"),
    sdk::ConfigKey::integer("database", "Redis database number").defaults_to("0").at_least(0),
    sdk::ConfigKey::string("key_prefix", "Prefix of every key eventsvc writes")
        .defaults_to(R"("eventsvc:")"),
    sdk::ConfigKey::integer("timeout_ms", "Connect and reply timeout")
        .defaults_to("200")
        .at_least(1)
        .at_most(60000),
    sdk::ConfigKey::integer("retry_interval_ms",
                            "After a failure, how long Redis is not asked before trying again")
        .defaults_to("1000")
        .at_least(10)
        .at_most(600000),
    sdk::ConfigKey::integer("lease_ttl_s",
                            "How long a concurrency lease outlives a server that stopped renewing "
                            "it (a server that died)")
        .defaults_to("30")
        .at_least(1)
        .at_most(3600),
    sdk::ConfigKey::string("when_unreachable",
                           "admit: requests go on without limits while Redis cannot answer; "
                           "refuse: they are answered 503")
        .defaults_to(R"("admit")")
        .allowed(kWhenUnreachable),
};

// "host:port" with a port in 1..65535, or an empty string; else why not.
std::string address_problem(const std::string& address) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0) return "'" + address + "' is not host:port";
  int port = 0;
  const char* begin = address.data() + colon + 1;
  const char* end = address.data() + address.size();
  const auto [at, ec] = std::from_chars(begin, end, port);
  if (ec != std::errc() || at != end || port < 1 || port > 65535) {
    return "'" + address + "' has no port between 1 and 65535";
  }
  return {};
}

std::string random_id() {
  std::random_device device;
  std::mt19937_64 bits((static_cast<std::uint64_t>(device()) << 32U) ^ device());
  const std::uint64_t value = bits();
  std::string bytes(sizeof value, '\0');
  std::memcpy(bytes.data(), &value, sizeof value);
  return toolkit::hex_of(bytes);
}

double number_of(const Array& reply, std::size_t index) {
  return std::stod(reply.get<BulkString>(index).value());
}

}  // namespace

const sdk::PluginInfo RedisLimits::kInfo{
    "1.0.0", "Rate limits and concurrency leases in Redis, shared by every server using it",
    kConfig};

RedisLimits::RedisLimits(const sdk::PluginContext& context)
    : prefix_(context.config.get_string("key_prefix")),
      admit_when_unreachable_(context.config.get_string("when_unreachable") == "admit"),
      lease_ttl_(std::chrono::seconds(context.config.get_int("lease_ttl_s"))),
      charge_script_(kChargeScript),
      acquire_script_(kAcquireScript),
      renew_script_(kRenewScript),
      server_id_(random_id()) {
  RedisLinkOptions options;
  options.address = context.config.get_string("address");
  options.sentinels = context.config.get_strings("sentinels");
  options.master_name = context.config.get_string("master_name");
  options.password = context.config.get_string("password");
  options.database = static_cast<int>(context.config.get_int("database"));
  options.timeout = std::chrono::milliseconds(context.config.get_int("timeout_ms"));
  options.retry_interval = std::chrono::milliseconds(context.config.get_int("retry_interval_ms"));
  if (options.sentinels.empty()) {
    if (const auto problem = address_problem(options.address); !problem.empty()) {
      context.config.fail("address", problem);
    }
  }
  for (const auto& sentinel : options.sentinels) {
    if (const auto problem = address_problem(sentinel); !problem.empty()) {
      context.config.fail("sentinels", problem);
    }
  }
  if (!options.sentinels.empty() && options.master_name.empty()) {
    context.config.fail("master_name", "name the primary the sentinels watch");
  }
  link_ = std::make_unique<RedisLink>(std::move(options), context.logger);
}

RedisLimits::~RedisLimits() {
  stop();
}

void RedisLimits::start() {
  renewer_ = std::thread([this] { renew_leases(); });
}

void RedisLimits::stop() {
  {
    const std::lock_guard lock(held_mutex_);
    stopping_ = true;
  }
  stop_renewing_.notify_all();
  if (renewer_.joinable()) renewer_.join();
}

sdk::RateDecision RedisLimits::charge(std::string_view key, int limit_per_minute) {
  try {
    const Array reply = link_->eval(charge_script_, {prefix_ + "rate:" + std::string(key)},
                                    {std::to_string(limit_per_minute)});
    const bool allowed = reply.get<Poco::Int64>(0) == 1;
    const auto now_ms = static_cast<std::int64_t>(number_of(reply, 2));
    return sdk::bucket_decision(allowed, number_of(reply, 1), limit_per_minute, now_ms);
  } catch (const RedisUnavailable&) {
    without_redis("rate");
    return sdk::bucket_decision(true, limit_per_minute, limit_per_minute, toolkit::now_millis());
  }
}

void RedisLimits::without_redis(std::string_view limits) {
  // The client is told no more than that: where Redis is and why it failed is the operator's
  // business, logged once by the link.
  if (!admit_when_unreachable_) {
    throw sdk::Error::unavailable(
        std::string(limits) + " limits cannot be checked: their store is unreachable", 1);
  }
  unlimited_decisions_.fetch_add(1);
}

std::optional<sdk::Lease> RedisLimits::acquire(std::string_view key, int limit) {
  sdk::Lease lease;
  lease.key = prefix_ + "lease:" + std::string(key);
  lease.token = server_id_ + "-" + std::to_string(next_lease_.fetch_add(1));
  try {
    const Array reply =
        link_->eval(acquire_script_, {lease.key},
                    {std::to_string(limit), lease.token, std::to_string(lease_ttl_.count())});
    lease.active = static_cast<int>(reply.get<Poco::Int64>(1));
    if (reply.get<Poco::Int64>(0) != 1) return std::nullopt;
  } catch (const RedisUnavailable&) {
    {
      const std::lock_guard lock(held_mutex_);
      orphans_.emplace(lease.token, lease.key);
    }
    without_redis("concurrency");
    return sdk::Lease{lease.key, {}, 1};  // nothing in Redis to release
  }
  const std::lock_guard lock(held_mutex_);
  held_.emplace(lease.token, lease.key);
  return lease;
}

void RedisLimits::release(const sdk::Lease& lease) noexcept {
  if (lease.token.empty()) return;
  try {
    {
      const std::lock_guard lock(held_mutex_);
      held_.erase(lease.token);
    }
    take_back(lease.key, lease.token);
  } catch (...) {
    // Redis cannot take it back now: the lease expires within lease_ttl_s on its own.
  }
}

void RedisLimits::take_back(const std::string& key, const std::string& token) {
  Array command;
  command << "ZREM" << key << token;
  link_->run(command);
}

void RedisLimits::renew_leases() {
  std::unique_lock lock(held_mutex_);
  while (!stopping_) {
    stop_renewing_.wait_for(lock, lease_ttl_ / 3, [&] { return stopping_; });
    if (stopping_) break;
    const auto orphans = orphans_;
    std::vector<std::string> keys;
    std::vector<std::string> args{std::to_string(lease_ttl_.count())};
    for (const auto& [token, key] : held_) {
      keys.push_back(key);
      args.push_back(token);
    }
    lock.unlock();
    try {
      for (const auto& [token, key] : orphans) {
        take_back(key, token);
        const std::lock_guard taken(held_mutex_);
        orphans_.erase(token);
      }
      if (!keys.empty()) link_->eval(renew_script_, keys, args);
    } catch (const std::exception&) {
      // Said by the link when Redis is down; a lease that expires meanwhile is no longer counted.
    }
    lock.lock();
  }
}

void RedisLimits::report_metrics(sdk::MetricsSink& sink) {
  sink.gauge("limits_redis_up", "1 while Redis answers, 0 after a failure until it answers again",
             link_->up() ? 1 : 0);
  sink.counter("limits_redis_failures_total",
               "Calls to Redis that failed (refused, timed out, a replica's answer)",
               static_cast<double>(link_->failures()));
  sink.counter("limits_unlimited_decisions_total",
               "Requests admitted without a limit because Redis could not answer",
               static_cast<double>(unlimited_decisions_.load()));
  std::size_t held = 0;
  {
    const std::lock_guard lock(held_mutex_);
    held = held_.size();
  }
  sink.gauge("limits_leases_held", "Concurrency leases this server holds in Redis",
             static_cast<double>(held));
}

}  // namespace eventsvc::plugins::limits
