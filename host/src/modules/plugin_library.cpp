#include "modules/plugin_library.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <optional>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/strings.hpp"

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

namespace {

std::optional<std::filesystem::path> find_file(const std::string& file,
                                               const std::vector<std::filesystem::path>& dirs) {
  for (const auto& dir : dirs) {
    auto candidate = dir / file;
    if (std::filesystem::exists(candidate)) return candidate;
  }
  return std::nullopt;
}

std::string listed(const std::vector<std::filesystem::path>& dirs) {
  return sdk::join(dirs, ", ", [](const std::filesystem::path& dir) { return dir.string(); });
}

std::string library_file(std::string_view kind, const std::string& name) {
  return "libeventsvc-" + std::string(kind) + "-" + name + ".so";
}

}  // namespace

std::filesystem::path resolve_library(const std::string& library,
                                      const std::vector<std::filesystem::path>& dirs) {
  if (library.find('/') != std::string::npos) {
    if (!std::filesystem::exists(library)) {
      throw sdk::Error(500, "plugin library " + library + " does not exist");
    }
    return std::filesystem::absolute(library);
  }
  const std::string file = "lib" + library + ".so";
  if (auto found = find_file(file, dirs)) return *found;
  throw sdk::Error(500,
                   "plugin library '" + library + "' (" + file + ") not found in: " + listed(dirs));
}

std::filesystem::path resolve_plugin(const std::string& name, const std::string& kind,
                                     const std::vector<std::filesystem::path>& dirs) {
  if (!kind.empty()) {
    if (auto found = find_file(library_file(kind, name), dirs)) return *found;
    throw sdk::Error(500, "no " + kind + " plugin named '" + name + "' (" +
                              library_file(kind, name) + ") in: " + listed(dirs));
  }
  std::vector<std::filesystem::path> found;
  for (const auto each : sdk::kPluginKinds) {
    if (auto path = find_file(library_file(sdk::kind_name(each), name), dirs)) {
      found.push_back(std::move(*path));
    }
  }
  if (found.size() == 1) return found.front();
  if (found.empty()) {
    throw sdk::Error(500, "no plugin named '" + name + "' (libeventsvc-<kind>-" + name +
                              ".so) in: " + listed(dirs) +
                              "; name its `library`, or add the "
                              "directory that holds it to plugin_dirs");
  }
  const std::string files = sdk::join(
      found, ", ", [](const std::filesystem::path& path) { return path.filename().string(); });
  throw sdk::Error(500, "plugins of " + std::to_string(found.size()) + " kinds are named '" + name +
                            "' (" + files + "): say which with `kind`");
}

std::filesystem::path library_of(const PluginInstanceConfig& instance,
                                 const std::vector<std::filesystem::path>& dirs) {
  if (!instance.library.empty()) return resolve_library(instance.library, dirs);
  return resolve_plugin(instance.plugin_name(), instance.kind, dirs);
}

}  // namespace eventsvc::host
