// The connection's coroutines, compiled once per stream type (http_connection_plain.cpp,
// http_connection_tls.cpp): GCC took 2 minutes over both in one translation unit; apart they take
// 1.5 minutes and 45 seconds, side by side on two cores.
#pragma once

#include <poll.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>

#include "server/beast_response.hpp"
#include "server/client_gone.hpp"
#include "server/http_connection.hpp"
#include "server/http_response.hpp"

namespace eventsvc::host {

// How the coroutines below are written, and why: GCC 12 miscompiles some coroutine forms that
// are fine C++ (seen here as crashes and as an accept loop that silently ended). So: no
// structured bindings of a co_await result (errors come back through redirect_error into a
// named error_code), no co_await inside a condition or another expression (await into a named
// local first), and no temporaries with destructors in a co_await's arguments (pass named
// locals by reference).

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

// Named, not anonymous: both stream types' translation units include this, and a coroutine frame
// of serve_connection may not hold a type of internal linkage.
namespace connection_detail {

using namespace std::chrono_literals;

// Completion token: errors are returned in `error`, not thrown.
inline auto redirect(beast::error_code& error) {
  return asio::redirect_error(asio::use_awaitable, error);
}

// Request line and headers together.
constexpr std::uint32_t kHeadLimit = 64 * 1024;
// An answer given before the body was read drops a body up to this size and keeps the
// connection; a larger one closes it.
constexpr std::uint64_t kSmallBody = std::uint64_t{64} * 1024;
// The most a body read asks for at once.
constexpr std::uint64_t kReadAhead = std::uint64_t{1} << 20;
// Bodies and answers move at least this fast, on top of the configured base time.
constexpr std::uint64_t kMinBytesPerSecond = std::uint64_t{64} * 1024;
// Before a connection with an unread body closes, what the client is still sending is read and
// dropped, so that it reads the answer instead of a reset.
constexpr std::size_t kLingerBytes = std::size_t{8} << 20;
constexpr auto kLingerTime = 2s;
constexpr auto kLingerPause = 200ms;
constexpr auto kCloseNotifyTime = 500ms;
// The longest an answer is held at the storage engine's asking (sdk::AcceptResult::hold).
constexpr auto kLongestHold = 5s;
// A live stream waiting for more looks at least this often whether the server is stopping.
constexpr auto kStopCheck = std::chrono::milliseconds(200);

struct StreamWaiter {
  explicit StreamWaiter(const asio::any_io_executor& executor) : timer(executor) {}
  asio::steady_timer timer;
  std::atomic<bool> woken{false};
};

inline std::chrono::seconds transfer_time(int base_seconds, std::uint64_t bytes) {
  return std::chrono::seconds(base_seconds) +
         std::chrono::seconds(static_cast<std::int64_t>(bytes / kMinBytesPerSecond));
}

inline std::string seconds_text(int seconds) {
  return std::to_string(seconds) + (seconds == 1 ? " second" : " seconds");
}

// Counts itself in `count` while it lives, however the scope ends (shutdown waits on these).
class Counted {
 public:
  explicit Counted(std::atomic<int>& count) : count_(count) { ++count_; }
  ~Counted() { --count_; }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;

 private:
  std::atomic<int>& count_;
};

template <class Stream>
class Connection {
 public:
  Connection(ConnectionHost& host, Stream& stream, ConnectionTable::Id id,
             const std::string& address)
      : host_(host),
        stream_(stream),
        id_(id),
        address_(address),
        timer_(stream.get_executor()),
        handle_(std::make_shared<ConnectionHandle>(ConnectionHandle{&lowest().socket(), false})) {
    host_.attach(id_, stream.get_executor(), handle_);
  }
  ~Connection() { host_.detach(id_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  asio::awaitable<void> run() {
    try {
      const bool secured = co_await handshake();
      bool open = secured;
      while (open) {
        open = co_await serve_one();
      }
    } catch (const std::exception& error) {
      host_.log.log(sdk::LogLevel::error, "http",
                    std::string("connection ended by an unexpected error: ") + error.what());
    }
  }

 private:
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

  beast::tcp_stream& lowest() { return beast::get_lowest_layer(stream_); }

  // The client closed its side or the connection failed: a poll that does not wait.
  bool peer_closed() {
    pollfd watched{lowest().socket().native_handle(), POLLRDHUP, 0};
    return ::poll(&watched, 1, 0) > 0 &&
           (watched.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
  }

  // A deadline for a stage after which the client is still answered (408). The stream's own
  // expiry closes the socket, so here a timer cancels the pending read instead. Large writes are
  // bounded this way too: the stream's own expiry arms and cancels a timer per operation, and a
  // write of megabytes is an operation per TLS record (16 KiB).
  void arm(std::chrono::steady_clock::duration allowed) {
    lowest().expires_never();
    handle_->deadline_passed = false;
    timer_.expires_after(allowed);
    timer_.async_wait(
        [weak = std::weak_ptr<ConnectionHandle>(handle_)](const beast::error_code& error) {
          const auto handle = weak.lock();
          if (error || !handle) return;
          handle->deadline_passed = true;
          beast::error_code ignored;
          handle->socket->cancel(ignored);
        });
  }

  // Ends the deadline; true when it had passed.
  bool disarm() {
    timer_.cancel();
    return handle_->deadline_passed;
  }

  const ServerConfig& config() const { return host_.config; }

  // An answer the storage engine asked to hold (ingest pacing, sdk::AcceptResult::hold): what it
  // answers is done and durable, and a client waiting for it sends its next write that much
  // later. The socket waits, not a thread; a stopping server sends it at once.
  asio::awaitable<void> hold(std::chrono::milliseconds held) {
    if (held <= 0ms || host_.stopping) co_return;
    held = std::min<std::chrono::milliseconds>(held, kLongestHold);
    ++host_.stats.answers_held;
    host_.stats.held_ms += static_cast<std::uint64_t>(held.count());
    timer_.expires_after(held);
    beast::error_code ignored;
    co_await timer_.async_wait(redirect(ignored));
  }

  // The coroutine continues on an endpoint thread (ConnectionHost::endpoints). Nothing there may
  // touch the stream or the timers: those belong to the connection's strand, which the coroutine
  // returns to with to_strand() before any I/O.
  asio::awaitable<void> to_endpoint_thread() {
    auto token = asio::bind_executor(host_.endpoints, asio::use_awaitable);
    co_await asio::post(token);
  }

  asio::awaitable<void> to_strand() {
    auto token = asio::bind_executor(stream_.get_executor(), asio::use_awaitable);
    co_await asio::post(token);
  }

  // Runs an endpoint's `work` (which must not throw) and returns to the connection's strand: on
  // an endpoint thread, or right here when the host's inline place is free
  // (ConnectionHost::claim_inline).
  template <typename Work>
  asio::awaitable<void> on_endpoint(Work work) {
    if (host_.claim_inline()) {
      struct Release {
        ConnectionHost& host;
        ~Release() { host.release_inline(); }
      } release{host_};
      ++host_.stats.answered_inline;
      work();
      co_return;
    }
    co_await to_endpoint_thread();
    work();
    co_await to_strand();
  }

  asio::awaitable<bool> handshake() {
    if constexpr (kTls) {
      lowest().expires_after(std::chrono::seconds(config().handshake_timeout_s));
      beast::error_code error;
      co_await stream_.async_handshake(asio::ssl::stream_base::server, redirect(error));
      if (error) {
        ++host_.stats.handshake_failures;
        if (error == beast::error::timeout) {
          host_.report("TLS handshake not completed in time", address_,
                       "within " + seconds_text(config().handshake_timeout_s));
        }
        co_return false;
      }
    }
    co_return true;
  }

  // One request and its answer; false when the connection is to close.
  asio::awaitable<bool> serve_one() {
    // Waiting for a request to start: idle, the first to be closed when connections run short.
    host_.set_stage(id_, ConnectionStage::idle);
    if (buffer_.size() == 0) {
      lowest().expires_after(std::chrono::seconds(config().keep_alive_timeout_s));
      beast::error_code error;
      const std::size_t got =
          co_await stream_.async_read_some(buffer_.prepare(4096), redirect(error));
      if (error) co_return false;
      buffer_.commit(got);
    }
    host_.set_stage(id_, ConnectionStage::head);
    if (host_.stopping) co_return false;

    arm(std::chrono::seconds(config().head_timeout_s));
    parser_.emplace();
    parser_->header_limit(kHeadLimit);
    // The declared length is checked against the route's limit once the head is in (413).
    parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
    beast::error_code error;
    co_await http::async_read_header(stream_, buffer_, *parser_, redirect(error));
    if (disarm() && error) error = beast::error::timeout;
    if (error) {
      co_await refuse_head(error);
      co_return false;
    }

    host_.set_stage(id_, ConnectionStage::busy);
    const Counted under_way(host_.busy);
    RequestHead head = read_head();
    const bool keep = co_await exchange(head);
    co_return keep;
  }

  RequestHead read_head() const {
    const auto& request = parser_->get();
    RequestHead head;
    head.method = std::string(request.method_string());
    head.target = std::string(request.target());
    head.client_address = address_;
    for (const auto& field : request)
      head.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    if (const auto length = parser_->content_length()) head.content_length = *length;
    head.chunked = parser_->chunked();
    return head;
  }

  // A head that did not arrive whole, in time, or well-formed: answered when the client is still
  // there, and the connection closed.
  asio::awaitable<void> refuse_head(beast::error_code error) {
    if (error == beast::error::timeout) {
      ++host_.stats.head_timeouts;
      host_.report("request head not received in time", address_,
                   "within " + seconds_text(config().head_timeout_s));
      Answer answer = host_.pipeline.transport_error(
          address_, sdk::Error(408, "the request head did not arrive within " +
                                        seconds_text(config().head_timeout_s)));
      co_await answer_and_close(answer);
      co_return;
    }
    if (client_gone(error)) co_return;
    ++host_.stats.malformed_heads;
    const bool bad_length =
        error == http::error::bad_content_length || error == http::error::multiple_content_length;
    const sdk::Error refusal =
        error == http::error::header_limit
            ? sdk::Error(431, "the request head (request line and headers) is larger than " +
                                  std::to_string(kHeadLimit) + " bytes")
        : bad_length ? sdk::Error::bad_request("Content-Length must be one decimal number of bytes")
                     : sdk::Error::bad_request("malformed request head: " + error.message());
    host_.report("malformed request head", address_, error.message());
    Answer answer = host_.pipeline.transport_error(address_, refusal);
    co_await answer_and_close(answer, true);
  }

  // Runs one request through the pipeline; false when the connection is to close.
  asio::awaitable<bool> exchange(RequestHead& head) {
    const std::size_t capacity =
        static_cast<std::size_t>(config().threads) + static_cast<std::size_t>(config().queue);
    if (static_cast<std::size_t>(host_.busy.load()) > capacity) {
      ++host_.stats.busy_refusals;
      Answer busy;
      answer_with(busy, sdk::Error::unavailable("the server is busy; retry shortly", 1));
      co_await answer_and_close(busy);
      co_return false;
    }

    Exchange exchange(std::move(head));
    // Admission may ask a backing service (a shared rate limit): an endpoint's work, on an
    // endpoint thread unless this request holds the inline place. A request whose body came
    // with its head is answered in the same visit.
    bool body_unread = exchange.head.has_body_framing();
    co_await on_endpoint([&] {
      host_.pipeline.admit(exchange);
      if (!exchange.answered && take_buffered_body(exchange)) {
        // complete() always leaves the exchange answered: nothing below reads or drops a body.
        const Counted running(host_.running);
        host_.pipeline.complete(exchange, parser_->get().body());
        body_unread = false;
      }
    });
    if (!exchange.answered) {
      co_await read_body(exchange);
      body_unread = false;
    } else if (body_unread) {
      const bool dropped = co_await drop_small_body(exchange);
      body_unread = !dropped;
    }

    const auto& request = parser_->get();
    ++requests_;
    const bool keep_alive =
        exchange.answer.keep_alive && !body_unread && request.keep_alive() && !host_.stopping &&
        (config().max_keep_alive_requests == 0 || requests_ < config().max_keep_alive_requests);
    co_await hold(exchange.answer.hold);
    host_.pipeline.finish(exchange);
    const bool written =
        co_await write(exchange.answer, keep_alive, exchange.head.method == "HEAD");
    if (!written) co_return false;
    if (!keep_alive) {
      if (body_unread) co_await linger();
      co_await close_gracefully();
    }
    co_return keep_alive;
  }

  // True when the request's body is already whole in the buffer (a small one usually arrives with
  // its head) and is now parsed: no read, and no second hand-off to an endpoint thread. Touches no
  // socket, so it may run on an endpoint thread.
  bool take_buffered_body(const Exchange& exchange) {
    if (parser_->is_done()) return true;
    const RequestHead& head = exchange.head;
    if (head.chunked || !head.content_length || *head.content_length > exchange.body_limit ||
        buffer_.size() < *head.content_length) {
      return false;
    }
    parser_->body_limit(exchange.body_limit);
    beast::error_code error;
    while (!parser_->is_done()) {
      const std::size_t used = parser_->put(buffer_.data(), error);
      buffer_.consume(used);
      // Not expected with the whole declared length at hand; read_body() then reports it.
      if (error || used == 0) return false;
    }
    return true;
  }

  asio::awaitable<void> read_body(Exchange& exchange) {
    const RequestHead& head = exchange.head;
    if (const std::string* expect = head.header("Expect");
        expect != nullptr && beast::iequals(*expect, "100-continue")) {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      lowest().expires_after(std::chrono::seconds(config().read_timeout_s));
      beast::error_code ignored;
      co_await asio::async_write(stream_, asio::buffer(kContinue), redirect(ignored));
    }
    parser_->body_limit(exchange.body_limit);
    // Room for the body up front: a buffer that grows as it goes reads 512 bytes at a time.
    buffer_.reserve(buffer_.size() + static_cast<std::size_t>(std::min<std::uint64_t>(
                                         head.content_length.value_or(kSmallBody), kReadAhead)));
    const auto allowed =
        transfer_time(config().read_timeout_s, head.content_length.value_or(exchange.body_limit));
    arm(allowed);
    beast::error_code error;
    co_await http::async_read(stream_, buffer_, *parser_, redirect(error));
    if (disarm() && error) error = beast::error::timeout;
    if (!error) {
      co_await on_endpoint([&] {
        const Counted running(host_.running);
        host_.pipeline.complete(exchange, parser_->get().body());
      });
    } else if (error == http::error::body_limit) {
      host_.pipeline.fail(exchange, body_too_large(exchange.body_limit));
    } else if (error == beast::error::timeout) {
      ++host_.stats.body_timeouts;
      const std::string allowed_text = seconds_text(static_cast<int>(allowed.count()));
      host_.report("request body not received in time", address_, "within " + allowed_text);
      host_.pipeline.fail(
          exchange, sdk::Error(408, "the request body did not arrive within " + allowed_text));
    } else if (client_gone(error)) {
      host_.pipeline.fail(
          exchange, sdk::Error::bad_request("the request body ended before all of it arrived"));
    } else {
      host_.pipeline.fail(exchange,
                          sdk::Error::bad_request("malformed request body: " + error.message()));
    }
  }

  // After an answer decided without the body: reads and drops a small declared body so the
  // connection can carry the next request. True when it did.
  asio::awaitable<bool> drop_small_body(const Exchange& exchange) {
    const RequestHead& head = exchange.head;
    if (head.chunked || !head.content_length || *head.content_length > kSmallBody ||
        !exchange.answer.keep_alive) {
      co_return false;
    }
    parser_->body_limit(kSmallBody);
    arm(std::chrono::seconds(config().read_timeout_s));
    beast::error_code error;
    co_await http::async_read(stream_, buffer_, *parser_, redirect(error));
    disarm();
    co_return !error;
  }

  asio::awaitable<bool> write(Answer& answer, bool keep_alive, bool head_only) {
    if (answer.stream && !head_only) {
      const bool streamed = co_await write_stream(answer, keep_alive);
      co_return streamed;
    }
    const std::size_t size = answer.body.size();
    BeastResponse response = beast_response(answer, keep_alive, head_only);
    arm(transfer_time(config().read_timeout_s, size));
    beast::error_code error;
    co_await http::async_write(stream_, response, redirect(error));
    disarm();
    co_return !error;
  }

  // The head, then each chunk the stream makes once the one before is written (each with the time
  // its size allows), then the last chunk. A stream that fails ends the connection before the
  // last chunk: the client sees the body cut, not complete.
  asio::awaitable<bool> write_stream(Answer& answer, bool keep_alive) {
    StreamedResponse response = streamed_response(answer, keep_alive);
    http::response_serializer<http::empty_body> serializer(response);
    lowest().expires_after(std::chrono::seconds(config().read_timeout_s));
    beast::error_code error;
    co_await http::async_write_header(stream_, serializer, redirect(error));
    if (error) co_return false;
    // A live stream's wake-up: it cancels the wait on this connection's strand; a wake-up that
    // comes before the wait begins is kept in `woken`.
    const asio::any_io_executor executor = co_await asio::this_coro::executor;
    const auto waiter = std::make_shared<StreamWaiter>(executor);
    answer.stream->count_work_in(host_.running);
    answer.stream->on_more([weak = std::weak_ptr<StreamWaiter>(waiter)] {
      const auto waiting = weak.lock();
      if (!waiting) return;
      waiting->woken = true;
      asio::post(waiting->timer.get_executor(), [weak] {
        if (const auto alive = weak.lock()) alive->timer.cancel();
      });
    });
    for (;;) {
      std::string chunk;
      bool closing = false;
      bool failed = false;
      // Making a chunk may read storage or compress: an endpoint thread's work.
      co_await to_endpoint_thread();
      try {
        const Counted running(host_.running);
        std::optional<std::string> last;
        if (host_.stopping.load()) last = answer.stream->closing();
        closing = last.has_value();
        chunk = closing ? std::move(*last) : answer.stream->next();
      } catch (const std::exception& failure) {
        host_.log.log(sdk::LogLevel::error, "http",
                      std::string("a streamed answer stopped: ") + failure.what());
        failed = true;
      }
      co_await to_strand();
      if (failed) co_return false;
      if (chunk.empty() && !closing) {
        const auto wait = answer.stream->waiting();
        if (!wait) break;
        // Nothing is written while a live stream waits, so a client that went away would go
        // unnoticed (holding its lease) until the next heartbeat.
        if (peer_closed()) co_return false;
        if (!waiter->woken.exchange(false)) {
          // Bounded, so that a server that stops is seen at once.
          waiter->timer.expires_after(std::min<std::chrono::milliseconds>(*wait, kStopCheck));
          co_await waiter->timer.async_wait(redirect(error));
        }
        continue;
      }
      if (!chunk.empty()) {
        arm(transfer_time(config().read_timeout_s, chunk.size()));
        const auto framed = http::make_chunk(asio::buffer(chunk));
        co_await asio::async_write(stream_, framed, redirect(error));
        disarm();
        if (error) co_return false;
        answer.stream->written(std::move(chunk));
      }
      if (closing) break;
    }
    lowest().expires_after(std::chrono::seconds(config().read_timeout_s));
    const auto last = http::make_chunk_last();
    co_await asio::async_write(stream_, last, redirect(error));
    answer.stream.reset();
    answer.held.reset();
    co_return !error;
  }

  // `unread`: the client may still be sending (a head cut off at its limit, a body not read), so
  // what it sends is let in for a bounded time first, and it reads the answer, not a reset.
  asio::awaitable<void> answer_and_close(Answer& answer, bool unread = false) {
    const bool written = co_await write(answer, false, false);
    if (!written) co_return;
    if (unread) co_await linger();
    co_await close_gracefully();
  }

  // Reads and drops what the client is still sending, for a bounded time and size.
  // A client that has stopped sending costs one kLingerPause.
  asio::awaitable<void> linger() {
    const auto deadline = std::chrono::steady_clock::now() + kLingerTime;
    std::size_t dropped = 0;
    buffer_.clear();
    while (dropped < kLingerBytes) {
      const auto left = deadline - std::chrono::steady_clock::now();
      if (left <= std::chrono::steady_clock::duration::zero()) break;
      lowest().expires_after(std::min<std::chrono::steady_clock::duration>(left, kLingerPause));
      beast::error_code error;
      const std::size_t got =
          co_await stream_.async_read_some(buffer_.prepare(16384), redirect(error));
      if (error) break;
      dropped += got;
    }
  }

  asio::awaitable<void> close_gracefully() {
    if constexpr (kTls) {
      lowest().expires_after(kCloseNotifyTime);
      beast::error_code ignored;
      co_await stream_.async_shutdown(redirect(ignored));
    }
    beast::error_code ignored;
    lowest().socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    lowest().close();
  }

  ConnectionHost& host_;
  Stream& stream_;
  ConnectionTable::Id id_;
  std::string address_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  int requests_ = 0;
  asio::steady_timer timer_;
  std::shared_ptr<ConnectionHandle> handle_;
};

}  // namespace connection_detail

template <class Stream>
asio::awaitable<void> serve_connection(ConnectionHost& host, Stream stream, ConnectionTable::Id id,
                                       std::string address) {
  connection_detail::Connection<Stream> connection(host, stream, id, address);
  co_await connection.run();
}

}  // namespace eventsvc::host
