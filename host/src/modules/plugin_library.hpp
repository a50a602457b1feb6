// One plugin library on disk, opened and checked: the ABI handshake happens before the host
// touches any C++ object of the library. The library stays loaded for as long as this object
// (shared by every plugin created from it) lives.
#pragma once

#include <boost/dll/shared_library.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "config/host_config.hpp"
#include "eventsvc/sdk/plugin.hpp"

namespace eventsvc::host {

class PluginLibrary {
 public:
  // Throws sdk::Error(500) with one line: cannot load (dlerror), not an eventsvc plugin, or
  // "ABI version mismatch: got X, but expected Y".
  static std::shared_ptr<PluginLibrary> open(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return path_; }
  const sdk::Manifest& manifest() const { return entry_->manifest(); }
  std::unique_ptr<sdk::Plugin> create(const sdk::PluginContext& context) const {
    return entry_->create(context);
  }

 private:
  PluginLibrary() = default;

  std::filesystem::path path_;
  boost::dll::shared_library library_;
  const sdk::PluginEntry* entry_ = nullptr;
};

// The directories searched for `library` names: the configured ones, then the plugin directory
// next to the binary (<bin>/../lib/eventsvc/plugins).
std::vector<std::filesystem::path> plugin_search_dirs(
    const std::vector<std::filesystem::path>& configured);

// A path as given (when it contains a '/'), else lib<library>.so in the first directory that has
// it. Throws sdk::Error(500) naming the directories searched.
std::filesystem::path resolve_library(const std::string& library,
                                      const std::vector<std::filesystem::path>& dirs);

// The library of the plugin called `name`: libeventsvc-<kind>-<name>.so, of the given `kind` (a
// kind_name) or, when it is empty, of whichever kind has one. Throws sdk::Error(500) when none
// does, or when plugins of several kinds have that name (saying to name the kind).
std::filesystem::path resolve_plugin(const std::string& name, const std::string& kind,
                                     const std::vector<std::filesystem::path>& dirs);

// The library a configured instance loads: its `library`, else the plugin it names.
std::filesystem::path library_of(const PluginInstanceConfig& instance,
                                 const std::vector<std::filesystem::path>& dirs);

}  // namespace eventsvc::host
