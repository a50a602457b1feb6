// The host's log, handed to each plugin. Lines are tagged with the plugin instance's name. Never
// log keys, tokens or payloads.
#pragma once

#include <optional>
#include <string_view>

namespace eventsvc::sdk {

enum class LogLevel { debug, info, warning, error };

// "debug", "info", "warning", "error": a level as log lines and configuration write it.
constexpr std::string_view log_level_name(LogLevel level) {
  switch (level) {
    case LogLevel::debug:
      return "debug";
    case LogLevel::info:
      return "info";
    case LogLevel::warning:
      return "warning";
    case LogLevel::error:
      return "error";
  }
  return "info";
}

constexpr std::optional<LogLevel> parse_log_level(std::string_view name) {
  for (const auto level : {LogLevel::debug, LogLevel::info, LogLevel::warning, LogLevel::error}) {
    if (log_level_name(level) == name) return level;
  }
  return std::nullopt;
}

class Logger {
 public:
  virtual ~Logger();
  virtual void log(LogLevel level, std::string_view message) = 0;

  void info(std::string_view message) { log(LogLevel::info, message); }
  void warning(std::string_view message) { log(LogLevel::warning, message); }
  void error(std::string_view message) { log(LogLevel::error, message); }
};

}  // namespace eventsvc::sdk
