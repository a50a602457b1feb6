// POST /v1/search (API-SPEC 4.3, DESIGN §5): text search over history, BM25-ranked, within a time
// window.
#pragma once

#include "api/endpoint_base.hpp"

namespace eventsvc::host {

// Candidates a search may read before it answers with complete: false.
inline constexpr std::size_t kSearchScanLimit = 50000;

class SearchEndpoint final : public StorageEndpoint {
 public:
  using StorageEndpoint::StorageEndpoint;

  Operation operation() const override { return Operation::search; }
  std::vector<std::string_view> scopes() const override { return {sdk::kScopeRead}; }
  bool leased() const override { return true; }
  bool reports_concurrency() const override { return true; }
  std::size_t max_body_bytes() const override { return config_.max_body_bytes; }
  ApiResponse handle(const ApiRequest& request) override;
};

}  // namespace eventsvc::host
