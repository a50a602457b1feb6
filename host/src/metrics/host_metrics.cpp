#include "metrics/host_metrics.hpp"

#include <string>

namespace eventsvc::host {

namespace {

constexpr std::array<const char*, kRefusalKinds> kRefusalNames = {
    "rate_limit", "anonymous_rate_limit", "concurrency", "shutting_down"};

std::size_t route_index(std::optional<Operation> operation) {
  return operation ? static_cast<std::size_t>(*operation) : kOperations.size();
}

std::string route_name(std::size_t index) {
  return index < kOperations.size() ? std::string(operation_name(kOperations[index])) : "none";
}

}  // namespace

HostMetrics::HostMetrics() {
  for (auto& histogram : durations_)
    histogram = std::make_unique<sdk::Histogram>(sdk::Histogram::latency_bounds());
}

void HostMetrics::request(std::optional<Operation> operation, int status,
                          std::optional<double> seconds) {
  const std::size_t route = route_index(operation);
  if (status >= kFirstStatus && status < kFirstStatus + static_cast<int>(kStatuses)) {
    statuses_[route][static_cast<std::size_t>(status - kFirstStatus)].fetch_add(
        1, std::memory_order_relaxed);
  }
  if (seconds) durations_[route]->observe(*seconds);
}

void HostMetrics::refused(Refusal reason) {
  refusals_[static_cast<std::size_t>(reason)].fetch_add(1, std::memory_order_relaxed);
}

void HostMetrics::ingested(std::uint64_t accepted_events, std::uint64_t duplicate_events) {
  writes_.fetch_add(1, std::memory_order_relaxed);
  events_.fetch_add(accepted_events, std::memory_order_relaxed);
  duplicates_.fetch_add(duplicate_events, std::memory_order_relaxed);
}

void HostMetrics::replayed() {
  replays_.fetch_add(1, std::memory_order_relaxed);
}

void HostMetrics::report(sdk::MetricsSink& sink) const {
  constexpr std::string_view kRequests =
      "Requests answered, by operation (none: reached no endpoint) and HTTP status";
  constexpr std::string_view kDurations =
      "Time from a request's head to its answer being decided, by operation";
  for (std::size_t route = 0; route < kRoutes; ++route) {
    const std::string operation = route_name(route);
    for (std::size_t status = 0; status < kStatuses; ++status) {
      const auto count = statuses_[route][status].load(std::memory_order_relaxed);
      if (count == 0) continue;
      sink.counter("http_requests_total", kRequests, static_cast<double>(count),
                   {{"operation", operation},
                    {"status", std::to_string(kFirstStatus + static_cast<int>(status))}});
    }
    sink.histogram("http_request_duration_seconds", kDurations, durations_[route]->snapshot(),
                   {{"operation", operation}});
  }
  for (std::size_t reason = 0; reason < refusals_.size(); ++reason) {
    sink.counter("http_refusals_total",
                 "Requests refused before their endpoint ran (429 or 503), by reason",
                 static_cast<double>(refusals_[reason].load(std::memory_order_relaxed)),
                 {{"reason", kRefusalNames[reason]}});
  }
  sink.counter("ingest_writes_total", "Ingest requests made durable (202), replays excluded",
               static_cast<double>(writes_.load(std::memory_order_relaxed)));
  sink.counter("ingest_replays_total",
               "Ingest requests answered from a completed Idempotency-Key (the original 202)",
               static_cast<double>(replays_.load(std::memory_order_relaxed)));
  sink.counter("ingest_events_total", "Events accepted and stored by ingest",
               static_cast<double>(events_.load(std::memory_order_relaxed)));
  sink.counter("ingest_duplicate_events_total",
               "Events of accepted writes that were already stored (same id and digest)",
               static_cast<double>(duplicates_.load(std::memory_order_relaxed)));
}

}  // namespace eventsvc::host
