// Where the host and its plugins write their log: one JSON object per line on stderr.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/logger.hpp"

namespace eventsvc::host {

class LogSink {
 public:
  // Writes {"at": <now>, ...fields} as one line.
  void write(sdk::json::object fields);
  void log(sdk::LogLevel level, std::string_view module, std::string_view message);

  // A Logger for one module (a plugin instance, "host", "http").
  std::shared_ptr<sdk::Logger> logger_for(std::string module);

 private:
  std::mutex mutex_;
};

std::string_view level_name(sdk::LogLevel level);

}  // namespace eventsvc::host
