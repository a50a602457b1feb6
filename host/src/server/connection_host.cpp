#include "server/connection_host.hpp"

#include <boost/asio/post.hpp>

namespace eventsvc::host {

using namespace std::chrono_literals;

ConnectionHost::ConnectionHost(const ServerConfig& server_config, RequestPipeline& request_pipeline,
                               LogSink& log_sink)
    : config(server_config),
      pipeline(request_pipeline),
      log(log_sink),
      table_(static_cast<std::size_t>(server_config.max_connections),
             static_cast<std::size_t>(server_config.max_connections_per_address)) {}

ConnectionTable::Admission ConnectionHost::admit(const std::string& address) {
  const std::lock_guard lock(mutex_);
  ConnectionTable::Admission admission = table_.admit(address);
  if (admission.evicted) {
    ++stats.idle_closed_for_room;
    if (const auto it = live_.find(*admission.evicted); it != live_.end()) {
      close_on_strand(it->second);
    }
  }
  return admission;
}

void ConnectionHost::attach(ConnectionTable::Id id, boost::asio::any_io_executor strand,
                            std::weak_ptr<ConnectionHandle> handle) {
  const std::lock_guard lock(mutex_);
  live_.emplace(id, Live{std::move(strand), std::move(handle), ConnectionStage::handshake});
  ++stats.open;
}

void ConnectionHost::detach(ConnectionTable::Id id) {
  const std::lock_guard lock(mutex_);
  live_.erase(id);
  table_.remove(id);
  --stats.open;
}

void ConnectionHost::set_stage(ConnectionTable::Id id, ConnectionStage stage) {
  const std::lock_guard lock(mutex_);
  const auto it = live_.find(id);
  if (it == live_.end()) return;
  it->second.stage = stage;
  table_.set_idle(id, stage == ConnectionStage::idle);
}

std::size_t ConnectionHost::close_all(bool busy_too) {
  const std::lock_guard lock(mutex_);
  std::size_t closed = 0;
  for (const auto& [id, live] : live_) {
    if (!busy_too && live.stage == ConnectionStage::busy) continue;
    close_on_strand(live);
    ++closed;
  }
  return closed;
}

void ConnectionHost::close_on_strand(const Live& live) {
  boost::asio::post(live.strand, [handle = live.handle] {
    if (const auto alive = handle.lock()) {
      boost::system::error_code ignored;
      alive->socket->close(ignored);
    }
  });
}

void ConnectionHost::report(const std::string& event, const std::string& address,
                            const std::string& detail) {
  std::uint64_t suppressed = 0;
  {
    const std::lock_guard lock(mutex_);
    Throttle& throttle = throttles_[event];
    const auto now = std::chrono::steady_clock::now();
    if (now - throttle.last < 1s) {
      ++throttle.suppressed;
      return;
    }
    suppressed = throttle.suppressed;
    throttle.last = now;
    throttle.suppressed = 0;
  }
  sdk::json::object fields{{"client", address}};
  if (!detail.empty()) fields["detail"] = detail;
  if (suppressed > 0) fields["suppressed"] = suppressed;
  log.log(sdk::LogLevel::warning, "http", event, std::move(fields));
}

}  // namespace eventsvc::host
