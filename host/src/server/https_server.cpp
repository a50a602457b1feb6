#include "server/https_server.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <exception>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "eventsvc/sdk/error.hpp"
#include "server/connection_host.hpp"
#include "server/http_connection.hpp"
#include "server/listener.hpp"
#include "server/tls_context.hpp"

namespace eventsvc::host {

namespace asio = boost::asio;
using asio::ip::tcp;
using namespace std::chrono_literals;

namespace {

// Descriptors kept for storage files, plugins and logs beside the connections.
constexpr rlim_t kReservedDescriptors = 1024;

// Connections need descriptors: raise the soft limit to the hard one, and say so when the
// configured caps cannot be met.
void raise_descriptor_limit(const ServerConfig& server, LogSink& log) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    getrlimit(RLIMIT_NOFILE, &limit);
  }
  const auto wanted = static_cast<rlim_t>(server.max_connections) + kReservedDescriptors;
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < wanted) {
    log.log(sdk::LogLevel::warning, "http",
            "server.max_connections is " + std::to_string(server.max_connections) +
                " but the process may open only " + std::to_string(limit.rlim_cur) +
                " files; raise its limit (LimitNOFILE=, ulimit -n) or lower the cap");
  }
}

// Connections are carried by one thread per core unless the configuration says otherwise: the
// I/O threads only move bytes and TLS records, and every idle one is woken for work another then
// takes (with 32 of them on two cores, export ran at two thirds of its speed with 2).
int io_thread_count(const ServerConfig& server) {
  if (server.io_threads > 0) return server.io_threads;
  return static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
}

}  // namespace

struct HttpsServer::State {
  State(const HostConfig& host_config, RequestPipeline& request_pipeline, LogSink& log_sink)
      : config(host_config),
        pipeline(request_pipeline),
        log(log_sink),
        host(host_config.server, request_pipeline, log_sink) {
    host.endpoints = endpoint_io.get_executor();
  }

  // Declared in the order that lets them be destroyed safely: the acceptors before the I/O
  // context, the connections (frames
  // held by the context) before the host they report to.
  const HostConfig& config;
  RequestPipeline& pipeline;
  LogSink& log;
  ConnectionHost host;
  std::optional<asio::ssl::context> tls;
  asio::io_context io;
  // Keeps `io` running while no connection is open and nothing is accepted (during stop).
  asio::executor_work_guard<asio::io_context::executor_type> keep_running{io.get_executor()};
  std::vector<std::thread> io_threads;
  // Where endpoints run (ConnectionHost::endpoints). After `io`: a request handed to it holds its
  // connection, whose socket belongs to `io`, so it goes first.
  asio::io_context endpoint_io;
  asio::executor_work_guard<asio::io_context::executor_type> keep_endpoints{
      endpoint_io.get_executor()};
  std::vector<std::thread> endpoint_threads;
  std::optional<tcp::acceptor> https;
  std::optional<tcp::acceptor> http;
  bool started = false;
  bool stopped = false;

  tcp::acceptor listen(const ListenAddress& address) {
    // Each acceptor on a strand of its own: its accept loop and its closing never overlap.
    return open_listener(asio::make_strand(io), address);
  }

  asio::awaitable<void> accept(tcp::acceptor& acceptor, bool with_tls) {
    asio::steady_timer pause(io);
    while (!host.stopping) {
      boost::system::error_code error;
      // Each connection on a strand of its own: its steps never run at once, on any I/O thread.
      tcp::socket socket = co_await acceptor.async_accept(
          asio::make_strand(io), asio::redirect_error(asio::use_awaitable, error));
      if (host.stopping || error == asio::error::operation_aborted) co_return;
      if (error) {
        // Out of descriptors, most likely: refusing is all that can be done; do not spin.
        host.report("cannot accept connections", "", error.message());
        pause.expires_after(50ms);
        co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, error));
        continue;
      }
      admit(std::move(socket), with_tls);
    }
  }

  // Completion of a detached coroutine: an exception that escaped it is a defect, logged.
  auto report_escape(std::string what) {
    return [this, what = std::move(what)](const std::exception_ptr& escaped) {
      if (!escaped) return;
      try {
        std::rethrow_exception(escaped);
      } catch (const std::exception& error) {
        log.log(sdk::LogLevel::error, "http",
                what + " ended by an unexpected error: " + error.what());
      } catch (...) {
        log.log(sdk::LogLevel::error, "http", what + " ended by an unexpected error");
      }
    };
  }

  void admit(tcp::socket socket, bool with_tls) {
    boost::system::error_code error;
    const tcp::endpoint peer = socket.remote_endpoint(error);
    if (error) return;  // gone already
    ++host.stats.accepted;
    std::string address = peer.address().to_string();
    const ConnectionTable::Admission admission = host.admit(address);
    if (admission.refusal != ConnectionTable::Refusal::none) {
      const bool per_address = admission.refusal == ConnectionTable::Refusal::address_cap;
      ++(per_address ? host.stats.refused_address_cap : host.stats.refused_total_cap);
      host.report(per_address ? "connection refused: too many from this address"
                              : "connection refused: the server has server.max_connections open",
                  address, "");
      socket.close(error);
      return;
    }
    socket.set_option(tcp::no_delay(true), error);
    const auto strand = socket.get_executor();
    if (with_tls) {
      asio::co_spawn(strand,
                     serve_connection(host, TlsStream(PlainStream(std::move(socket)), *tls),
                                      admission.id, std::move(address)),
                     report_escape("a connection"));
    } else {
      asio::co_spawn(
          strand,
          serve_connection(host, PlainStream(std::move(socket)), admission.id, std::move(address)),
          report_escape("a connection"));
    }
  }

  // Closes `acceptor` on its strand and waits until it is closed.
  static void close_acceptor(tcp::acceptor& acceptor) {
    std::promise<void> closed;
    asio::post(acceptor.get_executor(), [&] {
      boost::system::error_code ignored;
      acceptor.close(ignored);
      closed.set_value();
    });
    closed.get_future().wait();
  }
};

HttpsServer::HttpsServer(const HostConfig& config, RequestPipeline& pipeline, LogSink& log)
    : state_(std::make_unique<State>(config, pipeline, log)) {}

HttpsServer::~HttpsServer() {
  // The serve command stops the server itself and exits at once when an endpoint still runs; here,
  // on the way out of a failed start, no client has been served.
  stop(0);
}

void HttpsServer::start() {
  State& state = *state_;
  raise_descriptor_limit(state.config.server, state.log);
  state.tls.emplace(make_tls_context(state.config.server.tls));
  state.https.emplace(state.listen(state.config.server.listen));
  if (state.config.server.http_listen) {
    state.http.emplace(state.listen(*state.config.server.http_listen));
  }
  asio::co_spawn(state.https->get_executor(), state.accept(*state.https, true),
                 state.report_escape("accepting HTTPS connections"));
  if (state.http) {
    asio::co_spawn(state.http->get_executor(), state.accept(*state.http, false),
                   state.report_escape("accepting HTTP connections"));
  }
  for (int i = 0; i < state.config.server.threads; ++i) {
    state.endpoint_threads.emplace_back([&state] { state.endpoint_io.run(); });
  }
  state.host.inline_answers = io_thread_count(state.config.server) > 1;
  for (int i = 0; i < io_thread_count(state.config.server); ++i) {
    state.io_threads.emplace_back([&state] { state.io.run(); });
  }
  state.started = true;
}

bool HttpsServer::stop(int grace_seconds) {
  State& state = *state_;
  if (!state.started || state.stopped) return true;
  state.stopped = true;
  state.pipeline.refuse_new();
  // Stop accepting; connections waiting for a client (handshakes, idle keep-alive, heads still
  // arriving) are cut now: none has a request under way.
  state.host.stopping = true;
  state.close_acceptor(*state.https);
  if (state.http) state.close_acceptor(*state.http);
  const std::size_t waiting = state.host.close_all(false);
  state.log.log(sdk::LogLevel::info, "http",
                "stopping: closed " + std::to_string(waiting) +
                    " connections waiting for a client; " + std::to_string(state.host.busy.load()) +
                    " requests under way have up to " + std::to_string(grace_seconds) +
                    " s to finish");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(grace_seconds);
  while (state.host.busy.load() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  // Requests past the grace are cut off.
  state.host.close_all(true);
  const auto settled = std::chrono::steady_clock::now() + 1s;
  while (state.host.running.load() > 0 && std::chrono::steady_clock::now() < settled) {
    std::this_thread::sleep_for(10ms);
  }
  const bool threads_free = state.host.running.load() == 0;
  state.keep_running.reset();
  state.io.stop();
  state.keep_endpoints.reset();
  state.endpoint_io.stop();
  if (!threads_free) return false;
  for (auto& thread : state.io_threads)
    thread.join();
  for (auto& thread : state.endpoint_threads)
    thread.join();
  return true;
}

std::uint16_t HttpsServer::https_port() const {
  return state_->https->local_endpoint().port();
}

std::optional<std::uint16_t> HttpsServer::http_port() const {
  if (!state_->http) return std::nullopt;
  return state_->http->local_endpoint().port();
}

const ConnectionStats& HttpsServer::stats() const {
  return state_->host.stats;
}

}  // namespace eventsvc::host
