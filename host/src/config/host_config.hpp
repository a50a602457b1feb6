// The host's configuration: server, data directory, limits, plans and the plugin instances.
// docs/operators.md is the reference for every key.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/yaml_document.hpp"
#include "eventsvc/sdk/config.hpp"
#include "eventsvc/sdk/logger.hpp"
#include "eventsvc/sdk/time.hpp"
#include "limits/operation.hpp"

namespace eventsvc::host {

struct ListenAddress {
  std::string host;
  std::uint16_t port = 0;
  std::string to_string() const;
};

// "host:port"; nullopt when malformed.
std::optional<ListenAddress> parse_listen_address(std::string_view text);

struct TlsConfig {
  std::filesystem::path certificate;  // absolute (relative paths resolve against data_dir)
  std::filesystem::path private_key;
  bool self_signed = true;  // create a self-signed pair when both files are absent
};

struct ServerConfig {
  ListenAddress listen;
  std::optional<ListenAddress> http_listen;
  std::string public_base_url;
  int threads = 16;    // endpoint threads: requests running at once
  int io_threads = 0;  // connection threads; 0: one per core
  int queue = 64;
  int keep_alive_timeout_s = 5;
  int max_keep_alive_requests = 1000;
  int handshake_timeout_s = 5;
  int head_timeout_s = 10;
  int read_timeout_s = 10;
  int max_connections = 10000;
  int max_connections_per_address = 256;
  int shutdown_grace_s = 30;
  bool access_log = true;
  sdk::LogLevel log_level = sdk::LogLevel::info;
  TlsConfig tls;
};

// The operator's listener: health, readiness and metrics, plain HTTP without a key (DESIGN of
// docs/operations.md#health-and-metrics). Off the public port, on loopback unless told otherwise.
struct AdminConfig {
  std::optional<ListenAddress> listen;  // nullopt: off
  // /readyz says not ready while more accepted writes than this wait for projection.
  std::uint64_t ready_max_backlog = 10000;
  std::filesystem::path token_file;  // absolute: the bearer token of /admin/keys
};

// A number of days as milliseconds: how retention is counted.
inline sdk::Millis days_ms(int days) {
  return sdk::Millis{days} * 86400000;
}

struct Plan {
  std::string name;
  std::array<int, kOperations.size()> requests_per_minute{};
  int concurrency = 8;
  int retention_days = 30;
  int tails = 4;  // live tails open at once per key
  // Streams whose events are kept for fewer days than retention_days (Loki's retention_stream).
  std::map<std::string, int, std::less<>> stream_retention_days;

  int rate_limit(Operation operation) const {
    return requests_per_minute[static_cast<std::size_t>(operation)];
  }
  sdk::Millis retention_ms() const { return days_ms(retention_days); }
  // How many days the plan keeps the events of `stream`.
  int retention_days_of(std::string_view stream) const {
    const auto it = stream_retention_days.find(stream);
    return it != stream_retention_days.end() ? it->second : retention_days;
  }
};

// Removing what retention lets go (retention/retention_sweeper.hpp).
struct RetentionConfig {
  bool remove_expired = true;
  sdk::Millis sweep_every = sdk::Millis{3600000};
};

// Paging cursors (api/page_cursor.hpp).
// Live tails (api/tail_endpoint.hpp).
struct TailConfig {
  sdk::Millis heartbeat = 15000;
  std::uint64_t max_lag = 100000;  // events behind the newest before `lagged`
};

// The browser console (console/console_site.hpp), served at /console/ on the API and admin
// listeners.
struct ConsoleConfig {
  bool enabled = true;
};

struct CursorConfig {
  std::filesystem::path secret_file;  // absolute
  sdk::Millis lifetime = sdk::Millis{24} * 3600000;
};

struct PluginInstanceConfig {
  std::string instance;
  // Which library: `library` when given, else the plugin called `plugin` (the instance's name
  // when empty) of `kind` (any kind that has one when empty).
  std::string library;
  std::string plugin;
  std::string kind;
  bool enabled = true;
  sdk::json::object config;      // raw; validated against the plugin's schema when loaded
  sdk::LocationMap locations;    // of keys inside `config`
  sdk::SourceLocation location;  // of the instance
  std::string path() const { return "plugins." + instance + ".config"; }
  // The plugin it names when it gives no library: `plugin`, else the instance's own name.
  const std::string& plugin_name() const { return plugin.empty() ? instance : plugin; }
};

struct HostConfig {
  std::string origin;  // where the config came from
  ServerConfig server;
  AdminConfig admin;
  std::filesystem::path data_dir;
  // Every accepted erasure, for restores (erasure_ledger.hpp); absolute.
  std::filesystem::path erasure_ledger;
  std::vector<std::filesystem::path> plugin_dirs;
  int anonymous_per_minute = 60;
  std::size_t max_body_bytes = 8 << 20;
  sdk::Millis max_future_skew = sdk::Millis{24} * 3600000;
  std::map<std::string, Plan, std::less<>> plans;
  RetentionConfig retention;
  CursorConfig cursors;
  TailConfig tail;
  ConsoleConfig console;
  std::vector<PluginInstanceConfig> plugins;

  const Plan* plan(std::string_view name) const;
};

// Command-line values that replace what the file says.
struct ConfigOverrides {
  std::optional<std::string> data_dir;
  std::optional<std::string> listen;
  std::optional<std::string> admin_listen;
};

// Validates the document and builds the config; throws sdk::Error with one line naming the file,
// line, key and reason.
HostConfig build_host_config(const YamlDocument& document, const ConfigOverrides& overrides);

// Loads `path`, or the embedded default config when empty.
HostConfig load_host_config(const std::string& path, const ConfigOverrides& overrides);

// The default config compiled into the binary (config/eventsvc.yaml).
std::string_view embedded_default_config();

}  // namespace eventsvc::host
