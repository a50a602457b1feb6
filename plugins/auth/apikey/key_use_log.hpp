// When each key last authenticated a request on this server, to the minute: kept in memory and
// written to a file of the instance's own data directory (never into the key file, which the CLI
// and the servers of a cluster share and watch) at most once a minute and when the plugin stops,
// so that no request waits on a disk write for it. A server killed loses at most the last
// minute's uses.
#pragma once

#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "eventsvc/sdk/time.hpp"

namespace eventsvc::plugins::apikey {

class KeyUseLog {
 public:
  // Reads `file` when it exists; an unreadable one starts the log empty (it is only a record).
  explicit KeyUseLog(std::filesystem::path file);
  ~KeyUseLog();
  KeyUseLog(const KeyUseLog&) = delete;
  KeyUseLog& operator=(const KeyUseLog&) = delete;

  void used(const std::string& id, sdk::Millis now);
  std::optional<sdk::Millis> last_used(const std::string& id) const;

  static constexpr sdk::Millis kPrecision = 60000;

 private:
  void write_locked();

  std::filesystem::path file_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, sdk::Millis> last_;
  bool changed_ = false;
  sdk::Millis written_at_ = 0;
};

}  // namespace eventsvc::plugins::apikey
