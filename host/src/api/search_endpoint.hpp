// POST /v1/search (API-SPEC 4.3, DESIGN §5): text search over history, BM25-ranked, within a time
// window.
#pragma once

#include "api/endpoint_base.hpp"

namespace eventsvc::host {

// Candidates a search may read before it answers with complete: false.
inline constexpr std::size_t kSearchScanLimit = 50000;

class SearchEndpoint final : public ReadEndpoint {
 public:
  using ReadEndpoint::ReadEndpoint;

  Operation operation() const override { return Operation::search; }
  ApiResponse handle(const ApiRequest& request) override;
};

}  // namespace eventsvc::host
