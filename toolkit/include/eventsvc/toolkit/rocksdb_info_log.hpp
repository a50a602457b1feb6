// RocksDB's informational log (its LOG file), written by the plugin itself instead of RocksDB's
// file logger: that one asserts (aborting the process, in builds with assertions such as
// Debian's) on its next line after a write to it failed, so a full disk took the whole server
// down. Here a line that cannot be written is dropped; warnings and errors also go to the
// server's own log. The previous LOG is kept as LOG.old.
//
// Header-only, so that the toolkit library itself does not depend on RocksDB: a plugin that opens
// a RocksDB database sets `options.info_log = std::make_shared<toolkit::RocksdbInfoLog>(...)`.
#pragma once

#include <rocksdb/env.h>
#include <sys/time.h>

#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>

#include "eventsvc/sdk/logger.hpp"

namespace eventsvc::toolkit {

class RocksdbInfoLog final : public rocksdb::Logger {
 public:
  // `server_log` may be null.
  RocksdbInfoLog(const std::filesystem::path& directory, std::shared_ptr<sdk::Logger> server_log)
      : rocksdb::Logger(rocksdb::InfoLogLevel::INFO_LEVEL), server_log_(std::move(server_log)) {
    std::error_code ignored;
    std::filesystem::create_directories(directory, ignored);
    std::filesystem::rename(directory / "LOG", directory / "LOG.old", ignored);
    file_ = std::fopen((directory / "LOG").c_str(), "a");
  }
  ~RocksdbInfoLog() override {
    if (file_ != nullptr) std::fclose(file_);
  }
  RocksdbInfoLog(const RocksdbInfoLog&) = delete;
  RocksdbInfoLog& operator=(const RocksdbInfoLog&) = delete;

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list arguments) override {
    Logv(rocksdb::InfoLogLevel::INFO_LEVEL, format, arguments);
  }

  void Logv(const rocksdb::InfoLogLevel level, const char* format, va_list arguments) override {
    if (level < GetInfoLogLevel()) return;
    char text[4096];
    std::vsnprintf(text, sizeof text, format, arguments);
    if (level >= rocksdb::InfoLogLevel::WARN_LEVEL && level < rocksdb::InfoLogLevel::HEADER_LEVEL &&
        server_log_) {
      const std::string line = std::string("rocksdb: ") + text;
      if (level == rocksdb::InfoLogLevel::WARN_LEVEL) {
        server_log_->warning(line);
      } else {
        server_log_->error(line);
      }
    }
    if (file_ == nullptr) return;
    timeval now{};
    gettimeofday(&now, nullptr);
    std::tm parts{};
    localtime_r(&now.tv_sec, &parts);
    char stamp[64];
    std::strftime(stamp, sizeof stamp, "%Y/%m/%d-%H:%M:%S", &parts);
    const std::lock_guard lock(mutex_);
    // Failures (a full disk) lose the line, nothing more.
    std::fprintf(file_, "%s.%06ld %s\n", stamp, static_cast<long>(now.tv_usec), text);
    std::fflush(file_);
  }

 private:
  std::shared_ptr<sdk::Logger> server_log_;
  std::mutex mutex_;
  std::FILE* file_ = nullptr;
};

}  // namespace eventsvc::toolkit
