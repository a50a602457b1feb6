#include "server/connection_stats.hpp"

namespace eventsvc::host {

namespace {
double value(const std::atomic<std::uint64_t>& counter) {
  return static_cast<double>(counter.load(std::memory_order_relaxed));
}
}  // namespace

void report_connection_stats(const ConnectionStats& stats, sdk::MetricsSink& sink) {
  sink.gauge("connections_open", "Client connections open on the API listeners", value(stats.open));
  sink.counter("connections_accepted_total", "Client connections accepted on the API listeners",
               value(stats.accepted));
  constexpr std::string_view kRefused = "Connections closed at accept, by the cap that was reached";
  sink.counter("connections_refused_total", kRefused, value(stats.refused_address_cap),
               {{"reason", "per_address_cap"}});
  sink.counter("connections_refused_total", kRefused, value(stats.refused_total_cap),
               {{"reason", "total_cap"}});
  constexpr std::string_view kClosed =
      "Connections the server closed early, by reason (a deadline, a broken handshake or head, "
      "or an idle connection closed to make room at max_connections)";
  sink.counter("connections_closed_total", kClosed, value(stats.idle_closed_for_room),
               {{"reason", "idle_for_room"}});
  sink.counter("connections_closed_total", kClosed, value(stats.handshake_failures),
               {{"reason", "handshake_failed"}});
  sink.counter("connections_closed_total", kClosed, value(stats.head_timeouts),
               {{"reason", "head_timeout"}});
  sink.counter("connections_closed_total", kClosed, value(stats.body_timeouts),
               {{"reason", "body_timeout"}});
  sink.counter("connections_closed_total", kClosed, value(stats.malformed_heads),
               {{"reason", "malformed_head"}});
  sink.counter("http_busy_refusals_total",
               "Requests answered 503 because server.threads + server.queue were under way",
               value(stats.busy_refusals));
  sink.counter("http_answers_held_total",
               "Answers held before they were sent because the storage engine paced its writers "
               "(search trailing acceptance)",
               value(stats.answers_held));
  sink.counter("http_answer_hold_seconds_total", "How long those answers were held, in all",
               value(stats.held_ms) / 1000.0);
  sink.counter("http_requests_answered_inline_total",
               "Requests answered on the I/O thread that read them, without a hand-off to an "
               "endpoint thread (one at a time, where there are several I/O threads)",
               value(stats.answered_inline));
}

}  // namespace eventsvc::host
