#include "server/admin_server.hpp"

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <optional>
#include <thread>

#include "server/beast_response.hpp"
#include "server/client_gone.hpp"
#include "server/http_response.hpp"
#include "server/listener.hpp"

namespace eventsvc::host {

// Written as http_connection.cpp explains (GCC 12 coroutine pitfalls): errors through
// redirect_error into named locals, no co_await inside expressions.

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

// Scrapers and load balancers: a handful at a time. More are closed at accept.
constexpr int kMaxConnections = 32;
constexpr auto kExchangeTime = std::chrono::seconds(10);
constexpr std::uint32_t kAdminHeadLimit = 8 * 1024;
// Key management bodies are a few hundred bytes.
constexpr std::uint64_t kAdminBodyLimit = 64 * 1024;

}  // namespace

struct AdminServer::State {
  State(const ListenAddress& listen_address, PageAnswerer page_answerer, LogSink& sink)
      : address(listen_address), pages(std::move(page_answerer)), log(sink) {}

  ListenAddress address;
  PageAnswerer pages;
  LogSink& log;
  asio::io_context io{1};
  std::optional<tcp::acceptor> acceptor;
  std::atomic<int> open{0};
  std::thread thread;

  asio::awaitable<void> accept() {
    while (acceptor->is_open()) {
      beast::error_code error;
      tcp::socket socket =
          co_await acceptor->async_accept(asio::redirect_error(asio::use_awaitable, error));
      if (error == asio::error::operation_aborted) co_return;
      if (error) continue;
      if (open.load() >= kMaxConnections) {
        socket.close(error);
        continue;
      }
      ++open;
      asio::co_spawn(io, serve(beast::tcp_stream(std::move(socket))), asio::detached);
    }
  }

  // Counted in `open` from accept on.
  asio::awaitable<void> serve(beast::tcp_stream stream) {
    beast::flat_buffer buffer;
    bool keep_alive = true;
    while (keep_alive) {
      stream.expires_after(kExchangeTime);
      http::request_parser<http::string_body> parser;
      parser.header_limit(kAdminHeadLimit);
      parser.body_limit(kAdminBodyLimit);
      beast::error_code error;
      co_await http::async_read(stream, buffer, parser,
                                asio::redirect_error(asio::use_awaitable, error));
      if (client_gone(error) || error == beast::error::timeout) break;
      Answer answer;
      bool head_only = false;
      if (error) {
        // Not HTTP, or a head or body over its limit: say so and close.
        answer_with(answer, sdk::Error(400, "malformed request: " + error.message()));
        keep_alive = false;
      } else {
        const auto& request = parser.get();
        const std::string_view target(request.target().data(), request.target().size());
        const std::string_view path = target.substr(0, target.find('?'));
        const std::string_view method(request.method_string().data(),
                                      request.method_string().size());
        const auto header = [&request](http::field name) {
          const auto found = request.find(name);
          return found == request.end()
                     ? std::string_view()
                     : std::string_view(found->value().data(), found->value().size());
        };
        answer = pages({method, path, header(http::field::authorization),
                        header(http::field::accept_encoding), request.body()});
        head_only = method == "HEAD";
        keep_alive = request.keep_alive();
      }
      BeastResponse response = beast_response(answer, keep_alive, head_only);
      co_await http::async_write(stream, response,
                                 asio::redirect_error(asio::use_awaitable, error));
      if (error) break;
    }
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    --open;
  }
};

AdminServer::AdminServer(const ListenAddress& address, PageAnswerer pages, LogSink& log)
    : state_(std::make_unique<State>(address, std::move(pages), log)) {}

AdminServer::~AdminServer() {
  stop();
}

void AdminServer::start() {
  State& state = *state_;
  try {
    state.acceptor.emplace(open_listener(state.io.get_executor(), state.address));
  } catch (const sdk::Error& error) {
    throw sdk::Error(500, "admin.listen: " + error.message());
  }
  asio::co_spawn(state.io, state.accept(), [&state](const std::exception_ptr& escaped) {
    if (escaped) state.log.log(sdk::LogLevel::error, "admin", "the admin listener stopped");
  });
  state.thread = std::thread([&state] { state.io.run(); });
}

void AdminServer::stop() {
  State& state = *state_;
  if (!state.thread.joinable()) return;
  // Connections and the accept loop end with the context: nothing they answer must outlive it.
  state.io.stop();
  state.thread.join();
}

std::uint16_t AdminServer::port() const {
  return state_->acceptor->local_endpoint().port();
}

}  // namespace eventsvc::host
