#include "config/host_config.hpp"

#include <gtest/gtest.h>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {
namespace {

HostConfig build(const std::string& yaml) {
  return build_host_config(parse_yaml(yaml, "test.yaml"), {});
}

std::string failure(const std::string& yaml) {
  try {
    build(yaml);
  } catch (const sdk::Error& error) {
    return error.message();
  }
  return "";
}

TEST(HostConfig, EmbeddedDefaultIsValid) {
  const HostConfig config = load_host_config("", {});
  EXPECT_EQ(config.server.listen.to_string(), "127.0.0.1:8443");
  EXPECT_FALSE(config.server.http_listen);
  ASSERT_NE(config.plan("default"), nullptr);
  EXPECT_EQ(config.plan("default")->rate_limit(Operation::analyze), 300);
  EXPECT_FALSE(config.plugins.empty());
  EXPECT_EQ(config.server.tls.certificate, config.data_dir / "tls/server.crt");
}

TEST(HostConfig, OverridesReplaceFileValues) {
  ConfigOverrides overrides;
  overrides.data_dir = "/tmp/somewhere";
  overrides.listen = "127.0.0.1:0";
  const HostConfig config = build_host_config(parse_yaml("data_dir: x\n", "t.yaml"), overrides);
  EXPECT_EQ(config.data_dir, "/tmp/somewhere");
  EXPECT_EQ(config.server.listen.port, 0);
}

TEST(HostConfig, PlansAndPluginInstances) {
  const HostConfig config = build(R"(
plans:
  small:
    requests_per_minute: {search: 5}
    concurrency: 1
    retention_days: 7
plugins:
  apikey:
    library: eventsvc-auth-apikey
    config:
      key_word: acme
  off:
    library: missing-library
    enabled: false
  count:
  limits: {plugin: local, kind: limits}
)");
  const Plan* small = config.plan("small");
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->rate_limit(Operation::search), 5);
  EXPECT_EQ(small->rate_limit(Operation::ingest), 600);
  EXPECT_EQ(small->concurrency, 1);
  EXPECT_EQ(small->retention_ms(), 7LL * 86400000);
  EXPECT_EQ(config.plan("default"), nullptr);
  ASSERT_EQ(config.plugins.size(), 4U);
  EXPECT_EQ(config.plugins[0].config.at("key_word").as_string(), "acme");
  EXPECT_EQ(config.plugins[0].locations.at("key_word").line, 11);
  EXPECT_FALSE(config.plugins[1].enabled);
  // Named, not given by library: the plugin called like the instance, of whichever kind has one.
  EXPECT_EQ(config.plugins[2].instance, "count");
  EXPECT_EQ(config.plugins[2].library, "");
  EXPECT_EQ(config.plugins[2].plugin, "");
  EXPECT_EQ(config.plugins[2].kind, "");
  EXPECT_TRUE(config.plugins[2].enabled);
  EXPECT_EQ(config.plugins[3].plugin, "local");
  EXPECT_EQ(config.plugins[3].kind, "limits");
}

TEST(HostConfig, ErrorsNameFileLineAndKey) {
  EXPECT_EQ(failure("server:\n  threads: many\n"),
            "test.yaml:2 server.threads: must be an integer");
  EXPECT_EQ(failure("server:\n  listen: nowhere\n"),
            "test.yaml:2 server.listen: must be host:port, e.g. 127.0.0.1:8443");
  EXPECT_EQ(
      failure("colour: blue\n").rfind("test.yaml:1 colour: unknown key; allowed keys: server", 0),
      0U);
  EXPECT_EQ(
      failure("plans:\n  p:\n    burst: 3\n").rfind("test.yaml:3 plans.p.burst: unknown key", 0),
      0U);
  EXPECT_EQ(failure("plugins:\n  a:\n    kind: widget\n"),
            "test.yaml:3 plugins.a.kind: must be one of: auth, storage, aggregation, context, "
            "embedder, audit, limits, log");
  EXPECT_EQ(failure("plugins:\n  a:\n    library: x\n    kind: auth\n"),
            "test.yaml:2 plugins.a: give `library`, or `plugin` and `kind`, not both");
  EXPECT_EQ(failure("plugins:\n  a: 3\n"),
            "test.yaml:2 plugins.a: must be a mapping (plugin, kind, library, enabled, config) or "
            "nothing");
  EXPECT_EQ(failure("ingest:\n  max_future_skew: soon\n"),
            "test.yaml:2 ingest.max_future_skew: must be a duration such as 24h or 90m");
  EXPECT_NE(failure("server: [1, 2\n").find("test.yaml:"), std::string::npos);
}

TEST(HostConfig, StreamRetentionIsAtMostThePlansAndTheSweepIsADuration) {
  const HostConfig config = build(
      "plans:\n  p:\n    retention_days: 10\n    retention_streams: {debug: 2, audit: 10}\n"
      "retention:\n  sweep_every: 10m\n");
  const Plan& plan = *config.plan("p");
  EXPECT_EQ(plan.retention_days_of("debug"), 2);
  EXPECT_EQ(plan.retention_days_of("audit"), 10);
  EXPECT_EQ(plan.retention_days_of("other"), 10);
  EXPECT_EQ(config.retention.sweep_every, 600000);
  EXPECT_TRUE(config.retention.remove_expired);
  EXPECT_EQ(build("data_dir: x\n").retention.sweep_every, 3600000);

  EXPECT_EQ(failure("plans:\n  p:\n    retention_days: 10\n    retention_streams: {debug: 11}\n"),
            "test.yaml:4 plans.p.retention_streams.debug: must be a whole number of days from 1 "
            "to the plan's retention_days (10)");
  EXPECT_EQ(failure("plans:\n  p:\n    retention_streams: {debug: soon}\n"),
            "test.yaml:3 plans.p.retention_streams.debug: must be a whole number of days from 1 "
            "to the plan's retention_days (30)");
  EXPECT_EQ(failure("retention:\n  sweep_every: hourly\n"),
            "test.yaml:2 retention.sweep_every: must be a duration such as 1h or 10m");
  EXPECT_EQ(failure("retention:\n  remove_expired: sometimes\n"),
            "test.yaml:2 retention.remove_expired: must be true or false");
}

TEST(HostConfig, ConnectionLimitsAreBoundedAndNamed) {
  const HostConfig defaults = build("");
  EXPECT_EQ(defaults.server.handshake_timeout_s, 5);
  EXPECT_EQ(defaults.server.head_timeout_s, 10);
  EXPECT_EQ(defaults.server.read_timeout_s, 10);
  EXPECT_EQ(defaults.server.max_connections, 10000);
  EXPECT_EQ(defaults.server.max_connections_per_address, 256);
  for (const std::string key : {"handshake_timeout_s", "head_timeout_s", "read_timeout_s",
                                "max_connections", "max_connections_per_address"}) {
    SCOPED_TRACE(key);
    EXPECT_EQ(failure("server:\n  " + key + ": 0\n"),
              "test.yaml:2 server." + key + ": must be at least 1");
    EXPECT_EQ(failure("server:\n  " + key + ": soon\n"),
              "test.yaml:2 server." + key + ": must be an integer");
  }
  EXPECT_EQ(failure("server:\n  head_timeout_s: 301\n"),
            "test.yaml:2 server.head_timeout_s: must be at most 300");
  EXPECT_EQ(failure("server:\n  max_connections: 1000001\n"),
            "test.yaml:2 server.max_connections: must be at most 1000000");
}

TEST(HostConfig, IoThreadsAreOnePerCoreByDefaultAndBounded) {
  EXPECT_EQ(build("").server.io_threads, 0);
  EXPECT_EQ(build("server:\n  io_threads: 3\n").server.io_threads, 3);
  EXPECT_EQ(failure("server:\n  io_threads: -1\n"),
            "test.yaml:2 server.io_threads: must be at least 0");
  EXPECT_EQ(failure("server:\n  io_threads: 257\n"),
            "test.yaml:2 server.io_threads: must be at most 256");
  EXPECT_EQ(failure("server:\n  io_threads: few\n"),
            "test.yaml:2 server.io_threads: must be an integer");
}

TEST(HostConfig, TheAdminListenerIsOnLoopbackByDefaultAndItsKeysAreChecked) {
  const HostConfig defaults = build("");
  ASSERT_TRUE(defaults.admin.listen.has_value());
  EXPECT_EQ(defaults.admin.listen->to_string(), "127.0.0.1:9464");
  EXPECT_EQ(defaults.admin.ready_max_backlog, 10000U);
  EXPECT_FALSE(build("admin:\n  listen: ''\n").admin.listen.has_value());
  EXPECT_EQ(failure("admin:\n  listen: nowhere\n"),
            "test.yaml:2 admin.listen: must be host:port, e.g. 127.0.0.1:8443");
  EXPECT_EQ(failure("admin:\n  ready_max_backlog: 0\n"),
            "test.yaml:2 admin.ready_max_backlog: must be at least 1");
  EXPECT_EQ(failure("admin:\n  ready_max_backlog: lots\n"),
            "test.yaml:2 admin.ready_max_backlog: must be an integer");
  EXPECT_EQ(
      failure("admin:\n  port: 9\n"),
      "test.yaml:2 admin.port: unknown key; allowed keys: listen, ready_max_backlog, token_file");
}

TEST(YamlDocument, TypesPlainScalarsAndKeepsQuotedOnesAsStrings) {
  const auto document = parse_yaml("a: 12\nb: '12'\nc: true\nd: 1.5\ne: ~\nf: hello\n", "t.yaml");
  EXPECT_TRUE(document.root.at("a").is_int64());
  EXPECT_TRUE(document.root.at("b").is_string());
  EXPECT_TRUE(document.root.at("c").is_bool());
  EXPECT_TRUE(document.root.at("d").is_double());
  EXPECT_TRUE(document.root.at("e").is_null());
  EXPECT_EQ(document.root.at("f").as_string(), "hello");
  EXPECT_EQ(document.locations.at("f").line, 6);
}

TEST(YamlDocument, NumbersAreYamlCoreSchemaNumbers) {
  const auto document = parse_yaml(
      "a: +7\nb: -12\nc: 1.\nd: -.5e3\ne: 2E+2\nf: .\ng: 1e\nh: 1.2.3\ni: +\nj: 12ab\nk: e5\n",
      "t.yaml");
  EXPECT_EQ(document.root.at("a"), 7);
  EXPECT_EQ(document.root.at("b"), -12);
  EXPECT_EQ(document.root.at("c"), 1.0);
  EXPECT_EQ(document.root.at("d"), -500.0);
  EXPECT_EQ(document.root.at("e"), 200.0);
  for (const char* text : {"f", "g", "h", "i", "j", "k"})
    EXPECT_TRUE(document.root.at(text).is_string()) << text;
}

}  // namespace
}  // namespace eventsvc::host
