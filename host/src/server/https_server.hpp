// The listeners: HTTPS (TLS 1.2 or newer) and, when configured, plain HTTP for running behind a
// TLS-terminating proxy. `server.threads` threads carry every connection (handshakes, heads,
// bodies, answers) without ever blocking on a client, and run the endpoints. See
// http_connection.hpp for the deadlines and connection_table.hpp for the caps.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "config/host_config.hpp"
#include "logging/log_sink.hpp"
#include "server/connection_stats.hpp"
#include "server/request_pipeline.hpp"

namespace eventsvc::host {

class HttpsServer {
 public:
  HttpsServer(const HostConfig& config, RequestPipeline& pipeline, LogSink& log);
  ~HttpsServer();
  HttpsServer(const HttpsServer&) = delete;
  HttpsServer& operator=(const HttpsServer&) = delete;

  // Binds and starts accepting. Throws sdk::Error(500) when an address cannot be bound or the
  // certificate cannot be used.
  void start();
  // Stops accepting, closes connections that have no request under way, lets requests under way
  // finish (up to `grace_seconds`), then closes every connection. Returns within grace_seconds +
  // about 1 s whatever the clients do; false when a request was still running in an endpoint then:
  // the caller must then exit without destroying this object.
  bool stop(int grace_seconds);

  std::uint16_t https_port() const;
  std::optional<std::uint16_t> http_port() const;
  const ConnectionStats& stats() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace eventsvc::host
