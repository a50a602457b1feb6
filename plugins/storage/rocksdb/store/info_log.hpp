// RocksDB's informational log (its LOG file), written by the storage itself instead of RocksDB's
// file logger: that one asserts (aborting the process, in builds with assertions such as
// Debian's) on its next line after a write to it failed, so a full disk took the whole server
// down. Here a line that cannot be written is dropped; warnings and errors also go to the
// server's own log. The previous LOG is kept as LOG.old.
#pragma once

#include <rocksdb/env.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>

#include "eventsvc/sdk/logger.hpp"

namespace eventsvc::plugins::rocksdb_storage {

class InfoLog final : public rocksdb::Logger {
 public:
  // `server_log` may be null.
  InfoLog(const std::filesystem::path& directory, std::shared_ptr<sdk::Logger> server_log);
  ~InfoLog() override;
  InfoLog(const InfoLog&) = delete;
  InfoLog& operator=(const InfoLog&) = delete;

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list arguments) override;
  void Logv(const rocksdb::InfoLogLevel level, const char* format, va_list arguments) override;

 private:
  std::shared_ptr<sdk::Logger> server_log_;
  std::mutex mutex_;
  std::FILE* file_ = nullptr;
};

}  // namespace eventsvc::plugins::rocksdb_storage
