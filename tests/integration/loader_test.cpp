// The plugin loader and the CLI, driven through the real binary: ABI checks, config validation
// against a plugin's schema, disabled plugins, one-line start failures.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <filesystem>
#include <fstream>

#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

// Runs `eventsvc <args> --config <yaml written to a file>`.
CommandResult with_config(const std::string& yaml, std::vector<std::string> args,
                          const TempDir& dir) {
  const auto path = dir.path() / "eventsvc.yaml";
  std::ofstream(path) << yaml;
  args.insert(args.end(),
              {"--config", path.string(), "--data-dir", (dir.path() / "data").string()});
  return run_eventsvc(args);
}

std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(Loader, EmbeddedDefaultConfigChecksOut) {
  TempDir dir;
  const auto result = run_eventsvc({"check-config", "--data-dir", dir.path().string()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("<embedded eventsvc.yaml>: OK"), std::string::npos) << result.out;
}

TEST(Loader, WrongAbiVersionIsRefusedNamingBothVersions) {
  TempDir dir;
  TestConfig config;
  config.plugins = default_plugins() + "  future:\n    library: " EVENTSVC_TEST_PLUGIN_DIR
                                       "/libeventsvc-test-wrong-abi.so\n";
  for (const char* command : {"check-config", "serve"}) {
    const auto result = with_config(config.yaml(), {command}, dir);
    EXPECT_EQ(result.exit_code, 1) << command;
    EXPECT_NE(result.err.find("plugins.future: "), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("ABI version mismatch: got 5.0 ("), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("/sdk-0000000000000000), but expected 5.0 ("), std::string::npos)
        << result.err;
    EXPECT_EQ(line_count(result.err), 1U) << result.err;
  }
}

TEST(Loader, UnknownPluginConfigKeyIsRefusedNamingTheKeyAndTheAllowedOnes) {
  TempDir dir;
  TestConfig config;
  config.plugins = "  apikey:\n    library: eventsvc-auth-apikey\n    config:\n      key_wrd: x\n";
  const auto result = with_config(config.yaml(), {"check-config"}, dir);
  EXPECT_EQ(result.exit_code, 1);
  const std::string expected = "eventsvc.yaml:" + std::to_string(line_count(config.yaml())) +
                               " plugins.apikey.config.key_wrd: unknown key; allowed keys: "
                               "key_word, keys_file";
  EXPECT_NE(result.err.find(expected), std::string::npos) << result.err;
  EXPECT_EQ(line_count(result.err), 1U) << result.err;
}

TEST(Loader, WrongPluginConfigTypeNamesFileLineAndKey) {
  TempDir dir;
  TestConfig config;
  config.plugins = "  apikey:\n    library: eventsvc-auth-apikey\n    config:\n      key_word: 7\n";
  const auto result = with_config(config.yaml(), {"serve"}, dir);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("plugins.apikey.config.key_word: must be a string"), std::string::npos)
      << result.err;
}

TEST(Loader, DisabledPluginIsNotLoaded) {
  TempDir dir;
  TestConfig config;
  config.plugins =
      default_plugins() + "  ghost:\n    library: no-such-library\n    enabled: false\n";
  const auto check = with_config(config.yaml(), {"check-config"}, dir);
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("plugins enabled: apikey, rocksdb"), std::string::npos) << check.out;
  EXPECT_EQ(check.out.find("ghost"), std::string::npos) << check.out;

  // The same instance enabled fails: the library does not exist.
  config.plugins = default_plugins() + "  ghost:\n    library: no-such-library\n";
  const auto enabled = with_config(config.yaml(), {"check-config"}, dir);
  EXPECT_EQ(enabled.exit_code, 1);
  EXPECT_NE(enabled.err.find("plugins.ghost: plugin library 'no-such-library' "
                             "(libno-such-library.so) not found in: "),
            std::string::npos)
      << enabled.err;
}

// The config names a plugin (the instance's name, or `plugin`) and the loader finds
// libeventsvc-<kind>-<name>.so; `kind` says which when several kinds have one of that name.
TEST(Loader, PluginsAreFoundByName) {
  TempDir dir;
  TestConfig config;
  config.plugins = default_plugins() + "  ghost:\n";
  const auto missing = with_config(config.yaml(), {"check-config"}, dir);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("plugins.ghost: no plugin named 'ghost' (libeventsvc-<kind>-ghost.so) "
                             "in: "),
            std::string::npos)
      << missing.err;
  EXPECT_EQ(line_count(missing.err), 1U) << missing.err;

  config.plugins = "  apikey: {kind: storage}\n";
  const auto wrong_kind = with_config(config.yaml(), {"check-config"}, dir);
  EXPECT_EQ(wrong_kind.exit_code, 1);
  EXPECT_NE(wrong_kind.err.find("plugins.apikey: no storage plugin named 'apikey' "
                                "(libeventsvc-storage-apikey.so) in: "),
            std::string::npos)
      << wrong_kind.err;

  // Two kinds with a plugin called twin (copies of two libraries under that name).
  const auto twins = dir.path() / "twins";
  std::filesystem::create_directories(twins);
  std::filesystem::copy_file(EVENTSVC_PLUGIN_DIR "/libeventsvc-auth-apikey.so",
                             twins / "libeventsvc-auth-twin.so");
  std::filesystem::copy_file(EVENTSVC_PLUGIN_DIR "/libeventsvc-limits-local.so",
                             twins / "libeventsvc-limits-twin.so");
  config.other = "plugin_dirs: [" + twins.string() + "]\n";
  config.plugins = default_plugins() + "  twin:\n";
  const auto ambiguous = with_config(config.yaml(), {"check-config"}, dir);
  EXPECT_EQ(ambiguous.exit_code, 1);
  EXPECT_NE(ambiguous.err.find("plugins.twin: plugins of 2 kinds are named 'twin' "
                               "(libeventsvc-auth-twin.so, libeventsvc-limits-twin.so): say which "
                               "with `kind`"),
            std::string::npos)
      << ambiguous.err;
  // Named with its kind, the library is found and says it holds another plugin.
  config.plugins = default_plugins() + "  twin: {kind: limits}\n";
  const auto renamed = with_config(config.yaml(), {"check-config"}, dir);
  EXPECT_EQ(renamed.exit_code, 1);
  EXPECT_NE(renamed.err.find("libeventsvc-limits-twin.so holds the limits plugin 'local'; the "
                             "config asks for the limits plugin 'twin'"),
            std::string::npos)
      << renamed.err;
  // `plugin` names it when the instance is named otherwise.
  config.other.clear();
  config.plugins = default_plugins() + "  quota: {plugin: local, kind: limits}\n";
  const auto named = with_config(config.yaml(), {"check-config"}, dir);
  EXPECT_EQ(named.exit_code, 0) << named.err;
  EXPECT_NE(named.out.find("quota"), std::string::npos) << named.out;
}

TEST(Loader, DisabledPluginLetsTheServerStart) {
  TestConfig config;
  config.plugins =
      default_plugins() + "  ghost:\n    library: no-such-library\n    enabled: false\n";
  ServerProcess server(config.yaml());
  EXPECT_NO_THROW(server.start());
  EXPECT_EQ(server.stop(), 0);
}

TEST(Loader, OnlyOneAuthPlugin) {
  TempDir dir;
  TestConfig config;
  config.plugins = default_plugins() + "  second:\n    library: eventsvc-auth-apikey\n";
  const auto result = with_config(config.yaml(), {"check-config"}, dir);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(
      result.err.find("plugins.second: plugins.apikey is already the auth plugin; enable only "
                      "one of them"),
      std::string::npos)
      << result.err;

  config.plugins = "  other:\n    library: eventsvc-auth-apikey\n    enabled: false\n";
  const auto none = with_config(config.yaml(), {"check-config"}, dir);
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no auth plugin is enabled"), std::string::npos) << none.err;
}

TEST(Loader, ADurableLogIsChosenInYamlLikeAnyPluginAndOnlyOne) {
  if (log_plugin_mode()) GTEST_SKIP() << "this run's default plugins name a log already";
  TempDir dir;
  TestConfig config;
  config.plugins = default_plugins() + "  postgres:\n";
  const auto unnamed = with_config(config.yaml(), {"check-config"}, dir);
  EXPECT_EQ(unnamed.exit_code, 1);
  EXPECT_NE(unnamed.err.find("plugins.postgres.config.conninfo: is required"), std::string::npos)
      << unnamed.err;

  const std::string log =
      "  postgres:\n    config: {conninfo: \"host=127.0.0.1 port=1\", host_id: a}\n";
  config.plugins = default_plugins() + log;
  const auto checked = with_config(config.yaml(), {"check-config"}, dir);
  EXPECT_EQ(checked.exit_code, 0) << checked.err;

  config.plugins = default_plugins() + log +
                   "  second:\n    plugin: postgres\n"
                   "    config: {conninfo: \"host=127.0.0.1 port=2\", host_id: b}\n";
  const auto two = with_config(config.yaml(), {"check-config"}, dir);
  EXPECT_EQ(two.exit_code, 1);
  EXPECT_NE(two.err.find("plugins.second: plugins.postgres is already the log plugin; enable only "
                         "one of them"),
            std::string::npos)
      << two.err;

  // The local log: named with its kind (a limits plugin is called `local` too), its key checked.
  config.plugins = default_plugins() + kLocalLogPlugin;
  const auto local = with_config(config.yaml(), {"check-config"}, dir);
  EXPECT_EQ(local.exit_code, 0) << local.err;
  config.plugins = default_plugins() + "  local:\n";
  const auto ambiguous = with_config(config.yaml(), {"check-config"}, dir);
  EXPECT_EQ(ambiguous.exit_code, 1);
  EXPECT_NE(ambiguous.err.find("plugins.local: plugins of 2 kinds are named 'local'"),
            std::string::npos)
      << ambiguous.err;
  config.plugins = default_plugins() + "  log: {plugin: local, kind: log, config: {path: \"\"}}\n";
  const auto no_path = with_config(config.yaml(), {"serve"}, dir);  // refused by the plugin
  EXPECT_EQ(no_path.exit_code, 1);
  EXPECT_NE(no_path.err.find("plugins.log.config.path: name the directory of the log's database"),
            std::string::npos)
      << no_path.err;
  config.plugins = default_plugins() + kLocalLogPlugin + log;
  const auto both = with_config(config.yaml(), {"check-config"}, dir);
  EXPECT_EQ(both.exit_code, 1);
  EXPECT_NE(both.err.find("plugins.postgres: plugins.log is already the log plugin"),
            std::string::npos)
      << both.err;
}

TEST(Loader, HostConfigErrorsAreOneLine) {
  TempDir dir;
  TestConfig config;
  config.server = "  listen: 127.0.0.1:0\n  threads: 0\n";
  const auto result = with_config(config.yaml(), {"serve"}, dir);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "eventsvc: " + (dir.path() / "eventsvc.yaml").string() +
                            ":3 server.threads: must be at least 1\n");
}

TEST(Loader, AnUnknownLogLevelNamesTheKeyAndTheAllowedOnes) {
  TempDir dir;
  TestConfig config;
  config.server = "  listen: 127.0.0.1:0\n  log_level: verbose\n";
  const auto result = with_config(config.yaml(), {"check-config"}, dir);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find(":3 server.log_level: "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("debug, info, warning, error"), std::string::npos) << result.err;
}

TEST(Loader, AShutdownGraceOutOfBoundsNamesTheKey) {
  TempDir dir;
  TestConfig config;
  for (const char* grace : {"-1", "601", "soon"}) {
    config.server = std::string("  listen: 127.0.0.1:0\n  shutdown_grace_s: ") + grace + "\n";
    const auto result = with_config(config.yaml(), {"check-config"}, dir);
    EXPECT_EQ(result.exit_code, 1) << grace;
    EXPECT_NE(result.err.find(":3 server.shutdown_grace_s: "), std::string::npos) << result.err;
  }
}

TEST(Loader, LogLevelDropsLessSevereLines) {
  for (const char* level : {"debug", "warning"}) {
    TestConfig config;
    config.server += std::string("  log_level: ") + level + "\n";
    ServerProcess server(config.yaml());
    server.start();
    ASSERT_EQ(server.stop(), 0);
    // "listening" is an info line: written at debug, dropped at warning.
    const bool listening = server.log().find("\"message\":\"listening\"") != std::string::npos;
    EXPECT_EQ(listening, std::string(level) == "debug") << level << ":\n" << server.log();
  }
}

TEST(Loader, PluginsCommandListsManifests) {
  const auto result = run_eventsvc({"plugins", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto list = boost::json::parse(result.out).as_array();
  bool found = false;
  for (const auto& entry : list) {
    if (entry.at("library") != "eventsvc-auth-apikey") continue;
    found = true;
    const auto& manifest = entry.at("manifest");
    EXPECT_EQ(manifest.at("kind"), "auth");
    EXPECT_EQ(manifest.at("name"), "apikey");
    EXPECT_EQ(manifest.at("config").as_array().at(0).at("key"), "key_word");
    EXPECT_EQ(entry.at("instances").as_array().at(0).at("instance"), "apikey");
  }
  EXPECT_TRUE(found) << result.out;
}

TEST(Keys, CreateListRevokeNeverShowSecrets) {
  TempDir dir;
  const std::string config = test_config();
  const auto created = with_config(config,
                                   {"keys", "create", "--workspace", "acme", "--env", "live",
                                    "--scopes", "events:read", "--label", "ci"},
                                   dir);
  ASSERT_EQ(created.exit_code, 0) << created.err;
  ASSERT_EQ(line_count(created.out), 1U);
  const std::string key = created.out.substr(0, created.out.size() - 1);
  EXPECT_EQ(key.substr(0, 9), "key_live_");
  EXPECT_EQ(key.size(), 41U);

  const auto listed = with_config(config, {"keys", "list", "--json"}, dir);
  ASSERT_EQ(listed.exit_code, 0);
  EXPECT_EQ(listed.out.find(key.substr(9)), std::string::npos);
  const auto entry = boost::json::parse(listed.out).as_array().at(0);
  EXPECT_EQ(entry.at("id").as_string(), key.substr(9, 8));
  EXPECT_EQ(entry.at("workspace"), "acme");
  EXPECT_EQ(entry.at("env"), "live");
  EXPECT_EQ(entry.at("label"), "ci");
  EXPECT_TRUE(entry.at("revoked_at").is_null());

  EXPECT_EQ(with_config(config, {"keys", "revoke", key.substr(9, 8)}, dir).exit_code, 0);
  const auto after = boost::json::parse(with_config(config, {"keys", "list", "--json"}, dir).out);
  EXPECT_TRUE(after.as_array().at(0).at("revoked_at").is_string());
  EXPECT_EQ(with_config(config, {"keys", "revoke", "nope"}, dir).exit_code, 1);
}

TEST(Keys, BadArgumentsAreExplained) {
  TempDir dir;
  const std::string config = test_config();
  const auto bad_env = with_config(
      config, {"keys", "create", "--workspace", "w", "--env", "prod", "--scopes", "events:read"},
      dir);
  EXPECT_EQ(bad_env.exit_code, 2);
  EXPECT_NE(bad_env.err.find("--env must be live or test"), std::string::npos) << bad_env.err;
  const auto bad_scope = with_config(
      config, {"keys", "create", "--workspace", "w", "--env", "test", "--scopes", "events:all"},
      dir);
  EXPECT_NE(bad_scope.err.find("unknown scope 'events:all'"), std::string::npos) << bad_scope.err;
  const auto bad_plan = with_config(config,
                                    {"keys", "create", "--workspace", "w", "--env", "test",
                                     "--scopes", "events:read", "--plan", "gold"},
                                    dir);
  EXPECT_NE(bad_plan.err.find("no plan 'gold'"), std::string::npos) << bad_plan.err;
  const auto bad_option = with_config(config, {"keys", "list", "--color"}, dir);
  EXPECT_NE(bad_option.err.find("unknown option --color"), std::string::npos) << bad_option.err;
}

}  // namespace
}  // namespace eventsvc::testing
