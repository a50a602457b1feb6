// GET /v1/receipts/{receiptId} (API-SPEC 4.2, DESIGN §4).
#pragma once

#include "api/endpoint_base.hpp"

namespace eventsvc::host {

class ReceiptEndpoint final : public StorageEndpoint {
 public:
  using StorageEndpoint::StorageEndpoint;

  Operation operation() const override { return Operation::receipts; }
  std::vector<std::string_view> scopes() const override {
    return {sdk::kScopeRead, sdk::kScopeWrite};
  }
  bool leased() const override { return true; }
  bool reports_concurrency() const override { return false; }
  std::size_t max_body_bytes() const override { return 0; }
  ApiResponse handle(const ApiRequest& request) override;
};

}  // namespace eventsvc::host
