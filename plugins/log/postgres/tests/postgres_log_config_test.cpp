// The shared log's config is checked, naming the key, before anything connects. (The log itself
// runs against a real PostgreSQL in the cluster tests, tests/cluster.)
#include <gtest/gtest.h>

#include "eventsvc/sdk/error.hpp"
#include "postgres_log.hpp"
#include "support/plugin_context.hpp"
#include "support/temp_dir.hpp"

namespace eventsvc::plugins::log {
namespace {

namespace json = sdk::json;

TEST(PostgresLogConfig, NeedsItsDatabaseAndAHostIdAndNamesTheKey) {
  const std::pair<json::object, std::string> cases[] = {
      {{{"host_id", "h1"}}, "plugins.test.config.conninfo: is required"},
      {{{"conninfo", "host=127.0.0.1"}}, "plugins.test.config.host_id: is required"},
      {{{"conninfo", ""}, {"host_id", "h1"}},
       "plugins.test.config.conninfo: name the PostgreSQL database of the shared log"},
      {{{"conninfo", "host=127.0.0.1"}, {"host_id", ""}},
       "plugins.test.config.host_id: name this server among the servers of the shared log"},
      {{{"conninfo", "host=127.0.0.1"}, {"host_id", "h1"}, {"host_timeout_s", 0}},
       "plugins.test.config.host_timeout_s"},
      {{{"conninfo", "host=127.0.0.1"}, {"host_id", "h1"}, {"keep_entries_s", 0}},
       "plugins.test.config.keep_entries_s"},
      {{{"conninfo", "host=127.0.0.1"}, {"host_id", "h1"}, {"keep_entries_s", 315360001}},
       "plugins.test.config.keep_entries_s"},
  };
  for (const auto& [config, expected] : cases) {
    testing::TempDir dir;
    try {
      PostgresLog log(testing::plugin_context(sdk::manifest_of<PostgresLog>(), config, dir.path()));
      ADD_FAILURE() << "accepted " << sdk::to_json(config);
    } catch (const sdk::Error& error) {
      EXPECT_EQ(error.status(), 500);
      EXPECT_NE(error.message().find(expected), std::string::npos) << error.message();
    }
  }
}

TEST(PostgresLogUnreachable, AnswersEveryCallWithA503AndAcknowledgesNothing) {
  testing::TempDir dir;
  PostgresLog log(testing::plugin_context(
      sdk::manifest_of<PostgresLog>(),
      {{"conninfo", "host=127.0.0.1 port=1 connect_timeout=1"}, {"host_id", "h1"}}, dir.path()));
  bool recorded = false;
  sdk::LogAppend append;
  append.tenant = "t";
  append.idempotency_key = "k";
  append.receipt_id = "req_1";
  append.record = [&](const std::vector<bool>&) {
    recorded = true;
    return sdk::LogRecord{};
  };
  try {
    log.append(append);
    ADD_FAILURE() << "an unreachable log took a write";
  } catch (const sdk::Error& error) {
    EXPECT_EQ(error.status(), 503);
    EXPECT_EQ(error.message(),
              "the durable log cannot be reached; retry with the same Idempotency-Key");
  }
  EXPECT_FALSE(recorded);
  try {
    log.read_after({}, 10);
    ADD_FAILURE() << "an unreachable log was read";
  } catch (const sdk::Error& error) {
    EXPECT_EQ(error.status(), 503);
    EXPECT_EQ(error.message().rfind("the durable log cannot be reached: ", 0), 0U)
        << error.message();
  }
}

}  // namespace
}  // namespace eventsvc::plugins::log
