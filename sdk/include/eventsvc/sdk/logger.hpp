// The host's log, handed to each plugin. Lines are tagged with the plugin instance's name. Never
// log keys, tokens or payloads.
#pragma once

#include <string_view>

namespace eventsvc::sdk {

enum class LogLevel { debug, info, warning, error };

class Logger {
 public:
  virtual ~Logger();
  virtual void log(LogLevel level, std::string_view message) = 0;

  void info(std::string_view message) { log(LogLevel::info, message); }
  void warning(std::string_view message) { log(LogLevel::warning, message); }
  void error(std::string_view message) { log(LogLevel::error, message); }
};

}  // namespace eventsvc::sdk
