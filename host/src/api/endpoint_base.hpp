// Shared plumbing of the real endpoints: the storage module and the traits the pipeline reads.
#pragma once

#include <chrono>

#include "api/endpoint.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "modules/module.hpp"

namespace eventsvc::host {

class StorageEndpoint : public Endpoint {
 public:
  StorageEndpoint(const HostConfig& config, const Module<sdk::Storage>& storage)
      : config_(config), storage_(storage) {}

 protected:
  const HostConfig& config_;
  const Module<sdk::Storage>& storage_;
};

// The earliest timestamp a plan's keys may see: now minus the plan's retention.
inline sdk::Millis retention_horizon(const Plan& plan, sdk::Millis now) {
  return now - plan.retention_ms();
}

// Milliseconds since `started`, rounded to microseconds (the answers' elapsed_ms).
double elapsed_ms_since(std::chrono::steady_clock::time_point started);

// A JSON answer with status 200.
inline ApiResponse json_answer(const sdk::json::value& body, int status = 200) {
  return {status, sdk::to_json(body), {}};
}

}  // namespace eventsvc::host
