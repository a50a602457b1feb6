#include "logging/log_sink.hpp"

#include <cstdio>

#include "eventsvc/sdk/time.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

namespace {

class ModuleLogger final : public sdk::Logger {
 public:
  ModuleLogger(LogSink& sink, std::string module) : sink_(sink), module_(std::move(module)) {}
  void log(sdk::LogLevel level, std::string_view message) override {
    sink_.log(level, module_, message);
  }

 private:
  LogSink& sink_;
  std::string module_;
};

}  // namespace

void LogSink::write(sdk::json::object fields) {
  sdk::json::object line;
  line.reserve(fields.size() + 1);
  line["at"] = toolkit::format_rfc3339(toolkit::now_millis());
  for (auto& field : fields)
    line[field.key()] = std::move(field.value());
  std::string text = sdk::to_json(line);
  text.push_back('\n');
  const std::lock_guard lock(mutex_);
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

void LogSink::log(sdk::LogLevel level, std::string_view module, std::string_view message,
                  sdk::json::object fields) {
  if (level < level_) return;
  sdk::json::object line{
      {"level", sdk::log_level_name(level)}, {"module", module}, {"message", message}};
  for (auto& field : fields)
    line[field.key()] = std::move(field.value());
  write(std::move(line));
}

std::shared_ptr<sdk::Logger> LogSink::logger_for(std::string module) {
  return std::make_shared<ModuleLogger>(*this, std::move(module));
}

}  // namespace eventsvc::host
