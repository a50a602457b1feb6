// The server's background retention: a sweep (retention_sweep.hpp) a minute after the start (or
// sooner when sweep_every is shorter) and every retention.sweep_every after, while
// retention.remove_expired is on. A sweep that fails is logged and tried again at the next.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>

#include "config/host_config.hpp"
#include "logging/log_sink.hpp"
#include "modules/module_registry.hpp"

namespace eventsvc::host {

class RetentionSweeper {
 public:
  RetentionSweeper(const HostConfig& config, const ModuleRegistry& modules, LogSink& log);
  ~RetentionSweeper();
  RetentionSweeper(const RetentionSweeper&) = delete;
  RetentionSweeper& operator=(const RetentionSweeper&) = delete;

  // Nothing when remove_expired is off.
  void start();
  // Waits for a sweep under way.
  void stop();

 private:
  void run();

  const HostConfig& config_;
  const ModuleRegistry& modules_;
  LogSink& log_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace eventsvc::host
