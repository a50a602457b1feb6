#include "redis_link.hpp"

#include <Poco/Exception.h>
#include <Poco/Redis/Exception.h>
#include <Poco/Timespan.h>
#include <openssl/sha.h>

#include <utility>

#include "eventsvc/toolkit/hex.hpp"

namespace eventsvc::plugins::limits {

namespace {

using Poco::Redis::Array;
using Poco::Redis::BulkString;

std::int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool starts_with(const std::string& text, std::string_view prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// Redis's error replies start with a code in capitals ("ERR ...", "NOSCRIPT ..."); the client
// library reports a lost connection with the same exception type ("Lost connection to ...").
bool is_error_reply(const std::string& message) {
  const auto space = message.find(' ');
  if (space == 0 || space == std::string::npos) return false;
  for (std::size_t i = 0; i < space; ++i) {
    if (message[i] < 'A' || message[i] > 'Z') return false;
  }
  return true;
}

// Error replies that say this server cannot serve us now, though it answered: a replica (after a
// failover), one still loading its data or out of memory, one that cannot save, a primary cut off
// from its sentinels, a wrong password, no connection left.
bool means_unavailable(const std::string& reply) {
  for (const std::string_view prefix :
       {"READONLY", "LOADING", "MASTERDOWN", "BUSY", "OOM", "MISCONF", "NOAUTH", "WRONGPASS",
        "ERR max number of clients"}) {
    if (starts_with(reply, prefix)) return true;
  }
  return false;
}

std::string describe(const RedisLinkOptions& options) {
  if (options.sentinels.empty()) return "Redis at " + options.address;
  std::string text = "Redis primary '" + options.master_name + "' of sentinels ";
  for (std::size_t i = 0; i < options.sentinels.size(); ++i)
    text += (i == 0 ? "" : ",") + options.sentinels[i];
  return text;
}

}  // namespace

LuaScript::LuaScript(std::string_view text) : source(text) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(source.data()), source.size(), digest);
  sha1 = toolkit::hex_of(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

RedisLink::RedisLink(RedisLinkOptions options, std::shared_ptr<sdk::Logger> logger)
    : options_(std::move(options)),
      logger_(std::move(logger)),
      description_(limits::describe(options_)) {}

RedisLink::~RedisLink() = default;

Array RedisLink::eval(const LuaScript& script, const std::vector<std::string>& keys,
                      const std::vector<std::string>& args) {
  const auto command = [&](std::string_view verb, const std::string& body) {
    Array words;
    words << std::string(verb) << body << std::to_string(keys.size());
    for (const auto& key : keys)
      words << key;
    for (const auto& arg : args)
      words << arg;
    return words;
  };
  try {
    return call<Array>(command("EVALSHA", script.sha1));
  } catch (const RedisErrorReply& error) {
    // Not loaded yet on this server (first use, a restart, a promoted replica): send it whole,
    // which also keeps it there for the next EVALSHA.
    if (!starts_with(error.what(), "NOSCRIPT")) throw;
    return call<Array>(command("EVAL", script.source));
  }
}

Poco::Int64 RedisLink::run(const Array& command) {
  return call<Poco::Int64>(command);
}

template <class Reply>
Reply RedisLink::call(const Array& command) {
  if (down_.load() && steady_ms() < retry_at_ms_.load()) {
    throw RedisUnavailable(description_ + " is unreachable");
  }
  std::unique_ptr<Client> client;
  try {
    client = borrow();
    Reply reply = client->execute<Reply>(command);
    give_back(std::move(client));
    succeeded();
    return reply;
  } catch (const Poco::Redis::RedisException& error) {
    // An error reply leaves the connection sound; a lost connection does not.
    if (!is_error_reply(error.message()) || means_unavailable(error.message())) {
      fail(error.message());
    }
    give_back(std::move(client));
    throw RedisErrorReply(error.message());
  } catch (const Poco::BadCastException&) {
    // A reply of another type than the command has: a defect, not an outage.
    give_back(std::move(client));
    throw RedisErrorReply(description_ + " answered a reply of an unexpected type");
  } catch (const Poco::Exception& error) {
    fail(error.displayText());
  } catch (const std::exception& error) {
    fail(error.what());
  }
}

std::unique_ptr<RedisLink::Client> RedisLink::borrow() {
  {
    const std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      auto client = std::move(idle_.back());
      idle_.pop_back();
      return client;
    }
  }
  return connect();
}

void RedisLink::give_back(std::unique_ptr<Client> client) {
  if (!client) return;
  const std::lock_guard lock(mutex_);
  if (idle_.size() < options_.idle_connections) idle_.push_back(std::move(client));
}

std::unique_ptr<RedisLink::Client> RedisLink::connect() {
  const Poco::Timespan timeout(std::chrono::microseconds(options_.timeout).count());
  auto client = std::make_unique<Client>();
  client->connect(primary_address(), timeout);
  client->setReceiveTimeout(timeout);
  if (!options_.password.empty()) {
    Array auth;
    auth << "AUTH" << options_.password;
    client->execute<std::string>(auth);
  }
  if (options_.database != 0) {
    Array select;
    select << "SELECT" << std::to_string(options_.database);
    client->execute<std::string>(select);
  }
  return client;
}

std::string RedisLink::primary_address() {
  if (options_.sentinels.empty()) return options_.address;
  const Poco::Timespan timeout(std::chrono::microseconds(options_.timeout).count());
  std::string problems;
  for (const auto& sentinel : options_.sentinels) {
    try {
      Client client;
      client.connect(sentinel, timeout);
      client.setReceiveTimeout(timeout);
      Array ask;
      ask << "SENTINEL"
          << "get-master-addr-by-name" << options_.master_name;
      const Array answer = client.execute<Array>(ask);
      if (!answer.isNull() && answer.size() == 2) {
        return answer.get<BulkString>(0).value() + ":" + answer.get<BulkString>(1).value();
      }
      problems += " " + sentinel + ": does not know '" + options_.master_name + "';";
    } catch (const Poco::Exception& error) {
      problems += " " + sentinel + ": " + error.displayText() + ";";
    }
  }
  throw RedisUnavailable("no sentinel named a primary:" + problems);
}

void RedisLink::fail(const std::string& why) {
  failures_.fetch_add(1);
  retry_at_ms_.store(steady_ms() + options_.retry_interval.count());
  {
    // After a restart or a failover every idle connection is as dead as this one.
    const std::lock_guard lock(mutex_);
    idle_.clear();
  }
  if (!down_.exchange(true)) logger_->warning(description_ + " is unreachable: " + why);
  throw RedisUnavailable(description_ + " is unreachable: " + why);
}

void RedisLink::succeeded() {
  if (down_.load() && down_.exchange(false)) logger_->info(description_ + " is reachable again");
}

}  // namespace eventsvc::plugins::limits
