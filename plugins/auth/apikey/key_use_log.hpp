// When each key last authenticated a request on this server, to the minute: kept in memory and
// written to a file of the instance's own data directory (never into the key file, which the CLI
// and the servers of a cluster share and watch). It is written when the plugin stops, and by the
// first authentication a minute or more after the last write, outside the lock the others take
// (one writer at a time; the others do not wait for it). A server killed loses the uses since the
// last write: at most a minute's while requests come.
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
  // The file's text for the uses now; under mutex_.
  std::string text_locked() const;
  // Writes `text` unless another thread is writing (then it leaves changed_ for the next try).
  void write(const std::string& text);

  std::filesystem::path file_;
  std::mutex writing_;  // one writer at a time
  mutable std::mutex mutex_;
  std::unordered_map<std::string, sdk::Millis> last_;
  bool changed_ = false;
  sdk::Millis written_at_ = 0;
};

}  // namespace eventsvc::plugins::apikey
