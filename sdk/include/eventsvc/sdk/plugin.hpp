// The plugin base class, the context a plugin is created with, and the one macro a plugin's
// registration file uses to export itself.
//
// A plugin library holds exactly one plugin. Its registration file (conventionally plugin.cpp)
// contains one line:
//
//   EVENTSVC_PLUGIN(eventsvc::plugins::ApiKeyAuth)
//
// where the class derives from one kind interface (auth.hpp, storage.hpp, aggregation.hpp,
// context_mode.hpp, embedder.hpp, audit.hpp, limits.hpp: its kKind is the plugin's kind), declares
// its name and manifest as data (`static constexpr std::string_view kName` and `static constexpr
// PluginInfo kInfo`, manifest.hpp) and has a constructor taking `const PluginContext&`. Built with
// eventsvc_add_plugin (EventsvcPlugin.cmake), the file is compiled with EVENTSVC_PLUGIN_KIND, the
// kind the library is named after, and the macro refuses to compile when the class is of another.
// The macro exports, through Boost.DLL aliases:
//   eventsvc_plugin_abi    AbiVersion()               read first, see abi.hpp
//   eventsvc_plugin_entry  const PluginEntry&()       manifest and factory
#pragma once

#include <boost/dll/alias.hpp>
#include <concepts>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "eventsvc/sdk/abi.hpp"
#include "eventsvc/sdk/config.hpp"
#include "eventsvc/sdk/logger.hpp"
#include "eventsvc/sdk/manifest.hpp"
#include "eventsvc/sdk/metrics.hpp"

namespace eventsvc::sdk {

class Plugin {
 public:
  virtual ~Plugin();
  Plugin() = default;
  Plugin(const Plugin&) = delete;
  Plugin& operator=(const Plugin&) = delete;

  // Called once after every plugin is created and before the server accepts requests; start
  // background work here. stop() is called once before destruction, after the server stopped
  // taking requests; flush and join here.
  virtual void start() {}
  virtual void stop() {}

  // The plugin's figures for the operator's /metrics page (metrics.hpp). Called at every scrape,
  // from another thread than the requests', while they run; none by default.
  virtual void report_metrics(MetricsSink& sink) { (void)sink; }

  // Backups (`eventsvc backup`, while requests run). The host calls begin_backup() on every
  // plugin, then back_up() on each (storage first, the durable log second, the others after),
  // then end_backup() on every plugin, also when a step failed. Between begin and end a plugin
  // keeps what another plugin's copy may still need: the local log trims nothing, since the
  // storage's copy, taken first, may need entries the storage has verified since.
  virtual void begin_backup() {}
  // Writes a consistent copy of what this instance keeps in its data_dir into `into` (a new
  // directory, to be restored as that data_dir), or returns false to let the host copy the files
  // of its data_dir as they are: enough for a plugin that replaces its files whole.
  virtual bool back_up(const std::filesystem::path& into) {
    (void)into;
    return false;
  }
  virtual void end_backup() {}
};

struct PluginContext {
  std::string instance;            // the instance name from the config, e.g. "rocksdb"
  std::filesystem::path data_dir;  // private to this instance, created by the host
  ConfigSection config;            // validated against the manifest's schema
  std::shared_ptr<Logger> logger;  // never null
};

struct PluginEntry {
  const Manifest& (*manifest)();
  std::unique_ptr<Plugin> (*create)(const PluginContext& context);
};

// A class the EVENTSVC_PLUGIN macro can export.
template <class PluginClass>
concept PluginClassDeclaration = requires {
  { PluginClass::kName } -> std::convertible_to<std::string_view>;
  { PluginClass::kKind } -> std::convertible_to<PluginKind>;
  { PluginClass::kInfo } -> std::convertible_to<const PluginInfo&>;
};

// The manifest of a plugin class: its kName, the kKind of the interface it derives from, and its
// kInfo (manifest.hpp).
template <PluginClassDeclaration PluginClass>
const Manifest& manifest_of() {
  static const Manifest manifest =
      make_manifest(PluginClass::kName, PluginClass::kKind, PluginClass::kInfo);
  return manifest;
}

namespace detail {
template <class PluginClass>
std::unique_ptr<Plugin> create_plugin(const PluginContext& context) {
  return std::make_unique<PluginClass>(context);
}
}  // namespace detail

}  // namespace eventsvc::sdk

#ifdef EVENTSVC_PLUGIN_KIND
#define EVENTSVC_PLUGIN_KIND_CHECK(PluginClass)                                             \
  static_assert(::eventsvc::sdk::kind_name(PluginClass::kKind) == EVENTSVC_PLUGIN_KIND,     \
                "the plugin class derives from the interface of another kind than the one " \
                "its library is named for (its folder plugins/<kind>/, or KIND)");
#else
#define EVENTSVC_PLUGIN_KIND_CHECK(PluginClass)
#endif

#define EVENTSVC_PLUGIN(PluginClass)                                                \
  EVENTSVC_PLUGIN_KIND_CHECK(PluginClass)                                           \
  namespace eventsvc_plugin_export {                                                \
  ::eventsvc::sdk::AbiVersion eventsvc_plugin_abi() {                               \
    return EVENTSVC_SDK_ABI_VERSION;                                                \
  }                                                                                 \
  const ::eventsvc::sdk::PluginEntry& eventsvc_plugin_entry() {                     \
    static const ::eventsvc::sdk::PluginEntry entry{                                \
        &::eventsvc::sdk::manifest_of<PluginClass>,                                 \
        &::eventsvc::sdk::detail::create_plugin<PluginClass>};                      \
    return entry;                                                                   \
  }                                                                                 \
  }                                                                                 \
  BOOST_DLL_ALIAS(eventsvc_plugin_export::eventsvc_plugin_abi, eventsvc_plugin_abi) \
  BOOST_DLL_ALIAS(eventsvc_plugin_export::eventsvc_plugin_entry, eventsvc_plugin_entry)
