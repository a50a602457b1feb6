// Every plugin instance of a config, loaded, validated and created, by kind. Owns the libraries and
// the plugin objects, and destroys the objects before the libraries that hold their code.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/host_config.hpp"
#include "eventsvc/sdk/aggregation.hpp"
#include "eventsvc/sdk/audit.hpp"
#include "eventsvc/sdk/auth.hpp"
#include "eventsvc/sdk/context_mode.hpp"
#include "eventsvc/sdk/durable_log.hpp"
#include "eventsvc/sdk/embedder.hpp"
#include "eventsvc/sdk/limits.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "logging/log_sink.hpp"
#include "modules/module.hpp"
#include "modules/plugin_library.hpp"

namespace eventsvc::host {

// The instance that keeps the limits when the config enables no limits plugin: `local`.
inline constexpr std::string_view kDefaultLimitsInstance = "limits";

class ModuleRegistry {
 public:
  // all: create every enabled instance (serve). auth_only: just the auth plugin (keys).
  // inspect: open and check every enabled library and validate its config, create nothing
  // (check-config; safe while a server runs on the same data).
  enum class Selection { all, auth_only, inspect };

  // Throws sdk::Error(500) with one line naming the instance and the reason: library not found or
  // not loadable, ABI mismatch, config invalid (file:line key: reason), two plugins where one is
  // allowed, none where one is required (auth; storage when serving; without a limits plugin the
  // `local` one is loaded as instance kDefaultLimitsInstance), two plugins for one aggregation op
  // or context mode.
  static std::unique_ptr<ModuleRegistry> load(const HostConfig& config, LogSink& log,
                                              Selection selection);

  ModuleRegistry(const ModuleRegistry&) = delete;
  ModuleRegistry& operator=(const ModuleRegistry&) = delete;
  ~ModuleRegistry();

  const Module<sdk::AuthProvider>& auth() const { return auth_; }
  const Module<sdk::Storage>& storage() const { return storage_; }
  const Module<const sdk::Embedder>& embedder() const { return embedder_; }
  const Module<sdk::AuditSink>& audit() const { return audit_; }
  const Module<sdk::Limits>& limits() const { return limits_; }
  // Empty unless a durable log plugin is loaded (scale-out).
  const Module<sdk::DurableLog>& log() const { return log_; }
  // nullptr when no enabled plugin serves that op / mode.
  const Module<const sdk::AggregationOperator>* aggregation(std::string_view op) const;
  const Module<const sdk::ContextMode>* context_mode(std::string_view mode) const;

  // Starts every plugin, the durable log first and storage after it was given the embedder and
  // the log; stop() in reverse order.
  void start();
  void stop();

  struct Loaded {
    std::string instance;
    std::shared_ptr<PluginLibrary> library;  // declared first: destroyed after the plugin
    std::unique_ptr<sdk::Plugin> plugin;
  };
  const std::vector<Loaded>& loaded() const { return loaded_; }

 private:
  ModuleRegistry() = default;
  void add(const HostConfig& config, const PluginInstanceConfig& instance,
           const std::vector<std::filesystem::path>& dirs, LogSink& log, bool create);
  // The instance's library, refused when it holds another plugin than the config names.
  static std::shared_ptr<PluginLibrary> open_library(
      const PluginInstanceConfig& instance, const std::vector<std::filesystem::path>& dirs);
  // Refuses a second instance of a kind that has one.
  void claim_kind(const PluginInstanceConfig& instance, const sdk::Manifest& manifest);
  // Puts the created plugin where requests find it: its kind's slot, or its op or mode.
  void serve(const PluginInstanceConfig& instance, const sdk::Manifest& manifest, sdk::Plugin* raw);
  bool is_log(const Loaded& module) const;

  std::vector<Loaded> loaded_;
  Module<sdk::AuthProvider> auth_;
  Module<sdk::Storage> storage_;
  Module<const sdk::Embedder> embedder_;
  Module<sdk::AuditSink> audit_;
  Module<sdk::Limits> limits_;
  Module<sdk::DurableLog> log_;
  std::map<std::string, Module<const sdk::AggregationOperator>, std::less<>> aggregations_;
  std::map<std::string, Module<const sdk::ContextMode>, std::less<>> context_modes_;
  std::map<sdk::PluginKind, std::string> single_instances_;  // kind -> instance, for messages
  bool started_ = false;
};

// The plugins a command (restore, retention) starts on a data directory no server runs on,
// stopped when it goes out of scope.
class StartedModules {
 public:
  explicit StartedModules(std::unique_ptr<ModuleRegistry> modules) : modules_(std::move(modules)) {
    modules_->start();
  }
  ~StartedModules() { modules_->stop(); }
  StartedModules(const StartedModules&) = delete;
  StartedModules& operator=(const StartedModules&) = delete;

  ModuleRegistry& operator*() const { return *modules_; }
  ModuleRegistry* operator->() const { return modules_.get(); }

 private:
  std::unique_ptr<ModuleRegistry> modules_;
};

}  // namespace eventsvc::host
