#include "config/host_config.hpp"

#include <array>
#include <charconv>
#include <string_view>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

namespace json = sdk::json;

std::string ListenAddress::to_string() const {
  return host + ":" + std::to_string(port);
}

std::optional<ListenAddress> parse_listen_address(std::string_view text) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  unsigned port = 0;
  const std::string_view digits = text.substr(colon + 1);
  const auto result = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  if (digits.empty() || result.ec != std::errc() || result.ptr != digits.data() + digits.size() ||
      port > 65535) {
    return std::nullopt;
  }
  return ListenAddress{std::string(text.substr(0, colon)), static_cast<std::uint16_t>(port)};
}

const Plan* HostConfig::plan(std::string_view name) const {
  const auto it = plans.find(name);
  return it == plans.end() ? nullptr : &it->second;
}

namespace {

using sdk::ConfigKey;

constexpr std::string_view kLogLevels[] = {"debug", "info", "warning", "error"};

constexpr ConfigKey kTls[] = {
    ConfigKey::string("certificate", "Certificate chain file").defaults_to(R"("tls/server.crt")"),
    ConfigKey::string("private_key", "Private key file").defaults_to(R"("tls/server.key")"),
    ConfigKey::boolean("self_signed", "Create a self-signed P-256 pair when both are absent")
        .defaults_to("true"),
};

constexpr ConfigKey kServer[] = {
    ConfigKey::string("listen", "HTTPS address, host:port").defaults_to(R"("127.0.0.1:8443")"),
    ConfigKey::string("http_listen",
                      "Plain-HTTP address for running behind a TLS-terminating proxy; empty: off")
        .defaults_to(R"("")"),
    ConfigKey::string("public_base_url",
                      "Prefix of verify_url in receipts, e.g. https://events.example.com")
        .defaults_to(R"("")"),
    ConfigKey::integer("threads", "Threads that run requests' endpoints: requests running at once")
        .defaults_to("16")
        .at_least(1)
        .at_most(1024),
    ConfigKey::integer("io_threads",
                       "Threads that carry connections (TLS, reading requests, writing answers); "
                       "0: one per core")
        .defaults_to("0")
        .at_least(0)
        .at_most(256),
    ConfigKey::integer("queue",
                       "Requests under way beyond `threads` (heads read, bodies arriving, waiting "
                       "for a thread); more are answered 503")
        .defaults_to("64")
        .at_least(1)
        .at_most(65536),
    ConfigKey::integer("keep_alive_timeout_s", "Idle keep-alive connection timeout")
        .defaults_to("5")
        .at_least(1)
        .at_most(300),
    ConfigKey::integer("max_keep_alive_requests", "Requests per connection; 0: no limit")
        .defaults_to("1000")
        .at_least(0),
    ConfigKey::integer("handshake_timeout_s", "A TLS handshake must complete within this")
        .defaults_to("5")
        .at_least(1)
        .at_most(300),
    ConfigKey::integer("head_timeout_s",
                       "A request head (line and headers) must arrive within this from its first "
                       "byte")
        .defaults_to("10")
        .at_least(1)
        .at_most(300),
    ConfigKey::integer("read_timeout_s",
                       "A request body must arrive within this plus one second per 64 KiB it "
                       "declares; an answer must be taken within the same")
        .defaults_to("10")
        .at_least(1)
        .at_most(600),
    ConfigKey::integer("max_connections",
                       "Open connections in all; at the cap an idle keep-alive connection is "
                       "closed for a new one, else the new one is")
        .defaults_to("10000")
        .at_least(1)
        .at_most(1000000),
    ConfigKey::integer("max_connections_per_address",
                       "Open connections from one client address; more are closed")
        .defaults_to("256")
        .at_least(1)
        .at_most(1000000),
    ConfigKey::integer("shutdown_grace_s",
                       "On SIGTERM, how long requests under way may take to finish before every "
                       "connection is closed")
        .defaults_to("30")
        .at_least(0)
        .at_most(600),
    ConfigKey::boolean("access_log", "One structured line per request").defaults_to("true"),
    ConfigKey::string("log_level", "Least severe log lines written: debug, info, warning, error")
        .defaults_to(R"("info")")
        .allowed(kLogLevels),
    ConfigKey::section("tls", "Certificate and key (PEM); relative paths are inside data_dir",
                       kTls),
};

constexpr ConfigKey kAdmin[] = {
    ConfigKey::string("listen", "Address, host:port; empty: off")
        .defaults_to(R"("127.0.0.1:9464")"),
    ConfigKey::integer("ready_max_backlog",
                       "/readyz says not ready while more accepted writes than this wait to be "
                       "projected")
        .defaults_to("10000")
        .at_least(1),
    ConfigKey::string("token_file",
                      "The bearer token of the listener's key management (/admin/keys), created "
                      "when absent; relative paths are inside data_dir")
        .defaults_to(R"("admin.token")"),
};

constexpr ConfigKey kLimits[] = {
    ConfigKey::integer("anonymous_per_minute",
                       "Requests per minute per client IP that fail authentication or name no "
                       "route")
        .defaults_to("60")
        .at_least(1),
    ConfigKey::integer("max_body_bytes",
                       "Largest body of search, query and analyze (ingest is fixed at 1 MiB by "
                       "the API)")
        .defaults_to("8388608")
        .at_least(1024)
        .at_most(256 << 20),
};

constexpr ConfigKey kIngest[] = {
    ConfigKey::string("max_future_skew",
                      "How far ahead of now an event's occurred_at may be (duration)")
        .defaults_to(R"("24h")"),
};

constexpr ConfigKey kRetention[] = {
    ConfigKey::boolean("remove_expired",
                       "The server removes events once every plan of their workspace and "
                       "environment lets them go (false: only `eventsvc retention` does)")
        .defaults_to("true"),
    ConfigKey::string("sweep_every", "How often expired events are looked for (duration)")
        .defaults_to(R"("1h")"),
};

constexpr ConfigKey kCursors[] = {
    ConfigKey::string("secret_file",
                      "The key that signs paging cursors, created when absent; relative paths are "
                      "inside data_dir. A cluster's servers need the same one")
        .defaults_to(R"("cursor.key")"),
    ConfigKey::string("lifetime", "How long a cursor stays valid after its page (duration)")
        .defaults_to(R"("24h")"),
};

constexpr ConfigKey kTail[] = {
    ConfigKey::string("heartbeat",
                      "How often an idle live tail sends a comment, so proxies keep it open "
                      "(duration)")
        .defaults_to(R"("15s")"),
    ConfigKey::integer("max_lag",
                       "Events a live tail may trail the newest by before it is told `lagged` "
                       "and skips to the newest (the missed ones are fetched by export)")
        .defaults_to("100000")
        .at_least(1)
        .at_most(1000000000),
};

constexpr ConfigKey kConsole[] = {
    ConfigKey::boolean("enabled",
                       "Serve the browser console at /console/ on the API listener (sign-in with "
                       "an API key) and on the admin listener (keys and operations, with the "
                       "admin token); false: the API alone")
        .defaults_to("true"),
};

constexpr ConfigKey kTopLevel[] = {
    ConfigKey::section("server", "HTTPS listener and connection handling", kServer),
    ConfigKey::section("admin",
                       "The operator's listener: /healthz, /readyz, /metrics (plain HTTP, no key)",
                       kAdmin),
    ConfigKey::string("data_dir", "Where plugins keep their data").defaults_to(R"("var/data")"),
    ConfigKey::string(
        "erasure_ledger",
        "Every accepted erasure, re-applied by `eventsvc restore` to an older backup; "
        "relative paths are inside data_dir (backups never hold it)")
        .defaults_to(R"("erasure-ledger.jsonl")"),
    ConfigKey::string_list("plugin_dirs",
                           "Directories searched for plugin libraries before the built-in one")
        .defaults_to("[]"),
    ConfigKey::section("limits", "Request limits", kLimits),
    ConfigKey::section("ingest", "Ingest rules", kIngest),
    ConfigKey::mapping("plans", "Plans by name; a key names its plan"),
    ConfigKey::section("retention", "Removing events older than retention", kRetention),
    ConfigKey::section("cursors", "Paging cursors of search, query and analyze", kCursors),
    ConfigKey::section("tail", "Live tails (GET /v1/tail)", kTail),
    ConfigKey::section("console", "The browser console (docs/console.md)", kConsole),
    ConfigKey::mapping("plugins", "Plugin instances by name"),
};

// requests_per_minute: a key per operation (in kOperations' order), named as the operation is.
constexpr std::string_view kDefaultRates[] = {"600", "1200", "600", "600", "300", "60"};
static_assert(std::size(kDefaultRates) == kOperations.size());
constexpr auto kRates = [] {
  std::array<ConfigKey, kOperations.size()> rates{};
  for (std::size_t i = 0; i < kOperations.size(); ++i) {
    rates[i] = ConfigKey::integer(operation_name(kOperations[i]), "Requests per minute")
                   .defaults_to(kDefaultRates[i])
                   .at_least(1)
                   .at_most(1000000000);
  }
  return rates;
}();

constexpr ConfigKey kPlan[] = {
    ConfigKey::section("requests_per_minute", "Rate limit per operation", kRates),
    ConfigKey::integer("concurrency",
                       "Concurrent search, query, analyze and receipt requests per workspace and "
                       "environment")
        .defaults_to("8")
        .at_least(1)
        .at_most(100000),
    ConfigKey::integer("tails", "Live tails open at once per key")
        .defaults_to("4")
        .at_least(1)
        .at_most(100000),
    ConfigKey::integer("retention_days", "How long events are kept and may be queried")
        .defaults_to("30")
        .at_least(1)
        .at_most(36500),
    ConfigKey::mapping("retention_streams",
                       "Days to keep the events of a stream, by stream name; at most "
                       "retention_days"),
};

constexpr auto kKindNames = [] {
  std::array<std::string_view, std::size(sdk::kPluginKinds)> names{};
  for (std::size_t i = 0; i < names.size(); ++i)
    names[i] = sdk::kind_name(sdk::kPluginKinds[i]);
  return names;
}();

constexpr ConfigKey kPluginInstance[] = {
    ConfigKey::string("plugin",
                      "The plugin's name (libeventsvc-<kind>-<plugin>.so in the plugin "
                      "directories); the instance's name when not given")
        .defaults_to(R"("")"),
    ConfigKey::string("kind", "The plugin's kind, when plugins of several kinds share its name")
        .allowed(kKindNames),
    ConfigKey::string("library",
                      "Instead of plugin and kind: a library name (libNAME.so in the plugin "
                      "directories) or a path")
        .defaults_to(R"("")"),
    ConfigKey::boolean("enabled", "Load this instance").defaults_to("true"),
    ConfigKey::mapping("config", "The plugin's own settings, checked against its schema"),
};

sdk::ConfigSchema top_level_schema() {
  return sdk::schema_of(kTopLevel);
}

sdk::ConfigSchema plan_schema() {
  return sdk::schema_of(kPlan);
}

sdk::ConfigSchema plugin_instance_schema() {
  return sdk::schema_of(kPluginInstance);
}

Plan plan_from(std::string name, const sdk::ConfigSection& section) {
  Plan plan;
  plan.name = std::move(name);
  const auto rates = section.get_section("requests_per_minute");
  for (const auto operation : kOperations) {
    plan.requests_per_minute[static_cast<std::size_t>(operation)] =
        static_cast<int>(rates.get_int(operation_name(operation)));
  }
  plan.concurrency = static_cast<int>(section.get_int("concurrency"));
  plan.tails = static_cast<int>(section.get_int("tails"));
  plan.retention_days = static_cast<int>(section.get_int("retention_days"));
  if (const auto* streams = section.values().if_contains("retention_streams");
      streams != nullptr && !streams->is_null()) {
    if (!streams->is_object()) {
      section.fail("retention_streams", "must be a mapping of stream names to days");
    }
    for (const auto& [stream, days] : streams->get_object()) {
      const std::string key = "retention_streams." + std::string(stream);
      if (!days.is_int64() || days.get_int64() < 1 || days.get_int64() > plan.retention_days) {
        section.fail(key, "must be a whole number of days from 1 to the plan's retention_days (" +
                              std::to_string(plan.retention_days) + ")");
      }
      plan.stream_retention_days.emplace(stream, static_cast<int>(days.get_int64()));
    }
  }
  return plan;
}

sdk::SourceLocation location_of(const YamlDocument& document, const std::string& path) {
  const auto it = document.locations.find(path);
  return it != document.locations.end() ? it->second : sdk::SourceLocation{document.origin, 0};
}

// An error naming the file, line and path of a value the schema cannot check by itself.
[[noreturn]] void fail_at(const YamlDocument& document, const std::string& path,
                          const std::string& message) {
  throw sdk::Error(500, sdk::to_string(location_of(document, path)) + " " + path + ": " + message);
}

sdk::ConfigSection validate_at(const YamlDocument& document, const sdk::ConfigSchema& schema,
                               const json::object& raw, const std::string& path) {
  return sdk::validate_config(schema, raw, path, locations_below(document.locations, path),
                              location_of(document, path));
}

ListenAddress require_listen(const sdk::ConfigSection& section, std::string_view key,
                             const std::string& text) {
  const auto address = parse_listen_address(text);
  if (!address) section.fail(key, "must be host:port, e.g. 127.0.0.1:8443");
  return *address;
}

ServerConfig server_config_of(const sdk::ConfigSection& server, const ConfigOverrides& overrides,
                              const std::filesystem::path& data_dir) {
  ServerConfig config;
  config.listen = require_listen(
      server, "listen", overrides.listen ? *overrides.listen : server.get_string("listen"));
  if (const auto http = server.get_string("http_listen"); !http.empty()) {
    config.http_listen = require_listen(server, "http_listen", http);
  }
  config.public_base_url = server.get_string("public_base_url");
  while (!config.public_base_url.empty() && config.public_base_url.back() == '/') {
    config.public_base_url.pop_back();
  }
  config.threads = static_cast<int>(server.get_int("threads"));
  config.io_threads = static_cast<int>(server.get_int("io_threads"));
  config.queue = static_cast<int>(server.get_int("queue"));
  config.keep_alive_timeout_s = static_cast<int>(server.get_int("keep_alive_timeout_s"));
  config.max_keep_alive_requests = static_cast<int>(server.get_int("max_keep_alive_requests"));
  config.handshake_timeout_s = static_cast<int>(server.get_int("handshake_timeout_s"));
  config.head_timeout_s = static_cast<int>(server.get_int("head_timeout_s"));
  config.read_timeout_s = static_cast<int>(server.get_int("read_timeout_s"));
  config.max_connections = static_cast<int>(server.get_int("max_connections"));
  config.max_connections_per_address =
      static_cast<int>(server.get_int("max_connections_per_address"));
  config.access_log = server.get_bool("access_log");
  config.shutdown_grace_s = static_cast<int>(server.get_int("shutdown_grace_s"));
  // One of the four names the schema allows.
  config.log_level = *sdk::parse_log_level(server.get_string("log_level"));
  const auto tls = server.get_section("tls");
  auto inside_data_dir = [&](const std::string& path) {
    const std::filesystem::path p(path);
    return p.is_absolute() ? p : data_dir / p;
  };
  config.tls.certificate = inside_data_dir(tls.get_string("certificate"));
  config.tls.private_key = inside_data_dir(tls.get_string("private_key"));
  config.tls.self_signed = tls.get_bool("self_signed");
  return config;
}

// `plans`, or one plan named default with the defaults when there are none.
void read_plans(const YamlDocument& document, const sdk::ConfigSection& top, HostConfig& config) {
  const auto plans = top.values().if_contains("plans");
  if (plans == nullptr || plans->is_null() || plans->as_object().empty()) {
    config.plans.emplace(
        "default", plan_from("default", validate_at(document, plan_schema(), {}, "plans.default")));
    return;
  }
  for (const auto& entry : plans->as_object()) {
    const std::string path = "plans." + std::string(entry.key());
    if (!entry.value().is_object() && !entry.value().is_null()) {
      fail_at(document, path, "must be a mapping of keys to values");
    }
    const json::object raw =
        entry.value().is_object() ? entry.value().get_object() : json::object();
    config.plans.emplace(entry.key(), plan_from(std::string(entry.key()),
                                                validate_at(document, plan_schema(), raw, path)));
  }
}

PluginInstanceConfig plugin_instance_of(const YamlDocument& document, std::string_view name,
                                        const json::value& value) {
  const std::string path = "plugins." + std::string(name);
  // `count:` alone (or `count: {}`) is the plugin called count, with its defaults.
  if (!value.is_object() && !value.is_null()) {
    fail_at(document, path,
            "must be a mapping (plugin, kind, library, enabled, config) or nothing");
  }
  const json::object raw = value.is_object() ? value.get_object() : json::object();
  const auto section = validate_at(document, plugin_instance_schema(), raw, path);
  PluginInstanceConfig instance;
  instance.instance = std::string(name);
  instance.library = section.get_string("library");
  instance.plugin = section.get_string("plugin");
  if (section.has("kind")) instance.kind = section.get_string("kind");
  if (!instance.library.empty() && (!instance.plugin.empty() || !instance.kind.empty())) {
    fail_at(document, path, "give `library`, or `plugin` and `kind`, not both");
  }
  instance.enabled = section.get_bool("enabled");
  if (const auto* own = section.values().if_contains("config"); own != nullptr) {
    instance.config = own->as_object();
  }
  instance.locations = locations_below(document.locations, instance.path());
  instance.location = location_of(document, path);
  return instance;
}

}  // namespace

HostConfig build_host_config(const YamlDocument& document, const ConfigOverrides& overrides) {
  const sdk::ConfigSection top = sdk::validate_config(top_level_schema(), document.root, "",
                                                      document.locations, {document.origin, 0});
  HostConfig config;
  config.origin = document.origin;

  config.data_dir = overrides.data_dir ? *overrides.data_dir : top.get_string("data_dir");
  config.data_dir = std::filesystem::absolute(config.data_dir).lexically_normal();
  const std::filesystem::path ledger(top.get_string("erasure_ledger"));
  config.erasure_ledger =
      (ledger.is_absolute() ? ledger : config.data_dir / ledger).lexically_normal();
  for (const auto& dir : top.get_strings("plugin_dirs")) {
    config.plugin_dirs.push_back(std::filesystem::absolute(dir).lexically_normal());
  }
  config.server = server_config_of(top.get_section("server"), overrides, config.data_dir);

  const auto admin = top.get_section("admin");
  const std::string admin_listen =
      overrides.admin_listen ? *overrides.admin_listen : admin.get_string("listen");
  if (const auto& listen = admin_listen; !listen.empty()) {
    config.admin.listen = require_listen(admin, "listen", listen);
  }
  config.admin.ready_max_backlog = static_cast<std::uint64_t>(admin.get_int("ready_max_backlog"));
  const std::filesystem::path token(admin.get_string("token_file"));
  config.admin.token_file = token.is_absolute() ? token : config.data_dir / token;

  const auto limits = top.get_section("limits");
  config.anonymous_per_minute = static_cast<int>(limits.get_int("anonymous_per_minute"));
  config.max_body_bytes = static_cast<std::size_t>(limits.get_int("max_body_bytes"));

  const auto ingest = top.get_section("ingest");
  const auto skew = toolkit::parse_duration(ingest.get_string("max_future_skew"));
  if (!skew) ingest.fail("max_future_skew", "must be a duration such as 24h or 90m");
  config.max_future_skew = *skew;

  read_plans(document, top, config);
  const auto retention = top.get_section("retention");
  config.retention.remove_expired = retention.get_bool("remove_expired");
  const auto sweep_every = toolkit::parse_duration(retention.get_string("sweep_every"));
  if (!sweep_every || *sweep_every <= 0) {
    retention.fail("sweep_every", "must be a duration such as 1h or 10m");
  }
  config.retention.sweep_every = *sweep_every;
  const auto cursors = top.get_section("cursors");
  const std::filesystem::path secret(cursors.get_string("secret_file"));
  config.cursors.secret_file = secret.is_absolute() ? secret : config.data_dir / secret;
  const auto lifetime = toolkit::parse_duration(cursors.get_string("lifetime"));
  if (!lifetime || *lifetime <= 0)
    cursors.fail("lifetime", "must be a duration such as 24h or 30m");
  config.cursors.lifetime = *lifetime;
  const auto tail = top.get_section("tail");
  const auto heartbeat = toolkit::parse_duration(tail.get_string("heartbeat"));
  if (!heartbeat || *heartbeat < 1000)
    tail.fail("heartbeat", "must be a duration of at least 1s, such as 15s");
  config.tail.heartbeat = *heartbeat;
  config.tail.max_lag = static_cast<std::uint64_t>(tail.get_int("max_lag"));
  config.console.enabled = top.get_section("console").get_bool("enabled");
  if (const auto* plugins = top.values().if_contains("plugins"); plugins != nullptr) {
    for (const auto& entry : plugins->as_object())
      config.plugins.push_back(plugin_instance_of(document, entry.key(), entry.value()));
  }
  return config;
}

HostConfig load_host_config(const std::string& path, const ConfigOverrides& overrides) {
  if (path.empty()) {
    return build_host_config(parse_yaml(embedded_default_config(), "<embedded eventsvc.yaml>"),
                             overrides);
  }
  return build_host_config(load_yaml_file(path), overrides);
}

}  // namespace eventsvc::host
