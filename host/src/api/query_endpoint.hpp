// POST /v1/query (API-SPEC 4.4, DESIGN §5): structured conditions over current state or history.
#pragma once

#include "api/endpoint_base.hpp"

namespace eventsvc::host {

// Candidates a query may read before it answers with complete: false.
inline constexpr std::size_t kQueryScanLimit = 100000;

class QueryEndpoint final : public StorageEndpoint {
 public:
  using StorageEndpoint::StorageEndpoint;

  Operation operation() const override { return Operation::query; }
  std::vector<std::string_view> scopes() const override { return {sdk::kScopeRead}; }
  bool leased() const override { return true; }
  bool reports_concurrency() const override { return true; }
  std::size_t max_body_bytes() const override { return config_.max_body_bytes; }
  ApiResponse handle(const ApiRequest& request) override;
};

}  // namespace eventsvc::host
