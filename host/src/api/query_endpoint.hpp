// POST /v1/query (API-SPEC 4.4, DESIGN §5): structured conditions over current state or history.
#pragma once

#include "api/endpoint_base.hpp"

namespace eventsvc::host {

// Candidates a query may read before it answers with complete: false.
inline constexpr std::size_t kQueryScanLimit = 100000;

class QueryEndpoint final : public ReadEndpoint {
 public:
  using ReadEndpoint::ReadEndpoint;

  Operation operation() const override { return Operation::query; }
  ApiResponse handle(const ApiRequest& request) override;
};

}  // namespace eventsvc::host
