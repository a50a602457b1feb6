// Building a plugin's context in a unit test the way the host does: config validated against the
// manifest's schema, a private data directory, a logger that keeps what it was told.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "eventsvc/sdk/plugin.hpp"

namespace eventsvc::testing {

class RecordingLogger final : public sdk::Logger {
 public:
  void log(sdk::LogLevel, std::string_view message) override {
    const std::lock_guard lock(mutex_);
    lines_.emplace_back(message);
  }
  std::vector<std::string> lines() const {
    const std::lock_guard lock(mutex_);
    return lines_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

inline sdk::PluginContext plugin_context(const sdk::Manifest& manifest,
                                         const sdk::json::object& config,
                                         const std::filesystem::path& data_dir,
                                         const std::string& instance = "test") {
  sdk::PluginContext context;
  context.instance = instance;
  context.data_dir = data_dir;
  context.config = sdk::validate_config(manifest.config, config, "plugins." + instance + ".config",
                                        {}, {"test.yaml", 1});
  context.logger = std::make_shared<RecordingLogger>();
  std::filesystem::create_directories(data_dir);
  return context;
}

}  // namespace eventsvc::testing
