#include "support/tail_client.hpp"

#include <stdexcept>

namespace eventsvc::testing {

TailClient::TailClient(int port, const std::string& key, const std::string& query,
                       const std::string& last_event_id)
    : connection_(std::make_unique<RawConnection>(port)) {
  if (!connection_->start_tls()) throw std::runtime_error("the TLS handshake failed");
  std::string request = "GET /v1/tail" + (query.empty() ? std::string() : "?" + query) +
                        " HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + key +
                        "\r\nAccept: text/event-stream\r\n";
  if (!last_event_id.empty()) request += "Last-Event-ID: " + last_event_id + "\r\n";
  request += "\r\n";
  if (!connection_->send(request)) throw std::runtime_error("the server closed the connection");
  std::string bytes;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (bytes.find("\r\n\r\n") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    const std::string more = connection_->read_at_least(1, std::chrono::milliseconds(500));
    if (more.empty() && connection_->closed_by_server(std::chrono::milliseconds(0))) break;
    bytes += more;
  }
  const auto end = bytes.find("\r\n\r\n");
  if (end == std::string::npos) throw std::runtime_error("no answer head: " + bytes);
  head_ = bytes.substr(0, end + 4);
  status_ = std::stoi(head_.substr(9, 3));
  if (status_ != 200) {
    error_body_ = bytes.substr(end + 4);
    const std::string rest = connection_->read_until_closed(std::chrono::milliseconds(500));
    error_body_ += rest;
    return;
  }
  take(bytes.substr(end + 4));
}

void TailClient::take(const std::string& bytes) {
  raw_ += bytes;
  for (;;) {
    const auto line_end = raw_.find("\r\n");
    if (line_end == std::string::npos) break;
    const std::size_t size = std::stoul(raw_.substr(0, line_end), nullptr, 16);
    if (size == 0) {
      ended_ = true;
      raw_.clear();
      break;
    }
    if (raw_.size() < line_end + 2 + size + 2) break;
    text_ += raw_.substr(line_end + 2, size);
    raw_.erase(0, line_end + 2 + size + 2);
  }
  parse_events();
}

void TailClient::parse_events() {
  for (;;) {
    const auto end = text_.find("\n\n");
    if (end == std::string::npos) return;
    const std::string block = text_.substr(0, end + 1);
    text_.erase(0, end + 2);
    SseEvent event;
    bool any = false;
    std::size_t at = 0;
    while (at < block.size()) {
      const auto line_end = block.find('\n', at);
      const std::string line = block.substr(at, line_end - at);
      at = line_end + 1;
      if (line.starts_with(":")) {
        ++heartbeats_;
        continue;
      }
      const auto colon = line.find(':');
      const std::string field = line.substr(0, colon);
      std::string value = colon == std::string::npos ? std::string() : line.substr(colon + 1);
      if (value.starts_with(" ")) value.erase(0, 1);
      if (field == "event") event.event = value, any = true;
      if (field == "id") event.id = value, any = true;
      if (field == "data") event.data = value, any = true;
    }
    if (any && !event.data.empty()) events_.push_back(std::move(event));
  }
}

const std::vector<SseEvent>& TailClient::read_until(
    const std::function<bool(const std::vector<SseEvent>&)>& enough,
    std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (connection_ && !enough(events_) && !ended_ && !closed_ &&
         std::chrono::steady_clock::now() < deadline) {
    const std::string more = connection_->read_at_least(1, std::chrono::milliseconds(200));
    if (more.empty()) {
      if (connection_->closed_by_server(std::chrono::milliseconds(0))) closed_ = true;
      continue;
    }
    take(more);
  }
  return events_;
}

const std::vector<SseEvent>& TailClient::read_messages(std::size_t count,
                                                       std::chrono::milliseconds timeout) {
  return read_until([&](const std::vector<SseEvent>&) { return messages().size() >= count; },
                    timeout);
}

std::vector<SseEvent> TailClient::messages() const {
  std::vector<SseEvent> out;
  for (const auto& event : events_) {
    if (event.event.empty()) out.push_back(event);
  }
  return out;
}

}  // namespace eventsvc::testing
