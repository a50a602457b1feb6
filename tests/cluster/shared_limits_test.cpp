// Three eventsvc servers that keep their limits in one Redis, as three hosts behind one address
// would: a plan's rate limit holds in total, not per server. The same servers with `local` limits
// admit three times as much, which is what the shared ones are for.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "support/api_client.hpp"
#include "support/redis_process.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

constexpr int kServers = 3;
constexpr int kClients = 32;
constexpr int kSearchesPerMinute = 60;

const json::object kSearch{{"query", "anything"}};

struct Tally {
  int admitted = 0;
  int limited = 0;
  int other = 0;
  double seconds = 0;
};

class SharedLimitsTest : public ::testing::Test {
 protected:
  void start_servers(const std::string& limits_plugin) {
    for (int i = 0; i < kServers; ++i) {
      TestConfig config;
      config.plans += "  shared:\n    requests_per_minute: {ingest: 600, receipts: 600, search: " +
                      std::to_string(kSearchesPerMinute) +
                      ", query: 600, analyze: 600}\n    concurrency: 64\n    retention_days: 30\n";
      config.plugins = default_plugins() + limits_plugin;
      servers_.push_back(std::make_unique<ServerProcess>(config.yaml()));
      servers_.back()->start();
      // One workspace: each server has its own key store, so a key each.
      keys_.push_back(servers_.back()->create_key("shared", "live", "events:read", "shared"));
    }
  }

  std::string redis_limits(const std::string& extra = "") const {
    return "  limits:\n    library: eventsvc-limits-redis\n    config:\n      address: " +
           redis_.address() + "\n" + extra;
  }

  // kClients clients, spread over the servers, each searching `each` times as fast as it can.
  Tally hammer(int each) {
    std::atomic<int> admitted{0};
    std::atomic<int> limited{0};
    std::atomic<int> other{0};
    const auto started = std::chrono::steady_clock::now();
    std::vector<std::thread> clients;
    clients.reserve(kClients);
    for (int c = 0; c < kClients; ++c) {
      clients.emplace_back([&, c] {
        const auto server = static_cast<std::size_t>(c % kServers);
        ApiClient client(servers_[server]->port(), keys_[server]);
        for (int i = 0; i < each; ++i) {
          const auto answer = client.search(kSearch);
          if (answer.status == 200) {
            ++admitted;
          } else if (answer.status == 429 && answer.has_header("Retry-After")) {
            ++limited;
          } else {
            ++other;
          }
        }
      });
    }
    for (auto& client : clients)
      client.join();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::printf("%d clients on %d servers: %d of %d searches admitted, %d limited, in %.2f s\n",
                kClients, kServers, admitted.load(), kClients * each, limited.load(), seconds);
    return {admitted.load(), limited.load(), other.load(), seconds};
  }

  RedisProcess redis_;
  std::vector<std::unique_ptr<ServerProcess>> servers_;
  std::vector<std::string> keys_;
};

TEST_F(SharedLimitsTest, ThreeServersAdmitNoMoreThanThePlanInTotal) {
  start_servers(redis_limits());
  const Tally tally = hammer(5);  // 160 searches against a limit of 60 a minute
  EXPECT_EQ(tally.other, 0);
  EXPECT_EQ(tally.admitted + tally.limited, kClients * 5);
  // The full bucket, plus what refilled (one a second) while the clients ran: less than a second
  // bucket unless 160 searches took a minute, where three buckets would have admitted 160.
  EXPECT_GE(tally.admitted, kSearchesPerMinute);
  EXPECT_LT(tally.admitted, 2 * kSearchesPerMinute) << "in " << tally.seconds << " s";
}

TEST_F(SharedLimitsTest, LocalLimitsAdmitThePlanOnEachServer) {
  start_servers("  limits:\n    library: eventsvc-limits-local\n");
  const Tally tally = hammer(5);
  EXPECT_EQ(tally.other, 0);
  // 160 searches, up to 60 on each of three servers (53 or 54 reach each): nearly all admitted.
  EXPECT_GT(tally.admitted, kSearchesPerMinute * 2) << "in " << tally.seconds << " s";
}

TEST_F(SharedLimitsTest, UnreachableRedisAdmitsOrRefusesAsConfigured) {
  start_servers(redis_limits());
  TestConfig config;
  config.plugins = default_plugins() +
                   redis_limits("      when_unreachable: refuse\n      retry_interval_ms: 100\n");
  ServerProcess strict(config.yaml());
  strict.start();
  ApiClient lenient_client(servers_[0]->port(), keys_[0]);
  ApiClient strict_client(strict.port(), strict.create_key("strict", "live", "events:read"));
  ASSERT_EQ(lenient_client.search(kSearch).status, 200);
  ASSERT_EQ(strict_client.search(kSearch).status, 200);

  redis_.kill();
  EXPECT_EQ(lenient_client.search(kSearch).status, 200);
  const auto refused = strict_client.search(kSearch);
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_EQ(refused.header("Retry-After"), "1");
  const auto body = refused.json().as_object();
  EXPECT_EQ(body.at("statusCode").as_int64(), 503);
  EXPECT_EQ(body.at("message").as_string(),
            "rate limits cannot be checked: their store is unreachable");
  // The operator is told where and why.
  EXPECT_NE(strict.log().find("Redis at " + redis_.address() + " is unreachable: "),
            std::string::npos);

  redis_.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  EXPECT_EQ(strict_client.search(kSearch).status, 200);
}

}  // namespace
}  // namespace eventsvc::testing
