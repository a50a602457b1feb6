// What the connection layer hands the request pipeline and gets back: a request head as it
// arrived, and an answer to write. Independent of the HTTP library that parses and writes them.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace eventsvc::host {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct RequestHead {
  std::string method;
  std::string target;  // path and query, as sent
  std::string client_address;
  HeaderList headers;  // in the order received
  std::optional<std::uint64_t> content_length;
  bool chunked = false;

  // The first header named `name` (compared without case), or nullptr.
  const std::string* header(std::string_view name) const;
  // How many headers are named `name`.
  std::size_t header_count(std::string_view name) const;
  // The URL's query as (name, value) pairs in order, %-decoded; 400 for a malformed escape.
  std::vector<std::pair<std::string, std::string>> query_parameters() const;
  // The path without the query.
  std::string_view path() const;
  // The request says a body follows (a length, even 0, or chunked).
  bool has_body_framing() const { return content_length.has_value() || chunked; }
};

// Whether a list header (Accept, Accept-Encoding) names `token` (lowercase) with a weight above
// zero; false for no header.
bool header_names(const std::string* header, std::string_view token);

// A body produced while it is written, chunk by chunk (chunked transfer encoding): each chunk is
// asked for once the one before has been written, so a slow reader holds its connection, not a
// thread, and memory holds one chunk.
//
// A live stream (a tail) may have nothing to send yet: its next() then returns nothing and
// waiting() says for how long the connection may wait before asking again; the stream cuts the
// wait short by calling the wake-up it was given, from any thread. While the server stops, the
// connection asks for closing() instead and ends the body with it.
class BodyStream {
 public:
  virtual ~BodyStream() = default;
  // The next bytes of the body; empty at its end (or, for a live stream, when waiting() says so:
  // nothing yet). Throws when the body cannot go on: the connection is then closed before the last
  // chunk, so the client sees a cut, never a body that looks complete.
  virtual std::string next() = 0;
  // After next() gave nothing: how long to wait before asking again; nullopt: the body has ended.
  virtual std::optional<std::chrono::milliseconds> waiting() { return std::nullopt; }
  // Given once, before the first next(): what a live stream calls when it has more to send.
  virtual void on_more(std::function<void()> wake) { (void)wake; }
  // Given once, before the first next(): what a stream that reads on a thread of its own counts
  // that work in while it runs, so that a server that stops waits for it before it stops the
  // plugins the work calls.
  virtual void count_work_in(std::atomic<int>& running) { (void)running; }
  // While the server stops: the last bytes of a live body, which then ends; nullopt for a body that
  // goes on to its end (within the shutdown grace).
  virtual std::optional<std::string> closing() { return std::nullopt; }
  // A chunk next() gave, back once it is written: a stream that makes chunks of megabytes makes
  // the next ones in the same memory, rather than in pages the kernel must fault in afresh.
  virtual void written(std::string&& chunk) { (void)chunk; }
};

struct Answer {
  int status = 200;
  std::string body;  // JSON
  HeaderList headers;
  // False: the connection is closed after this answer.
  bool keep_alive = true;
  // Set: the body is this stream's, not `body`.
  std::shared_ptr<BodyStream> stream;
  // What the stream needs held until its last chunk is written (a concurrency lease).
  std::shared_ptr<void> held;
  // Sent this long after it is ready: the engine paces its writers (sdk::AcceptResult::hold).
  std::chrono::milliseconds hold{0};
};

}  // namespace eventsvc::host
