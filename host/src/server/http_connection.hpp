// One client connection, from accept to close, as a coroutine on the server's I/O thread. Every
// stage that waits for the client has a deadline for the whole stage, not per read: the TLS
// handshake, the wait for a request to start (keep-alive), the request head, the body (longer
// for a longer declared body) and the answer. Requests run on the worker pool; a connection
// waiting for its client holds no worker, so slow or idle clients cost a socket, not a thread.
#pragma once

#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>

#include "config/host_config.hpp"
#include "logging/log_sink.hpp"
#include "server/connection_stats.hpp"
#include "server/connection_table.hpp"
#include "server/request_pipeline.hpp"

namespace eventsvc::host {

using PlainStream = boost::beast::tcp_stream;
using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

// What a connection is doing, for shutdown (which connections may be cut at once) and the caps
// (which may make room).
enum class ConnectionStage { handshake, idle, head, busy };

// What the connections of one server share. Used from the I/O thread only, except where noted.
struct ConnectionHost {
  ConnectionHost(const ServerConfig& server_config, RequestPipeline& request_pipeline,
                 LogSink& log_sink, boost::asio::thread_pool& worker_pool)
      : config(server_config),
        pipeline(request_pipeline),
        log(log_sink),
        workers(worker_pool),
        table(static_cast<std::size_t>(server_config.max_connections),
              static_cast<std::size_t>(server_config.max_connections_per_address)) {}

  struct Live {
    std::function<void()> close;
    ConnectionStage stage = ConnectionStage::handshake;
  };

  const ServerConfig& config;
  RequestPipeline& pipeline;
  LogSink& log;
  boost::asio::thread_pool& workers;
  ConnectionTable table;
  std::unordered_map<ConnectionTable::Id, Live> live;
  bool stopping = false;
  ConnectionStats stats;             // any thread
  std::atomic<int> busy{0};          // any thread: connections with a request under way
  std::atomic<int> worker_tasks{0};  // any thread: requests queued for or running on a worker

  // Closes the connection now (its coroutine then ends). Unknown ids are ignored.
  void close(ConnectionTable::Id id);
  void set_stage(ConnectionTable::Id id, ConnectionStage stage);
  // One warning line for a client-caused failure (`event`: what happened), at most one a second
  // per event, counting the ones left out, so a flood of bad clients cannot flood the log.
  void report(const std::string& event, const std::string& address, const std::string& detail);

 private:
  struct Throttle {
    std::chrono::steady_clock::time_point last{};
    std::uint64_t suppressed = 0;
  };
  std::unordered_map<std::string, Throttle> throttles_;
};

// Serves `stream` (accepted, admitted to the table as `id`) until it closes.
template <class Stream>
boost::asio::awaitable<void> serve_connection(ConnectionHost& host, Stream stream,
                                              ConnectionTable::Id id, std::string address);

extern template boost::asio::awaitable<void> serve_connection<PlainStream>(ConnectionHost&,
                                                                           PlainStream,
                                                                           ConnectionTable::Id,
                                                                           std::string);
extern template boost::asio::awaitable<void> serve_connection<TlsStream>(ConnectionHost&, TlsStream,
                                                                         ConnectionTable::Id,
                                                                         std::string);

}  // namespace eventsvc::host
