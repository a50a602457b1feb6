// The plugin base class, the context a plugin is created with, and the one macro a plugin's
// registration file uses to export itself.
//
// A plugin library holds exactly one plugin. Its registration file (conventionally plugin.cpp)
// contains one line:
//
//   EVENTSVC_PLUGIN(eventsvc::plugins::ApiKeyAuth)
//
// where the class derives from one kind interface (auth.hpp, storage.hpp, aggregation.hpp,
// context_mode.hpp, embedder.hpp, audit.hpp, limits.hpp), declares its name and manifest as data
// (`static constexpr std::string_view kName` and `static constexpr PluginInfo kInfo`, manifest.hpp)
// and has a constructor taking `const PluginContext&`. The macro exports, through Boost.DLL
// aliases:
//   eventsvc_plugin_abi    AbiVersion()               read first, see abi.hpp
//   eventsvc_plugin_entry  const PluginEntry&()       manifest and factory
#pragma once

#include <boost/dll/alias.hpp>
#include <filesystem>
#include <memory>
#include <string>

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

// The manifest of a plugin class: made from its kName and kInfo (manifest.hpp), or returned by
// its static manifest() when it declares none (a class written before those existed).
template <class PluginClass>
const Manifest& manifest_of() {
  static const Manifest manifest = [] {
    if constexpr (requires {
                    PluginClass::kName;
                    PluginClass::kInfo;
                  }) {
      return make_manifest(PluginClass::kName, PluginClass::kInfo);
    } else {
      return PluginClass::manifest();
    }
  }();
  return manifest;
}

namespace detail {
template <class PluginClass>
std::unique_ptr<Plugin> create_plugin(const PluginContext& context) {
  return std::make_unique<PluginClass>(context);
}
}  // namespace detail

}  // namespace eventsvc::sdk

#define EVENTSVC_PLUGIN(PluginClass)                                                \
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
