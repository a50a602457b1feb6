// Counters of the connection layer, for the operator's view: written by the I/O thread, read by
// anyone.
#pragma once

#include <atomic>
#include <cstdint>

#include "eventsvc/sdk/metrics.hpp"

namespace eventsvc::host {

struct ConnectionStats {
  std::atomic<std::uint64_t> accepted{0};
  std::atomic<std::uint64_t> open{0};
  std::atomic<std::uint64_t> refused_address_cap{0};
  std::atomic<std::uint64_t> refused_total_cap{0};
  std::atomic<std::uint64_t> idle_closed_for_room{0};
  std::atomic<std::uint64_t> handshake_failures{0};  // timed out or broken
  std::atomic<std::uint64_t> head_timeouts{0};
  std::atomic<std::uint64_t> body_timeouts{0};
  std::atomic<std::uint64_t> malformed_heads{0};
  std::atomic<std::uint64_t> busy_refusals{0};  // 503: `threads` + `queue` requests under way
  std::atomic<std::uint64_t> answers_held{0};   // sent late at the engine's asking (ingest pacing)
  std::atomic<std::uint64_t> held_ms{0};        // and how long, in all
  std::atomic<std::uint64_t> answered_inline{0};  // on the I/O thread that read them
};

// The counters as eventsvc_connections_* and eventsvc_http_busy_refusals_total series.
void report_connection_stats(const ConnectionStats& stats, sdk::MetricsSink& sink);

}  // namespace eventsvc::host
