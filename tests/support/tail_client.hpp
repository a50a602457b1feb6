// A live tail (GET /v1/tail) read as a client reads it: one TLS connection, the answer's head,
// then Server-Sent Events out of the chunked body as they arrive, exactly when the test asks.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "support/raw_connection.hpp"

namespace eventsvc::testing {

struct SseEvent {
  std::string event;  // empty: a plain message (an event of the tail)
  std::string id;
  std::string data;
};

class TailClient {
 public:
  // Sends GET /v1/tail?`query` with `key` (and Last-Event-ID when given) and reads the head.
  TailClient(int port, const std::string& key, const std::string& query,
             const std::string& last_event_id = {});

  int status() const { return status_; }
  // The answer's head, and its body when it was not a stream (an error's JSON).
  const std::string& head() const { return head_; }
  const std::string& error_body() const { return error_body_; }

  // Reads until `enough` holds for the events received so far (heartbeat comments are counted,
  // not kept), the stream ends or `timeout` passes; returns every event received so far.
  const std::vector<SseEvent>& read_until(
      const std::function<bool(const std::vector<SseEvent>&)>& enough,
      std::chrono::milliseconds timeout);
  // Reads until `count` plain messages arrived in all.
  const std::vector<SseEvent>& read_messages(std::size_t count, std::chrono::milliseconds timeout);
  const std::vector<SseEvent>& events() const { return events_; }
  // The plain messages among them.
  std::vector<SseEvent> messages() const;
  std::size_t heartbeats() const { return heartbeats_; }
  // The server ended the body (its last chunk arrived).
  bool ended() const { return ended_; }
  // The server closed the connection.
  bool closed() const { return closed_; }
  // Hangs up.
  void close() { connection_.reset(); }

 private:
  void take(const std::string& bytes);
  void parse_events();

  std::unique_ptr<RawConnection> connection_;
  int status_ = 0;
  std::string head_;
  std::string error_body_;
  std::string raw_;   // bytes after the head, still chunk-framed
  std::string text_;  // de-chunked body not yet parsed into events
  std::vector<SseEvent> events_;
  std::size_t heartbeats_ = 0;
  bool ended_ = false;
  bool closed_ = false;
};

}  // namespace eventsvc::testing
