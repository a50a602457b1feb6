// The admin listener: plain HTTP on its own port (admin.listen, loopback by default) and its own
// thread, so that health, readiness and metrics answer even when every API thread is busy. Serves
// the pages it is given (the operator pages: /healthz, /readyz and /metrics without a key, and key
// management under /admin/keys with the admin token); keep-alive, at most kMaxConnections at once,
// 10 s for a request and its answer, bodies up to 64 KiB.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "config/host_config.hpp"
#include "logging/log_sink.hpp"
#include "server/http_message.hpp"

namespace eventsvc::host {

struct AdminRequest {
  std::string_view method;
  std::string_view path;             // without the query
  std::string_view authorization;    // the Authorization header; empty when none
  std::string_view accept_encoding;  // the Accept-Encoding header; empty when none
  std::string_view body;
};

// The answer to a request; called on the admin thread.
using PageAnswerer = std::function<Answer(const AdminRequest& request)>;

class AdminServer {
 public:
  AdminServer(const ListenAddress& address, PageAnswerer pages, LogSink& log);
  ~AdminServer();
  AdminServer(const AdminServer&) = delete;
  AdminServer& operator=(const AdminServer&) = delete;

  // Binds and starts its thread. Throws sdk::Error(500) naming admin.listen when it cannot bind.
  void start();
  // Closes the listener and every connection, and joins the thread.
  void stop();

  std::uint16_t port() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace eventsvc::host
