// Where the host and its plugins write their log: one JSON object per line on stderr.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/logger.hpp"

namespace eventsvc::host {

class LogSink {
 public:
  // Lines less severe than `level` are dropped (access log lines are not levelled).
  void set_level(sdk::LogLevel level) { level_ = level; }
  // Writes {"at": <now>, ...fields} as one line.
  void write(sdk::json::object fields);
  // One levelled line, with `fields` after the message.
  void log(sdk::LogLevel level, std::string_view module, std::string_view message,
           sdk::json::object fields = {});

  // A Logger for one module (a plugin instance, "host", "http").
  std::shared_ptr<sdk::Logger> logger_for(std::string module);

 private:
  std::mutex mutex_;
  std::atomic<sdk::LogLevel> level_{sdk::LogLevel::info};
};

}  // namespace eventsvc::host
