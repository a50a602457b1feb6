// The redis limits plugin against a real Redis: two plugin objects stand for two servers.
#include "redis_limits.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/time.hpp"
#include "eventsvc/toolkit/time.hpp"
#include "support/plugin_context.hpp"
#include "support/redis_process.hpp"
#include "support/temp_dir.hpp"

namespace eventsvc::plugins::limits {
namespace {

using namespace std::chrono_literals;
namespace json = sdk::json;

class RedisLimitsTest : public ::testing::Test {
 protected:
  std::unique_ptr<RedisLimits> server(json::object config = {}) {
    if (!config.contains("address")) config["address"] = redis_.address();
    auto context = testing::plugin_context(sdk::manifest_of<RedisLimits>(), config, dir_.path());
    logger_ = std::dynamic_pointer_cast<testing::RecordingLogger>(context.logger);
    auto limits = std::make_unique<RedisLimits>(context);
    limits->start();
    return limits;
  }

  testing::RedisProcess redis_;
  testing::TempDir dir_;
  std::shared_ptr<testing::RecordingLogger> logger_;  // of the last server()
};

TEST_F(RedisLimitsTest, BucketBurstsToItsLimitThenRefusesWithRetryAfter) {
  auto limits = server();
  for (int i = 0; i < 3; ++i) {
    const auto decision = limits->charge("acme\x1fsearch", 3);
    EXPECT_TRUE(decision.allowed);
    EXPECT_EQ(decision.limit, 3);
    EXPECT_EQ(decision.remaining, 2 - i);
  }
  const auto refused = limits->charge("acme\x1fsearch", 3);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.remaining, 0);
  EXPECT_EQ(refused.retry_after, 20);  // one token per 20 s at 3 a minute
  const auto now_s = toolkit::now_millis() / 1000;
  EXPECT_GE(refused.reset, now_s + 59);
  EXPECT_LE(refused.reset, now_s + 61);
  EXPECT_TRUE(limits->charge("other", 3).allowed);  // buckets are per key
}

TEST_F(RedisLimitsTest, ServersShareOneBucket) {
  auto first = server();
  auto second = server();
  EXPECT_TRUE(first->charge("k", 4).allowed);
  EXPECT_TRUE(second->charge("k", 4).allowed);
  EXPECT_TRUE(first->charge("k", 4).allowed);
  const auto last = second->charge("k", 4);
  EXPECT_TRUE(last.allowed);
  EXPECT_EQ(last.remaining, 0);
  EXPECT_FALSE(first->charge("k", 4).allowed);
  EXPECT_FALSE(second->charge("k", 4).allowed);
}

// 3 a minute: one token back every 20 s, which no run of this test waits for. Time is moved on
// in Redis instead: the bucket's last charge is set back, as if that long had passed.
TEST_F(RedisLimitsTest, BucketRefillsAtTheSteadyRate) {
  auto limits = server();
  const auto admitted = [&] { return limits->charge("slow", 3).allowed; };
  const auto pass = [&](int ms) {
    ASSERT_EQ(redis_.command("HINCRBY eventsvc:rate:slow at -" + std::to_string(ms)).front(), ':');
  };
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(admitted());
  EXPECT_FALSE(admitted());
  pass(20000);  // one token
  EXPECT_TRUE(admitted());
  EXPECT_FALSE(admitted());
  pass(10000);  // half of one: refused, and the half is kept
  EXPECT_FALSE(admitted());
  pass(10000);
  EXPECT_TRUE(admitted());
  EXPECT_FALSE(admitted());
  pass(3600000);  // an hour refills the bucket, and no more than the bucket
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(admitted());
  EXPECT_FALSE(admitted());
}

TEST_F(RedisLimitsTest, LeasesAreCountedAcrossServersAndReleased) {
  auto first = server();
  auto second = server();
  auto a = first->acquire("acme", 2);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->active, 1);
  auto b = second->acquire("acme", 2);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->active, 2);
  EXPECT_NE(a->token, b->token);
  EXPECT_FALSE(first->acquire("acme", 2));
  EXPECT_FALSE(second->acquire("acme", 2));
  EXPECT_TRUE(first->acquire("other", 2));
  first->release(*a);
  auto c = second->acquire("acme", 2);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->active, 2);
}

TEST_F(RedisLimitsTest, LeasesOfAServerThatDiedExpireAndLiveOnesAreRenewed) {
  auto survivor = server({{"lease_ttl_s", 3}});
  auto held = survivor->acquire("acme", 2);
  ASSERT_TRUE(held);
  {
    auto dead = server({{"lease_ttl_s", 3}});
    ASSERT_TRUE(dead->acquire("acme", 2));
    dead->stop();  // stops renewing, like a server that was killed: nothing is released
  }
  EXPECT_FALSE(survivor->acquire("acme", 2));
  // The dead server's lease expires after its lifetime; the survivor's, renewed every second,
  // does not.
  std::optional<sdk::Lease> again;
  for (int poll = 0; poll < 300 && !again; ++poll) {
    std::this_thread::sleep_for(100ms);
    again = survivor->acquire("acme", 2);
  }
  ASSERT_TRUE(again);
  EXPECT_EQ(again->active, 2);  // the survivor's first lease and this one
  EXPECT_FALSE(survivor->acquire("acme", 2));
}

TEST_F(RedisLimitsTest, UnreachableRedisAdmitsByDefaultAndSaysSo) {
  auto limits = server();
  ASSERT_TRUE(limits->charge("k", 1).allowed);
  redis_.kill();
  const auto decision = limits->charge("k", 1);  // would be refused by a reachable Redis
  EXPECT_TRUE(decision.allowed);
  EXPECT_EQ(decision.remaining, 1);
  const auto lease = limits->acquire("acme", 1);
  ASSERT_TRUE(lease);
  limits->release(*lease);  // nothing to hand back; must not throw
  const auto lines = logger_->lines();
  ASSERT_EQ(lines.size(), 1U);  // said once, not once a request
  EXPECT_EQ(lines[0].rfind("Redis at " + redis_.address() + " is unreachable: ", 0), 0U)
      << lines[0];
}

TEST_F(RedisLimitsTest, UnreachableRedisRefusesWith503WhenConfigured) {
  auto limits = server({{"when_unreachable", "refuse"}, {"retry_interval_ms", 50}});
  redis_.kill();
  try {
    limits->charge("k", 10);
    FAIL() << "no error";
  } catch (const sdk::Error& error) {
    EXPECT_EQ(error.status(), 503);
    EXPECT_EQ(error.retry_after(), 1);
    EXPECT_EQ(error.message(), "rate limits cannot be checked: their store is unreachable");
  }
  EXPECT_THROW(limits->acquire("acme", 1), sdk::Error);
  // Back after the retry interval, with a fresh (empty) Redis.
  redis_.start();
  std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(limits->charge("k", 10).allowed);
  EXPECT_TRUE(limits->acquire("acme", 1));
}

TEST_F(RedisLimitsTest, KeysCarryThePrefixAndExpireWhenIdle) {
  auto limits = server({{"key_prefix", "t1:"}});
  EXPECT_TRUE(limits->charge("k", 60000).allowed);
  EXPECT_EQ(redis_.command("EXISTS t1:rate:k"), ":1");
  // A bucket one token short of full refills in 1 ms: it is kept only about a second more.
  const std::string ttl = redis_.command("PTTL t1:rate:k");
  ASSERT_EQ(ttl.front(), ':');
  EXPECT_LE(std::stoi(ttl.substr(1)), 1002);
}

TEST_F(RedisLimitsTest, ARefusedPasswordIsAnOutageNotADefect) {
  auto limits = server({{"when_unreachable", "refuse"}, {"retry_interval_ms", 50}});
  EXPECT_EQ(redis_.command("CONFIG SET requirepass secret"), "+OK");
  try {
    limits->charge("k", 10);  // a new connection: NOAUTH
    FAIL() << "no error";
  } catch (const sdk::Error& error) {
    EXPECT_EQ(error.status(), 503);
  }
  auto with_password = server({{"password", "secret"}});
  EXPECT_TRUE(with_password->charge("k", 10).allowed);
}

TEST_F(RedisLimitsTest, ScriptsAreLoadedAgainWhenRedisForgotThem) {
  auto limits = server();
  EXPECT_TRUE(limits->charge("k", 5).allowed);
  EXPECT_EQ(redis_.command("SCRIPT FLUSH"), "+OK");
  EXPECT_EQ(limits->charge("k", 5).remaining, 3);
}

TEST_F(RedisLimitsTest, AKeyOfAnotherTypeIsADefectNotAnOutage) {
  auto limits = server();
  EXPECT_EQ(redis_.command("SET eventsvc:rate:k text"), "+OK");
  try {
    limits->charge("k", 5);
    FAIL() << "no error";
  } catch (const RedisErrorReply& error) {
    EXPECT_NE(std::string(error.what()).find("WRONGTYPE"), std::string::npos) << error.what();
  }
  EXPECT_TRUE(limits->charge("other", 5).allowed);  // the connection is still good
}

TEST(RedisLimitsConfig, BadValuesNameTheirKey) {
  testing::TempDir dir;
  const auto refused = [&](const json::object& config) {
    try {
      RedisLimits limits(
          testing::plugin_context(sdk::manifest_of<RedisLimits>(), config, dir.path()));
      return std::string();
    } catch (const sdk::Error& error) {
      return error.message();
    }
  };
  EXPECT_NE(refused({{"address", "localhost"}}).find("address"), std::string::npos);
  EXPECT_NE(refused({{"address", "localhost"}}).find("'localhost' is not host:port"),
            std::string::npos);
  EXPECT_NE(refused({{"address", "localhost:99999"}}).find("no port between 1 and 65535"),
            std::string::npos);
  EXPECT_NE(refused({{"sentinels", json::array{"s1:26379", "s2"}}}).find("sentinels"),
            std::string::npos);
  EXPECT_NE(
      refused({{"sentinels", json::array{"s1:26379"}}, {"master_name", ""}}).find("master_name"),
      std::string::npos);
  EXPECT_NE(refused({{"when_unreachable", "maybe"}}).find("when_unreachable"), std::string::npos);
  EXPECT_NE(refused({{"lease_ttl_s", 0}}).find("lease_ttl_s"), std::string::npos);
  EXPECT_EQ(refused({{"address", "127.0.0.1:6379"}}), "");  // connects on first use only
}

}  // namespace
}  // namespace eventsvc::plugins::limits
