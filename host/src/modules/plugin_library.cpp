#include "modules/plugin_library.hpp"

#include <boost/dll/runtime_symbol_info.hpp>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

std::shared_ptr<PluginLibrary> PluginLibrary::open(const std::filesystem::path& path) {
  std::shared_ptr<PluginLibrary> plugin(new PluginLibrary());
  plugin->path_ = path;
  boost::system::error_code ec;
  plugin->library_.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local,
                        ec);
  if (ec) {
    throw sdk::Error(500, path.string() + ": cannot load the library: " + ec.message());
  }
  if (!plugin->library_.has("eventsvc_plugin_abi") ||
      !plugin->library_.has("eventsvc_plugin_entry")) {
    throw sdk::Error(500, path.string() +
                              ": not an eventsvc plugin (it exports no eventsvc_plugin_abi and "
                              "eventsvc_plugin_entry; register the plugin with EVENTSVC_PLUGIN)");
  }
  const auto& abi = plugin->library_.get_alias<sdk::AbiVersion()>("eventsvc_plugin_abi");
  const std::string mismatch = sdk::abi_incompatibility(abi(), EVENTSVC_SDK_ABI_VERSION);
  if (!mismatch.empty()) throw sdk::Error(500, path.string() + ": " + mismatch);
  const auto& entry =
      plugin->library_.get_alias<const sdk::PluginEntry&()>("eventsvc_plugin_entry");
  plugin->entry_ = &entry();
  return plugin;
}

std::vector<std::filesystem::path> plugin_search_dirs(
    const std::vector<std::filesystem::path>& configured) {
  std::vector<std::filesystem::path> dirs = configured;
  boost::system::error_code ec;
  const auto program = boost::dll::program_location(ec);
  if (!ec) {
    dirs.push_back(
        (program.parent_path().parent_path() / "lib" / "eventsvc" / "plugins").lexically_normal());
  }
  return dirs;
}

std::filesystem::path resolve_library(const std::string& library,
                                      const std::vector<std::filesystem::path>& dirs) {
  if (library.find('/') != std::string::npos) {
    if (!std::filesystem::exists(library)) {
      throw sdk::Error(500, "plugin library " + library + " does not exist");
    }
    return std::filesystem::absolute(library);
  }
  const std::string file = "lib" + library + ".so";
  std::string searched;
  for (const auto& dir : dirs) {
    auto candidate = dir / file;
    if (std::filesystem::exists(candidate)) return candidate;
    if (!searched.empty()) searched += ", ";
    searched += dir.string();
  }
  throw sdk::Error(500,
                   "plugin library '" + library + "' (" + file + ") not found in: " + searched);
}

}  // namespace eventsvc::host
