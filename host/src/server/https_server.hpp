// The listeners: HTTPS (TLS 1.2 or newer) and, when configured, plain HTTP for running behind a
// TLS-terminating proxy. Both feed one RequestPipeline from one worker pool.
#pragma once

#include <Poco/Net/HTTPServer.h>
#include <Poco/ThreadPool.h>

#include <memory>
#include <optional>

#include "config/host_config.hpp"
#include "server/request_pipeline.hpp"

namespace eventsvc::host {

class HttpsServer {
 public:
  HttpsServer(const HostConfig& config, RequestPipeline& pipeline);
  ~HttpsServer();

  // Binds and starts accepting. Throws sdk::Error(500) when an address cannot be bound.
  void start();
  // Stops accepting, lets requests in progress finish (up to `grace_seconds`), then closes every
  // connection. Returns within grace_seconds + about 1 s whatever the clients do; false when a
  // worker thread was still blocked then (a client that never finished a TLS handshake): the
  // caller must then exit without destroying this object.
  bool stop(int grace_seconds);

  std::uint16_t https_port() const;
  std::optional<std::uint16_t> http_port() const;

 private:
  const HostConfig& config_;
  RequestPipeline& pipeline_;
  Poco::ThreadPool pool_;
  std::unique_ptr<Poco::Net::HTTPServer> https_;
  std::unique_ptr<Poco::Net::HTTPServer> http_;
};

}  // namespace eventsvc::host
