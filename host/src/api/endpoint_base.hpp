// Shared plumbing of the real endpoints: the storage module and the traits the pipeline reads.
#pragma once

#include <chrono>

#include "api/read_paging.hpp"
#include "api/retention_bound.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "modules/module.hpp"
#include "server/endpoint.hpp"

namespace eventsvc::host {

class StorageEndpoint : public Endpoint {
 public:
  StorageEndpoint(const HostConfig& config, const Module<sdk::Storage>& storage)
      : config_(config), storage_(storage) {}

 protected:
  const HostConfig& config_;
  const Module<sdk::Storage>& storage_;
};

// Search, query and analyze: scope events:read, a concurrency lease reported in the answer's
// headers, the configured body limit, and paging by cursor.
class ReadEndpoint : public StorageEndpoint {
 public:
  ReadEndpoint(const HostConfig& config, const Module<sdk::Storage>& storage,
               const CursorSeal& seal)
      : StorageEndpoint(config, storage), seal_(seal) {}

  std::vector<std::string_view> scopes() const final { return {sdk::kScopeRead}; }
  bool leased() const final { return true; }
  bool reports_concurrency() const final { return true; }
  std::size_t max_body_bytes() const final { return config_.max_body_bytes; }

 protected:
  // The paging of a `read` ("search", "query", "analyze") request whose body is `body`.
  ReadPaging paging(std::string_view read, const ApiRequest& request,
                    const sdk::json::value& body) const {
    return {seal_, config_.cursors.lifetime, read, request, body};
  }

 private:
  const CursorSeal& seal_;
};

// Milliseconds since `started`, rounded to microseconds (the answers' elapsed_ms).
double elapsed_ms_since(std::chrono::steady_clock::time_point started);

// A JSON answer with status 200.
inline ApiResponse json_answer(const sdk::json::value& body, int status = 200) {
  return {status, sdk::to_json(body), {}, nullptr};
}

}  // namespace eventsvc::host
