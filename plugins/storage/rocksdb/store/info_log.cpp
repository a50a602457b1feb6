#include "store/info_log.hpp"

#include <sys/time.h>

#include <cstdarg>
#include <ctime>
#include <string>
#include <system_error>

namespace eventsvc::plugins::rocksdb_storage {

InfoLog::InfoLog(const std::filesystem::path& directory, std::shared_ptr<sdk::Logger> server_log)
    : rocksdb::Logger(rocksdb::InfoLogLevel::INFO_LEVEL), server_log_(std::move(server_log)) {
  std::error_code ignored;
  std::filesystem::create_directories(directory, ignored);
  std::filesystem::rename(directory / "LOG", directory / "LOG.old", ignored);
  file_ = std::fopen((directory / "LOG").c_str(), "a");
}

InfoLog::~InfoLog() {
  if (file_ != nullptr) std::fclose(file_);
}

void InfoLog::Logv(const char* format, va_list arguments) {
  Logv(rocksdb::InfoLogLevel::INFO_LEVEL, format, arguments);
}

void InfoLog::Logv(const rocksdb::InfoLogLevel level, const char* format, va_list arguments) {
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

}  // namespace eventsvc::plugins::rocksdb_storage
