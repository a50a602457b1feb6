#include "modules/module_registry.hpp"

#include <sys/stat.h>

#include <algorithm>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

namespace {

[[noreturn]] void refuse(const PluginInstanceConfig& instance, const std::string& reason) {
  const std::string where = sdk::to_string(instance.location);
  throw sdk::Error(500, (where.empty() ? std::string() : where + " ") + "plugins." +
                            instance.instance + ": " + reason);
}

std::string label_of(const sdk::Manifest& manifest, const std::string& instance) {
  return std::string(sdk::kind_name(manifest.kind)) + " plugin '" + instance + "'";
}

template <class Interface>
Interface* as(sdk::Plugin* plugin, const PluginInstanceConfig& instance,
              const sdk::Manifest& manifest) {
  auto* typed = dynamic_cast<Interface*>(plugin);
  if (typed == nullptr) {
    refuse(instance, "the library says it is a " + std::string(sdk::kind_name(manifest.kind)) +
                         " plugin but does not implement that interface");
  }
  return typed;
}

}  // namespace

std::unique_ptr<ModuleRegistry> ModuleRegistry::load(const HostConfig& config, LogSink& log,
                                                     Selection selection) {
  std::unique_ptr<ModuleRegistry> registry(new ModuleRegistry());
  const auto dirs = plugin_search_dirs(config.plugin_dirs);
  for (const auto& instance : config.plugins) {
    if (!instance.enabled) continue;
    registry->add(config, instance, dirs, log, selection != Selection::inspect);
    if (selection == Selection::auth_only && registry->auth_) break;
  }
  if (!registry->single_instances_.contains(sdk::PluginKind::auth)) {
    throw sdk::Error(500, config.origin +
                              ": no auth plugin is enabled; enable exactly one (e.g. "
                              "plugins.apikey, the plugin apikey)");
  }
  if (selection != Selection::auth_only &&
      !registry->single_instances_.contains(sdk::PluginKind::storage)) {
    throw sdk::Error(500, config.origin +
                              ": no storage plugin is enabled; enable exactly one (e.g. "
                              "plugins.rocksdb, the plugin rocksdb)");
  }
  if (selection != Selection::auth_only &&
      !registry->single_instances_.contains(sdk::PluginKind::limits)) {
    // One server's limits are the default: a config written before limits were a plugin kind,
    // or one that does not care, keeps its in-process limits.
    PluginInstanceConfig local;
    local.instance = std::string(kDefaultLimitsInstance);
    local.plugin = "local";
    local.kind = sdk::kind_name(sdk::PluginKind::limits);
    registry->add(config, local, dirs, log, selection != Selection::inspect);
  }
  return registry;
}

void ModuleRegistry::add(const HostConfig& config, const PluginInstanceConfig& instance,
                         const std::vector<std::filesystem::path>& dirs, LogSink& log,
                         bool create) {
  std::shared_ptr<PluginLibrary> library = open_library(instance, dirs);
  const sdk::Manifest& manifest = library->manifest();
  claim_kind(instance, manifest);

  sdk::PluginContext context;
  context.instance = instance.instance;
  context.config = sdk::validate_config(manifest.config, instance.config, instance.path(),
                                        instance.locations, instance.location);
  if (!create) {
    loaded_.push_back(Loaded{instance.instance, std::move(library), nullptr});
    return;
  }
  context.data_dir = config.data_dir / instance.instance;
  context.logger = log.logger_for(instance.instance);
  std::error_code ec;
  std::filesystem::create_directories(context.data_dir, ec);
  if (ec) {
    refuse(instance,
           "cannot create its data directory " + context.data_dir.string() + ": " + ec.message());
  }
  ::chmod(context.data_dir.c_str(), 0700);

  std::unique_ptr<sdk::Plugin> plugin;
  try {
    plugin = call_plugin(label_of(manifest, instance.instance),
                         [&] { return library->create(context); });
  } catch (const sdk::Error& error) {
    refuse(instance, error.message());
  }
  serve(instance, manifest, plugin.get());
  loaded_.push_back(Loaded{instance.instance, std::move(library), std::move(plugin)});
}

std::shared_ptr<PluginLibrary> ModuleRegistry::open_library(
    const PluginInstanceConfig& instance, const std::vector<std::filesystem::path>& dirs) {
  std::shared_ptr<PluginLibrary> library;
  try {
    library = PluginLibrary::open(library_of(instance, dirs));
  } catch (const sdk::Error& error) {
    refuse(instance, error.message());
  }
  // A library renamed by hand says what it holds: the config asked for another plugin.
  const sdk::Manifest& manifest = library->manifest();
  const std::string& name = instance.plugin_name();
  if (instance.library.empty() &&
      (manifest.name != name ||
       (!instance.kind.empty() && sdk::kind_name(manifest.kind) != instance.kind))) {
    refuse(instance,
           library->path().string() + " holds the " + std::string(sdk::kind_name(manifest.kind)) +
               " plugin '" + manifest.name + "'; the config asks for the " +
               (instance.kind.empty() ? "" : instance.kind + " ") + "plugin '" + name + "'");
  }
  return library;
}

void ModuleRegistry::claim_kind(const PluginInstanceConfig& instance,
                                const sdk::Manifest& manifest) {
  // One auth, one storage, one limits, at most one embedder, one audit and one log plugin.
  if (manifest.kind == sdk::PluginKind::aggregation ||
      manifest.kind == sdk::PluginKind::context_mode) {
    return;
  }
  const auto [it, inserted] = single_instances_.emplace(manifest.kind, instance.instance);
  if (!inserted) {
    refuse(instance, "plugins." + it->second + " is already the " +
                         std::string(sdk::kind_name(manifest.kind)) +
                         " plugin; enable only one of them");
  }
}

void ModuleRegistry::serve(const PluginInstanceConfig& instance, const sdk::Manifest& manifest,
                           sdk::Plugin* raw) {
  const std::string label = label_of(manifest, instance.instance);
  switch (manifest.kind) {
    case sdk::PluginKind::auth:
      auth_ = {as<sdk::AuthProvider>(raw, instance, manifest), label};
      break;
    case sdk::PluginKind::storage:
      storage_ = {as<sdk::Storage>(raw, instance, manifest), label};
      break;
    case sdk::PluginKind::embedder:
      embedder_ = {as<const sdk::Embedder>(raw, instance, manifest), label};
      break;
    case sdk::PluginKind::audit:
      audit_ = {as<sdk::AuditSink>(raw, instance, manifest), label};
      break;
    case sdk::PluginKind::limits:
      limits_ = {as<sdk::Limits>(raw, instance, manifest), label};
      break;
    case sdk::PluginKind::log:
      log_ = {as<sdk::DurableLog>(raw, instance, manifest), label};
      break;
    case sdk::PluginKind::aggregation: {
      const auto* op = as<const sdk::AggregationOperator>(raw, instance, manifest);
      const std::string name(op->op());
      if (aggregations_.contains(name)) {
        refuse(instance, "aggregation op '" + name + "' is already served by " +
                             aggregations_.at(name).label);
      }
      aggregations_.emplace(name, Module<const sdk::AggregationOperator>{op, label});
      break;
    }
    case sdk::PluginKind::context_mode: {
      const auto* mode = as<const sdk::ContextMode>(raw, instance, manifest);
      const std::string name(mode->mode());
      if (context_modes_.contains(name)) {
        refuse(instance,
               "context mode '" + name + "' is already served by " + context_modes_.at(name).label);
      }
      context_modes_.emplace(name, Module<const sdk::ContextMode>{mode, label});
      break;
    }
  }
}

const Module<const sdk::AggregationOperator>* ModuleRegistry::aggregation(
    std::string_view op) const {
  const auto it = aggregations_.find(op);
  return it == aggregations_.end() ? nullptr : &it->second;
}

const Module<const sdk::ContextMode>* ModuleRegistry::context_mode(std::string_view mode) const {
  const auto it = context_modes_.find(mode);
  return it == context_modes_.end() ? nullptr : &it->second;
}

void ModuleRegistry::start() {
  if (storage_) {
    storage_.call([&](sdk::Storage& s) {
      s.use_embedder(embedder_.plugin);
      if (log_) s.use_log(log_.plugin);
    });
  }
  // The durable log first, so that storage finds it running; stop() ends it last.
  std::stable_partition(loaded_.begin(), loaded_.end(),
                        [&](const Loaded& module) { return is_log(module); });
  for (auto& module : loaded_) {
    if (module.plugin) {
      call_plugin("plugin '" + module.instance + "'", [&] { module.plugin->start(); });
    }
  }
  started_ = true;
}

bool ModuleRegistry::is_log(const Loaded& module) const {
  return log_ && module.plugin.get() == static_cast<const sdk::Plugin*>(log_.plugin);
}

void ModuleRegistry::stop() {
  if (!started_) return;
  started_ = false;
  for (auto it = loaded_.rbegin(); it != loaded_.rend(); ++it) {
    try {
      if (it->plugin) it->plugin->stop();
    } catch (...) {
      // Shutting down: keep stopping the others.
    }
  }
}

ModuleRegistry::~ModuleRegistry() {
  stop();
  while (!loaded_.empty())
    loaded_.pop_back();  // reverse creation order
}

}  // namespace eventsvc::host
