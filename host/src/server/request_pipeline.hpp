// The path every request takes (DESIGN §1, §7): route -> auth -> scope -> rate limit ->
// concurrency lease -> body -> endpoint. Each step that fails answers with the error body of
// API-SPEC 2.10; every answer carries the rate-limit headers of the bucket it was charged to.
#pragma once

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/TCPServer.h>

#include <atomic>
#include <optional>
#include <string>

#include "config/host_config.hpp"
#include "limits/concurrency_limiter.hpp"
#include "limits/rate_limiter.hpp"
#include "logging/log_sink.hpp"
#include "modules/module_registry.hpp"
#include "server/router.hpp"

namespace eventsvc::host {

class RequestPipeline {
 public:
  RequestPipeline(const HostConfig& config, ModuleRegistry& modules, LogSink& log, Router router);

  void handle(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response);

  // The servers whose queues tell when to stop keeping connections alive.
  void watch(const Poco::Net::TCPServer* server);
  int in_flight() const { return in_flight_.load(); }
  // From now on every request is answered 503 (shutting down), with Connection: close, without
  // reaching a module: the server is stopping, and modules may already be stopped.
  void refuse_new() { refusing_ = true; }

 private:
  struct Exchange;

  void run(Poco::Net::HTTPServerRequest& request, const std::string& path, Exchange& exchange);
  void charge_anonymous(const Poco::Net::HTTPServerRequest& request, Exchange& exchange);
  bool under_pressure() const;

  const HostConfig& config_;
  ModuleRegistry& modules_;
  LogSink& log_;
  Router router_;
  RateLimiter rate_limiter_;
  ConcurrencyLimiter leases_;
  std::atomic<int> in_flight_{0};
  std::atomic<bool> refusing_{false};
  std::atomic<const Poco::Net::TCPServer*> servers_[2] = {nullptr, nullptr};
};

}  // namespace eventsvc::host
