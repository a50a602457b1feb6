// What the host counts for the operator's /metrics page: requests by operation and status with
// their durations, requests refused by a limit, and what ingest accepted. Touched on every request,
// so atomics only: no lock, no allocation.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "eventsvc/sdk/metrics.hpp"
#include "limits/operation.hpp"

namespace eventsvc::host {

// Why a request was refused before its endpoint ran.
enum class Refusal : std::size_t {
  rate_limit,            // the key's plan allows no more of this operation this minute
  anonymous_rate_limit,  // an address's unauthenticated or unroutable requests
  concurrency,           // the workspace has its plan's concurrency in progress
  shutting_down,
};
inline constexpr std::size_t kRefusalKinds = 4;

class HostMetrics {
 public:
  HostMetrics();

  // An answered request. `operation` is nullopt for one that reached no endpoint (404, 405, a
  // malformed head); `seconds` is nullopt when it was refused before it was timed.
  void request(std::optional<Operation> operation, int status, std::optional<double> seconds);
  void refused(Refusal reason);
  // A write that was made durable (not an idempotent replay).
  void ingested(std::uint64_t accepted_events, std::uint64_t duplicate_events);
  void replayed();

  void report(sdk::MetricsSink& sink) const;

 private:
  // Operations, then "none".
  static constexpr std::size_t kRoutes = kOperations.size() + 1;
  // Statuses 100..599 by their value, so counting one is an index, not a lookup.
  static constexpr int kFirstStatus = 100;
  static constexpr std::size_t kStatuses = 500;

  std::array<std::array<std::atomic<std::uint64_t>, kStatuses>, kRoutes> statuses_{};
  std::array<std::unique_ptr<sdk::Histogram>, kRoutes> durations_;
  std::array<std::atomic<std::uint64_t>, kRefusalKinds> refusals_{};
  std::atomic<std::uint64_t> writes_{0};
  std::atomic<std::uint64_t> replays_{0};
  std::atomic<std::uint64_t> events_{0};
  std::atomic<std::uint64_t> duplicates_{0};
};

}  // namespace eventsvc::host
