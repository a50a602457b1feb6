#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "cli/commands.hpp"
#include "cli/config_arguments.hpp"
#include "eventsvc/sdk/error.hpp"
#include "modules/plugin_library.hpp"

namespace eventsvc::host {

namespace {

struct Found {
  std::filesystem::path path;
  std::shared_ptr<PluginLibrary> library;
  std::string error;
};

std::vector<Found> discover(const std::vector<std::filesystem::path>& dirs) {
  std::vector<Found> found;
  std::set<std::string> seen;
  for (const auto& dir : dirs) {
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      const auto name = entry.path().filename().string();
      if (name.starts_with("lib") && name.ends_with(".so")) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      if (!seen.insert(file.filename().string()).second) continue;  // shadowed by an earlier dir
      Found item{file, nullptr, ""};
      try {
        item.library = PluginLibrary::open(file);
      } catch (const sdk::Error& error) {
        item.error = error.message();
      }
      found.push_back(std::move(item));
    }
  }
  return found;
}

std::string library_name(const std::filesystem::path& path) {
  std::string name = path.filename().string();
  return name.substr(3, name.size() - 6);  // lib<name>.so
}

}  // namespace

int run_plugins(const std::vector<std::string>& args) {
  const Arguments arguments(args, kCommonOptions, {"json"});
  const HostConfig config = config_from(arguments);
  const auto dirs = plugin_search_dirs(config.plugin_dirs);
  const auto found = discover(dirs);
  // The library each configured instance loads, looked up once; empty when it names none there is.
  std::vector<std::filesystem::path> loads;
  for (const auto& instance : config.plugins) {
    try {
      loads.push_back(library_of(instance, dirs));
    } catch (const sdk::Error&) {
      loads.emplace_back();
    }
  }

  auto instances_of = [&](const Found& item) {
    sdk::json::array instances;
    for (std::size_t i = 0; i < config.plugins.size(); ++i) {
      const auto& instance = config.plugins[i];
      if (loads[i] == item.path) {
        instances.emplace_back(
            sdk::json::object{{"instance", instance.instance}, {"enabled", instance.enabled}});
      }
    }
    return instances;
  };

  if (arguments.flag("json")) {
    sdk::json::array out;
    for (const auto& item : found) {
      sdk::json::object entry{{"library", library_name(item.path)}, {"path", item.path.string()}};
      if (item.library) {
        entry["manifest"] = sdk::manifest_to_json(item.library->manifest());
      } else {
        entry["error"] = item.error;
      }
      entry["instances"] = instances_of(item);
      out.emplace_back(std::move(entry));
    }
    std::printf("%s\n", sdk::to_json(out).c_str());
    return 0;
  }
  for (const auto& item : found) {
    std::printf("%s\n  path: %s\n", library_name(item.path).c_str(), item.path.c_str());
    if (!item.library) {
      std::printf("  error: %s\n\n", item.error.c_str());
      continue;
    }
    const auto& manifest = item.library->manifest();
    std::printf("  %s plugin '%s' %s: %s\n", std::string(sdk::kind_name(manifest.kind)).c_str(),
                manifest.name.c_str(), manifest.version.c_str(), manifest.description.c_str());
    for (const auto& field : manifest.config) {
      std::printf("    config %s (%s%s): %s\n", field.key.c_str(),
                  std::string(sdk::type_name(field.type)).c_str(),
                  field.default_value.is_null()
                      ? ""
                      : (", default " + sdk::to_json(field.default_value)).c_str(),
                  field.description.c_str());
    }
    for (const auto& instance : instances_of(item)) {
      const auto& object = instance.as_object();
      std::printf("  configured as plugins.%s (%s)\n", object.at("instance").as_string().c_str(),
                  object.at("enabled").as_bool() ? "enabled" : "disabled");
    }
    std::printf("\n");
  }
  return 0;
}

}  // namespace eventsvc::host
