#include "retention/retention_sweeper.hpp"

#include <algorithm>
#include <chrono>
#include <exception>

#include "eventsvc/toolkit/time.hpp"
#include "retention/retention_sweep.hpp"

namespace eventsvc::host {

namespace {

constexpr std::chrono::milliseconds kFirstSweepAtMost = std::chrono::minutes(1);

}  // namespace

RetentionSweeper::RetentionSweeper(const HostConfig& config, const ModuleRegistry& modules,
                                   LogSink& log)
    : config_(config), modules_(modules), log_(log) {}

RetentionSweeper::~RetentionSweeper() {
  stop();
}

void RetentionSweeper::start() {
  if (!config_.retention.remove_expired || thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
}

void RetentionSweeper::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void RetentionSweeper::run() {
  const std::chrono::milliseconds every(config_.retention.sweep_every);
  auto wait = std::min(every, kFirstSweepAtMost);
  while (true) {
    {
      std::unique_lock lock(mutex_);
      if (wake_.wait_for(lock, wait, [this] { return stopping_; })) return;
    }
    wait = every;
    try {
      sweep_retention(config_, modules_, log_, toolkit::now_millis(), false, [this] {
        const std::lock_guard lock(mutex_);
        return stopping_;
      });
    } catch (const std::exception& error) {
      log_.log(sdk::LogLevel::warning, "host",
               std::string("retention sweep failed (tried again at the next): ") + error.what());
    }
  }
}

}  // namespace eventsvc::host
