// Connections to one Redis primary, found directly or through Sentinel, shared by every thread.
// A failure (refused, timed out, a replica answering READONLY) drops the connection and marks Redis
// down for `retry_interval`: until then calls fail at once instead of each waiting for a timeout,
// and the next call after it reconnects (asking the sentinels again for the current primary).
#pragma once

#include <Poco/Redis/Array.h>
#include <Poco/Redis/Client.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/logger.hpp"

namespace eventsvc::plugins::limits {

// Redis could not answer now.
class RedisUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Redis answered with an error (a script's error, a key of another type): a defect, not an outage.
class RedisErrorReply : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A Lua script and its SHA-1, the name Redis keeps it under.
struct LuaScript {
  explicit LuaScript(std::string_view text);
  std::string source;
  std::string sha1;
};

struct RedisLinkOptions {
  std::string address;                 // host:port of the primary; unused with sentinels
  std::vector<std::string> sentinels;  // host:port of each; they name the primary
  std::string master_name;             // the primary's name at the sentinels
  std::string password;                // AUTH when not empty
  int database = 0;
  std::chrono::milliseconds timeout{200};  // connect and each reply
  std::chrono::milliseconds retry_interval{1000};
  std::size_t idle_connections = 16;  // kept open between calls; more are opened when needed
};

class RedisLink {
 public:
  // Says in `logger` when Redis becomes unreachable and when it is back.
  RedisLink(RedisLinkOptions options, std::shared_ptr<sdk::Logger> logger);
  ~RedisLink();
  RedisLink(const RedisLink&) = delete;
  RedisLink& operator=(const RedisLink&) = delete;

  // Runs `script` (EVALSHA; the source once when Redis does not have it yet). Throws
  // RedisUnavailable or RedisErrorReply.
  Poco::Redis::Array eval(const LuaScript& script, const std::vector<std::string>& keys,
                          const std::vector<std::string>& args);
  // One command whose reply is an integer (ZREM). Throws RedisUnavailable or RedisErrorReply.
  Poco::Int64 run(const Poco::Redis::Array& command);

  bool up() const { return !down_.load(); }
  std::uint64_t failures() const { return failures_.load(); }
  const std::string& describe() const { return description_; }  // for messages

 private:
  using Client = Poco::Redis::Client;
  std::unique_ptr<Client> borrow();
  void give_back(std::unique_ptr<Client> client);
  std::unique_ptr<Client> connect();
  std::string primary_address();
  [[noreturn]] void fail(const std::string& why);
  void succeeded();
  template <class Reply>
  Reply call(const Poco::Redis::Array& command);

  const RedisLinkOptions options_;
  const std::shared_ptr<sdk::Logger> logger_;
  const std::string description_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Client>> idle_;
  std::atomic<bool> down_{false};
  std::atomic<std::int64_t> retry_at_ms_{0};  // steady-clock ms; calls before it fail at once
  std::atomic<std::uint64_t> failures_{0};
};

}  // namespace eventsvc::plugins::limits
