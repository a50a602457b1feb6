// What the connections of one server share across its I/O threads: the caps (ConnectionTable),
// which connection is doing what (for shutdown and for making room), counters, and a log that a
// flood of bad clients cannot flood. Each connection runs on its own strand; everything here is
// safe to call from any thread.
#pragma once

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "config/host_config.hpp"
#include "logging/log_sink.hpp"
#include "server/connection_stats.hpp"
#include "server/connection_table.hpp"
#include "server/request_pipeline.hpp"

namespace eventsvc::host {

// What a connection is doing: handshakes, idle keep-alive connections and heads still arriving
// can be cut at once on shutdown; idle ones are the first to go at the connection cap.
enum class ConnectionStage { handshake, idle, head, busy };

// A connection's socket, reachable from other threads while the connection lives. Only touched
// on the connection's strand; the connection owns it and drops it when it ends.
struct ConnectionHandle {
  boost::asio::ip::tcp::socket* socket = nullptr;
  bool deadline_passed = false;
};

class ConnectionHost {
 public:
  ConnectionHost(const ServerConfig& server_config, RequestPipeline& request_pipeline,
                 LogSink& log_sink);

  const ServerConfig& config;
  RequestPipeline& pipeline;
  LogSink& log;
  ConnectionStats stats;
  // Where endpoints run (server.threads of them): a connection's strand carries its client's bytes
  // on a few I/O threads and hands each request to these threads to be answered, so that an
  // endpoint that waits (for a disk, a backing service) never holds up another connection.
  boost::asio::any_io_executor endpoints;
  std::atomic<bool> stopping{false};
  std::atomic<int> busy{0};     // requests under way: head read, not yet answered
  std::atomic<int> running{0};  // requests inside an endpoint

  // Handing a request to an endpoint thread and back wakes two sleeping threads: on an idle
  // server that was more than a third of a small query's time. So one request at a time may be
  // answered on the I/O thread that read it instead; only where there are several I/O threads,
  // so that while it runs the others still carry every connection's bytes.
  bool inline_answers = false;  // set before the threads start
  // Whether the caller now holds the one inline place; release_inline() gives it back.
  bool claim_inline() {
    bool free = false;
    return inline_answers && inline_busy_.compare_exchange_strong(free, true);
  }
  void release_inline() { inline_busy_.store(false); }

  // A new connection from `address`; when it is admitted and an idle one had to make room, that
  // one is closed here.
  ConnectionTable::Admission admit(const std::string& address);
  void attach(ConnectionTable::Id id, boost::asio::any_io_executor strand,
              std::weak_ptr<ConnectionHandle> handle);
  void detach(ConnectionTable::Id id);
  void set_stage(ConnectionTable::Id id, ConnectionStage stage);
  // Closes connections (on their strands): all, or only those without a request under way.
  // Returns how many connections it closed.
  std::size_t close_all(bool busy_too);

  // One warning line for a client-caused failure (`event`: what happened), at most one a second
  // per event, counting the ones left out.
  void report(const std::string& event, const std::string& address, const std::string& detail);

 private:
  struct Live {
    boost::asio::any_io_executor strand;
    std::weak_ptr<ConnectionHandle> handle;
    ConnectionStage stage = ConnectionStage::handshake;
  };
  struct Throttle {
    std::chrono::steady_clock::time_point last{};
    std::uint64_t suppressed = 0;
  };

  static void close_on_strand(const Live& live);

  std::atomic<bool> inline_busy_{false};
  std::mutex mutex_;
  ConnectionTable table_;
  std::unordered_map<ConnectionTable::Id, Live> live_;
  std::unordered_map<std::string, Throttle> throttles_;
};

}  // namespace eventsvc::host
